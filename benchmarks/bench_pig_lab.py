"""Pig strategy lab benchmark: exact evaluation beside scipy's sparse LU, best responses,
simulation speed and the exact hold:1..100 round robin, all in one run.

Prints, for goal 100:
* ``evaluate(hold:20, keep-pace)`` warm (median of 15) beside ``scipy.sparse.linalg.spsolve`` on
  the same linear system (2 x 505,000 unknowns, built by :func:`linear_system`; median of 3), the
  two answers compared and the ratio; the same for two dice (reset fixed point);
* ``best_response`` to keep-pace and to optimal, warm (median of 15, the strategy parsed once),
  standard and two dice;
* simulation games per second, hold:20 v hold:21, 4,000,000 games, on one thread and on all
  threads (same counts on both: the seed alone fixes the batches);
* the exact ``hold:1..100`` round robin (5,050 pairs with the diagonal) on all threads.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numba
import scipy.sparse.linalg as sl

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_time, report  # noqa: E402

from dicelab.pig.rules import PigRules  # noqa: E402
from dicelab.pig.simulation import simulate  # noqa: E402
from dicelab.pig.tournaments import tournament  # noqa: E402
from dicelab.pig.solver import solve_cached  # noqa: E402
from dicelab.pig.api import best_response, evaluate, linear_system  # noqa: E402
from dicelab.pig.simulation import fair_test, fair_test_convergence  # noqa: E402
from dicelab.pig.specs import as_strategy  # noqa: E402


def bench_evaluate(rules: PigRules, label: str) -> None:
    a, b = "hold:20", "keep-pace"
    sa, sb = as_strategy(a), as_strategy(b)  # parsed once: their decision tables are kept
    specs = median_time(lambda: evaluate(a, b, rules), repeat=15)
    report(f"evaluate {label}, from specs (tables built)", specs)
    ours = median_time(lambda: evaluate(sa, sb, rules), repeat=15)
    M, r, ia, ib = linear_system(a, b, rules)
    M = M.tocsc()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        v = sl.spsolve(M, r)
        times.append(time.perf_counter() - t0)
    base = sorted(times)[1]
    e = evaluate(a, b, rules)
    diff = max(abs(e.a_first - v[ia]), abs(e.b_first - (1 - v[ib])))
    report(f"evaluate {label} (|diff| {diff:.1e})", ours, base, "scipy spsolve")


def main() -> None:
    std = PigRules()
    two = PigRules(variant="two-dice")
    for rules in (std, two):
        solve_cached(rules)
    print(f"numba threads: {numba.get_num_threads()}")
    bench_evaluate(std, "goal 100 standard")
    bench_evaluate(two, "goal 100 two-dice")
    for rules, label in ((std, "standard"), (two, "two-dice")):
        for spec in ("keep-pace", "optimal"):
            s = as_strategy(spec)  # parsed once: its decision table is kept
            t = median_time(lambda rules=rules, s=s: best_response(s, rules), repeat=15)
            report(f"best response to {spec}, goal 100 {label}", t)

    games = 4_000_000
    simulate("hold:20", "hold:21", std, games=1000, seed=0, exact=False)
    threads = numba.get_num_threads()
    results = {}
    for n in sorted({1, threads}):
        numba.set_num_threads(n)
        best = None
        for _ in range(3):
            r = simulate("hold:20", "hold:21", std, games=games, seed=1, exact=False)
            best = r if best is None or r.seconds < best.seconds else best
        results[n] = best
        print(
            f"{'simulate hold:20 v hold:21, ' + str(n) + ' thread(s)':<48} "
            f"{best.games_per_second / 1e6:6.2f} M games/s ({best.games_per_second / n / 1e6:.2f} per thread)"
            f", a_wins {best.a_wins}"
        )
    numba.set_num_threads(threads)
    assert len({r.a_wins for r in results.values()}) == 1, "results must not depend on threads"

    fair_test([("hold:5", "hold:6")], std, 100, 0, 0.95, repeats=2)  # load compiled kernels
    fair_test_convergence("hold:5", max_games=10, repeats=2)
    t0 = time.perf_counter()
    rows = fair_test(None, std, 3000, 0, 0.95, repeats=100)
    secs = time.perf_counter() - t0
    print(f"{'fair test, Figure 17 pairs x 100 x 3,000 games':<48} {secs:6.2f} s; exact inside "
          f"{sum(r['repeat_inside'] for r in rows)} of {100 * len(rows)} intervals")
    d = fair_test_convergence("hold:25", max_games=4000, repeats=100)
    print(f"{'fair convergence, hold:25 v itself, 100 x 4,000':<48} {d['seconds']:6.2f} s; "
          f"sd at 3,000 games {d['sd'][2999]:.4f} (binomial {d['binomial_sd'][2999]:.4f})")

    tournament(["hold:1..5"], std, progress=False)  # load compiled kernels
    t0 = time.perf_counter()
    t = tournament(["hold:1..100"], std, progress=False)
    secs = time.perf_counter() - t0
    print(
        f"{'exact round robin hold:1..100 (' + str(t.pairs) + ' pairs)':<48} {secs:6.2f} s on "
        f"{threads} threads; winner {t.ranking[0]['strategy']}, cycles {len(t.cycles)}"
    )


if __name__ == "__main__":
    main()
