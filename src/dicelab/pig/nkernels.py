"""The numba kernels of Pig for n players, written once for every n (2 to 6) and for every use:
optimal play (max-n), the exact evaluation of a profile of fixed strategies, and the best response
of one seat to the others.

The structure they exploit (derivation in ``docs/methods/pig.md``, section "Three or more players"):

* Within a turn only the mover's turn total changes, so a turn is one backward recurrence over
  the turn total per tuple of banked scores, and only **start-of-turn** values are stored.
* Scores are kept **mover first** (``c = (c_0, ..., c_{n-1})``: the mover's banked score, then
  the next player's, and so on), so one value vector serves every seat that could be moving there.
  Holding ``k`` from ``c`` leads to ``(c_1, ..., c_{n-1}, c_0 + k)``, whose index is
  ``(idx(c) mod g^(n-1)) g + c_0 + k``: the hold targets of one turn are contiguous.
* A rolled 1 leads to ``(c_1, ..., c_{n-1}, c_0)``, the same scores: the ``n`` rotations of a
  score tuple form a **cycle** of turns. Given the turns' policies, each turn's start vector is
  affine in the next one's with a *scalar* slope (the chance of a 1 before the turn ends),
  ``W_t = alpha_t + beta_t R W_{t+1}``, so a cycle is solved in closed form; a hold strictly raises
  the total banked score, so cycles are solved in **layers of decreasing total**, each layer's
  cycles independently (in parallel).
* Win probabilities sum to 1, so ``n - 1`` numbers a state are stored: components ``1..n-1`` of
  the mover-first vector (``W[.., r - 1, idx]``); component 0, the mover's, is ``1 - sum``.
* Optimal play is policy iteration on each cycle: a greedy backward pass per turn (the mover
  maximises its own chance; ties hold; a turn total of 0 must roll), the cycle solved exactly for
  those policies, again until no turn's policy changes. Where that does not settle (a cycle with
  several equilibria, or with none in pure strategies), each mover in turn is given its exact best
  response *allowing a mixed choice where it is indifferent* (:func:`_respond`), until the cycle
  settles; the mixed choices are returned (``mixes``) and are part of the solution.

Rows (a strategy's choices over one turn) are float64: the chance of rolling at each turn total.

Value tables have shape ``(P, n - 1, g^n)``: ``P = 1`` when every seat plays the same way (optimal
play, or one strategy in every seat), else ``P = n`` with ``W[m]`` the values when seat ``m`` is
to move (its scores listed from seat ``m`` on).

Strategies of the seats (``kind``, ``param`` per seat): :data:`GREEDY` (optimal for this table:
the solver, or the seat of a best response), :data:`TABLE` (rows ``tables[param, idx, k]``),
:data:`HOLD` (roll while ``k < param``), :data:`THRESH` (roll while ``k < thr[param, idx]``),
:data:`OPT` (greedy with respect to the solved table ``wopt`` and its mixed choices: optimal play
as a fixed strategy).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from dicelab.core.jit import njit

GREEDY = -1
TABLE = 0
HOLD = 1
THRESH = 2
OPT = 3
MAX_ROUNDS = 40  # policy-iteration rounds of one cycle before the mixed best-response fallback
MAX_SWEEPS = 2000  # best-response sweeps around one cycle in the fallback
MIX_ROWS = 4096  # mixed choices one work chunk may record


@njit(cache=True)
def greedy_row(W, ph, g, gn1, idx, c0, y, pts, prb, pb, v, row):
    """One backward pass of the mover's turn at (mover-first) scores ``idx``, mover score ``c0``.

    ``y``: the mover's chance after a rolled 1; holds read the mover's chance at the hold targets
    from ``W[ph, n - 2]`` (the component of the player who just moved). Fills ``v[k]`` (the mover's
    chance at turn total k) and ``row[k]`` (1.0 = roll, 0.0 = hold) for ``k <= top = g - 1 - c0``;
    a tie holds and ``k = 0`` rolls. Returns ``v[0]``.
    """
    top = g - 1 - c0
    m = len(pts)
    dmax = 0
    for q in range(m):
        if pts[q] > dmax:
            dmax = pts[q]
    for t in range(top + 1, top + dmax + 1):
        v[t] = 1.0
    base = (idx % gn1) * g + c0
    hrow = W[ph, W.shape[1] - 1]
    cy = pb * y
    for k in range(top, 0, -1):
        a = cy
        for q in range(m):
            a += prb[q] * v[k + pts[q]]
        h = hrow[base + k]
        if a > h:
            v[k] = a
            row[k] = 1.0
        else:
            v[k] = h
            row[k] = 0.0
    a = cy
    for q in range(m):
        a += prb[q] * v[pts[q]]
    v[0] = a
    row[0] = 1.0
    return a


@njit(cache=True)
def apply_mixes(ph, idx, row, mixes):
    """Overwrite ``row`` with the mixed choices recorded for (phase ``ph``, ``idx``).

    ``mixes`` (m, 4): rows ``(phase, idx, k, chance of rolling)`` sorted by phase then idx.
    """
    m = mixes.shape[0]
    if m == 0:
        return
    key = ph * 1.0e15 + idx
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if mixes[mid, 0] * 1.0e15 + mixes[mid, 1] < key:
            lo = mid + 1
        else:
            hi = mid
    while lo < m and mixes[lo, 0] == ph and mixes[lo, 1] == idx:
        row[np.int64(mixes[lo, 2])] = mixes[lo, 3]
        lo += 1


@njit(cache=True)
def turn_law(W, ph, n, g, gn1, idx, c0, pts, prb, pb, row, q, alpha):
    """Where the turn at ``idx`` goes under the choices ``row``: ``alpha`` gets every seat's chance
    from the turn's wins and holds (mover-first), the return value is the chance of a rolled 1.

    A forward pass of the reach probabilities ``q[k]``; a hold at ``k`` adds its share of ``q[k]``
    times the hold target's vector, read from ``W[ph]`` and turned to this turn's seat order.
    """
    top = g - 1 - c0
    m = len(pts)
    base = (idx % gn1) * g + c0
    for k in range(top + 1):
        q[k] = 0.0
    q[0] = 1.0
    for r in range(n):
        alpha[r] = 0.0
    win = 0.0
    bust = 0.0
    for k in range(top + 1):
        qk = q[k]
        if qk == 0.0:
            continue
        rp = 1.0 if k == 0 else row[k]
        if rp > 0.0:
            qr = qk * rp
            bust += pb * qr
            for j in range(m):
                t = k + pts[j]
                if t > top:
                    win += prb[j] * qr
                else:
                    q[t] += prb[j] * qr
        if rp < 1.0:
            qh = qk * (1.0 - rp)
            ib = base + k
            # the target's mover-first vector w: w[r] = W[ph, r - 1, ib] (r >= 1), w[0] = 1 - sum;
            # in this turn's order the old mover (w's last seat) comes first: H[s] = w[s - 1]
            s = 0.0
            for r in range(1, n):
                x = W[ph, r - 1, ib]
                s += x
                if r < n - 1:
                    alpha[r + 1] += qh * x
            alpha[0] += qh * W[ph, n - 2, ib]
            alpha[1] += qh * (1.0 - s)
    alpha[0] += win
    return bust


@njit(cache=True)
def solve_cycle(alpha, beta, n, Wc):
    """Solve ``W_t = alpha_t + beta_t R W_{t+1}`` (t = 0..n-1, W_n = W_0, (R w)[r] = w[r - 1])."""
    pn = 1.0
    for r in range(n):
        Wc[0, r] = 0.0
    for s in range(n):
        for r in range(n):
            Wc[0, r] += pn * alpha[s, (r - s) % n]
        pn *= beta[s]
    den = 1.0 - pn
    for r in range(n):
        Wc[0, r] /= den
    for t in range(n - 1, 0, -1):
        nxt = (t + 1) % n
        for r in range(n):
            Wc[t, r] = alpha[t, r] + beta[t] * Wc[nxt, (r - 1) % n]


@njit(cache=True)
def _fixed_row(kind, param, tables, thr, wopt, mixes, n, g, gn1, idx, c0, pts, prb, pb, v, row):
    """The row of a fixed strategy at ``idx`` (its turn total 0 always rolls)."""
    top = g - 1 - c0
    if kind == TABLE:
        for k in range(top + 1):
            row[k] = 1.0 if tables[param, idx, k] else 0.0
    elif kind == HOLD:
        for k in range(top + 1):
            row[k] = 1.0 if k < param else 0.0
    elif kind == THRESH:
        h = thr[param, idx]
        for k in range(top + 1):
            row[k] = 1.0 if k < h else 0.0
    else:  # OPT: greedy with respect to the solved table, with its mixed choices
        y = wopt[0, n - 2, (idx % gn1) * g + c0]
        greedy_row(wopt, np.int64(0), g, gn1, idx, c0, y, pts, prb, pb, v, row)
        apply_mixes(0, idx, row, mixes)
    row[0] = 1.0


@njit(cache=True)
def _set_row(t, period, n, src, rows, top):
    """Give turn t (and the turns equal to it, every ``period``) the choices ``src``."""
    for u in range(t % period, n, period):
        for k in range(top + 1):
            rows[u, k] = src[k]


@njit(cache=True)
def _eval_turns(t, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, q, alpha, beta):
    for u in range(t % period, n, period):
        ph = (m0 + u + 1) % P
        beta[u] = turn_law(W, ph, n, g, gn1, idxs[u], c0s[u], pts, prb, pb, rows[u], q, alpha[u])


@njit(cache=True)
def _respond(t, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta, Wc,
             v, q, ra, rb, mix, RA, RB, bks, ismix):
    """Turn t's exact best response to the other turns' current choices, mixed if it must be.

    The mover's chance after a 1, ``y``, decides its greedy choices; ``h(y) = Y(greedy(y)) - y``
    (Y: the chance the cycle then gives it) is >= 0 at y = 0 and <= 0 at y = 1, so bisection finds
    a sign change. If the greedy choices are the same on both sides, they are a best response; else
    ``y`` sits on a breakpoint, where the mover is indifferent between the two sides' choices, and
    the mix of them (bisection on its weight) that makes ``Y = y`` is the best response; its two
    sides and breakpoint go to ``RA[t]``, ``RB[t]``, ``bks[t]`` (``ismix[t]``).
    """
    nt = (t + 1) % n
    ph = (m0 + t + 1) % P
    top = g - 1 - c0s[t]
    lo = 0.0
    hi = 1.0
    for it in range(80):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        greedy_row(W, ph, g, gn1, idxs[t], c0s[t], mid, pts, prb, pb, v, mix)
        _set_row(t, period, n, mix, rows, top)
        _eval_turns(t, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, q, alpha, beta)
        solve_cycle(alpha, beta, n, Wc)
        if Wc[nt, n - 1] >= mid:
            lo = mid
        else:
            hi = mid
    greedy_row(W, ph, g, gn1, idxs[t], c0s[t], lo, pts, prb, pb, v, ra)
    greedy_row(W, ph, g, gn1, idxs[t], c0s[t], hi, pts, prb, pb, v, rb)
    same = True
    for k in range(top + 1):
        if ra[k] != rb[k]:
            same = False
            break
    ismix[t] = not same
    if same:
        _set_row(t, period, n, ra, rows, top)
    else:
        for k in range(top + 1):
            RA[t, k] = ra[k]
            RB[t, k] = rb[k]
        bks[t] = lo
        l0 = 0.0
        l1 = 1.0
        for it in range(80):
            lm = 0.5 * (l0 + l1)
            if lm <= l0 or lm >= l1:
                break
            for k in range(top + 1):
                mix[k] = ra[k] + lm * (rb[k] - ra[k])
            _set_row(t, period, n, mix, rows, top)
            _eval_turns(t, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, q, alpha,
                        beta)
            solve_cycle(alpha, beta, n, Wc)
            if Wc[nt, n - 1] >= lo:
                l0 = lm
            else:
                l1 = lm
        for k in range(top + 1):
            mix[k] = RA[t, k] + l0 * (RB[t, k] - RA[t, k])
        _set_row(t, period, n, mix, rows, top)
    _eval_turns(t, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, q, alpha, beta)
    solve_cycle(alpha, beta, n, Wc)


@njit(cache=True)
def _settle(skip, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta, Wc,
            v, q, ra, rb, mix, RA, RB, bks, ismix, kinds, ylo, yhi):
    """Best responses of the greedy turns other than ``skip`` (-1: none), in turn, until the
    cycle settles (at most 40 rounds). Returns whether it settled; ``ylo``/``yhi`` get the range
    of each mover's chance after a 1 over the last 20 rounds."""
    Wp = np.empty((n, n))
    for t in range(n):
        ylo[t] = 2.0
        yhi[t] = -1.0
    for sweep in range(40):
        for t in range(n):
            for r in range(n):
                Wp[t, r] = Wc[t, r]
        for t in range(period - 1, -1, -1):
            if (skip >= 0 and t == skip % period) or kinds[(m0 + t) % n] != GREEDY:
                continue
            _respond(t, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta,
                     Wc, v, q, ra, rb, mix, RA, RB, bks, ismix)
        step = 0.0
        for t in range(n):
            for r in range(n):
                step = max(step, abs(Wc[t, r] - Wp[t, r]))
            if sweep >= 20:
                y = Wc[(t + 1) % n, n - 1]
                ylo[t] = min(ylo[t], y)
                yhi[t] = max(yhi[t], y)
        if step <= 1e-16:
            return True
    return False


@njit(cache=True)
def _gap(W, P, m0, n, g, gn1, kinds, idxs, c0s, pts, prb, pb, Wc, v, buf):
    """The largest Bellman residual of the greedy turns of the cycle at its values ``Wc``."""
    gap = 0.0
    for t in range(n):
        if kinds[(m0 + t) % n] != GREEDY:
            continue
        ph = (m0 + t + 1) % P
        v0 = greedy_row(W, ph, g, gn1, idxs[t], c0s[t], Wc[(t + 1) % n, n - 1], pts, prb, pb, v,
                        buf)
        gap = max(gap, abs(v0 - Wc[t, 0]))
    return gap


@njit(cache=True)
def _gauss_solve(A, b, x):
    """x = A^-1 b for a small system (one unknown per mixed turn), by Gaussian elimination with
    partial pivoting on copies; False where |det A| <= 1e-200 (singular for this purpose).

    Written out rather than ``np.linalg.solve``/``det``, which cost about 9 s of numba compile
    (LAPACK wrappers) on every cold cache for systems of at most six unknowns.
    """
    n = b.shape[0]
    M = A.copy()
    y = b.copy()
    det = 1.0
    for col in range(n):
        piv = col
        for r in range(col + 1, n):
            if abs(M[r, col]) > abs(M[piv, col]):
                piv = r
        if piv != col:
            det = -det
            for k in range(n):
                M[col, k], M[piv, k] = M[piv, k], M[col, k]
            y[col], y[piv] = y[piv], y[col]
        det *= M[col, col]
        if M[col, col] == 0.0:
            return False
        for r in range(col + 1, n):
            f = M[r, col] / M[col, col]
            for k in range(col, n):
                M[r, k] -= f * M[col, k]
            y[r] -= f * y[col]
    if not abs(det) > 1e-200:
        return False
    for r in range(n - 1, -1, -1):
        acc = y[r]
        for k in range(r + 1, n):
            acc -= M[r, k] * x[k]
        x[r] = acc / M[r, r]
    return True


@njit(cache=True)
def _polish(period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta, Wc, q,
            RA, RB, bks, ismix):
    """Newton's method on the mixing weights of the mixed turns, so that each such mover's chance
    after a 1 sits exactly on its breakpoint (where it is indifferent); the rest stay as they are."""
    mt = np.empty(n, dtype=np.int64)
    nm = np.int64(0)  # not a literal 0: numba would compile its callees once more for it
    for t in range(period):
        if ismix[t]:
            mt[nm] = t
            nm += 1
    if nm == 0:
        return
    lam = np.empty(nm)
    f = np.empty(nm)
    f2 = np.empty(nm)
    J = np.empty((nm, nm))
    step = np.empty(nm)
    for i in range(nm):
        t = mt[i]
        top = g - 1 - c0s[t]
        lam[i] = 0.5
        for k in range(1, top + 1):
            if RA[t, k] != RB[t, k]:
                lam[i] = (rows[t, k] - RA[t, k]) / (RB[t, k] - RA[t, k])
                break
    for it in range(30):
        _mix_eval(lam, mt, nm, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha,
                  beta, Wc, q, RA, RB, bks, f)
        worst = 0.0
        for i in range(nm):
            worst = max(worst, abs(f[i]))
        if worst <= 2e-16:
            break
        for j in range(nm):
            # the difference step stays inside [0, 1]: past 1 (or below 0) a row is no chance at
            # all (turn_law then drops the hold share), and a forward step from a weight clamped at
            # 1 read that jump as the slope and held Newton there (3 players, 4-sided die, goal 43,
            # scores (0, 13, 30): residual 5.2e-8 where the equilibrium mixes at 0.99769)
            h = 1e-7 if lam[j] <= 0.5 else -1e-7
            lam[j] += h
            _mix_eval(lam, mt, nm, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows,
                      alpha, beta, Wc, q, RA, RB, bks, f2)
            lam[j] -= h
            for i in range(nm):
                J[i, j] = (f2[i] - f[i]) / h
        if not _gauss_solve(J, f, step):
            break
        for i in range(nm):
            lam[i] = min(max(lam[i] - step[i], 0.0), 1.0)
    _mix_eval(lam, mt, nm, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha,
              beta, Wc, q, RA, RB, bks, f)


@njit(cache=True)
def _mix_eval(lam, mt, nm, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha,
              beta, Wc, q, RA, RB, bks, f):
    for i in range(nm):
        t = mt[i]
        top = g - 1 - c0s[t]
        for u in range(t, n, period):
            for k in range(top + 1):
                rows[u, k] = RA[t, k] + lam[i] * (RB[t, k] - RA[t, k])
            _eval_turns(u, n, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, q, alpha, beta)
    solve_cycle(alpha, beta, n, Wc)
    for i in range(nm):
        t = mt[i]
        f[i] = Wc[(t + 1) % n, n - 1] - bks[t]


@njit(cache=True)
def _cycle(W, P, m0, c, n, g, gn1, kinds, params, tables, thr, wopt, mixes, pts, prb, pb,
           idxs, c0s, rows, rnew, v, q, alpha, beta, Wc, Wp, ra, rb, ys, stats, mixout, nmix):
    """Solve the cycle of the rotations of ``c`` (seat ``m0`` to move at ``c``) and store it.

    stats: [largest residual, rounds, fallback cycles, mixed cycles] of this chunk, updated;
    mixed choices are appended to ``mixout[nmix[0]:]``.
    """
    for t in range(n):
        ix = 0
        for r in range(n):
            ix = ix * g + c[(t + r) % n]
        idxs[t] = ix
        c0s[t] = c[t]
    period = n
    for p in range(1, n):
        if n % p == 0 and P == 1:
            same = True
            for r in range(n):
                if c[r] != c[(r + p) % n]:
                    same = False
                    break
            if same:
                period = p
                break
    greedy = False
    for t in range(n):
        seat = (m0 + t) % n
        ph = (m0 + t + 1) % P
        if kinds[seat] == GREEDY:
            greedy = True
            continue
        _fixed_row(kinds[seat], params[seat], tables, thr, wopt, mixes, n, g, gn1, idxs[t],
                   c0s[t], pts, prb, pb, v, rows[t])
        beta[t] = turn_law(W, ph, n, g, gn1, idxs[t], c0s[t], pts, prb, pb, rows[t], q, alpha[t])
    if not greedy:
        solve_cycle(alpha, beta, n, Wc)
    else:
        # warm start: each greedy mover's chance after a 1, from the layer above
        for t in range(n):
            nt = (t + 1) % n
            ph = (m0 + t + 1) % P
            if c0s[nt] + 1 < g:
                ys[t] = W[ph, n - 2, idxs[nt] + gn1]
            else:
                ys[t] = 1.0 / n
        rounds = 0
        prev_gap = 2.0
        while True:
            changed = False
            gap = 0.0
            for t in range(n):
                if kinds[(m0 + t) % n] != GREEDY:
                    continue
                ph = (m0 + t + 1) % P
                top = g - 1 - c0s[t]
                v0 = greedy_row(W, ph, g, gn1, idxs[t], c0s[t], ys[t], pts, prb, pb, v, rnew)
                if rounds > 0:
                    gap = max(gap, abs(v0 - Wc[t, 0]))
                for k in range(top + 1):
                    if rnew[k] != rows[t, k]:
                        changed = True
                        rows[t, k] = rnew[k]
            if rounds > 0 and (not changed or (gap <= 1e-15 and gap >= prev_gap)):
                stats[0] = max(stats[0], gap)
                break
            prev_gap = gap if rounds > 0 else 2.0
            if rounds >= MAX_ROUNDS:
                _fallback(W, P, m0, n, g, gn1, kinds, period, idxs, c0s, pts, prb, pb, rows,
                          rnew, v, q, alpha, beta, Wc, Wp, ra, rb, stats, mixout, nmix)
                break
            for t in range(n):
                if kinds[(m0 + t) % n] != GREEDY:
                    continue
                ph = (m0 + t + 1) % P
                beta[t] = turn_law(W, ph, n, g, gn1, idxs[t], c0s[t], pts, prb, pb, rows[t], q,
                                   alpha[t])
            solve_cycle(alpha, beta, n, Wc)
            for t in range(n):
                ys[t] = Wc[(t + 1) % n, n - 1]
            rounds += 1
        stats[1] += rounds
    for t in range(n):
        ph = (m0 + t) % P
        for r in range(1, n):
            W[ph, r - 1, idxs[t]] = Wc[t, r]


@njit(cache=True)
def _breakpoints(t, lo, hi, W, ph, g, gn1, idxs, c0s, pts, prb, pb, v, buf, Q, BY):
    """The greedy choices of turn t for ``y`` in [lo, hi]: ``Q[t, 0..nb]`` the successive
    policies and ``BY[t, j]`` the breakpoint between ``Q[t, j]`` and ``Q[t, j + 1]`` (to an ulp).
    Returns nb (at most ``Q.shape[1] - 1``)."""
    top = g - 1 - c0s[t]
    greedy_row(W, ph, g, gn1, idxs[t], c0s[t], lo, pts, prb, pb, v, Q[t, 0])
    greedy_row(W, ph, g, gn1, idxs[t], c0s[t], hi, pts, prb, pb, v, buf)
    nb = 0
    y = lo
    while nb < Q.shape[1] - 1:
        same = True
        for k in range(top + 1):
            if Q[t, nb, k] != buf[k]:
                same = False
                break
        if same:
            break
        a = y
        b = hi
        for it in range(200):
            mid = 0.5 * (a + b)
            if mid <= a or mid >= b:
                break
            greedy_row(W, ph, g, gn1, idxs[t], c0s[t], mid, pts, prb, pb, v, Q[t, nb + 1])
            differs = False
            for k in range(top + 1):
                if Q[t, nb + 1, k] != Q[t, nb, k]:
                    differs = True
                    break
            if differs:
                b = mid
            else:
                a = mid
        greedy_row(W, ph, g, gn1, idxs[t], c0s[t], b, pts, prb, pb, v, Q[t, nb + 1])
        BY[t, nb] = a
        nb += 1
        y = b
    return nb


@njit(cache=True)
def _next_break(t, y, up, W, ph, g, gn1, idxs, c0s, pts, prb, pb, v, here, there, buf):
    """The nearest chance after a 1 beyond ``y`` (above it if ``up``, else below) where turn t's
    greedy choices change (to an ulp; ``y`` itself clipped to [0, 1]); 1.0 or 0.0 if none."""
    y = min(max(y, 0.0), 1.0)
    end = 1.0 if up else 0.0
    top = g - 1 - c0s[t]
    greedy_row(W, ph, g, gn1, idxs[t], c0s[t], y, pts, prb, pb, v, here)
    greedy_row(W, ph, g, gn1, idxs[t], c0s[t], end, pts, prb, pb, v, there)
    same = True
    for k in range(top + 1):
        if here[k] != there[k]:
            same = False
            break
    if same:
        return end
    a = y  # the choices at a are those at y; at b they differ
    b = end
    for it in range(200):
        mid = 0.5 * (a + b)
        if mid == a or mid == b:
            break
        greedy_row(W, ph, g, gn1, idxs[t], c0s[t], mid, pts, prb, pb, v, buf)
        same = True
        for k in range(top + 1):
            if buf[k] != here[k]:
                same = False
                break
        if same:
            a = mid
        else:
            b = mid
    return b


@njit(cache=True)
def _search(best_gap, best_rows, opt, nbs, Q, BY, W, P, m0, n, g, gn1, kinds, period, idxs, c0s,
            pts, prb, pb, rows, rnew, v, q, alpha, beta, Wc, RA, RB, bks, ismix):
    """Try every combination of the listed choices (``opt[t]`` even: turn t pure on interval
    ``opt[t] // 2``; odd: mixing at breakpoint ``opt[t] // 2``), mixing weights by Newton's method,
    until one is an equilibrium. The best found goes to ``best_rows``; returns its residual."""
    while True:
        for t in range(period):
            if kinds[(m0 + t) % n] != GREEDY:
                continue
            j = opt[t] // 2
            top = g - 1 - c0s[t]
            if opt[t] % 2 == 0:
                ismix[t] = False
                for u in range(t, n, period):
                    for k in range(top + 1):
                        rows[u, k] = Q[t, j, k]
            else:
                ismix[t] = True
                bks[t] = BY[t, j]
                for k in range(top + 1):
                    RA[t, k] = Q[t, j, k]
                    RB[t, k] = Q[t, j + 1, k]
                for u in range(t, n, period):
                    for k in range(top + 1):
                        rows[u, k] = 0.5 * (Q[t, j, k] + Q[t, j + 1, k])
        for t in range(n):
            if kinds[(m0 + t) % n] == GREEDY:
                ph = (m0 + t + 1) % P
                beta[t] = turn_law(W, ph, n, g, gn1, idxs[t], c0s[t], pts, prb, pb, rows[t], q,
                                   alpha[t])
        solve_cycle(alpha, beta, n, Wc)
        _polish(period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta, Wc, q,
                RA, RB, bks, ismix)
        gc = _gap(W, P, m0, n, g, gn1, kinds, idxs, c0s, pts, prb, pb, Wc, v, rnew)
        if gc < best_gap:
            best_gap = gc
            best_rows[:, :] = rows
        if gc <= 1e-14:
            return best_gap
        t = 0  # the next combination (an odometer over the greedy turns)
        while t < period:
            if kinds[(m0 + t) % n] == GREEDY:
                opt[t] += 1
                if opt[t] <= 2 * nbs[t]:
                    break
                opt[t] = 0
            t += 1
        if t >= period:
            return best_gap


@njit(cache=True)
def _fallback(W, P, m0, n, g, gn1, kinds, period, idxs, c0s, pts, prb, pb, rows, rnew, v, q,
              alpha, beta, Wc, Wp, ra, rb, stats, mixout, nmix):
    """The cycle's equilibrium where policy iteration does not settle.

    First best responses turn by turn (:func:`_settle`, mixed where a mover must be). Where those
    go round in circles (the movers chase each other, as in matching pennies: each mixing mover's
    weight is pinned down by another mover's indifference), the choices that can be part of the
    equilibrium are listed from the range the chase covered (:func:`_breakpoints`): per turn, a
    pure policy on one interval of its chance after a 1, or a mix at one breakpoint. Each
    combination's mixing weights are solved together by Newton's method (:func:`_polish`) and the
    first combination that is an equilibrium (no mover can gain) is taken.
    """
    stats[2] += 1.0
    width = rows.shape[1]
    RA = np.zeros((n, width))
    RB = np.zeros((n, width))
    bks = np.zeros(n)
    ismix = np.zeros(n, dtype=np.bool_)
    ylo = np.zeros(n)
    yhi = np.zeros(n)
    for t in range(n):
        if kinds[(m0 + t) % n] != GREEDY:
            continue
        ph = (m0 + t + 1) % P
        beta[t] = turn_law(W, ph, n, g, gn1, idxs[t], c0s[t], pts, prb, pb, rows[t], q, alpha[t])
    solve_cycle(alpha, beta, n, Wc)
    _settle(-1, period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta, Wc, v, q,
            ra, rb, rnew, RA, RB, bks, ismix, kinds, ylo, yhi)
    _polish(period, W, P, m0, n, g, gn1, idxs, c0s, pts, prb, pb, rows, alpha, beta, Wc, q, RA,
            RB, bks, ismix)
    gap = _gap(W, P, m0, n, g, gn1, kinds, idxs, c0s, pts, prb, pb, Wc, v, rnew)
    if gap > 1e-14:
        MAXB = 40
        Q = np.zeros((n, MAXB + 1, width))
        BY = np.zeros((n, MAXB))
        nbs = np.zeros(n, dtype=np.int64)
        opt = np.zeros(n, dtype=np.int64)
        best_rows = rows.copy()
        best_gap = gap
        for widen in (0.5, 2.0, 5.0, 12.0):
            if best_gap <= 1e-14:
                break
            for t in range(period):
                opt[t] = 0
                if kinds[(m0 + t) % n] != GREEDY:
                    continue
                ph = (m0 + t + 1) % P
                wide = widen * (yhi[t] - ylo[t]) + 1e-6
                # at least the nearest breakpoint either side of the chase: at four players, goal
                # 100, scores (3, 44, 68, 26), the mover on 68 chased over 5.5e-6 and had to mix
                # at a breakpoint 9.1e-5 below it
                lo = min(ylo[t] - wide, _next_break(t, ylo[t], False, W, ph, g, gn1, idxs, c0s,
                                                    pts, prb, pb, v, ra, rb, rnew) - 1e-9)
                hi = max(yhi[t] + wide, _next_break(t, yhi[t], True, W, ph, g, gn1, idxs, c0s,
                                                    pts, prb, pb, v, ra, rb, rnew) + 1e-9)
                nbs[t] = _breakpoints(t, max(lo, 0.0), min(hi, 1.0), W, ph, g, gn1, idxs, c0s,
                                      pts, prb, pb, v, rnew, Q, BY)
            best_gap = _search(best_gap, best_rows, opt, nbs, Q, BY, W, P, m0, n, g, gn1, kinds,
                               period, idxs, c0s, pts, prb, pb, rows, rnew, v, q, alpha, beta, Wc,
                               RA, RB, bks, ismix)
        rows[:, :] = best_rows
        for t in range(n):
            if kinds[(m0 + t) % n] == GREEDY:
                ph = (m0 + t + 1) % P
                beta[t] = turn_law(W, ph, n, g, gn1, idxs[t], c0s[t], pts, prb, pb, rows[t], q,
                                   alpha[t])
        solve_cycle(alpha, beta, n, Wc)
        gap = _gap(W, P, m0, n, g, gn1, kinds, idxs, c0s, pts, prb, pb, Wc, v, rnew)
    mixed = False
    for t in range(period):
        if kinds[(m0 + t) % n] != GREEDY:
            continue
        top = g - 1 - c0s[t]
        for k in range(1, top + 1):
            if 0.0 < rows[t, k] < 1.0:
                mixed = True
                j = nmix[0]
                if j < mixout.shape[0]:
                    mixout[j, 0] = (m0 + t) % P
                    mixout[j, 1] = idxs[t]
                    mixout[j, 2] = k
                    mixout[j, 3] = rows[t, k]
                nmix[0] = j + 1
    if mixed:
        stats[3] += 1.0
    stats[0] = max(stats[0], gap)


@njit(cache=True)
def _canonical(c, n):
    """Whether ``c`` is the lexicographically smallest of its rotations."""
    for s in range(1, n):
        for r in range(n):
            a = c[(s + r) % n]
            b = c[r]
            if a < b:
                return False
            if a > b:
                break
    return True


@njit(cache=True)
def _chunk(th, nth, S, W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, st,
           mixout, nmix):
    """The cycles of layer ``S`` (total banked score) assigned to work chunk ``th`` of ``nth``."""
    P = W.shape[0]
    gn1 = np.int64(1)  # not a literal 1: numba would compile every callee once more for it
    for r in range(n - 1):
        gn1 *= g
    dmax = 0
    for q in range(len(pts)):
        dmax = max(dmax, pts[q])
    width = g + dmax + 2
    c = np.zeros(n, dtype=np.int64)
    idxs = np.zeros(n, dtype=np.int64)
    c0s = np.zeros(n, dtype=np.int64)
    rows = np.zeros((n, width))
    rnew = np.zeros(width)
    ra = np.zeros(width)
    rb = np.zeros(width)
    v = np.zeros(width)
    q = np.zeros(width)
    alpha = np.zeros((n, n))
    beta = np.zeros(n)
    Wc = np.zeros((n, n))
    Wp = np.zeros((n, n))
    ys = np.zeros(n)
    outer = g if n == 2 else g * g
    for o in range(th, outer, nth):
        if n == 2:
            c[0] = o
            c[1] = S - o
            if c[1] < 0 or c[1] >= g:
                continue
            if P == 1 and not _canonical(c, n):
                continue
            _cycle(W, P, 0, c, n, g, gn1, kinds, params, tables, thr, wopt, mixes, pts, prb, pb,
                   idxs, c0s, rows, rnew, v, q, alpha, beta, Wc, Wp, ra, rb, ys, st, mixout, nmix)
            continue
        c[0] = o // g
        c[1] = o % g
        rest = S - c[0] - c[1]
        if rest < 0 or rest > (n - 2) * (g - 1):
            continue
        # odometer over c[2..n-2]; c[n-1] = rest - their sum
        for r in range(2, n - 1):
            c[r] = 0
        while True:
            mid = 0
            for r in range(2, n - 1):
                mid += c[r]
            last = rest - mid
            if 0 <= last < g:
                c[n - 1] = last
                if P > 1 or _canonical(c, n):
                    _cycle(W, P, 0, c, n, g, gn1, kinds, params, tables, thr, wopt, mixes, pts,
                           prb, pb, idxs, c0s, rows, rnew, v, q, alpha, beta, Wc, Wp, ra, rb, ys,
                           st, mixout, nmix)
            r = 2
            while r < n - 1:
                c[r] += 1
                if c[r] < g and c[r] <= rest:
                    break
                c[r] = 0
                r += 1
            if r >= n - 1:
                break


@njit(cache=True, parallel=True)
def sweep_parallel(W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, part, mixout,
                   nmix):
    """:func:`sweep` with the cycles of each layer shared among ``part.shape[0]`` threads."""
    nth = part.shape[0]
    for S in range(n * (g - 1), -1, -1):
        for th in prange(nth):
            _chunk(th, nth, S, W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb,
                   part[th], mixout[th], nmix[th])


@njit(cache=True)
def sweep_serial(W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, part, mixout,
                 nmix):
    """:func:`sweep` on one thread."""
    for S in range(n * (g - 1), -1, -1):
        _chunk(0, 1, S, W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, part[0],
               mixout[0], nmix[0])


def sweep(W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, threads):
    """Solve every cycle, layers of decreasing total banked score first.

    ``W`` (P, n - 1, g^n) is written everywhere a state exists. P = 1: one cycle per canonical
    tuple (its rotations); P = n: one cycle per tuple of seat scores (seat 0 to move there).
    Returns ``(stats, mixes)``: stats = [largest residual, policy-iteration rounds, cycles that
    needed the fallback, cycles with a mixed choice]; mixes (m, 4) the mixed choices found
    (phase, idx, k, chance of rolling), sorted. The result does not depend on ``threads`` (each
    cycle is solved alone).
    """
    nth = max(1, int(threads))
    part = np.zeros((nth, 4))
    mixout = np.zeros((nth, MIX_ROWS, 4))
    nmix = np.zeros((nth, 1), dtype=np.int64)
    if nth == 1:
        sweep_serial(W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, part, mixout,
                     nmix)
    else:
        sweep_parallel(W, n, g, kinds, params, tables, thr, wopt, mixes, pts, prb, pb, part,
                       mixout, nmix)
    if int(nmix.max()) > MIX_ROWS:
        raise RuntimeError(f"more than {MIX_ROWS} mixed choices in one work chunk")
    stats = np.array([part[:, 0].max(), part[:, 1].sum(), part[:, 2].sum(), part[:, 3].sum()])
    found = np.concatenate([mixout[t, : int(nmix[t, 0])] for t in range(nth)])
    order = np.lexsort((found[:, 2], found[:, 1], found[:, 0])) if len(found) else np.arange(0)
    return stats, np.ascontiguousarray(found[order])


@njit(cache=True)
def turn_values(W, ph, n, g, gn1, idx, c0, y, pts, prb, pb, kind, param, tables, thr, wopt,
                mixes, v, row, V):
    """Every seat's chance at every turn total of the turn at ``idx`` (mover-first), given the
    start vector of the next turn after a 1 (``y``: (n,) in that turn's order).

    The choices are the greedy ones for ``W`` with its mixed choices (``kind`` = GREEDY) or the
    fixed strategy's. ``V[k]`` gets the vector at turn total k (k <= top), by a backward pass.
    """
    top = g - 1 - c0
    if kind == GREEDY:
        greedy_row(W, ph, g, gn1, idx, c0, y[n - 1], pts, prb, pb, v, row)
        apply_mixes(0, idx, row, mixes)
    else:
        _fixed_row(kind, param, tables, thr, wopt, mixes, n, g, gn1, idx, c0, pts, prb, pb, v,
                   row)
    m = len(pts)
    base = (idx % gn1) * g + c0
    for k in range(top, -1, -1):
        rp = 1.0 if k == 0 else row[k]
        for r in range(n):
            V[k, r] = 0.0
        if rp > 0.0:
            for r in range(n):
                V[k, r] = rp * pb * y[(r - 1) % n]
            for j in range(m):
                t = k + pts[j]
                if t > top:
                    V[k, 0] += rp * prb[j]
                else:
                    for r in range(n):
                        V[k, r] += rp * prb[j] * V[t, r]
        if rp < 1.0:
            ib = base + k
            s = 0.0
            h = 1.0 - rp
            for r in range(1, n):
                x = W[ph, r - 1, ib]
                s += x
                if r < n - 1:
                    V[k, r + 1] += h * x
            V[k, 0] += h * W[ph, n - 2, ib]
            V[k, 1] += h * (1.0 - s)
