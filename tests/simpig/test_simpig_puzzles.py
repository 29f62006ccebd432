"""Simultaneous Pig puzzles: every shipped puzzle's values re-derived from the exact mixed
equilibrium's value table (Shapley's method) and the exact turn-total laws in fractions (Table 1's
recursion), where the puzzles came from the best response to the equilibrium: the two must agree,
since a best response to an equilibrium earns the game's value. Also checked: the equilibrium plays
one target at the position (a mixed one has no single best move), the best target is the best of
all 1..need, and the rules of thumb are what they say."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicelab import simpig
from dicelab.core import puzzles as pz

GOAL = 100


def share(a: int, b: int, V) -> float:
    """The mover's value once the turn is banked at (a, b): shares of the win, else V."""
    if a >= GOAL and b >= GOAL:
        return 0.5
    if a >= GOAL:
        return 1.0
    if b >= GOAL:
        return 0.0
    return float(V[a, b])


def q_value(k: int, i: int, j: int, eq) -> float:
    mine = simpig.turn_total_fractions(k)
    theirs: dict[int, Fraction | float] = {}
    for kb, w in eq.support(j, i).items():
        for y, p in simpig.turn_total_fractions(kb).items():
            theirs[y] = theirs.get(y, 0.0) + w * float(p)
    return sum(float(px) * py * share(i + x, j + y, eq.value) for x, px in mine.items() for y, py in theirs.items())


def test_shipped_simpig_puzzles_agree_with_the_equilibrium_values():
    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "simpig"]
    assert len(shipped) >= 20
    eq = simpig.solve(simpig.SimPigRules(goal=GOAL), progress=False, use_cache=True)
    for p in shipped[:12]:
        i, j = p["position"]["i"], p["position"]["j"]
        need = GOAL - i
        support = eq.support(i, j)
        assert len(support) == 1, p["id"]  # the equilibrium plays one target here
        for m in p["moves"]:
            assert m["value"] == pytest.approx(q_value(m["action"]["target"], i, j, eq), abs=1e-9), p["id"]
        curve = p["extra"]["curve"]["y"]
        assert p["extra"]["curve"]["x0"] == 1
        assert len(curve) == need
        k_best = max(range(1, need + 1), key=lambda k: curve[k - 1])
        assert p["best"] == {"target": k_best} and k_best == next(iter(support))
        assert curve[k_best - 1] == pytest.approx(q_value(k_best, i, j, eq), abs=1e-5)
        assert curve[k_best - 1] == pytest.approx(float(eq.value[i, j]), abs=1e-5)  # it earns the game's value
        thumbs = [t["action"]["target"] for t in p["thumbs"]]
        assert thumbs == [min(25, need), min(20, need), need]
        offered = sorted(m["action"]["target"] for m in p["moves"])
        assert offered == sorted({k_best, *thumbs})
        assert p["failed"] == sum(t != k_best for t in thumbs) >= 1


def test_shipped_simpig_whys_say_who_needs_what():
    """The sentence's facts: the points each player needs, 'the opponent needs only' only when they
    need no more than you, and the chance a target comes home in one turn (rolling 2 to 6 until
    the target, a 1 ends the turn with nothing), by a recursion in fractions written here."""
    import re
    from functools import lru_cache

    def home(k: int) -> Fraction:
        @lru_cache(maxsize=None)
        def f(t: int) -> Fraction:
            return Fraction(1) if t >= k else sum((f(t + d) for d in range(2, 7)), Fraction(0)) / 6
        return f(0)

    for p in (p for p in pz.load()["puzzles"] if p["game"] == "simpig"):
        i, j, why = p["position"]["i"], p["position"]["j"], p["why"]
        need, their = GOAL - i, GOAL - j
        k = p["best"]["target"]
        if m := re.search(r"opponent needs only (\d+)", why):
            assert int(m.group(1)) == their <= need, why
        if m := re.match(r"You need (\d+) and the opponent (\d+)", why):
            assert (int(m.group(1)), int(m.group(2))) == (need, their), why
        if m := re.search(r"(?:succeeds only|comes home|still comes home) (\d+\.\d)% of the time", why):
            assert m.group(1) == f"{100 * float(home(k)):.1f}", why
        if m := re.search(r"(Behind|Ahead) by (\d+)", why):
            assert int(m.group(2)) == abs(i - j) and (m.group(1) == "Ahead") == (i > j), why
