"""Pig's parallel jobs, cut into tasks for :mod:`dicelab.core.backends`; the same numbers as the
single-process code, bit for bit, because they cut the work where it already cuts it:

* :func:`pig_pairs_exact` / :func:`pig_pairs_simulated` - the round robin of
  :func:`dicelab.pig.tournaments.tournament`: chunks of strategy pairs, the simulated pairs seeded
  by their index exactly as the single-process tournament seeds them.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from dicelab.core.backends import Task
from dicelab.core.jobs import decode_tables, encode_tables, run_job, task_tag
from dicelab.pig.rules import PigRules

PAIRS_PER_TASK = 64

def _pig_rules(d: dict[str, Any]) -> PigRules:
    return PigRules(**d)



# --------------------------------------------------------------------------------------------
# Pig tournaments


def pig_exact_task(params: dict[str, Any]) -> dict[str, Any]:
    """Exact results (a_first, b_first, stalemate_a_first, stalemate_b_first, passes) of some pairs."""
    from dicelab.pig.evaluation import evaluate_many

    tables = np.ascontiguousarray(decode_tables(params["tables"]))
    pairs = np.asarray(params["pairs"], dtype=np.int64).reshape(-1, 2)
    rules = _pig_rules(params["rules"])
    limits = _reach_limits(params["tables"]["bits"], rules, tables)
    return {"res": evaluate_many(tables, pairs, rules, limits)}


_limits_cache: dict[tuple[str, Any], np.ndarray] = {}


def _reach_limits(bits: str, rules: Any, tables: np.ndarray) -> np.ndarray:
    """The evaluator's per-table reach limits, once per worker process and table set."""
    key = (hashlib.sha256(bits.encode()).hexdigest(), rules)
    if key not in _limits_cache:
        from dicelab.pig.evaluation import reach_limits

        _limits_cache.clear()
        _limits_cache[key] = np.stack([reach_limits(t, rules) for t in tables])
    return _limits_cache[key]


def pig_pairs_exact(
    tables: np.ndarray,
    pairs: np.ndarray,
    rules: Any,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
    progress: bool = True,
) -> np.ndarray:
    """``evaluate_many(tables, pairs, rules)``, chunk by chunk on a backend: shape ``(len(pairs), 5)``."""
    enc = encode_tables(tables)
    base = {"rules": rules.to_dict(), "tables": enc}
    tag = task_tag(enc)
    tasks = [
        Task(
            f"pig-exact-{tag}-{c0}",
            {**base, "pairs": np.asarray(pairs[c0 : c0 + PAIRS_PER_TASK]).ravel().tolist()},
        )
        for c0 in range(0, len(pairs), PAIRS_PER_TASK)
    ]
    results = run_job(
        pig_exact_task, tasks, "exact round robin", backend, address, workers, store, progress
    )
    return (
        np.concatenate([r["res"].reshape(-1, 5) for r in results]) if results else np.zeros((0, 5))
    )


def pair_seed(seed: int, index: int) -> int:
    """The simulation seed of pair ``index``: the single-process tournament's
    ``SeedSequence(seed).spawn(n_pairs)[index]``, first 64-bit word, shifted right by one."""
    ss = np.random.SeedSequence(seed, spawn_key=(index,))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def pig_sim_pairs_task(params: dict[str, Any]) -> dict[str, Any]:
    """Simulate some pairs of a tournament; returns each pair's counters."""
    from dicelab.pig.simulation import simulate
    from dicelab.pig.strategies import TableStrategy

    tables = decode_tables(params["tables"])
    rules = _pig_rules(params["rules"])
    out = []
    for idx, a, b in np.asarray(params["pairs"], dtype=np.int64).reshape(-1, 3):
        r = simulate(
            TableStrategy("a", roll_table=tables[a]),
            TableStrategy("b", roll_table=tables[b]),
            rules,
            games=params["games"],
            seed=pair_seed(params["seed"], int(idx)),
            exact=False,
        )
        out.append(
            [
                r.games,
                r.a_first_games,
                r.a_wins,
                r.b_wins,
                r.stalemates,
                r.a_wins_a_first,
                r.b_wins_b_first,
            ]
        )
    return {"counts": np.array(out, dtype=np.int64)}


class PairCounts:
    """The counters of one simulated pair, named as :class:`~dicelab.pig.simulation.SimulationResult` names them."""

    FIELDS = (
        "games",
        "a_first_games",
        "a_wins",
        "b_wins",
        "stalemates",
        "a_wins_a_first",
        "b_wins_b_first",
    )
    games: int
    a_first_games: int
    a_wins: int
    b_wins: int
    stalemates: int
    a_wins_a_first: int
    b_wins_b_first: int

    def __init__(self, row: np.ndarray) -> None:
        for name, value in zip(self.FIELDS, row.tolist(), strict=True):
            setattr(self, name, int(value))


def pig_pairs_simulated(
    tables: np.ndarray,
    pairs: np.ndarray,
    rules: Any,
    games: int,
    seed: int,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
    progress: bool = True,
) -> list[PairCounts]:
    """Simulate every pair ``(a, b)`` of ``pairs`` (index ``p`` seeded by :func:`pair_seed`)."""
    enc = encode_tables(tables)
    n = len(pairs)
    base = {"rules": rules.to_dict(), "tables": enc, "games": games, "seed": seed, "n_pairs": n}
    tag = task_tag(enc)
    per = max(1, PAIRS_PER_TASK // 8)
    tasks = []
    for c0 in range(0, n, per):
        flat = [
            x for p in range(c0, min(n, c0 + per)) for x in (p, int(pairs[p][0]), int(pairs[p][1]))
        ]
        tasks.append(Task(f"pig-simpairs-{tag}-{seed}-{games}-{c0}", {**base, "pairs": flat}))
    results = run_job(
        pig_sim_pairs_task,
        tasks,
        "simulated round robin",
        backend,
        address,
        workers,
        store,
        progress,
    )
    return [PairCounts(row) for r in results for row in r["counts"].reshape(-1, 7)]


