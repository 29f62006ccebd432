"""Exact best responses, self-play, SVIMA and many-player win probabilities for simultaneous Pig.

One backward pass in decreasing score order solves a best response to independent opponents
exactly (the all-bust self-loop has a closed form); self-play and SVIMA reuse that order. With
three or more players and opponents that look at their own scores only, the average over the
opponents' joint outcomes factorises into one contraction per opponent (:func:`_pass_factored`).
The derivation and the figures checked against seed 000 are in ``docs/methods/simpig.md``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.simpig.rules import SimPigRules, turn_total_table
from dicelab.simpig.strategies import (
    SimPigStrategy,
    check_goal,
    hold_strategy,
    table_strategy,
)

DEFAULT_MAX_MEMORY = 4 * 2**30  # bytes
DEFAULT_MAX_WORK = 2e11  # multiply-adds of the n-player pass (several minutes on one core)


# --------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _outcome_list(g, p0, pk, ks, ws, j, out_j, out_p):
    """One opponent's outcomes from score ``j`` when it plays target ``ks[c]`` with weight
    ``ws[c]``: writes the new scores and probabilities of the non-bust outcomes to ``out_j`` /
    ``out_p`` and returns their count and the bust probability."""
    cnt = 0
    q0 = 0.0
    for c in range(ks.shape[0]):
        w = ws[c]
        if w == 0.0:
            continue
        k = ks[c]
        q0 += w * p0[k]
        for r in range(6):
            p = w * pk[k, r]
            if p > 0.0:
                jj = j + k + r
                if jj > g:
                    jj = g
                out_j[cnt] = jj
                out_p[cnt] = p
                cnt += 1
    return cnt, q0


@njit(cache=True, nogil=True)
def _pure_opponent(g, p0, pk, v, i, j, kb, u):
    """``u[ii]`` for ``ii >= i``: the value of A at ``ii`` averaged over the outcomes of an
    opponent at ``j`` with target ``kb`` (its bust left out at ``ii == i``: the self-loop)."""
    for ii in range(i, g + 1):
        acc = 0.0
        for r in range(6):
            jj = j + kb + r
            if jj > g:
                jj = g
            acc += pk[kb, r] * v[ii, jj]
        if ii > i:
            acc += p0[kb] * v[ii, j]
        u[ii] = acc


@njit(cache=True, nogil=True)
def _rest_value(g, p0, pk, u, i, k):
    """A's value of target ``k`` at own score ``i`` without the all-bust self-loop (``u``: A's
    value at each own score, the opponents' outcomes averaged)."""
    r_k = p0[k] * u[i]
    for r in range(6):
        ii = i + k + r
        if ii > g:
            ii = g
        r_k += pk[k, r] * u[ii]
    return r_k


@njit(cache=True, nogil=True)
def _best_target(g, p0, pk, u, i, q0):
    """A's best target at own score ``i`` and its value (``q0``: the opponents' all-bust
    probability; the self-loop in closed form)."""
    bestv = -1.0
    bestk = 1
    for k in range(1, g - i + 1):
        val = _rest_value(g, p0, pk, u, i, k) / (1.0 - p0[k] * q0)
        if val > bestv + 1e-15:
            bestv = val
            bestk = k
    return bestv, bestk


@njit(cache=True, nogil=True)
def _pass2(g, p0, pk, ak, aw, bk, bw, best, v, pol):
    """One backward pass of the two-player game (A: rows, B: columns).

    ``bk[c, i, j]`` / ``bw[c, i, j]``: B's target and its probability at A-state ``(i, j)``.
    With ``best`` A maximises; otherwise A plays its own mixture ``ak``/``aw``. Writes the value
    table ``v[(g+1), (g+1)]`` (terminal rows pre-filled) and A's best target ``pol``.
    """
    nc_b = bk.shape[0]
    nc_a = ak.shape[0]
    ob_j = np.empty(6 * nc_b, np.int64)
    ob_p = np.empty(6 * nc_b)
    u = np.empty(g + 1)
    for s in range(2 * g - 2, -1, -1):
        ilo = max(0, s - g + 1)
        ihi = min(s, g - 1)
        for i in range(ilo, ihi + 1):
            j = s - i
            nb, q0 = _outcome_list(g, p0, pk, bk[:, i, j], bw[:, i, j], j, ob_j, ob_p)
            for ii in range(i, g + 1):
                acc = 0.0
                for b in range(nb):
                    acc += ob_p[b] * v[ii, ob_j[b]]
                if ii > i:
                    acc += q0 * v[ii, j]
                u[ii] = acc
            if best:
                v[i, j], pol[i, j] = _best_target(g, p0, pk, u, i, q0)
            else:
                rt = 0.0
                st = 0.0
                for c in range(nc_a):
                    w = aw[c, i, j]
                    if w == 0.0:
                        continue
                    k = ak[c, i, j]
                    rt += w * _rest_value(g, p0, pk, u, i, k)
                    st += w * p0[k] * q0
                v[i, j] = rt / (1.0 - st)
                pol[i, j] = ak[0, i, j]


@njit(cache=True, nogil=True)
def _selfplay_sweeps(g, p0, pk, v, pol, vhist, phist):
    """In-place value-iteration sweeps where B always copies A's current policy (``pol[j, i]``).

    Runs ``phist.shape[0]`` sweeps and records the policy/value tables after each.
    """
    u = np.empty(g + 1)
    for t in range(phist.shape[0]):
        for s in range(2 * g - 2, -1, -1):
            ilo = max(0, s - g + 1)
            ihi = min(s, g - 1)
            for i in range(ilo, ihi + 1):
                j = s - i
                kb = pol[j, i]
                _pure_opponent(g, p0, pk, v, i, j, kb, u)
                v[i, j], pol[i, j] = _best_target(g, p0, pk, u, i, p0[kb])
        phist[t] = pol
        vhist[t] = v


@njit(cache=True, nogil=True)
def state_matrix(g, p0, pk, v, i, j, rmat, smat):
    """The matrix game at ``(i, j)``: payoff ``rmat[k-1, k'-1]`` of all outcomes but the all-bust
    self-loop, and that loop's probability ``smat[k-1, k'-1]``, for A's ``k`` and B's ``k'``."""
    ka = g - i
    kb = g - j
    u = np.empty(g + 1)
    for kp in range(1, kb + 1):
        # u[ii] = E_{Y ~ X_kp}[v[ii, j + Y]] without the Y = 0 part at ii == i.
        _pure_opponent(g, p0, pk, v, i, j, kp, u)
        for k in range(1, ka + 1):
            rmat[k - 1, kp - 1] = _rest_value(g, p0, pk, u, i, k)
            smat[k - 1, kp - 1] = p0[k] * p0[kp]


@njit(cache=True, nogil=True)
def _svima_pass(g, p0, pk, v, pol_a, pol_b):
    """Stackelberg pass: at each state B (leader) picks k' minimising A's best-reply value."""
    ka_max = g
    rmat = np.empty((ka_max, ka_max))
    smat = np.empty((ka_max, ka_max))
    for s in range(2 * g - 2, -1, -1):
        ilo = max(0, s - g + 1)
        ihi = min(s, g - 1)
        for i in range(ilo, ihi + 1):
            j = s - i
            state_matrix(g, p0, pk, v, i, j, rmat, smat)
            best_b = 2.0
            kb_best = 1
            ka_best = 1
            for kp in range(1, g - j + 1):
                bv = -1.0
                bk = 1
                for k in range(1, g - i + 1):
                    val = rmat[k - 1, kp - 1] / (1.0 - smat[k - 1, kp - 1])
                    if val > bv + 1e-15:
                        bv = val
                        bk = k
                if bv < best_b - 1e-15:
                    best_b = bv
                    kb_best = kp
                    ka_best = bk
            v[i, j] = best_b
            pol_a[i, j] = ka_best
            pol_b[j, i] = kb_best


@njit(cache=True, nogil=True)
def _pass_n(n, g, p0, pk, ok, ow, best, symmetric, a_k, v, pol):
    """The n-player backward pass over the flattened ``(g+1)^n`` grid (lexicographic descending).

    ``ok[o, c, idx]``/``ow[o, c, idx or 0]``: opponent ``o``'s targets and weights at state ``idx``.
    With ``best`` A maximises; otherwise A plays ``a_k[idx]`` (pure). ``symmetric``: solve only
    states whose opponent scores are non-decreasing and look successors up in sorted form.
    """
    b = g + 1
    m = n - 1
    ncomp = ok.shape[1]
    total = v.shape[0]
    stride0 = b**m
    coords = np.empty(n, np.int64)
    # per-opponent outcome lists
    oj = np.empty((m, 6 * ncomp + 1), np.int64)
    op = np.empty((m, 6 * ncomp + 1))
    on = np.empty(m, np.int64)
    maxc = 1
    for _ in range(m):
        maxc *= 6 * ncomp + 1
    c_off = np.empty(maxc, np.int64)
    c_p = np.empty(maxc)
    odo = np.empty(m, np.int64)
    tmp = np.empty(m, np.int64)
    u = np.empty(g + 1)
    for idx in range(total - 1, -1, -1):
        rem = idx
        terminal = False
        for d in range(n - 1, -1, -1):
            coords[d] = rem % b
            rem //= b
            if coords[d] == g:
                terminal = True
        if terminal:
            continue
        if symmetric:
            ok_sorted = True
            for d in range(1, m):
                if coords[d] > coords[d + 1]:
                    ok_sorted = False
            if not ok_sorted:
                continue
        i = coords[0]
        wi = idx if ow.shape[2] > 1 else 0
        q0all = 1.0
        for o in range(m):
            jo = coords[o + 1]
            cnt, q0 = _outcome_list(g, p0, pk, ok[o, :, idx], ow[o, :, wi], jo, oj[o], op[o])
            oj[o, cnt] = jo
            op[o, cnt] = q0
            cnt += 1
            on[o] = cnt
            q0all *= q0
        # enumerate opponent outcome combinations (the all-bust one is the last of every list)
        for o in range(m):
            odo[o] = 0
        nc = 0
        self_off = 0
        while True:
            p = 1.0
            allzero = True
            for o in range(m):
                p *= op[o, odo[o]]
                tmp[o] = oj[o, odo[o]]
                if odo[o] != on[o] - 1:
                    allzero = False
            if symmetric:
                # insertion sort of the opponents' new scores
                for x in range(1, m):
                    y = tmp[x]
                    z = x - 1
                    while z >= 0 and tmp[z] > y:
                        tmp[z + 1] = tmp[z]
                        z -= 1
                    tmp[z + 1] = y
            off = 0
            for o in range(m):
                off = off * b + tmp[o]
            if allzero:
                self_off = off
            elif p > 0.0:
                c_off[nc] = off
                c_p[nc] = p
                nc += 1
            o = m - 1
            while o >= 0:
                odo[o] += 1
                if odo[o] < on[o]:
                    break
                odo[o] = 0
                o -= 1
            if o < 0:
                break
        for ii in range(i, g + 1):
            base = ii * stride0
            acc = 0.0
            for c in range(nc):
                acc += c_p[c] * v[base + c_off[c]]
            if ii > i:
                acc += q0all * v[base + self_off]
            u[ii] = acc
        if best:
            v[idx], pol[idx] = _best_target(g, p0, pk, u, i, q0all)
        else:
            k = a_k[idx]
            v[idx] = _rest_value(g, p0, pk, u, i, k) / (1.0 - p0[k] * q0all)
            pol[idx] = k


@njit(cache=True, nogil=True)
def _terminal_fill(n, g, v):
    """v over the flattened ``(g+1)^n`` grid: A's share of the win where someone has reached the
    goal (1 / the number at the goal if A is among them, else 0), 0 elsewhere."""
    b = g + 1
    c = np.zeros(n, np.int64)
    for f in range(v.shape[0]):
        at = 0
        for d in range(n):
            if c[d] == g:
                at += 1
        v[f] = 1.0 / at if c[0] == g else 0.0
        d = n - 1
        while d >= 0:
            c[d] += 1
            if c[d] < b:
                break
            c[d] = 0
            d -= 1


@njit(cache=True, nogil=True)
def _axis_apply(m, b, M, o, pn_j, pn_p, pn_c, q0, x, y):
    """y = (B_o + N_o) x over the opponents' grid (M = b^m states, opponent o's axis): each state's
    value averaged over opponent o's outcomes (bust: stays; else its new score pn_j)."""
    so = 1
    for _ in range(m - 1 - o):
        so *= b
    for hi in range(0, M, so * b):
        for jo in range(b):
            row = hi + jo * so
            q = q0[o, jo]
            for f in range(row, row + so):
                y[f] = q * x[f]
            for t in range(pn_c[o, jo]):
                p = pn_p[o, jo, t]
                src = hi + pn_j[o, jo, t] * so
                for f in range(so):
                    y[row + f] += p * x[src + f]


@njit(cache=True, nogil=True)
def _pass_factored(m, g, p0, pk, pn_j, pn_p, pn_c, q0, symmetric, v, pol, U, Z):
    """The n-player best-response pass against opponents whose targets depend on their own
    scores only (n = m + 1; issue 15): the expectation over the opponents' joint outcomes
    factorises into one contraction per opponent.

    A's own score ``i`` is the outer loop (decreasing). ``U[f, ii]``: the opponents-averaged value
    of A at own score ``ii > i`` and opponents' state ``f`` (flattened, first opponent most
    significant), made once per finished slice ``ii`` by m axis contractions. Inside slice ``i``
    (A busts, the opponents move on) the average without the all-bust self-loop is
    ``prod_o (B_o + N_o) - prod_o B_o = sum_o [prod_{p<o} (B_p + N_p)] N_o [prod_{p>o} B_p]``
    (B: an opponent busts, N: it moves strictly up), built state by state in decreasing order
    from the partial products ``Z`` kept for the states already solved. ``symmetric`` (equal
    opponents): only states whose opponents' scores do not increase are solved; the others copy
    their sorted twin, solved before them. ``v`` (b * M) holds the terminal values on entry.
    """
    b = g + 1
    M = v.shape[0] // b
    strides = np.empty(m, np.int64)
    st = 1
    for o in range(m - 1, -1, -1):
        strides[o] = st
        st *= b
    zi = np.full((m, m), -1, np.int64)
    cnt = 0
    for o in range(1, m):
        for p in range(1, o + 1):
            zi[o, p] = cnt
            cnt += 1
    j = np.empty(m, np.int64)
    srt = np.empty(m, np.int64)
    u = np.empty(b)
    xa = np.empty(M)
    xb = np.empty(M)
    for i in range(g, -1, -1):
        base = i * M
        if i < g:
            for o in range(m):
                j[o] = g
            j[m - 1] = g + 1  # the odometer below steps it to (g, ..., g), the last state
            for f in range(M - 1, -1, -1):
                o = m - 1
                while j[o] == 0:
                    j[o] = g
                    o -= 1
                j[o] -= 1
                terminal = False
                for o in range(m):
                    if j[o] == g:
                        terminal = True
                # the partial products at f (they read only states above f)
                part = 0.0
                for o in range(m):
                    d = 1.0
                    for p in range(o + 1, m):
                        d *= q0[p, j[p]]
                    jo = j[o]
                    so = strides[o]
                    z = 0.0
                    for t in range(pn_c[o, jo]):
                        z += pn_p[o, jo, t] * v[base + f + (pn_j[o, jo, t] - jo) * so]
                    z *= d
                    if o > 0:
                        Z[zi[o, o], f] = z
                    for p in range(o - 1, -1, -1):
                        jp = j[p]
                        sp = strides[p]
                        src = Z[zi[o, p + 1]]
                        z = q0[p, jp] * z
                        for t in range(pn_c[p, jp]):
                            z += pn_p[p, jp, t] * src[f + (pn_j[p, jp, t] - jp) * sp]
                        if p > 0:
                            Z[zi[o, p], f] = z
                    part += z
                if terminal:
                    continue
                if symmetric:
                    canonical = True
                    for o in range(1, m):
                        if j[o] > j[o - 1]:
                            canonical = False
                    if not canonical:
                        for o in range(m):
                            srt[o] = j[o]
                        for o in range(1, m):  # insertion sort, decreasing
                            y = srt[o]
                            z2 = o - 1
                            while z2 >= 0 and srt[z2] < y:
                                srt[z2 + 1] = srt[z2]
                                z2 -= 1
                            srt[z2 + 1] = y
                        tw = 0
                        for o in range(m):
                            tw = tw * b + srt[o]
                        v[base + f] = v[base + tw]
                        pol[base + f] = pol[base + tw]
                        continue
                q0all = 1.0
                for o in range(m):
                    q0all *= q0[o, j[o]]
                u[i] = part
                for ii in range(i + 1, b):
                    u[ii] = U[f, ii]
                v[base + f], pol[base + f] = _best_target(g, p0, pk, u, i, q0all)
        # this slice, averaged over all the opponents' outcomes, for the slices below
        if i > 0:
            for f in range(M):
                xa[f] = v[base + f]
            for o in range(m):
                _axis_apply(m, b, M, o, pn_j, pn_p, pn_c, q0, xa, xb)
                for f in range(M):
                    xa[f] = xb[f]
            for f in range(M):
                U[f, i] = xa[f]


# --------------------------------------------------------------------------------------------
# Two players
# --------------------------------------------------------------------------------------------


def _terminal2(g: int) -> np.ndarray:
    v = np.zeros((g + 1, g + 1))
    v[g, :g] = 1.0
    v[g, g] = 0.5
    return v


def _padded2(w: np.ndarray, k: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray]:
    """Targets and weights ``[c, :g, :g]`` on the ``(g+1)^2`` grid (target 1, weight 0 beyond)."""
    kk = np.ones((k.shape[0], g + 1, g + 1), np.int64)
    ww = np.zeros((k.shape[0], g + 1, g + 1))
    kk[:, :g, :g] = k
    ww[:, :g, :g] = w
    return kk, ww


def _opp_tables2(strategy: SimPigStrategy, g: int) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's components in A-state coordinates: ``[c, i, j]`` = its choice at own ``j``
    against ``i``."""
    w, k = strategy.target_table()  # [c, own, opp]
    return _padded2(np.transpose(w, (0, 2, 1)), np.transpose(k, (0, 2, 1)), g)


def _own_tables2(strategy: SimPigStrategy, g: int) -> tuple[np.ndarray, np.ndarray]:
    w, k = strategy.target_table()
    return _padded2(w, k, g)


@dataclass
class BestResponse:
    """An exact best response: ``value[state]`` (A's win probability) and ``policy[state]`` (A's
    target), both over the ``(goal + 1)^players`` grid (index ``goal`` = reached the goal)."""

    goal: int
    players: int
    opponents: list[str]
    value: np.ndarray
    policy: np.ndarray
    seconds: float
    symmetric: bool = False

    @property
    def win_probability(self) -> float:
        """A's win probability (share of the win) from the all-zero start."""
        return float(self.value.flat[0])


def best_response(
    opponents: list[SimPigStrategy],
    goal: int = 100,
    max_memory: float = DEFAULT_MAX_MEMORY,
    max_work: float = DEFAULT_MAX_WORK,
) -> BestResponse:
    """Player A's exact best response to independent opponents (one strategy per opponent).

    >>> round(best_response([hold_strategy(25, 100)]).win_probability, 4)
    0.5231
    """
    rules = SimPigRules(goal=goal, players=len(opponents) + 1)
    strats = [check_goal(s, goal) for s in opponents]
    if rules.players == 2:
        return _best_response2(strats[0], goal)
    return _best_response_n(strats, goal, max_memory, max_work)


def _best_response2(opp: SimPigStrategy, g: int) -> BestResponse:
    p0, pk = turn_total_table(g)
    bk, bw = _opp_tables2(opp, g)
    t0 = time.perf_counter()
    v = _terminal2(g)
    pol = np.zeros((g + 1, g + 1), np.int64)
    dummy_k = np.ones((1, 1, 1), np.int64)
    dummy_w = np.zeros((1, 1, 1))
    _pass2(g, p0, pk, dummy_k, dummy_w, bk, bw, True, v, pol)
    return BestResponse(g, 2, [opp.spec], v, pol, time.perf_counter() - t0)


def evaluate(strategy: SimPigStrategy, opponent: SimPigStrategy, goal: int = 100) -> np.ndarray:
    """Exact win-probability table ``V[i, j]`` of ``strategy`` (A) against ``opponent`` (B).

    ``V[0, 0]`` is A's share of the win from the start.
    """
    a = check_goal(strategy, goal)
    b = check_goal(opponent, goal)
    p0, pk = turn_total_table(goal)
    ak, aw = _own_tables2(a, goal)
    bk, bw = _opp_tables2(b, goal)
    v = _terminal2(goal)
    pol = np.zeros((goal + 1, goal + 1), np.int64)
    _pass2(goal, p0, pk, ak, aw, bk, bw, False, v, pol)
    return v


def sweep_hold(ns: list[int], goal: int = 100) -> list[dict[str, float]]:
    """Best-response win probability against ``hold:N`` for each ``N`` (Figure 1 / Table S1)."""
    return [
        {"n": n, "win_probability": best_response([hold_strategy(n, goal)], goal).win_probability}
        for n in ns
    ]


def local_minima(rows: list[dict[str, float]]) -> list[int]:
    """The ``n`` of the rows whose win probability is below both neighbours'."""
    out = []
    for a, b, c in zip(rows, rows[1:], rows[2:]):
        if (
            b["win_probability"] < a["win_probability"]
            and b["win_probability"] < c["win_probability"]
        ):
            out.append(int(b["n"]))
    return out


# --------------------------------------------------------------------------------------------
# Self-play and SVIMA
# --------------------------------------------------------------------------------------------


@dataclass
class SelfPlay:
    """Symmetric self-play value iteration: where it ended up and the cycle it fell into."""

    goal: int
    sweeps: int
    cycle_length: int  # 1: converged to a pure symmetric policy
    cyclic_states: int
    policy_1: np.ndarray
    policy_2: np.ndarray
    value_1: np.ndarray
    value_2: np.ndarray
    mae: float
    max_difference: float
    max_difference_state: tuple[int, int]
    win_vs_hold25: tuple[float, float]
    start_win_1_vs_2: float

    def to_dict(self) -> dict[str, object]:
        return {
            "goal": self.goal,
            "sweeps": self.sweeps,
            "cycle_length": self.cycle_length,
            "cyclic_states": self.cyclic_states,
            "mae": self.mae,
            "max_difference": self.max_difference,
            "max_difference_state": list(self.max_difference_state),
            "win_vs_hold25": list(self.win_vs_hold25),
            "start_win_1_vs_2": self.start_win_1_vs_2,
        }


def selfplay(
    goal: int = 100, start: SimPigStrategy | None = None, max_sweeps: int = 400
) -> SelfPlay:
    """Value iteration with both players forced onto the same policy (paper, "Mixed-strategy
    equilibrium"): in-place sweeps in decreasing score-sum order where B plays A's current table.

    The iteration does not converge: it falls into a cycle of policies. We run sweeps until the
    policy table repeats, report the two policies of the (period-2) cycle, the number of states
    where they differ, the MAE / maximum difference of their value tables and each one's exact
    win probability against ``hold:25``. ``start`` is the starting policy: ``hold:25`` by
    default (``hold:goal`` below goal 25).
    """
    g = SimPigRules(goal=goal).goal
    max_sweeps = _selfplay_sweep_cap(g, max_sweeps)
    p0, pk = turn_total_table(g)
    st = check_goal(start, g) if start is not None else hold_strategy(min(25, g), g)
    _, k0 = st.target_table()
    pol = np.ones((g + 1, g + 1), np.int64)
    pol[:g, :g] = k0[0]
    v = _terminal2(g)
    # sweeps per kernel call: fewer at large goals, so that little runs past the cycle
    block = int(min(20, max(1, 2e9 // _selfplay_sweep_work(g))))
    phist_all: list[np.ndarray] = []
    vhist_all: list[np.ndarray] = []
    found = None
    while len(phist_all) < max_sweeps and found is None:
        block = min(block, max_sweeps - len(phist_all))
        ph = np.empty((block, g + 1, g + 1), np.int64)
        vh = np.empty((block, g + 1, g + 1))
        _selfplay_sweeps(g, p0, pk, v, pol, vh, ph)
        for t in range(block):
            phist_all.append(ph[t].copy())
            vhist_all.append(vh[t].copy())
            n = len(phist_all) - 1
            for lag in (1, 2, 3, 4):
                if (
                    n - lag >= 0
                    and np.array_equal(phist_all[n], phist_all[n - lag])
                    and np.allclose(vhist_all[n], vhist_all[n - lag], rtol=0, atol=1e-14)
                ):
                    found = (n, lag)
                    break
            if found:
                break
    if found is None:
        last = vhist_all[-1] - vhist_all[-2] if len(vhist_all) > 1 else np.ones(1)
        raise DicelabError(
            f"self-play at goal {g} did not settle into a cycle within {max_sweeps} sweeps "
            f"(the last sweep changed a value by up to {float(np.max(np.abs(last))):.3g})"
        )
    n, lag = found
    p1, p2 = phist_all[n - 1][:g, :g], phist_all[n][:g, :g]
    v1, v2 = vhist_all[n - 1][:g, :g], vhist_all[n][:g, :g]
    if lag == 1:
        p1, v1 = p2, v2
    diff = np.abs(v1 - v2)
    where = np.unravel_index(int(np.argmax(diff)), diff.shape)
    cyc = np.zeros((g, g), bool)
    for t in range(lag):
        cyc |= phist_all[n - t][:g, :g] != phist_all[n][:g, :g]
    s1 = _table_strategy("cyclic:1", g, p1)
    s2 = _table_strategy("cyclic:2", g, p2)
    hold25 = hold_strategy(25 if g >= 25 else None, g)
    w1 = float(evaluate(s1, hold25, g)[0, 0])
    w2 = float(evaluate(s2, hold25, g)[0, 0])
    return SelfPlay(
        g,
        n + 1,
        lag,
        int(cyc.sum()),
        p1,
        p2,
        v1,
        v2,
        float(diff.mean()),
        float(diff.max()),
        (int(where[0]), int(where[1])),
        (w1, w2),
        float(evaluate(s1, s2, g)[0, 0]),
    )


def _selfplay_sweep_work(g: int) -> float:
    """Multiply-adds of one self-play sweep: each state scores every target against B's."""
    return g * g * (g / 2 + 1) * 13.0


def _selfplay_sweep_cap(g: int, max_sweeps: int, max_work: float = DEFAULT_MAX_WORK) -> int:
    """The sweeps self-play may run: ``max_sweeps``, fewer if they would exceed ``max_work``.

    Refuses (one line) when not even the 8 sweeps that goals 100-300 need would fit.
    """
    require(
        isinstance(max_sweeps, int) and 1 <= max_sweeps <= 100_000,
        f"max_sweeps must be a whole number from 1 to 100000, got {max_sweeps}",
    )
    per = _selfplay_sweep_work(g)
    require(
        8 * per <= max_work,
        f"self-play at goal {g} needs about {8 * per:.1e} multiply-adds for 8 sweeps "
        f"(limit {max_work:.0e}); lower the goal",
    )
    return int(min(max_sweeps, max_work // per))


def _table_strategy(spec: str, g: int, k: np.ndarray) -> SimPigStrategy:
    return table_strategy(spec, g, np.ones((1, g, g)), k[None].astype(np.int64))


@dataclass
class Svima:
    """SVIMA (Algorithm 0.2): A's follower policy, B's leader policy (own score first), values."""

    goal: int
    value: np.ndarray
    policy_a: np.ndarray
    policy_b: np.ndarray
    differing_states: int
    win_a: float
    win_b: float
    seconds: float

    def to_dict(self) -> dict[str, object]:
        return {
            "goal": self.goal,
            "differing_states": self.differing_states,
            "win_a": self.win_a,
            "win_b": self.win_b,
            "seconds": self.seconds,
        }


def svima(goal: int = 100) -> Svima:
    """Stackelberg value iteration for multi-agent RL (Algorithm 0.2), solved in one backward pass.

    At each state B (the leader) picks the target ``k'`` that minimises A's value when A replies
    with its best target ``f(k')`` (A's value with the pair fixed at this state, self-loop in
    closed form); A's policy is that reply. ``differing_states`` counts states ``(i, j)`` where
    A's target at ``(i, j)`` differs from B's target when B holds ``i`` points against ``j``.
    """
    g = SimPigRules(goal=goal).goal
    p0, pk = turn_total_table(g)
    t0 = time.perf_counter()
    v = _terminal2(g)
    pa = np.zeros((g + 1, g + 1), np.int64)
    pb = np.zeros((g + 1, g + 1), np.int64)
    _svima_pass(g, p0, pk, v, pa, pb)
    sec = time.perf_counter() - t0
    pa, pb = pa[:g, :g], pb[:g, :g]
    win_a = float(
        evaluate(_table_strategy("svima", g, pa), _table_strategy("svima-b", g, pb), g)[0, 0]
    )
    return Svima(g, v[:g, :g], pa, pb, int((pa != pb).sum()), win_a, 1.0 - win_a, sec)


# --------------------------------------------------------------------------------------------
# n players
# --------------------------------------------------------------------------------------------


def memory_needed(
    players: int, goal: int, components: int = 1, mixed_weights: bool = False
) -> float:
    """Bytes the n-player pass needs: values, policy, and each opponent's targets (and weights)."""
    states = float(goal + 1) ** players
    per = 8 + 2 + (players - 1) * components * (2 + (8 if mixed_weights else 0))
    return states * per


def _work_needed(players: int, goal: int, components: int, symmetric: bool) -> float:
    states = float(goal + 1) ** players
    if symmetric:
        states /= math.factorial(players - 1)
    return states * (goal / 2 + 1) * float(6 * components + 1) ** (players - 1)


def check_size(
    players: int,
    goal: int,
    components: int = 1,
    symmetric: bool = False,
    max_memory: float = DEFAULT_MAX_MEMORY,
    max_work: float = DEFAULT_MAX_WORK,
) -> None:
    """Refuse, with a one-line error naming the memory (or work) needed, an n-player best
    response that would not fit in ``max_memory`` bytes or need more than ``max_work``
    operations by either pass (the general one, or the factorised one for opponents whose
    targets depend on their own scores only); the solver checks the pass it runs again."""
    need = min(memory_needed(players, goal, components), factored_memory(players, goal))
    if need > max_memory:
        raise DicelabError(
            f"{players} players at goal {goal} need about {need / 2**30:.1f} GiB of memory "
            f"(limit {max_memory / 2**30:.1f} GiB); use fewer players, a lower goal, "
            f"the many-player method for state-independent strategies, or --backend to shard "
            f"the table on disk"
        )
    work = min(
        _work_needed(players, goal, components, symmetric),
        factored_work(players, goal, symmetric),
    )
    if work > max_work:
        raise DicelabError(
            f"{players} players at goal {goal} need about {work:.1e} multiply-adds "
            f"(limit {max_work:.0e}, about {work / 5e8 / 3600:.1f} hours on one core); "
            f"lower the goal or the number of players, or spread it over workers with --backend"
        )


def _check_general(
    players: int, goal: int, components: int, symmetric: bool, max_memory: float, max_work: float
) -> None:
    """:func:`check_size` for the general pass alone (state-dependent opponents)."""
    need = memory_needed(players, goal, components)
    if need > max_memory:
        raise DicelabError(
            f"{players} players at goal {goal} need about {need / 2**30:.1f} GiB of memory "
            f"(limit {max_memory / 2**30:.1f} GiB) with opponents that look at the other scores; "
            f"use fewer players, a lower goal, or --backend to shard the table on disk"
        )
    work = _work_needed(players, goal, components, symmetric)
    if work > max_work:
        raise DicelabError(
            f"{players} players at goal {goal} need about {work:.1e} multiply-adds "
            f"(limit {max_work:.0e}, about {work / 5e8 / 3600:.1f} hours on one core) with "
            f"opponents that look at the other scores; lower the goal or the number of players, "
            f"or spread it over workers with --backend"
        )


def _grid_coords(players: int, g: int) -> list[np.ndarray]:
    b = g + 1
    return [
        np.arange(b).reshape([b if d == x else 1 for x in range(players)]) for d in range(players)
    ]


def symmetric_opponents(strats: list[SimPigStrategy]) -> bool:
    """Check the opponents of an n-player best response (no two-player tables) and say whether
    the symmetry shortcut applies: at least two opponents, all with the same symmetric strategy."""
    for s in strats:
        require(
            not s.two_player_only,
            f"strategy {s.spec!r} is a two-player table; use hold:/pw:/mix: specs",
        )
    same = all(s.spec == strats[0].spec for s in strats)
    return len(strats) >= 2 and same and strats[0].symmetric


def _best_response_n(
    strats: list[SimPigStrategy], g: int, max_memory: float, max_work: float
) -> BestResponse:
    n = len(strats) + 1
    coords = _grid_coords(n, g)
    symmetric = symmetric_opponents(strats)
    if all(s.state_independent for s in strats):
        return _best_response_factored(strats, g, symmetric, max_memory, max_work)
    ncomp = 1
    for s in strats:
        ncomp = max(ncomp, len(s.mixture(np.zeros(1, np.int64), [np.zeros(1, np.int64)] * (n - 1))))
    _check_general(n, g, ncomp, symmetric, max_memory, max_work)
    total = (g + 1) ** n
    ok = np.ones((n - 1, ncomp, total), np.int16)
    state_dep_w = False
    wlist = []
    for o, s in enumerate(strats):
        own = coords[o + 1]
        others = [coords[0]] + [coords[x + 1] for x in range(n - 1) if x != o]
        cs = s.mixture(own, others)
        wl = []
        for c, (w, k) in enumerate(cs):
            ok[o, c] = np.broadcast_to(np.minimum(np.maximum(k, 1), g), (g + 1,) * n).reshape(-1)
            wl.append(w)
            if np.ndim(w) > 0:
                state_dep_w = True
        wlist.append(wl)
    if state_dep_w:
        ow = np.zeros((n - 1, ncomp, total))
        for o, wl in enumerate(wlist):
            for c, w in enumerate(wl):
                ow[o, c] = np.broadcast_to(w, (g + 1,) * n).reshape(-1)
    else:
        ow = np.zeros((n - 1, ncomp, 1))
        for o, wl in enumerate(wlist):
            for c, w in enumerate(wl):
                ow[o, c, 0] = float(w)
    ok64 = ok.astype(np.int64) if ok.nbytes < 64 * 2**20 else ok
    p0, pk = turn_total_table(g)
    v = _terminal_n(n, g, coords)
    pol = np.zeros(total, np.int16)
    t0 = time.perf_counter()
    _pass_n(n, g, p0, pk, ok64, ow, True, symmetric, np.zeros(1, np.int64), v, pol)
    sec = time.perf_counter() - t0
    v = v.reshape((g + 1,) * n)
    pol = pol.reshape((g + 1,) * n)
    if symmetric:
        v, pol = _symmetrize(v, pol, n)
    return BestResponse(g, n, [s.spec for s in strats], v, pol, sec, symmetric)


def _own_score_laws(
    strats: list[SimPigStrategy], g: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each opponent's move from each own score (for strategies that depend on it only):
    ``pn_j[o, j, t]``/``pn_p[o, j, t]`` (t < ``pn_c[o, j]``) its new score and probability when
    it banks, ``q0[o, j]`` its bust probability; score ``goal`` stays put."""
    m = len(strats)
    p0, pk = turn_total_table(g)
    own = np.arange(g)
    zero = np.zeros(g, np.int64)
    comps = [s.mixture(own, [zero] * m) for s in strats]
    width = 6 * max(len(c) for c in comps)
    pn_j = np.zeros((m, g + 1, width), np.int64)
    pn_p = np.zeros((m, g + 1, width))
    pn_c = np.zeros((m, g + 1), np.int64)
    q0 = np.ones((m, g + 1))
    for o, cs in enumerate(comps):
        ks = np.stack([np.broadcast_to(np.minimum(np.maximum(k, 1), g), (g,)) for _, k in cs])
        ws = np.stack([np.broadcast_to(np.asarray(w, np.float64), (g,)) for w, _ in cs])
        for j in range(g):
            c, q = _outcome_list(g, p0, pk, np.ascontiguousarray(ks[:, j]).astype(np.int64),
                                 np.ascontiguousarray(ws[:, j]), j, pn_j[o, j], pn_p[o, j])
            pn_c[o, j] = c
            q0[o, j] = q
    return pn_j, pn_p, pn_c, q0


def factored_memory(players: int, goal: int) -> float:
    """Bytes of the factorised n-player pass: values, the averaged values ``U`` and the policy
    (8 + 8 + 2 per state), and the partial products of one slice."""
    states = float(goal + 1) ** players
    m = players - 1
    return states * 18 + float(goal + 1) ** m * 8 * (m * (m - 1) // 2 + 2)


def factored_work(players: int, goal: int, symmetric: bool) -> float:
    """Multiply-adds of the factorised pass: per state, ``m (m + 1) / 2`` partial products and
    ``m`` axis contractions of about 7 terms each, and (at solved states: 1 / (m)! of them with
    equal opponents) the target search, about 7 (goal - i) terms."""
    m = players - 1
    states = float(goal + 1) ** players
    solved = states / math.factorial(m) if symmetric else states
    return states * 7 * (m * (m + 1) / 2 + m) + solved * 7 * (goal / 2 + 1)


def _best_response_factored(
    strats: list[SimPigStrategy], g: int, symmetric: bool, max_memory: float, max_work: float
) -> BestResponse:
    n = len(strats) + 1
    m = n - 1
    need = factored_memory(n, g)
    if need > max_memory:
        raise DicelabError(
            f"{n} players at goal {g} need about {need / 2**30:.1f} GiB of memory "
            f"(limit {max_memory / 2**30:.1f} GiB); use fewer players, a lower goal, "
            f"the many-player method for state-independent strategies, or --backend to shard "
            f"the table on disk"
        )
    work = factored_work(n, g, symmetric)
    if work > max_work:
        raise DicelabError(
            f"{n} players at goal {g} need about {work:.1e} multiply-adds "
            f"(limit {max_work:.0e}, about {work / 5e8 / 3600:.1f} hours on one core); "
            f"lower the goal or the number of players, or spread it over workers with --backend"
        )
    pn_j, pn_p, pn_c, q0 = _own_score_laws(strats, g)
    p0, pk = turn_total_table(g)
    b = g + 1
    M = b**m
    v = np.empty(b * M)
    _terminal_fill(n, g, v)
    pol = np.zeros(b * M, np.int16)
    U = np.empty((M, b))
    Z = np.empty((max(m * (m - 1) // 2, 1), M))
    t0 = time.perf_counter()
    _pass_factored(m, g, p0, pk, pn_j, pn_p, pn_c, q0, symmetric, v, pol, U, Z)
    sec = time.perf_counter() - t0
    return BestResponse(g, n, [s.spec for s in strats], v.reshape((b,) * n),
                        pol.reshape((b,) * n), sec, symmetric)


def _terminal_n(n: int, g: int, coords: list[np.ndarray]) -> np.ndarray:
    shape = (g + 1,) * n
    at = [np.broadcast_to(c == g, shape) for c in coords]
    m = sum(a.astype(np.int64) for a in at)
    v = np.where(at[0], 1.0 / np.maximum(m, 1), 0.0)
    return np.ascontiguousarray(v, dtype=np.float64).reshape(-1)


def _symmetrize(v: np.ndarray, pol: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Fill the non-canonical states (opponent scores not sorted) from their sorted twins."""
    g1 = v.shape[0]
    idx = np.indices(v.shape).reshape(n, -1)
    opp = np.sort(idx[1:], axis=0)
    src = np.ravel_multi_index(np.vstack([idx[:1], opp]), v.shape)
    inner = np.all(idx < g1 - 1, axis=0)
    vf, pf = v.reshape(-1).copy(), pol.reshape(-1).copy()
    vf[inner] = vf[src[inner]]
    pf[inner] = pf[src[inner]]
    return vf.reshape(v.shape), pf.reshape(pol.shape)


def evaluate_n(strategies: list[SimPigStrategy], goal: int) -> float:
    """Exact share of the win of player 0 when every player follows its (pure) strategy."""
    n = len(strategies)
    rules = SimPigRules(goal=goal, players=n)
    strats = [check_goal(s, goal) for s in strategies]
    g = rules.goal
    coords = _grid_coords(n, g)
    mine = strats[0].mixture(coords[0], coords[1:])
    require(
        len(mine) == 1 and np.ndim(mine[0][0]) == 0, "evaluate_n needs a pure strategy for player 0"
    )
    a_k = mine[0][1]
    a_flat = (
        np.broadcast_to(np.minimum(np.maximum(a_k, 1), g), (g + 1,) * n)
        .reshape(-1)
        .astype(np.int64)
    )
    need = memory_needed(n, g)
    require(
        need <= DEFAULT_MAX_MEMORY, f"{n} players at goal {g} need about {need / 2**30:.1f} GiB"
    )
    ncomp = max(len(s.mixture(coords[o + 1], coords[:1])) for o, s in enumerate(strats[1:]))
    total = (g + 1) ** n
    ok = np.ones((n - 1, ncomp, total), np.int64)
    ow = np.zeros((n - 1, ncomp, total))
    for o, s in enumerate(strats[1:]):
        own = coords[o + 1]
        others = [coords[0]] + [coords[x + 1] for x in range(n - 1) if x != o]
        for c, (wc, k) in enumerate(s.mixture(own, others)):
            ok[o, c] = np.broadcast_to(np.minimum(np.maximum(k, 1), g), (g + 1,) * n).reshape(-1)
            ow[o, c] = np.broadcast_to(wc, (g + 1,) * n).reshape(-1)
    p0, pk = turn_total_table(g)
    v = _terminal_n(n, g, coords)
    pol = np.zeros(total, np.int16)
    _pass_n(n, g, p0, pk, ok, ow, False, False, a_flat, v, pol)
    return float(v[0])


# --------------------------------------------------------------------------------------------
# Many players, state-independent strategies
# --------------------------------------------------------------------------------------------


def turns_to_goal(
    strategy: SimPigStrategy, goal: int, tol: float = 1e-16, max_turns: int = 10**6
) -> np.ndarray:
    """``f[t] = P(first reaching the goal at turn t + 1)`` for a state-independent strategy.

    The own score is a Markov chain on ``0..goal``; the distribution is propagated turn by turn
    until less than ``tol`` of the mass is left.
    """
    s = check_goal(strategy, goal)
    require(
        s.state_independent,
        f"strategy {s.spec!r} depends on the other scores; the turns-to-goal "
        "method needs a state-independent strategy (hold:, or mix: of hold:)",
    )
    g = goal
    p0, pk = turn_total_table(g)
    own = np.arange(g)
    trans = np.zeros((g, g + 1))
    for w, k in s.mixture(own, [np.zeros(g, np.int64)]):
        k = np.broadcast_to(k, (g,))
        w = np.broadcast_to(np.asarray(w, float), (g,))
        trans[own, own] += w * p0[k]
        for r in range(6):
            np.add.at(trans, (own, np.minimum(own + k + r, g)), w * pk[k, r])
    dist = np.zeros(g)
    dist[0] = 1.0
    out = []
    left = 1.0
    while left > tol and len(out) < max_turns:
        new = dist @ trans
        out.append(new[g])
        dist = new[:g]
        left = dist.sum()
    return np.array(out)


def many_player_win(
    strategy: SimPigStrategy, others: SimPigStrategy, players: int, goal: int = 100
) -> float:
    """Exact share of the win of one player using ``strategy`` against ``players - 1`` others all
    using ``others``; both must be state-independent (their scores are independent Markov chains).

    With ``f(t)``/``S(t)`` the others' probabilities of finishing at / after turn ``t``, and ``N``
    others, the expected share when A finishes at ``t`` is
    ``sum_m C(N, m) f^m S^(N-m) / (m + 1) = ((S + f)^(N+1) - S^(N+1)) / ((N + 1) f)``,
    evaluated with ``expm1``/``log1p`` so that it stays accurate for ``N = 1000``.
    """
    rules = SimPigRules(goal=goal, players=players)
    fa = turns_to_goal(strategy, rules.goal)
    fb = turns_to_goal(others, rules.goal)
    nb = players - 1
    t = max(len(fa), len(fb))
    fa = np.pad(fa, (0, t - len(fa)))
    fb = np.pad(fb, (0, t - len(fb)))
    after = np.clip(1.0 - np.cumsum(fb), 0.0, 1.0)  # S(t) = P(T_B > t)
    share = np.empty(t)
    for x in range(t):
        f, s = fb[x], after[x]
        if f <= 0.0:
            share[x] = s**nb
        elif s <= 0.0:
            share[x] = f**nb / (nb + 1)
        else:
            share[x] = s ** (nb + 1) * math.expm1((nb + 1) * math.log1p(f / s)) / ((nb + 1) * f)
    return float(np.dot(fa, share))


@dataclass
class GoalHolders:
    """Player A's exact best response when all ``players - 1`` others hold at the goal."""

    players: int
    goal: int
    best_value: float
    fair_share: float
    policy: np.ndarray = field(repr=False)

    @property
    def is_equilibrium(self) -> bool:
        return self.best_value <= self.fair_share + 1e-12


def best_response_vs_goal_holders(players: int, goal: int = 100) -> GoalHolders:
    """Is "everybody holds at the goal" a Nash equilibrium? Solve A's best response exactly.

    Players holding at the goal stay at 0 until one of them wins outright, so A's problem is a
    one-dimensional MDP over A's own score: each turn each other player finishes with probability
    ``f = P(X_goal > 0)``; A at score ``i`` with target ``k`` finishes with ``P(X_k >= goal - i)``
    and then shares the win with the ``M ~ Binomial(N, f)`` others who finish the same turn.
    This covers *every* strategy of A (the others' scores carry no information).
    """
    rules = SimPigRules(goal=goal, players=players)
    g = rules.goal
    nb = players - 1
    p0, pk = turn_total_table(g)
    f = 1.0 - float(p0[g])
    none = (1.0 - f) ** nb
    share = (1.0 - (1.0 - f) ** (nb + 1)) / ((nb + 1) * f)
    v = np.zeros(g + 1)
    pol = np.zeros(g, np.int64)
    for i in range(g - 1, -1, -1):
        best, bk = -1.0, 1
        for k in range(1, g - i + 1):
            r = 0.0
            for x in range(6):
                t = i + k + x
                r += pk[k, x] * (share if t >= g else none * v[t])
            val = r / (1.0 - p0[k] * none)
            if val > best + 1e-15:
                best, bk = val, k
        v[i], pol[i] = best, bk
    return GoalHolders(players, g, float(v[0]), 1.0 / players, pol)
