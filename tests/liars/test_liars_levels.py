"""Liar's Dice's levels (issue 21, item 1): the shipped measurement of the default table is
strictly ordered, each level's 95 % interval below the next one's, with its seed and method
recorded; the slow test measures it again (minutes) and finds the same within the intervals."""

from __future__ import annotations

import pytest

from dicelab.liars.levels import GAMES, LADDER, SEED, default_rules, load_shipped, simulate
from dicelab.liars.play import PLAY


def test_the_shipped_ladder_is_strictly_ordered_with_disjoint_intervals():
    m = load_shipped()
    assert m is not None, "liars/levels.json is missing or holds another ladder"
    s, iv = m["strengths"], m["intervals"]
    assert len(s) == len(LADDER) == len(iv)
    assert all(lo <= x <= hi for x, (lo, hi) in zip(s, iv))
    assert all(a[1] < b[0] for a, b in zip(iv, iv[1:])), iv  # each interval wholly below the next
    assert m["games"] == GAMES and m["seed"] == SEED and "Wilson" in m["method"]
    assert abs(s[-1] - 0.5) <= iv[-1][1] - s[-1]  # the strongest against itself: a half, within noise
    lbr = [x["exploitability_lower"] for x in m["lbr"]]
    assert lbr[-1] < lbr[-2] < lbr[-3] <= lbr[0]  # the scout's noise is what a best response exploits


@pytest.mark.slow
def test_a_new_measurement_agrees_with_the_shipped_one():
    shipped = load_shipped()
    new = simulate(default_rules(), PLAY, games=GAMES, seed=SEED + 1)  # another sample
    for a, b, (lo, hi) in zip(new["strengths"], shipped["strengths"], shipped["intervals"]):
        assert abs(a - b) <= 1.5 * (hi - lo), (a, b)  # two samples: within about 2 standard errors of each
    assert all(x < y for x, y in zip(new["strengths"], new["strengths"][1:]))
