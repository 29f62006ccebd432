"""Super Six puzzles (:mod:`dicelab.core.puzzles`): throw again or stop, where the exact solution
disagrees with the obvious move.

Positions come from two-player games (4, 5 and 6 sticks each: with 4 only six positions qualify)
between two optimal players, at the decisions
that are not forced. The values are the exact win probabilities of throwing and of stopping with
optimal play afterwards (:meth:`dicelab.supersix.solver.SuperSixSolution.values`). The rules of
thumb:

* *the odds of this throw*: throw while a throw is more likely to place a stick than to take one
  back, that is while fewer than 3 of the 5 pits are filled (the "stop once 3 are filled" bot);
* *chase when behind*: throw while you hold more sticks than the opponent, otherwise follow the
  odds of this throw.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from dicelab.core.puzzles import Candidate, Move, Thumb
from dicelab.supersix.rules import PITS, SuperSixRules

SETTINGS = ({"sticks": 4, "players": 2}, {"sticks": 5, "players": 2}, {"sticks": 6, "players": 2})
#: Sticks never enter a game, so a position's value does not depend on how many each player
#: started with: every puzzle is valued with (and records) the largest setting's solution.
SOLVED = SuperSixRules(sticks=6, players=2)
ODDS_STOP = 3  # the odds rule stops once this many pits are filled
STALE = 3000  # decisions without a new position after which a setting's positions have run out


def _sticks(n: int) -> str:
    return f"{n} stick{'' if n == 1 else 's'}"


class SuperSixPuzzles:
    """Super Six's :class:`~dicelab.core.puzzles.PuzzleSource`."""

    def settings(self) -> list[dict[str, Any]]:
        return [dict(s) for s in SETTINGS]

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[Candidate]:
        from dicelab.supersix.play import solution
        from dicelab.supersix.state import new_game

        rules = SuperSixRules(**setting)
        sol = solution(SOLVED)
        made: dict[tuple[int, int, int], Candidate] = {}
        stale = 0  # decisions since a position not met before
        while stale < STALE:  # games between two optimal players, until no new position comes up
            state = new_game(rules, seed=int(rng.integers(0, 2**62)))
            while not state.is_over:
                seat = state.mover
                obs = state.observe(seat)
                own, opp = obs["counts"][seat], obs["counts"][1 - seat]
                if obs["forced"]:
                    state.apply("throw")
                    continue
                key = (obs["lid"], own, opp)
                stale = 0 if key not in made else stale + 1
                if key not in made:
                    made[key] = self._candidate(sol, obs["lid"], list(obs["pits"]), own, opp)
                yield made[key]
                state.apply("throw" if sol.throw[key] else "stop")

    def _candidate(self, sol: Any, lid: int, pits: list[bool], own: int, opp: int) -> Candidate:
        p_throw, p_stop = sol.values(lid, own, opp)
        odds = "throw" if lid < ODDS_STOP else "stop"
        chase = "throw" if own > opp else odds
        board: list[dict[str, Any]] = [
            {"type": "slots", "label": "The lid: pits 1 to 5 (a 6 goes in the hole)", "filled": pits},
            {"type": "facts", "items": [{"label": "Your sticks", "value": str(own)},
                                        {"label": "The opponent's sticks", "value": str(opp)}]},
        ]
        question = (f"Super Six: {lid} of the 5 pits are filled, you hold {_sticks(own)} and the opponent "
                    f"{_sticks(opp)}. Throw again or stop?")
        return Candidate(
            game="supersix", setting="Super Six, two players", rules=SOLVED.to_dict(),
            position={"lid": lid, "own": own, "opp": opp}, question=question, board=board,
            kind="win probability",
            moves=[Move("throw", "Throw again", p_throw), Move("stop", "Stop", p_stop)],
            thumbs=[Thumb(f"Throw while fewer than {ODDS_STOP} pits are filled", odds),
                    Thumb("Chase when behind", chase)],
            why=lambda best, second, wrong: why(lid, own, opp, best, second),
            details=f"position {lid}/{own}/{opp}/0 (lid/own/opponent/forced, as in Jehn's tables); exact "
                    f"values from the optimal two-player solution (any number of sticks: none enter a game)")


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def why(lid: int, own: int, opp: int, best: Move, second: Move) -> str:
    """One plain sentence on why ``best`` is right at ``lid/own/opp``."""
    safe = PITS + 1 - lid  # faces that place a stick: the empty pits and the hole
    odds = f"({_pct(best.value)} against {_pct(second.value)})"
    if best.action == "throw":
        if own == 1:
            return (f"With your last stick, {safe} faces of 6 win the game at once, worth more than leaving "
                    f"the opponent to throw into this lid {odds}.")
        if lid >= ODDS_STOP:
            standing = ("is ahead" if opp < own else "is level with you" if opp == own
                        else f"holds {_sticks(opp - own)} more than you")
            return (f"This throw is risky ({lid} in 6 to take a stick back), but the opponent, with "
                    f"{_sticks(opp)}, {standing}; you must push on {odds}.")
        return f"{safe} faces of 6 place a stick; the odds still favour throwing {odds}."
    if own > opp:
        return (f"Even behind, stop: {lid} faces of 6 take a stick back, and the filled pits are the "
                f"opponent's problem on their forced throw {odds}.")
    return (f"Stop: {lid} faces of 6 take a stick back, and the filled pits now make the opponent's forced "
            f"throw risky for them instead {odds}.")


SOURCE = SuperSixPuzzles()
