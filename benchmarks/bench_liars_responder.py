"""The learned responder's pass (issue 26's grader, ``responder._pass``): opponent hands a block at a
time beside the textbook pass, one opponent hand at a time (dicelab's own pass before 2026-11-30,
kept here verbatim as the baseline). Both evaluate the same responder against the same policy, once
adding up the action values ``Q`` (an improvement pass) and once storing the values ``V`` (the last
pass), and must give the same ``Q``, ``V`` and payoff, bit for bit; the ratio is the speed-up of a
pass.

Full run: 3 v 4 with ones wild, the responder on the window of 4 bids (225,584 nodes, the size of the
refined trees the graders walk) against a window-2 policy after 40 iterations. ``--quick``: 3 v 3
with nothing wild, window 3 against window 2.
Run: ``.venv/bin/python benchmarks/bench_liars_responder.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_liars_pass import _opponent_reach
from numba import njit

from dicelab.liars.duel import Duel, block_size, build_dag, train_duel
from dicelab.liars.responder import U_BYTES, _pass, pass_inputs


@njit(cache=True)
def _per_hand(i, n, F, top, mover, loc, child, sloc, s_opp, c_i, c_j, p_i, p_j, choice, Q, V, vidx, store, ro, U,
              term, leaf):
    """The responder's pass one opponent hand at a time (verbatim, before the blocks)."""
    N = top.shape[0]
    Hi = c_i.shape[0]
    Hj = c_j.shape[0]
    total = 0.0
    for r in range(Q.shape[0]):
        for h in range(Hi):
            Q[r, h] = 0.0
    for g in range(Hj):
        wg = p_j[g]
        if wg == 0.0:
            continue
        _opponent_reach(i, n, top, mover, sloc, child, s_opp, g, wg, leaf, ro)
        for m in range(N - 1, -1, -1):
            if ro[m] == 0.0:
                if store and mover[m] != i:
                    for h in range(Hi):
                        V[vidx[m], h, g] = 0.0
                continue
            t = top[m]
            k = n - 1 - t + (1 if m != 0 else 0)
            if m != 0:
                q = t // F + 1
                f = t % F + 1
                caller_is_i = mover[m] == i
                for h in range(Hi):
                    holds = c_i[h, f] + c_j[g, f] >= q
                    bidder_wins = 1.0 if holds else -1.0
                    term[h] = -bidder_wins if caller_is_i else bidder_wins
            if mover[m] == i:
                r0 = loc[m]
                w = ro[m]
                for h in range(Hi):
                    a = choice[m, h]
                    if m != 0 and a == k - 1:
                        U[m, h] = term[h]
                    else:
                        U[m, h] = U[child[m, t + 1 + a], h]
                for j in range(k):
                    if m != 0 and j == k - 1:
                        for h in range(Hi):
                            Q[r0 + j, h] += w * term[h]
                    else:
                        c = child[m, t + 1 + j]
                        for h in range(Hi):
                            Q[r0 + j, h] += w * U[c, h]
            else:
                r0 = sloc[m]
                pc = s_opp[r0 + k - 1, g] if m != 0 else 0.0
                for h in range(Hi):
                    U[m, h] = pc * term[h]
                for b in range(t + 1, n):
                    p = s_opp[r0 + b - t - 1, g]
                    if p == 0.0:
                        continue
                    c = child[m, b]
                    for h in range(Hi):
                        U[m, h] += p * U[c, h]
                if store:
                    for h in range(Hi):
                        V[vidx[m], h, g] = U[m, h]
        for h in range(Hi):
            total += wg * p_i[h] * U[0, h]
    return total


def _run(block: bool, args, choice, vidx, rows: int) -> tuple[float, list[np.ndarray], list[float]]:
    """One improvement pass and one storing pass: seconds, then ``Q``, ``V`` and the two payoffs."""
    N, Hi = choice.shape
    Q = np.zeros((rows, Hi))
    V = np.zeros((int((vidx >= 0).sum()), Hi, len(args[12])), dtype=np.float32)
    leaf = np.full(N, -1, dtype=np.int64)
    if block:
        B = block_size(N, Hi, U_BYTES)
        buffers = (np.zeros((N, B)), np.zeros((N, B, Hi)), np.zeros((B, Hi)), leaf, np.zeros(B, np.int64),
                   np.zeros(B))
        kernel = _pass
    else:
        buffers = (np.zeros(N), np.zeros((N, Hi)), np.zeros(Hi), leaf)
        kernel = _per_hand
    start = time.perf_counter()
    v = [kernel(*args, choice, Q, V, vidx, store, *buffers) for store in (False, True)]
    return time.perf_counter() - start, [Q, V], v


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 v 3, nothing wild, window 3")
    a = ap.parse_args()
    duel, window = (Duel((3, 3), 6, "none"), 3) if a.quick else (Duel((3, 4), 6, "ones"), 4)
    pol = train_duel(duel, iterations=40, method="abstract", window=2)
    dag = build_dag(duel.n_bids, window)
    for seat in (0, 1):
        args, choice, vidx = pass_inputs(pol, seat, dag)
        for block in (True, False):  # compile both on the policy's own DAG
            _run(block, *pass_inputs(pol, seat, pol.dag), pol.dag.rows[seat])
        t_block, out_block, v_block = _run(True, args, choice, vidx, dag.rows[seat])
        t_hand, out_hand, v_hand = _run(False, args, choice, vidx, dag.rows[seat])
        same = v_block == v_hand and all(np.array_equal(x, y) for x, y in zip(out_block, out_hand, strict=True))
        B = block_size(dag.n_nodes, choice.shape[1], U_BYTES)
        print(f"responder pass, {duel.dice[0]} v {duel.dice[1]} {duel.wild} wild, seat {seat}, window {window} "
              f"({dag.n_nodes:,} nodes, {dag.rows[seat]:,} rows), two passes: blocks of {B} {t_block / 2:.2f} s a "
              f"pass | per hand {t_hand / 2:.2f} s | ratio {t_hand / t_block:.2f}x | same sums: {same}", flush=True)
        if not same:
            raise SystemExit("the block pass and the per-hand pass disagree")


if __name__ == "__main__":
    main()
