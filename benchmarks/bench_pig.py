"""Pig solver benchmark: dicelab's layered solver beside two fair numpy baselines, same run.

Prints, for goal 100:
* the warm solve time (median of 51) beside two textbook methods written decently in numpy
  (:mod:`dicelab.pig.reference`), each to a largest change below 1e-12, with the ratios:
  synchronous value iteration with slices over a win-padded turn-total axis, and Neller &
  Presser's layered value iteration (whole layers as arrays); ``--slow`` adds the old
  fancy-index value iteration (labelled slow: about 7x the sliced one, not a fair baseline);
* the first solve in a fresh process (compiled code cached, no solved table: the cost of
  loading the kernels) and the wall time of a fresh ``dicelab pig solve --json`` process
  (compiled code and solved table cached), median of 5;
* peak memory of a process that solves goal 100 (max RSS) and of the solve itself (tracemalloc);
* the goal-300 solve time.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_time, report  # noqa: E402

from dicelab.pig.rules import PigRules  # noqa: E402
from dicelab.pig.solver import solve  # noqa: E402
from dicelab.pig.reference import (  # noqa: E402
    layered_value_iteration,
    value_iteration,
    value_iteration_sliced,
)

PEAK_SCRIPT = """
import sys, tracemalloc
from dicelab.pig.rules import PigRules
from dicelab.pig.solver import solve
solve(PigRules(goal=10))  # load compiled kernels
if sys.argv[1] == "trace":  # tracemalloc costs memory itself: measured in its own process
    tracemalloc.start()
    solve(PigRules(goal=100))
    print(tracemalloc.get_traced_memory()[1])
else:
    solve(PigRules(goal=100))
    # VmHWM, not ru_maxrss: a forked child's ru_maxrss starts at its parent's peak
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
    print(int(hwm.split()[1]))
"""


FIRST_SCRIPT = """
import time
from dicelab.pig.rules import PigRules
from dicelab.pig.solver import solve
t = time.perf_counter()
solve(PigRules(goal=100))
print(time.perf_counter() - t)
"""


def _child(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, mode], capture_output=True, check=True,
                         text=True).stdout
    return int(out.strip())


def main() -> None:
    rules = PigRules(goal=100)
    ours = median_time(lambda: solve(rules), repeat=51)
    exact = solve(rules).p
    baselines = [("numpy sliced VI", value_iteration_sliced, "sweeps"),
                 ("numpy layered VI", layered_value_iteration, "layer sweeps")]
    if "--slow" in sys.argv:
        baselines.append(("SLOW fancy-index VI", value_iteration, "sweeps"))
    for name, method, unit in baselines:
        t0 = time.perf_counter()
        P, sweeps = method(rules, tol=1e-12)
        base = time.perf_counter() - t0
        assert np.max(np.abs(P - exact)) < 1e-9
        report("solve goal 100 (warm)", ours, base, f"{name} ({sweeps} {unit})")

    firsts = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", FIRST_SCRIPT], capture_output=True, check=True,
                             text=True).stdout
        firsts.append(float(out))
    print(f"{'first solve in a fresh process (code cached)':<48} {statistics.median(firsts):.3f} s")

    env = dict(os.environ, DICELAB_CACHE_DIR=tempfile.mkdtemp(prefix="dicelab-bench-"))
    cmd = [sys.executable, "-m", "dicelab", "pig", "solve", "--json"]
    subprocess.run(cmd, env=env, capture_output=True, check=True)  # fills both caches
    walls = []
    for _ in range(5):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=env, capture_output=True, check=True, text=True).stdout
        walls.append(time.perf_counter() - t0)
    assert abs(json.loads(out)["win_probability"] - 0.5305927) < 1e-7
    print(f"{'fresh `dicelab pig solve --json` process':<48} wall {statistics.median(walls):.2f} s")

    peak, maxrss_kb = _child("trace"), _child("rss")
    print(f"{'peak memory, goal 100':<48} solve {peak / 2**20:.1f} MiB (tracemalloc), "
          f"process {maxrss_kb / 1024:.0f} MiB (peak RSS, VmHWM)")

    big = PigRules(goal=300)
    report("solve goal 300 (warm)", median_time(lambda: solve(big), repeat=3))
    report("solve goal 100 two-dice (warm)", median_time(lambda: solve(PigRules(variant="two-dice")), repeat=5))


if __name__ == "__main__":
    main()
