"""Super Six for interactive play (:class:`dicelab.core.registry.Play`): bots and the exact coach.

Bots: ``optimal`` (the exact two-player solution, :mod:`dicelab.supersix.solver`; the max-n
policy with more players), ``always`` (throws until the turn ends) and ``stop-at:N`` (stops once N
pits are filled, N = 1..5). A forced throw (round 1, the first throw of a turn) is the only legal
action, so every bot throws there.

Coach (two players): at a position where the mover may stop, the exact
``(P(win | throw), P(win | stop))`` of the solution, both then playing optimally; None at a
forced throw (there is nothing to decide).
"""

from __future__ import annotations

import re
from typing import Any

from dicelab.core.cache import bounded_cache
from dicelab.core.errors import require
from dicelab.core.game import Action, GameState
from dicelab.core.levels import Level
from dicelab.core.registry import Bot
from dicelab.supersix.rules import PITS, SuperSixRules

ALLOWED = "optimal, always, stop-at:N (N = 1..5)"
_solutions = bounded_cache("supersix solutions", 16)


def parse_spec(spec: Any) -> str:
    """A bot spec normalised, or a one-line DicelabError naming the allowed ones."""
    require(isinstance(spec, str) and len(spec) <= 80, f"a Super Six bot is a short string; allowed: {ALLOWED}")
    s = spec.strip().lower()
    require(re.fullmatch(r"optimal|always|stop-at:[1-5]", s) is not None,
            f"unknown Super Six bot {spec[:80]!r}; allowed: {ALLOWED}")
    return s


def solution(rules: SuperSixRules) -> Any:
    """The exact solution for ``rules`` (solved once, cached)."""
    from dicelab.supersix.api import solve

    return _solutions.get_or_build(rules, lambda: solve(rules))


def _position(state: GameState, seat: int) -> tuple[int, int, int, bool]:
    """``(sticks in the lid, own sticks, opponent's sticks, forced)`` from what ``seat`` sees."""
    obs = state.observe(seat)
    counts = obs["counts"]
    others = [c for n, c in enumerate(counts) if n != seat]
    return obs["lid"], counts[seat], min(others), obs["forced"]


class SuperSixBot:
    """A seated Super Six bot."""

    def __init__(self, spec: str, rules: SuperSixRules) -> None:
        self.spec, self.rules = spec, rules
        self.solution = solution(rules) if spec == "optimal" else None

    def act(self, state: GameState, seat: int) -> Action:
        lid, own, opp, forced = _position(state, seat)
        if forced:
            return "throw"
        if self.solution is not None:
            if self.rules.players == 2:
                return self.solution.action(lid, own, opp)
            return _maxn_action(self.solution, state, seat)
        if self.spec == "always":
            return "throw"
        return "throw" if lid < int(self.spec.split(":")[1]) else "stop"


def _maxn_action(sol: Any, state: GameState, seat: int) -> Action:
    """The max-n policy's action for ``seat`` (more than two players)."""
    obs = state.observe(seat)
    counts = obs["counts"]
    others = tuple(counts[(seat + d) % len(counts)] for d in range(1, len(counts)))
    return "throw" if sol.decide(obs["lid"], counts[seat], others) else "stop"


class SuperSixPlay:
    """Super Six's :class:`~dicelab.core.registry.Play`, with the optional build hooks."""

    def bots(self, rules: SuperSixRules) -> list[Bot]:
        return [Bot("optimal", "Optimal (exact)", "plays to maximise its chance to win"),
                Bot("always", "Never stops", "always throws, until a filled pit ends the turn"),
                Bot("stop-at:3", "Stop once 3 pits are filled", "throws while fewer than 3 pits are filled")]

    def bot(self, spec: str, rules: SuperSixRules) -> SuperSixBot:
        return SuperSixBot(parse_spec(spec), rules)

    # ---- levels of strength (the optional hook of dicelab.core.levels)
    def levels(self, rules: SuperSixRules) -> list[Level]:
        """The ladder, weakest first (:mod:`dicelab.supersix.levels`)."""
        from dicelab.supersix.levels import levels

        return levels(rules)

    def measure(self, rules: SuperSixRules, progress: bool = False) -> dict[str, Any]:
        """Each level's exact chance to win against optimal play, seats averaged."""
        from dicelab.supersix.levels import measure

        return measure(rules, progress)

    def coach(self, state: GameState, seat: int) -> dict[str, Any] | None:
        rules = state.rules
        if state.is_over or rules.players != 2 or seat not in state.to_move():
            return None
        lid, own, opp, forced = _position(state, seat)
        if forced:
            return None
        p_throw, p_stop = solution(rules).values(lid, own, opp)
        return {"kind": "win probability", "position": [lid, own, opp],
                "values": [{"action": "throw", "value": p_throw}, {"action": "stop", "value": p_stop}],
                "best": "throw" if p_throw >= p_stop else "stop"}

    def advice(self, state: GameState, seat: int, action: Action) -> str | None:
        """A sentence on ``action`` where optimal play differs (the optional hook of
        :class:`~dicelab.core.registry.Advises`), e.g. "Optimal play stops here, with 3 pits
        filled, 2 sticks left to you and 4 to the opponent; you threw"."""
        c = self.coach(state, seat)
        if c is None or c["best"] == action or action not in ("throw", "stop"):
            return None
        lid, own, opp, _ = _position(state, seat)
        where = (f"with {lid} pit{'s' if lid != 1 else ''} filled, {own} stick{'s' if own != 1 else ''} left to you "
                 f"and {opp} to the opponent")
        best = "stops" if c["best"] == "stop" else "throws again"
        return f"Optimal play {best} here, {where}; you {'threw' if action == 'throw' else 'stopped'}."

    # ---- optional build hooks (see :mod:`dicelab.core.registry`)
    def ready(self, specs: list[str], rules: SuperSixRules) -> bool:
        return rules in _solutions

    def heavy(self, specs: list[str], rules: SuperSixRules) -> bool:
        return False

    def prepare(self, specs: list[str], rules: SuperSixRules) -> None:
        for s in specs:
            parse_spec(s)
        solution(rules)

    # ---- the environment form (dicelab.envs.generic): actions 0 = stop, 1 = throw (forced throws
    # allow only 1); a seat sees [sticks in the lid, 1 if its throw is forced, own sticks, the
    # other players' sticks in turn order]
    def actions(self, rules: SuperSixRules) -> list[Action]:
        return ["stop", "throw"]

    def observation_nvec(self, rules: SuperSixRules) -> list[int]:
        return [PITS + 1, 2] + [rules.total + 1] * rules.players

    def encode(self, state: GameState, seat: int) -> list[int]:
        v = state.observe(seat)
        n = len(v["counts"])
        mine = v["to_move"] == [seat]
        return [v["lid"], int(mine and v["forced"]), v["counts"][seat],
                *(v["counts"][(seat + m) % n] for m in range(1, n))]

    def grade(self, rules: SuperSixRules, decide: Any, progress: bool = False) -> dict[str, Any]:
        """The exact grade of a learned policy (:class:`dicelab.core.registry.Grades`)."""
        from dicelab.supersix.policy_grade import grade

        return grade(rules, decide, progress)


PLAY = SuperSixPlay()
