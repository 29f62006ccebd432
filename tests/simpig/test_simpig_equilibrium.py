"""The exact equilibrium (Shapley's method), self-play cycles, SVIMA and exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from dicelab.simpig import SimPigRules, best_response, evaluate, exploitability, selfplay, svima
from dicelab.simpig.equilibrium import solve_equilibrium, solve_matrix_game
from dicelab.simpig.strategies import table_strategy


def test_matrix_games_with_known_values():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    v, x, y, used = solve_matrix_game(rps)
    assert v == pytest.approx(0.0, abs=1e-12) and used
    np.testing.assert_allclose(x, [1 / 3] * 3, atol=1e-12)
    np.testing.assert_allclose(y, [1 / 3] * 3, atol=1e-12)
    m = np.array([[4.0, 3.0], [3.0, 2.0]])
    v, x, y, used = solve_matrix_game(m)
    assert v == 3.0 and not used  # pure saddle point
    # no saddle point: value (ad - bc) / (a + d - b - c) = (6 - 0) / (5 - 1) = 1.5
    v, x, y, _ = solve_matrix_game(np.array([[2.0, 0.0], [1.0, 3.0]]))
    assert v == pytest.approx(1.5, abs=1e-13)
    np.testing.assert_allclose(x, [0.5, 0.5], atol=1e-13)


@pytest.mark.parametrize("goal", [20, 60])
def test_equilibrium_value_and_no_profitable_deviation(goal):
    eq = solve_equilibrium(goal, progress=False)
    assert eq.start_value == pytest.approx(0.5, abs=1e-12)  # symmetric game
    np.testing.assert_allclose(eq.value + eq.value.T, 1.0, atol=1e-12)
    np.testing.assert_allclose(eq.weights.sum(axis=0), 1.0, atol=1e-12)
    # The exact best response to the equilibrium strategy (every pure or state-dependent
    # deviation) gains nothing anywhere.
    br = best_response(eq.strategy(), SimPigRules(goal=goal))
    assert br.win_probability <= 0.5 + 1e-9
    assert np.max(br.value[:goal, :goal] - eq.value) <= 1e-9
    # and the equilibrium against itself is worth exactly its value table
    np.testing.assert_allclose(
        evaluate(eq.strategy(), eq.strategy(), SimPigRules(goal=goal))[:goal, :goal], eq.value, atol=1e-9
    )
    if goal == 60:
        assert eq.mixed_states > 0  # at 60 some states need a genuinely mixed strategy


@pytest.fixture(scope="module")
def eq100():
    return solve_equilibrium(100, progress=False)


def test_equilibrium_goal_100(eq100):
    eq = eq100
    assert eq.start_value == pytest.approx(0.5, abs=1e-12)
    assert eq.mixed_states > 0
    assert exploitability(eq.strategy()) <= 1e-9
    # hold:25, the best hold:N, is beaten by a best response: paper 0.5231
    assert round(exploitability("hold:25") + 0.5, 4) == 0.5231


def _policy_strategy(name: str, policy: np.ndarray):
    g = policy.shape[0]
    return table_strategy(name, g, np.ones((1, g, g)), policy[None].astype(np.int64))


def test_selfplay_cycle_and_svima(eq100):
    sp = selfplay(SimPigRules(goal=100))
    assert sp.cycle_length == 2
    # Paper: the largest value difference between the two cyclic policies is at state (69, 47),
    # and either policy wins 0.5192 against hold:25. Exact figures here: 0.51914 / 0.51905
    # (149 cyclic states, MAE 1.29e-6, max difference 6.0e-4 against the paper's 141, 3.346e-7,
    # 2.020e-4: the paper's sweep order is not given, and the cycle depends on it).
    assert sp.max_difference_state == (69, 47)
    for w in sp.win_vs_hold25:
        assert abs(w - 0.5192) < 3e-4
    assert sp.cyclic_states == 149, f"{sp.cyclic_states} cyclic states (paper: 141; pinned 149)"
    # "very close to 0.5, error less than 1e-6" in the paper; ours 0.4999994
    assert abs(sp.start_win_1_vs_2 - 0.5) < 1e-6
    sv = svima(SimPigRules(goal=100))
    # Paper: 74 of 10,000 states differ between the two SVIMA policies; win rates 0.4999997
    # and 0.5000003 (ours 0.5000008 / 0.4999992).
    assert sv.differing_states == 74
    assert abs(sv.win_a - 0.5) < 1e-6
    a, b = _policy_strategy("svima-a", sv.policy_a), _policy_strategy("svima-b", sv.policy_b)
    # Law (zero-sum, ties shared): B's share computed from B's own seat, in a separate pass,
    # and A's share add up to 1.
    b_share = evaluate(b, a, SimPigRules(goal=100))[0, 0]
    assert sv.win_a + b_share == pytest.approx(1.0, abs=1e-12)
    assert sv.win_b == pytest.approx(b_share, abs=1e-12)
    # Paper: the Stackelberg strategy against the mixed-strategy equilibrium (solved here by
    # Shapley's method, another solver) wins within 1e-6 of 0.5.
    eq = eq100.strategy()
    for s in (a, b):
        assert abs(evaluate(s, eq, SimPigRules(goal=100))[0, 0] - 0.5) < 1e-6
    # DISAGREEMENT with the paper, pinned: "the actions ... all differed by 1"; here 68 of the
    # 74 differing states differ by 1 and 6 by 4 to 17 (e.g. (69, 47): A 16, B 31).
    gap = np.abs(sv.policy_a - sv.policy_b)[sv.policy_a != sv.policy_b]
    assert int((gap == 1).sum()) == 68, f"{int((gap == 1).sum())} of 74 differ by 1 (paper: all)"
