"""Exact equilibria of duels too big for the array solver: CFR+ on the full public tree, depth first.

:mod:`dicelab.liars.cfr` keeps reach and value arrays for every public node (2^N nodes x hands):
at 2 v 2 with 6 faces (24 bids, 2^24 public nodes, 21 hands a seat) one such float64 array takes
2.8 GB and the solver needs eight. Here the tree is walked depth first with an explicit stack
(reaches, strategies and values of the nodes on the current path only: O(bids^2 x hands)), and
only what CFR has to keep between iterations is stored: per player, a regret and an average for
each edge at that player's own nodes and each own hand, in a compact edge layout (the edges of
bid set ``m`` start at ``eoff[m]`` in its mover's table: raises in rank order, then the call),
float32 by default (1.4 GB per table at 2 v 2 with 6 faces, 5.6 GB in all). All arithmetic is
float64; ``dtype=np.float64`` stores float64 too (the tests compare both).

Method: CFR+ with alternating updates, regrets clipped at zero and the average weighted by t^2
(``method="cfr+2"`` of :func:`dicelab.liars.cfr.solve`, which this reproduces exactly when
``prune=False``). With ``prune=True`` (the default) player i's pass skips every subtree the
opponent's current strategy never enters (reach zero for every opponent hand): its counterfactual
values are zero, so CFR+ leaves its regrets as they are, and only its average misses those
iterations. The result is a strategy pair whatever the pruning does, and its quality is measured
exactly: :func:`evaluate` computes the value and both best responses (perfect recall) on the
same tree, and the game value lies between ``-BR_1`` and ``BR_0``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import prange

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.liars.duel import Duel

MAX_FULL_BIDS = 24  # 2 v 2 with 6 faces: 2^24 public nodes, 5.6 GB of float32 tables


@njit(cache=True)
def _edge_offsets(n, eoff, sizes):
    """eoff[m]: the first edge of bid set m in its mover's table; sizes[p]: edges of player p.

    The nodes are laid out in depth-first pre-order (the order every pass visits them), so a pass
    reads and writes each table front to back: 1.5x faster than in bid-set order at 2 v 2 with 5
    faces, where the tables no longer fit in the cache."""
    sizes[0] = 0
    sizes[1] = 0
    D = n + 2
    mask = np.zeros(D, np.int64)
    nxt = np.zeros(D, np.int64)
    tops = np.zeros(D, np.int64)
    d = 0
    tops[0] = -1
    entering = True
    while True:
        if entering:
            entering = False
            p = d & 1
            eoff[mask[d]] = sizes[p]
            sizes[p] += n - 1 - tops[d] + (1 if d > 0 else 0)
            nxt[d] = tops[d] + 1
        if nxt[d] < n:
            b = nxt[d]
            nxt[d] += 1
            mask[d + 1] = mask[d] | (1 << b)
            tops[d + 1] = b
            d += 1
            entering = True
            continue
        if d == 0:
            break
        d -= 1


def edge_offsets(n: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The compact edge layout of the public tree with ``n`` bids: ``eoff`` and each player's edges."""
    eoff = np.zeros(1 << n, dtype=np.int64)
    sizes = np.zeros(2, dtype=np.int64)
    _edge_offsets(n, eoff, sizes)
    return eoff, (int(sizes[0]), int(sizes[1]))


@njit(cache=True)
def _call_value(i, d, top, F, c_i, c_j, rj, sjc, below, out):
    """Player i's counterfactual value of the call at depth d (caller: the mover, d % 2) of bid
    ``top``, per own hand: the opponent's reach rj[g] (times its call probability sjc[g] when it
    is the caller) pooled by its count of the bid face."""
    q = top // F + 1
    f = top % F + 1
    K = below.shape[0]
    for x in range(K):
        below[x] = 0.0
    caller = d % 2
    for g in range(c_j.shape[0]):
        w = rj[g] * (sjc[g] if caller != i else 1.0)
        below[c_j[g, f] + 1] += w
    for x in range(1, K):
        below[x] += below[x - 1]
    total = below[K - 1]
    sign = 1.0 if caller != i else -1.0  # i is the bidder: +1 when the bid holds
    for h in range(c_i.shape[0]):
        j = q - c_i[h, f]
        lo = 0.0 if j <= 0 else below[min(j, K - 1)]
        out[h] = sign * (total - 2.0 * lo)


WHOLE, COLLECT, TASK, FINISH = 0, 1, 2, 3
PARALLEL_DEPTH = 3  # tasks are the subtrees at this depth (the largest holds 1/8 of the nodes)


@njit(cache=True)
def _walk(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, stats,
          mode, cap, d0, t_mask, t_top, t_rj, t_ri, t_pw, t_acc, task):
    """One CFR+ update of player i (the opponent j's strategy is regret matching on ``reg_j``),
    whole (``mode`` WHOLE) or in the three parts of :func:`_cfr_pass_parallel`: COLLECT walks the
    nodes above depth ``cap`` and records what flows into each node at depth ``cap`` (a task; it
    writes nothing shared), TASK walks the subtree of task number ``task`` (frame ``d0 = cap``) and
    leaves its node value in ``t_acc[task]``, FINISH walks the nodes above ``cap`` again, taking
    each task's value, and updates them. The parts do exactly the arithmetic of WHOLE in the same
    order, so the result is the same bit for bit.

    Stack frame d is the node after d bids (``mask[d]``, top bid ``tops[d]``, mover d % 2): the
    opponent's reach rj[d, g] (its chance included), i's own reach ri[d, h], the pending average
    weight pw[d, h] flowing down (below), i's current strategy si[d, a, h] at i's nodes (or the
    opponent's regret sums totj[d, g] at its nodes), action values q[d, a, h] and the node value
    acc[d, h] (per own hand, own chance left out: a constant factor per information set, which
    regret matching and the normalised average ignore).

    Pruning (``prune``): a subtree below an opponent's edge that no opponent hand takes now is
    skipped. Its regrets would not change (zero counterfactual values), so neither does i's
    strategy there, and the average's share of this iteration, ``weight x ri x strategy`` at every
    node below, is kept as one pending vector ``weight x ri`` at the child (``pend_i[child >> 1, h]``: a bid set and
    the set with bit 0 flipped have opposite movers, so this numbers i's nodes). When
    the subtree is next entered (or by :func:`_flush`) the pending weight flows down with the
    unchanged strategy and is added to the average exactly as the skipped iterations would have.
    """
    Hi = c_i.shape[0]
    Hj = c_j.shape[0]
    D = n + 2
    A = n + 1
    K = c_j.max() + 2
    mask = np.zeros(D, np.int64)
    tops = np.zeros(D, np.int64)
    nxt = np.zeros(D, np.int64)
    rj = np.zeros((D, Hj))
    ri = np.zeros((D, Hi))
    pw = np.zeros((D, Hi))
    si = np.zeros((D, A, Hi))
    totj = np.zeros((D, Hj))
    q = np.zeros((D, A, Hi))
    acc = np.zeros((D, Hi))
    below = np.zeros(K)
    collect = mode == COLLECT
    finish = mode == FINISH
    if mode == TASK:
        d = d0
        mask[d] = t_mask[task]
        tops[d] = t_top[task]
        for g in range(Hj):
            rj[d, g] = t_rj[task, g]
        for h in range(Hi):
            ri[d, h] = t_ri[task, h]
            pw[d, h] = t_pw[task, h]
    else:
        for g in range(Hj):
            rj[0, g] = p_j[g]
        for h in range(Hi):
            ri[0, h] = 1.0
        d = 0
        tops[0] = -1
    k_task = 0
    entering = True
    while True:
        mine = (d % 2) == i
        if entering:
            # enter frame d: strategies at the node, the call's value
            entering = False
            if not collect:
                stats[0] += 1
            top = tops[d]
            k = n - 1 - top + (1 if d > 0 else 0)
            e0 = eoff[mask[d]]
            if mine:
                for h in range(Hi):
                    tot = 0.0
                    for a in range(k):
                        x = reg_i[e0 + a, h]
                        if x > 0.0:
                            tot += x
                    if tot > 0.0:
                        for a in range(k):
                            x = reg_i[e0 + a, h]
                            si[d, a, h] = x / tot if x > 0.0 else 0.0
                    else:
                        for a in range(k):
                            si[d, a, h] = 1.0 / k
            else:
                for g in range(Hj):
                    tot = 0.0
                    for a in range(k):
                        x = reg_j[e0 + a, g]
                        if x > 0.0:
                            tot += x
                    totj[d, g] = tot
            if d > 0:
                # the call of bid `top` by the mover: i's value per own hand, the opponent's
                # reach pooled by its count of the bid face
                qq = top // F + 1
                f = top % F + 1
                for x in range(K):
                    below[x] = 0.0
                for g in range(Hj):
                    w = rj[d, g]
                    if not mine:  # the opponent calls: times its call probability
                        tj = totj[d, g]
                        y = reg_j[e0 + k - 1, g]
                        w *= (y / tj if y > 0.0 else 0.0) if tj > 0.0 else 1.0 / k
                    below[c_j[g, f] + 1] += w
                for x in range(1, K):
                    below[x] += below[x - 1]
                total = below[K - 1]
                sign = -1.0 if mine else 1.0  # i is the bidder when the opponent calls: +1 if it holds
                for h in range(Hi):
                    jj = qq - c_i[h, f]
                    lo = 0.0 if jj <= 0 else below[min(jj, K - 1)]
                    v = sign * (total - 2.0 * lo)
                    if mine:
                        q[d, k - 1, h] = v
                        acc[d, h] = si[d, k - 1, h] * v
                    else:
                        acc[d, h] = v
            else:
                for h in range(Hi):
                    acc[d, h] = 0.0
            nxt[d] = top + 1
        if nxt[d] < n:
            b = nxt[d]
            nxt[d] += 1
            top = tops[d]
            a = b - top - 1
            if mine:
                for g in range(Hj):
                    rj[d + 1, g] = rj[d, g]
                for h in range(Hi):
                    s = si[d, a, h]
                    ri[d + 1, h] = ri[d, h] * s
                    pw[d + 1, h] = pw[d, h] * s
            else:
                k = n - 1 - top + (1 if d > 0 else 0)
                e = eoff[mask[d]] + a
                reached = False
                for g in range(Hj):
                    tj = totj[d, g]
                    x = reg_j[e, g]
                    r = rj[d, g] * ((x / tj if x > 0.0 else 0.0) if tj > 0.0 else 1.0 / k)
                    rj[d + 1, g] = r
                    if r > cut:
                        reached = True
                if prune and not reached:
                    if not collect:
                        pe = (mask[d] | (1 << b)) >> 1
                        for h in range(Hi):  # the average's share waits at the child
                            pend_i[pe, h] += weight * ri[d, h] + pw[d, h]
                    continue
                for h in range(Hi):
                    ri[d + 1, h] = ri[d, h]
                    pw[d + 1, h] = pw[d, h]
                if prune:
                    pe = (mask[d] | (1 << b)) >> 1
                    for h in range(Hi):
                        pw[d + 1, h] += pend_i[pe, h]
                        if not collect:
                            pend_i[pe, h] = 0.0
            mask[d + 1] = mask[d] | (1 << b)
            tops[d + 1] = b
            if (collect or finish) and d + 1 == cap:
                # a task's root: COLLECT records what flows in, FINISH takes its value
                if collect:
                    t_mask[k_task] = mask[d + 1]
                    t_top[k_task] = b
                    for g in range(Hj):
                        t_rj[k_task, g] = rj[d + 1, g]
                    for h in range(Hi):
                        t_ri[k_task, h] = ri[d + 1, h]
                        t_pw[k_task, h] = pw[d + 1, h]
                        acc[d + 1, h] = 0.0
                else:
                    for h in range(Hi):
                        acc[d + 1, h] = t_acc[k_task, h]
                k_task += 1
                if mine:
                    for h in range(Hi):
                        q[d, a, h] = acc[d + 1, h]
                        acc[d, h] += si[d, a, h] * acc[d + 1, h]
                else:
                    for h in range(Hi):
                        acc[d, h] += acc[d + 1, h]
                continue
            d += 1
            entering = True
            continue
        # frame d is complete: regrets and average at i's node, then fold into the parent
        if mine and not collect:
            top = tops[d]
            k = n - 1 - top + (1 if d > 0 else 0)
            e0 = eoff[mask[d]]
            for a in range(k):
                for h in range(Hi):
                    x = reg_i[e0 + a, h] + q[d, a, h] - acc[d, h]
                    reg_i[e0 + a, h] = x if x > 0.0 else 0.0
                    w = weight * ri[d, h] + pw[d, h]
                    if w != 0.0:
                        avg_i[e0 + a, h] += w * si[d, a, h]
        if d == d0:
            break
        b = tops[d]
        d -= 1
        if (d % 2) == i:
            a = b - tops[d] - 1
            for h in range(Hi):
                q[d, a, h] = acc[d + 1, h]
                acc[d, h] += si[d, a, h] * acc[d + 1, h]
        else:
            for h in range(Hi):
                acc[d, h] += acc[d + 1, h]
    if mode == TASK:
        for h in range(Hi):
            t_acc[task, h] = acc[d0, h]
    return k_task


@njit(cache=True)
def _cfr_pass(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, stats, cut=0.0):
    """One CFR+ update of player i on one core (see :func:`_walk`)."""
    e1 = np.zeros(1, np.int64)
    e2 = np.zeros((1, 1))
    _walk(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, stats,
          WHOLE, 0, 0, e1, e1, e2, e2, e2, e2, 0)


@njit(cache=True, parallel=True)
def _run_tasks(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, counts,
               cap, t_mask, t_top, t_rj, t_ri, t_pw, t_acc, order, workers):
    """TASK for every task, spread over ``workers`` threads: worker w takes tasks w, w + workers,
    ... of ``order`` (largest subtrees first, so each worker gets its share of the big ones; numba
    splits a prange into equal contiguous blocks, which would give one worker all of them). Tasks
    write disjoint parts of the tables (their own subtrees' edges and pending rows)."""
    for w in prange(workers):
        for j in range(w, order.shape[0], workers):
            k = order[j]
            _walk(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, counts[k],
                  TASK, cap, cap, t_mask, t_top, t_rj, t_ri, t_pw, t_acc, k)


def _cfr_pass_parallel(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, stats,
                       cut=0.0, cap=PARALLEL_DEPTH):
    """:func:`_cfr_pass` on every core, bit for bit the same: the nodes above depth ``cap``
    (COLLECT), the subtrees below them in parallel (TASK), then the nodes above again (FINISH)."""
    import numba

    m = max(math.comb(n, cap), 1)  # the nodes at depth cap: at most one task each
    Hi, Hj = c_i.shape[0], c_j.shape[0]
    t_mask = np.zeros(m, np.int64)
    t_top = np.zeros(m, np.int64)
    t_rj = np.zeros((m, Hj))
    t_ri, t_pw, t_acc = (np.zeros((m, Hi)) for _ in range(3))
    got = _walk(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, stats,
                COLLECT, cap, 0, t_mask, t_top, t_rj, t_ri, t_pw, t_acc, 0)
    if got:
        order = np.argsort(t_top[:got], kind="stable").astype(np.int64)  # the lowest top bid: the biggest subtree
        counts = np.zeros((got, 2), np.int64)
        _run_tasks(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, counts,
                   cap, t_mask, t_top, t_rj, t_ri, t_pw, t_acc, order, numba.get_num_threads())
        stats[0] += counts[:, 0].sum()
    _walk(i, n, F, eoff, c_i, c_j, p_j, reg_i, avg_i, reg_j, pend_i, weight, prune, cut, stats,
          FINISH, cap, 0, t_mask, t_top, t_rj, t_ri, t_pw, t_acc, 0)


@njit(cache=True)
def _flush(i, n, eoff, reg_i, avg_i, pend_i):
    """Add every pending average weight (see :func:`_cfr_pass`) to player i's average: the whole
    tree, the weight flowing down with i's current strategy (unchanged since it was set aside)."""
    Hi = avg_i.shape[1]
    D = n + 2
    A = n + 1
    mask = np.zeros(D, np.int64)
    tops = np.zeros(D, np.int64)
    nxt = np.zeros(D, np.int64)
    pw = np.zeros((D, Hi))
    si = np.zeros((D, A, Hi))
    live = np.zeros(D, np.bool_)
    d = 0
    tops[0] = -1
    entering = True
    while True:
        mine = (d % 2) == i
        if entering:
            entering = False
            top = tops[d]
            k = n - 1 - top + (1 if d > 0 else 0)
            e0 = eoff[mask[d]]
            live[d] = False
            for h in range(Hi):
                if pw[d, h] != 0.0:
                    live[d] = True
            if mine and live[d]:
                for h in range(Hi):
                    tot = 0.0
                    for a in range(k):
                        x = reg_i[e0 + a, h]
                        if x > 0.0:
                            tot += x
                    for a in range(k):
                        x = reg_i[e0 + a, h]
                        s = (x / tot if x > 0.0 else 0.0) if tot > 0.0 else 1.0 / k
                        si[d, a, h] = s
                        avg_i[e0 + a, h] += pw[d, h] * s
            nxt[d] = top + 1
        if nxt[d] < n:
            b = nxt[d]
            nxt[d] += 1
            a = b - tops[d] - 1
            if mine:
                if live[d]:
                    for h in range(Hi):
                        pw[d + 1, h] = pw[d, h] * si[d, a, h]
                else:
                    for h in range(Hi):
                        pw[d + 1, h] = 0.0
            else:
                pe = (mask[d] | (1 << b)) >> 1
                for h in range(Hi):
                    pw[d + 1, h] = pw[d, h] + pend_i[pe, h]
                    pend_i[pe, h] = 0.0
            mask[d + 1] = mask[d] | (1 << b)
            tops[d + 1] = b
            d += 1
            entering = True
            continue
        if d == 0:
            break
        d -= 1


@njit(cache=True)
def _eval_pass(i, mode, n, F, eoff, c_i, c_j, p_i, p_j, avg_i, avg_j):
    """Player i's expected payoff against the opponent's normalised average ``avg_j``: following its
    own normalised average (mode 0) or best-responding with perfect recall (mode 1: the max per
    hand at its nodes). Subtrees the opponent never enters are skipped (their value is zero)."""
    Hi = c_i.shape[0]
    Hj = c_j.shape[0]
    D = n + 2
    A = n + 1
    mask = np.zeros(D, np.int64)
    tops = np.zeros(D, np.int64)
    nxt = np.zeros(D, np.int64)
    rj = np.zeros((D, Hj))
    si = np.zeros((D, A, Hi))
    totj = np.zeros((D, Hj))
    acc = np.zeros((D, Hi))
    below = np.zeros(c_j.max() + 2)
    sjc = np.zeros(Hj)
    term = np.zeros(Hi)
    for g in range(Hj):
        rj[0, g] = p_j[g]
    d = 0
    tops[0] = -1
    entering = True
    while True:
        if entering:
            entering = False
            top = tops[d]
            k = n - 1 - top + (1 if d > 0 else 0)
            e0 = eoff[mask[d]]
            mine = (d % 2) == i
            if mine and mode == 0:
                for h in range(Hi):
                    tot = 0.0
                    for a in range(k):
                        tot += avg_i[e0 + a, h]
                    for a in range(k):
                        si[d, a, h] = avg_i[e0 + a, h] / tot if tot > 0.0 else 1.0 / k
            elif not mine:
                for g in range(Hj):
                    tot = 0.0
                    for a in range(k):
                        tot += avg_j[e0 + a, g]
                    totj[d, g] = tot
            if d > 0:
                if not mine:
                    for g in range(Hj):
                        sjc[g] = avg_j[e0 + k - 1, g] / totj[d, g] if totj[d, g] > 0.0 else 1.0 / k
                _call_value(i, d, top, F, c_i, c_j, rj[d], sjc, below, term)
                for h in range(Hi):
                    if mine and mode == 0:
                        acc[d, h] = si[d, k - 1, h] * term[h]
                    else:
                        acc[d, h] = term[h]
            else:
                for h in range(Hi):
                    acc[d, h] = -1e300 if (mine and mode == 1) else 0.0
            nxt[d] = top + 1
        mine = (d % 2) == i
        if nxt[d] < n:
            b = nxt[d]
            nxt[d] += 1
            top = tops[d]
            if mine:
                for g in range(Hj):
                    rj[d + 1, g] = rj[d, g]
            else:
                k = n - 1 - top + (1 if d > 0 else 0)
                e = eoff[mask[d]] + b - top - 1
                reached = False
                for g in range(Hj):
                    s = avg_j[e, g] / totj[d, g] if totj[d, g] > 0.0 else 1.0 / k
                    r = rj[d, g] * s
                    rj[d + 1, g] = r
                    if r != 0.0:
                        reached = True
                if not reached:
                    continue
            mask[d + 1] = mask[d] | (1 << b)
            tops[d + 1] = b
            d += 1
            entering = True
            continue
        if d == 0:
            break
        b = tops[d]
        d -= 1
        if (d % 2) == i:
            if mode == 1:
                for h in range(Hi):
                    if acc[d + 1, h] > acc[d, h]:
                        acc[d, h] = acc[d + 1, h]
            else:
                a = b - tops[d] - 1
                for h in range(Hi):
                    acc[d, h] += si[d, a, h] * acc[d + 1, h]
        else:
            for h in range(Hi):
                acc[d, h] += acc[d + 1, h]
    total = 0.0
    for h in range(Hi):
        total += p_i[h] * acc[0, h]
    return total


@dataclass
class FullSolution:
    """Average CFR+ strategies on the full public tree and their exact quality."""

    duel: Duel
    value: float  # seat 0's expected payoff under the average profile
    br0: float  # seat 0's best response against seat 1's average
    br1: float
    iterations: int
    seconds: float
    checks: list[dict[str, float]] = field(default_factory=list)
    tables: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)  # the averages (unnormalised)
    eoff: np.ndarray | None = field(default=None, repr=False)

    @property
    def exploitability(self) -> float:
        return (self.br0 + self.br1) / 2.0

    @property
    def bounds(self) -> tuple[float, float]:
        """The game value lies in ``[-BR_1, BR_0]`` (seat 0's guaranteed payoff, and what seat 1 concedes)."""
        return (-self.br1, self.br0)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.bounds
        return {"duel": self.duel.to_dict(), "value": self.value, "best_response_0": self.br0,
                "best_response_1": self.br1, "exploitability": self.exploitability, "value_low": lo,
                "value_high": hi, "iterations": self.iterations, "seconds": self.seconds, "checks": self.checks}


def evaluate(duel: Duel, avg0: np.ndarray, avg1: np.ndarray, eoff: np.ndarray | None = None) -> dict[str, float]:
    """Exact value and both best responses against the profile of normalised averages (or any
    behaviour strategies in the compact edge layout: rows need not sum to one)."""
    n = duel.n_bids
    if eoff is None:
        eoff, _ = edge_offsets(n)
    _, p0, c0 = duel.hands(0)
    _, p1, c1 = duel.hands(1)
    F = duel.faces
    value = _eval_pass(0, 0, n, F, eoff, c0, c1, p0, p1, avg0, avg1)
    br0 = _eval_pass(0, 1, n, F, eoff, c0, c1, p0, p1, avg0, avg1)
    br1 = _eval_pass(1, 1, n, F, eoff, c1, c0, p1, p0, avg1, avg0)
    return {"value": value, "br0": br0, "br1": br1, "exploitability": (br0 + br1) / 2.0}


CHECKPOINT_KIND = "liars-fulltree-checkpoint"
LAYOUT = "preorder-1"  # the edge layout of :func:`edge_offsets` (a checkpoint in another is refused)


def _checkpoint_meta(duel: Duel, dtype: Any, prune: bool) -> dict[str, Any]:
    return {"duel": duel.to_dict(), "dtype": np.dtype(dtype).name, "prune": bool(prune), "layout": LAYOUT}


def _resume(path: Any, duel: Duel, dtype: Any, prune: bool, shapes: dict[str, tuple[int, int]]
            ) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The arrays and state of the checkpoint at ``path``, or None if there is none yet. A
    checkpoint of another duel or setting, or a damaged one, stops with one line."""
    from dicelab.core.errors import DicelabError
    from dicelab.core.store import expect_array, load_table, table_paths

    npz, js = table_paths(path)
    if not npz.exists() and not js.exists():
        return None
    arrays, meta = load_table(path, CHECKPOINT_KIND)
    want = _checkpoint_meta(duel, dtype, prune)
    for key, value in want.items():
        if meta.get(key) != value:
            raise DicelabError(f"{npz} is a checkpoint of {key} {meta.get(key)!r}, not {value!r}; "
                               "give another --checkpoint file or delete this one")
    for name, shape in shapes.items():
        expect_array(arrays, name, shape, dtype)
    return arrays, meta


def solve_full(duel: Duel, target: float = 1e-4, iterations: int = 100_000, check_every: int = 50,
               dtype: Any = np.float32, prune: bool = True, progress: bool = False,
               say: Any = None, checkpoint: Any = None, checkpoint_every: float = 1800.0,
               max_seconds: float | None = None, parallel: bool | None = None,
               prune_below: float = 0.0) -> FullSolution:
    """CFR+ (t^2 average) on the full public tree until the exact exploitability is below ``target``
    (checked every ``check_every`` iterations) or ``iterations`` have run.

    ``checkpoint``: a file name (``.npz`` + ``.json`` with checksums, :mod:`dicelab.core.store`).
    If it exists the run goes on from it, bit for bit as if it had never stopped; the state is
    written there every ``checkpoint_every`` seconds of wall time and when the run ends.
    ``max_seconds``: stop after the iteration that passes this much wall time (the result then
    carries the last check's quality, and ``iterations`` says how far it got).
    ``parallel`` (default: when numba has more than one thread) spreads each pass over the cores,
    with the same result bit for bit.
    ``prune_below`` (default 0: exact CFR+) also skips every subtree that each opponent hand enters
    with a reach (its chance included) of at most this much. The regrets above then miss those
    subtrees' small counterfactual values, every iteration, so the run is CFR+ only approximately
    and too large a cut stalls it (2 v 1 with 4 faces, ones wild: 1e-4 stalls near 3e-4); the
    exploitability each check reports stays exact, and so does the average (what it misses waits,
    as when pruning). At 2 v 2 with 5 faces, ones wild, 1e-5 visits 0.29 of the nodes and reaches
    1e-4 in as many iterations as exact CFR+ (``BENCHMARKS.md``). A checkpoint may go on with
    another value; the one in force is kept with each check."""
    from dicelab.core.progress import progress_bar
    from dicelab.core.store import save_table

    n = duel.n_bids
    require(n <= MAX_FULL_BIDS, f"{duel.dice[0]} v {duel.dice[1]} with {duel.faces} faces has {n} bids; the full-tree "
            f"solver handles at most {MAX_FULL_BIDS} (2^{MAX_FULL_BIDS} public nodes)")
    require(target > 0, f"the target exploitability must be positive, got {target}")
    require(isinstance(iterations, int) and iterations >= 1, f"iterations must be at least 1, got {iterations}")
    require(checkpoint_every > 0, f"the checkpoint interval must be positive, got {checkpoint_every} s")
    require(0.0 <= prune_below < 1.0 and (prune or prune_below == 0.0),
            f"prune_below is a reach between 0 and 1 and needs prune=True, got {prune_below}")
    import numba

    t0, cpu0 = time.perf_counter(), time.process_time()
    eoff, sizes = edge_offsets(n)
    _, p0, c0 = duel.hands(0)
    _, p1, c1 = duel.hands(1)
    H = (len(p0), len(p1))
    one_pass = _cfr_pass_parallel if (numba.get_num_threads() > 1 if parallel is None else parallel) else _cfr_pass
    prows = (1 << (n - 1)) if prune else 1
    shapes = {f"{kind}{p}": ((prows if kind == "pend" else sizes[p]), H[p])
              for kind in ("reg", "avg", "pend") for p in (0, 1)}
    state = _resume(checkpoint, duel, dtype, prune, shapes) if checkpoint is not None else None
    # pending average weight of player p at its own nodes below an opponent's edge (pruning); a bid
    # set and the set with bit 0 flipped have opposite movers, so ``mask >> 1`` numbers p's nodes
    if state is None:
        tabs = {name: np.zeros(shape, dtype=dtype) for name, shape in shapes.items()}
        first, past_seconds, past_cpu = 1, 0.0, 0.0
        checks: list[dict[str, float]] = []
    else:
        tabs, meta = state
        first = int(meta["iterations"]) + 1
        past_seconds, past_cpu = float(meta["seconds"]), float(meta["cpu"])
        checks = list(meta["checks"])
    reg = [tabs["reg0"], tabs["reg1"]]
    avg = [tabs["avg0"], tabs["avg1"]]
    pend = [tabs["pend0"], tabs["pend1"]]
    stats = np.zeros(2, dtype=np.int64)
    last = checks[-1] if checks else {}
    quality = {k: float(last.get(k, d)) for k, d in
               (("value", math.nan), ("br0", math.inf), ("br1", math.inf), ("exploitability", math.inf))}
    done = first - 1
    saved_at = time.perf_counter()

    def seconds() -> float:
        return past_seconds + time.perf_counter() - t0

    def cpu() -> float:
        return past_cpu + time.process_time() - cpu0

    def save() -> None:
        meta = {**_checkpoint_meta(duel, dtype, prune), "iterations": done, "seconds": seconds(), "cpu": cpu(),
                "checks": checks}
        save_table(checkpoint, CHECKPOINT_KIND, tabs, meta, compress=False)

    with progress_bar(f"CFR+ full tree {duel.dice[0]}v{duel.dice[1]}", total=iterations, enabled=progress) as bar:
        bar.advance(first - 1)
        for t in range(first, iterations + 1):
            w = float(t) ** 2
            stats[0] = 0
            one_pass(0, n, duel.faces, eoff, c0, c1, p1, reg[0], avg[0], reg[1], pend[0], w, prune, stats, prune_below)
            one_pass(1, n, duel.faces, eoff, c1, c0, p0, reg[1], avg[1], reg[0], pend[1], w, prune, stats, prune_below)
            done = t
            bar.advance()
            if t % check_every == 0 or t == iterations:
                if prune:
                    for p in (0, 1):
                        _flush(p, n, eoff, reg[p], avg[p], pend[p])
                quality = evaluate(duel, avg[0], avg[1], eoff)
                row = {"iterations": t, "seconds": seconds(), "cpu": cpu(), "nodes": int(stats[0]),
                       "prune_below": float(prune_below),
                       **{k: float(v) for k, v in quality.items()}}
                checks.append(row)
                if say is not None:
                    say(row)
                if quality["exploitability"] < target:
                    break
            if max_seconds is not None and time.perf_counter() - t0 >= max_seconds:
                break
            if checkpoint is not None and time.perf_counter() - saved_at >= checkpoint_every:
                save()
                saved_at = time.perf_counter()
    if checkpoint is not None:
        save()
    return FullSolution(duel, quality["value"], quality["br0"], quality["br1"], done, seconds(),
                        checks, (avg[0], avg[1]), eoff)


__all__ = ["CHECKPOINT_KIND", "FullSolution", "edge_offsets", "evaluate", "solve_full"]
