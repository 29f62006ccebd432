"""Pig puzzles (:mod:`dicelab.core.puzzles`): roll-or-hold positions where the exact solution
disagrees with a natural rule of thumb.

Positions come from games between two optimal players (the exact solution), sampled at random
decisions (one in :data:`EMIT`), under three settings: Pig to 100, two-dice Pig to 100 and Piglet
(a coin) to 10. The values are the exact win probabilities of rolling and of holding with optimal
play afterwards (:meth:`dicelab.pig.solver.PigSolution.values`). The rules of thumb:

* *hold at N*, the turn total that maximises the expected points of a turn (20 with one die, 19
  with two, 1 with a coin: roll while the expected gain of a roll beats the expected loss);
* Neller's *keep pace and end race* (:class:`dicelab.pig.strategies.KeepPace`, scaled to the goal).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from dicelab.core.puzzles import Candidate, Move, Thumb
from dicelab.pig.rules import PigGame, PigRules

EMIT = 5  # one decision in EMIT (on average) is proposed as a puzzle
SETTINGS = ({"variant": "standard", "goal": 100}, {"variant": "two-dice", "goal": 100},
            {"variant": "piglet", "goal": 10})
NAMES = {"standard": "Pig", "two-dice": "Two-dice Pig", "piglet": "Piglet (a coin)"}
BUST = {"standard": "a 1", "two-dice": "a 1 on either die", "piglet": "tails"}


def ev_threshold(rules: PigRules) -> int:
    """The turn total from which holding beats rolling in expected points this turn (the turn
    total k where the roll's expected gain no longer beats the expected loss of k):
    20 with one die, 19 with two, 1 with a coin.

    >>> ev_threshold(PigRules()), ev_threshold(PigRules(variant="two-dice")), ev_threshold(PigRules(goal=10, variant="piglet"))
    (20, 19, 1)
    """
    gain, lose = points_of_a_roll(rules)
    k = 0
    while k * lose < gain:
        k += 1
    return k


class PigPuzzles:
    """Pig's :class:`~dicelab.core.puzzles.PuzzleSource`. Its margin: one point of win chance (in
    Pig to 100 no hold decision that a rule of thumb misses is worth two)."""

    min_margin = 0.01

    def settings(self) -> list[dict[str, Any]]:
        return [dict(s) for s in SETTINGS]

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[Candidate]:
        from dicelab.pig.play import solution, table

        rules = PigRules(**setting)
        sol = solution(rules)
        n = ev_threshold(rules)
        pace = table("keep-pace", rules)
        while True:  # games between two optimal players, until the caller has enough
            game = PigGame(rules, rng, first=int(rng.integers(0, 2)))
            while game.winner is None:
                i, j, k = game.state
                if k > 0 and rng.integers(0, EMIT) == 0:
                    yield self._candidate(rules, sol, n, pace, i, j, k, [list(f) for f in game.turn_rolls])
                if sol.roll[i, j, k]:
                    game.roll()
                else:
                    game.hold()

    def _candidate(self, rules: PigRules, sol: Any, n: int, pace: np.ndarray, i: int, j: int, k: int,
                   rolls: list[list[int]]) -> Candidate:
        g, v = rules.goal, rules.variant
        p_roll, p_hold = sol.values(i, j, k)
        coin = v == "piglet"
        faces = [f for r in rolls for f in r]
        board: list[dict[str, Any]] = [
            {"type": "scores", "items": [{"label": "You", "value": i, "goal": g, "you": True},
                                         {"label": "Opponent", "value": j, "goal": g, "you": False}]},
            {"type": "dice", "label": "This turn's flips" if coin else "This turn's rolls", "faces": faces,
             "hidden": 0, "coin": coin},
            {"type": "facts", "items": [{"label": "Turn total", "value": str(k)},
                                        {"label": "If you hold", "value": f"{i + k} of {g}"}]},
        ]
        question = (f"{NAMES[v]} to {g}: you have {i} points, the opponent {j}, and this turn you have "
                    f"{k} so far. Roll again or hold?")
        return Candidate(
            game="pig", setting=f"{NAMES[v]} to {g}", rules=rules.to_dict(), position={"i": i, "j": j, "k": k},
            question=question, board=board, kind="win probability",
            moves=[Move("roll", "Roll", p_roll), Move("hold", "Hold", p_hold)],
            thumbs=[Thumb(f"Hold at {n} (the most points a turn)", "roll" if k < n else "hold"),
                    Thumb("Keep pace and end race", "roll" if pace[i, j, k] else "hold")],
            why=lambda best, second, wrong: why(rules, i, j, k, best, second),
            details=(f"state (i, j, k) = ({i}, {j}, {k}) of {v} Pig to {g}; exact values from the optimal "
                     f"solution; rules: hold:{n}, keep-pace"))


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def points_of_a_roll(rules: PigRules) -> tuple[Fraction, Fraction]:
    """(the expected points a roll adds, the chance that it loses the turn total): a roll at turn
    total ``k`` gains more than it risks on average when ``gain > k * lose``."""
    o = rules.outcomes
    return sum((Fraction(d) * p for d, p in o.exact_add), Fraction(0)), o.exact_bust + o.exact_reset


def why(rules: PigRules, i: int, j: int, k: int, best: Move, second: Move) -> str:
    """One plain sentence on why ``best`` is right at ``(i, j, k)``.

    What it says of points is true of points (:func:`points_of_a_roll`): where the exact best move
    goes against the points, the sentence says so, and that the win chance decides."""
    g = rules.goal
    bust = BUST[rules.variant]
    gain, lose = points_of_a_roll(rules)
    odds = f"({_pct(best.value)} against {_pct(second.value)})"
    if best.action == "roll":
        if 4 * j >= 3 * g:
            return (f"The opponent needs only {g - j} more and will probably get there soon, so banking {k} "
                    f"helps little; keep rolling for a chance to finish first {odds}.")
        if j - (i + k) >= g // 5:
            return (f"Even after banking you would trail by {j - i - k}; from this far behind small turns "
                    f"lose slowly, so take the risk and keep rolling {odds}.")
        if gain > k * lose:
            return (f"A turn total of {k} is not yet worth stopping for at these scores: another roll adds "
                    f"more than {bust} is likely to cost {odds}.")
        risks = "as many points as" if gain == k * lose else "more points than"
        if 5 * (i + k) >= 4 * g:
            return (f"Holding on {i + k} would still leave {g - i - k} to get next turn; another roll risks "
                    f"{risks} it adds on average, but the win chance is higher if you go on {odds}.")
        return (f"With {k} this turn another roll risks {risks} it adds on average, but points are not "
                f"wins: at {i + k} against {j} more now is worth the risk {odds}.")
    if 5 * (i + k) >= 4 * g:
        return (f"Holding puts you on {i + k}, close enough that any decent turn finishes the game, while "
                f"{bust} now would throw the {k} away {odds}.")
    if (i + k) - j >= g // 5:
        return (f"Holding puts you {i + k - j} ahead; with that lead, bank it and let the opponent take the "
                f"risks {odds}.")
    if k * lose > gain:
        return (f"With {k} already this turn, {bust} would cost more than another roll is likely to add "
                f"at these scores: hold {odds}.")
    adds = "as many points as" if gain == k * lose else "more points than"
    return (f"With {k} this turn another roll adds {adds} it risks on average, but points are not wins: "
            f"at {i + k} against {j} the {k} you have are worth more banked {odds}.")


SOURCE = PigPuzzles()
