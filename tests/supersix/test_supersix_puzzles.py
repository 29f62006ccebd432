"""Super Six puzzles: every shipped puzzle's values re-derived by a value iteration over the rules
written here (a throw: a 6 into the hole, an empty pit filled, or a filled pit's stick taken back
and the turn over), sharing nothing with the solver's layered policy iteration; the claim that a
position's value does not depend on the sticks each player started with, checked against two
solutions; the rules of thumb recomputed."""

from __future__ import annotations

import pytest

from dicelab.core import puzzles as pz
from dicelab.supersix import SuperSixRules, solve

TOTAL = 12  # sticks in play at most (6 each)


def value_iteration() -> tuple[dict, dict]:
    """(throw value T, free value G) at every (lid, own, opp) with own, opp >= 1."""
    states = [(lid, a, b) for lid in range(6) for a in range(1, TOTAL + 1) for b in range(1, TOTAL + 1)
              if lid + a + b <= TOTAL]
    T = {s: 0.5 for s in states}
    G = {s: 0.5 for s in states}

    def free(lid, a, b):
        return 1.0 if a == 0 else G[(lid, a, b)]

    for _ in range(100_000):
        delta = 0.0
        for s in states:
            lid, a, b = s
            t = (1 / 6) * free(lid, a - 1, b)  # a 6: the stick leaves the game
            if lid < 5:
                t += (5 - lid) / 6 * free(lid + 1, a - 1, b)  # an empty pit
            if lid > 0:
                t += lid / 6 * (1.0 - T[(lid - 1, b, a + 1)])  # a filled pit: take it back, turn over
            g = max(t, 1.0 - T[(lid, b, a)])  # stop: the opponent's forced throw
            delta = max(delta, abs(t - T[s]), abs(g - G[s]))
            T[s], G[s] = t, g
        if delta < 1e-15:
            return T, G
    raise AssertionError("no convergence")


def test_shipped_supersix_puzzles_agree_with_value_iteration():
    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "supersix"]
    assert len(shipped) >= 15
    T, _ = value_iteration()
    four = solve(SuperSixRules(sticks=4))
    for p in shipped:
        lid, own, opp = (p["position"][k] for k in ("lid", "own", "opp"))
        throw, stop = T[(lid, own, opp)], 1.0 - T[(lid, opp, own)]
        vals = {m["action"]: m["value"] for m in p["moves"]}
        assert vals["throw"] == pytest.approx(throw, abs=1e-9) and vals["stop"] == pytest.approx(stop, abs=1e-9)
        best = "throw" if throw > stop else "stop"
        assert p["best"] == best and p["margin"] == pytest.approx(abs(throw - stop), abs=1e-9)
        if lid + own + opp <= 8:  # reachable with 4 sticks each: the same values there
            assert four.values(lid, own, opp) == pytest.approx((throw, stop), abs=1e-9)
        odds = "throw" if lid < 3 else "stop"
        chase = "throw" if own > opp else odds
        assert [t["action"] for t in p["thumbs"]] == [odds, chase]
        assert sum(1 for t in p["thumbs"] if t["action"] != best) == p["failed"] >= 1
        assert sum(p["board"][0]["filled"]) == lid


def test_shipped_supersix_whys_say_what_the_position_is():
    """The sentence's facts: who is behind (more sticks left), faces counted on the lid (a throw
    places a stick on the empty pits and the hole, takes one back on a filled pit), the figures
    the moves' values."""
    import re

    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "supersix"]
    for p in shipped:
        lid, own, opp = (p["position"][k] for k in ("lid", "own", "opp"))
        why = p["why"]
        vals = sorted((m["value"] for m in p["moves"]), reverse=True)
        assert f"({100 * vals[0]:.1f}% against {100 * vals[1]:.1f}%)" in why, why
        if "Even behind" in why:
            assert own > opp, why
        if "is ahead" in why:
            assert opp < own, why
        if "level with you" in why:
            assert opp == own, why
        if "your last stick" in why:
            assert own == 1, why
            assert int(re.search(r"(\d) faces of 6 win", why).group(1)) == (5 - lid) + 1, why
        for n in re.findall(r"(\d) faces of 6 take a stick back|\((\d) in 6 to take a stick back", why):
            assert int(n[0] or n[1]) == lid, why
        assert "full lid" not in why or lid == 5, why
