"""Super Six as a PettingZoo AEC environment and a Gymnasium environment, for 2 to 10 players.

The game is :mod:`dicelab.supersix.rules` (seed 001): a lid with five pits and a hole; a 6 puts a
stick in the hole, 1 to 5 on an empty pit fills it with one of your sticks, 1 to 5 on a filled
pit gives you that stick back and ends your turn; the first player without sticks wins. Every
throw goes through the engine's own throw (:class:`~dicelab.supersix.rules.SuperSixGame`).

Actions: 0 = stop, 1 = throw. Forced throws (round 1, where everybody throws exactly once, and
the first throw of every later turn) are decisions too, with only ``throw`` legal: the
``action_mask`` is ``[0, 1]`` there and ``[1, 1]`` when the mover may choose.

Observation (``MultiDiscrete``): ``[sticks in the lid, forced, own sticks, other players' sticks
in turn order (the next player first)...]``.

The Gymnasium environment ``dicelab/SuperSix-v0`` seats the learner at seat 0 against fixed
strategies of :mod:`dicelab.supersix.strategies` (``"optimal"``, ``"always"``, ``"stop-at:N"``
or a callable ``decide(lid, own, others) -> bool``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import wrappers

from dicelab.core.errors import require
from dicelab.envs.base import Policy, TurnBasedAEC, TurnCore, VersusStrategyEnv, live_game
from dicelab.supersix.rules import PITS, SuperSixGame, SuperSixRules

STOP, THROW = 0, 1


class SuperSixCore(TurnCore):
    """Super Six for ``rules.players`` seats; seat 0 throws first."""

    n_actions = 2

    def __init__(self, rules: SuperSixRules) -> None:
        self.rules = rules
        self.n_players = rules.players
        self._game: SuperSixGame | None = None
        self.pits = [False] * PITS
        self.counts = [rules.sticks] * rules.players
        self.seat = 0
        self.forced = True
        self.opening = True
        self.winner: int | None = None

    def observation_space(self) -> spaces.Space:
        top = self.rules.total + 1
        return spaces.MultiDiscrete(
            np.array([PITS + 1, 2] + [top] * self.n_players, dtype=np.int64), dtype=np.int64
        )

    def reset(self, rng: np.random.Generator, first: int = 0) -> None:
        require(first == 0, "in Super Six seat 0 throws first; rotate the seats instead")
        never = [lambda lid, own, others: False] * self.n_players  # the engine's throw only
        self._game = SuperSixGame(self.rules, never, rng)
        self.pits = [False] * PITS
        self.counts = [self.rules.sticks] * self.n_players
        self.seat, self.forced, self.opening, self.winner = 0, True, True, None

    def to_move(self) -> int:
        return self.seat

    def legal_actions(self) -> np.ndarray:
        return np.array([0 if self.forced else 1, 1], dtype=np.int8)

    def observe(self, player: int) -> np.ndarray:
        n = self.n_players
        others = [self.counts[(player + m) % n] for m in range(1, n)]
        forced = int(self.forced and player == self.seat)
        return np.array([sum(self.pits), forced, self.counts[player], *others], dtype=np.int64)

    def _next_turn(self) -> None:
        self.seat = (self.seat + 1) % self.n_players
        self.forced = True

    def apply(self, action: int) -> None:
        game = live_game(self._game)
        if action == STOP:
            self._next_turn()
            return
        won, over = game.throw(self.seat, self.pits, self.counts)
        if won:
            self.winner = self.seat
        elif self.opening:  # round 1: one throw each, then seat 0 starts round 2 (forced)
            if self.seat == self.n_players - 1:
                self.opening = False
            self._next_turn()
        elif over:
            self._next_turn()
        else:
            self.forced = False

    def winners(self) -> list[int] | None:
        return None if self.winner is None else [self.winner]

    def decision(self) -> tuple[int, int, tuple[int, ...]]:
        """``(lid, own, others)`` for the mover: what a Super Six strategy decides on."""
        n, s = self.n_players, self.seat
        return sum(self.pits), self.counts[s], tuple(self.counts[(s + m) % n] for m in range(1, n))

    def describe(self) -> str:
        return f"lid {sum(self.pits)}, sticks {self.counts}, seat {self.seat} to {'throw' if self.forced else 'decide'}"


def supersix_policy(strategy: str | Callable[..., bool], rules: SuperSixRules) -> Policy:
    """A fixed Super Six strategy as an environment policy (forced throws are thrown)."""
    from dicelab.supersix.strategies import parse

    decide = parse(strategy, rules)

    def policy(core: TurnCore, player: int, rng: np.random.Generator) -> int:
        c: SuperSixCore = core  # type: ignore[assignment]
        if c.forced:
            return THROW
        return THROW if decide(*c.decision()) else STOP

    return policy


class raw_env(TurnBasedAEC):
    """PettingZoo AEC Super Six: ``raw_env(sticks=4, players=2)``."""

    def __init__(
        self,
        sticks: int = 4,
        players: int = 2,
        max_moves: int = 100_000,
        render_mode: str | None = None,
    ) -> None:
        self.rules = SuperSixRules(sticks=sticks, players=players)
        super().__init__(SuperSixCore(self.rules), "dicelab_supersix_v0", 0, max_moves, render_mode)


def env(**kwargs: Any) -> Any:
    """The AEC Super Six environment (PettingZoo's ``env()`` convention)."""
    return wrappers.OrderEnforcingWrapper(
        wrappers.TerminateIllegalWrapper(raw_env(**kwargs), illegal_reward=-1)
    )


class SuperSixEnv(VersusStrategyEnv):
    """Gymnasium Super Six: the learner at ``seat`` (0 by default) against fixed strategies.

    ``opponents``: one strategy for every other seat, or one for all of them.
    """

    def __init__(
        self,
        sticks: int = 4,
        players: int = 2,
        opponents: str | Callable[..., bool] | Sequence[str | Callable[..., bool]] = "optimal",
        seat: int | None = 0,
        max_moves: int = 100_000,
        render_mode: str | None = None,
    ) -> None:
        self.rules = SuperSixRules(sticks=sticks, players=players)
        specs = (
            [opponents] * (players - 1)
            if isinstance(opponents, str) or callable(opponents)
            else list(opponents)
        )
        policies = [supersix_policy(s, self.rules) for s in specs]
        super().__init__(SuperSixCore(self.rules), policies, seat, 0, max_moves, render_mode)
