"""Pig for three and four players (issue 25): the max-n solver beside a fair numpy baseline.

Prints:
* three players at goal 100: dicelab's solve (warm, median of 3) beside Neller & Presser's layered
  value iteration written decently in numpy (whole layers of score tuples as arrays, each layer's
  cycles iterated to a largest change below 1e-12; ``--quick`` runs the baseline at goal 60), with
  the ratio, the cycles where the baseline never settles (no equilibrium in pure choices there),
  and the largest difference between the two elsewhere;
* four players at goal 50 (in memory) and, with ``--full``, four players at goal 100: time, the
  value table's size and the peak memory of the process (VmHWM);
* the first player's advantage for 2 to 6 players at the goals that solve in a few seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import report  # noqa: E402

from dicelab.pig.nsolver import solve_n, table_bytes  # noqa: E402
from dicelab.pig.rules import PigRules  # noqa: E402


def layered_value_iteration(n: int, g: int, tol: float = 1e-12, max_iter: int = 3000):
    """The textbook baseline: start-of-turn vectors (mover first) for every score tuple, solved
    layer by layer of total banked score; in a layer all cycles at once, Jacobi value iteration
    with a backward sweep over the turn total (vectorised over the layer) until the largest change
    is below ``tol``. Returns (W (g^n, n), cycles that did not settle)."""
    N = g ** n
    digits = np.stack(np.unravel_index(np.arange(N), (g,) * n), axis=1)
    sums = digits.sum(axis=1)
    order = np.argsort(sums, kind="stable")
    bounds = np.searchsorted(sums[order], np.arange(n * (g - 1) + 2))
    W = np.zeros((N, n))
    gn1 = g ** (n - 1)
    unsettled = 0
    for S in range(n * (g - 1), -1, -1):
        idx = order[bounds[S]:bounds[S + 1]]
        c0 = digits[idx, 0]
        base = (idx % gn1) * g + c0  # the bust target (rot c); hold k goes to base + k
        L = len(idx)
        cur = np.full((L, n), 1.0 / n)
        W[idx] = cur
        ar = np.arange(L)
        for it in range(max_iter):
            bust = np.roll(W[base], 1, axis=1) / 6  # R: the old mover comes first
            ring = np.zeros((7, L, n))  # V at k + 1 .. k + 6 (wins above the top)
            for k in range(g - 1, -1, -1):
                top = g - 1 - c0
                roll = bust.copy()
                for d in range(2, 7):
                    kk = k + d
                    win = kk > top
                    v = ring[(kk) % 7]
                    roll += np.where(win[:, None], np.eye(n)[0], v) / 6
                if k > 0:
                    valid = k <= top
                    tgt = np.where(valid, base + k, base)
                    hold = np.roll(W[tgt], 1, axis=1)
                    take = (roll[:, 0] > hold[:, 0]) | ~valid
                    val = np.where(take[:, None], roll, hold)
                else:
                    val = roll
                ring[k % 7] = val
            new = ring[0]
            step = np.abs(new - cur).max() if L else 0.0
            cur = new
            W[idx] = cur
            if step <= tol:
                break
        else:
            unsettled += L
        del ar
    return W, unsettled


def vm_hwm_mb() -> float:
    line = [x for x in open("/proc/self/status") if x.startswith("VmHWM")][0]
    return int(line.split()[1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="baseline at goal 60")
    ap.add_argument("--full", action="store_true", help="also four players at goal 100 (2.4 GB)")
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()}", flush=True)
    solve_n(PigRules(goal=12, players=3))  # compiled kernels loaded
    solve_n(PigRules(goal=60, players=3))
    rules = PigRules(goal=100, players=3)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        sol = solve_n(rules)
        times.append(time.perf_counter() - t0)
    ours = sorted(times)[1]
    print(f"3 players, goal 100: {sol.meta}, mixed choices {len(sol.mixes)}, residual "
          f"{sol.max_residual:.2e}, start {[round(p, 6) for p in sol.start()]}", flush=True)
    gb = 60 if args.quick else 100
    t0 = time.perf_counter()
    Wb, unsettled = layered_value_iteration(3, gb)
    base = time.perf_counter() - t0
    mine = solve_n(PigRules(goal=gb, players=3))
    full = np.concatenate([1.0 - mine.w.sum(axis=0)[:, None], mine.w.T], axis=1)
    diff = np.abs(full - Wb).max(axis=1)
    print(f"baseline at goal {gb}: {unsettled} states in cycles that never settled; largest "
          f"difference {diff.max():.2e}, median {np.median(diff):.2e}, states within 1e-9: "
          f"{(diff <= 1e-9).mean():.4f}", flush=True)
    ours_b = ours if gb == 100 else min(solve_n(PigRules(goal=gb, players=3)).seconds for _ in range(3))
    report(f"3 players goal {gb} (layered VI, numpy)", ours_b, base, "numpy")
    t0 = time.perf_counter()
    s4 = solve_n(PigRules(goal=50, players=4))
    t4 = time.perf_counter() - t0
    print(f"4 players goal 50: {t4:.1f} s, table {table_bytes(s4.rules) / 1e6:.0f} MB, "
          f"{s4.meta}, mixed choices {len(s4.mixes)}, start {[round(p, 6) for p in s4.start()]}, "
          f"peak RSS {vm_hwm_mb():.0f} MB", flush=True)
    if args.full:
        t0 = time.perf_counter()
        s4 = solve_n(PigRules(goal=100, players=4))
        t4 = time.perf_counter() - t0
        print(f"4 players goal 100: {t4:.1f} s, table {table_bytes(s4.rules) / 1e9:.2f} GB, "
              f"{s4.meta}, mixed choices {len(s4.mixes)}, start "
              f"{[round(p, 6) for p in s4.start()]}, peak RSS {vm_hwm_mb():.0f} MB", flush=True)
    for n, g in ((2, 100), (3, 100), (4, 50), (5, 30), (6, 20)):
        s = solve_n(PigRules(goal=g, players=n))
        w = s.start()
        print(f"{n} players goal {g}: seats {[round(p, 4) for p in w]}, first player's edge over a "
              f"fair share {w[0] - 1 / n:+.4f} ({s.seconds:.1f} s)", flush=True)
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
