"""Exact optimal play for two-player Pig and its dice variants.

Solves Neller & Presser's equations score layer by score layer (mirror score pairs by Newton's
method on their piecewise-linear fixed point), the two-dice reset by an outer fixed point, and
the turn-limited form of seed 003. The derivation is in ``docs/methods/pig.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError
from dicelab.core.jit import njit
from dicelab.core.store import cached, expect_array, load_as, save_table
from dicelab.pig.rules import PigRules
from dicelab.pig.unroll import unrolled_outcomes

KIND = "pig-solution"
FALLBACK_PASSES = 200_000  # plain fixed-point passes per pair when Newton does not settle
FLOOR = 1e-12  # a fixed-point step this small that stops shrinking is rounding noise
MAX_SWEEPS = 500  # outer sweeps of the two-dice reset iteration
MAX_RESIDUAL = 1e-9  # a finished table further than this from the Bellman equations is an error
MAX_WORK = 5e10  # multiply-adds a solve may need (a minute or two on one core)
ACCEPT = 1e-15  # a pair's turns are final once their Bellman residual is this small
LAYER_AGAIN = 8  # unsettled pairs in a layer from which a second whole-layer pass pays
LANES = 8  # turns of a layer are padded to a multiple of this (AVX-512 doubles)

# ---------------------------------------------------------------------------------------------
# numba kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _turn(P0, i, j, y, r_opp, goal, pts, prb, p_bust, p_reset, V, dV):
    """One backward pass over the mover's turn at banked scores (i, j).

    ``y`` is the current value of P(j, i, 0) (what the opponent gets after a bust or a skip);
    ``r_opp`` is P(j, 0, 0) (after a two-dice reset; ignored when i == 0, where it equals y).
    Fills V[k] (the optimal values) and dV[k] = dV[k]/dy for k = goal - 1 - i down to 0; V and
    dV hold 1.0 and 0.0 above the top (wins), so every roll outcome reads V without a branch.
    Hold values for k > 0 read the higher layer through the plane ``P0[j, t] = P(j, t, 0)``.
    """
    top = goal - 1 - i
    m = len(pts)  # pts and prb come as tuples: the outcome loops unroll
    for t in range(top + 1, V.shape[0]):
        V[t] = 1.0
        dV[t] = 0.0
    reset_val = 1.0 - y if i == 0 else 1.0 - r_opp
    reset_slope = -1.0 if i == 0 else 0.0
    c0 = p_bust * (1.0 - y) + p_reset * reset_val
    c1 = -p_bust + p_reset * reset_slope
    for k in range(top, 0, -1):
        roll = c0
        droll = c1
        for q in range(m - 1, -1, -1):  # the value just computed (smallest step) added last
            t = k + pts[q]
            roll += prb[q] * V[t]
            droll += prb[q] * dV[t]
        hold = 1.0 - P0[j, i + k]
        if roll > hold:
            V[k] = roll
            dV[k] = droll
        else:
            V[k] = hold
            dV[k] = 0.0
    roll = c0
    droll = c1
    for q in range(m - 1, -1, -1):
        roll += prb[q] * V[pts[q]]
        droll += prb[q] * dV[pts[q]]
    # ties at k = 0: roll (a skip would only stall)
    if roll >= 1.0 - y:
        V[0] = roll
        dV[0] = droll
    else:
        V[0] = 1.0 - y
        dV[0] = -1.0


@njit(cache=True, nogil=True)
def _check(P0, i, j, y, r_opp, goal, pts, prb, p_bust, p_reset, V, W, act):
    """Bellman residual of the finished turn V at (i, j), given y = P(j, i, 0); actions to act.

    The same arithmetic, in the same order, as :func:`_bellman` (so the same residual and the
    same actions bit for bit), but over one turn whose values are still in cache, with the
    turn total innermost so the loops vectorise.
    """
    top = goal - 1 - i
    m = len(pts)
    r = y if i == 0 else r_opp
    base = p_bust * (1.0 - y) + p_reset * (1.0 - r)
    for k in range(top + 1):
        W[k] = base
    for q in range(m):
        d = pts[q]
        pq = prb[q]
        for k in range(top + 1):
            W[k] += pq * V[k + d]
    hold = 1.0 - y
    roll = W[0]
    act[0] = roll >= hold
    worst = abs(V[0] - (roll if roll > hold else hold))
    for k in range(1, top + 1):
        hold = 1.0 - P0[j, i + k]
        roll = W[k]
        act[k] = roll > hold
        best = roll if roll > hold else hold
        worst = max(worst, abs(V[k] - best))
    return worst


@njit(cache=True, nogil=True)
def _extrapolate(V, dV, dy, top):
    for k in range(top + 1):
        V[k] += dV[k] * dy


@njit(cache=True, nogil=True)
def _solve_pair(P0, i, j, y0, R, goal, pts, prb, p_bust, p_reset, Vi, dVi, Vj, dVj, W, ai, aj):
    """Solve the mirror pair (i, j), (j, i) exactly: the turns in Vi and Vj, actions in ai, aj.

    Newton's method on y = g(f(y)): one pass of each turn at the current y gives f and g as
    affine maps on the current pieces; their fixed point y' is exact if the pieces (the policy)
    are right at y'. Instead of a confirming pass, the turns are moved along their slopes to y'
    and their Bellman residual is checked directly (:func:`_check`, a third of a pass); only a
    turn that fails it costs another Newton pass. Returns (passes, the pair's residual);
    passes is negative if the guarded fallback iteration ran.
    """
    y = y0  # warm start: the neighbouring pair's fixed point, or the previous sweep's value
    same = i == j
    passes = 0
    top_i = goal - 1 - i
    top_j = goal - 1 - j
    for it in range(60):
        passes += 1
        _turn(P0, i, j, y, R[j], goal, pts, prb, p_bust, p_reset, Vi, dVi)
        x, sx = Vi[0], dVi[0]
        if same:
            # x = f(x): linearise f at y and solve x = fx + sx * (x - y)
            den = 1.0 - sx
            y_new = (x - sx * y) / den if den > 1e-14 else x
        else:
            _turn(P0, j, i, x, R[i], goal, pts, prb, p_bust, p_reset, Vj, dVj)
            yy, sy = Vj[0], dVj[0]
            # y = g(f(y)) on the current pieces: y' = yy + sy * sx * (y' - y)
            s = sy * sx
            den = 1.0 - s
            y_new = (yy - s * y) / den if den > 1e-14 else yy
        if y_new < 0.0:
            y_new = 0.0
        elif y_new > 1.0:
            y_new = 1.0
        dy = y_new - y
        _extrapolate(Vi, dVi, dy, top_i)
        if same:
            res = _check(P0, i, j, Vi[0], R[j], goal, pts, prb, p_bust, p_reset, Vi, W, ai)
        else:
            _extrapolate(Vj, dVj, sx * dy, top_j)
            res = max(_check(P0, i, j, Vj[0], R[j], goal, pts, prb, p_bust, p_reset, Vi, W, ai),
                      _check(P0, j, i, Vi[0], R[i], goal, pts, prb, p_bust, p_reset, Vj, W, aj))
        if res <= ACCEPT:
            return passes, res
        y = y_new
    # guarded fallback: plain fixed-point iteration, a contraction off stalemate pairs
    # (y -> g(f(y)) has slope in [0, 1), so its steps shrink until rounding noise; a step that
    # no longer shrinks is that noise, and the residual judges the result)
    prev = 2.0
    for it in range(FALLBACK_PASSES):
        _turn(P0, i, j, y, R[j], goal, pts, prb, p_bust, p_reset, Vi, dVi)
        if same:
            y_new = Vi[0]
        else:
            _turn(P0, j, i, Vi[0], R[i], goal, pts, prb, p_bust, p_reset, Vj, dVj)
            y_new = Vj[0]
        step = abs(y_new - y)
        y = y_new
        if step <= 1e-15 or (step >= prev and step <= FLOOR):
            break
        prev = step
    # final consistent passes at the fixed point
    _turn(P0, i, j, y, R[j], goal, pts, prb, p_bust, p_reset, Vi, dVi)
    if same:
        res = _check(P0, i, j, Vi[0], R[j], goal, pts, prb, p_bust, p_reset, Vi, W, ai)
    else:
        _turn(P0, j, i, Vi[0], R[i], goal, pts, prb, p_bust, p_reset, Vj, dVj)
        res = max(_check(P0, i, j, Vj[0], R[j], goal, pts, prb, p_bust, p_reset, Vi, W, ai),
                  _check(P0, j, i, Vi[0], R[i], goal, pts, prb, p_bust, p_reset, Vj, W, aj))
    return -passes, res


@njit(cache=True, nogil=True)
def _store(P, roll, P0, Q, i, j, V, act, goal):
    """Write the turn at (i, j): values and actions up to the top, wins (1.0, hold) above."""
    top = goal - 1 - i
    for k in range(top + 1):
        P[i, j, k] = V[k]
        roll[i, j, k] = act[k]
    for k in range(top + 1, goal):
        P[i, j, k] = 1.0
        roll[i, j, k] = False
    P0[i, j] = V[0]
    Q[i + j, j] = V[0]


# The layer kernels keep every turn (i, j) of a layer in column i of 2-D buffers (row k = the
# turn total), so a column's top (goal - 1 - i) never changes and the rows above it hold wins
# (V = 1, dV = 0) for good. The k = 0 plane is also kept as Q[i + j, j] = P(i, j, 0): the hold
# values a layer needs, P(j, i + k, 0) = Q[s + k, i + k], then run along a row of Q (entries
# that are no state hold 0). Outcomes come as tuples, so their loop unrolls and the loops across
# columns vectorise.


@njit(cache=True, nogil=True, fastmath={"contract"})
def _layer_pass(s, cb, ce, top_max, goal, tpts, tprb, c0, c1, yv, Q, V, dV):
    """One backward pass over every turn of layer s at once (columns cb <= c < ce).

    Column c is the turn at (c, s - c) evaluated at yv[c] = P(s - c, c, 0). Columns outside
    the layer compute finite values nobody reads. Multiply-adds may be fused here: the pass
    only finds the fixed point, :func:`_layer_check` judges it.
    """
    m = len(tpts)
    for k in range(top_max, 0, -1):
        end = min(ce, (goal - k + LANES - 1) // LANES * LANES)  # columns whose top >= k
        vk = V[k]
        dk = dV[k]
        qk = Q[s + k]
        for t in range(end - cb):
            c = np.uint64(cb + t)  # unsigned: no negative-index fix-up, so it vectorises
            a = c0[c]
            da = c1[c]
            for q in range(m):
                a += tprb[q] * V[k + tpts[q], c]
                da += tprb[q] * dV[k + tpts[q], c]
            h = 1.0 - qk[c + np.uint64(k)]
            # h == 1 only above a column's top (Q holds 0 there; no real state's opponent is
            # sure to lose), where a fused sum may round a hair over 1: keep the win there
            take = (a > h) & (h < 1.0)
            vk[c] = a if take else h
            dk[c] = da if take else 0.0
    v0 = V[0]
    d0 = dV[0]
    for t in range(ce - cb):
        c = np.uint64(cb + t)
        a = c0[c]
        da = c1[c]
        for q in range(m):
            a += tprb[q] * V[tpts[q], c]
            da += tprb[q] * dV[tpts[q], c]
        h = 1.0 - yv[c]
        take = a >= h  # ties at k = 0: roll (a skip would only stall)
        v0[c] = a if take else h
        d0[c] = da if take else -1.0


@njit(cache=True, nogil=True)
def _layer_check(s, cb, ce, top_max, goal, tpts, tprb, base, move, Q, V, dV, act, res):
    """Move every turn of layer s along its slope (move[c]) and check its Bellman equations.

    res[c] gets the largest residual of column c, act[k, c] its actions. Per state, the same
    arithmetic in the same order as :func:`_bellman` (base[c] = the bust and reset terms), so
    bit for bit the same residual and actions, computed while the layer is in cache. Rows are
    done top down, so the rows a roll reads are already moved.
    """
    m = len(tpts)
    v0 = V[0]
    d0 = dV[0]
    for t in range(ce - cb):
        c = np.uint64(cb + t)
        v0[c] += d0[c] * move[c]
        res[c] = 0.0
    for k in range(top_max, 0, -1):
        end = min(ce, (goal - k + LANES - 1) // LANES * LANES)
        vk = V[k]
        dk = dV[k]
        qk = Q[s + k]
        ak = act[k]
        for t in range(end - cb):
            c = np.uint64(cb + t)  # unsigned: no negative-index fix-up, so it vectorises
            v = vk[c] + dk[c] * move[c]
            vk[c] = v
            a = base[c]
            for q in range(m):
                a += tprb[q] * V[k + tpts[q], c]
            h = 1.0 - qk[c + np.uint64(k)]
            ak[c] = a > h
            best = a if a > h else h
            d = abs(v - best)
            res[c] = d if d > res[c] else res[c]
    a0 = act[0]
    for t in range(ce - cb):
        c = np.uint64(cb + t)
        a = base[c]
        for q in range(m):
            a += tprb[q] * V[tpts[q], c]
        sc = s - np.int64(c)
        h = 1.0 - v0[sc] if 0 <= sc < goal else 0.0
        a0[c] = a >= h
        best = a if a > h else h
        res[c] = max(res[c], abs(v0[c] - best))


@njit(cache=True, nogil=True, inline="always")
def _store_column(P, roll, P0, Q, i, j, V, act, goal):
    top = goal - 1 - i
    for k in range(top + 1):
        P[i, j, k] = V[k, i]
        roll[i, j, k] = act[k, i]
    for k in range(top + 1, goal):
        P[i, j, k] = 1.0
        roll[i, j, k] = False
    P0[i, j] = V[0, i]
    Q[i + j, j] = V[0, i]


@njit(cache=True, nogil=True)
def _sweep_layers(P, roll, P0, Q, R, goal, pts, prb, tpts, tprb, p_bust, p_reset, first, stats):
    """Solve every pair, layers of decreasing banked-score sum first. Returns fallback count.

    Each layer is solved as a whole: one backward pass over all its turns side by side
    (:func:`_layer_pass`), then Newton's step for every mirror pair, the turns moved along their
    slopes to the pair's fixed point and every turn's Bellman residual checked
    (:func:`_layer_check`); pairs that pass are stored. Pairs the step did not settle (their
    policy changed on the way) take a second pass of the layer if there are several, and are
    then solved alone by :func:`_solve_pair`, from their new point.

    Writes every entry of P and roll (they may come uninitialised) and keeps the k = 0 plane in
    ``P0`` and ``Q`` (see above) for the hold look-ups. ``first`` is False on the repeat sweeps
    of the two-dice outer iteration, where the previous sweep's value of each pair is the better
    warm start. stats[0] gets the largest residual of the sweep (against ``R`` for the reset:
    :func:`_bellman` judges the final two-dice table), stats[1] the passes over turns.
    """
    dmax = pts.max()
    height = goal + dmax + 1
    width = goal + 2 * LANES
    V = np.ones((height, width))
    dV = np.zeros((height, width))
    act = np.zeros((height, width), dtype=np.bool_)
    c0 = np.zeros(width)
    c1 = np.zeros(width)
    yv = np.full(width, 0.5)
    base = np.zeros(width)
    move = np.zeros(width)
    u0 = np.zeros(width)
    un = np.zeros(width)
    res = np.zeros(width)
    done = np.zeros(width, dtype=np.bool_)
    keep = np.zeros(width, dtype=np.bool_)
    # scalar buffers for pairs solved alone
    Vi = np.zeros(height)
    dVi = np.zeros(height)
    Vj = np.zeros(height)
    dVj = np.zeros(height)
    Ws = np.zeros(height)
    ai = np.zeros(height, dtype=np.bool_)
    aj = np.zeros(height, dtype=np.bool_)
    fallbacks = 0
    worst = 0.0
    total = 0.0
    for s in range(2 * goal - 2, -1, -1):
        lo = max(0, s - (goal - 1))
        hi = min(s, goal - 1)
        n = hi - lo + 1
        cb = lo // LANES * LANES
        ce = (hi // LANES + 1) * LANES
        top_max = goal - 1 - lo
        for c in range(lo, hi + 1):
            j = s - c
            # warm start for P(c, j, 0): this pair last sweep, else extrapolated from the layers
            # above along the opponent's score
            if not first:
                u0[c] = P0[c, j]
            elif j + 2 < goal:
                u0[c] = 2.0 * P0[c, j + 1] - P0[c, j + 2]
            elif j + 1 < goal:
                u0[c] = P0[c, j + 1]
            elif c + 1 < goal:
                u0[c] = P0[c + 1, j]
            else:
                u0[c] = 0.5
        for c in range(lo, s // 2 + 1):
            done[c] = False
        for attempt in range(2):
            for c in range(cb, ce):
                if lo <= c <= hi:
                    j = s - c
                    y = u0[j]
                    yv[c] = y
                    if c == 0:
                        c0[c] = p_bust * (1.0 - y) + p_reset * (1.0 - y)
                        c1[c] = -p_bust - p_reset
                    else:
                        c0[c] = p_bust * (1.0 - y) + p_reset * (1.0 - R[j])
                        c1[c] = -p_bust
                else:  # padding columns: finite values nobody reads
                    yv[c] = 0.5
                    c0[c] = 0.0
                    c1[c] = 0.0
            _layer_pass(s, cb, ce, top_max, goal, tpts, tprb, c0, c1, yv, Q, V, dV)
            total += n / 2.0
            # Newton's step per pair: u_c = A_c + b_c (u_m - u0_m), u_m = A_m + b_m (u_c - u0_c)
            for c in range(lo, s // 2 + 1):
                mc = s - c
                a_c, b_c = V[0, c], dV[0, c]
                if c == mc:
                    den = 1.0 - b_c
                    v = (a_c - b_c * u0[c]) / den if den > 1e-14 else a_c
                    un[c] = min(max(v, 0.0), 1.0)
                else:
                    a_m, b_m = V[0, mc], dV[0, mc]
                    bb = b_c * b_m
                    den = 1.0 - bb
                    v = (a_c + b_c * (a_m - u0[mc]) - bb * u0[c]) / den if den > 1e-14 else a_c
                    v = min(max(v, 0.0), 1.0)
                    un[c] = v
                    un[mc] = min(max(a_m + b_m * (v - u0[c]), 0.0), 1.0)
            for c in range(cb, ce):
                move[c] = un[s - c] - u0[s - c] if lo <= c <= hi else 0.0
            for c in range(lo, hi + 1):  # bust (and reset) terms at the moved values, as _bellman
                j = s - c
                y = V[0, j] + dV[0, j] * move[j]
                r = y if c == 0 else R[j]
                base[c] = p_bust * (1.0 - y) + p_reset * (1.0 - r)
            _layer_check(s, cb, ce, top_max, goal, tpts, tprb, base, move, Q, V, dV, act, res)
            left = 0
            for c in range(lo, s // 2 + 1):
                mc = s - c
                if done[c]:
                    continue
                rs = max(res[c], res[mc])
                if rs <= ACCEPT:
                    done[c] = True
                    keep[c] = True
                    keep[mc] = True
                    worst = max(worst, rs)
                else:
                    left += 1
            for c in range(lo, hi + 1):  # in column order: neighbours share cache lines of V
                if keep[c]:
                    keep[c] = False
                    _store_column(P, roll, P0, Q, c, s - c, V, act, goal)
            # a pair the step did not settle (its policy changed on the way) takes another
            # pass from its new point: all together if there are many, else alone
            if left < LAYER_AGAIN:
                break
            for c in range(lo, hi + 1):
                u0[c] = un[c]
        for c in range(lo, s // 2 + 1):
            if done[c]:
                continue
            mc = s - c
            passes, rs = _solve_pair(P0, c, mc, un[mc], R, goal, tpts, tprb, p_bust,
                                     p_reset, Vi, dVi, Vj, dVj, Ws, ai, aj)
            if passes < 0:
                fallbacks += 1
                passes = -passes
            total += passes
            worst = max(worst, rs)
            _store(P, roll, P0, Q, c, mc, Vi, ai, goal)
            if mc != c:
                _store(P, roll, P0, Q, mc, c, Vj, aj, goal)
    stats[0] = worst
    stats[1] = total
    return fallbacks


@njit(cache=True, nogil=True)
def _bellman(P, goal, pts, prb, p_bust, p_reset, roll_out):
    """Max Bellman residual over all states; fills the optimal-action table ``roll_out``."""
    worst = 0.0
    m = pts.shape[0]
    for i in range(goal):
        for j in range(goal):
            for k in range(goal - i):
                roll = p_bust * (1.0 - P[j, i, 0]) + p_reset * (1.0 - P[j, 0, 0])
                for q in range(m):
                    t = k + pts[q]
                    roll += prb[q] if i + t >= goal else prb[q] * P[i, j, t]
                hold = 1.0 - P[j, i + k, 0]
                best = roll if roll > hold else hold
                roll_out[i, j, k] = roll > hold or (k == 0 and roll == hold)
                d = abs(P[i, j, k] - best)
                if d > worst:
                    worst = d
    return worst


@njit(cache=True, nogil=True)
def _turn_limited(goal, n_turns, pts, prb, p_bust, p_reset, out):
    """E_n for n = n_turns: out[i, j, k] with n turns left (the current one included).

    Only E_{n-1}(., ., 0) is needed from the previous step, so memory stays O(goal^2) plus the
    final full table.
    """
    prev = np.full((goal, goal), 0.5)  # E_0: no turns left, a draw
    cur = np.empty((goal, goal))
    V = np.zeros(goal + 1)
    m = pts.shape[0]
    for n in range(1, n_turns + 1):
        last = n == n_turns
        for i in range(goal):
            for j in range(goal):
                for k in range(goal - 1 - i, -1, -1):
                    roll = p_bust * (1.0 - prev[j, i]) + p_reset * (1.0 - prev[j, 0])
                    for q in range(m):
                        t = k + pts[q]
                        roll += prb[q] if i + t >= goal else prb[q] * V[t]
                    hold = 1.0 - prev[j, i + k] if i + k < goal else 1.0
                    V[k] = roll if roll > hold or (k == 0 and roll == hold) else hold
                    if last:
                        out[i, j, k] = V[k]
                cur[i, j] = V[0]
        for i in range(goal):
            for j in range(goal):
                prev[i, j] = cur[i, j]


# ---------------------------------------------------------------------------------------------
# the public solution object
# ---------------------------------------------------------------------------------------------


@dataclass
class PigSolution:
    """The solved game: win probabilities and optimal actions at every state (i, j, k).

    ``p[i, j, k]`` is the probability that the mover wins from (i, j, k) with optimal play by
    both (entries with ``i + k >= goal`` hold 1.0: those are wins, not states); ``roll[i, j, k]``
    is True where rolling is optimal.
    """

    rules: PigRules
    p: np.ndarray
    roll: np.ndarray
    max_residual: float
    turn_limit: int | None = None
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def goal(self) -> int:
        return self.rules.goal

    def win_probability(self, i: int, j: int, k: int = 0) -> float:
        """P(mover wins) at (i, j, k) under optimal play by both."""
        self.rules.check_state(i, j, k)
        return float(self.p[i, j, k])

    def values(self, i: int, j: int, k: int = 0) -> tuple[float, float]:
        """(P(win | roll now), P(win | hold now)) at (i, j, k), both then playing optimally."""
        self.rules.check_state(i, j, k)
        if self.turn_limit is not None:
            raise DicelabError("per-action values are available for unlimited solutions only")
        o = self.rules.outcomes
        g = self.goal
        p = self.p
        roll = o.bust * (1.0 - p[j, i, 0]) + o.reset * (1.0 - p[j, 0, 0])
        for d, q in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
            roll += q if i + k + d >= g else q * p[i, j, k + d]
        hold = 1.0 - p[j, i + k, 0]
        return float(roll), float(hold)

    def action(self, i: int, j: int, k: int = 0) -> str:
        """``"roll"`` or ``"hold"``: the optimal action at (i, j, k)."""
        self.rules.check_state(i, j, k)
        return "roll" if self.roll[i, j, k] else "hold"

    def hold_threshold(self, i: int, j: int) -> int:
        """The smallest turn total at which optimal play holds at scores (i, j).

        ``goal - i`` when optimal play never holds short of the goal. This is the height of
        Neller & Presser's roll/hold boundary surface.
        """
        self.rules.check_state(i, j, 0)
        row = self.roll[i, j, : self.goal - i]
        holds = np.flatnonzero(~row)
        return int(holds[0]) if holds.size else self.goal - i

    def hold_thresholds(self) -> np.ndarray:
        """``hold_threshold(i, j)`` for every (i, j), as a (goal, goal) integer array."""
        g = self.goal
        k = np.arange(g)
        valid = k[None, None, :] < (g - np.arange(g))[:, None, None]
        holding = valid & ~self.roll
        first = np.where(holding.any(axis=2), holding.argmax(axis=2), g - np.arange(g)[:, None])
        return first.astype(np.int64)

    def summary(self) -> dict[str, Any]:
        """The figures ``dicelab pig solve`` reports."""
        return {
            "rules": self.rules.to_dict(),
            "turn_limit": self.turn_limit,
            "win_probability": float(self.p[0, 0, 0]),
            "states": self.rules.n_states,
            "max_residual": self.max_residual,
            "seconds": self.seconds,
        }

    # -- storage -------------------------------------------------------------------------------

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and metadata stored by :meth:`save` and the cache."""
        meta = {"rules": self.rules.to_dict(), "turn_limit": self.turn_limit,
                "max_residual": self.max_residual, "seconds": self.seconds}
        return {"p": self.p, "roll": self.roll}, meta

    def save(self, path: str | Path) -> Path:
        """Write ``PATH.npz`` and ``PATH.json`` (rules, version, residual, sha256 of the arrays)."""
        return save_table(path, KIND, *self.to_arrays())

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
        rules: PigRules | None = None, turn_limit: int | None = None,
    ) -> PigSolution:
        """Rebuild a stored solution; check its arrays and, if given, that its rules match."""
        stored = PigRules(**meta["rules"])
        if rules is not None and stored != rules:
            raise DicelabError(f"the table was solved for {stored}, not for {rules}")
        if rules is not None and meta.get("turn_limit") != turn_limit:
            raise DicelabError(
                f"the table was solved with turn_limit={meta.get('turn_limit')}, not {turn_limit}"
            )
        g = stored.goal
        p = expect_array(arrays, "p", (g, g, g), np.float64)
        roll = expect_array(arrays, "roll", (g, g, g), np.bool_)
        return cls(stored, p, roll, float(meta["max_residual"]), meta.get("turn_limit"),
                   float(meta.get("seconds", 0.0)), meta)

    @classmethod
    def load(
        cls, path: str | Path, rules: PigRules | None = None, turn_limit: int | None = None
    ) -> PigSolution:
        """Read a saved solution; verify its checksum and, if given, that its rules match."""
        return load_as(path, KIND, lambda a, m: cls.from_arrays(a, m, rules, turn_limit))


# ---------------------------------------------------------------------------------------------
# solve
# ---------------------------------------------------------------------------------------------


def _kernel_args(rules: PigRules) -> tuple[np.ndarray, np.ndarray, float, float]:
    o = rules.outcomes
    return o.add_points, o.add_probs, o.bust, o.reset


def _check_turn_limit(turn_limit: int | None) -> None:
    if turn_limit is not None and not (isinstance(turn_limit, int) and 1 <= turn_limit <= 100_000):
        raise DicelabError(f"turn limit must be a whole number from 1 to 100000, got {turn_limit}")


def work_needed(rules: PigRules, turn_limit: int | None = None) -> float:
    """Multiply-adds a solve needs, about: states x roll outcomes x passes over the table.

    Unlimited: about 4 passes per sweep (Newton and the Bellman check), ten sweeps with the
    two-dice reset. Turn-limited: one pass per turn, twice (the table, then its actions).
    Calibrated at 1-4 ns each on one core.
    """
    per_pass = float(rules.n_states) * (len(rules.outcomes.add_points) + 2)
    if turn_limit is not None:
        return 2.0 * turn_limit * per_pass
    return per_pass * 4 * (10 if rules.outcomes.reset > 0 else 1)


def check_work(rules: PigRules, turn_limit: int | None = None, max_work: float = MAX_WORK) -> None:
    """Refuse up front, in one line, a solve that would need more than ``max_work`` operations."""
    work = work_needed(rules, turn_limit)
    if work > max_work:
        limited = f" with a turn limit of {turn_limit}" if turn_limit is not None else ""
        raise DicelabError(
            f"solving {rules.variant} Pig at goal {rules.goal} with {rules.sides} sides{limited} "
            f"needs about {work:.1e} multiply-adds (limit {max_work:.0e}, a minute or two); "
            f"lower the goal, the sides or the turn limit"
        )


def solve(rules: PigRules | None = None, turn_limit: int | None = None) -> PigSolution:
    """Solve Pig exactly: the optimal win probability and action at every state.

    ``turn_limit=n`` solves the turn-limited game of seed 003 instead (a draw, worth 1/2, once
    ``n`` turns have been played without a winner).
    """
    rules = rules or PigRules()
    _check_turn_limit(turn_limit)
    check_work(rules, turn_limit)
    g = rules.goal
    pts, prb, p_bust, p_reset = _kernel_args(rules)
    t0 = time.perf_counter()
    fallbacks = 0
    outer = 0
    passes = 0
    if turn_limit is None:
        # every entry is written by the sweep; the two-dice table starts defined for its
        # repeat sweeps and the final check
        P = np.empty((g, g, g)) if p_reset == 0.0 else np.full((g, g, g), 1.0)
        roll = np.empty((g, g, g), dtype=np.bool_)
        P0 = np.full((g, g), 0.5)
        Q = np.zeros((3 * g + 1, g + 2 * LANES))  # the k = 0 plane by layer (_layer_pass)
        tpts, tprb = unrolled_outcomes(pts, prb)
        R = np.full(g, 0.5)
        stats = np.array([np.inf, 0.0])
        prev = 2.0
        while True:
            outer += 1
            fallbacks += _sweep_layers(P, roll, P0, Q, R, g, pts, prb, tpts, tprb, p_bust, p_reset,
                                       outer == 1,
                                       stats)
            passes += int(stats[1])
            if p_reset == 0.0:
                # standard rules: the sweep checked every state's Bellman equation against the
                # finished table as it went (no lower layer is read), so this is the residual
                residual = float(stats[0])
                break
            R_new = P0[:, 0].copy()
            change = float(np.max(np.abs(R_new - R)))
            R = R_new
            # settled, at the rounding floor (the change no longer shrinks), or out of sweeps
            if change <= 1e-15 or FLOOR >= change >= prev or outer >= MAX_SWEEPS:
                fallbacks += _sweep_layers(P, roll, P0, Q, R, g, pts, prb, tpts, tprb, p_bust,
                                           p_reset, False,
                                           stats)
                passes += int(stats[1])
                # the reset reads the lower layer P(j, 0, 0): check against the final table
                residual = float(_bellman(P, g, pts, prb, p_bust, p_reset, roll))
                break
            prev = change
        if not residual <= MAX_RESIDUAL:  # NaN included
            raise DicelabError(
                f"the Pig solver did not converge for {rules} (Bellman residual {residual:.3g}, "
                f"allowed {MAX_RESIDUAL:g}, after {outer} sweeps)"
            )
    else:
        P = np.full((g, g, g), 1.0)
        _turn_limited(g, turn_limit, pts, prb, p_bust, p_reset, P)
        roll = np.zeros((g, g, g), dtype=np.bool_)
        residual = 0.0  # finite-horizon backward induction: exact by construction
        _limited_actions(rules, turn_limit, P, roll)
    seconds = time.perf_counter() - t0
    return PigSolution(rules, P, roll, residual, turn_limit, seconds,
                       {"sweeps": outer, "fallback_pairs": fallbacks, "newton_passes": passes})


def _limited_actions(rules: PigRules, turn_limit: int, P: np.ndarray, roll: np.ndarray) -> None:
    """Optimal first-turn actions of a turn-limited solution (needs E_{n-1} at k = 0)."""
    g = rules.goal
    pts, prb, p_bust, p_reset = _kernel_args(rules)
    if turn_limit == 1:
        prev0 = np.full((g, g), 0.5)
    else:
        tmp = np.full((g, g, g), 1.0)
        _turn_limited(g, turn_limit - 1, pts, prb, p_bust, p_reset, tmp)
        prev0 = tmp[:, :, 0]
    i, j, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    valid = i + k < g
    ii, jj, kk = i[valid], j[valid], k[valid]
    rollv = p_bust * (1 - prev0[jj, ii]) + p_reset * (1 - prev0[jj, 0])
    for d, q in zip(pts.tolist(), prb.tolist(), strict=True):
        t = kk + d
        win = ii + t >= g
        rollv = rollv + np.where(win, q, q * P[ii, jj, np.minimum(t, g - 1)])
    holdv = 1 - prev0[jj, np.minimum(ii + kk, g - 1)]
    roll[ii, jj, kk] = (rollv > holdv) | ((kk == 0) & (rollv == holdv))


def solve_cached(rules: PigRules | None = None, turn_limit: int | None = None) -> PigSolution:
    """:func:`solve`, through the on-disk cache of solved tables (a damaged entry is solved again)."""
    rules = rules or PigRules()
    _check_turn_limit(turn_limit)
    return cached(
        KIND,
        {"rules": rules.to_dict(), "turn_limit": turn_limit},
        lambda: solve(rules, turn_limit),
        PigSolution.to_arrays,
        lambda a, m: PigSolution.from_arrays(a, m, rules, turn_limit),
    )
