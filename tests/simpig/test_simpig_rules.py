"""Simultaneous Pig rules and the turn-total distributions X_k (seed 000, Tables 1 and 2)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.simpig.rules import (
    SimPigGame,
    SimPigRules,
    sample_turn_totals,
    turn_total_distribution,
    turn_total_fractions,
    turn_total_table,
)


def _reference_fractions(k: int) -> dict[int, Fraction]:
    """Independent reference: forward DP over the running turn total, die face by die face."""
    reach = {0: Fraction(1)}  # probability of standing at turn total t (< k) before a roll
    out: dict[int, Fraction] = {}
    for t in range(k):
        p = reach.pop(t, Fraction(0))
        if not p:
            continue
        out[0] = out.get(0, Fraction(0)) + p / 6
        for face in range(2, 7):
            u = t + face
            if u >= k:
                out[u] = out.get(u, Fraction(0)) + p / 6
            else:
                reach[u] = reach.get(u, Fraction(0)) + p / 6
    return {t: p for t, p in out.items() if p}


def test_paper_example_x3():
    # The paper's worked example: P(X_3 = i) = 7/36 for i in {0,4,5,6}, 1/6 at 3, 1/36 at 7 and 8.
    d = turn_total_fractions(3)
    assert d == {
        0: Fraction(7, 36),
        3: Fraction(1, 6),
        4: Fraction(7, 36),
        5: Fraction(7, 36),
        6: Fraction(7, 36),
        7: Fraction(1, 36),
        8: Fraction(1, 36),
    }


def test_table2_x100_bust_probability():
    # Table 2 / the n-player section: P(X_100 = 0) = 0.9898; hold:100 wins a turn 1.02% of the time.
    assert round(float(turn_total_fractions(100)[0]), 4) == 0.9898
    assert round(1 - turn_total_distribution(100)[0], 4) == 0.0102


@pytest.mark.parametrize("k", [1, 2, 20, 21, 22, 23, 24, 25, 100])
def test_recursion_matches_forward_reference_and_floats(k):
    exact = turn_total_fractions(k)
    assert exact == _reference_fractions(k)
    assert sum(exact.values()) == 1
    floats = turn_total_distribution(k)
    assert set(floats) == set(exact)
    for t, p in exact.items():
        assert floats[t] == pytest.approx(float(p), rel=1e-13, abs=1e-16)
    assert set(exact) <= {0} | set(range(k, k + 6))


def test_table_rows_sum_to_one():
    p0, pk = turn_total_table(100)
    np.testing.assert_allclose(p0[1:] + pk[1:].sum(axis=1), 1.0, atol=1e-14)
    assert np.all(np.diff(p0[1:]) >= 0)  # a higher target busts more often


def test_sampling_matches_distribution():
    rng = np.random.default_rng(7)
    k = np.full(200_000, 20)
    draws = sample_turn_totals(k, rng)
    d = turn_total_distribution(20)
    for t, p in d.items():
        se = np.sqrt(p * (1 - p) / k.size)
        assert abs((draws == t).mean() - p) < 5 * se


def test_roll_by_roll_engine_agrees_with_x_k():
    rng = np.random.default_rng(3)
    n = 20_000
    busts = sum(SimPigGame.roll_turn(10, rng) == 0 for _ in range(n))
    p = turn_total_distribution(10)[0]
    assert abs(busts / n - p) < 5 * np.sqrt(p * (1 - p) / n)


def test_game_shares_the_win_among_simultaneous_finishers():
    rules = SimPigRules(goal=10, players=3)
    assert rules.payoff([10, 12, 3]) == (0.5, 0.5, 0.0)
    assert rules.payoff([9, 9, 9]) is None
    g = SimPigGame(rules)
    rng = np.random.default_rng(0)
    while g.result is None:
        g.play_turn([10 - s for s in g.scores], rng)
    assert sum(g.result) == pytest.approx(1.0)


@pytest.mark.parametrize("kwargs", [{"goal": 1}, {"goal": 5000}, {"players": 1}, {"goal": "x"}])
def test_bad_rules(kwargs):
    with pytest.raises(DicelabError):
        SimPigRules(**kwargs)


def test_bad_targets():
    with pytest.raises(DicelabError):
        turn_total_fractions(0)
    g = SimPigGame(SimPigRules(goal=20))
    with pytest.raises(DicelabError):
        g.play_turn([25, 3], np.random.default_rng(0))
