"""Exact grading of a duel policy: its value and both best responses on the full public tree.

Two evaluators, both exact (perfect-recall best responders against a policy that plays both seats):

* :func:`full_profile` expands an abstract policy (:class:`dicelab.liars.duel.DuelPolicy`) into
  behaviour strategies on the exact solver's tree (:mod:`dicelab.liars.cfr`, up to 18 bids, arrays
  of 2^N nodes x hands), graded by :func:`dicelab.liars.cfr.evaluate_profile`;
* :func:`exact_grade` walks the same tree depth first with an explicit stack, so memory is
  O(bids x hands) instead of O(2^N x hands): 2 v 2 with 6 faces (24 bids, 2^24 public nodes) takes
  seconds. Both walk the policy's own DAG bid by bid (``child[node, bid]``), so they read any memory:
  a window, a context tree, a window with the first bid's face.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.liars.cfr import DuelRules, Tree, build_tree, evaluate_profile
from dicelab.liars.duel import Duel, DuelPolicy

MAX_EXACT_BIDS = 26  # 2^26 public nodes: about a minute per pass; above that use LBR


def _mask_nodes(policy: DuelPolicy, n_masks: int) -> np.ndarray:
    """The abstract node of every full public node (bitmask of bids made): the policy's DAG walked
    along the bids in rising order, so any memory (a window, a context tree, the first bid's face)."""
    dag = policy.dag
    masks = np.arange(n_masks, dtype=np.int64)
    node = np.zeros(n_masks, dtype=np.int64)
    for b in range(dag.n):
        on = (masks >> b) & 1 == 1
        node[on] = dag.child[node[on], b]
    return node


def full_profile(policy: DuelPolicy, tree: Tree | None = None) -> tuple[Tree, np.ndarray, np.ndarray]:
    """The policy as behaviour strategies ``(s0, s1)`` on the exact solver's tree (at most 18 bids)."""
    d = policy.duel
    tree = tree or build_tree(DuelRules(d.dice, d.faces, d.wild))
    nodes = _mask_nodes(policy, tree.n_nodes)
    out = []
    for i in (0, 1):
        s = np.zeros((tree.n_edges, policy.strategy[i].shape[1]))
        ms = np.flatnonzero(np.array([bin(m).count("1") % 2 == i for m in range(tree.n_nodes)]))
        k = tree.off[ms + 1] - tree.off[ms]
        rep = np.repeat(np.arange(len(ms)), k)
        j = np.arange(len(rep)) - np.repeat(np.cumsum(k) - k, k)
        e = tree.off[ms][rep] + j
        rows = policy.dag.loc[nodes[ms]][rep] + j
        s[e] = policy.strategy[i][rows]
        out.append(s)
    return tree, out[0], out[1]


@njit(cache=True)
def _popcount(m):
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


@njit(cache=True)
def _dfs(i, mode, n, F, child, loc, c_own, c_opp, p_own, p_opp, s_own, s_opp):
    """Player i's expected payoff against the fixed opponent strategy s_opp, walking the full tree.

    mode 0: i follows s_own; mode 1: i best-responds (max per hand at its nodes, perfect recall).
    Stack frame d: the node after d bids (path[0..d-1]); opponent reach ro[d, g] (chance included),
    own reach weights are 1 (values are per own hand, summed with P(h) at the end).
    """
    Hi = c_own.shape[0]
    Hj = c_opp.shape[0]
    K = c_opp.max() + 2
    path = np.zeros(n + 1, np.int64)
    nxt = np.zeros(n + 2, np.int64)  # next bid to try at depth d
    node = np.zeros(n + 2, np.int64)
    ro = np.zeros((n + 2, Hj))
    acc = np.zeros((n + 2, Hi))
    below = np.zeros(K)
    for g in range(Hj):
        ro[0, g] = p_opp[g]
    d = 0
    node[0] = 0  # the root
    nxt[0] = 0

    # initialise frame 0 (the root: no call)
    for h in range(Hi):
        acc[0, h] = -1e300 if (mode == 1 and i == 0) else 0.0
    while True:
        p = d % 2
        if nxt[d] < n:
            b = nxt[d]
            nxt[d] += 1
            t = path[d - 1] if d > 0 else -1
            row = loc[node[d]] + b - t - 1
            # child reach
            any_r = False
            for g in range(Hj):
                r = ro[d, g] * (s_opp[row, g] if p != i else 1.0)
                ro[d + 1, g] = r
                if r != 0.0:
                    any_r = True
            if not any_r:
                # nothing below is reached: the child's value is 0 for every hand
                if p == i:
                    for h in range(Hi):
                        if mode == 1:
                            if acc[d, h] < 0.0:
                                acc[d, h] = 0.0
                # (mode 0 and the opponent's nodes add 0)
                continue
            path[d] = b
            d += 1
            node[d] = child[node[d - 1], b]  # the policy's own DAG, walked bid by bid
            nxt[d] = b + 1
            # the call at the new node (by its mover)
            q = b // F + 1
            f = b % F + 1
            caller = d % 2
            k = n - 1 - b + 1
            crow = loc[node[d]] + k - 1
            for x in range(K):
                below[x] = 0.0
            for g in range(Hj):
                wgt = ro[d, g] * (s_opp[crow, g] if caller != i else 1.0)
                below[c_opp[g, f] + 1] += wgt
            for x in range(1, K):
                below[x] += below[x - 1]
            total = below[K - 1]
            sign = 1.0 if caller != i else -1.0  # i is the bidder: +1 when the bid holds
            for h in range(Hi):
                j = q - c_own[h, f]
                lo = 0.0 if j <= 0 else below[min(j, K - 1)]
                v = sign * (total - 2.0 * lo)
                if caller == i:
                    if mode == 1:
                        acc[d, h] = v
                    else:
                        acc[d, h] = s_own[crow, h] * v
                else:
                    acc[d, h] = v
            continue
        # frame d is complete: fold its value into its parent
        if d == 0:
            break
        b = path[d - 1]
        d -= 1
        p = d % 2
        t = path[d - 1] if d > 0 else -1
        row = loc[node[d]] + b - t - 1
        for h in range(Hi):
            v = acc[d + 1, h]
            if p == i:
                if mode == 1:
                    if v > acc[d, h]:
                        acc[d, h] = v
                else:
                    acc[d, h] += s_own[row, h] * v
            else:
                acc[d, h] += v
    total = 0.0
    for h in range(Hi):
        total += p_own[h] * acc[0, h]
    return total


def exact_grade(policy: DuelPolicy, progress: bool = False) -> dict[str, Any]:
    """Exact value of the policy for seat 0 and both best responses against it (any size up to
    :data:`MAX_EXACT_BIDS` bids; seconds for 2 v 2 with 6 faces)."""
    d = policy.duel
    require(d.n_bids <= MAX_EXACT_BIDS,
            f"{d.dice[0]} v {d.dice[1]} with {d.faces} faces has {d.n_bids} bids; exact grading handles at most "
            f"{MAX_EXACT_BIDS} (2^{MAX_EXACT_BIDS} public nodes); use local best response (LBR) instead")
    t0 = time.perf_counter()
    dag = policy.dag
    _, p0, c0 = d.hands(0)
    _, p1, c1 = d.hands(1)
    s0 = np.ascontiguousarray(policy.strategy[0], dtype=np.float64)
    s1 = np.ascontiguousarray(policy.strategy[1], dtype=np.float64)
    args = (d.n_bids, d.faces, dag.child, dag.loc)
    value = _dfs(0, 0, *args, c0, c1, p0, p1, s0, s1)
    br0 = _dfs(0, 1, *args, c0, c1, p0, p1, s0, s1)
    br1 = _dfs(1, 1, *args, c1, c0, p1, p0, s1, s0)
    return {"value": value, "br0": br0, "br1": br1, "exploitability": (br0 + br1) / 2.0,
            "seconds": time.perf_counter() - t0, "method": "exact"}


def grade_with_tree(policy: DuelPolicy) -> dict[str, float]:
    """The same numbers through the exact solver's evaluator (at most 18 bids): an independent check."""
    tree, s0, s1 = full_profile(policy)
    return evaluate_profile(tree, s0, s1)


__all__ = ["Duel", "exact_grade", "full_profile", "grade_with_tree"]
