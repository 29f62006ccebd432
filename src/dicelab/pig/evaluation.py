"""Exact strategy-against-strategy evaluation and best responses for Pig (seed 002, 2.2-2.3).

Two fixed strategies make the game a Markov chain; its linear system is solved exactly, block by
block of banked scores, with stalemates (seed 002, section 2.3.4) reported as their own outcome.
Best responses are policy iteration on the same blocks. The derivation is in
``docs/methods/pig.md``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numba import prange

from dicelab.core.errors import require
from dicelab.core.jit import njit, readonly
from dicelab.core.results import BestResponse as CoreBestResponse
from dicelab.core.results import HeadToHead
from dicelab.pig.rules import PigRules
from dicelab.pig.strategies import TableStrategy, to_strategy
from dicelab.pig.unroll import unrolled_outcomes

RESET_TOL = 1e-15
MAX_PASSES = 2000
TIE = 1e-14  # roll and hold values closer than this are a tie (rounding must not flip a choice)


# ---------------------------------------------------------------------------------------------
# numba kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _reach_limit(t, adds, out):
    """out[x, y] = the largest turn total the mover can reach in one turn from (x, y, 0) with
    decision table t (states above it are never visited, so evaluation can skip them)."""
    g = t.shape[0]
    nd = adds.shape[0]
    reach = np.zeros(2 * g + 64, dtype=np.bool_)
    for x in range(g):
        K = g - x
        for y in range(g):
            reach[:K] = False
            reach[0] = True
            top = 0
            for k in range(K):
                if reach[k]:
                    top = k
                    if t[x, y, k]:
                        for m in range(nd):
                            kk = k + adds[m]
                            if kk < K:
                                reach[kk] = True
            out[x, y] = top


@njit(cache=True, nogil=True)
def _reach_blocks(ra, rb, la, lb, adds, resets, reach, fill=False):
    """reach[x, y] = whether banked scores (x, y) (A's, B's) occur in some game from (0, 0).

    A forward sweep, lowest layer first: from a reachable block, every turn total k > 0 at which
    the mover holds (and that a turn can reach) leads to the block with k added to the mover.
    With ``resets`` (two dice), a player who rolls at all can be sent back to 0 (a lower layer),
    so sweeps repeat until nothing new is marked.

    ``fill``: la[x, y] and lb[y, x] (the reach limits, :func:`_reach_limit`) are not given but
    found here, for the blocks that occur only (the others are never evaluated): the same
    forward scan of the turn, run to the goal instead of to the limit.
    """
    g = ra.shape[0]
    nd = adds.shape[0]
    rk = np.zeros(2 * g + 64, dtype=np.bool_)
    reach[:, :] = False
    reach[0, 0] = True
    while True:
        fresh = False
        for s in range(0, 2 * g - 1):
            xlo = s - g + 1
            if xlo < 0:
                xlo = 0
            xhi = s if s < g - 1 else g - 1
            for x in range(xlo, xhi + 1):
                y = s - x
                if not reach[x, y]:
                    continue
                top = la[x, y] if not fill else g - 1 - x
                rk[: top + 1] = False
                rk[0] = True
                rolls = False
                last = 0
                for k in range(top + 1):
                    if rk[k]:
                        last = k
                        if ra[x, y, k]:
                            rolls = True
                            for m in range(nd):
                                kk = k + adds[m]
                                if kk <= top:
                                    rk[kk] = True
                        elif k > 0 and not reach[x + k, y]:
                            reach[x + k, y] = True
                if fill:
                    la[x, y] = last
                if resets and rolls and not reach[0, y]:
                    reach[0, y] = True
                    fresh = True
                top = lb[y, x] if not fill else g - 1 - y
                rk[: top + 1] = False
                rk[0] = True
                rolls = False
                last = 0
                for k in range(top + 1):
                    if rk[k]:
                        last = k
                        if rb[y, x, k]:
                            rolls = True
                            for m in range(nd):
                                kk = k + adds[m]
                                if kk <= top:
                                    rk[kk] = True
                        elif k > 0 and not reach[x, y + k]:
                            reach[x, y + k] = True
                if fill:
                    lb[y, x] = last
                if resets and rolls and not reach[x, 0]:
                    reach[x, 0] = True
                    fresh = True
        if not fresh:
            break


@njit(cache=True, nogil=True)
def _eval_pass(ra, rb, la, lb, reach, adds, probs, bust, reset, A0, B0, al, be, bb):
    """One pass over all layers: P(A wins) at every k = 0 state, A0[x, y] and B0[y, x].

    ``ra[x, y, k]`` / ``rb[y, x, k]``: A's / B's decision tables; ``la``/``lb`` their reach
    limits (:func:`_reach_limit`): k above them is never visited and is skipped, and so are
    blocks with ``reach[x, y]`` False (never visited; their values stay 0). Reset targets (A0[x, 0],
    B0[y, 0] of lower layers) are read as left by the previous pass. Returns (largest change of a
    reset target, whether some block stalled). ``al, be, bb``: work arrays of length goal + max(d) + 1.
    """
    g = ra.shape[0]
    nd = adds.shape[0]
    maxd = 0
    for m in range(nd):
        if adds[m] > maxd:
            maxd = adds[m]
    change = 0.0
    stalled = False
    for s in range(2 * g - 2, -1, -1):
        xlo = s - g + 1
        if xlo < 0:
            xlo = 0
        xhi = s if s < g - 1 else g - 1
        for x in range(xlo, xhi + 1):
            y = s - x
            if not reach[x, y]:
                continue
            # ---- A's turn in block (x, y): a(x,y,k) = al[k] + be[k] * b0; bb = 1 - be
            K = g - x
            top = la[x, y]
            for t in range(top + 1, top + maxd + 1):
                al[t] = 1.0 if t >= K else 0.0
                be[t] = 0.0
                bb[t] = 1.0
            rt = B0[y, 0]
            for k in range(top, -1, -1):
                if ra[x, y, k]:
                    sa = 0.0
                    sb = 0.0
                    sbb = 0.0
                    for m in range(nd):
                        p = probs[m]
                        kk = k + adds[m]
                        sa += p * al[kk]
                        sb += p * be[kk]
                        sbb += p * bb[kk]
                    if x == 0:
                        sb += bust + reset
                    else:
                        sb += bust
                        sa += reset * rt
                        sbb += reset
                    al[k] = sa
                    be[k] = sb
                    bb[k] = sbb
                elif k == 0:
                    al[0] = 0.0
                    be[0] = 1.0
                    bb[0] = 0.0
                else:
                    al[k] = B0[y, x + k]
                    be[k] = 0.0
                    bb[k] = 1.0
            alpha = al[0]
            beta = be[0]
            betabar = bb[0]
            # ---- B's turn in block (x, y): b(y,x,k) = al[k] + be[k] * a0 (A's win prob)
            K = g - y
            top = lb[y, x]
            for t in range(top + 1, top + maxd + 1):
                al[t] = 0.0
                be[t] = 0.0
                bb[t] = 1.0
            rt = A0[x, 0]
            for k in range(top, -1, -1):
                if rb[y, x, k]:
                    sa = 0.0
                    sb = 0.0
                    sbb = 0.0
                    for m in range(nd):
                        p = probs[m]
                        kk = k + adds[m]
                        sa += p * al[kk]
                        sb += p * be[kk]
                        sbb += p * bb[kk]
                    if y == 0:
                        sb += bust + reset
                    else:
                        sb += bust
                        sa += reset * rt
                        sbb += reset
                    al[k] = sa
                    be[k] = sb
                    bb[k] = sbb
                elif k == 0:
                    al[0] = 0.0
                    be[0] = 1.0
                    bb[0] = 0.0
                else:
                    al[k] = A0[x, y + k]
                    be[k] = 0.0
                    bb[k] = 1.0
            gamma = al[0]
            delta = be[0]
            deltabar = bb[0]
            den = betabar + beta * deltabar
            if den <= 0.0:
                a0 = 0.0
                b0 = 0.0
                stalled = True
            else:
                a0 = (alpha + beta * gamma) / den
                b0 = gamma + delta * a0
            if y == 0:
                c = abs(a0 - A0[x, 0])
                if c > change:
                    change = c
            if x == 0:
                c = abs(b0 - B0[y, 0])
                if c > change:
                    change = c
            A0[x, y] = a0
            B0[y, x] = b0
    return change, stalled


@njit(cache=True, nogil=True)
def _turn_law(t, x, y, K, top, adds, probs, bust, reset, q, ci, cv, n):
    """The end of one turn from (x, y, 0) under table t: where the turn's probability goes.

    A forward sweep of the reach probabilities q[k] of turn totals 0..top. Appends to ci/cv (from
    position n) every hold at a turn total j > 0 with its probability; returns (the new n, P(the
    turn reaches the goal), P(bust), P(reset: double ones), P(holding at k = 0)).
    """
    nd = len(adds)  # an array, or a tuple (then the loops below are unrolled)
    for k in range(top + 1):
        q[k] = 0.0
    q[0] = 1.0
    win = 0.0
    bm = 0.0
    rm = 0.0
    h0 = 0.0
    for k in range(top + 1):
        qk = q[k]
        if qk == 0.0:
            continue
        if t[x, y, k]:
            for m in range(nd):
                kk = k + adds[m]
                if kk >= K:
                    win += probs[m] * qk
                else:
                    q[kk] += probs[m] * qk
            bm += bust * qk
            rm += reset * qk
        elif k == 0:
            h0 = qk
        else:
            ci[n] = k
            cv[n] = qk
            n += 1
    return n, win, bm, rm, h0


@njit(cache=True, nogil=True)
def _turn_laws(ra, rb, la, lb, reach, adds, probs, bust, reset):
    """Every occurring block's two turn laws (:func:`_turn_law`), in pass order (decreasing sums).

    Returns (bx, by, ptr, ci, cv, sc): block b is (bx[b], by[b]); A's holds are
    ci/cv[ptr[2b]:ptr[2b+1]], B's ci/cv[ptr[2b+1]:ptr[2b+2]]; sc[b] = (A's win mass, A's reset
    mass read from B0[y, 0], beta, betabar, B's reset mass read from A0[x, 0], delta, deltabar) with
    the slopes of :func:`_eval_pass`: a block's value is a0 = (alpha + beta gamma) / (betabar +
    beta deltabar), b0 = gamma + delta a0, alpha and gamma the sums of the holds' values.
    """
    g = ra.shape[0]
    maxd = 0
    for m in range(adds.shape[0]):
        maxd = max(maxd, adds[m])
    nb = 0
    cap = 0
    for x in range(g):
        for y in range(g):
            if reach[x, y]:
                nb += 1
                cap += la[x, y] + lb[y, x] + 2
    bx = np.empty(nb, dtype=np.int64)
    by = np.empty(nb, dtype=np.int64)
    ptr = np.empty(2 * nb + 1, dtype=np.int64)
    ci = np.empty(cap, dtype=np.int64)
    cv = np.empty(cap)
    sc = np.empty((nb, 7))
    q = np.empty(2 * g + maxd + 2)
    b = 0
    n = np.int64(0)
    ptr[0] = 0
    for s in range(2 * g - 2, -1, -1):
        xlo = max(s - g + 1, 0)
        xhi = min(s, g - 1)
        for x in range(xlo, xhi + 1):
            y = s - x
            if not reach[x, y]:
                continue
            bx[b] = x
            by[b] = y
            n0 = n
            n, win, bm, rm, h0 = _turn_law(ra, x, y, g - x, la[x, y], adds, probs, bust, reset,
                                           q, ci, cv, n)
            held = 0.0
            for i in range(n0, n):
                held += cv[i]
            sc[b, 0] = win
            if x > 0:
                sc[b, 1] = rm
                sc[b, 2] = bm + h0
                sc[b, 3] = win + held + rm
            else:
                sc[b, 1] = 0.0
                sc[b, 2] = bm + rm + h0
                sc[b, 3] = win + held
            ptr[2 * b + 1] = n
            n0 = n
            n, win, bm, rm, h0 = _turn_law(rb, y, x, g - y, lb[y, x], adds, probs, bust, reset,
                                           q, ci, cv, n)
            held = 0.0
            for i in range(n0, n):
                held += cv[i]
            if y > 0:
                sc[b, 4] = rm
                sc[b, 5] = bm + h0
                sc[b, 6] = win + held + rm
            else:
                sc[b, 4] = 0.0
                sc[b, 5] = bm + rm + h0
                sc[b, 6] = win + held
            ptr[2 * b + 2] = n
            b += 1
    return bx, by, ptr, ci, cv, sc


@njit(cache=True, nogil=True)
def _law_pass(bx, by, ptr, ci, cv, sc, A0, B0):
    """One pass of :func:`_eval_pass` from the turn laws (:func:`_turn_laws`): per block, a sum
    over the turn's holds instead of a sweep over its turn totals. Returns whether a block
    stalled."""
    stalled = False
    for b in range(bx.shape[0]):
        x = bx[b]
        y = by[b]
        alpha = sc[b, 0] + sc[b, 1] * B0[y, 0]
        for i in range(ptr[2 * b], ptr[2 * b + 1]):
            alpha += cv[i] * B0[y, x + ci[i]]
        gamma = sc[b, 4] * A0[x, 0]
        for i in range(ptr[2 * b + 1], ptr[2 * b + 2]):
            gamma += cv[i] * A0[x, y + ci[i]]
        beta = sc[b, 2]
        den = sc[b, 3] + beta * sc[b, 6]
        if den <= 0.0:
            a0 = 0.0
            b0 = 0.0
            stalled = True
        else:
            a0 = (alpha + beta * gamma) / den
            b0 = gamma + sc[b, 5] * a0
        A0[x, y] = a0
        B0[y, x] = b0
    return stalled


@njit(cache=True, nogil=True)
def _eval_win(ra, rb, la, lb, reach, adds, probs, bust, reset, tol, max_passes, A0, B0, warm):
    """P(A wins) at the k = 0 states, to convergence of the reset targets. Returns (passes, stalled).

    Without resets one pass is exact. With resets, a pass is an affine map F of the reset
    targets R = (A0[:, 0], B0[:, 0]) (every read of a target in a pass sees the previous pass's
    value), and the fixed point R = F(R) is found by Anderson acceleration (memory 6) on top of
    the plain iteration; it stops once a pass changes no target by more than ``tol``, so the
    tables left in A0/B0 are those of a pass whose input is within ``tol`` of its output.
    With resets every pass is made from the turn laws (:func:`_turn_laws`, found once): a pass
    then costs a sum over each turn's holds, not a sweep over its turn totals.
    """
    g = ra.shape[0]
    n = g + 64
    for m in range(adds.shape[0]):
        n += adds[m]
    al = np.empty(n)
    be = np.empty(n)
    bb = np.empty(n)
    mem = 6
    nr = 2 * g
    x = np.zeros(nr)  # the input of the first pass: 0, or (warm) the reset targets given
    if warm:
        for q in range(g):
            x[q] = A0[q, 0]
            x[g + q] = B0[q, 0]
    else:
        A0[:, :] = 0.0
        B0[:, :] = 0.0
    passes = 1
    if reset == 0.0:
        _, stalled = _eval_pass(
            ra, rb, la, lb, reach, adds, probs, bust, reset, A0, B0, al, be, bb
        )
        return passes, stalled
    bx, by, ptr, ci, cv, sc = _turn_laws(ra, rb, la, lb, reach, adds, probs, bust, reset)
    stalled = _law_pass(bx, by, ptr, ci, cv, sc, A0, B0)
    f = np.empty(nr)
    xp = np.zeros(nr)
    fp = np.zeros(nr)
    dX = np.zeros((mem, nr))
    dF = np.zeros((mem, nr))
    count = 0
    slot = 0
    while True:
        res = 0.0
        for q in range(g):
            f[q] = A0[q, 0] - x[q]
            f[g + q] = B0[q, 0] - x[g + q]
        for q in range(nr):
            if abs(f[q]) > res:
                res = abs(f[q])
        if res <= tol or passes >= max_passes:
            break
        if passes > 1:
            dX[slot] = x - xp
            dF[slot] = f - fp
            slot = (slot + 1) % mem
            if count < mem:
                count += 1
        xp[:] = x
        fp[:] = f
        xn = x + f
        if count > 0:
            gamma = np.linalg.lstsq(dF[:count].T.copy(), f)[0]
            for c in range(count):
                xn -= gamma[c] * (dX[c] + dF[c])
        for q in range(nr):
            v = xn[q]
            x[q] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        for q in range(g):
            A0[q, 0] = x[q]
            B0[q, 0] = x[g + q]
        stalled = _law_pass(bx, by, ptr, ci, cv, sc, A0, B0)
        passes += 1
    return passes, stalled


@njit(cache=True, nogil=True)
def _eval_pair(ra, rb, la, lb, adds, probs, bust, reset, tol, max_passes, out, fill=False):
    """Evaluate A (table ra) against B (rb): out = [a_first, b_first, stall_a_first,
    stall_b_first, passes]. ``fill``: the reach limits la, lb are found on the way (for the
    blocks that occur) instead of given."""
    g = ra.shape[0]
    A0 = np.empty((g, g))
    B0 = np.empty((g, g))
    reach = np.ones((g, g), dtype=np.bool_)
    _reach_blocks(ra, rb, la, lb, adds, reset > 0.0, reach, fill)
    passes, stalled = _eval_win(
        ra, rb, la, lb, reach, adds, probs, bust, reset, tol, max_passes, A0, B0, np.bool_(False)
    )
    a_first = A0[0, 0]
    a_second = B0[0, 0]  # P(A wins | B moves first)
    if stalled:
        p2, _ = _eval_win(
            rb, ra, lb, la, reach.T.copy(), adds, probs, bust, reset, tol, max_passes, A0, B0, np.bool_(False)
        )
        passes += p2
        b_first = A0[0, 0]
        b_second = B0[0, 0]  # P(B wins | A moves first)
        sa = 1.0 - a_first - b_second
        sb = 1.0 - b_first - a_second
        out[2] = sa if sa > 0.0 else 0.0
        out[3] = sb if sb > 0.0 else 0.0
    else:
        b_first = 1.0 - a_second
        out[2] = 0.0
        out[3] = 0.0
    out[0] = min(max(a_first, 0.0), 1.0)
    out[1] = min(max(b_first, 0.0), 1.0)
    out[4] = passes


@njit(cache=True, nogil=True, parallel=True)
def _eval_many(tables, limits, ia, ib, adds, probs, bust, reset, tol, max_passes, out, fill):
    """Evaluate the pairs (tables[ia[p]], tables[ib[p]]) in parallel; row p of out as _eval_pair.
    ``fill`` (False: the limits are given) comes from Python, so that it is typed as in
    :func:`evaluate`'s call and one compiled ``_eval_pair`` serves both."""
    for p in prange(ia.shape[0]):
        _eval_pair(
            tables[ia[p]],
            tables[ib[p]],
            limits[ia[p]],
            limits[ib[p]],
            adds,
            probs,
            bust,
            reset,
            tol,
            max_passes,
            out[p],
            fill,
        )


@njit(cache=True, nogil=True)
def _br_pass(rb, lb, adds, probs, tadds, tprobs, bust, reset, A0, B0, pol, al, be, bb, vr, vh,
             q, ci, cv):
    """One pass of the best response of A against B's table rb (policy iteration per block).

    Writes A's choices into pol[x, y, k] and P(A wins) into A0/B0. Returns the largest change of
    a reset target, the most policy-iteration rounds any block needed and whether a block stalled
    (both players pass at turn total 0).
    """
    g = rb.shape[0]
    nd = adds.shape[0]
    maxd = 0
    for m in range(nd):
        if adds[m] > maxd:
            maxd = adds[m]
    change = 0.0
    most = 0
    stalled = False
    for s in range(2 * g - 2, -1, -1):
        xlo = s - g + 1
        if xlo < 0:
            xlo = 0
        xhi = s if s < g - 1 else g - 1
        for x in range(xlo, xhi + 1):
            y = s - x
            # ---- B's fixed turn: b0 = gamma + delta * a0, from the turn's law
            n, win, bm, rm, h0 = _turn_law(rb, y, x, g - y, lb[y, x], tadds, tprobs, bust, reset,
                                           q, ci, cv, np.int64(0))
            gamma = 0.0
            held = 0.0
            for i in range(n):
                gamma += cv[i] * A0[x, y + ci[i]]
                held += cv[i]
            if y > 0:
                gamma += rm * A0[x, 0]
                delta = bm + h0
                deltabar = win + held + rm
            else:
                delta = bm + rm + h0
                deltabar = win + held
            # ---- A's turn: Newton (policy iteration) on the block's a0. One sweep at a guess of
            # b0 chooses greedily (the best stopping rule for that b0) and carries the chosen
            # values as al + be * b0 (bb = 1 - be, summed apart for precision), which gives the
            # exact a0 of those choices; a cheap check then re-decides every k with the roll
            # sums of that sweep at the new b0. If no choice changes, the choices are greedy for
            # their own values (optimal); else the sweep runs again at the new b0.
            K = g - x
            rt = B0[y, 0]
            # guess a0 by extrapolating the blocks above (solved): one round in 99 % of blocks
            if x + 1 < g and y + 1 < g:
                ag = A0[x, y + 1] + A0[x + 1, y] - A0[x + 1, y + 1]
                ag = min(max(ag, 0.0), 1.0)
            elif y + 1 < g:
                ag = A0[x, y + 1]
            elif x + 1 < g:
                ag = A0[x + 1, y]
            else:
                ag = 0.5
            b0 = gamma + delta * ag
            rounds = 0
            a0 = 0.0
            for t in range(K, K + maxd + 1):
                al[t] = 1.0
                be[t] = 0.0
                bb[t] = 1.0
            # the roll's constant terms: bust (and at x = 0 the reset) go to B's turn (slope),
            # a reset at x > 0 to B's turn at (y, 0) (a number this pass)
            cb = bust + reset if x == 0 else bust
            ca = 0.0 if x == 0 else reset * rt
            cbb = 0.0 if x == 0 else reset
            while True:
                rounds += 1
                hrow = B0[y, x:]  # hold values: hrow[k] = B0[y, x + k]
                prow = pol[x, y]
                for k in range(K - 1, 0, -1):
                    sa = ca
                    sb = cb
                    sbb = cbb
                    for m in range(len(tadds)):
                        p = tprobs[m]
                        kk = k + tadds[m]
                        sa += p * al[kk]
                        sb += p * be[kk]
                        sbb += p * bb[kk]
                    vr[k] = sa
                    vh[k] = sb
                    h = hrow[k]
                    # a tie up to rounding holds (rolling must be better by more than TIE)
                    choose = sa + sb * b0 > h + TIE
                    prow[k] = choose
                    al[k] = sa if choose else h
                    be[k] = sb if choose else 0.0
                    bb[k] = sbb if choose else 1.0
                sa = ca
                sb = cb
                sbb = cbb
                for m in range(len(tadds)):
                    p = tprobs[m]
                    kk = tadds[m]
                    sa += p * al[kk]
                    sb += p * be[kk]
                    sbb += p * bb[kk]
                vr[0] = sa
                vh[0] = sb
                # at k = 0 a tie rolls (never stall); holding passes the turn
                choose = not sa + sb * b0 < b0 - TIE
                prow[0] = choose
                al[0] = sa if choose else 0.0
                be[0] = sb if choose else 1.0
                bb[0] = sbb if choose else 0.0
                den = bb[0] + be[0] * deltabar
                if den <= 0.0:
                    a0 = 0.0
                    b0 = 0.0
                    stalled = True
                else:
                    a0 = (al[0] + be[0] * gamma) / den
                    b0 = gamma + delta * a0
                if rounds >= 200:
                    break
                stable = (not vr[0] + vh[0] * b0 < b0 - TIE) == prow[0]
                for k in range(1, K):
                    if (vr[k] + vh[k] * b0 > hrow[k] + TIE) != prow[k]:
                        stable = False
                        break
                if stable:
                    break
            if rounds > most:
                most = rounds
            if y == 0:
                c = abs(a0 - A0[x, 0])
                if c > change:
                    change = c
            if x == 0:
                c = abs(b0 - B0[y, 0])
                if c > change:
                    change = c
            A0[x, y] = a0
            B0[y, x] = b0
    return change, most, stalled


def _best_response(rb, adds, probs, tadds, tprobs, bust, reset, tol, max_passes, A0, B0, pol):
    """Best-response passes until the reset targets settle (two dice) or once (no resets).
    Returns (passes, most rounds of a block, whether the last pass had a stalled block).

    With resets: policy iteration over the whole table. After each best-response pass the values
    of A's current choices are found exactly by the accelerated evaluation (:func:`_eval_win`,
    warm-started), and the next pass improves the choices; it ends when a pass moves no reset
    target by more than ``tol`` (then no choice changed either). The loop runs here and the passes
    compiled: the evaluation reads the choices read-only, as every other caller's tables, so one
    compiled evaluation serves them all.
    """
    g = rb.shape[0]
    n = g + 64 + int(adds.sum())
    al, be, bb, vr, vh, q, cv = (np.empty(n) for _ in range(7))
    ci = np.empty(n, dtype=np.int64)
    A0[:, :] = 0.0
    B0[:, :] = 0.0
    passes = 0
    most = 0
    la = np.zeros((g, g), dtype=np.int64)
    lb = np.zeros((g, g), dtype=np.int64)
    if reset > 0.0:
        _reach_limit(rb, adds, lb)  # the evaluation passes below skip what B never reaches
    else:  # one pass: B's turn laws (:func:`_turn_law`) skip what B never reaches themselves
        lb[:, :] = (g - 1 - np.arange(g))[:, None]
    everywhere = np.ones((g, g), dtype=np.bool_)
    # a read-only view of pol, never a copy: the passes write pol and the evaluation must read
    # the choices they made (readonly() would copy a pol of another order or type)
    choices = pol.view()
    choices.flags.writeable = False
    assert choices.dtype == np.bool_ and choices.flags.c_contiguous
    while True:
        change, m, stalled = _br_pass(
            rb, lb, adds, probs, tadds, tprobs, bust, reset, A0, B0, pol, al, be, bb, vr, vh,
            q, ci, cv,
        )
        passes += 1
        most = max(most, int(m))
        if reset == 0.0 or change <= tol or passes >= max_passes:
            break
        # policy iteration over the whole table: the exact values of the current choices
        # (accelerated, warm-started), then the next best-response pass improves on them
        _reach_limit(choices, adds, la)
        p2, _ = _eval_win(
            choices, rb, la, lb, everywhere, adds, probs, bust, reset, tol, max_passes, A0, B0, True
        )
        passes += int(p2)
    return passes, most, bool(stalled)


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


def _args(rules: PigRules) -> tuple[np.ndarray, np.ndarray, float, float]:
    o = rules.outcomes
    return (
        np.ascontiguousarray(o.add_points, dtype=np.int64),
        np.ascontiguousarray(o.add_probs, dtype=np.float64),
        float(o.bust),
        float(o.reset),
    )


@dataclass(frozen=True, kw_only=True)
class Evaluation(HeadToHead):
    """Exact outcome probabilities of A against B: a :class:`~dicelab.core.results.HeadToHead`
    (``a_first`` = P(A wins | A moves first), ``a_second`` = P(A wins | B moves first), ``mean``)
    with Pig's stalemates.

    ``b_first``: P(B wins | B moves first); ``stalemate_a_first`` / ``stalemate_b_first``: P(the
    game never ends) with A / B first; ``a_overall`` (= ``mean``): A's chance when the first move
    alternates, ``(a_first + 1 - b_first - stalemate_b_first) / 2``, which is seed 002's
    ``(x + 1 - y) / 2`` when nothing stalls.
    """

    b_first: float
    stalemate_a_first: float
    stalemate_b_first: float
    passes: int
    seconds: float

    @property
    def b_second(self) -> float:
        """P(B wins | A moves first)."""
        return 1.0 - self.a_first - self.stalemate_a_first

    @property
    def a_overall(self) -> float:
        return self.mean

    @property
    def b_overall(self) -> float:
        return 0.5 * (self.b_first + self.b_second)

    @property
    def stalemate_overall(self) -> float:
        return 0.5 * (self.stalemate_a_first + self.stalemate_b_first)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(
            a_overall=self.a_overall,
            b_overall=self.b_overall,
            stalemate_overall=self.stalemate_overall,
        )
        return d


def evaluate(a: Any, b: Any, rules: PigRules | None = None) -> Evaluation:
    """Exact win and stalemate probabilities of strategy ``a`` against ``b`` (module docstring).

    ``a`` and ``b`` are strategy objects, callables or decision tables
    (:func:`~dicelab.pig.strategies.to_strategy`); :func:`dicelab.pig.evaluate` also takes specs.

    >>> from dicelab.pig.rules import PigRules
    >>> from dicelab.pig.strategies import HoldAt
    >>> e = evaluate(HoldAt("hold:20", 20), HoldAt("hold:21", 21), PigRules())
    >>> round(e.a_first, 4), round(e.b_first, 4), round(e.a_overall, 4)
    (0.5426, 0.5258, 0.5084)
    """
    rules = rules or PigRules()
    sa, sb = to_strategy(a), to_strategy(b)
    ta, tb = readonly(sa.table(rules), np.bool_), readonly(sb.table(rules), np.bool_)
    adds, probs, bust, reset = _args(rules)
    out = np.zeros(5)
    t0 = time.perf_counter()
    g = rules.goal
    # reach limits found by the block-reachability sweep, for the blocks that occur only
    la = np.zeros((g, g), dtype=np.int64)
    lb = np.zeros((g, g), dtype=np.int64)
    _eval_pair(ta, tb, la, lb, adds, probs, bust, reset, RESET_TOL, MAX_PASSES, out, True)
    a_first, b_first, stalemate_a, stalemate_b = (float(x) for x in out[:4])
    return Evaluation(
        a=sa.name, b=sb.name, a_first=a_first, a_second=1.0 - b_first - stalemate_b, b_first=b_first,
        stalemate_a_first=stalemate_a, stalemate_b_first=stalemate_b, passes=int(out[4]),
        seconds=time.perf_counter() - t0,
    )


def reach_limits(table: np.ndarray, rules: PigRules) -> np.ndarray:
    """For each (x, y), the largest turn total reachable in one turn under ``table``."""
    g = table.shape[0]
    out = np.zeros((g, g), dtype=np.int64)
    _reach_limit(readonly(table, np.bool_), _args(rules)[0], out)
    return out


def evaluate_many(
    tables: np.ndarray, pairs: np.ndarray, rules: PigRules, limits: np.ndarray | None = None
) -> np.ndarray:
    """Evaluate many pairs in parallel (all cores): ``tables`` (n, goal, goal, goal) bool,
    ``pairs`` (m, 2) indices. Returns (m, 5): a_first, b_first, stalemate_a_first,
    stalemate_b_first, passes. Results do not depend on the number of threads."""
    adds, probs, bust, reset = _args(rules)
    tables = readonly(tables, np.bool_)  # read-only on every path: one compiled kernel
    if limits is None:
        limits = np.stack([reach_limits(t, rules) for t in tables])
    limits = np.require(limits, np.int64, ["C", "W"])  # as evaluate's: one compiled kernel
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    out = np.zeros((len(pairs), 5))
    if len(pairs):
        _eval_many(
            tables,
            limits,
            np.ascontiguousarray(pairs[:, 0]),
            np.ascontiguousarray(pairs[:, 1]),
            adds,
            probs,
            bust,
            reset,
            RESET_TOL,
            MAX_PASSES,
            out,
            False,
        )
    return out


@dataclass(frozen=True, kw_only=True)
class BestResponse(CoreBestResponse):
    """The exact best response to strategy ``against``: its decision ``table`` (also as
    ``strategy``) and ``result``, its :class:`Evaluation` against ``against``."""

    result: Evaluation
    table: np.ndarray
    passes: int
    max_rounds: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        e = self.result
        return {
            "against": self.against,
            "a_first": e.a_first,
            "a_second": e.a_second,
            "b_first": e.b_first,
            "a_overall": e.a_overall,
            "stalemate_a_first": e.stalemate_a_first,
            "stalemate_b_first": e.stalemate_b_first,
            "passes": self.passes,
            "seconds": self.seconds,
        }


def best_response(b: Any, rules: PigRules | None = None) -> BestResponse:
    """The exact optimal counter-strategy to the fixed strategy ``b`` (module docstring).

    The response maximises A's win probability from every state at once, so it is best whether
    A moves first or second. Against ``optimal`` it is optimal play again (P = 0.5305927 at 100).
    """
    rules = rules or PigRules()
    sb = to_strategy(b)
    tb = readonly(sb.table(rules), np.bool_)
    g = rules.goal
    adds, probs, bust, reset = _args(rules)
    A0 = np.zeros((g, g))
    B0 = np.zeros((g, g))
    pol = np.zeros((g, g, g), dtype=np.bool_)
    t0 = time.perf_counter()
    # the outcomes also as tuples for the common dice: the sweep's sums are then unrolled
    tadds, tprobs = unrolled_outcomes(adds, probs)
    passes, most, stalled = _best_response(
        tb, adds, probs, tadds, tprobs, bust, reset, RESET_TOL, MAX_PASSES, A0, B0, pol
    )
    seconds = time.perf_counter() - t0
    table = pol  # choices at x + k >= goal (no state) are never written: False
    strategy = TableStrategy(f"best-response:{sb.name}", roll_table=table)
    if reset == 0.0 and not stalled:
        # one pass is exact without resets, and without a stalled block the game always ends:
        # the values of the pass are the evaluation (A0: A moves first, B0: B moves first)
        a_first = min(max(float(A0[0, 0]), 0.0), 1.0)
        a_second = min(max(float(B0[0, 0]), 0.0), 1.0)
        ev = Evaluation(
            a=strategy.name, b=sb.name, a_first=a_first, a_second=a_second,
            b_first=1.0 - a_second, stalemate_a_first=0.0, stalemate_b_first=0.0, passes=1,
            seconds=seconds,
        )
    else:
        ev = evaluate(strategy, sb, rules)
    return BestResponse(against=sb.name, strategy=strategy, result=ev, table=table, passes=int(passes),
                        max_rounds=int(most), seconds=seconds)


@dataclass
class IterationStep:
    """One step of iterated best response: ``S_n = best_response(S_{n-1})``."""

    iteration: int
    a_first: float  # P(S_n wins | S_n first) against S_{n-1}
    b_first: float  # P(S_{n-1} wins | S_{n-1} first)
    a_overall: float
    changed_states: int  # states where S_n differs from S_{n-1}
    differs_from_optimal: int  # states where S_n differs from the optimal policy
    self_play_first: float  # P(first player wins) when S_n plays itself

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IteratedBestResponse:
    """The history of iterated best response from ``start`` and where it ended."""

    start: str
    steps: list[IterationStep] = field(default_factory=list)
    converged: bool = False
    reached_optimal_at: int | None = None
    table: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "converged": self.converged,
            "reached_optimal_at": self.reached_optimal_at,
            "iterations": [s.to_dict() for s in self.steps],
        }


def iterated_best_response(
    start: Any, rules: PigRules | None = None, max_iter: int = 20, on_step: Any = None
) -> IteratedBestResponse:
    """Repeat ``S <- best_response(S)`` from ``start`` (seed 002, 2.3.5) and report every step.

    Stops at a fixed point (``S`` is a best response to itself: an equilibrium) or after
    ``max_iter`` steps. Each step counts the states where the new policy differs from the old
    one and from the optimal policy; ``reached_optimal_at`` is the first step whose policy is
    the optimal one at every state, or ``None``.
    """
    from dicelab.pig.solver import solve_cached

    require(
        isinstance(max_iter, int) and 1 <= max_iter <= 1000,
        f"max_iter must be a whole number from 1 to 1000, got {max_iter}",
    )
    rules = rules or PigRules()
    s = to_strategy(start)
    opt = solve_cached(rules).roll
    prev = s.table(rules)
    report = IteratedBestResponse(s.name)
    for n in range(1, max_iter + 1):
        br = best_response(TableStrategy(f"S{n - 1}", roll_table=prev), rules)
        new = br.table
        selfplay = evaluate(new, new, rules)
        e = br.result
        step = IterationStep(
            n,
            e.a_first,
            e.b_first,
            e.a_overall,
            int((new != prev).sum()),
            int((new != opt).sum()),
            selfplay.a_first,
        )
        report.steps.append(step)
        if on_step is not None:
            on_step(step)
        if step.differs_from_optimal == 0 and report.reached_optimal_at is None:
            report.reached_optimal_at = n
        prev = new
        if step.changed_states == 0:
            report.converged = True
            break
    report.table = prev
    return report


def linear_system(
    a: Any, b: Any, rules: PigRules | None = None
) -> tuple[Any, np.ndarray, int, int]:
    """The whole evaluation system ``M v = r`` as one sparse matrix (for checks and benchmarks).

    Unknowns: ``P(A wins)`` at every A-to-move state ``(x, y, k)`` (first ``N`` entries, ``N`` =
    :attr:`PigRules.n_states`, in :meth:`PigRules.states` order) and at every B-to-move state
    ``(y, x, k)`` (next ``N``). Returns ``(M, r, index of A's (0,0,0), index of B's (0,0,0))``.
    ``M`` is singular exactly when some state stalls (both players skip); :func:`evaluate` solves
    the same system layer by layer instead.
    """
    import scipy.sparse as sp

    rules = rules or PigRules()
    g = rules.goal
    ta, tb = to_strategy(a).table(rules), to_strategy(b).table(rules)
    o = rules.outcomes
    ii, jj, kk = np.nonzero(
        np.arange(g)[:, None, None] + np.arange(g)[None, None, :]
        < g + np.zeros((1, g, 1), dtype=np.int64)
    )
    n = len(ii)
    idx = np.full((g, g, g), -1, dtype=np.int64)
    idx[ii, jj, kk] = np.arange(n)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    r = np.zeros(2 * n)
    for table, off, other, win in ((ta, 0, n, 1.0), (tb, n, 0, 0.0)):
        me = np.arange(n) + off
        rows.append(me)
        cols.append(me)
        vals.append(np.ones(n))
        roll = table[ii, jj, kk]
        x, y, k = ii[roll], jj[roll], kk[roll]
        src = me[roll]
        for d, p in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
            done = x + k + d >= g
            r[src[done]] += p * win
            rows.append(src[~done])
            cols.append(off + idx[x[~done], y[~done], k[~done] + d])
            vals.append(np.full(int((~done).sum()), -p))
        rows.append(src)
        cols.append(other + idx[y, x, 0])
        vals.append(np.full(len(src), -o.bust))
        if o.reset > 0:
            rows.append(src)
            cols.append(other + idx[y, 0, 0])
            vals.append(np.full(len(src), -o.reset))
        hold = ~roll
        x, y, k = ii[hold], jj[hold], kk[hold]
        rows.append(me[hold])
        cols.append(other + idx[y, x + k, 0])
        vals.append(np.full(len(x), -1.0))
    m = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(2 * n, 2 * n)
    )
    return m, r, int(idx[0, 0, 0]), n + int(idx[0, 0, 0])
