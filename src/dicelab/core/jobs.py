"""Shared pieces of dicelab's parallel jobs: decision tables as task parameters, batch tasks and
the call of :func:`~dicelab.core.backends.run_tasks` with a job's scale options.

Each game's own jobs live in its package (``dicelab.pig.jobs``, ``dicelab.supersix.jobs``,
``dicelab.liars.jobs``). Decision tables travel inside the task parameters, compressed (``zlib``
over ``numpy.packbits``, then base64), so any strategy, even a Python callable or a file only this
machine can read, runs on a remote cluster, and the results store recognises a task by the
tables' content.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.core.backends import Result, Task, TaskFn, run_tasks

# --------------------------------------------------------------------------------------------
# decision tables as task parameters


def encode_tables(tables: np.ndarray) -> dict[str, Any]:
    """Boolean tables as a compact JSON-able dict (shape + base64 of zlib(packbits))."""
    t = np.ascontiguousarray(tables, dtype=bool)
    blob = zlib.compress(np.packbits(t.ravel()).tobytes(), 6)
    return {"shape": list(t.shape), "bits": base64.b64encode(blob).decode("ascii")}


@lru_cache(maxsize=8)
def _decode(shape: tuple[int, ...], bits: str) -> np.ndarray:
    raw = np.frombuffer(zlib.decompress(base64.b64decode(bits)), dtype=np.uint8)
    n = int(np.prod(shape))
    # writable on purpose: numba compiles (and caches) one version per array type, and the
    # single-process code passes writable arrays; a read-only one would mean a fresh compile
    return np.unpackbits(raw, count=n).astype(bool).reshape(shape)


def decode_tables(enc: dict[str, Any]) -> np.ndarray:
    """The inverse of :func:`encode_tables` (cached per process, so a worker decodes once; do not
    modify the array it returns)."""
    return _decode(tuple(enc["shape"]), enc["bits"])


# --------------------------------------------------------------------------------------------
# what every job does with its tasks


def task_tag(enc: dict[str, Any]) -> str:
    """A short name for encoded tables, part of the task keys (a store tells table sets apart)."""
    return hashlib.sha256(enc["bits"].encode()).hexdigest()[:10]


def batch_tasks(prefix: str, base: dict[str, Any], n_batches: int, per: int) -> list[Task]:
    """Batches ``[b0, b1)``, ``per`` of them a task, keyed ``{prefix}-{b0}``."""
    return [
        Task(f"{prefix}-{b0}", {**base, "b0": b0, "b1": min(n_batches, b0 + per)})
        for b0 in range(0, n_batches, per)
    ]


def run_job(
    fn: TaskFn,
    tasks: list[Task],
    description: str,
    backend: str,
    address: str | None,
    workers: int | None,
    store: str | None,
    progress: bool,
) -> list[Result]:
    """:func:`~dicelab.core.backends.run_tasks` with the scale options a job was given."""
    return run_tasks(
        fn,
        tasks,
        backend=backend,
        address=address,
        workers=workers,
        store=store,
        progress=progress,
        description=description,
    )


