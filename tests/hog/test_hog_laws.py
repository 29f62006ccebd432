"""Laws of optimal Hog that the construction does not force: bounds, monotonicity, the optimal
policy beating every fixed number of dice, equilibrium values, and simulation against the exact
values (99.9% Wilson intervals)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dicelab.core.errors import DicelabError
from dicelab.hog import HogRules, best_response, evaluate, parse_strategy, simulate, solve
from dicelab.hog.simulation import turn_scores

RULES = HogRules(goal=30)
TOL = 1e-12


@pytest.fixture(scope="module")
def sol():
    return solve(RULES)


def test_w_is_a_probability_and_monotone(sol):
    W = sol.W
    assert W.min() >= 0 and W.max() <= 1
    assert np.all(np.diff(W, axis=0) >= -TOL)  # more points for the mover never hurt
    assert np.all(np.diff(W, axis=1) <= TOL)  # more points for the opponent never help


def test_optimal_beats_every_fixed_number_of_dice(sol):
    w = sol.W[0, 0]
    for n in range(1, RULES.max_dice + 1):
        against_opt = evaluate(f"always:{n}", "optimal", RULES)
        assert against_opt.a_first <= w + TOL  # no deviation gains against optimal play
        opt_against = evaluate("optimal", f"always:{n}", RULES)
        assert opt_against.a_first >= w - TOL  # optimal play is guaranteed at least W[0, 0]


def test_optimal_self_play_and_best_response_are_worth_w00(sol):
    e = evaluate("optimal", "optimal", RULES)
    assert abs(e.a_first - sol.W[0, 0]) < TOL
    assert abs(e.a_second - (1 - sol.W[0, 0])) < TOL  # zero sum, no draws
    br = best_response("optimal", RULES)
    assert abs(br.result.a_first - sol.W[0, 0]) < TOL
    assert abs(br.value - 0.5) < TOL  # against optimal play the best reply is only fair


def test_best_response_to_a_fixed_strategy_beats_every_fixed_reply():
    br = best_response("always:4", RULES)
    for n in range(1, RULES.max_dice + 1):
        fixed = evaluate(f"always:{n}", "always:4", RULES)
        assert fixed.a_first <= br.result.a_first + TOL and fixed.a_second <= br.result.a_second + TOL
    # and its table, evaluated as a fixed strategy, is worth what best_response said
    again = evaluate(br.strategy, "always:4", RULES)
    assert abs(again.a_first - br.result.a_first) < TOL and abs(again.a_second - br.result.a_second) < TOL
    nested = parse_strategy("best-response:always:4")
    assert np.array_equal(nested.table(RULES), br.strategy.table(RULES))


def test_symmetry_of_a_mirror_match():
    e = evaluate("always:5", "always:5", RULES)
    assert abs(e.a_first + e.a_second - 1) < TOL  # A first against B first is the same game


def test_goal_100_starts_with_six_dice():
    rules = HogRules()
    s = solve(rules)  # its speed is in make bench, not here
    assert s.max_residual < 1e-12 and s.best_dice(0, 0) == 6
    assert 0.5 < s.W[0, 0] < 0.55


@pytest.mark.parametrize("n", [1, 3, 6, 10])
def test_simulated_turn_mean_is_n_4_five_sixths_to_the_n(n):
    scores = turn_scores(n, HogRules(), 200_000, seed=n)
    mean, se = scores.mean(), scores.std(ddof=1) / math.sqrt(len(scores))
    z = stats.norm.ppf(0.9995)
    assert abs(mean - n * 4 * (5 / 6) ** n) < z * se


@pytest.mark.parametrize("a,b", [("always:6", "always:3"), ("optimal", "always:8")])
def test_simulation_agrees_with_exact_evaluation(a, b):
    exact = evaluate(a, b, RULES)
    res = simulate(a, b, RULES, games=40_000, seed=11, confidence=0.999).to_dict()
    for key, value in (("a_first", exact.a_first), ("a_second", exact.a_second)):
        lo, hi = res[key]["interval"]
        assert lo <= value <= hi, (key, value, lo, hi)
    lo, hi = res["interval"]
    assert lo <= exact.mean <= hi


def test_simulation_is_reproducible():
    one = simulate("always:5", "optimal", RULES, games=2_000, seed=4).to_dict()
    assert one == simulate("always:5", "optimal", RULES, games=2_000, seed=4).to_dict()
    assert one != simulate("always:5", "optimal", RULES, games=2_000, seed=5).to_dict()


@pytest.mark.parametrize("spec", ["always:0", "always:21", "always:x", "nope", "",
                                  "best-response:" * 9 + "optimal", "always:" + "9" * 5000])
def test_bad_specs_are_one_line_errors(spec):
    with pytest.raises(DicelabError) as e:
        parse_strategy(spec).table(HogRules(goal=10))
    assert "\n" not in str(e.value)


def test_rule_limits():
    for kwargs in ({"goal": 0}, {"max_dice": 21}, {"sides": 1}, {"goal": True}):
        with pytest.raises(DicelabError):
            HogRules(**kwargs)
    with pytest.raises(DicelabError):
        evaluate("always:10", "always:2", HogRules(goal=10, max_dice=4))


def test_every_offered_bot_plays_legal_moves_and_bad_specs_are_one_line():
    from dicelab.core.errors import DicelabError
    from dicelab.hog import PLAY, new_game

    rules = HogRules(goal=30, max_dice=6)
    for offered in PLAY.bots(rules):
        player = PLAY.bot(offered.spec, rules)
        state = new_game(rules, seed=3)
        while not state.is_over:
            seat = state.to_move()[0]
            action = player.act(state, seat)
            assert action in state.legal_actions()
            state.apply(action)
        assert sorted(state.returns()) == [0.0, 1.0]
    with pytest.raises(DicelabError, match="unknown Hog strategy") as info:
        PLAY.bot("roll-lots", rules)
    assert "\n" not in str(info.value)
