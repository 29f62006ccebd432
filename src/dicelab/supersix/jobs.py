"""Super Six's parallel jobs: :func:`supersix_wins` runs the batches of 500 games of
:func:`dicelab.supersix.simulate`, each with its own generator from ``SeedSequence(seed)``, grouped
into tasks, so the counts equal the single-process ones bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jobs import batch_tasks, run_job

# --------------------------------------------------------------------------------------------
# Super Six simulation


def supersix_sim_task(params: dict[str, Any]) -> dict[str, Any]:
    """Batches ``[b0, b1)`` of :func:`dicelab.supersix.simulate`: the wins of each strategy.

    Batch ``b`` plays games ``b * BATCH ..`` with the generator of ``SeedSequence(seed)``'s
    ``b``-th child, seats rotated by the game number when ``rotate`` is set: the very games the
    single-process loop plays.
    """
    from dicelab.supersix.api import BATCH
    from dicelab.supersix.rules import SuperSixGame, SuperSixRules
    from dicelab.supersix.strategies import parse

    rules = SuperSixRules(**params["rules"])
    strategies = [parse(s, rules) for s in params["specs"]]
    P, games, rotate = rules.players, params["games"], params["rotate"]
    wins = np.zeros(P, dtype=np.int64)
    for b in range(params["b0"], params["b1"]):
        rng = np.random.default_rng(np.random.SeedSequence(params["seed"], spawn_key=(b,)))
        for g in range(b * BATCH, min(games, (b + 1) * BATCH)):
            shift = g % P if rotate else 0
            seats = [strategies[(s - shift) % P] for s in range(P)]
            winner_seat = SuperSixGame(rules, seats, rng).play()
            wins[(winner_seat - shift) % P] += 1
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
    from dicelab.supersix.api import BATCH

    for s in specs:
        require(
            isinstance(s, str), "a distributed Super Six simulation needs strategy specs (strings)"
        )
    nb = (games + BATCH - 1) // BATCH
    per = max(1, 20_000 // BATCH)  # about 20,000 games per task
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


def supersix_simulate(
    specs: list[str],
    rules: Any,
    games: int,
    seed: int,
    confidence: float = 0.95,
    rotate: bool = False,
    method: str = "wilson",
    **scale: Any,
) -> dict[str, Any]:
    """:func:`dicelab.supersix.simulate` on a backend: the same games, the same report."""
    from dicelab.core.stats import interval
    from dicelab.supersix.strategies import parse

    require(
        len(specs) == rules.players,
        f"give one strategy per player ({rules.players}), got {len(specs)}",
    )
    require(
        isinstance(games, int) and 1 <= games <= 10_000_000,
        f"games must be a whole number from 1 to 10000000, got {games}",
    )
    names = [parse(s, rules).name for s in specs]  # validates every spec here, before any task
    wins = supersix_wins(specs, rules, games, seed, rotate, **scale)
    results = []
    for n, name in enumerate(names):
        lo, hi = interval(int(wins[n]), games, confidence, method)
        results.append(
            {
                "strategy": name,
                "seat": None if rotate else n,
                "wins": int(wins[n]),
                "rate": float(wins[n] / games),
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    return {
        "rules": rules.to_dict(),
        "games": games,
        "seed": seed,
        "confidence": confidence,
        "rotate": rotate,
        "results": results,
    }


