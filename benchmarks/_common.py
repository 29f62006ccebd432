"""Small timing helpers shared by the benchmark scripts (run with `make bench`)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_time(fn: Callable[[], object], repeat: int = 7, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs, after ``warmup`` untimed runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def report(name: str, ours: float, baseline: float | None = None, base_name: str = "baseline") -> None:
    """Print one benchmark line: our time, the baseline's and the ratio."""
    line = f"{name:<48} dicelab {ours * 1e3:10.2f} ms"
    if baseline is not None:
        line += f" | {base_name} {baseline * 1e3:10.1f} ms | ratio {baseline / ours:8.1f}x"
    print(line, flush=True)
