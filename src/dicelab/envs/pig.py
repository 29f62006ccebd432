"""Pig (every variant) as a PettingZoo AEC environment and a Gymnasium environment.

The game is :class:`dicelab.pig.rules.PigGame`: two players race to ``goal``; on a turn the mover
rolls (action 1) as often as they like, adding to a turn total, or holds (action 0), banking it.
A bust (a 1; tails in ``piglet``; exactly one 1 in ``two-dice``, where two 1s also reset the
banked score) loses the turn total and passes the turn. Reaching the goal wins at once.

Observation (``"observation"``, ``MultiDiscrete``): ``[own score, opponent score, turn total,
my turn]`` from the observer's side; the turn total is the mover's (it is public). Both actions
are legal for the mover at every state (holding at 0 is a legal "skip"), so ``action_mask`` is
``[1, 1]`` for the mover and ``[0, 0]`` for the other player.

>>> from dicelab.envs.pig import env
>>> e = env(goal=20)
>>> e.reset(seed=1)
>>> e.agent_selection, e.observe("player_0")["observation"].tolist()
('player_0', [0, 0, 0, 1])

The Gymnasium environment ``dicelab/Pig-v0`` puts the learner in seat 0 against a fixed dicelab
strategy (``opponent="optimal"`` by default; any strategy spec of :mod:`dicelab.pig.strategies`
such as ``"hold:20"`` or ``"keep-pace"``, or a callable ``f(i, j, k) -> bool``, True = roll).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import wrappers

from dicelab.envs.base import Policy, TurnBasedAEC, TurnCore, VersusStrategyEnv, live_game
from dicelab.pig.rules import PigGame, PigRules

HOLD, ROLL = 0, 1


class PigCore(TurnCore):
    """Two-player Pig on :class:`~dicelab.pig.rules.PigGame`; action 0 holds, 1 rolls."""

    n_players = 2
    n_actions = 2

    def __init__(self, rules: PigRules) -> None:
        self.rules = rules
        o = rules.outcomes
        self.max_add = int(o.add_points.max())
        self.game: PigGame | None = None

    def observation_space(self) -> spaces.Space:
        g, top = self.rules.goal, self.rules.goal + self.max_add
        return spaces.MultiDiscrete(np.array([top, top, g, 2], dtype=np.int64), dtype=np.int64)

    def reset(self, rng: np.random.Generator, first: int = 0) -> None:
        self.game = PigGame(self.rules, rng, first=first)

    def _g(self) -> PigGame:
        return live_game(self.game)

    def to_move(self) -> int:
        return self._g().to_move

    def legal_actions(self) -> np.ndarray:
        return np.ones(2, dtype=np.int8)

    def observe(self, player: int) -> np.ndarray:
        g = self._g()
        return np.array(
            [
                g.scores[player],
                g.scores[1 - player],
                g.turn_total,
                int(g.to_move == player and g.winner is None),
            ],
            dtype=np.int64,
        )

    def apply(self, action: int) -> None:
        g = self._g()
        if action == ROLL:
            g.roll()
        else:
            g.hold()

    def winners(self) -> list[int] | None:
        w = self._g().winner
        return None if w is None else [w]

    def state(self) -> tuple[int, int, int]:
        """(mover's score, opponent's score, turn total): the index of dicelab's Pig tables."""
        return self._g().state

    def describe(self) -> str:
        g = self._g()
        return f"scores {g.scores[0]}-{g.scores[1]}, player {g.to_move} to move, turn total {g.turn_total}"


def pig_policy(strategy: Any, rules: PigRules) -> Policy:
    """A fixed dicelab Pig strategy as an environment policy.

    ``strategy`` is anything :func:`dicelab.pig.specs.as_strategy` accepts: a spec string
    (``"optimal"``, ``"hold:20"``, ``"keep-pace"``, ``"file:PATH"`` ...), a callable
    ``f(my_score, opponent_score, turn_total) -> bool`` (True = roll) or a ``(goal, goal, goal)``
    decision table. Its decision table is compiled once, so a step costs one array lookup.
    """
    from dicelab.pig.specs import compile_table

    roll = np.asarray(compile_table(strategy, rules), dtype=bool)

    def policy(core: TurnCore, player: int, rng: np.random.Generator) -> int:
        i, j, k = core.state()  # type: ignore[attr-defined]
        return ROLL if roll[i, j, k] else HOLD

    return policy


class raw_env(TurnBasedAEC):
    """PettingZoo AEC Pig: ``raw_env(goal=100, sides=None, variant="standard", first=0)``."""

    def __init__(
        self,
        goal: int = 100,
        sides: int | None = None,
        variant: str = "standard",
        first: int | None = 0,
        max_moves: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        self.rules = PigRules(goal=goal, sides=sides, variant=variant)
        super().__init__(PigCore(self.rules), "dicelab_pig_v0", first, max_moves, render_mode)


def env(**kwargs: Any) -> Any:
    """The AEC Pig environment (PettingZoo's ``env()`` convention)."""
    return wrappers.OrderEnforcingWrapper(
        wrappers.TerminateIllegalWrapper(raw_env(**kwargs), illegal_reward=-1)
    )


class PigEnv(VersusStrategyEnv):
    """Gymnasium Pig: the learner (seat 0 by default) against a fixed dicelab strategy.

    ``first``: the seat that moves first; ``seat=None`` draws the learner's seat at every reset.
    """

    def __init__(
        self,
        goal: int = 100,
        sides: int | None = None,
        variant: str = "standard",
        opponent: Any = "optimal",
        seat: int | None = 0,
        first: int = 0,
        max_moves: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        self.rules = PigRules(goal=goal, sides=sides, variant=variant)
        super().__init__(
            PigCore(self.rules),
            [pig_policy(opponent, self.rules)],
            seat,
            first,
            max_moves,
            render_mode,
        )
