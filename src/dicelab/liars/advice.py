"""The duel coach: for one seat's hand and this round's bids, what a duel policy would do and what
each legal action is worth when both players follow the policy from there on.

The opponent's hand is unknown: it is weighted by its chance times the policy's probability of
every bid the opponent made with it (Bayes on the public bids). The value of an action is then
exact under the policy for both sides: the policy depends only on the abstract node (the last
bids), and so does everything below a node, so one backward pass over the abstract DAG below the
current bid, for every opponent hand, gives the expected payoff of each child (O(rows x opponent
hands): 36,050 rows x 252 hands at 5 v 5, tens of milliseconds).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.liars.duel import DuelPolicy
from dicelab.liars.rules import Bid


@njit(cache=True)
def _values_below(first, i, n, F, top, mover, loc, child, c_own, c_opp, s_own, s_opp, V):
    """V[m, g]: seat i's expected payoff (+1 / -1) at node m (m >= first) with opponent hand g, both
    seats following the policy (rows normalised per node); s_own is i's column for its hand."""
    N = top.shape[0]
    G = c_opp.shape[0]
    for m in range(N - 1, first - 1, -1):
        t = top[m]
        r0 = loc[m]
        k = n - 1 - t + 1  # every node here has a bid: raises then the call
        q = t // F + 1
        f = t % F + 1
        p = mover[m]
        for g in range(G):
            holds = c_own[f] + c_opp[g, f] >= q
            # the mover calls: the bidder (the other seat) wins when the bid holds
            bidder_is_i = p != i
            call = 1.0 if holds == bidder_is_i else -1.0
            tot = 0.0
            acc = 0.0
            for j in range(k):
                pr = s_own[r0 + j] if p == i else s_opp[r0 + j, g]
                tot += pr
                if j == k - 1:
                    acc += pr * call
                else:
                    acc += pr * V[child[m, t + 1 + j], g]
            V[m, g] = acc / tot if tot > 0.0 else 0.0


def advise(policy: DuelPolicy, seat: int, hand: tuple[int, ...] | list[int],
           history: list[Bid] | tuple[Bid, ...]) -> dict[str, Any]:
    """For ``seat`` (0 opened the round) holding ``hand`` after the bids ``history``: the policy's
    probabilities, the posterior weight of the opponent's hands, and every legal action's expected
    payoff and win probability when both seats follow the policy afterwards.

    Returns ``{"policy": {bid or None: prob}, "values": {bid or None: expected payoff},
    "win": {bid or None: (1 + payoff) / 2}, "posterior": "bids" or "prior", "holds": {bid: the
    chance it holds, for the standing bid and every raise}, "called": {raise: the chance the
    opponent calls it at once}}`` (holds and called from the opponent's hands as weighed).
    """
    d, dag = policy.duel, policy.dag
    probs = policy.action_probabilities(seat, hand, history)
    m0, hi, t0 = policy._locate(seat, hand, history)
    n, F = dag.n, d.faces
    _, p_opp, c_opp = d.hands(1 - seat)
    _, _, c_own_all = d.hands(seat)
    c_own = c_own_all[hi]
    s_opp = np.ascontiguousarray(policy.strategy[1 - seat], dtype=np.float64)
    s_own = np.ascontiguousarray(policy.strategy[seat][:, hi], dtype=np.float64)
    # Bayes: the opponent's bids under the policy
    w = np.array(p_opp, dtype=np.float64)
    ranks = [b.rank(F) for b in history]
    for j, r in enumerate(ranks):
        if j % 2 == seat:
            continue
        m = dag.node_of(j % 2, ranks[:j])
        t = ranks[j - 1] if j > 0 else -1
        row = int(dag.loc[m]) + r - t - 1
        k = n - 1 - t + (1 if m != 0 else 0)
        block = s_opp[int(dag.loc[m]):int(dag.loc[m]) + k]
        tot = block.sum(axis=0)
        w *= np.where(tot > 0, s_opp[row] / np.where(tot > 0, tot, 1.0), 0.0)
    posterior = "bids"
    if w.sum() <= 0.0:  # bids the policy never makes: no evidence to weigh by
        w, posterior = np.array(p_opp, dtype=np.float64), "prior"
    w = w / w.sum()
    first = int(np.searchsorted(dag.top, t0 + 1, side="left")) if t0 + 1 < n else dag.n_nodes
    V = np.zeros((dag.n_nodes, len(p_opp)))
    if first < dag.n_nodes:
        _values_below(first, seat, n, F, dag.top, dag.mover, dag.loc, dag.child, c_own, c_opp, s_own, s_opp, V)
    values: dict[Bid | None, float] = {}
    if history:
        b = history[-1]
        holds = c_own[b.face] + c_opp[:, b.face] >= b.quantity
        values[None] = float(np.dot(w, np.where(holds, -1.0, 1.0)))  # seat calls: wins when it is a lie
    for r in range(t0 + 1, n):
        c = int(dag.child[m0, r])
        require(c >= 0, "the policy's DAG has no node for a legal raise")
        values[Bid.from_rank(r, F)] = float(np.dot(w, V[c]))
    # what differs between moves the policy mixes (issue 21): the chance each bid holds, from this
    # hand and the opponent's hands as weighed above, and the chance the opponent calls a raise at once
    holds: dict[Bid, float] = {}
    called: dict[Bid, float] = {}
    for b in ([history[-1]] if history else []) + [Bid.from_rank(r, F) for r in range(t0 + 1, n)]:
        holds[b] = float(np.dot(w, c_own[b.face] + c_opp[:, b.face] >= b.quantity))
    for r in range(t0 + 1, n):
        c = int(dag.child[m0, r])
        k = n - r  # the raises above r, then the call (the last row)
        block = s_opp[int(dag.loc[c]):int(dag.loc[c]) + k]
        tot = block.sum(axis=0)
        called[Bid.from_rank(r, F)] = float(np.dot(w, np.where(tot > 0, block[k - 1] / np.where(tot > 0, tot, 1.0), 0.0)))
    return {"policy": probs, "values": values, "win": {a: (1.0 + v) / 2.0 for a, v in values.items()},
            "posterior": posterior, "holds": holds, "called": called}
