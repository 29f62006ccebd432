"""Liar's Dice rules and engine: bid legality, counting with wilds, rounds, games and replay."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from dicelab.core.errors import DicelabError
from dicelab.liars.rules import Bid, LiarsGame, LiarsRules, play_game, replay
from dicelab.liars.strategies import action_distribution, probabilistic_bot, random_bot


@pytest.mark.parametrize(
    "kwargs",
    [{"players": 1}, {"players": 9}, {"dice": 0}, {"faces": 1}, {"faces": 21}, {"wild": "sixes"}, {"dice": 2.5}],
)
def test_bad_rules_are_one_line_errors(kwargs):
    with pytest.raises(DicelabError) as exc:
        LiarsRules(**kwargs)
    assert "\n" not in str(exc.value) and str(exc.value)


def test_bid_order_is_openspiel_reset_face():
    # OpenSpiel liars_dice.cc: bid id 0 = 1-1, 5 = 1-6, 6 = 2-1, 11 = 2-6
    assert [Bid(1, 1).rank(6), Bid(1, 6).rank(6), Bid(2, 1).rank(6), Bid(2, 6).rank(6)] == [0, 5, 6, 11]
    assert all(Bid.from_rank(r, 6).rank(6) == r for r in range(24))
    assert Bid(2, 1).beats(Bid(1, 6))  # higher quantity, any face
    assert Bid(1, 6).beats(Bid(1, 5))  # same quantity, higher face
    assert not Bid(1, 5).beats(Bid(1, 5))
    assert not Bid(1, 4).beats(Bid(1, 5))
    assert not Bid(1, 6).beats(Bid(2, 1))
    assert Bid(1, 1).beats(None)
    assert Bid.parse("3x5") == Bid(3, 5) == Bid.parse(" 3 5 ") == Bid.parse("3,5")
    with pytest.raises(DicelabError):
        Bid.parse("three fives")
    with pytest.raises(DicelabError):
        Bid(0, 3)


def test_check_bid_rejects_illegal_bids():
    r = LiarsRules(players=2, dice=2)
    r.check_bid(Bid(4, 6), Bid(4, 5), 4)
    for bid, prev, msg in [
        (Bid(5, 1), None, "at most the 4 dice"),
        (Bid(1, 7), None, "face must be from 1 to 6"),
        (Bid(2, 3), Bid(2, 3), "does not raise"),
        (Bid(1, 6), Bid(2, 1), "does not raise"),
    ]:
        with pytest.raises(DicelabError, match=msg):
            r.check_bid(bid, prev, 4)


def test_counting_with_wilds():
    hand = (1, 1, 3, 6)
    none, ones, high = LiarsRules(), LiarsRules(wild="ones"), LiarsRules(wild="highest")
    assert none.count(hand, 3) == 1 and ones.count(hand, 3) == 3 and high.count(hand, 3) == 2
    assert ones.count(hand, 1) == 2  # a bid on ones counts only the ones
    assert high.count(hand, 6) == 1  # a bid on the wild face counts only that face
    assert none.match_probability(3) == pytest.approx(1 / 6)
    assert ones.match_probability(3) == pytest.approx(2 / 6) and ones.match_probability(1) == pytest.approx(1 / 6)
    assert high.match_probability(6) == pytest.approx(1 / 6)


@pytest.mark.parametrize("needed,unseen,wild", [(0, 5, "none"), (3, 18, "none"), (4, 18, "ones"), (7, 6, "none")])
def test_prob_at_least_is_the_binomial_tail(needed, unseen, wild):
    r = LiarsRules(wild=wild)
    p = r.match_probability(3)
    expected = 1.0 if needed <= 0 else float(stats.binom.sf(needed - 1, unseen, p))
    assert r.prob_at_least(needed, unseen, 3) == pytest.approx(expected, abs=1e-12)


def test_hand_checked_rounds():
    g = LiarsGame(LiarsRules(players=3, dice=2), seed=0)
    g.hands = ((2, 3), (3, 3), (5, 6))  # fix the dice for a hand-checked round
    with pytest.raises(DicelabError, match="before anybody has bid"):
        g.call()
    g.bid(Bid(2, 3), player=0)
    with pytest.raises(DicelabError, match="player 1's turn"):
        g.bid(Bid(3, 3), player=2)
    with pytest.raises(DicelabError, match="does not raise"):
        g.bid(Bid(2, 2))
    with pytest.raises(DicelabError, match="at most the 6 dice"):
        g.bid(Bid(7, 1))
    g.bid(Bid(3, 3), player=1)
    rec = g.call(player=2)  # three 3s are on the table: the bid holds, the caller loses a die
    assert (rec.matched, rec.loser, rec.caller, rec.bidder) == (3, 2, 2, 1)
    assert g.dice_counts == [2, 2, 1] and g.to_move == 2  # the loser opens the next round
    assert [len(h) for h in g.hands] == [2, 2, 1]
    g.hands = ((1, 1), (2, 4), (4,))
    g.bid(Bid(2, 4), player=2)
    rec = g.call(player=0)  # only two 4s are needed and there are two: player 0 loses
    assert (rec.matched, rec.loser) == (2, 0)
    g.hands = ((1,), (2, 4), (4,))
    g.bid(Bid(1, 5), player=0)
    rec = g.call(player=1)  # no five: the bidder (player 0) loses its last die and is out
    assert rec.loser == 0 and g.dice_counts == [0, 2, 1]
    assert g.to_move == 1  # the next player with dice after the eliminated loser opens
    assert g.hands[0] == ()


def test_wild_round():
    g = LiarsGame(LiarsRules(players=2, dice=2, wild="ones"), seed=0)
    g.hands = ((1, 5), (1, 2))
    g.bid(Bid(3, 5))
    rec = g.call()  # 5 + two wild ones = 3 fives
    assert rec.matched == 3 and rec.loser == 1


def test_full_game_invariants_and_replay():
    rules = LiarsRules(players=4, dice=3)
    rec = play_game(rules, [random_bot, probabilistic_bot, random_bot, probabilistic_bot], seed=11)
    counts = [3] * 4
    for r in rec.rounds:
        assert r.matched == sum(rules.count(h, r.bid.face) for h in r.hands)
        assert r.loser == (r.caller if r.matched >= r.bid.quantity else r.bidder)
        assert [len(h) for h in r.hands] == counts
        counts[r.loser] -= 1
        bids = [a.bid for a in r.actions if a.bid is not None]
        assert all(b.beats(a) for a, b in zip(bids, bids[1:]))
        assert r.actions[-1].is_call
    assert sum(c > 0 for c in counts) == 1 and counts[rec.winner] > 0
    assert len(rec.rounds) == 12 - counts[rec.winner]
    again = play_game(rules, [random_bot, probabilistic_bot, random_bot, probabilistic_bot], seed=11)
    assert again.to_dict() == rec.to_dict()  # same seed, same game
    assert replay(rec).winner == rec.winner
    bad = replace(rec.rounds[0], loser=(rec.rounds[0].loser + 1) % 4)
    rec.rounds[0] = bad
    with pytest.raises(DicelabError, match="different outcome"):
        replay(rec)


def test_illegal_move_by_a_policy_is_an_error():
    def cheat(view, rng):
        return Bid(1, 1)  # repeats the opening bid after it is made

    with pytest.raises(DicelabError, match="player 1 made an illegal move"):
        play_game(LiarsRules(players=2, dice=1), [cheat, cheat], seed=0)


def test_bot_distributions():
    g = LiarsGame(LiarsRules(players=3, dice=2), seed=0)
    g.hands = ((3, 3), (2, 5), (6, 6))
    view = g.view(0)
    d = action_distribution("random", view)
    assert None not in d and math.isclose(sum(d.values()), 1.0)  # no call before the first bid
    g.bid(Bid(2, 3), player=0)
    v1 = g.view(1)
    d = action_distribution("probabilistic", v1)
    # player 1 holds no 3: P(at least two 3s among the 4 unseen dice)
    p = float(stats.binom.sf(1, 4, 1 / 6))
    assert d[None] == pytest.approx(1 - p)
    assert math.isclose(sum(d.values()), 1.0)
    assert all(b.quantity == 3 for b in d if b is not None)
    rng = np.random.default_rng(0)
    moves = [random_bot(v1, rng) for _ in range(2000)]
    assert 0.45 < sum(m is None for m in moves) / 2000 < 0.55
