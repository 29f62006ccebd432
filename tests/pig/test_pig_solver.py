"""The exact Pig solver against published values, a rational reference and the laws of the game."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigRules
from dicelab.pig.solver import PigSolution, solve, solve_cached
from dicelab.pig.reference import (
    layered_value_iteration,
    solve_exact,
    value_iteration,
    value_iteration_sliced,
)


@pytest.fixture(scope="module")
def pig100():
    return solve(PigRules(goal=100))


def test_neller_presser_first_player_edge(pig100):
    # Neller & Presser (2004): the first player wins 0.5306 of games to 100 under optimal play.
    assert round(pig100.win_probability(0, 0, 0), 4) == 0.5306
    # the further digits come from the textbook value iteration (slow test below), not from here
    assert pig100.win_probability(0, 0, 0) == pytest.approx(0.5305927, abs=1e-7)
    assert pig100.max_residual <= 1e-12


@pytest.mark.slow
def test_textbook_value_iteration_at_goal_100(pig100):
    """The slow reference (plain synchronous sweeps, ~1 min) gives 0.5305927 and the same table."""
    P, _ = value_iteration(PigRules(goal=100), tol=1e-12)
    assert P[0, 0, 0] == pytest.approx(0.5305927, abs=1e-7)
    i, j, k = np.meshgrid(*(np.arange(100),) * 3, indexing="ij")
    assert np.max(np.abs(P - pig100.p)[i + k < 100]) < 1e-9


def test_neller_presser_policy_landmarks(pig100):
    # Neller & Presser: optimal play rolls on at (0, 0) past 20 (the "hold at 20" rule is not
    # optimal), and far behind near the end it rolls to the goal.
    assert pig100.action(0, 0, 20) == "roll"
    assert pig100.hold_threshold(0, 99) == 100  # opponent about to win: never stop short
    assert pig100.action(99, 0, 0) == "roll"


def test_piglet_goal_two_hand_values():
    # seed 002 / Neller & Presser's Piglet to 2: solved by hand
    s = solve(PigRules(goal=2, variant="piglet"))
    expected = {(0, 0, 0): Fraction(4, 7), (0, 0, 1): Fraction(5, 7), (0, 1, 0): Fraction(2, 5),
                (0, 1, 1): Fraction(3, 5), (1, 0, 0): Fraction(4, 5), (1, 1, 0): Fraction(2, 3)}
    for state, value in expected.items():
        assert s.win_probability(*state) == pytest.approx(float(value), abs=1e-12)
    assert s.max_residual <= 1e-12


def test_reference_value_iteration_agrees_at_goal_30():
    r = PigRules(goal=30, variant="two-dice")
    P, sweeps = value_iteration(r, tol=1e-14)
    s = solve(r)
    assert sweeps > 10
    assert np.max(np.abs(P - s.p)) < 1e-11


@pytest.mark.parametrize(
    "rules",
    [PigRules(goal=6), PigRules(goal=5, sides=3), PigRules(goal=6, variant="piglet"),
     PigRules(goal=4, sides=4, variant="two-dice")],
    ids=str,
)
def test_benchmark_baselines_match_rational_reference(rules):
    """The two fair numpy baselines give the exact rational values (and the same as the slow one)."""
    exact = solve_exact(rules)
    sliced, n = value_iteration_sliced(rules, tol=1e-15)
    slow, n_slow = value_iteration(rules, tol=1e-15)
    assert n == n_slow and np.array_equal(sliced, slow)  # the same sweeps, written two ways
    tables = [sliced]
    if not rules.outcomes.reset:
        tables.append(layered_value_iteration(rules, tol=1e-15)[0])
    else:
        with pytest.raises(DicelabError, match="two-dice reset"):
            layered_value_iteration(rules)
    for P in tables:
        for (i, j, k), v in exact.items():
            assert P[i, j, k] == pytest.approx(float(v), abs=1e-13)


@pytest.mark.parametrize(
    "rules",
    [PigRules(goal=100), PigRules(goal=37, sides=9), PigRules(goal=30, variant="piglet"),
     PigRules(goal=25, sides=4, variant="two-dice"), PigRules(goal=1), PigRules(goal=9, sides=2)],
    ids=str,
)
def test_residual_and_actions_checked_in_the_sweep_equal_a_full_recheck(rules):
    """The solver checks Bellman's equations pair by pair inside the sweep (no second pass over
    the table); the textbook equations written in numpy over the finished table must give the
    same residual bound and the same actions."""
    s = solve(rules)
    g = rules.goal
    o = rules.outcomes
    P = s.p
    i, j, k = np.meshgrid(*(np.arange(g),) * 3, indexing="ij")
    valid = i + k < g
    roll = o.bust * (1 - P[j, i, 0]) + o.reset * (1 - P[j, 0, 0])
    for d, q in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
        roll = roll + np.where(i + k + d >= g, q, q * P[i, j, np.minimum(k + d, g - 1)])
    hold = 1 - P[j, np.minimum(i + k, g - 1), 0]
    residual = np.max(np.abs(P - np.maximum(roll, hold))[valid])
    assert residual <= 1e-12 and s.max_residual <= 1e-12
    assert abs(residual - s.max_residual) <= 1e-15  # the same bound (numpy may sum in its order)
    clear = valid & (np.abs(roll - hold) > 1e-12)
    assert np.array_equal(s.roll[clear], (roll > hold)[clear])
    assert not s.roll[~valid].any() and np.all(P[~valid] == 1.0)


def test_benchmark_baselines_agree_at_goal_40():
    r = PigRules(goal=40)
    s = solve(r)
    for P, _ in (value_iteration_sliced(r, tol=1e-14), layered_value_iteration(r, tol=1e-14)):
        assert np.max(np.abs(P - s.p)) < 1e-11
    with pytest.raises(DicelabError, match="tolerance"):
        value_iteration_sliced(r, tol=0.0)


rules_strategy = st.one_of(
    st.builds(PigRules, goal=st.integers(1, 6), sides=st.integers(2, 7), variant=st.just("standard")),
    st.builds(PigRules, goal=st.integers(1, 6), variant=st.just("piglet")),
    st.builds(PigRules, goal=st.integers(1, 6), sides=st.integers(2, 6), variant=st.just("two-dice")),
)


@settings(max_examples=25, deadline=None)
@given(rules_strategy)
def test_matches_rational_reference(rules):
    exact = solve_exact(rules)
    sol = solve(rules)
    assert len(exact) == rules.n_states
    for (i, j, k), v in exact.items():
        assert sol.p[i, j, k] == pytest.approx(float(v), abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    st.integers(2, 25),
    st.sampled_from(["standard", "piglet", "two-dice"]),
    st.integers(2, 8),
)
def test_laws(goal, variant, sides):
    rules = PigRules(goal=goal, sides=2 if variant == "piglet" else sides, variant=variant)
    s = solve(rules)
    g = rules.goal
    i, j, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    valid = i + k < g
    P = s.p
    assert s.max_residual <= 1e-12
    assert np.all((P[valid] >= 0) & (P[valid] <= 1))
    # non-decreasing in own banked score and in turn total (1.0 past the goal: a win)
    assert np.all(np.diff(P, axis=0)[valid[:-1]] >= -1e-12)
    assert np.all(np.diff(P, axis=2)[valid[:, :, :-1]] >= -1e-12)
    # non-increasing in the opponent's score
    assert np.all(np.diff(P, axis=1)[valid[:, :-1]] <= 1e-12)


def test_turn_limit_one_turn_piglet():
    # One turn left, then a draw: at (0, 0, 0) of Piglet to 2 the mover rolls for two heads
    # (probability 1/4) and otherwise takes the draw: 1/4 + 3/4 * 1/2 = 5/8.
    s = solve(PigRules(goal=2, variant="piglet"), turn_limit=1)
    assert s.win_probability(0, 0, 0) == pytest.approx(5 / 8, abs=1e-15)


def test_turn_limit_converges_to_unlimited():
    r = PigRules(goal=30)
    exact = solve(r).p
    i, j, k = np.meshgrid(*(np.arange(30),) * 3, indexing="ij")
    valid = i + k < 30
    gaps = [np.max(np.abs(solve(r, turn_limit=n).p - exact)[valid]) for n in (4, 16, 64, 256)]
    assert all(a > b for a, b in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-9


def test_bad_turn_limit():
    with pytest.raises(DicelabError, match="turn limit"):
        solve(PigRules(goal=10), turn_limit=0)


def test_actions_values_and_thresholds_satisfy_bellman():
    g = 40
    s = solve(PigRules(goal=g))
    P = s.p

    def p(i: int, j: int, k: int) -> float:  # the mover's chance; reaching the goal wins
        return 1.0 if i + k >= g else float(P[i, j, k])

    for i, j in [(0, 0), (10, 30), (35, 5), (39, 39)]:
        h = s.hold_threshold(i, j)
        assert (h == g - i) or s.action(i, j, h) == "hold"
        assert all(s.action(i, j, k) == "roll" for k in range(h))
        assert s.hold_thresholds()[i, j] == h
        for k in range(g - i):
            # Bellman's equations, written from the rules of Pig with one d6: a 1 passes the
            # turn with nothing banked, 2..6 add to the turn total; holding banks it.
            roll = (1 - P[j, i, 0]) / 6 + sum(p(i, j, k + d) for d in range(2, 7)) / 6
            hold = 1 - P[j, i + k, 0]
            assert s.values(i, j, k) == pytest.approx((roll, hold), abs=1e-12)
            assert P[i, j, k] == pytest.approx(max(roll, hold), abs=1e-12)
            if abs(roll - hold) > 1e-12:
                assert s.action(i, j, k) == ("roll" if roll > hold else "hold")


def test_save_load_roundtrip_and_checksum(tmp_path):
    r = PigRules(goal=20, variant="two-dice")
    s = solve(r)
    path = s.save(tmp_path / "t")
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["rules"] == r.to_dict() and len(meta["sha256"]) == 64
    back = PigSolution.load(path, r)
    assert np.array_equal(back.p, s.p) and np.array_equal(back.roll, s.roll)
    with pytest.raises(DicelabError, match="solved for"):
        PigSolution.load(path, PigRules(goal=20))
    # tamper with the arrays: the checksum refuses the file
    with np.load(path) as data:
        p = data["p"].copy()
        roll = data["roll"].copy()
    p[1, 1, 1] += 1e-9
    np.savez_compressed(path, p=p, roll=roll)
    with pytest.raises(DicelabError, match="checksum"):
        PigSolution.load(path, r)


def test_cache_reuses_solved_tables(cache_dir):
    r = PigRules(goal=25)
    first = solve_cached(r)
    files = sorted(cache_dir.glob("*.npz"))
    assert len(files) == 1
    mtime = files[0].stat().st_mtime_ns
    second = solve_cached(r)
    assert files[0].stat().st_mtime_ns == mtime
    assert np.array_equal(first.p, second.p)
