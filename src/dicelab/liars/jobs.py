"""Liar's Dice's parallel jobs: training runs of :func:`dicelab.liars.qlearning.train` over a grid
of seeds and hyperparameters (:func:`parse_sweep`), each evaluated on the same evaluation seed.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import numpy as np

from dicelab.core.backends import Task
from dicelab.core.errors import DicelabError, require
from dicelab.core.jobs import run_job

# --------------------------------------------------------------------------------------------
# Liar's Dice training sweeps

SWEEP_KEYS: dict[str, type] = {
    "seed": int,
    "alpha": float,
    "gamma": float,
    "epsilon": float,
    "bluff": float,
    "design": str,
    "games": int,
}


def parse_sweep(text: str) -> list[dict[str, Any]]:
    """``"seed=0..3;alpha=0.05,0.1;design=seed,extended"`` -> the grid of settings (product, in order).

    Values are comma lists; whole numbers may be ranges ``A..B``. Keys: seed, alpha, gamma,
    epsilon, bluff, design, games.
    """
    require(
        isinstance(text, str) and text.strip() != "",
        "--sweep needs settings such as seed=0..3;alpha=0.05,0.1",
    )
    axes: dict[str, list[Any]] = {}
    for part in [p.strip() for p in text.split(";") if p.strip()]:
        key, sep, vals = part.partition("=")
        key = key.strip()
        require(
            sep == "=" and vals.strip() != "",
            f"bad sweep part {part!r}; write KEY=V1,V2 (or KEY=A..B)",
        )
        require(
            key in SWEEP_KEYS, f"unknown sweep key {key!r}; choose from {', '.join(SWEEP_KEYS)}"
        )
        require(key not in axes, f"sweep key {key!r} is given twice")
        kind = SWEEP_KEYS[key]
        values: list[Any] = []
        for v in [v.strip() for v in vals.split(",") if v.strip()]:
            m = re.fullmatch(r"(\d+)\.\.(\d+)", v)
            if m and kind is int:
                lo, hi = int(m.group(1)), int(m.group(2))
                require(lo <= hi and hi - lo < 10_000, f"bad range {v!r} for {key}")
                values.extend(range(lo, hi + 1))
                continue
            try:
                values.append(kind(v))
            except ValueError:
                raise DicelabError(f"sweep value {v!r} for {key} must be {kind.__name__}") from None
        axes[key] = values
    grid = [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())]
    require(len(grid) <= 10_000, f"the sweep has {len(grid)} settings; at most 10000")
    return grid


def liars_train_task(params: dict[str, Any]) -> dict[str, Any]:
    """Train one agent and evaluate it greedily on the sweep's evaluation seed."""
    from dicelab.liars.qlearning import evaluate, train
    from dicelab.liars.rules import LiarsRules

    rules = LiarsRules(**params["rules"])
    s = params["setting"]
    kw = {k: s[k] for k in ("alpha", "gamma", "epsilon", "bluff") if k in s}
    kw["design"] = s.get("design", params.get("design", "seed"))
    res = train(
        rules,
        games=int(s.get("games", params["games"])),
        seed=int(s.get("seed", params["seed"])),
        opponents=params["opponents"],
        progress=False,
        **kw,
    )
    ev = evaluate(
        res.agent,
        params["opponents"],
        games=params["eval_games"],
        seed=params["eval_seed"],
        rules=rules,
    )
    return {
        "final_win_rate": float(res.final_win_rate(min(1000, res.games))),
        "training_win_rate": float(res.win_rate),
        "win_rate": ev.win_rate,
        "ci_low": ev.ci_low,
        "ci_high": ev.ci_high,
        "train_seconds": float(res.seconds),
        "q": res.agent.q,
    }


def liars_sweep(
    rules: Any,
    grid: list[dict[str, Any]],
    games: int,
    seed: int,
    opponents: list[str],
    eval_games: int = 2000,
    eval_seed: int = 10**6,
    design: str = "seed",
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Train and evaluate one agent per setting of ``grid``; rows in grid order (with ``q``)."""
    base = {
        "rules": rules.to_dict(),
        "games": games,
        "seed": seed,
        "opponents": list(opponents),
        "eval_games": eval_games,
        "eval_seed": eval_seed,
        "design": design,
    }
    tasks = [Task(f"liars-{i}", {**base, "setting": s}) for i, s in enumerate(grid)]
    results = run_job(
        liars_train_task, tasks, "training sweep", backend, address, workers, store, progress
    )
    return [{**s, **r} for s, r in zip(grid, results, strict=True)]


def run_liars_sweep(
    rules: Any,
    sweep: str,
    games: int,
    seed: int,
    opponents: list[str],
    design: str,
    eval_games: int,
    out: str,
    progress: bool = True,
    **scale: Any,
) -> dict[str, Any]:
    """``dicelab liars train --sweep``: train the grid, rank by evaluated win rate, save the best.

    Every setting trains ``games`` games (unless the sweep sets ``games``) from its own ``seed``
    and is then evaluated greedily over ``eval_games`` games on one shared evaluation seed, so the
    settings are compared on the same dice. The best (highest win rate, then highest lower
    bound) is saved to ``out`` as a Q table.
    """
    import time

    from dicelab.liars.qlearning import QAgent

    require(
        isinstance(eval_games, int) and eval_games >= 1,
        f"--eval-games must be at least 1, got {eval_games}",
    )
    grid = parse_sweep(sweep)
    t0 = time.perf_counter()
    rows = liars_sweep(
        rules, grid, games, seed, opponents, eval_games, design=design, progress=progress, **scale
    )
    best_i = max(range(len(rows)), key=lambda i: (rows[i]["win_rate"], rows[i]["ci_low"], -i))
    best = rows[best_i]
    setting = grid[best_i]
    agent = QAgent(
        rules,
        np.asarray(best["q"], dtype=np.float64),
        setting.get("design", design),
        float(setting.get("bluff", 0.5)),
        int(setting.get("games", games)),
        {
            "opponents": list(opponents),
            "sweep": sweep,
            "setting": setting,
            "seed": setting.get("seed", seed),
        },
    )
    path = agent.save(out)
    table = [{k: v for k, v in r.items() if k != "q"} for r in rows]
    return {
        "settings": len(rows),
        "games": games,
        "eval_games": eval_games,
        "opponents": list(opponents),
        "rules": rules.to_dict(),
        "sweep": table,
        "best": table[best_i],
        "out": path,
        "seconds": time.perf_counter() - t0,
    }
