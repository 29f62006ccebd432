"""Pig for three or four players in the lab (issue 25, item 4): the state's rules, the bots, the
coach against the n-player solution queried independently, and the bots' play against the exact
evaluation of their profile."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dicelab.core import registry
from dicelab.core.errors import DicelabError
from dicelab.pig import PigRules, evaluate_profile, new_game, solve_n

ENTRY = registry.get("pig")


def test_a_turn_total_of_zero_must_roll_with_three_players():
    s = new_game(PigRules(goal=20, players=3), seed=3)
    assert s.legal_actions() == ["roll"] and s.returns() == (0.0, 0.0, 0.0)
    with pytest.raises(DicelabError, match="legal: 'roll'$"):
        s.apply("hold")
    with pytest.raises(DicelabError, match="seat must be from 0 to 2"):
        s.observe(3)
    two = new_game(PigRules(goal=20), seed=3)
    assert two.legal_actions() == ["roll", "hold"]  # two players: a hold at 0 is a skip


@pytest.mark.parametrize(("players", "goal"), [(4, 16)])  # three players: tests/web/test_web_npig.py
def test_coach_equals_the_solution_queried_independently(players, goal):
    rules = ENTRY.make_rules(goal=goal, players=players)
    play = ENTRY.play
    sol = solve_n(rules)  # a fresh solve, not the lab's cache
    rng = np.random.default_rng(players)
    state = ENTRY.new_game(rules, 11)
    checked = 0
    while not state.is_over and checked < 60:
        seat = state.to_move()[0]
        c = play.coach(state, seat)
        sc = state.scores
        mine = tuple(sc[(seat + r) % players] for r in range(players))
        k = state.observe(seat)["turn_total"]
        # rolling: bust hands the turn on, each other face adds (or wins)
        rot = sol.start_vector(mine[1:] + mine[:1])
        want_roll = (1 / 6) * rot[-1]
        for d in range(2, 7):
            want_roll += (1 / 6) * (1.0 if mine[0] + k + d >= goal else sol.win_probabilities(mine, k + d)[0])
        vals = {v["action"]: v["value"] for v in c["values"]}
        assert vals["roll"] == pytest.approx(want_roll, abs=1e-12)
        if k:
            after = mine[1:] + (mine[0] + k,)
            assert vals["hold"] == pytest.approx(sol.start_vector(after)[-1], abs=1e-12)
            assert c["best"] == ("roll" if vals["roll"] > vals["hold"] else "hold")
        else:
            assert set(vals) == {"roll"}
        assert math.fsum(c["chances"]) == pytest.approx(1.0, abs=1e-12)
        assert c["chances"][seat] == pytest.approx(max(vals.values()), abs=1e-12)
        checked += 1
        state.apply(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
    assert checked >= 15


def test_bots_play_their_profile_as_the_exact_evaluation_says():
    """1200 games of the lab's bots against evaluate_profile's exact win chances (4 sigma)."""
    rules = ENTRY.make_rules(goal=15, players=3)
    profile = ["optimal", "hold:6", "keep-pace"]
    exact = evaluate_profile(profile, rules).wins
    play = ENTRY.play
    bots = [play.bot(s, rules, seed=s_ + 1) for s_, s in enumerate(profile)]
    wins = np.zeros(3)
    games = 1200
    for g in range(games):
        state = ENTRY.new_game(rules, g)
        while not state.is_over:
            seat = state.to_move()[0]
            state.apply(bots[seat].act(state, seat))
        wins += state.returns()
    for s in range(3):
        sd = math.sqrt(exact[s] * (1 - exact[s]) / games)
        assert abs(wins[s] / games - exact[s]) < 4 * sd, (s, wins / games, exact)


def test_lab_bounds_and_specs_in_one_line():
    play = ENTRY.play
    with pytest.raises(DicelabError, match="players must be from 2 to 4, got 5"):
        ENTRY.make_rules(players=5)
    with pytest.raises(DicelabError, match="four players up to goal 40"):
        play.bot("optimal", ENTRY.make_rules(goal=60, players=4))
    r = ENTRY.make_rules(goal=20, players=3)
    with pytest.raises(DicelabError, match="unknown strategy 'best-response:hold:20' for 3 players; allowed"):
        play.bot("best-response:hold:20", r)
    with pytest.raises(DicelabError, match="two-dice Pig is for two players"):
        ENTRY.make_rules(players=3, variant="two-dice")
    assert [b.spec for b in play.bots(r)] == ["optimal", "hold:20", "keep-pace", "turtle"]
    assert [lv.spec for lv in play.levels(r)][-1] == "optimal"
    assert play.encode(ENTRY.new_game(r, 0), 1) == [0, 0, 0, 0, 0]
    assert play.observation_nvec(r) == [26, 26, 26, 20, 2]


def test_keep_pace_in_the_lab_is_the_evaluations_rule():
    from dicelab.pig.nevaluation import keep_pace_thresholds
    from dicelab.pig.nplay import keep_pace_threshold

    for players, goal in [(3, 30), (4, 13)]:
        thr = keep_pace_thresholds(PigRules(goal=goal, players=players))
        for idx in range(0, goal ** players, 7):
            c = tuple(int(x) for x in np.unravel_index(idx, (goal,) * players))
            assert keep_pace_threshold(c, goal) == thr[idx]


@pytest.mark.slow  # three players at goal 100: a 4 s solve on a cold cache
def test_at_a_mixed_choice_the_coach_names_no_best_and_the_bot_mixes():
    """The max-n solution's mixed choices (73 at three players, goal 100): rolling and holding are
    worth the same to the mover, so the coach says so and gives no advice; the optimal bot rolls
    with the solution's chance (3000 draws, 4 sigma)."""
    from dicelab.pig import state as pig_state

    rules = ENTRY.make_rules(players=3)
    play = ENTRY.play
    sol = solve_n(rules)
    assert len(sol.mixes) > 0
    g = rules.goal
    for n, (_, idx, k, p) in enumerate(sol.mixes):
        idx, k = int(idx), int(k)
        c = (idx // g // g, idx // g % g, idx % g)
        state = pig_state.PigState(rules, 0)
        state.engine.scores = list(c)  # seat 0 to move with these banked scores, turn total k
        state.engine.turn_total = k
        view = play.coach(state, 0)
        vals = {v["action"]: v["value"] for v in view["values"]}
        assert view["equal"] == ["roll", "hold"] and vals["roll"] == pytest.approx(vals["hold"], abs=1e-12)
        assert play.advice(state, 0, "roll") is None and play.advice(state, 0, "hold") is None
        if n == 0:
            bot = play.bot("optimal", rules, seed=7)
            draws = 3000
            rolls = sum(bot.act(state, 0) == "roll" for _ in range(draws))
            assert abs(rolls / draws - p) < 4 * math.sqrt(p * (1 - p) / draws), (rolls, p)
