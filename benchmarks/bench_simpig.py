"""Simultaneous Pig benchmark (seed 000, Zhu & Ma 2023), dicelab beside a plain-Python baseline.

Prints:
* the two-player best response to hold:25 at goal 100 (warm, median of 7) beside a plain-Python
  Algorithm 0.1 (states in decreasing score-sum order, the all-bust self-loop solved in closed
  form), with the ratio, and beside the same loop with the self-loop iterated as value iteration
  does it (labelled: slower); all must give 0.5231;
* the three-player best response to hold:20 and hold:30 (Algorithm 0.3, 39.55%) and to two
  hold:25 (35.90%, with the symmetry shortcut): time and peak memory of a fresh process;
* four players at goal 100 (issue 15): the best response to three hold:25 and to hold:20,
  hold:25, hold:30 by the factorised pass (one contraction per opponent), wall and CPU time and
  peak memory of a fresh process; beside it, at goal 30 where both finish, the general pass over
  every joint outcome (the previous method, compiled too) in the same run, with the ratio;
  ``--five`` adds five players at goals 16, 24 and 32 for the cost model in BENCHMARKS.md;
* the exact equilibrium at goal 100 (Shapley's method, HiGHS per mixed state): time, value.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_time, report  # noqa: E402

from dicelab.simpig.rules import turn_total_distribution  # noqa: E402
from dicelab.simpig import SimPigRules, best_response  # noqa: E402
from dicelab.simpig.equilibrium import solve_equilibrium  # noqa: E402


def plain_algorithm_01(goal: int, hold: int, closed_form: bool = True) -> float:
    """Plain Python: the best response to hold:N, one state at a time. The all-bust self-loop
    is solved in closed form (the fair baseline); ``closed_form=False`` iterates it as value
    iteration does (the seed's Algorithm 0.1 taken literally, slower)."""
    dist = {k: sorted(turn_total_distribution(k).items()) for k in range(1, goal + 1)}
    v = [[0.0] * (goal + 1) for _ in range(goal + 1)]
    for j in range(goal):
        v[goal][j] = 1.0
    v[goal][goal] = 0.5
    for s in range(2 * goal - 2, -1, -1):
        for i in range(max(0, s - goal + 1), min(s, goal - 1) + 1):
            j = s - i
            opp = dist[min(hold, goal - j)]
            q0 = opp[0][1]
            u = [0.0] * (goal + 1)
            for ii in range(i, goal + 1):
                acc = 0.0
                for b, pb in opp:
                    if b == 0 and ii == i:
                        continue
                    acc += pb * v[ii][min(j + b, goal)]
                u[ii] = acc
            best = 0.0
            for k in range(1, goal - i + 1):
                d = dist[k]
                rest = d[0][1] * u[i] + sum(p * u[min(i + a, goal)] for a, p in d[1:])
                if closed_form:  # the all-bust self-loop x = rest + p q x, solved
                    x = rest / (1.0 - d[0][1] * q0)
                else:
                    x = 0.0
                    while True:  # value iteration on the all-bust self-loop
                        nx = rest + d[0][1] * q0 * x
                        if abs(nx - x) < 1e-15:
                            break
                        x = nx
                best = max(best, x)
            v[i][j] = best
    return v[0][0]


PEAK = """
import json, resource, sys, time
from dicelab.simpig import SimPigRules, best_response
goal = int(sys.argv[1])
best_response(sys.argv[2:], SimPigRules(goal=30))  # load the compiled kernels
c = time.process_time(); t = time.perf_counter()
r = best_response(sys.argv[2:], SimPigRules(goal=goal), max_memory=64 * 2**30)
dt = time.perf_counter() - t; cpu = time.process_time() - c
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
print(json.dumps({"win": r.win_probability, "seconds": dt, "cpu": cpu,
                  "max_rss_mb": int(hwm.split()[1]) / 1024}))
"""


def _fresh(goal: int, opps: list[str]) -> dict:
    """Best response in a fresh process: win, wall and CPU seconds, peak RSS (VmHWM)."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK, str(goal), *opps], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def _general(opps: list[str], goal: int):
    """The general n-player pass (every joint outcome of the opponents enumerated), forced by
    hiding that the strategies depend on their own scores only."""
    import dataclasses

    from dicelab.simpig import parse_strategy
    from dicelab.simpig import solver as S

    rules = SimPigRules(goal=goal, players=len(opps) + 1)
    strats = [dataclasses.replace(S.check_goal(parse_strategy(o, rules), goal),
                                  state_independent=False) for o in opps]
    return S._best_response_n(strats, goal, 64 * 2**30, 1e14)


def main() -> None:
    best_response(["hold:25"])  # compile / load the cached kernels
    ours = median_time(lambda: best_response(["hold:25"]), repeat=7)
    t0 = time.perf_counter()
    base_val = plain_algorithm_01(100, 25)
    base = time.perf_counter() - t0
    val = best_response(["hold:25"]).win_probability
    assert abs(val - base_val) < 1e-12, (val, base_val)
    report("2p best response vs hold:25, goal 100 (0.5231)", ours, base, "plain Python Alg 0.1")
    t0 = time.perf_counter()
    it_val = plain_algorithm_01(100, 25, closed_form=False)
    it = time.perf_counter() - t0
    assert abs(val - it_val) < 1e-12
    report("2p best response vs hold:25, goal 100 (0.5231)", ours, it,
           "same, self-loop iterated (labelled: slower)")
    for opps in (["hold:20", "hold:30"], ["hold:25", "hold:25"]):
        best_response(opps, SimPigRules(goal=30))
        d = _fresh(100, opps)
        print(
            f"3p best response vs {' & '.join(opps):<22} win {d['win']:.4f}  "
            f"{d['seconds']:.2f} s  peak RSS {d['max_rss_mb']:.0f} MB",
            flush=True,
        )
    for opps in (["hold:25"] * 3, ["hold:20", "hold:25", "hold:30"]):
        _general(["hold:2"] * 3, 8)  # load the compiled kernels
        best_response(["hold:2"] * 3, SimPigRules(goal=8))
        t0 = time.perf_counter()
        fast = best_response(opps, SimPigRules(goal=30))
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        slow = _general(opps, 30)
        base = time.perf_counter() - t0
        assert abs(fast.win_probability - slow.win_probability) < 1e-12
        report(f"4p vs {' & '.join(opps)}, goal 30", ours, base, "general pass")
    for opps in (["hold:25"] * 3, ["hold:20", "hold:25", "hold:30"]):
        d = _fresh(100, opps)
        print(
            f"4p best response vs {' & '.join(opps):<26} goal 100: win {d['win']:.6f}  "
            f"wall {d['seconds']:.1f} s  CPU {d['cpu']:.1f} s  peak RSS {d['max_rss_mb']:.0f} MB",
            flush=True,
        )
    if "--five" in sys.argv:
        for goal in (16, 24, 32):
            for opps in (["hold:8"] * 4, ["hold:6", "hold:7", "hold:8", "hold:9"]):
                d = _fresh(goal, opps)
                print(
                    f"5p vs {' & '.join(opps):<30} goal {goal}: wall {d['seconds']:.2f} s  "
                    f"CPU {d['cpu']:.2f} s  peak RSS {d['max_rss_mb']:.0f} MB",
                    flush=True,
                )
    solve_equilibrium(30, progress=False)
    eq = solve_equilibrium(100, progress=False)
    print(
        f"exact equilibrium, goal 100: value {eq.start_value:.12f}, {eq.seconds:.2f} s, "
        f"{eq.mixed_states} mixed states, {eq.linear_programs} linear programs",
        flush=True,
    )


if __name__ == "__main__":
    main()
