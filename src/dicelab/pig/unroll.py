"""The roll outcomes as Pig's numba kernels take them: unrolled for the common dice only.

Outcome counts whose loops the kernels unroll (the rolls passed as tuples, one compiled
specialisation each): one d6 (5) and two d6 (9 sums). Unrolling makes a goal-100 solve about 1.6x
faster (0.025 s vs 0.040 s for one d6, 0.59 s vs 0.91 s for two), but each tuple length is a compile
of its own (10-30 s of CPU with a cold cache), so every other die shares one generic compile over
arrays. Piglet's coin (one scoring outcome) shares the arrays' compile: unrolled, its goal-100
solve took 0.012 s instead of 0.025, for 18 s of CPU compiling on every fresh clone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

UNROLLED = (5, 9)


def unrolled_outcomes(pts: np.ndarray, prb: np.ndarray) -> tuple[Any, Any]:
    """``(points, probabilities)`` of the scoring rolls: tuples for the common dice, contiguous
    arrays for every other die.

    >>> unrolled_outcomes(np.array([2, 3, 4, 5, 6]), np.full(5, 1 / 6))[0]
    (2, 3, 4, 5, 6)
    >>> type(unrolled_outcomes(np.array([2, 3]), np.full(2, 1 / 3))[0]).__name__
    'ndarray'
    """
    if len(pts) in UNROLLED:
        return tuple(int(d) for d in pts), tuple(float(q) for q in prb)
    return np.ascontiguousarray(pts, dtype=np.int64), np.ascontiguousarray(prb, dtype=np.float64)
