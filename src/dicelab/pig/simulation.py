"""Monte Carlo of whole games of Pig between two strategies, fast and reproducible.

``simulate(a, b, rules, games, seed)`` plays ``games`` games of A against B, A moving first in
the even-numbered games and B in the odd ones (so the first move alternates, as in seed 002's
fair test), and counts A's wins, B's wins and stalemates.

How it is made fast and reproducible
------------------------------------
* Strategies are compiled to decision tables; one numba kernel plays the games, reading
  ``roll[i, j, k]`` at every step.
* Randomness: each *batch* of ``BATCH`` (65,536) games has its own xoshiro256** generator whose
  state is ``SeedSequence(seed).spawn(n_batches)[b].generate_state(4, uint64)``. Batches are fixed
  by the seed and the number of games alone, run in parallel over all cores (numba ``prange``) and
  are added up in batch order, so a seed gives the same counts on any number of cores.
* One 64-bit draw gives two rolls: a die with ``n`` equally likely *atoms* (``sides`` faces,
  ``sides^2`` face pairs for two dice, 2 for the coin of piglet) is read as
  ``(u32 * n) >> 32`` from a 32-bit half, which is unbiased to within ``n / 2^32``.
* Stalemates are detected exactly: strategies are deterministic, so two skips in a row (a hold
  at turn total 0 by each player) bring back the same state, and the game can never end.

Per-turn records (``records=PATH.parquet``): one row per turn with ``game``, ``turn``,
``player`` (0 = A, 1 = B), ``score`` and ``opponent_score`` (banked, at the start of the turn),
``turn_total`` (at the end of the turn, before it was banked or lost), ``rolls`` and ``action``
(``hold``, ``bust``, ``reset``, ``win``). Recording plays the very same games (same seeds).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import prange

from dicelab.core import stats as st
from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.core.jobs import batch_tasks, decode_tables, encode_tables, run_job, task_tag
from dicelab.pig.rules import PigRules
from dicelab.pig.specs import as_strategy

BATCH = 65_536
BATCHES_PER_TASK = 16  # distributed runs: 16 x 65,536 games (about a second of work) per task
MAX_GAMES = 10_000_000_000
MAX_RECORD_GAMES = 5_000_000
ACTIONS = ("hold", "bust", "reset", "win")


# ---------------------------------------------------------------------------------------------
# numba kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def _next(s):
    """xoshiro256** (Blackman & Vigna): the next 64-bit output of state ``s`` (4 x uint64)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def _play_batch(T, atom_gain, atom_kind, state, first_game, n_games, counts, record, rec, rec_cap):
    """Play games ``first_game .. first_game + n_games - 1`` with generator ``state``.

    T[p]: the decision table of player p (0 = A, 1 = B). counts (6,): A wins / B wins /
    stalemates with A first, then the same with B first. With ``record``, rows of ``rec``
    (rec_cap x 8: game, turn, player, score, opp, turn_total, rolls, action) are filled;
    returns the number of records (or -1 if rec_cap was too small).
    """
    g = T.shape[1]
    n_atoms = np.uint64(atom_gain.shape[0])
    mask32 = np.uint64(0xFFFFFFFF)
    spare = np.uint64(0)
    have_spare = False
    nrec = 0
    sc = np.zeros(2, dtype=np.int64)
    for gi in range(n_games):
        game = first_game + gi
        first = game & 1
        mover = first
        sc[0] = 0
        sc[1] = 0
        skips = 0
        turn = 0
        while True:
            i = sc[mover]
            j = sc[1 - mover]
            k = 0
            rolls = 0
            action = 0  # 0 hold, 1 bust, 2 reset, 3 win
            t = T[mover, i, j]
            while t[k]:
                if have_spare:
                    u = spare
                    have_spare = False
                else:
                    r = _next(state)
                    u = r & mask32
                    spare = r >> np.uint64(32)
                    have_spare = True
                atom = (u * n_atoms) >> np.uint64(32)
                rolls += 1
                kind = atom_kind[atom]
                if kind == 0:
                    k += atom_gain[atom]
                    if i + k >= g:
                        action = 3
                        break
                elif kind == 1:
                    action = 1
                    break
                else:
                    action = 2
                    break
            if record:
                if nrec >= rec_cap:
                    return -1
                rec[nrec, 0] = game
                rec[nrec, 1] = turn
                rec[nrec, 2] = mover
                rec[nrec, 3] = i
                rec[nrec, 4] = j
                rec[nrec, 5] = k
                rec[nrec, 6] = rolls
                rec[nrec, 7] = action
                nrec += 1
            turn += 1
            if action == 3:
                counts[3 * first + mover] += 1
                break
            if action == 0:
                sc[mover] = i + k
                if rolls == 0:
                    skips += 1
                    if skips >= 2:
                        counts[3 * first + 2] += 1
                        break
                else:
                    skips = 0
            else:
                skips = 0
                if action == 2:
                    sc[mover] = 0
            mover = 1 - mover
    return nrec


@njit(cache=True, parallel=True)
def _play_all(T, atom_gain, atom_kind, states, n_games, batch, counts):
    """Every batch in parallel; counts[b] holds batch b's six counters."""
    nb = states.shape[0]
    dummy = np.zeros((1, 8), dtype=np.int64)
    for b in prange(nb):
        start = b * batch
        m = n_games - start
        if m > batch:
            m = batch
        s = states[b].copy()
        _play_batch(T, atom_gain, atom_kind, s, start, m, counts[b], np.bool_(False), dummy, np.int64(0))


@njit(cache=True, parallel=True)
def _repeat_counts(T, atom_gain, atom_kind, states, n_games, counts):
    """Independent repeats of an ``n_games`` match: repeat r with generator states[r] fills
    counts[r] (the six counters of :func:`_play_batch`)."""
    dummy = np.zeros((1, 8), dtype=np.int64)
    for r in prange(states.shape[0]):
        s = states[r].copy()
        _play_batch(T, atom_gain, atom_kind, s, np.int64(0), n_games, counts[r], np.bool_(False), dummy, np.int64(0))


@njit(cache=True, parallel=True)
def _win_paths(T, atom_gain, atom_kind, states, n_games, wins):
    """wins[r, n] = A's wins in the first n + 1 games of repeat r (generator states[r]; first
    move alternating, A first in game 0)."""
    dummy = np.zeros((1, 8), dtype=np.int64)
    for r in prange(states.shape[0]):
        s = states[r].copy()
        c = np.zeros(6, dtype=np.int64)
        for n in range(n_games):
            _play_batch(T, atom_gain, atom_kind, s, n, np.int64(1), c, np.bool_(False), dummy, np.int64(0))
            wins[r, n] = c[0] + c[3]


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


def _atoms(rules: PigRules) -> tuple[np.ndarray, np.ndarray]:
    """Equally likely atoms of one roll: points added and kind (0 add, 1 bust, 2 reset)."""
    s = rules.sides
    if rules.variant == "piglet":
        return np.array([1, 0], dtype=np.int64), np.array([0, 1], dtype=np.int64)
    if rules.variant == "standard":
        faces = np.arange(1, s + 1)
        return np.where(faces == 1, 0, faces).astype(np.int64), (faces == 1).astype(np.int64)
    a, b = np.meshgrid(np.arange(1, s + 1), np.arange(1, s + 1), indexing="ij")
    a, b = a.ravel(), b.ravel()
    ones = (a == 1).astype(np.int64) + (b == 1).astype(np.int64)
    gain = np.where(ones == 0, a + b, 0).astype(np.int64)
    return gain, ones  # 0 ones: add, 1 one: bust, 2 ones: reset


def batch_states(seed: int, games: int) -> np.ndarray:
    """The xoshiro256** states of the batches: one child of ``SeedSequence(seed)`` per batch."""
    nb = (games + BATCH - 1) // BATCH
    children = np.random.SeedSequence(seed).spawn(nb)
    states = np.empty((nb, 4), dtype=np.uint64)
    for b, c in enumerate(children):
        s = c.generate_state(4, np.uint64)
        if not s.any():  # xoshiro's one forbidden state
            s[0] = 1
        states[b] = s
    return states


@dataclass(frozen=True)
class SimulationResult:
    """Counts of a simulation of A against B, with an interval for A's overall win rate.

    ``a_overall`` is A's share of all games (first move alternating); ``ci_low``/``ci_high`` its
    Wilson interval at ``confidence``; ``exact_a_overall`` the exact value from
    :func:`dicelab.pig.evaluation.evaluate` for the same split of first moves.
    """

    a: str
    b: str
    games: int
    seed: int
    a_wins: int
    b_wins: int
    stalemates: int
    a_first_games: int
    a_wins_a_first: int
    b_wins_b_first: int
    a_overall: float
    ci_low: float
    ci_high: float
    confidence: float
    exact_a_overall: float | None
    inside: bool | None
    seconds: float
    games_per_second: float
    records: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def simulate(
    a: Any,
    b: Any,
    rules: PigRules | None = None,
    games: int = 100_000,
    seed: int = 0,
    records: str | Path | None = None,
    confidence: float = 0.95,
    exact: bool = True,
    backend: str | None = None,
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
) -> SimulationResult:
    """Play ``games`` games of ``a`` against ``b`` (first move alternating), reproducibly.

    ``exact=True`` also computes the exact expectation and says whether it lies inside the
    interval. ``records`` writes one row per turn to that Parquet file. ``backend`` (``"local"``,
    ``"dask"``, ``"ray"``; see :mod:`dicelab.core.backends`) spreads the batches over worker
    processes or a cluster, with the same counts.
    """
    rules = rules or PigRules()
    require(
        isinstance(games, int) and 1 <= games <= MAX_GAMES,
        f"games must be a whole number from 1 to {MAX_GAMES}, got {games}",
    )
    require(isinstance(seed, int) and seed >= 0, f"seed must be a whole number >= 0, got {seed}")
    sa, sb = as_strategy(a), as_strategy(b)
    T = np.ascontiguousarray(np.stack([sa.table(rules), sb.table(rules)]))
    gain, kind = _atoms(rules)
    states = batch_states(seed, games)
    t0 = time.perf_counter()
    if backend is not None:
        require(records is None, "--records is written by the single-process run; drop --backend")
        counts = pig_counts(T, rules, games, seed, backend, address, workers, store)
    elif records is None:
        per_batch = np.zeros((len(states), 6), dtype=np.int64)
        _play_all(T, gain, kind, states, games, BATCH, per_batch)
        counts = per_batch.sum(axis=0)
    else:
        require(
            games <= MAX_RECORD_GAMES,
            f"per-turn records are kept for at most {MAX_RECORD_GAMES} games, got {games}",
        )
        counts = _simulate_records(T, gain, kind, states, games, Path(records))
    seconds = time.perf_counter() - t0
    a_first_games = (games + 1) // 2
    a_wins = int(counts[0] + counts[3])
    b_wins = int(counts[1] + counts[4])
    stalemates = int(counts[2] + counts[5])
    lo, hi = st.wilson_interval(a_wins, games, confidence)
    exact_value: float | None = None
    inside: bool | None = None
    if exact:
        from dicelab.pig.evaluation import evaluate

        e = evaluate(sa, sb, rules)
        exact_value = (a_first_games * e.a_first + (games - a_first_games) * e.a_second) / games
        inside = bool(lo <= exact_value <= hi)
    return SimulationResult(
        sa.name,
        sb.name,
        games,
        seed,
        a_wins,
        b_wins,
        stalemates,
        a_first_games,
        int(counts[0]),
        int(counts[4]),
        a_wins / games,
        lo,
        hi,
        confidence,
        exact_value,
        inside,
        seconds,
        games / seconds if seconds > 0 else float("inf"),
        str(records) if records is not None else None,
    )


def _simulate_records(
    T: np.ndarray, gain: np.ndarray, kind: np.ndarray, states: np.ndarray, games: int, path: Path
) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = ("game", "turn", "player", "score", "opponent_score", "turn_total", "rolls")
    schema = pa.schema(
        [(n, pa.int64()) for n in names] + [("action", pa.dictionary(pa.int8(), pa.string()))]
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    total = np.zeros(6, dtype=np.int64)
    actions = pa.array(ACTIONS)
    with pq.ParquetWriter(path, schema) as writer:
        for bi in range(len(states)):
            start = bi * BATCH
            m = min(BATCH, games - start)
            cap = m * 12
            while True:
                counts = np.zeros(6, dtype=np.int64)
                rec = np.zeros((cap, 8), dtype=np.int64)
                n = _play_batch(T, gain, kind, states[bi].copy(), start, m, counts, True, rec, cap)
                if n >= 0:
                    break
                cap *= 2
            total += counts
            act = pa.DictionaryArray.from_arrays(pa.array(rec[:n, 7].astype(np.int8)), actions)
            cols = [pa.array(rec[:n, c]) for c in range(7)] + [act]
            writer.write_table(pa.Table.from_arrays(cols, schema=schema))
    return total


#: The ten hold-at pairs of seed 002's Figure 17.
FIGURE_17_PAIRS = (
    (20, 21),
    (15, 20),
    (1, 80),
    (1, 5),
    (80, 85),
    (45, 55),
    (1, 100),
    (36, 52),
    (5, 21),
    (13, 31),
)


def _repeat_states(seed: int, repeats: int) -> np.ndarray:
    """One xoshiro256** state per repeat: the children of ``SeedSequence(seed)``."""
    states = np.empty((repeats, 4), dtype=np.uint64)
    for r, c in enumerate(np.random.SeedSequence(seed).spawn(repeats)):
        st = c.generate_state(4, np.uint64)
        if not st.any():
            st[0] = 1
        states[r] = st
    return states


MAX_REPEATS = 10_000
MAX_PATH_GAMES = 100_000


def fair_test(
    pairs: Any = None,
    rules: PigRules | None = None,
    games: int = 3000,
    seed: int = 0,
    confidence: float = 0.95,
    repeats: int = 1,
) -> list[dict[str, Any]]:
    """Seed 002's fair test (Figure 17): simulated against exact values, pair by pair.

    ``pairs``: (A, B) strategy pairs (default: Figure 17's hold-at pairs). Each pair plays
    ``games`` games with seed child ``p`` of ``SeedSequence(seed)``. A row holds the exact
    ``a_first``, ``b_first``, ``a_overall``, the simulated ones, the deviation of the overall
    value, the Wilson interval of the simulated overall value and ``inside``: whether the exact
    value lies in it (at 95% about one pair in twenty falls outside by chance alone).

    ``repeats > 1`` (seed 002, Figure 16: "100 results of 3000 games"): each pair also plays
    ``repeats`` independent ``games``-game tests (generators: the children of
    ``SeedSequence(pair seed)``), and the row adds ``repeat_overall`` (A's overall rate in each),
    their mean, standard deviation, range and how many of the tests' intervals hold the exact
    value, beside ``binomial_sd``, the standard deviation the binomial law gives one test,
    sqrt(p (1 - p) / games) with the exact p (a game against itself: 0.5 / sqrt(games)).
    """
    from dicelab.pig.evaluation import evaluate

    require(
        isinstance(repeats, int) and 1 <= repeats <= MAX_REPEATS,
        f"repeats must be a whole number from 1 to {MAX_REPEATS}, got {repeats}",
    )
    rules = rules or PigRules()
    if pairs is None:
        pairs = [(f"hold:{a}", f"hold:{b}") for a, b in FIGURE_17_PAIRS]
    seeds = np.random.SeedSequence(seed).spawn(len(pairs))
    rows = []
    for (a, b), ss in zip(pairs, seeds, strict=True):
        e = evaluate(as_strategy(a), as_strategy(b), rules)
        r = simulate(
            a,
            b,
            rules,
            games=games,
            confidence=confidence,
            exact=False,
            seed=int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1)),
        )
        nb = r.games - r.a_first_games
        sim_a_first = r.a_wins_a_first / r.a_first_games
        sim_b_first = r.b_wins_b_first / nb if nb else float("nan")
        exact_overall = (r.a_first_games * e.a_first + nb * e.a_second) / r.games
        rows.append(
            {
                "a": r.a,
                "b": r.b,
                "a_first": e.a_first,
                "b_first": e.b_first,
                "a_overall": exact_overall,
                "sim_a_first": sim_a_first,
                "sim_b_first": sim_b_first,
                "sim_a_overall": r.a_overall,
                "deviation": abs(r.a_overall - exact_overall),
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "inside": bool(r.ci_low <= exact_overall <= r.ci_high),
            }
        )
        if repeats > 1:
            rows[-1].update(_repeat_row(a, b, rules, games, r.seed, repeats, confidence))
    return rows


def _repeat_row(
    a: Any, b: Any, rules: PigRules, games: int, seed: int, repeats: int, confidence: float
) -> dict[str, Any]:
    """Figure 16's columns for one pair: ``repeats`` independent ``games``-game tests."""
    from dicelab.pig.evaluation import evaluate

    sa, sb = as_strategy(a), as_strategy(b)
    e = evaluate(sa, sb, rules)
    T = np.ascontiguousarray(np.stack([sa.table(rules), sb.table(rules)]))
    gain, kind = _atoms(rules)
    counts = np.zeros((repeats, 6), dtype=np.int64)
    _repeat_counts(T, gain, kind, _repeat_states(seed, repeats), games, counts)
    a_first = (games + 1) // 2  # A moves first in the even-numbered games
    exact = (a_first * e.a_first + (games - a_first) * e.a_second) / games
    wins = counts[:, 0] + counts[:, 3]
    rates = wins / games
    inside = 0
    for w in wins.tolist():
        lo, hi = st.wilson_interval(int(w), games, confidence)
        inside += lo <= exact <= hi
    return {
        "repeats": repeats,
        "repeat_overall": rates.tolist(),
        "repeat_mean": float(rates.mean()),
        "repeat_sd": float(rates.std(ddof=1)),
        "repeat_min": float(rates.min()),
        "repeat_max": float(rates.max()),
        "repeat_inside": int(inside),
        "binomial_sd": float(np.sqrt(exact * (1.0 - exact) / games)),
    }


def fair_test_convergence(
    a: Any = "hold:25",
    b: Any = None,
    rules: PigRules | None = None,
    max_games: int = 4000,
    repeats: int = 100,
    seed: int = 0,
    band: float = 0.025,
) -> dict[str, Any]:
    """Seed 002's Figure 15: A's estimated win rate after n = 1 .. ``max_games`` games, repeated.

    Each repeat plays one run of ``max_games`` games (first move alternating, A first in game
    0; generator: child r of ``SeedSequence(seed)``), and its estimate after n games is the
    share of the first n won by A: every n sees an n-game sample with the same law as n fresh
    games (the seed ran fresh games for every n, 8e8 of them at 4,000 x 100; this needs 4e5),
    though the estimates of one repeat at neighbouring n are not independent. ``b`` defaults to
    ``a`` (the seed's strategy against itself). Returns ``n``, the ``estimates`` (repeats x
    max_games), the exact expectation at each n, the binomial law's standard deviation at each
    n, the spread of the estimates (their standard deviation and 2.5 / 50 / 97.5% quantiles per
    n) and the share within ``band`` of the exact value.
    """
    from dicelab.pig.evaluation import evaluate

    require(
        isinstance(max_games, int) and 1 <= max_games <= MAX_PATH_GAMES,
        f"max_games must be a whole number from 1 to {MAX_PATH_GAMES}, got {max_games}",
    )
    require(
        isinstance(repeats, int) and 2 <= repeats <= MAX_REPEATS,
        f"repeats must be a whole number from 2 to {MAX_REPEATS}, got {repeats}",
    )
    require(isinstance(seed, int) and seed >= 0, f"seed must be a whole number >= 0, got {seed}")
    require(0.0 < band < 0.5, f"band must lie strictly between 0 and 0.5, got {band}")
    rules = rules or PigRules()
    b = a if b is None else b
    sa, sb = as_strategy(a), as_strategy(b)
    e = evaluate(sa, sb, rules)
    T = np.ascontiguousarray(np.stack([sa.table(rules), sb.table(rules)]))
    gain, kind = _atoms(rules)
    t0 = time.perf_counter()
    wins = np.zeros((repeats, max_games), dtype=np.int64)
    _win_paths(T, gain, kind, _repeat_states(seed, repeats), max_games, wins)
    seconds = time.perf_counter() - t0
    n = np.arange(1, max_games + 1)
    est = wins / n[None, :]
    a_first = (n + 1) // 2
    exact = (a_first * e.a_first + (n - a_first) * e.a_second) / n
    q = np.quantile(est, [0.025, 0.5, 0.975], axis=0)
    return {
        "a": sa.name,
        "b": sb.name,
        "rules": rules.to_dict(),
        "max_games": max_games,
        "repeats": repeats,
        "seed": seed,
        "band": band,
        "n": n,
        "estimates": est,
        "exact": exact,
        "binomial_sd": np.sqrt(exact * (1.0 - exact) / n),
        "sd": est.std(axis=0, ddof=1),
        "q025": q[0],
        "median": q[1],
        "q975": q[2],
        "within_band": (np.abs(est - exact[None, :]) <= band).mean(axis=0),
        "seconds": seconds,
    }


# --------------------------------------------------------------------------------------------
# the simulation's batches as tasks for dicelab.core.backends (same counts, bit for bit)


def pig_sim_task(params: dict[str, Any]) -> dict[str, Any]:
    """Batches ``[b0, b1)`` of a Pig simulation; returns the six counters of ``_play_all``."""
    rules = PigRules(**params["rules"])
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
    """The six counters of :func:`dicelab.pig.simulation.simulate` for decision tables ``(2, g, g, g)``."""
    nb = (games + BATCH - 1) // BATCH
    enc = encode_tables(tables)
    base = {"rules": rules.to_dict(), "tables": enc, "games": games, "seed": seed}
    tag = task_tag(enc)
    tasks = batch_tasks(f"pig-sim-{tag}-{seed}-{games}", base, nb, BATCHES_PER_TASK)
    results = run_job(pig_sim_task, tasks, "simulating", backend, address, workers, store, progress)
    return np.sum([r["counts"] for r in results], axis=0).astype(np.int64)
