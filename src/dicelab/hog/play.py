"""Hog for interactive play (:class:`dicelab.core.registry.Play`): the bots people can face and
the coach's exact value of every choice, for the web lab, terminal games and environments.

>>> from dicelab.hog.rules import HogRules
>>> from dicelab.hog.state import new_game
>>> s = new_game(HogRules(goal=100), seed=1)
>>> PLAY.bot("optimal", s.rules).act(s, 0)          # the optimal opening: six dice
{'dice': 6}
>>> round(PLAY.coach(s, 0)["values"][5]["value"], 4)  # P(win) rolling six: W[0, 0]
0.5307
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.game import Action
from dicelab.core.levels import Level
from dicelab.core.registry import Bot
from dicelab.hog.rules import HogRules
from dicelab.hog.solver import HogSolution, action_values, solve
from dicelab.hog.specs import parse_strategy
from dicelab.hog.state import HogState


@lru_cache(maxsize=16)  # a goal-100 solution holds two 100 x 100 tables (160 kB)
def solution(rules: HogRules) -> HogSolution:
    """The exact solution for ``rules``, cached."""
    return solve(rules)


@lru_cache(maxsize=32)
def _table(spec: str, rules: HogRules) -> np.ndarray:
    return parse_strategy(spec).table(rules)


@lru_cache(maxsize=16)
def _mixed(spec: str, rules: HogRules) -> np.ndarray:
    """The noisy bot ``spec``'s chances of rolling 1 .. max_dice dice at every (i, j)."""
    from dicelab.hog.levels import parse_noisy, policy

    inner = parse_noisy(spec)[2]
    return policy(spec, rules, table=None if inner is None else _table(inner, rules),
                  sol=solution(rules) if inner is None else None)


@dataclass(frozen=True)
class TablePlayer:
    """A bot that rolls ``table[i, j]`` dice with its score i against the opponent's j; a noisy
    bot (``mixed[i, j]``: the chance of each number of dice) draws from its generator ``rng``."""

    spec: str
    table: np.ndarray | None
    mixed: np.ndarray | None = None
    rng: np.random.Generator | None = None

    def act(self, state: HogState, seat: int) -> dict[str, int]:
        view = state.observe(seat)
        i, j = view["scores"][seat], view["scores"][1 - seat]
        if self.mixed is not None and self.rng is not None:
            p = self.mixed[i, j]
            return {"dice": int(self.rng.choice(len(p), p=p / p.sum())) + 1}
        assert self.table is not None
        return {"dice": int(self.table[i, j])}


class HogPlay:
    """Bots (``optimal``, ``always:N``, ``best-response:SPEC``) and the exact coach."""

    def bots(self, rules: HogRules) -> list[Bot]:
        five = min(5, rules.max_dice)
        return [
            Bot("optimal", "Optimal", "chooses the number of dice that maximises its chance to win"),
            Bot(f"always:{five}", f"Always {five} dice", f"rolls {five} dice every turn"),
            Bot("always:1", "One die every turn", "rolls one die every turn: slow but safe"),
            Bot(f"best-response:always:{five}", f"Beats always rolling {five}",
                f"the exact best response to a player who always rolls {five} dice"),
        ]

    def bot(self, spec: str, rules: HogRules, *, seed: int = 0) -> TablePlayer:
        from dicelab.hog.levels import is_noisy, parse_noisy

        s = spec.strip().lower() if isinstance(spec, str) else spec
        if isinstance(s, str) and s.startswith(("slip:", "soft:")):
            kind, x, inner = parse_noisy(s)
            name = f"soft:{x:g}" if inner is None else f"slip:{x:g}:{parse_strategy(inner).name}"
            require(is_noisy(name), f"not a noisy Hog bot: {spec[:80]!r}")
            return TablePlayer(spec=name, table=None, mixed=_mixed(name, rules), rng=np.random.default_rng(seed))
        name = parse_strategy(spec).name  # one-line errors name the allowed specs
        return TablePlayer(spec=name, table=_table(name, rules))

    # ---- levels of strength (the optional hook of dicelab.core.levels)
    def levels(self, rules: HogRules) -> list[Level]:
        """The ladder, weakest first (:mod:`dicelab.hog.levels`)."""
        from dicelab.hog.levels import levels

        return levels(rules)

    def measure(self, rules: HogRules, progress: bool = False) -> dict[str, Any]:
        """Each level's exact chance to win against optimal play, seats averaged."""
        from dicelab.hog.levels import measure

        return measure(rules, progress)

    def coach(self, state: HogState, seat: int) -> dict[str, Any] | None:
        """P(win) of rolling each number of dice now, with optimal play afterwards (exact)."""
        if state.is_over or state.to_move() != (seat,):
            return None
        rules = state.rules
        values = action_values(solution(rules), state.scores[seat], state.scores[1 - seat])
        best = int(np.argmax(values)) + 1
        return {"kind": "win probability",
                "values": [{"action": {"dice": n}, "value": float(v)} for n, v in enumerate(values, 1)],
                "best": {"dice": best}}

    def advice(self, state: HogState, seat: int, action: Action) -> str | None:
        """A sentence on ``action`` where optimal play differs (the optional hook of
        :class:`~dicelab.core.registry.Advises`), e.g. "Optimal play rolls 4 dice here, with 45
        banked and the opponent on 60; you rolled 10"."""
        c = self.coach(state, seat)
        if c is None or c["best"] == action or not isinstance(action, dict) or "dice" not in action:
            return None
        best, n = c["best"]["dice"], action["dice"]
        return (f"Optimal play rolls {best} {'die' if best == 1 else 'dice'} here, with {state.scores[seat]} banked "
                f"and the opponent on {state.scores[1 - seat]}; you rolled {n}.")

    # the environment form (dicelab.envs.generic): Discrete(max_dice) actions, and what a seat
    # sees as [own score, opponent's score, 1 if it is to move]
    def actions(self, rules: HogRules) -> list[dict[str, int]]:
        return [{"dice": n} for n in range(1, rules.max_dice + 1)]

    def observation_nvec(self, rules: HogRules) -> list[int]:
        top = rules.goal + rules.max_dice * rules.sides  # the highest score a game can end on
        return [top, top, 2]

    def encode(self, state: HogState, seat: int) -> list[int]:
        view = state.observe(seat)
        return [view["scores"][seat], view["scores"][1 - seat], int(view["to_move"] == [seat])]

    def grade(self, rules: HogRules, decide: Any, progress: bool = False) -> dict[str, Any]:
        """The exact grade of a learned policy (:class:`dicelab.core.registry.Grades`)."""
        from dicelab.hog.policy_grade import grade

        return grade(rules, decide, progress)


PLAY = HogPlay()
