"""Super Six's parallel jobs: :func:`supersix_wins` runs the batches of 500 games of
:func:`dicelab.supersix.simulate` (:mod:`dicelab.supersix.simulation`), grouped into tasks, so the
counts equal the single-process ones bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dicelab.supersix.simulation as simulation
from dicelab.core.errors import require
from dicelab.core.jobs import batch_tasks, run_job
from dicelab.supersix.rules import SuperSixRules

# --------------------------------------------------------------------------------------------
# Super Six simulation


def supersix_sim_task(params: dict[str, Any]) -> dict[str, Any]:
    """Batches ``[b0, b1)`` of :func:`dicelab.supersix.simulate`: the wins of each strategy, from
    the same batch function as the single-process loop (:func:`dicelab.supersix.simulation.play_batches`)."""
    from dicelab.supersix.strategies import parse

    rules = SuperSixRules(**params["rules"])
    strategies = [parse(s, rules) for s in params["specs"]]
    wins = simulation.play_batches(strategies, rules, params["games"], params["seed"], params["rotate"],
                                   params["b0"], params["b1"])
    return {"wins": wins}


def supersix_wins(
    specs: list[str],
    rules: Any,
    games: int,
    seed: int,
    rotate: bool = False,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
    progress: bool = True,
) -> np.ndarray:
    """Wins per strategy of :func:`dicelab.supersix.simulate`, batches spread over a backend."""
    for s in specs:
        require(
            isinstance(s, str), "a distributed Super Six simulation needs strategy specs (strings)"
        )
    nb = simulation.batches(games)
    per = max(1, 20_000 // simulation.BATCH)  # about 20,000 games per task
    base = {
        "rules": rules.to_dict(),
        "specs": list(specs),
        "games": games,
        "seed": seed,
        "rotate": rotate,
    }
    tasks = batch_tasks(f"supersix-{seed}-{games}", base, nb, per)
    results = run_job(
        supersix_sim_task, tasks, "simulating", backend, address, workers, store, progress
    )
    return np.sum([r["wins"] for r in results], axis=0).astype(np.int64)
