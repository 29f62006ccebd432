"""Simultaneous Pig through the one state interface: every seat moves at once, seeded random games
end with the shares law and round-trip through JSON at every step, the dice are numpy's draws for
the seed, the totals agree with the engine (``SimPigGame``), the bust rate of a target matches an
exact enumeration in fractions, and illegal moves are one-line errors."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from scipy.stats import binomtest

from dicelab.core.errors import DicelabError
from dicelab.core.game import GameState
from dicelab.simpig import SimPigRules, new_game, state_from_json
from dicelab.simpig.rules import SimPigGame


def move(targets):
    return {str(p): {"target": k} for p, k in enumerate(targets)}


def random_game(rules: SimPigRules, seed: int, check_json: bool = True):
    s = new_game(rules, seed)
    rng = np.random.default_rng(10_000 + seed)
    seats = range(rules.players)
    events, targets = [], []
    for _ in range(5_000):
        if s.is_over:
            break
        assert s.to_move() == tuple(seats)
        if check_json:
            again = state_from_json(json.loads(json.dumps(s.to_json())))
            assert [again.observe(p) for p in seats] == [s.observe(p) for p in seats]
            assert [again.legal_actions(p) for p in seats] == [s.legal_actions(p) for p in seats]
        pick = []
        for p in seats:
            legal = s.legal_actions(p)
            assert legal == [{"target": k} for k in range(1, rules.goal - s.scores[p] + 1)]
            pick.append(legal[int(rng.integers(len(legal)))]["target"])
        targets.append(pick)
        events += s.apply(move(pick))
    return s, events, targets


@pytest.mark.parametrize("rules", [SimPigRules(goal=20), SimPigRules(goal=12, players=3),
                                   SimPigRules(goal=6, players=4)], ids=str)
def test_random_games_end_with_shared_wins_and_round_trip(rules):
    ties = 0
    for seed in range(15):
        s, events, _ = random_game(rules, seed)
        assert isinstance(s, GameState)
        assert s.is_over and s.to_move() == () and s.legal_actions() == []
        winners = [p for p in range(rules.players) if s.scores[p] >= rules.goal]
        m = len(winners)
        assert m >= 1 and events[-1] == {"shares": list(s.returns())}
        # the shares law: each seat at the goal gets 1/m, the others 0, summing to 1
        assert [Fraction(r).limit_denominator(100) for r in s.returns()] == [
            Fraction(1, m) if p in winners else 0 for p in range(rules.players)]
        assert sum(s.returns()) == pytest.approx(1.0, abs=1e-12)
        ties += m > 1
        for e in events:
            if "faces" in e:  # a turn ends at the target or on the first 1
                f = e["faces"]
                assert e["total"] == (0 if f[-1] == 1 else sum(f))
                assert 1 not in f[:-1] and sum(f[:-1]) < e["target"]
                assert f[-1] == 1 or sum(f) >= e["target"]
        with pytest.raises(DicelabError, match="over"):
            s.apply(move([1] * rules.players))
    if rules.goal == 6:
        assert ties > 0  # small goals tie often: the shares are exercised


def test_same_seed_same_game_numpy_dice_and_the_engine_agrees():
    rules = SimPigRules(goal=30, players=3)
    for seed in range(5):
        a, ev_a, targets = random_game(rules, seed, check_json=False)
        b, ev_b, _ = random_game(rules, seed, check_json=False)
        assert ev_a == ev_b and a.to_json() == b.to_json()
        faces = [f for e in ev_a if "faces" in e for f in e["faces"]]
        rng = np.random.default_rng(seed)
        assert faces == [int(rng.integers(1, 7)) for _ in faces]
        # the engine, fed the same targets and a generator with the same seed, rolls the same totals
        engine, rng = SimPigGame(rules), np.random.default_rng(seed)
        totals = [engine.play_turn(t, rng) for t in targets]
        rolled = [e["total"] for e in ev_a if "faces" in e]
        assert totals == [rolled[i:i + 3] for i in range(0, len(rolled), 3)]
        assert engine.scores == a.scores and engine.result == a.result


@cache
def p_bust(total: int, k: int) -> Fraction:
    """P(a 1 comes up before the turn total reaches k), by enumerating the die."""
    if total >= k:
        return Fraction(0)
    return Fraction(1, 6) + sum(Fraction(1, 6) * p_bust(total + f, k) for f in range(2, 7))


def test_bust_rate_matches_exact_enumeration():
    k, n, busts = 12, 2000, 0
    for seed in range(n):
        s = new_game(SimPigRules(goal=40), seed)
        events = s.apply(move([k, k]))
        busts += sum(e["total"] == 0 for e in events[:2])
    p = p_bust(0, k)
    assert binomtest(busts, 2 * n, float(p)).pvalue > 0.001, (busts / (2 * n), float(p))


@pytest.mark.parametrize("action", [
    {"0": {"target": 5}},                                 # a seat missing
    {"0": {"target": 5}, "1": {"target": 0}},             # below 1
    {"0": {"target": 21}, "1": {"target": 5}},            # above goal - score
    {"0": {"target": 5}, "1": {"target": True}},
    {0: {"target": 5}, 1: {"target": 5}},                 # seats must be strings (JSON keys)
    {"0": {"target": 5}, "1": {"target": 5}, "2": {"target": 5}},
    {"0": 5, "1": 5}, "roll", None, [5, 5],
])
def test_illegal_moves_are_one_line_errors(action):
    s = new_game(SimPigRules(goal=20), seed=0)
    with pytest.raises(DicelabError) as e:
        s.apply(action)
    assert "\n" not in str(e.value) and "legal" in str(e.value)
    assert s.history == [] and s.scores == [0, 0]


def test_seat_errors_and_bad_stored_games():
    s = new_game(SimPigRules(goal=20), seed=0)
    for call in (lambda: s.legal_actions(), lambda: s.legal_actions(2), lambda: s.observe(-1)):
        with pytest.raises(DicelabError) as e:
            call()
        assert "\n" not in str(e.value)
    for data in ({"rules": {}}, {"game": "pig", "rules": {}, "seed": 1, "history": []},
                 {"rules": {"players": 1}, "seed": 1, "history": []},
                 {"rules": {"goal": 20}, "seed": 1, "history": [[25, 1]]},
                 {"rules": {"goal": 20}, "seed": 1, "history": [3]}):
        with pytest.raises(DicelabError) as e:
            state_from_json(data)
        assert "\n" not in str(e.value)
