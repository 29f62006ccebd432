"""The bid-evidence model (dicelab.liars.beliefs) against brute force over ordered hands."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dicelab.liars.beliefs import count_distribution, prob_holds
from dicelab.liars.rules import Action, Bid, LiarsRules, PlayerView


def brute(n, faces, wild_face, bid_faces, face, bluff):
    """Posterior count distribution by enumerating every ordered hand (faces**n of them)."""
    out = np.zeros(n + 1)
    for hand in itertools.product(range(1, faces + 1), repeat=n):
        counted = {f: sum(1 for d in hand if d == f or (wild_face and d == wild_face and f != wild_face))
                   for f in range(1, faces + 1)}
        best = max(range(1, faces + 1), key=lambda f: (counted[f], f))
        w = 1.0
        for g in bid_faces:
            w *= (1 - bluff) * (g == best) + bluff / faces
        out[counted[face]] += w
    return out / out.sum()


@pytest.mark.parametrize("n,faces,wild_face,bid_faces,face,bluff", [
    (3, 6, 0, (6,), 6, 0.2), (3, 6, 1, (4,), 4, 0.5), (4, 4, 1, (2, 3), 3, 0.3), (2, 6, 0, (5,), 2, 0.0),
    (4, 6, 6, (), 3, 0.2), (1, 6, 0, (2,), 2, 0.0)])
def test_count_distribution_matches_brute_force(n, faces, wild_face, bid_faces, face, bluff):
    got = count_distribution(n, faces, wild_face, bid_faces, face, bluff)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(got, brute(n, faces, wild_face, bid_faces, face, bluff), atol=1e-12)


def test_no_evidence_is_the_binomial():
    rules = LiarsRules(wild="ones")
    for face in (1, 4):
        p = rules.match_probability(face)
        want = [math.comb(5, k) * p**k * (1 - p) ** (5 - k) for k in range(6)]
        for args in (((), 0.2), ((3, 5), 1.0)):  # no bids, or bids that say nothing (always a bluff)
            got = count_distribution(5, 6, 1, args[0], face, args[1])
            assert np.allclose(got, want, atol=1e-12)


def test_prob_holds_without_bids_is_the_probabilistic_bots_chance():
    rules = LiarsRules(players=3, dice=3, wild="ones")
    view = PlayerView(rules=rules, player=0, hand=(1, 4, 6), dice_counts=(3, 3, 3), current_bid=Bid(4, 4),
                      history=(Action(0, Bid(4, 4)),))
    for b in (Bid(4, 4), Bid(5, 2), Bid(7, 6)):
        assert prob_holds(view, b, 0.2) == pytest.approx(view.prob_bid_holds(b), abs=1e-12)


def test_a_bidders_face_raises_the_chance_it_holds():
    rules = LiarsRules(players=2, dice=4)
    view = PlayerView(rules=rules, player=0, hand=(1, 2, 3, 4), dice_counts=(4, 4), current_bid=Bid(3, 6),
                      history=(Action(1, Bid(3, 6)),))
    plain = view.prob_bid_holds()
    # exact: the opponent's 4 dice weighted by the chance it would have bid sixes
    d = brute(4, 6, 0, (6,), 6, 0.2)
    assert prob_holds(view, Bid(3, 6), 0.2) == pytest.approx(d[3:].sum(), abs=1e-12)
    assert prob_holds(view, Bid(3, 6), 0.2) > plain
