"""Monte Carlo Hog: seeded, reproducible games between two dice tables, with Wilson intervals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.core.stats import wilson_interval
from dicelab.hog.rules import HogRules

MAX_GAMES = 100_000_000
MAX_TURNS = 100_000_000
MAX_SEED = 2**63 - 1


@njit(cache=True)
def _turn(n, sides):  # pragma: no cover - numba
    total = 0
    pig = False
    for _ in range(n):
        face = np.random.randint(1, sides + 1)
        if face == 1:
            pig = True
        total += face
    return 0 if pig else total


@njit(cache=True)
def _play(tables, goal, sides, games, seed, wins):  # pragma: no cover - numba
    """Game g: A (table 0) moves first when g is even. wins[s] counts A's wins by starter s."""
    np.random.seed(seed)
    for g in range(games):
        starter = g % 2
        scores = np.zeros(2, np.int64)
        mover = starter
        while True:
            n = tables[mover, scores[mover], scores[1 - mover]]
            scores[mover] += _turn(n, sides)
            if scores[mover] >= goal:
                if mover == 0:
                    wins[starter] += 1
                break
            mover = 1 - mover


@njit(cache=True)
def _turns(n, sides, count, seed, out):  # pragma: no cover - numba
    np.random.seed(seed)
    for t in range(count):
        out[t] = _turn(n, sides)


def _check(games: int, seed: int, cap: int, what: str) -> None:
    require(isinstance(games, int) and 1 <= games <= cap,
            f"{what} must be a whole number from 1 to {cap}, got {games}")
    require(isinstance(seed, int) and 0 <= seed <= MAX_SEED,
            f"seed must be a whole number from 0 to {MAX_SEED}, got {seed}")


def _numba_seed(seed: int) -> int:
    """The 32-bit seed of numba's generator, drawn from ``SeedSequence(seed)``."""
    return int(np.random.SeedSequence(seed).generate_state(1, np.uint32)[0])


def turn_scores(n: int, rules: HogRules, count: int, seed: int = 0) -> np.ndarray:
    """The scores of ``count`` simulated turns rolling ``n`` dice."""
    rules.check_dice(n)
    _check(count, seed, MAX_TURNS, "the number of turns")
    out = np.zeros(count, np.int64)
    _turns(n, rules.sides, count, _numba_seed(seed), out)
    return out


@dataclass(frozen=True)
class SimulationResult:
    """A's wins over ``games`` games (A first in the even ones), with Wilson intervals."""

    a: str
    b: str
    games: int
    seed: int
    wins_a_first: int
    games_a_first: int
    wins_a_second: int
    games_a_second: int
    confidence: float

    @property
    def wins(self) -> int:
        return self.wins_a_first + self.wins_a_second

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games, self.confidence)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "a": self.a, "b": self.b, "games": self.games, "seed": self.seed, "wins": self.wins,
            "win_rate": self.win_rate, "interval": list(self.interval),
            "confidence": self.confidence,
        }
        for key, w, n in (("a_first", self.wins_a_first, self.games_a_first),
                          ("a_second", self.wins_a_second, self.games_a_second)):
            if n:
                out[key] = {"games": n, "wins": w, "win_rate": w / n,
                            "interval": list(wilson_interval(w, n, self.confidence))}
        return out


def simulate_tables(
    a_table: np.ndarray, b_table: np.ndarray, rules: HogRules, games: int, seed: int,
    names: tuple[str, str] = ("a", "b"), confidence: float = 0.95,
) -> SimulationResult:
    """Play ``games`` games of table A against table B, the first move alternating."""
    _check(games, seed, MAX_GAMES, "games")
    tables = np.ascontiguousarray(np.stack([a_table, b_table]).astype(np.int64))
    wins = np.zeros(2, np.int64)
    _play(tables, rules.goal, rules.sides, games, _numba_seed(seed), wins)
    first = (games + 1) // 2
    return SimulationResult(
        a=names[0], b=names[1], games=games, seed=seed,
        wins_a_first=int(wins[0]), games_a_first=first,
        wins_a_second=int(wins[1]), games_a_second=games - first, confidence=confidence,
    )
