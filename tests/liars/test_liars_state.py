"""Liar's Dice through the one state interface: seeded random games end with one winner and
round-trip through JSON at every step, a seat never sees another seat's live hand (checked
against the true hands, and by re-dealing the others' dice), the hands are numpy's draws for the
seed, the record replays through the engine's own checker, and illegal actions are one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.core.game import GameState
from dicelab.liars import LiarsRules, new_game, state_from_json
from dicelab.liars.rules import GameRecord, replay


def hidden_info_holds(s) -> None:
    """No observation shows another seat's live hand, or changes when the others' dice change."""
    n = s.rules.players
    true_hands = [list(h) for h in s.engine.hands]
    calls = sum(a == "call" for a in s.history)
    for seat in range(n):
        obs = s.observe(seat)
        assert obs["hand"] == true_hands[seat] and len(obs["rounds"]) == calls
        live = {k: v for k, v in obs.items() if k != "rounds"}  # rounds: called, so shown
        assert "hands" not in json.dumps(live)
        # re-deal every other seat's dice (each die moved to the next face): this view must not move
        other = state_from_json(s.to_json())
        f = s.rules.faces
        other.engine.hands = tuple(h if p == seat else tuple(sorted(d % f + 1 for d in h))
                                   for p, h in enumerate(other.engine.hands))
        assert other.observe(seat) == obs


def random_game(rules: LiarsRules, seed: int, check: bool = True):
    s = new_game(rules, seed)
    rng = np.random.default_rng(10_000 + seed)
    seats = range(rules.players)
    events = []
    for _ in range(10_000):
        if s.is_over:
            break
        if check:
            again = state_from_json(json.loads(json.dumps(s.to_json())))
            assert [again.observe(p) for p in seats] == [s.observe(p) for p in seats]
            assert again.legal_actions() == s.legal_actions() and again.to_move() == s.to_move()
            hidden_info_holds(s)
        legal = s.legal_actions()
        # favour calls a little so rounds stay short
        action = "call" if "call" in legal and rng.random() < 0.3 else legal[int(rng.integers(len(legal)))]
        events += s.apply(action)
    return s, events


@pytest.mark.parametrize("rules", [LiarsRules(players=2, dice=2, faces=4),
                                   LiarsRules(players=3, dice=2, faces=6, wild="ones"),
                                   LiarsRules(players=4, dice=1, faces=6, wild="highest")], ids=str)
def test_random_games_end_and_round_trip(rules):
    for seed in range(8):
        s, events = random_game(rules, seed)
        assert isinstance(s, GameState)
        assert s.is_over and s.to_move() == () and s.legal_actions() == []
        assert sum(s.returns()) == 1.0 and s.returns()[s.engine.winner] == 1.0
        assert [s.engine.dice_counts[p] > 0 for p in range(rules.players)] == [
            r == 1.0 for r in s.returns()]
        # every call costs one die, so the calls are the dice gone from the table
        calls = [e for e in events if e.get("action") == "call"]
        assert len(calls) == rules.total_dice - s.engine.dice_counts[s.engine.winner]
        for c in calls:  # the caller loses iff the bid held, counted here from the shown hands
            q, f = c["bid"]
            held = sum(1 for h in c["hands"] for d in h
                       if d == f or (rules.wild_face and d == rules.wild_face)) >= q
            assert c["loser"] == (c["seat"] if held else c["bidder"])
        assert events[-1] == {"winner": s.engine.winner}
        with pytest.raises(DicelabError, match="over"):
            s.apply("call")


def test_same_seed_same_game_numpy_dice_and_the_engine_replays_it():
    rules = LiarsRules(players=3, dice=3, faces=6)
    a, ev_a = random_game(rules, 4, check=False)
    b, ev_b = random_game(rules, 4, check=False)
    assert ev_a == ev_b and a.to_json() == b.to_json()
    # round 1's hands: seat by seat, `dice` integers 1..faces from default_rng(seed), sorted
    rng = np.random.default_rng(4)
    first = [sorted(int(x) for x in rng.integers(1, 7, size=3)) for _ in range(3)]
    assert next(e for e in ev_a if e.get("action") == "call")["hands"] == first
    # the engine's own replay checker re-deals every round from the seed and agrees
    record = GameRecord(rules, 4, list(a.engine.record.rounds), a.engine.winner)
    assert replay(record).winner == a.engine.winner


@pytest.mark.parametrize("action", [
    {"bid": [0, 3]}, {"bid": [2, 7]}, {"bid": [5, 2]}, {"bid": [1, True]}, {"bid": "1x2"},
    {"bid": [1, 2, 3]}, {"bid": [1, 2], "x": 1}, "call", "Call", None, [1, 2],
])
def test_illegal_actions_are_one_line_errors(action):
    s = new_game(LiarsRules(players=2, dice=2, faces=6), seed=0)
    with pytest.raises(DicelabError) as e:
        s.apply(action)
    assert "\n" not in str(e.value) and "legal" in str(e.value)
    assert s.history == []
    s.apply({"bid": [2, 3]})
    with pytest.raises(DicelabError, match="raising 2x3"):
        s.apply({"bid": [1, 6]})
    assert s.legal_actions(0) == [] and s.legal_actions(1)[-1] == "call"


def test_bad_stored_games_are_one_line_errors():
    for data in ({"rules": {}}, {"game": "pig", "rules": {}, "seed": 1, "history": []},
                 {"rules": {"players": 9}, "seed": 1, "history": []},
                 {"rules": {}, "seed": None, "history": []},
                 {"rules": {}, "seed": 1, "history": ["call"]}):
        with pytest.raises(DicelabError) as e:
            state_from_json(data)
        assert "\n" not in str(e.value)
