"""Round-robin tournaments of Pig strategies, exact by default (seed 002, 3.3.5-3.3.6).

Every pair of strategies meets once; ``matrix[a, b]`` is A's overall chance against B with the
first move alternating (``a_overall`` of :func:`dicelab.pig.evaluation.evaluate`), so
``matrix[a, b] + matrix[b, a] = 1`` minus the stalemate share, and the diagonal is 1/2 when a
strategy's games against itself always end.

* **Exact** (default): each pair is one exact evaluation; the pairs are spread over all cores by
  a numba ``prange`` kernel, in chunks that drive a progress bar. The results do not depend on
  the number of cores (every pair is an independent exact computation).
* **Simulated** (``simulate=N``): each pair plays ``N`` games (:func:`dicelab.pig.simulation.simulate`)
  with its own seed, the ``p``-th child of ``SeedSequence(seed)`` for pair ``p`` in order.

Ranking: by the mean of a strategy's row (its average overall chance against the others), then
by the number of opponents it beats.

Transitivity: "A beats B" means ``matrix[a, b] > 1/2`` (by more than ``margin``, 1e-12 for
exact values so that exact ties are not edges). The strategies are transitive exactly when the
"beats" relation has no directed cycle; since a tournament with a cycle always has a 3-cycle,
we list every 3-cycle ``A > B > C > A`` (each once, starting from its earliest strategy).
In a simulated tournament "beats" compares the estimates with 1/2, so a pair that is nearly
even can point either way by chance and a listed cycle may be noise: confirm it exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.progress import progress_bar
from dicelab.pig.rules import PigRules
from dicelab.pig.specs import as_strategy, expand_specs

MAX_STRATEGIES = 400


@dataclass
class Tournament:
    """The result of a round robin: names, win matrix, ranking and non-transitive cycles."""

    rules: PigRules
    strategies: list[str]
    matrix: np.ndarray
    first: np.ndarray  # first[a, b] = P(a wins | a moves first) against b
    stalemate: np.ndarray  # stalemate[a, b] = P(never ends), first move alternating
    ranking: list[dict[str, Any]]
    cycles: list[list[str]]
    mode: str
    games: int | None
    seconds: float
    pairs: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def transitive(self) -> bool:
        return not self.cycles

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "mode": self.mode,
            "games": self.games,
            "strategies": self.strategies,
            "matrix": self.matrix.tolist(),
            "ranking": self.ranking,
            "cycles": self.cycles,
            "transitive": self.transitive,
            "pairs": self.pairs,
            "seconds": self.seconds,
        }


def find_cycles(matrix: np.ndarray, margin: float = 1e-12) -> list[tuple[int, int, int]]:
    """Every 3-cycle (a, b, c) with a > b > c > a in the "beats" relation, a the smallest index."""
    beats = matrix > 0.5 + margin
    np.fill_diagonal(beats, False)
    n = len(matrix)
    out: list[tuple[int, int, int]] = []
    for a in range(n):
        bs = np.flatnonzero(beats[a])
        bs = bs[bs > a]
        if bs.size == 0:
            continue
        cs = np.flatnonzero(beats[:, a])  # c beats a
        cs = cs[cs > a]
        if cs.size == 0:
            continue
        sub = beats[np.ix_(bs, cs)]  # b beats c
        for bi, ci in zip(*np.nonzero(sub), strict=True):
            out.append((a, int(bs[bi]), int(cs[ci])))
    return out


def _ranking(names: list[str], matrix: np.ndarray, margin: float) -> list[dict[str, Any]]:
    n = len(names)
    off = ~np.eye(n, dtype=bool)
    mean = np.where(off, matrix, 0.0).sum(axis=1) / max(n - 1, 1)
    wins = ((matrix > 0.5 + margin) & off).sum(axis=1)
    order = sorted(range(n), key=lambda a: (-mean[a], -wins[a], a))
    return [
        {"rank": r + 1, "strategy": names[a], "mean": float(mean[a]), "beats": int(wins[a])}
        for r, a in enumerate(order)
    ]


def tournament(
    specs: list[Any],
    rules: PigRules | None = None,
    simulate: int | None = None,
    seed: int = 0,
    progress: bool = True,
    chunk: int = 64,
    backend: str | None = None,
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
) -> Tournament:
    """Play a round robin among ``specs`` (strings may be ranges like ``hold:1..100``).

    Exact unless ``simulate`` gives a number of games per pair. ``backend`` (``"local"``,
    ``"dask"``, ``"ray"``; see :mod:`dicelab.core.backends`) spreads the pairs over worker
    processes or a cluster, with the same matrix.
    """
    rules = rules or PigRules()
    flat: list[Any] = []
    for s in specs:
        flat.extend(expand_specs([s]) if isinstance(s, str) else [s])
    require(len(flat) >= 2, f"a tournament needs at least 2 strategies, got {len(flat)}")
    require(
        len(flat) <= MAX_STRATEGIES,
        f"a tournament takes at most {MAX_STRATEGIES} strategies, got {len(flat)}",
    )
    strategies = [as_strategy(s) for s in flat]
    names = [s.name for s in strategies]
    require(
        len(set(names)) == len(names),
        "every strategy in a tournament must appear once; "
        f"repeated: {sorted({x for x in names if names.count(x) > 1})}",
    )
    n = len(strategies)
    pairs = np.array([(a, b) for a in range(n) for b in range(a + 1, n)], dtype=np.int64)
    t0 = time.perf_counter()
    first = np.full((n, n), np.nan)
    second = np.full((n, n), np.nan)  # second[a, b] = P(a wins | b moves first)
    stall = np.zeros((n, n))
    if simulate is None:
        from dicelab.pig.evaluation import evaluate_many, reach_limits

        tables = np.ascontiguousarray(np.stack([s.table(rules) for s in strategies]))
        limits = np.stack([reach_limits(t, rules) for t in tables])
        # the diagonal: each strategy against itself
        all_pairs = np.concatenate([np.stack([np.arange(n), np.arange(n)], axis=1), pairs])
        res = np.zeros((len(all_pairs), 5))
        if backend is not None:
            from dicelab.pig.jobs import pig_pairs_exact

            res = pig_pairs_exact(tables, all_pairs, rules, backend, address, workers, store, progress)
        else:
            with progress_bar("exact round robin", total=len(all_pairs), enabled=progress) as bar:
                for c0 in range(0, len(all_pairs), chunk):
                    res[c0 : c0 + chunk] = evaluate_many(
                        tables, all_pairs[c0 : c0 + chunk], rules, limits
                    )
                    bar.advance(min(chunk, len(all_pairs) - c0))
        mode, games = "exact", None
        for (a, b), (af, bf, sa, sb, _) in zip(all_pairs, res, strict=True):
            first[a, b], first[b, a] = af, bf
            second[a, b], second[b, a] = 1.0 - bf - sb, 1.0 - af - sa
            stall[a, b] = stall[b, a] = 0.5 * (sa + sb)
        margin = 1e-12
    else:
        from dicelab.pig.simulation import simulate as sim

        require(
            isinstance(simulate, int) and simulate >= 2,
            f"games per pair must be a whole number >= 2, got {simulate}",
        )
        all_pairs = np.concatenate([np.stack([np.arange(n), np.arange(n)], axis=1), pairs])
        seeds = np.random.SeedSequence(seed).spawn(len(all_pairs))
        done = None  # with a backend: every pair's counts, from the same seeds
        if backend is not None:
            from dicelab.pig.jobs import pig_pairs_simulated

            tables = np.ascontiguousarray(np.stack([s.table(rules) for s in strategies]))
            done = pig_pairs_simulated(
                tables, all_pairs, rules, simulate, seed, backend, address, workers, store, progress
            )
        quiet = not progress or done is not None
        with progress_bar("simulated round robin", total=len(all_pairs), enabled=not quiet) as bar:
            for p, ((a, b), ss) in enumerate(zip(all_pairs, seeds, strict=True)):
                r = done[p] if done is not None else sim(
                    strategies[a],
                    strategies[b],
                    rules,
                    games=simulate,
                    seed=int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1)),
                    exact=False,
                )
                na, nb = r.a_first_games, r.games - r.a_first_games
                if a == b:  # self-play: "first" is the first mover's share
                    first[a, a] = (r.a_wins_a_first + r.b_wins_b_first) / r.games
                    second[a, a] = (r.a_wins + r.b_wins) / r.games - first[a, a]
                    stall[a, a] = r.stalemates / r.games
                    bar.advance()
                    continue
                first[a, b] = r.a_wins_a_first / na
                first[b, a] = r.b_wins_b_first / nb
                second[a, b] = (r.a_wins - r.a_wins_a_first) / nb
                second[b, a] = (r.b_wins - r.b_wins_b_first) / na
                stall[a, b] = stall[b, a] = r.stalemates / r.games
                bar.advance()
        mode, games = "simulated", simulate
        margin = 0.0
    matrix = 0.5 * (first + second)
    cycles = [[names[a], names[b], names[c]] for a, b, c in find_cycles(matrix, margin)]
    seconds = time.perf_counter() - t0
    return Tournament(
        rules,
        names,
        matrix,
        first,
        stall,
        _ranking(names, matrix, margin),
        cycles,
        mode,
        games,
        seconds,
        len(pairs),
    )
