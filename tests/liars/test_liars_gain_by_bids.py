"""Where a responder's gain comes from: the lower bound split by the bids a round took (issue 26).

References from outside the code under test: laws (the parts add up to the bound, the shares of
rounds to one) and a policy whose rounds are known in advance, one that calls every bid: a
responder that opens against it makes exactly one bid and wins every round (a bid of one die
showing a face it holds always holds), and a round it answers takes one bid or two. Move by move,
the parts add up to the bound with the policy's own moves (0 on average) and the deals' value, and
against that policy the opening is worth 1 less its self-play value, counted here over every roll
(four 4-faced dice make exactly 4 of the 16 bids true, so every deal is worth -1/2 to its opener).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dicelab.liars.duel import Duel, DuelPolicy, train_duel, uniform_policy
from dicelab.liars.lbr import gain_by_bids, lbr
from dicelab.liars.responder import learned_br


def _always_calls(duel: Duel) -> DuelPolicy:
    p = uniform_policy(duel, window=1)
    for i in (0, 1):
        x = p.strategy[i]
        for m in range(1, p.dag.n_nodes):  # the opening bid stays uniform: the root has no call
            if p.dag.mover[m] == i:
                r0, k = int(p.dag.loc[m]), p.dag.n - int(p.dag.top[m])
                x[r0:r0 + k] = 0.0
                x[r0 + k - 1] = 1.0  # the last action is the call
    return p


@pytest.mark.parametrize("grader", ["lbr", "learned"])
def test_against_a_policy_that_calls_every_bid_rounds_take_one_bid_or_two(grader):
    duel = Duel((2, 2), 4, "none")  # 16 bids
    pol = _always_calls(duel)
    r = lbr(pol, rounds=2000, seed=3) if grader == "lbr" else learned_br(pol, rounds=2000, seed=3, window=2)
    first = "lbr0" if grader == "lbr" else "gain0"
    assert r[first] == 1.0  # the opener bids a face it holds and is called
    share, gain = r["rounds_by_bids"], r["gain_by_bids"]
    assert list(share) == ["1", "2", "3", "4", "5", "6", "7", "8+"]
    assert share["1"] + share["2"] == pytest.approx(1.0, abs=1e-12)
    assert share["1"] >= 0.5  # every round the responder opens, and the ones it answers with a call
    assert all(share[k] == 0.0 and gain[k] == 0.0 for k in list(share)[2:])
    assert sum(gain.values()) == pytest.approx(r["exploitability_lower"], abs=1e-12)


@pytest.mark.parametrize("grader", ["lbr", "learned"])
def test_the_parts_add_up_to_the_bound(grader):
    duel = Duel((2, 2), 6, "ones")  # 24 bids: rounds of eight bids and more happen
    pol = train_duel(duel, iterations=20, seed=0, window=2)
    r = lbr(pol, rounds=3000, seed=1) if grader == "lbr" else learned_br(pol, rounds=3000, seed=1, window=3)
    assert sum(r["rounds_by_bids"].values()) == pytest.approx(1.0, abs=1e-12)
    assert sum(r["gain_by_bids"].values()) == pytest.approx(r["exploitability_lower"], abs=1e-12)
    # a part never exceeds its rounds' share (each payoff is -1 or 1, averaged over two seats)
    assert all(abs(g) <= s + 1e-12 for s, g in zip(r["rounds_by_bids"].values(), r["gain_by_bids"].values(),
                                                   strict=True))


def test_long_rounds_are_counted_together():
    outs = [np.array([1.0, -1.0, 1.0, 1.0]), np.array([-1.0, -1.0, 1.0, 1.0])]
    lengths = [np.array([1, 8, 9, 30]), np.array([2, 2, 1, 7])]
    r = gain_by_bids(outs, lengths)
    assert r["rounds_by_bids"]["8+"] == 3 / 8 and r["rounds_by_bids"]["2"] == 2 / 8
    assert r["gain_by_bids"]["8+"] == pytest.approx((1.0 / 4) / 2)  # seat 0: -1 + 1 + 1 over 4 rounds
    assert r["gain_by_bids"]["2"] == pytest.approx((-2.0 / 4) / 2)
    assert r["gain_by_bids"]["7"] == pytest.approx((1.0 / 4) / 2)


# ------------------------------------------------------------------------------------------------
# move by move (the performance-difference identity)


def test_the_moves_parts_add_up_to_the_bound():
    duel = Duel((2, 2), 6, "ones")
    pol = train_duel(duel, iterations=20, seed=0, window=2)
    r = learned_br(pol, rounds=3000, seed=1, window=3)
    assert list(r["gain_by_move"]) == ["1", "2", "3", "4", "5", "6", "7", "8+"]
    total = sum(r["gain_by_move"].values()) + r["policy_moves"] + r["deal_value"]
    assert total == pytest.approx(r["exploitability_lower"], abs=1e-6)  # the values are float32
    # the policy's own moves change its self-play value by 0 on average, and both seats' deals cancel
    assert abs(r["policy_moves"]) <= 2.5 * r["policy_moves_ci"]
    assert abs(r["deal_value"]) < 0.08  # 2 x 3,000 deals, payoffs of +-1: 4.4 half-widths


def test_against_a_policy_that_calls_every_bid_the_gain_is_all_in_the_opening():
    """The policy opens a uniformly drawn bid and calls whatever comes next. A responder that opens
    wins every round (+1) where the policy, opening for that seat, wins when its drawn bid holds: the
    opening bid is worth 1 - E[its value] to seat 0, computed here over every roll and bid."""
    duel = Duel((2, 2), 4, "none")  # 16 bids
    pol = _always_calls(duel)
    r = learned_br(pol, rounds=4000, seed=5, window=2)
    value = []  # seat 0's self-play value: a uniform opening bid, called
    for roll in itertools.product(range(1, 5), repeat=4):
        outcomes = [1.0 if sum(1 for x in roll if x == f) >= q else -1.0 for q in range(1, 5) for f in range(1, 5)]
        value.append(sum(outcomes) / len(outcomes))
    expected_first = (1.0 - sum(value) / len(value)) / 2.0  # seat 0's part; seat 1's responder never opens
    assert r["gain0"] == 1.0
    parts, ci = r["gain_by_move"], r["gain_by_move_ci"]
    assert abs(parts["1"] - expected_first) <= 3.0 * ci["1"] + 1e-9
    assert all(parts[k] == 0.0 for k in ["3", "4", "5", "6", "7", "8+"])  # the third move is the policy's call
