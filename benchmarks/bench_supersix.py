"""Super Six benchmarks: the exact two-player solve beside seed 001's own algorithm.

* Two-player solve (layered policy iteration, :func:`dicelab.supersix.solver.solve_two`) for
  S = 4 and S = 15 sticks each (target for S = 15: under 50 ms warm), each beside seed 001's value
  iteration re-implemented plainly in Python (synchronous sweeps over every i/j/k/l state until the
  largest change is at most 1e-10, as in the seed; a dict replaces the seed's ``list.index``
  look-up, which only makes the baseline faster). The baseline runs once; the ratio is printed.
* S = 30 solve, head-to-head evaluation at S = 15, max-n for 3 to 6 players at S = 4, and 10,000
  simulated games, for the record.

Run: ``.venv/bin/python benchmarks/bench_supersix.py [--quick]`` (``--quick`` skips the S = 15
baseline, which takes a couple of seconds).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median_time, report  # noqa: E402

from dicelab import supersix as ss  # noqa: E402
from dicelab.supersix.rules import SuperSixRules  # noqa: E402
from dicelab.supersix.solver import solve_maxn, solve_two  # noqa: E402


def seed_value_iteration(n: int, eps: float = 1e-10) -> tuple[dict, int]:
    """Seed 001's Algorithm 1 on U = 2 p - 1, plain Python; returns (values, sweeps)."""
    states = [(i, j, k, l) for i in range(5, -1, -1) for j in range(n, 0, -1) for k in range(n, 0, -1)
              for l in (1, 0) if i + j + k <= n]
    U = {s: 0.0 for s in states}

    def R(s):
        return 1 if s[1] == 0 else (-1 if s[2] == 0 else 0)

    def u(s):
        return 0.0 if s[1] == 0 or s[2] == 0 else U[s]

    sweeps = 0
    while True:
        sweeps += 1
        new, delta = {}, 0.0
        for s in states:
            i, j, k, l = s
            six, free, occ, swp = (i, j - 1, k, 0), (i + 1, j - 1, k, 0), (i - 1, k, j + 1, 1), (i, k, j, 1)
            q = (R(six) + u(six)) / 6 + ((5 - i) / 6 * (R(free) + u(free)) if i < 5 else 0)
            q += i / 6 * (R(occ) - u(occ)) if i > 0 else 0
            v = q if l == 1 else max(q, -(R(swp) + u(swp)))
            new[s] = v
            delta = max(delta, abs(v - U[s]))
        U = new
        if delta <= eps:
            return U, sweeps


def main() -> None:
    quick = "--quick" in sys.argv
    solve_two(SuperSixRules(sticks=2))  # compile / load the numba cache
    for S in (4, 15):
        rules = SuperSixRules(sticks=S)
        ours = median_time(lambda: solve_two(rules), repeat=9)
        base = None
        if S == 4 or not quick:
            t0 = time.perf_counter()
            U, sweeps = seed_value_iteration(2 * S)
            base = time.perf_counter() - t0
            sol = solve_two(rules)
            err = max(abs((v + 1) / 2 - sol.win_probability(*s)) for s, v in U.items())
            print(f"  S={S}: seed algorithm took {sweeps} sweeps; max |difference| = {err:.1e}")
        report(f"two-player solve, S={S} ({solve_two(rules).n_states()} states)", ours, base,
               "seed 001 value iteration")
    r30 = SuperSixRules(sticks=30)
    report("two-player solve, S=30", median_time(lambda: solve_two(r30), repeat=5))
    r15 = SuperSixRules(sticks=15)
    report("exact eval always vs optimal, S=15", median_time(lambda: ss.evaluate("always", "optimal", r15)))
    for P in (3, 4, 5, 6):
        rules = SuperSixRules(sticks=4, players=P)
        rep = 3 if P < 6 else 1
        report(f"max-n value iteration, {P} players, S=4", median_time(lambda: solve_maxn(rules), repeat=rep))
    r4 = SuperSixRules(sticks=4)
    report("simulate 10,000 games always vs optimal, S=4",
           median_time(lambda: ss.simulate(["always", "optimal"], r4, games=10_000, seed=1), repeat=3))


if __name__ == "__main__":
    main()
