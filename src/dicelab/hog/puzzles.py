"""Hog puzzles (:mod:`dicelab.core.puzzles`): how many dice to roll, where the exact solution
disagrees with a natural rule of thumb.

Positions come from games between two optimal players (Hog to 100, up to 10 dice), sampled at
random turns (one in :data:`EMIT`). The values are the exact win probabilities of rolling each
number of dice with optimal play afterwards (:func:`dicelab.hog.play.action_values`). The rules of
thumb:

* *the most points on average*: the number of dice with the highest expected score (with six-sided
  dice five and six tie at 8.04 points; the rule takes the most dice, six);
* *go for the goal*: once one turn can reach the goal, the number of dice most likely to reach it
  this turn; before that, the most points on average.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.core.puzzles import Candidate, Move, Thumb
from dicelab.hog.rules import HogRules, turn_distribution

EMIT = 3
SETTINGS = ({"goal": 100, "max_dice": 10, "sides": 6},)


@lru_cache(maxsize=64)
def expected_best(rules: HogRules) -> int:
    """The number of dice with the highest expected score (the most dice among ties).

    >>> expected_best(HogRules())
    6
    """
    means = [sum((o * p for o, p in enumerate(turn_distribution(n, rules.sides))), Fraction(0))
             for n in range(1, rules.max_dice + 1)]
    top = max(means)
    return max(n for n, m in enumerate(means, 1) if m == top)


@lru_cache(maxsize=4096)
def reach(rules: HogRules, need: int) -> tuple[float, ...]:
    """P(one turn scores at least ``need``) for 1 .. max_dice dice."""
    out = []
    for n in range(1, rules.max_dice + 1):
        d = turn_distribution(n, rules.sides)
        out.append(float(sum(d[max(need, 1):], Fraction(0))))
    return tuple(out)


def go_for_goal(rules: HogRules, i: int) -> int:
    """The rule *go for the goal*: the most likely number of dice to reach the goal this turn when
    any can, else :func:`expected_best`."""
    chances = reach(rules, rules.goal - i)
    if max(chances) <= 0.0:
        return expected_best(rules)
    return int(np.argmax(chances)) + 1


def dice_label(n: int) -> str:
    return "One die" if n == 1 else f"{n} dice"


class HogPuzzles:
    """Hog's :class:`~dicelab.core.puzzles.PuzzleSource`."""

    def settings(self) -> list[dict[str, Any]]:
        return [dict(s) for s in SETTINGS]

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[Candidate]:
        from dicelab.hog.play import action_values, solution

        rules = HogRules(**setting)
        sol = solution(rules)
        best_mean = expected_best(rules)
        while True:  # games between two optimal players
            scores = [0, 0]
            mover = int(rng.integers(0, 2))
            last: list[int] = []
            while max(scores) < rules.goal:
                i, j = scores[mover], scores[1 - mover]
                if rng.integers(0, EMIT) == 0:
                    values = action_values(sol, i, j)
                    yield self._candidate(rules, i, j, values, best_mean, last)
                n = sol.best_dice(i, j)
                faces = [int(f) for f in rng.integers(1, rules.sides + 1, size=n)]
                scores[mover] += 0 if 1 in faces else sum(faces)
                last = faces
                mover = 1 - mover

    def _candidate(self, rules: HogRules, i: int, j: int, values: np.ndarray, best_mean: int,
                   last: list[int]) -> Candidate:
        g = rules.goal
        moves = [Move({"dice": n}, dice_label(n), float(v)) for n, v in enumerate(values, 1)]
        board: list[dict[str, Any]] = [
            {"type": "scores", "items": [{"label": "You", "value": i, "goal": g, "you": True},
                                         {"label": "Opponent", "value": j, "goal": g, "you": False}]},
            {"type": "facts", "items": [{"label": "You need", "value": str(g - i)},
                                        {"label": "The opponent needs", "value": str(g - j)}]},
        ]
        if last:
            board.append({"type": "dice", "label": "The opponent's last roll", "faces": last, "hidden": 0,
                          "coin": False})
        question = (f"Hog to {g}: you have {i} points and the opponent {j}. How many dice do you roll "
                    f"(1 to {rules.max_dice}; any 1 scores nothing)?")
        return Candidate(
            game="hog", setting=f"Hog to {g}", rules=rules.to_dict(), position={"i": i, "j": j},
            question=question, board=board, kind="win probability", moves=moves,
            thumbs=[Thumb(f"{dice_label(best_mean)} (the most points on average)", {"dice": best_mean}),
                    Thumb("Go for the goal once one turn can reach it", {"dice": go_for_goal(rules, i)})],
            why=lambda best, second, wrong: why(rules, i, j, best, wrong),
            details=f"state (i, j) = ({i}, {j}) of Hog to {g} with up to {rules.max_dice} dice; exact values "
                    f"from the optimal solution")


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def _zero(rules: HogRules, n: int) -> float:
    return float(turn_distribution(n, rules.sides)[0])


def _dice(n: int) -> str:
    """``one die scores`` or ``n dice score``."""
    return "one die scores" if n == 1 else f"{n} dice score"


def why(rules: HogRules, i: int, j: int, best: Move, wrong: list[Thumb]) -> str:
    """One plain sentence on why ``best`` is right at ``(i, j)``."""
    g = rules.goal
    n = best.action["dice"]
    other = wrong[0].action["dice"]
    need = g - i
    chances = reach(rules, need)
    if max(chances) > 0 and chances[n - 1] >= 0.05:
        if n > other:
            return (f"You need {need}: {n} dice reach it this turn {_pct(chances[n - 1])} of the time against "
                    f"{_pct(chances[other - 1])} with {other}, and that chance matters more than an "
                    f"average score now.")
        if chances[n - 1] >= chances[other - 1]:
            return (f"You need only {need}: {_dice(n)} nothing just {_pct(_zero(rules, n))} of the time against "
                    f"{_pct(_zero(rules, other))} with {other}, so {'one die reaches' if n == 1 else f'{n} dice reach'} "
                    f"it this turn more often "
                    f"({_pct(chances[n - 1])} against {_pct(chances[other - 1])}).")
        return (f"You need only {need}: {_dice(n)} nothing just "
                f"{_pct(_zero(rules, n))} of the time against {_pct(_zero(rules, other))} with {other}, "
                f"and at these scores that matters more than reaching it this turn.")
    if n < other:
        return (f"You lead by {i - j}: fewer dice give up a little on average but score nothing only "
                f"{_pct(_zero(rules, n))} of the time ({_pct(_zero(rules, other))} with {other}), so you "
                f"keep the lead safely." if i > j else
                f"With {'one die' if n == 1 else str(n) + ' dice'} you score nothing only {_pct(_zero(rules, n))} of "
                f"the time ({_pct(_zero(rules, other))} with {other}): at these scores a steady score is "
                f"worth more than a big one.")
    return (f"{'You trail by ' + str(j - i) + ': ' if j > i else ''}the opponent needs only {g - j}, so an "
            f"average turn will not do; {n} dice score nothing more often ({_pct(_zero(rules, n))}) but "
            f"score big when they do." if 4 * j >= 3 * g or j > i else
            f"At these scores bigger turns pay: {n} dice score nothing {_pct(_zero(rules, n))} of the time "
            f"but score more when they do.")


SOURCE = HogPuzzles()
