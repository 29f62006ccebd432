"""The CFR training pass of Liar's Dice duels: opponent hands a block at a time (dicelab,
``duel._block_pass``) beside the textbook pass, one opponent hand at a time (dicelab's own pass
before 2026-11-30, kept here verbatim as the baseline; the own reach and the regret update around it
are the library's, shared by both). Both run the same iterations from the same
training state and must end with the same regrets and averages, bit for bit; the ratio is the
speed-up of one iteration.

Full run: the 3 v 4 ones-wild duel on the window-3 DAG (the size of the library's trees), from the
state after 40 training iterations (sparse strategies, as in training). ``--quick``: 3 v 3 with
nothing wild on the window of 2.
Run: ``.venv/bin/python benchmarks/bench_liars_pass.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from dicelab.liars.duel import (
    SAMPLED_METHODS,
    Duel,
    _call_value,
    _discounts,
    _iterate,
    _opponent_hand,
    _own_reach,
    _update,
    build_dag,
    train_duel,
    work_arrays,
)


@njit(cache=True)
def _opponent_reach(i, n, top, mover, sloc, child, s_opp, g, start, leaf, ro):
    """The reach of opponent hand g at every node, summed over the paths into it: ``start`` at the
    root, player i's own moves pass it on whole, the opponent's by its strategy (rows from
    ``sloc[m]``); frontier nodes (``leaf[m] >= 0``) pass nothing on."""
    for m in range(top.shape[0]):
        ro[m] = 0.0
    ro[0] = start
    for m in range(top.shape[0]):
        if ro[m] == 0.0 or leaf[m] >= 0:
            continue
        t = top[m]
        r0 = sloc[m]
        own = mover[m] == i
        for b in range(t + 1, n):
            c = child[m, b]
            if own:
                ro[c] += ro[m]
            else:
                ro[c] += ro[m] * s_opp[r0 + b - t - 1, g]


@njit(cache=True)
def _per_hand_pass(i, n, F, top, mover, loc, sloc, child, c_own, c_opp, g, wg, s_own, s_opp, inst, ro, U, term, leaf,
               leaf_v):
    """For one opponent hand g of weight wg: its reach at every node (summed over paths), player i's
    values ``U`` below every reached node, and at i's nodes the regrets ``wg * reach * (Q - V)`` added
    to ``inst`` rows ``loc[m] + j``. Node m plays strategy rows from ``sloc[m]`` (``loc`` itself in
    training; a coarser DAG's rows when a finer DAG replays a policy). Frontier nodes
    (``leaf[m] >= 0``) take ``leaf_v[leaf[m], h, g]``."""
    N = top.shape[0]
    H = c_own.shape[0]
    _opponent_reach(i, n, top, mover, sloc, child, s_opp, g, 1.0, leaf, ro)
    # backward: values for every own hand, regrets at own nodes
    for m in range(N - 1, -1, -1):
        if ro[m] == 0.0:
            continue  # nothing here or below is reached: no regret, and no parent reads U[m]
        if leaf[m] >= 0:
            for h in range(H):
                U[m, h] = leaf_v[leaf[m], h, g]
            continue
        t = top[m]
        r0 = sloc[m]
        k = n - 1 - t + (1 if t >= 0 else 0)
        if t >= 0:
            _call_value(i, mover[m], t // F + 1, t % F + 1, c_own, c_opp[g, t % F + 1], term)
        if mover[m] == i:
            for h in range(H):
                U[m, h] = s_own[r0 + k - 1, h] * term[h] if t >= 0 else 0.0
            for b in range(t + 1, n):
                c = child[m, b]
                row = r0 + b - t - 1
                for h in range(H):
                    U[m, h] += s_own[row, h] * U[c, h]
            w = wg * ro[m]
            for j in range(k):
                row = loc[m] + j
                if t >= 0 and j == k - 1:
                    for h in range(H):
                        inst[row, h] += w * (term[h] - U[m, h])
                else:
                    c = child[m, t + 1 + j]
                    for h in range(H):
                        inst[row, h] += w * (U[c, h] - U[m, h])
        else:
            pc = s_opp[r0 + k - 1, g] if t >= 0 else 0.0
            for h in range(H):
                U[m, h] = pc * term[h]
            for b in range(t + 1, n):
                p = s_opp[r0 + b - t - 1, g]
                if p == 0.0:
                    continue
                c = child[m, b]
                if ro[c] == 0.0:
                    continue
                for h in range(H):
                    U[m, h] += p * U[c, h]


@njit(cache=True)
def _iterate_per_hand(i, n, F, top, mover, loc, child, c_own, c_opp, p_opp, cum_opp, samples, reg, avg, s_own, s_opp,
                      inst, ro, rs, U, term, weight, pos_d, neg_d, root_v, leaf, leaf_v):
    """``duel._iterate`` with the opponent hands taken one at a time (the pass above)."""
    H = c_own.shape[0]
    _own_reach(i, n, top, mover, loc, child, s_own, leaf, rs)
    inst[:, :] = 0.0
    root_v[:] = 0.0
    n_g = p_opp.shape[0] if samples == 0 else samples
    for kk in range(n_g):
        g, wg = _opponent_hand(kk, samples, p_opp, cum_opp)
        if wg == 0.0:
            continue
        _per_hand_pass(i, n, F, top, mover, loc, loc, child, c_own, c_opp, g, wg, s_own, s_opp, inst, ro, U, term,
                       leaf, leaf_v)
        for h in range(H):
            root_v[h] += wg * U[0, h]
    _update(i, n, top, mover, loc, reg, avg, s_own, inst, rs, weight, pos_d, neg_d, leaf)


def _run(kernel, duel: Duel, dag, state: dict[str, np.ndarray], t0: int, iterations: int) -> tuple[float, list]:
    """``iterations`` DCFR iterations of both seats from ``state`` with ``kernel`` (the block pass's
    buffers for dicelab's, one hand's for the baseline): seconds, and the regrets and averages."""
    a, b, g, _ = SAMPLED_METHODS["abstract"]
    h0, p0, c0 = duel.hands(0)
    h1, p1, c1 = duel.hands(1)
    H = (len(h0), len(h1))
    reg = [state["reg0"].copy(), state["reg1"].copy()]
    avg = [state["avg0"].copy(), state["avg1"].copy()]
    wa = work_arrays(dag.n, dag.top, dag.mover, dag.loc, dag.rows, H, reg)
    s, rs, inst = wa["s"], wa["rs"], wa["inst"]
    N = dag.n_nodes
    if kernel is _iterate:
        ro, U, term = wa["ro"], wa["U"], wa["term"]
    else:
        ro, U, term = np.zeros(N), [np.zeros((N, H[0])), np.zeros((N, H[1]))], [np.zeros(H[0]), np.zeros(H[1])]
    leaf, leaf_v = np.full(N, -1, np.int64), np.zeros((1, 1, 1))
    rv = [np.zeros(H[0]), np.zeros(H[1])]
    cum = [np.cumsum(p0), np.cumsum(p1)]
    c, p = [c0, c1], [p0, p1]
    start = time.perf_counter()
    for t in range(t0, t0 + iterations):
        pos_d, neg_d, weight = _discounts(t, a, b, g)
        for i in (0, 1):
            j = 1 - i
            kernel(i, dag.n, duel.faces, dag.top, dag.mover, dag.loc, dag.child, c[i], c[j], p[j], cum[j], 0, reg[i],
                   avg[i], s[i], s[j], inst[i], ro, rs[i], U[i], term[i], weight, pos_d, neg_d, rv[i], leaf, leaf_v)
    return time.perf_counter() - start, reg + avg


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 v 3, nothing wild, window 2")
    args = ap.parse_args()
    quick = (Duel((3, 3), 6, "none"), 2, 20, 40)
    duel, window, warm, its = quick if args.quick else (Duel((3, 4), 6, "ones"), 3, 40, 3)
    dag = build_dag(duel.n_bids, window)
    pol = train_duel(duel, iterations=warm, method="abstract", dag=dag)
    state = pol.state
    _run(_iterate, duel, dag, state, warm, 1)  # compile both
    _run(_iterate_per_hand, duel, dag, state, warm, 1)
    t_block, out_block = _run(_iterate, duel, dag, state, warm, its)
    t_hand, out_hand = _run(_iterate_per_hand, duel, dag, state, warm, its)
    same = all(np.array_equal(x, y) for x, y in zip(out_block, out_hand, strict=True))
    units = its * (dag.rows[0] * len(duel.hands(0)[1]) * len(duel.hands(1)[1])
                   + dag.rows[1] * len(duel.hands(1)[1]) * len(duel.hands(0)[1]))
    print(f"CFR pass, {duel.dice[0]} v {duel.dice[1]} {duel.wild} wild, window {window} ({dag.n_nodes:,} nodes, "
          f"{sum(dag.rows):,} rows), {its} iterations from iteration {warm}: block pass {t_block / its:.2f} s an "
          f"iteration ({1e9 * t_block / units:.2f} ns a unit) | per-hand pass {t_hand / its:.2f} s "
          f"({1e9 * t_hand / units:.2f} ns) | ratio {t_hand / t_block:.2f}x | same sums: {same}", flush=True)
    if not same:
        raise SystemExit("the block pass and the per-hand pass disagree")


if __name__ == "__main__":
    main()
