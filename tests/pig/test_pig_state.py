"""Pig through the one state interface: seeded random games end and round-trip through JSON at
every step, the dice are numpy's own draws for the seed, illegal actions are one-line errors, and
optimal play for both seats wins for the first player as often as the solver's P(0, 0, 0) says."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binomtest

from dicelab.core.errors import DicelabError
from dicelab.core.game import GameState
from dicelab.pig import PigRules, new_game, solve, state_from_json


def random_game(rules: PigRules, seed: int, check_json: bool = True):
    s = new_game(rules, seed)
    rng = np.random.default_rng(10_000 + seed)
    events = []
    for _ in range(5_000):
        if s.is_over:
            break
        if check_json:
            again = state_from_json(json.loads(json.dumps(s.to_json())))
            assert [again.observe(p) for p in (0, 1)] == [s.observe(p) for p in (0, 1)]
            assert again.legal_actions() == s.legal_actions() and again.to_move() == s.to_move()
        legal = s.legal_actions()
        events += s.apply(legal[int(rng.integers(len(legal)))])
    return s, events


@pytest.mark.parametrize("rules", [PigRules(goal=20), PigRules(goal=15, variant="two-dice"),
                                   PigRules(goal=8, variant="piglet")], ids=str)
def test_random_games_end_and_round_trip(rules):
    for seed in range(12):
        s, _ = random_game(rules, seed)
        assert isinstance(s, GameState)
        assert s.is_over and s.to_move() == () and s.legal_actions() == []
        assert sorted(s.returns()) == [0.0, 1.0] and sum(s.returns()) == 1.0
        assert max(s.scores) >= rules.goal
        with pytest.raises(DicelabError, match="over"):
            s.apply("roll")


def test_same_seed_same_game_and_numpy_dice():
    rules = PigRules(goal=20)
    a, ev_a = random_game(rules, 5, check_json=False)
    b, ev_b = random_game(rules, 5, check_json=False)
    assert ev_a == ev_b and a.to_json() == b.to_json()
    # the standard die draws one integer 1..6 per roll from default_rng(seed), in order
    faces = [e["faces"][0] for e in ev_a if e.get("action") == "roll"]
    rng = np.random.default_rng(5)
    assert faces == [int(rng.integers(1, 7)) for _ in faces]
    # and the rules apply: a 1 busts, others add
    for e in ev_a:
        if e.get("action") == "roll":
            assert e["result"] in (("bust",) if e["faces"][0] == 1 else ("add", "win"))


@pytest.mark.parametrize("action", ["Roll", "call", {"roll": 1}, None, 1, ["hold"]])
def test_illegal_actions_are_one_line_errors(action):
    s = new_game(PigRules(goal=20), seed=0)
    with pytest.raises(DicelabError) as e:
        s.apply(action)
    assert "\n" not in str(e.value) and "legal" in str(e.value)
    assert s.history == [] and s.legal_actions(1) == []


def test_bad_stored_games_are_one_line_errors():
    for data in ({"rules": {"goal": 20}}, {"game": "hog", "rules": {}, "seed": 1, "history": []},
                 {"rules": {"goal": 0}, "seed": 1, "history": []},
                 {"rules": {"goal": 20}, "seed": 1, "history": ["jump"]}):
        with pytest.raises(DicelabError) as e:
            state_from_json(data)
        assert "\n" not in str(e.value)


def test_optimal_play_wins_as_the_solver_says():
    """Both seats follow the exact policy: seat 0's win rate is P(0, 0, 0) within a 99.9% test."""
    rules = PigRules(goal=20)
    sol = solve(rules)
    p = sol.win_probability(0, 0, 0)
    n, wins = 3000, 0
    for seed in range(n):
        s = new_game(rules, seed)
        g = s.engine
        while not s.is_over:
            i, j, k = g.scores[g.to_move], g.scores[1 - g.to_move], g.turn_total
            s.apply(sol.action(i, j, k))
        wins += s.returns()[0] == 1.0
    assert binomtest(wins, n, p).pvalue > 0.001, (wins / n, p)
