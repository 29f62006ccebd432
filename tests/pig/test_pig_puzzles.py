"""Pig puzzles: the values re-derived from the slow reference value iteration
(:func:`dicelab.pig.reference.value_iteration`, textbook sweeps over the whole table, nothing shared
with the solver), the rules of thumb re-implemented here from their definitions, the margins and
the failing rules recomputed.

Quick: puzzles built by the same source at small goals (20 with one and two dice, Piglet to 10),
checked against the reference; the shipped goal-100 puzzles' rules of thumb. Slow: the shipped
Pig-to-100 puzzles against Neller & Presser's layered value iteration in plain numpy.
"""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import product

import pytest

from dicelab.core import puzzles as pz
from dicelab.pig.puzzles import PigPuzzles
from dicelab.pig.reference import layered_value_iteration, value_iteration
from dicelab.pig.rules import PigRules

SMALL = [{"variant": "standard", "goal": 20}, {"variant": "two-dice", "goal": 20}, {"variant": "piglet", "goal": 10}]
HOLD_AT = {"standard": 20, "two-dice": 19, "piglet": 1}  # the most expected points a turn, by hand:
# one die: a roll adds 20/6 and risks k/6 -> roll while k < 20; two dice: adds 25/36 x 8 = 200/36 and
# risks 11k/36 (a single 1 or snake eyes) -> roll while k < 18.2; a coin: adds 1/2, risks k/2 -> k < 1


class Small(PigPuzzles):
    def settings(self):
        return [dict(s) for s in SMALL]


def roll_and_hold(P, rules: PigRules, i: int, j: int, k: int) -> tuple[float, float]:
    """Both values at (i, j, k) from a win-probability table P[i, j, k] (the Bellman terms)."""
    o, g = rules.outcomes, rules.goal
    roll = o.bust * (1 - P[j, i, 0]) + o.reset * (1 - P[j, 0, 0])
    for d, q in zip(o.exact_add, o.add_probs, strict=True):
        roll += q if i + k + d[0] >= g else q * P[i, j, k + d[0]]
    return float(roll), float(1 - P[j, i + k, 0])


def keep_pace(i: int, j: int, k: int, g: int) -> str:
    """Neller's keep pace and end race, scaled to the goal (the strategy's documented rule)."""
    import math

    race = math.ceil(71 * g / 100)
    if i >= race or j >= race:
        return "roll"
    return "roll" if k < math.floor(21 * g / 100 + (j - i) / 8 + 0.5) else "hold"


def points_of_a_roll(variant: str) -> tuple[Fraction, Fraction]:
    """(expected points a roll adds, chance it loses the turn total), enumerated face by face:
    one die (a 1 busts), two dice (a single 1 busts, two 1s reset), a coin (tails busts)."""
    if variant == "piglet":
        return Fraction(1, 2), Fraction(1, 2)
    throws = list(product(range(1, 7), repeat=2 if variant == "two-dice" else 1))
    gain = sum((Fraction(sum(t), len(throws)) for t in throws if 1 not in t), Fraction(0))
    lose = Fraction(sum(1 for t in throws if 1 in t), len(throws))
    return gain, lose


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def check_why(p: dict, rules: PigRules) -> None:
    """What the sentence says of points (expected gain of a roll against the turn total at risk)
    and of the scores is true, and its figures are the moves' values."""
    i, j, k, g = p["position"]["i"], p["position"]["j"], p["position"]["k"], rules.goal
    gain, lose = points_of_a_roll(rules.variant)
    risk = k * lose
    why = p["why"]
    claims = {"adds more than": gain > risk, "is likely to cost": gain > risk,
              "would cost more than another roll": risk > gain, "risks more points than it adds": risk > gain,
              "risks as many points as it adds": risk == gain, "adds more points than it risks": gain > risk,
              "adds as many points as it risks": risk == gain}
    for words, true in claims.items():
        if words in why:
            assert true, (p["id"], words, k, gain, lose, why)
    vals = sorted((m["value"] for m in p["moves"]), reverse=True)
    assert f"({pct(vals[0])} against {pct(vals[1])})" in why, why
    for pattern, expect in ((r"trail by (\d+)", j - i - k), (r"puts you on (\d+)", i + k),
                            (r"puts you (\d+) ahead", i + k - j), (r"needs only (\d+) more", g - j),
                            (r"Holding on (\d+)", i + k), (r"leave (\d+) to get", g - i - k)):
        for found in re.findall(pattern, why):
            assert int(found) == expect, (p["id"], pattern, why)


def check_record(p: dict, P, rules: PigRules) -> None:
    i, j, k = p["position"]["i"], p["position"]["j"], p["position"]["k"]
    roll, hold = roll_and_hold(P, rules, i, j, k)
    vals = {m["action"]: m["value"] for m in p["moves"]}
    assert vals["roll"] == pytest.approx(roll, abs=1e-9) and vals["hold"] == pytest.approx(hold, abs=1e-9)
    best = "roll" if roll > hold else "hold"
    assert p["best"] == best and p["margin"] == pytest.approx(abs(roll - hold), abs=1e-9)
    thumbs = {t["name"].split(" (")[0]: t["action"] for t in p["thumbs"]}
    assert thumbs[f"Hold at {HOLD_AT[rules.variant]}"] == ("roll" if k < HOLD_AT[rules.variant] else "hold")
    assert thumbs["Keep pace and end race"] == keep_pace(i, j, k, rules.goal)
    assert p["failed"] == sum(a != best for a in thumbs.values()) >= 1
    check_why(p, rules)


def test_small_goal_puzzles_agree_with_the_reference_value_iteration():
    got = pz.draw(Small(), 24, seed=5)
    assert len(got) == 24
    tables = {}
    for s in SMALL:
        rules = PigRules(**s)
        tables[rules] = value_iteration(rules)[0]
    for p in got:
        rules = PigRules(**p["rules"])
        assert p["margin"] >= PigPuzzles.min_margin
        check_record(p, tables[rules], rules)
    assert {p["best"] for p in got} == {"roll", "hold"}  # both answers occur


def test_shipped_puzzles_rules_of_thumb_and_positions():
    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "pig"]
    assert {p["setting"] for p in shipped} == {"Pig to 100", "Two-dice Pig to 100", "Piglet (a coin) to 10"}
    for p in shipped:
        rules = PigRules(**p["rules"])
        i, j, k = p["position"]["i"], p["position"]["j"], p["position"]["k"]
        rules.check_state(i, j, k)
        assert k > 0  # a turn under way: at k = 0 there is nothing to decide
        thumbs = {t["name"].split(" (")[0]: t["action"] for t in p["thumbs"]}
        assert thumbs[f"Hold at {HOLD_AT[rules.variant]}"] == ("roll" if k < HOLD_AT[rules.variant] else "hold")
        assert thumbs["Keep pace and end race"] == keep_pace(i, j, k, rules.goal)
        check_why(p, rules)


def test_points_of_a_roll_by_hand():
    """The law behind the sentences: one die adds 20/6 and risks 1/6 of the turn total, two dice
    200/36 and 11/36, a coin 1/2 and 1/2 (so the break-even turn totals are 20, 200/11 and 1)."""
    assert points_of_a_roll("standard") == (Fraction(20, 6), Fraction(1, 6))
    assert points_of_a_roll("two-dice") == (Fraction(200, 36), Fraction(11, 36))
    assert points_of_a_roll("piglet") == (Fraction(1, 2), Fraction(1, 2))


@pytest.mark.slow
def test_shipped_pig_to_100_values_agree_with_layered_value_iteration():
    rules = PigRules(goal=100)
    P = layered_value_iteration(rules)[0]
    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "pig" and p["rules"] == rules.to_dict()]
    assert shipped
    for p in shipped:
        check_record(p, P, rules)
