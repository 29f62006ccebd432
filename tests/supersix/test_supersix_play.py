"""Super Six's Play: the coach against seed 001's published table, bots from the observation,
optimal self-play against seed 001's start-player chance."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from dicelab import supersix
from dicelab.core.errors import DicelabError

PLAY = supersix.PLAY
RULES = supersix.SuperSixRules(sticks=4)


def at(lid, own, opp, seat=0, forced=False):
    s = supersix.new_game(RULES, seed=0)
    s.pits = [n < lid for n in range(5)]
    s.counts = [own, opp] if seat == 0 else [opp, own]
    s.mover, s.forced, s.opening = seat, forced, False
    return s


# seed 001, Results table: lid/own/opp with P(win | must throw) and P(win) when free, and the choice
SEED = [(5, 1, 1, 0.4512917, 0.5487083, "stop"), (4, 2, 1, 0.3185117, 0.3415501, "stop"),
        (4, 1, 2, 0.6584499, 0.6814883, "stop"), (3, 1, 3, 0.7904670, 0.7904670, "throw")]


@pytest.mark.parametrize(("lid", "own", "opp", "p_throw", "p_best", "best"), SEED)
@pytest.mark.parametrize("seat", [0, 1])
def test_coach_matches_seed_001(lid, own, opp, p_throw, p_best, best, seat):
    c = PLAY.coach(at(lid, own, opp, seat), seat)
    v = {x["action"]: x["value"] for x in c["values"]}
    assert v["throw"] == pytest.approx(p_throw, abs=5e-8)
    assert max(v.values()) == pytest.approx(p_best, abs=5e-8)
    assert c["best"] == best
    bot = PLAY.bot("optimal", RULES)
    assert bot.act(at(lid, own, opp, seat), seat) == best
    assert PLAY.coach(at(lid, own, opp, seat, forced=True), seat) is None  # nothing to decide


def test_simple_bots_follow_their_rules():
    always, stop3 = PLAY.bot("always", RULES), PLAY.bot("stop-at:3", RULES)
    for lid in range(6):
        s = at(lid, 2, 2)
        assert always.act(s, 0) == "throw"
        assert stop3.act(s, 0) == ("throw" if lid < 3 else "stop")
        assert stop3.act(at(lid, 2, 2, forced=True), 0) == "throw"


def test_optimal_self_play_start_player_wins_as_seed_001_says():
    bot = PLAY.bot("optimal", RULES)
    n, wins = 1500, 0
    for seed in range(n):
        s = supersix.new_game(RULES, seed=seed)
        while not s.is_over:
            (p,) = s.to_move()
            s.apply(bot.act(s, p))
        wins += s.returns()[0] == 1.0
    assert binomtest(wins, n, 0.602).pvalue > 0.001, wins / n


def test_bad_specs_one_line():
    for spec in ("stop-at:9", "genius", None):
        with pytest.raises(DicelabError, match="allowed"):
            PLAY.bot(spec, RULES)
