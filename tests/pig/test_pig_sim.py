"""Monte Carlo of Pig games: agreement with exact values, reproducibility, stalemates, records."""

from __future__ import annotations

import numba
import numpy as np
import pyarrow.parquet as pq
import pytest

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigRules
from dicelab.core import stats as st
from dicelab.pig.simulation import BATCH, _atoms, batch_states, fair_test, simulate
from dicelab.pig import evaluate


@pytest.mark.parametrize("variant", ["standard", "piglet", "two-dice"])
def test_atoms_match_the_rules(variant):
    """Law: the equally likely atoms of one roll give the rules' outcome distribution."""
    rules = PigRules(goal=30, variant=variant)
    gain, kind = _atoms(rules)
    o = rules.outcomes
    n = len(gain)
    assert np.sum(kind == 1) / n == pytest.approx(o.bust, abs=1e-15)
    assert np.sum(kind == 2) / n == pytest.approx(o.reset, abs=1e-15)
    for d, p in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
        assert np.sum((kind == 0) & (gain == d)) / n == pytest.approx(p, abs=1e-15)


def test_simulation_agrees_with_figure_17_value():
    # hold:20 v hold:21 at goal 100: exact overall 0.508394 (seed 002 Fig. 17: 0.5084)
    r = simulate("hold:20", "hold:21", PigRules(), games=400_000, seed=7, confidence=0.99)
    assert r.a_wins + r.b_wins + r.stalemates == r.games
    assert r.stalemates == 0
    # the seed's general column, (0.5426 + 1 - 0.5258) / 2 from two rounded figures (see
    # test_pig_eval): the exact value and the simulation's interval both agree with it
    assert r.exact_a_overall == pytest.approx(0.5084, abs=1.2e-4)
    assert r.ci_low <= 0.5084 <= r.ci_high
    assert r.ci_low <= r.exact_a_overall <= r.ci_high and r.inside


@pytest.mark.parametrize(
    ("variant", "goal", "a", "b"),
    [
        ("piglet", 10, "hold:3", "keep-pace"),
        ("two-dice", 50, "optimal", "hold:20"),
        ("standard", 30, "turtle", "roll-to-win"),
    ],
)
def test_simulation_inside_exact_interval_every_variant(variant, goal, a, b):
    rules = PigRules(goal=goal, variant=variant)
    r = simulate(a, b, rules, games=100_000, seed=11, confidence=0.999)
    assert r.inside, (r.a_overall, r.exact_a_overall, r.ci_low, r.ci_high)
    # A's wins when moving first, against the exact first-move value
    e = evaluate(a, b, rules)
    lo, hi = st.wilson_interval(r.a_wins_a_first, r.a_first_games, 0.999)
    assert lo <= e.a_first <= hi


def test_same_seed_same_result_whatever_the_threads():
    rules = PigRules(goal=40)
    games = 3 * BATCH + 123
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate("hold:12", "keep-pace", rules, games=games, seed=5, exact=False)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = simulate("hold:12", "keep-pace", rules, games=games, seed=5, exact=False)
    finally:
        numba.set_num_threads(before)
    assert (one.a_wins, one.b_wins, one.a_wins_a_first) == (
        many.a_wins,
        many.b_wins,
        many.a_wins_a_first,
    )
    other = simulate("hold:12", "keep-pace", rules, games=games, seed=6, exact=False)
    assert other.a_wins != one.a_wins


def test_batch_states_follow_seedsequence_spawn():
    s = batch_states(9, 2 * BATCH + 1)
    assert s.shape == (3, 4)
    child = np.random.SeedSequence(9).spawn(3)[2]
    assert np.array_equal(s[2], child.generate_state(4, np.uint64))


def _skip_on_equal(i, j, k):
    if i == j and i > 0 and k == 0:
        return False
    return k < 10


def test_stalemates_are_detected_and_counted():
    rules = PigRules(goal=30)
    e = evaluate(_skip_on_equal, _skip_on_equal, rules)
    r = simulate(_skip_on_equal, _skip_on_equal, rules, games=100_000, seed=3)
    assert e.stalemate_overall > 0.01
    lo, hi = st.wilson_interval(r.stalemates, r.games, 0.999)
    assert lo <= e.stalemate_overall <= hi
    assert r.inside
    never = simulate("hold:0", "hold:0", rules, games=1000, seed=1)
    assert never.stalemates == 1000 and never.a_wins == 0


def test_records_parquet(tmp_path):
    rules = PigRules(goal=30)
    path = tmp_path / "turns.parquet"
    r = simulate("hold:8", "keep-pace", rules, games=2000, seed=2, records=path)
    plain = simulate("hold:8", "keep-pace", rules, games=2000, seed=2)
    assert (r.a_wins, r.b_wins) == (plain.a_wins, plain.b_wins)  # recording plays the same games
    t = pq.read_table(path).to_pydict()
    assert set(t) == {
        "game",
        "turn",
        "player",
        "score",
        "opponent_score",
        "turn_total",
        "rolls",
        "action",
    }
    actions = t["action"]
    assert actions.count("win") == r.a_wins + r.b_wins
    wins_a = sum(1 for a, p in zip(actions, t["player"], strict=True) if a == "win" and p == 0)
    assert wins_a == r.a_wins
    # every game starts at 0-0 with the alternating first player, and hold:8 banks 8..13
    firsts = [(g, p) for g, tn, p in zip(t["game"], t["turn"], t["player"], strict=True) if tn == 0]
    assert len(firsts) == 2000 and all(p == g % 2 for g, p in firsts)
    for a, p, tt in zip(actions, t["player"], t["turn_total"], strict=True):
        if a == "hold" and p == 0:
            assert 8 <= tt <= 13


def test_bad_input():
    with pytest.raises(DicelabError):
        simulate("hold:2", "hold:3", PigRules(goal=10), games=0)
    with pytest.raises(DicelabError):
        simulate("hold:2", "hold:3", PigRules(goal=10), games=10, seed=-1)


def test_fair_test_report_like_figure_17():
    rows = fair_test(rules=PigRules(), games=3000, seed=0)
    assert [(r["a"], r["b"]) for r in rows][:2] == [("hold:20", "hold:21"), ("hold:15", "hold:20")]
    assert len(rows) == 10
    for r in rows:
        # law: a 95% Wilson interval of 3,000 games is narrower than 1.96 / sqrt(3000)
        assert 0 < r["ci_high"] - r["ci_low"] < 1.96 / np.sqrt(3000)
        assert r["inside"] == (r["ci_low"] <= r["a_overall"] <= r["ci_high"])
        assert r["deviation"] == pytest.approx(abs(r["sim_a_overall"] - r["a_overall"]), abs=1e-15)
    assert rows[0]["a_first"] == pytest.approx(0.5426, abs=5e-5)
    # at 95% each pair misses with probability ~5%; 10 pairs missing 4 or more is ~1e-3 unlikely
    assert sum(r["inside"] for r in rows) >= 7
