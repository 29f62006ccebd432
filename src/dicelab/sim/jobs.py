"""dicelab's parallel jobs, cut into tasks for :mod:`dicelab.sim.backends`.

Each job here is the distributed form of a single-process function and gives the same numbers,
bit for bit, because it cuts the work where the single-process code already cuts it:

* :func:`pig_counts` - :func:`dicelab.sim.pig_sim.simulate`: the simulation's fixed batches of
  65,536 games, each with its own generator from ``SeedSequence(seed)``, grouped into tasks;
  the counts are integers, so their sum does not depend on the grouping.
* :func:`pig_pairs_exact` / :func:`pig_pairs_simulated` - the round robin of
  :func:`dicelab.sim.tournament.tournament`: chunks of strategy pairs, the simulated pairs seeded
  by their index exactly as the single-process tournament seeds them.
* :func:`supersix_wins` - :func:`dicelab.supersix.simulate`: its batches of 500 games, each
  with its own generator from ``SeedSequence(seed)``, grouped into tasks.
* :func:`liars_sweep` - training runs of :func:`dicelab.learn.qlearning.train` over a grid of
  seeds and hyperparameters, each evaluated on the same evaluation seed.

Decision tables travel inside the task parameters, compressed (``zlib`` over ``numpy.packbits``,
then base64), so any strategy, even a Python callable or a file only this machine can read, runs
on a remote cluster, and the results store recognises a task by the tables' content.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import zlib
from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.errors import DicelabError, require
from dicelab.sim.backends import Result, Task, TaskFn, run_tasks

BATCHES_PER_TASK = 16  # Pig simulation: 16 x 65,536 games (about a second of work) per task
PAIRS_PER_TASK = 64


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


def _pig_rules(d: dict[str, Any]) -> Any:
    from dicelab.games.pig import PigRules

    return PigRules(**d)


# --------------------------------------------------------------------------------------------
# what every job does with its tasks


def _tag(enc: dict[str, Any]) -> str:
    """A short name for encoded tables, part of the task keys (a store tells table sets apart)."""
    return hashlib.sha256(enc["bits"].encode()).hexdigest()[:10]


def _batch_tasks(prefix: str, base: dict[str, Any], n_batches: int, per: int) -> list[Task]:
    """Batches ``[b0, b1)``, ``per`` of them a task, keyed ``{prefix}-{b0}``."""
    return [
        Task(f"{prefix}-{b0}", {**base, "b0": b0, "b1": min(n_batches, b0 + per)})
        for b0 in range(0, n_batches, per)
    ]


def _run(
    fn: TaskFn,
    tasks: list[Task],
    description: str,
    backend: str,
    address: str | None,
    workers: int | None,
    store: str | None,
    progress: bool,
) -> list[Result]:
    """:func:`~dicelab.sim.backends.run_tasks` with the scale options a job was given."""
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


# --------------------------------------------------------------------------------------------
# Pig simulation


def pig_sim_task(params: dict[str, Any]) -> dict[str, Any]:
    """Batches ``[b0, b1)`` of a Pig simulation; returns the six counters of ``_play_all``."""
    from dicelab.sim.pig_sim import BATCH, _atoms, _play_all, batch_states

    rules = _pig_rules(params["rules"])
    T = np.ascontiguousarray(decode_tables(params["tables"]))
    gain, kind = _atoms(rules)
    games, b0, b1 = params["games"], params["b0"], params["b1"]
    states = np.ascontiguousarray(batch_states(params["seed"], games)[b0:b1])
    n_games = min(games - b0 * BATCH, (b1 - b0) * BATCH)
    per_batch = np.zeros((len(states), 6), dtype=np.int64)
    _play_all(
        T, gain, kind, states, n_games, BATCH, per_batch
    )  # BATCH is even: A/B first parity kept
    return {"counts": per_batch.sum(axis=0)}


def pig_counts(
    tables: np.ndarray,
    rules: Any,
    games: int,
    seed: int,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
    progress: bool = True,
) -> np.ndarray:
    """The six counters of :func:`dicelab.sim.pig_sim.simulate` for decision tables ``(2, g, g, g)``."""
    from dicelab.sim.pig_sim import BATCH

    nb = (games + BATCH - 1) // BATCH
    enc = encode_tables(tables)
    base = {"rules": rules.to_dict(), "tables": enc, "games": games, "seed": seed}
    tag = _tag(enc)
    tasks = _batch_tasks(f"pig-sim-{tag}-{seed}-{games}", base, nb, BATCHES_PER_TASK)
    results = _run(pig_sim_task, tasks, "simulating", backend, address, workers, store, progress)
    return np.sum([r["counts"] for r in results], axis=0).astype(np.int64)


# --------------------------------------------------------------------------------------------
# Pig tournaments


def pig_exact_task(params: dict[str, Any]) -> dict[str, Any]:
    """Exact results (a_first, b_first, stalemate_a_first, stalemate_b_first, passes) of some pairs."""
    from dicelab.solvers.pig_eval import evaluate_many

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
        from dicelab.solvers.pig_eval import reach_limits

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
    tag = _tag(enc)
    tasks = [
        Task(
            f"pig-exact-{tag}-{c0}",
            {**base, "pairs": np.asarray(pairs[c0 : c0 + PAIRS_PER_TASK]).ravel().tolist()},
        )
        for c0 in range(0, len(pairs), PAIRS_PER_TASK)
    ]
    results = _run(
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
    from dicelab.sim.pig_sim import simulate
    from dicelab.strategies.pig import TableStrategy

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
    """The counters of one simulated pair, named as :class:`~dicelab.sim.pig_sim.SimulationResult` names them."""

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
    tag = _tag(enc)
    per = max(1, PAIRS_PER_TASK // 8)
    tasks = []
    for c0 in range(0, n, per):
        flat = [
            x for p in range(c0, min(n, c0 + per)) for x in (p, int(pairs[p][0]), int(pairs[p][1]))
        ]
        tasks.append(Task(f"pig-simpairs-{tag}-{seed}-{games}-{c0}", {**base, "pairs": flat}))
    results = _run(
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


# --------------------------------------------------------------------------------------------
# Super Six simulation


def supersix_sim_task(params: dict[str, Any]) -> dict[str, Any]:
    """Batches ``[b0, b1)`` of :func:`dicelab.supersix.simulate`: the wins of each strategy.

    Batch ``b`` plays games ``b * BATCH ..`` with the generator of ``SeedSequence(seed)``'s
    ``b``-th child, seats rotated by the game number when ``rotate`` is set: the very games the
    single-process loop plays.
    """
    from dicelab.games.supersix import SuperSixGame, SuperSixRules
    from dicelab.strategies.supersix import parse
    from dicelab.supersix import BATCH

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
    from dicelab.supersix import BATCH

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
    tasks = _batch_tasks(f"supersix-{seed}-{games}", base, nb, per)
    results = _run(
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
    from dicelab.sim.stats import interval
    from dicelab.strategies.supersix import parse

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
    from dicelab.games.liars import LiarsRules
    from dicelab.learn.qlearning import evaluate, train

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
    results = _run(
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

    from dicelab.learn.qlearning import QAgent

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
