"""Hog through the one state interface: legal actions, the scoring rule on every roll, a full
seeded game, the JSON round trip and one-line errors for illegal actions."""

from __future__ import annotations

import json

import pytest

from dicelab.core.errors import DicelabError
from dicelab.core.game import GameState
from dicelab.hog import HogRules, new_game, solve, state_from_json


def play(seed: int, rules: HogRules) -> tuple:
    sol = solve(rules)
    s = new_game(rules, seed)
    events = []
    while not s.is_over:
        (seat,) = s.to_move()
        me, opp = s.scores[seat], s.scores[1 - seat]
        events += s.apply({"dice": sol.best_dice(me, opp)})
    return s, events


def test_a_game_follows_the_rules():
    rules = HogRules(goal=40)
    s, events = play(3, rules)
    assert isinstance(s, GameState)
    rolls = [e for e in events if "faces" in e]
    for e in rolls:
        assert len(e["faces"]) == e["dice"] and all(1 <= f <= 6 for f in e["faces"])
        assert e["points"] == (0 if 1 in e["faces"] else sum(e["faces"]))
    assert [e["seat"] for e in rolls[:4]] == [0, 1, 0, 1][: len(rolls[:4])]
    assert events[-1] == {"winner": s.winner} and max(s.scores) >= 40
    assert sorted(s.returns()) == [0.0, 1.0] and s.to_move() == () and s.legal_actions() == []


def test_json_round_trip_replays_the_game():
    rules = HogRules(goal=40)
    s, _ = play(8, rules)
    again = state_from_json(json.loads(json.dumps(s.to_json())))
    assert again.scores == s.scores and again.winner == s.winner and again.history == s.history


def test_observe_and_legal_actions():
    s = new_game(HogRules(goal=20, max_dice=3), seed=0)
    assert s.legal_actions() == [{"dice": 1}, {"dice": 2}, {"dice": 3}]
    assert s.legal_actions(1) == []
    view = s.observe(1)
    assert view["scores"] == [0, 0] and view["to_move"] == [0]


@pytest.mark.parametrize("action", [{"dice": 0}, {"dice": 4}, "roll", {"dice": "2"}, {"dice": True},
                                    {"dice": 2, "x": 1}, None])
def test_illegal_actions_are_one_line_errors(action):
    s = new_game(HogRules(goal=20, max_dice=3), seed=0)
    with pytest.raises(DicelabError) as e:
        s.apply(action)
    assert "\n" not in str(e.value) and "legal" in str(e.value)
