"""Simultaneous Pig (Zhu & Ma 2023): every player takes the turn at the same time.

The rules
---------
``n >= 2`` players race to a goal (100 by default), one six-sided die each. At the start of every
turn each player secretly picks a *hold-at target* ``k`` with ``1 <= k <= goal - own score``, then
rolls until the turn total reaches ``k`` (they hold) or a 1 is rolled (the turn total is lost).
When every player has stopped, the turn totals are added to the scores. If ``m >= 1`` players are
at or above the goal, each of them gets ``1/m`` of the win and the game ends; otherwise the next
turn begins. Nobody sees the others' rolls during the turn, so a turn is one simultaneous move.

The turn total ``X_k``
----------------------
Holding at ``k`` gives a turn total ``X_k`` in ``{0, k, k+1, ..., k+5}`` (the last roll can
overshoot ``k`` by at most 5). The paper's Table 1 recursion builds ``X_{k+1}`` from ``X_k``: the
only way the two differ is when ``X_k`` stopped at exactly ``k``; then one more roll is made,
which busts with probability 1/6 or lands on ``k+2..k+6``::

    P(X_{k+1} = t) = P(X_k = t) + P(X_k = k)/6   for t in {0, k+2, ..., k+5}
    P(X_{k+1} = k+1) = P(X_k = k+1)
    P(X_{k+1} = k+6) = P(X_k = k)/6

:func:`turn_total_fractions` computes it exactly (``fractions.Fraction``) and
:func:`turn_total_table` as floats; ``P(X_100 = 0) = 0.9898`` (Table 2).

The engine
----------
:class:`SimPigGame` plays the game die roll by die roll for any number of players, and
:func:`sample_turn_totals` draws turn totals for many games at once from the exact distribution
(what the Monte Carlo simulator uses).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import numpy as np

from dicelab.core.errors import require

MAX_GOAL = 1000
MAX_PLAYERS = 100_000
SIDES = 6


@dataclass(frozen=True)
class SimPigRules:
    """The rules of simultaneous Pig: the goal and the number of players.

    >>> SimPigRules().goal, SimPigRules().players
    (100, 2)
    """

    goal: int = 100
    players: int = 2

    def __post_init__(self) -> None:
        require(
            isinstance(self.goal, int) and 2 <= self.goal <= MAX_GOAL,
            f"goal must be a whole number from 2 to {MAX_GOAL}, got {self.goal!r}",
        )
        require(
            isinstance(self.players, int) and 2 <= self.players <= MAX_PLAYERS,
            f"players must be a whole number from 2 to {MAX_PLAYERS}, got {self.players!r}",
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def targets(self, score: int) -> range:
        """The legal hold-at targets for a player with ``score`` points: ``1 .. goal - score``."""
        require(0 <= score < self.goal, f"score must be from 0 to {self.goal - 1}, got {score}")
        return range(1, self.goal - score + 1)

    def payoff(self, scores: tuple[int, ...] | list[int]) -> tuple[float, ...] | None:
        """Each player's share of the win at ``scores`` (``None`` while nobody has reached it)."""
        winners = [s >= self.goal for s in scores]
        m = sum(winners)
        if m == 0:
            return None
        return tuple((1.0 / m) if w else 0.0 for w in winners)


def _check_k(k: int) -> None:
    require(
        isinstance(k, (int, np.integer)) and 1 <= k <= MAX_GOAL,
        f"hold-at target k must be a whole number from 1 to {MAX_GOAL}, got {k!r}",
    )


@cache
def _fraction_rows(kmax: int) -> tuple[tuple[Fraction, tuple[Fraction, ...]], ...]:
    """Rows ``(P(X_k=0), (P(X_k=k), ..., P(X_k=k+5)))`` for k = 1..kmax, by Table 1's recursion."""
    sixth = Fraction(1, 6)
    # X_1: a roll of 1 busts, 2..6 end the turn (P(X_1 = 1) = 0).
    p0 = sixth
    pk = (Fraction(0), sixth, sixth, sixth, sixth, sixth)
    rows = [(p0, pk)]
    for _ in range(2, kmax + 1):
        carry = pk[0] * sixth  # stopped at exactly k: roll once more
        p0 = p0 + carry
        pk = (pk[1], pk[2] + carry, pk[3] + carry, pk[4] + carry, pk[5] + carry, carry)
        rows.append((p0, pk))
    return tuple(rows)


def turn_total_fractions(k: int) -> dict[int, Fraction]:
    """The exact distribution of ``X_k`` as ``{turn total: probability}`` (zero entries omitted).

    >>> turn_total_fractions(3)[0], turn_total_fractions(3)[8]
    (Fraction(7, 36), Fraction(1, 36))
    """
    _check_k(k)
    p0, pk = _fraction_rows(k)[k - 1]
    out = {0: p0}
    for r, p in enumerate(pk):
        if p:
            out[k + r] = p
    return out


def turn_total_distribution(k: int) -> dict[int, float]:
    """``X_k`` as floats (same keys as :func:`turn_total_fractions`)."""
    _check_k(k)
    p0, pk = turn_total_table(k)
    out = {0: float(p0[k])}
    for r in range(6):
        if pk[k, r] > 0:
            out[k + r] = float(pk[k, r])
    return out


@lru_cache(maxsize=16)
def _float_table(kmax: int) -> tuple[np.ndarray, np.ndarray]:
    p0 = np.zeros(kmax + 1)
    pk = np.zeros((kmax + 1, 6))
    # The same recursion in floating point (no accumulation issue: each step is a few adds).
    p0[1] = 1 / 6
    pk[1] = (0.0, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6)
    for k in range(2, kmax + 1):
        carry = pk[k - 1, 0] / 6
        p0[k] = p0[k - 1] + carry
        pk[k, 0] = pk[k - 1, 1]
        pk[k, 1:5] = pk[k - 1, 2:6] + carry
        pk[k, 5] = carry
    p0.setflags(write=False)
    pk.setflags(write=False)
    return p0, pk


def turn_total_table(kmax: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrays ``p0[k] = P(X_k = 0)`` and ``pk[k, r] = P(X_k = k + r)`` for ``k = 0..kmax``.

    Row 0 is all zeros (``k = 0`` is not a legal target). The arrays are read-only and cached.
    """
    _check_k(kmax)
    return _float_table(int(kmax))


def sample_turn_totals(k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one turn total for each target in the integer array ``k`` (all targets >= 1)."""
    k = np.asarray(k, dtype=np.int64)
    kmax = int(k.max()) if k.size else 1
    p0, pk = turn_total_table(max(kmax, 1))
    cdf = np.cumsum(np.concatenate([p0[:, None], pk], axis=1), axis=1)
    u = rng.random(k.shape)
    idx = (u[..., None] > cdf[k]).sum(axis=-1)
    idx = np.minimum(idx, 6)
    return np.where(idx == 0, 0, k + idx - 1)


class SimPigGame:
    """A game of simultaneous Pig for ``rules.players`` players, played roll by roll.

    >>> g = SimPigGame(SimPigRules(goal=20, players=3))
    >>> rng = np.random.default_rng(1)
    >>> while g.result is None:
    ...     _ = g.play_turn([min(t, 20 - s) for t, s in zip((5, 8, 20), g.scores)], rng)
    >>> abs(sum(g.result) - 1.0) < 1e-12
    True
    """

    def __init__(self, rules: SimPigRules, scores: list[int] | None = None) -> None:
        self.rules = rules
        self.scores = list(scores) if scores is not None else [0] * rules.players
        require(
            len(self.scores) == rules.players,
            f"expected {rules.players} scores, got {len(self.scores)}",
        )
        for s in self.scores:
            require(0 <= s < rules.goal, f"scores must be from 0 to {rules.goal - 1}, got {s}")
        self.turns = 0
        self.result: tuple[float, ...] | None = None

    @staticmethod
    def roll_turn(k: int, rng: np.random.Generator) -> int:
        """Roll until the turn total reaches ``k`` or a 1 comes up; return the turn total."""
        total = 0
        while total < k:
            face = int(rng.integers(1, SIDES + 1))
            if face == 1:
                return 0
            total += face
        return total

    def play_turn(self, targets: list[int], rng: np.random.Generator) -> list[int]:
        """Everybody rolls toward their own target; returns the turn totals and updates the game."""
        require(self.result is None, "the game is over")
        require(
            len(targets) == self.rules.players,
            f"expected {self.rules.players} targets, got {len(targets)}",
        )
        for s, k in zip(self.scores, targets):
            require(
                1 <= k <= self.rules.goal - s,
                f"target must be from 1 to {self.rules.goal - s} at score {s}, got {k}",
            )
        totals = [self.roll_turn(int(k), rng) for k in targets]
        self.scores = [s + t for s, t in zip(self.scores, totals)]
        self.turns += 1
        self.result = self.rules.payoff(self.scores)
        return totals
