"""Simultaneous Pig's Play: the coach against the paper's best-response value and the game's
symmetry, bots that follow their rules from the observation only, reproducible mixed bots."""

from __future__ import annotations

import pytest

from dicelab import simpig
from dicelab.core.errors import DicelabError

PLAY = simpig.PLAY


def test_coach_best_value_is_the_papers_best_response_to_hold_25():
    s = simpig.new_game(simpig.SimPigRules(goal=100, players=2), seed=0)
    c = PLAY.coach(s, 0, against="hold:25")
    vals = [v["value"] for v in c["values"]]
    assert len(vals) == 100 and c["values"][0]["action"] == {"target": 1}
    assert round(max(vals), 4) == 0.5231  # seed 000: the best response to hold at 25 wins 52.31%
    assert c["best"] == {"target": vals.index(max(vals)) + 1}


def test_coach_against_the_equilibrium_is_worth_one_half_at_the_start():
    # a symmetric two-player zero-sum game: its value from the start is 1/2 for either seat
    s = simpig.new_game(simpig.SimPigRules(goal=30, players=2), seed=0)
    for seat in (0, 1):
        vals = [v["value"] for v in PLAY.coach(s, seat)["values"]]
        assert max(vals) == pytest.approx(0.5, abs=1e-6)
    assert PLAY.coach(simpig.new_game(simpig.SimPigRules(goal=30, players=3), seed=0), 0) is None


def test_hold_bot_targets_and_mixed_bot_reproducible():
    rules = simpig.SimPigRules(goal=40, players=3)
    s = simpig.new_game(rules, seed=5)
    bot = PLAY.bot("hold:25", rules)
    while not s.is_over:
        obs = s.observe(1)
        assert bot.act(s, 1) == {"target": min(25, 40 - obs["scores"][1])}
        s.apply({str(p): bot.act(s, p) for p in s.to_move()})
    r2 = simpig.SimPigRules(goal=30, players=2)
    st = simpig.new_game(r2, seed=1)
    a = [PLAY.bot("equilibrium", r2, seed=9).act(st, 0) for _ in range(3)]
    assert a[0] == a[1] == a[2]
    assert all(1 <= x["target"] <= 30 for x in a)


def test_bad_specs_one_line():
    rules = simpig.SimPigRules(goal=30, players=2)
    for spec in ("table:/etc/passwd", "genius", "hold:" + "9" * 50):
        with pytest.raises(DicelabError, match="allowed") as e:
            PLAY.bot(spec, rules)
        assert "\n" not in str(e.value)
