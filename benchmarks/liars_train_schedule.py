"""Wall time of ``dicelab liars train-all`` on N workers, from the tasks' measured times.

Reads one or more ``train-all --json`` outputs (each size's own training time, ``seconds``), may
replace some sizes' times with ones measured elsewhere (``--set 4v4:ones=2570``), and plays the
backend's schedule: tasks sorted longest first (as ``library.train_all`` sorts them by estimate),
each taken by the first worker free. Prints the wall time for each worker count. Usage::

    .venv/bin/python benchmarks/liars_train_schedule.py ones.json none.json --set 4v4:ones=2570 --workers 1,2,4,6,8
"""

from __future__ import annotations

import argparse
import heapq
import json


def wall(times: list[float], workers: int) -> float:
    """The time the last worker finishes when ``workers`` take ``times`` in order, first free first."""
    free = [0.0] * workers
    for t in times:
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", help="train-all --json outputs")
    ap.add_argument("--set", action="append", default=[], help="SIZE:WILD=SECONDS, e.g. 4v4:ones=2570")
    ap.add_argument("--workers", default="1,2,4,6,8")
    args = ap.parse_args()
    tasks: dict[tuple[str, str], float] = {}
    for path in args.runs:
        with open(path) as f:
            run = json.load(f)
        for s in run["sizes"]:
            tasks[(f"{s['dice'][0]}v{s['dice'][1]}", s.get("wild", run["wild"]))] = float(s["seconds"])
    for item in args.set:
        key, seconds = item.split("=")
        size, wild = key.split(":")
        tasks[(size, wild)] = float(seconds)
    times = sorted(tasks.values(), reverse=True)
    longest = max(tasks, key=lambda k: tasks[k])
    print(f"{len(times)} tasks, {sum(times):,.0f} s in all; the longest {longest[0]} {longest[1]} {times[0]:,.0f} s")
    for n in (int(w) for w in args.workers.split(",")):
        w = wall(times, n)
        print(f"{n:3d} workers: {w:7,.0f} s ({w / 60:5.1f} min), {sum(times) / (n * w):4.0%} busy")


if __name__ == "__main__":
    main()
