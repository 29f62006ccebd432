"""The factorised n-player best response (opponents whose targets depend on their own scores)
against the general pass over every joint outcome, the two-player pass and a plain reference."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicelab.simpig import SimPigRules, parse_strategy
from dicelab.simpig import solver as S


def _strats(specs: list[str], g: int) -> list:
    rules = SimPigRules(goal=g, players=len(specs) + 1)
    return [S.check_goal(parse_strategy(x, rules), g) for x in specs]


def _general(strats: list, g: int) -> S.BestResponse:
    """The general pass (every joint outcome enumerated), forced by hiding state independence."""
    hidden = [dataclasses.replace(s, state_independent=False) for s in strats]
    return S._best_response_n(hidden, g, 1e10, 1e13)


def _live(shape: tuple[int, ...], g: int) -> np.ndarray:
    return np.indices(shape).max(axis=0) < g


@pytest.mark.parametrize(
    ("goal", "specs"),
    [
        (20, ["hold:6", "hold:9"]),
        (20, ["hold:7", "hold:7"]),  # equal opponents: sorted twins
        (12, ["hold:3", "hold:5", "hold:4"]),
        (12, ["hold:4", "hold:4", "hold:4"]),
        (12, ["hold:3", "mix:0.5*hold:2+0.5*hold:5", "hold:goal"]),
        (6, ["hold:2", "hold:3", "hold:2", "hold:1"]),  # five players
    ],
)
def test_factored_pass_matches_the_general_pass(goal, specs):
    strats = _strats(specs, goal)
    assert all(s.state_independent for s in strats)
    fast = S.best_response(strats, goal)
    slow = _general(strats, goal)
    assert fast.symmetric == (len(set(specs)) == 1)
    np.testing.assert_allclose(fast.value, slow.value, atol=1e-13, rtol=0)
    live = _live(fast.policy.shape, goal)
    assert np.array_equal(fast.policy[live], slow.policy[live])


def test_factored_pass_at_two_players_matches_the_two_player_pass():
    g = 25
    (s,) = _strats(["hold:8"], g)
    two = S._best_response2(s, g)
    fast = S._best_response_factored([s], g, False, 1e10, 1e13)
    np.testing.assert_allclose(fast.value, two.value, atol=1e-14, rtol=0)
    live = _live(two.policy.shape, g)
    assert np.array_equal(fast.policy[live], two.policy[live])


def test_equal_opponents_value_is_symmetric_and_matches_unequal_labels():
    # the same play written two ways: the sorted-twin shortcut must not change any value
    g = 14
    sym = S.best_response(_strats(["hold:5"] * 3, g), g)
    plain = S.best_response(_strats(["hold:5", "mix:1*hold:5", "hold:5"], g), g)
    assert sym.symmetric and not plain.symmetric
    np.testing.assert_allclose(sym.value, plain.value, atol=1e-13, rtol=0)
    np.testing.assert_allclose(sym.value, np.transpose(sym.value, (0, 3, 1, 2)), atol=1e-13, rtol=0)


def test_size_limits_of_the_factored_pass():
    need = S.factored_memory(4, 100)
    assert 1.5 * 2**30 < need < 2.5 * 2**30  # values and the averaged values, 8 + 8 bytes a state
    assert S.factored_work(4, 100, True) < S.factored_work(4, 100, False) < S.DEFAULT_MAX_WORK
    with pytest.raises(S.DicelabError, match="GiB"):
        S.best_response(_strats(["hold:25"] * 4, 100), 100)
