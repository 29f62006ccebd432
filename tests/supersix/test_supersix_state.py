"""Super Six through the one state interface: seeded random games end and round-trip through JSON
at every step, forced throws are the only legal action, the dice are numpy's draws for the seed,
the state and the engine's own ``play`` loop give the same game, and optimal play for both seats
wins for the start player as often as seed 001 says (0.602 at 4 sticks)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binomtest

from dicelab.core.errors import DicelabError
from dicelab.core.game import GameState
from dicelab.supersix import SuperSixRules, new_game, state_from_json
from dicelab.supersix.rules import SuperSixGame
from dicelab.supersix.solver import solve_two


def random_game(rules: SuperSixRules, seed: int, check_json: bool = True):
    s = new_game(rules, seed)
    rng = np.random.default_rng(10_000 + seed)
    events = []
    seats = range(rules.players)
    for _ in range(20_000):
        if s.is_over:
            break
        if check_json:
            again = state_from_json(json.loads(json.dumps(s.to_json())))
            assert [again.observe(p) for p in seats] == [s.observe(p) for p in seats]
            assert again.legal_actions() == s.legal_actions() and again.to_move() == s.to_move()
        legal = s.legal_actions()
        assert legal == (["throw"] if s.forced else ["throw", "stop"])
        events += s.apply(legal[int(rng.integers(len(legal)))])
    return s, events


@pytest.mark.parametrize("rules", [SuperSixRules(sticks=4), SuperSixRules(sticks=2, players=3),
                                   SuperSixRules(sticks=1)], ids=str)
def test_random_games_end_and_round_trip(rules):
    for seed in range(10):
        s, events = random_game(rules, seed)
        assert isinstance(s, GameState)
        assert s.is_over and s.to_move() == () and s.legal_actions() == []
        assert sum(s.returns()) == 1.0 and s.returns()[s.winner] == 1.0
        assert s.counts[s.winner] == 0 and events[-1] == {"winner": s.winner}
        throws = [e for e in events if e.get("action") == "throw"]
        # round 1: every seat throws once in order (unless someone wins in it)
        opening = [e["seat"] for e in throws[: rules.players]]
        assert opening == list(range(len(opening)))
        # the sticks are conserved: in hand + in the lid + in the hole
        for e in throws:
            assert 0 <= e["lid"] <= 5 and sum(e["counts"]) + e["lid"] <= rules.total
        with pytest.raises(DicelabError, match="over"):
            s.apply("throw")


def test_same_seed_same_game_and_numpy_dice():
    rules = SuperSixRules(sticks=4)
    a, ev_a = random_game(rules, 7, check_json=False)
    b, ev_b = random_game(rules, 7, check_json=False)
    assert ev_a == ev_b and a.to_json() == b.to_json()
    dice = [e["die"] for e in ev_a if e.get("action") == "throw"]
    rng = np.random.default_rng(7)
    drawn = np.concatenate([rng.integers(1, 7, size=256) for _ in range(len(dice) // 256 + 1)])
    assert dice == [int(d) for d in drawn[: len(dice)]]


@pytest.mark.parametrize("players", [2, 3])
def test_the_state_and_the_engine_play_the_same_game(players):
    """The engine's own loop (``SuperSixGame.play``) with the same rule and seed: same throws."""
    rules = SuperSixRules(sticks=3, players=players)

    def decide(lid: int, own: int, others: tuple[int, ...]) -> bool:
        return lid < 2

    for seed in range(20):
        engine = SuperSixGame(rules, [decide] * players, np.random.default_rng(seed), record=True)
        winner = engine.play()
        s = new_game(rules, seed)
        while not s.is_over:
            others = tuple(s.counts[(s.mover + m) % players] for m in range(1, players))
            s.apply("throw" if s.forced or decide(s.lid, s.counts[s.mover], others) else "stop")
        assert s.winner == winner
        assert s.engine.moves == engine.moves


@pytest.mark.parametrize("action", ["stop", "Throw", None, {"throw": 1}, 0])
def test_illegal_actions_are_one_line_errors(action):
    s = new_game(SuperSixRules(), seed=0)
    with pytest.raises(DicelabError) as e:
        s.apply(action)
    assert "\n" not in str(e.value) and "legal" in str(e.value)
    assert s.history == [] and s.legal_actions(1) == []


def test_bad_stored_games_are_one_line_errors():
    for data in ({"rules": {}}, {"game": "pig", "rules": {}, "seed": 1, "history": []},
                 {"rules": {"sticks": 0}, "seed": 1, "history": []},
                 {"rules": {}, "seed": -1, "history": []},
                 {"rules": {}, "seed": 1, "history": ["stop"]}):
        with pytest.raises(DicelabError) as e:
            state_from_json(data)
        assert "\n" not in str(e.value)


def test_optimal_play_wins_as_seed_001_says():
    rules = SuperSixRules(sticks=4)
    sol = solve_two(rules)
    p = sol.start_player_win()
    assert round(p, 3) == 0.602  # seed 001
    n, wins = 3000, 0
    for seed in range(n):
        s = new_game(rules, seed)
        while not s.is_over:
            me = s.mover
            s.apply(sol.action(s.lid, s.counts[me], s.counts[1 - me], s.forced))
        wins += s.winner == 0
    assert binomtest(wins, n, p).pvalue > 0.001, (wins / n, p)
    assert binomtest(wins, n, 0.602).pvalue > 0.001, (wins / n, 0.602)
