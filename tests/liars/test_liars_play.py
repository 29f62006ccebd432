"""Liar's Dice's Play: the coach's chances against a brute-force count over every hidden hand,
bots that decide on their own hand only, one-line errors."""

from __future__ import annotations

import itertools

import pytest

from dicelab import liars
from dicelab.core.errors import DicelabError

PLAY = liars.PLAY


def brute_holds(own, others_dice, quantity, face, faces, wild):
    """P(at least ``quantity`` dice show ``face``) counting every equally likely hidden hand."""
    def count(hand):
        return sum(1 for d in hand if d == face or (wild == "ones" and d == 1 and face != 1))

    hits = total = 0
    for hidden in itertools.product(range(1, faces + 1), repeat=others_dice):
        total += 1
        hits += count(own) + count(hidden) >= quantity
    return hits / total


@pytest.mark.parametrize("wild", ["none", "ones"])
def test_coach_chances_equal_a_brute_force_count(wild):
    rules = liars.LiarsRules(players=2, dice=2, faces=6, wild=wild)
    s = liars.new_game(rules, seed=4)
    s.apply({"bid": [1, 3]})  # seat 0 opens; seat 1 answers
    own = s.observe(1)["hand"]
    c = PLAY.coach(s, 1)
    assert c["best"] is None
    vals = c["values"]
    assert {str(v["action"]) for v in vals} == {str(a) for a in s.legal_actions(1)}
    for v in vals:
        if v["action"] == "call":
            assert v["value"] == pytest.approx(1 - brute_holds(own, 2, 1, 3, 6, wild), abs=1e-12)
        else:
            q, f = v["action"]["bid"]
            assert v["value"] == pytest.approx(brute_holds(own, 2, q, f, 6, wild), abs=1e-12)
    assert c["current_bid_holds"] == pytest.approx(brute_holds(own, 2, 1, 3, 6, wild), abs=1e-12)
    assert PLAY.coach(s, 0) is None  # not seat 0's turn


@pytest.mark.parametrize("spec", ["probabilistic", "random"])
def test_bots_decide_on_their_own_hand_only(spec):
    rules = liars.LiarsRules(players=3, dice=3, faces=6)
    for seed in range(20):
        s = liars.new_game(rules, seed=seed)
        s.apply(s.legal_actions()[seed % 5])
        first = PLAY.bot(spec, rules, seed=seed).act(s, 1)
        assert first in s.legal_actions(1)
        # re-deal the other hands: the bot's choice (same generator) cannot change
        hands = list(s.engine.hands)
        for other in (0, 2):
            hands[other] = tuple(7 - d for d in hands[other])
        s.engine.hands = tuple(hands)
        assert PLAY.bot(spec, rules, seed=seed).act(s, 1) == first


def test_offered_bots_play_legal_games_and_bad_specs_fail_in_one_line():
    rules = liars.LiarsRules(players=2, dice=2, faces=6)
    for pair in (("probabilistic", "random"), ("scout", "random")):
        bots = [PLAY.bot(pair[0], rules, seed=1), PLAY.bot(pair[1], rules, seed=2)]
        s = liars.new_game(rules, seed=3)
        while not s.is_over:
            (p,) = s.to_move()
            a = bots[p].act(s, p)
            assert a in s.legal_actions(p)
            s.apply(a)
        assert sorted(s.returns()) == [0.0, 1.0]
    assert [b.spec for b in PLAY.bots(rules)] == ["scout", "probabilistic", "random", "agent"]
    for spec in ("genius", "", 3):
        with pytest.raises(DicelabError, match="allowed") as e:
            PLAY.bot(spec, rules)
        assert "\n" not in str(e.value)
