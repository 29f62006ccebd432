"""Scale-out benchmark: the backends beside the single-process code, and the sharded n-player solve.

Each case runs in a fresh Python process, so peak memory (max RSS of the process and of its
workers) is measured honestly. Printed: seconds (median of ``--repeat`` runs), peak memory, and
the ratio to the single-process baseline in the same run. Usage::

    .venv/bin/python benchmarks/bench_scale.py            # the quick set (about 3 minutes on 2 cores)
    .venv/bin/python benchmarks/bench_scale.py --full     # adds 4 players at goals 40 and 50
    .venv/bin/python benchmarks/bench_scale.py --liars    # adds liars train-all on Dask (1, 2 workers)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap

PRELUDE = """
import json, resource, time, tempfile
def peak_mb():
    s = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(s, c) / 1024
"""

CASES = {
    "pig-simulate-single": """
from dicelab.pig.simulation import simulate
simulate("hold:20", "keep-pace", games=200_000, seed=1, exact=False)  # compile
t = time.perf_counter(); r = simulate("hold:20", "keep-pace", games=4_000_000, seed=1, exact=False)
out = {"seconds": time.perf_counter() - t, "a_wins": r.a_wins}
""",
    "pig-simulate-local2": """
import numpy as np
from dicelab.pig.rules import PigRules
from dicelab.pig import simulation
from dicelab.pig.specs import as_strategy
rules = PigRules()
T = np.stack([as_strategy("hold:20").table(rules), as_strategy("keep-pace").table(rules)])
t = time.perf_counter(); c = simulation.pig_counts(T, rules, 4_000_000, 1, workers=2, progress=False)
out = {"seconds": time.perf_counter() - t, "a_wins": int(c[0] + c[3])}
""",
    "pig-simulate-dask2": """
import numpy as np
from dicelab.pig.rules import PigRules
from dicelab.pig import simulation
from dicelab.pig.specs import as_strategy
rules = PigRules()
T = np.stack([as_strategy("hold:20").table(rules), as_strategy("keep-pace").table(rules)])
t = time.perf_counter(); c = simulation.pig_counts(T, rules, 4_000_000, 1, backend="dask", workers=2, progress=False)
out = {"seconds": time.perf_counter() - t, "a_wins": int(c[0] + c[3])}
""",
    "pig-round-robin-single": """
import numpy as np
from dicelab.pig.rules import PigRules
from dicelab.pig.evaluation import evaluate_many
from dicelab.pig.specs import as_strategy
rules = PigRules()
tabs = np.ascontiguousarray(np.stack([as_strategy(f"hold:{n}").table(rules) for n in range(1, 61)]))
pairs = np.array([(a, b) for a in range(60) for b in range(a, 60)], dtype=np.int64)
evaluate_many(tabs, pairs[:4], rules)  # compile
t = time.perf_counter(); res = evaluate_many(tabs, pairs, rules)
out = {"seconds": time.perf_counter() - t, "sum": float(res[:, 0].sum())}
""",
    "pig-round-robin-dask2": """
import numpy as np
from dicelab.pig.rules import PigRules
from dicelab.pig import jobs
from dicelab.pig.specs import as_strategy
rules = PigRules()
tabs = np.ascontiguousarray(np.stack([as_strategy(f"hold:{n}").table(rules) for n in range(1, 61)]))
pairs = np.array([(a, b) for a in range(60) for b in range(a, 60)], dtype=np.int64)
t = time.perf_counter(); res = jobs.pig_pairs_exact(tabs, pairs, rules, backend="dask", workers=2, progress=False)
out = {"seconds": time.perf_counter() - t, "sum": float(res[:, 0].sum())}
""",
}


def simpig_cases(full: bool) -> dict[str, str]:
    sizes = [(3, 100, ["hold:20", "hold:30"]), (4, 20, ["hold:8"] * 3), (4, 30, ["hold:10"] * 3)]
    if full:
        sizes += [(4, 40, ["hold:13"] * 3), (4, 50, ["hold:16"] * 3)]
    out = {}
    for n, g, opps in sizes:
        out[f"simpig-{n}p-goal{g}-in-memory"] = f"""
from dicelab.simpig import SimPigRules, best_response
best_response({["hold:3"] * (n - 1)!r}, SimPigRules(goal=8))  # compile
t = time.perf_counter(); r = best_response({opps!r}, SimPigRules(goal={g}))
out = {{"seconds": time.perf_counter() - t, "win": r.win_probability}}
"""
        out[f"simpig-{n}p-goal{g}-sharded-local2"] = f"""
from dicelab.simpig import SimPigRules, parse_strategy
from dicelab.simpig.sharded import best_response_sharded
def objs(specs, goal):
    return [parse_strategy(s, SimPigRules(goal=goal, players=len(specs) + 1)) for s in specs]
best_response_sharded(objs({["hold:3"] * (n - 1)!r}, 8), goal=8, path=tempfile.mkdtemp() + "/w", workers=1,
                      progress=False)  # compile
t = time.perf_counter()
r = best_response_sharded(objs({opps!r}, {g}), goal={g}, path=tempfile.mkdtemp() + "/br", workers=2, progress=False)
out = {{"seconds": time.perf_counter() - t, "win": r.win_probability, "worker_mb": r.max_worker_rss_mb,
        "disk_mb": r.disk_bytes / 2**20, "shards": r.shards}}
"""
    return out


def liars_cases(on: bool) -> dict[str, str]:
    """Every duel policy up to 3 v 3 with 5 faces, nothing wild (``liars train-all``; 9 sizes of about
    1 to 20 s) from an empty cache: in this process, and as one task a size on a Dask ``LocalCluster``
    of 1 and of 2 workers (issue 26: the scaling). Only with ``--liars`` (about 5 minutes)."""
    if not on:
        return {}
    faces = 5
    out = {}
    for name, backend in (("single", "None"), ("dask1", '{"backend": "dask", "workers": 1}'),
                          ("dask2", '{"backend": "dask", "workers": 2}')):
        out[f"liars-train-all-{faces}faces-{name}"] = f"""
import os
os.environ["DICELAB_CACHE_DIR"] = tempfile.mkdtemp()
from dicelab.liars import library
library.train_all(1, 2, "none")  # compile
os.environ["DICELAB_CACHE_DIR"] = tempfile.mkdtemp()
t = time.perf_counter(); rows = library.train_all(3, {faces}, "none", backend={backend})
out = {{"seconds": time.perf_counter() - t, "sizes": len(rows),
        "longest": round(max(r["seconds"] for r in rows), 1), "sum": round(sum(r["seconds"] for r in rows), 1)}}
"""
    return out


def run_case(code: str) -> dict:
    script = (
        PRELUDE + textwrap.dedent(code) + "\nout['peak_mb'] = peak_mb()\nprint(json.dumps(out))\n"
    )
    wrapped = (
        "def _main():\n"
        + textwrap.indent(script, "    ")
        + "\nif __name__ == '__main__':\n    _main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", wrapped], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"case failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--full", action="store_true", help="also 4 players at goals 40 and 50")
    ap.add_argument("--liars", action="store_true", help="also liars train-all on Dask, 1 and 2 workers")
    ap.add_argument("--only", default="", help="run only the cases whose name starts with this")
    args = ap.parse_args()
    cases = {k: v for k, v in {**CASES, **simpig_cases(args.full), **liars_cases(args.liars)}.items() if k.startswith(args.only)}
    rows = {}
    for name, code in cases.items():
        runs = [run_case(code) for _ in range(args.repeat)]
        med = statistics.median(r["seconds"] for r in runs)
        rows[name] = {**runs[-1], "seconds": med}
        extra = {k: v for k, v in runs[-1].items() if k not in ("seconds", "peak_mb")}
        print(f"{name:40s} {med:8.2f} s  peak {runs[-1]['peak_mb']:7.0f} MB  {extra}", flush=True)
    print()
    for base, others in (
        ("pig-simulate-single", ("pig-simulate-local2", "pig-simulate-dask2")),
        ("pig-round-robin-single", ("pig-round-robin-dask2",)),
        ("liars-train-all-5faces-single", ("liars-train-all-5faces-dask1", "liars-train-all-5faces-dask2")),
        ("liars-train-all-5faces-dask1", ("liars-train-all-5faces-dask2",)),
    ):
        for o in others if base in rows else ():
            print(
                f"{o:40s} {rows[o]['seconds'] / rows[base]['seconds']:6.2f} x the time of {base}"
            )
    for name in rows:
        if name.endswith("sharded-local2"):
            mem = name.replace("sharded-local2", "in-memory")
            # the sharded solver runs the general pass; in memory, opponents whose targets follow
            # their own score take the factorised pass, which sums in another order (about 5e-15)
            diff = abs(rows[name]["win"] - rows[mem]["win"])
            print(
                f"{name:40s} {rows[name]['seconds'] / rows[mem]['seconds']:6.2f} x in-memory time, "
                f"same value to {diff:.1e}"
            )


if __name__ == "__main__":
    main()
