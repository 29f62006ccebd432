"""Exact best responses in simultaneous Pig for many players, sharded by score layers on disk.

Solves the Bellman equations of :func:`dicelab.simpig.solver.best_response` layer by layer of
opponent-score sums, shards in parallel on any backend of :mod:`dicelab.core.backends`, values in
zarr and resumable; :func:`estimate` gives disk, memory and work before a run. The method and its
limits are in ``docs/methods/simpig.md``.
"""

from __future__ import annotations

import json
import os
import resource
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core import env
from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.simpig.rules import SimPigRules, turn_total_table
from dicelab.simpig.solver import symmetric_opponents
from dicelab.simpig.strategies import (
    SimPigStrategy,
    check_goal,
    hold_strategy,
    strategy_from_json,
)

FORMAT = 1
MAX_KEYS = 2**31 - 1
SHARD_KEYS_BUDGET = 2**21  # successor keys a shard may enumerate (bounds a worker's memory)


def cache_bytes() -> int:
    """The bytes of column chunks a solve keeps (``DICELAB_SHARD_CACHE_MB``, checked by core.env)."""
    return env.whole_number("DICELAB_SHARD_CACHE_MB") * 2**20


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _outcomes(g, pk, p0, ok, ow, r, i, J, oj, op, on):
    """Opponent outcome lists at state (i, J[r]) in the in-memory pass's order; returns q0all."""
    m = J.shape[1]
    ncomp = ok.shape[1]
    q0all = 1.0
    for o in range(m):
        jo = J[r, o]
        cnt = 0
        q0 = 0.0
        for c in range(ncomp):
            w = ow[o, c, r, i]
            if w == 0.0:
                continue
            k = ok[o, c, r, i]
            q0 += w * p0[k]
            for rr in range(6):
                p = w * pk[k, rr]
                if p > 0.0:
                    jj = jo + k + rr
                    jj = min(jj, g)
                    oj[o, cnt] = jj
                    op[o, cnt] = p
                    cnt += 1
        oj[o, cnt] = jo
        op[o, cnt] = q0
        cnt += 1
        on[o] = cnt
        q0all *= q0
    return q0all


@njit(cache=True)
def _shard_kernel(
    g,
    J,
    ok,
    ow,
    p0,
    pk,
    symmetric,
    keys,
    key_rows,
    vloc,
    self_rows,
    collect,
    out_keys,
    val_out,
    pol_out,
):
    """Solve the columns ``J`` of one shard (``collect``: only list the successor keys needed).

    ``vloc[row, ii]`` holds V at A's score ``ii`` (``g`` = reached) for the successor columns
    (row ``key_rows[searchsorted(keys, key)]``) and the shard's own columns (``self_rows``).
    Returns the number of keys written to ``out_keys`` when collecting.
    """
    R, m = J.shape
    b = g + 1
    ncomp = ok.shape[1]
    oj = np.empty((m, 6 * ncomp + 1), np.int64)
    op = np.empty((m, 6 * ncomp + 1))
    on = np.empty(m, np.int64)
    maxc = 1
    for o in range(m):
        maxc *= 6 * ncomp + 1
    c_row = np.empty(maxc, np.int64)
    c_p = np.empty(maxc)
    odo = np.empty(m, np.int64)
    tmp = np.empty(m, np.int64)
    u = np.empty(g + 1)
    n_out = 0
    poj = np.full((m, 6 * ncomp + 1), -1, np.int64)  # the previous state's outcome lists
    pon = np.zeros(m, np.int64)
    for r in range(R):
        srow = self_rows[r]
        for i in range(g - 1, -1, -1):
            q0all = _outcomes(g, pk, p0, ok, ow, r, i, J, oj, op, on)
            if collect:  # the same opponent outcomes as the previous state need the same keys
                same = i < g - 1
                for o in range(m):
                    if on[o] != pon[o]:
                        same = False
                    for x in range(on[o]):
                        if oj[o, x] != poj[o, x]:
                            same = False
                        poj[o, x] = oj[o, x]
                    pon[o] = on[o]
                if same:
                    continue
            for o in range(m):
                odo[o] = 0
            nc = 0
            while True:
                p = 1.0
                allzero = True
                for o in range(m):
                    p *= op[o, odo[o]]
                    tmp[o] = oj[o, odo[o]]
                    if odo[o] != on[o] - 1:
                        allzero = False
                if symmetric:
                    for x in range(1, m):
                        y = tmp[x]
                        z = x - 1
                        while z >= 0 and tmp[z] > y:
                            tmp[z + 1] = tmp[z]
                            z -= 1
                        tmp[z + 1] = y
                if not allzero and p > 0.0:
                    off = 0
                    for o in range(m):
                        off = off * b + tmp[o]
                    if collect:
                        out_keys[n_out] = off
                        n_out += 1
                    else:
                        c_row[nc] = key_rows[np.searchsorted(keys, off)]
                        c_p[nc] = p
                        nc += 1
                o = m - 1
                while o >= 0:
                    odo[o] += 1
                    if odo[o] < on[o]:
                        break
                    odo[o] = 0
                    o -= 1
                if o < 0:
                    break
            if collect:
                continue
            for ii in range(i, g + 1):
                u[ii] = 0.0
            for c in range(nc):  # the same additions, in the same order, as the in-memory pass
                row = c_row[c]
                pc = c_p[c]
                for ii in range(i, g + 1):
                    u[ii] += pc * vloc[row, ii]
            for ii in range(i + 1, g + 1):
                u[ii] += q0all * vloc[srow, ii]
            bestv = -1.0
            bestk = 1
            for k in range(1, g - i + 1):
                r_k = p0[k] * u[i]
                for rr in range(6):
                    ii = i + k + rr
                    ii = min(ii, g)
                    r_k += pk[k, rr] * u[ii]
                val = r_k / (1.0 - p0[k] * q0all)
                if val > bestv + 1e-15:
                    bestv = val
                    bestk = k
            vloc[srow, i] = bestv
            val_out[r, i] = bestv
            pol_out[r, i] = bestk
    return n_out


# --------------------------------------------------------------------------------------------
# the layout: columns, layers, rows
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Which columns exist, which layer each is in and its row there (keys in base ``goal``)."""

    goal: int
    m: int
    symmetric: bool
    layer_keys: tuple[np.ndarray, ...]  # layer S -> sorted keys (base goal) of its columns
    layer_of: np.ndarray  # key -> layer (or -1 for a non-canonical key)
    row_of: np.ndarray  # key -> row in its layer


@lru_cache(maxsize=4)
def layout(goal: int, m: int, symmetric: bool) -> Layout:
    """The columns of the non-terminal states, grouped by layer ``S = sum(J)``."""
    g = goal
    n_keys = g**m
    require(
        n_keys <= MAX_KEYS,
        f"{m + 1} players at goal {g} have more than {MAX_KEYS} opponent-score columns",
    )
    keys = np.arange(n_keys, dtype=np.int64)
    coords = np.stack(np.unravel_index(keys, (g,) * m)) if m > 1 else keys[None, :]
    ok = np.ones(n_keys, dtype=bool)
    if symmetric:
        for o in range(1, m):
            ok &= coords[o - 1] <= coords[o]
    sums = coords.sum(axis=0)
    layer_of = np.where(ok, sums, -1).astype(np.int32)
    row_of = np.full(n_keys, -1, dtype=np.int64)
    layers = []
    for s in range(m * (g - 1) + 1):
        ks = keys[layer_of == s]
        row_of[ks] = np.arange(len(ks))
        layers.append(ks)
    return Layout(g, m, symmetric, tuple(layers), layer_of, row_of)


def _strategy_arrays(
    strats: list[SimPigStrategy], g: int, J: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Targets ``ok[o, c, r, i]`` and weights ``ow[o, c, r, i]`` of every opponent at (i, J[r])."""
    R, m = J.shape
    i = np.arange(g)[None, :]
    mixes = []
    for o, s in enumerate(strats):
        own = J[:, o][:, None]
        others = [i] + [J[:, x][:, None] for x in range(m) if x != o]
        mixes.append(s.mixture(own, others))
    ncomp = max(len(mx) for mx in mixes)
    ok = np.ones((m, ncomp, R, g), np.int64)
    ow = np.zeros((m, ncomp, R, g))
    for o, mx in enumerate(mixes):
        for c, (w, k) in enumerate(mx):
            ok[o, c] = np.broadcast_to(np.minimum(np.maximum(k, 1), g), (R, g))
            ow[o, c] = np.broadcast_to(np.asarray(w, dtype=float), (R, g))
    return ok, ow


def _check_opponents(opponents: list[SimPigStrategy], goal: int) -> bool:
    """Check the rules and the opponents' goal; say whether the symmetry shortcut applies."""
    SimPigRules(goal=goal, players=len(opponents) + 1)
    for s in opponents:
        check_goal(s, goal)
    return symmetric_opponents(opponents)


def _keys_per_column(strats: list[SimPigStrategy], g: int) -> int:
    """An upper estimate of the successor columns one column needs (for the shard size)."""
    own, lead = np.indices((g, g))
    est = 1
    for s in strats:
        mix = s.mixture(own, [lead] + [lead] * (len(strats) - 1))
        distinct = 0
        for row in range(g):
            ks = set()
            for _, k in mix:
                ks.update(np.unique(np.broadcast_to(k, (g, g))[row]).tolist())
            distinct = max(distinct, len(ks))
        est *= 6 * distinct + 1
    return est


# --------------------------------------------------------------------------------------------
# one shard (runs on a worker)
# --------------------------------------------------------------------------------------------

_chunk_cache: OrderedDict[tuple[str, int, int], np.ndarray] = OrderedDict()
_cache_bytes = 0


def _read_rows(group: Any, token: str, layer: int, rows: np.ndarray, chunk_rows: int) -> np.ndarray:
    """Rows of ``value/layer`` through the per-process chunk cache."""
    global _cache_bytes
    out = np.empty((len(rows), group.attrs["goal"]))
    chunks = rows // chunk_rows
    arr = None
    for c in np.unique(chunks):
        key = (token, layer, int(c))
        block = _chunk_cache.get(key)
        if block is None:
            if arr is None:
                arr = group[f"value/{layer}"]
            block = np.asarray(arr[int(c) * chunk_rows : (int(c) + 1) * chunk_rows])
            _chunk_cache[key] = block
            _cache_bytes += block.nbytes
            while _cache_bytes > cache_bytes() and len(_chunk_cache) > 1:
                _, old = _chunk_cache.popitem(last=False)
                _cache_bytes -= old.nbytes
        else:
            _chunk_cache.move_to_end(key)
        sel = chunks == c
        out[sel] = block[rows[sel] - int(c) * chunk_rows]
    return out


def solve_shard(params: dict[str, Any]) -> dict[str, Any]:
    """Solve rows ``[start, stop)`` of layer ``layer`` and write them to the zarr store."""
    import zarr

    t0 = time.perf_counter()
    g, layer, start, stop = params["goal"], params["layer"], params["start"], params["stop"]
    group = zarr.open_group(params["path"], mode="r+")
    strats = [strategy_from_json(o) for o in params["opponents"]]
    symmetric = _check_opponents(strats, g)
    m = len(strats)
    lay = layout(g, m, symmetric)
    keys_g = lay.layer_keys[layer][start:stop]
    J = (
        np.stack(np.unravel_index(keys_g, (g,) * m), axis=1).astype(np.int64)
        if m > 1
        else keys_g[:, None].copy()
    )
    R = len(J)
    ok, ow = _strategy_arrays(strats, g, J)
    p0, pk = turn_total_table(g)
    b = g + 1
    # pass 1: the successor columns this shard needs
    per = 1
    for o in range(m):
        per *= 6 * ok.shape[1] + 1
    out_keys = np.empty(R * g * per, np.int64)
    dummy_f = np.zeros((1, 1))
    dummy_i = np.zeros((1, 1), np.int16)
    n_out = _shard_kernel(
        g,
        J,
        ok,
        ow,
        p0,
        pk,
        symmetric,
        np.zeros(1, np.int64),
        np.zeros(1, np.int64),
        dummy_f,
        np.zeros(R, np.int64),
        True,
        out_keys,
        dummy_f,
        dummy_i,
    )
    succ = np.unique(out_keys[:n_out])
    del out_keys
    own_b = (J * (b ** np.arange(m - 1, -1, -1))).sum(axis=1)  # own keys in base goal + 1
    succ = np.setdiff1d(succ, own_b)
    # values of the successor columns: terminal ones in closed form, others from the layers above
    sc = np.stack(np.unravel_index(succ, (b,) * m), axis=1) if m > 1 else succ[:, None]
    at_goal = (sc == g).sum(axis=1)
    vloc = np.zeros((len(succ) + R, b))
    vloc[:, g] = 1.0
    term = at_goal > 0
    vloc[: len(succ)][term, g] = 1.0 / (1.0 + at_goal[term])
    live = np.flatnonzero(~term)
    if len(live):
        kg = (sc[live] * (g ** np.arange(m - 1, -1, -1))).sum(axis=1)
        layers_needed = lay.layer_of[kg]
        require(
            bool(np.all(layers_needed > layer)),
            "internal error: a successor column is not above its layer",
        )
        rows_needed = lay.row_of[kg]
        for s in np.unique(layers_needed):
            sel = layers_needed == s
            vloc[live[sel], :g] = _read_rows(
                group, params["token"], int(s), rows_needed[sel], params["chunk_rows"]
            )
    keys = np.concatenate([succ, own_b])
    key_rows = np.arange(len(keys), dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    keys, key_rows = np.ascontiguousarray(keys[order]), np.ascontiguousarray(key_rows[order])
    val = np.empty((R, g))
    pol = np.empty((R, g), np.int16)
    _shard_kernel(
        g,
        J,
        ok,
        ow,
        p0,
        pk,
        symmetric,
        keys,
        key_rows,
        vloc,
        np.arange(len(succ), len(succ) + R, dtype=np.int64),
        False,
        np.zeros(1, np.int64),
        val,
        pol,
    )
    group[f"value/{layer}"][start:stop] = val
    group[f"policy/{layer}"][start:stop] = pol
    return {
        "layer": layer,
        "rows": R,
        "successors": len(succ),
        "seconds": time.perf_counter() - t0,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


# --------------------------------------------------------------------------------------------
# the driver
# --------------------------------------------------------------------------------------------


@dataclass
class ShardedBestResponse:
    """A best response kept on disk: ``value(i, j_1, ..., j_m)``, ``target(...)``, ``to_dense()``."""

    path: Path
    goal: int
    players: int
    opponents: list[str]
    symmetric: bool
    win_probability: float
    seconds: float
    shards: int
    layers: int
    max_worker_rss_mb: float
    disk_bytes: int
    meta: dict[str, Any] = field(default_factory=dict)

    def _lookup(self, i: int, scores: tuple[int, ...], name: str) -> float:
        import zarr

        g, m = self.goal, self.players - 1
        require(len(scores) == m, f"give {m} opponent scores, got {len(scores)}")
        if i >= g or any(j >= g for j in scores):
            raise DicelabError(
                "a state where someone has reached the goal is terminal; it has no stored value"
            )
        js = tuple(sorted(scores)) if self.symmetric else tuple(scores)
        lay = layout(g, m, self.symmetric)
        key = int(np.ravel_multi_index(js, (g,) * m))
        group = zarr.open_group(str(self.path / "solution.zarr"), mode="r")
        return group[f"{name}/{int(lay.layer_of[key])}"][int(lay.row_of[key]), i].item()

    def value(self, i: int, *scores: int) -> float:
        """A's win probability at A's score ``i`` and the opponents' ``scores``."""
        return float(self._lookup(i, tuple(scores), "value"))

    def target(self, i: int, *scores: int) -> int:
        """A's optimal hold-at target there."""
        return int(self._lookup(i, tuple(scores), "policy"))

    def to_dense(self) -> tuple[np.ndarray, np.ndarray]:
        """The whole ``(goal + 1)^players`` value and policy tables (small sizes only), laid out as
        :func:`dicelab.simpig.solver.best_response` lays them out."""
        import zarr

        g, n, m = self.goal, self.players, self.players - 1
        require((g + 1) ** n <= 5e7, "to_dense is for small tables; read value(...) instead")
        lay = layout(g, m, self.symmetric)
        group = zarr.open_group(str(self.path / "solution.zarr"), mode="r")
        v = np.zeros((g + 1,) * n)
        pol = np.zeros((g + 1,) * n, np.int16)
        idx = np.indices((g + 1,) * n).reshape(n, -1)
        at = (idx == g).sum(axis=0)
        v.reshape(-1)[:] = np.where(idx[0] == g, 1.0 / np.maximum(at, 1), 0.0)
        inner = np.flatnonzero(np.all(idx < g, axis=0))
        js = idx[1:, inner]
        if self.symmetric:
            js = np.sort(js, axis=0)
        kg = np.ravel_multi_index(tuple(js), (g,) * m)
        layers, rows = lay.layer_of[kg], lay.row_of[kg]
        for s in np.unique(layers):
            sel = layers == s
            vals = np.asarray(group[f"value/{s}"][:])
            pols = np.asarray(group[f"policy/{s}"][:])
            v.reshape(-1)[inner[sel]] = vals[rows[sel], idx[0, inner[sel]]]
            pol.reshape(-1)[inner[sel]] = pols[rows[sel], idx[0, inner[sel]]]
        return v, pol


def estimate(
    players: int, goal: int, opponents: list[SimPigStrategy] | None = None
) -> dict[str, float]:
    """Disk, per-worker memory and work of a sharded solve, before running it.

    ``opponents`` defaults to ``hold:25`` (``hold:goal`` below goal 25) in every other seat.
    """
    strats = opponents or [hold_strategy(min(25, goal), goal)] * (players - 1)
    symmetric = _check_opponents(strats, goal)
    m = players - 1
    columns = float(goal) ** m
    if symmetric:
        from math import comb

        columns = float(comb(goal + m - 1, m))
    per_col = _keys_per_column(strats, goal)
    rows = _chunk_rows(per_col, goal)
    index = float(goal) ** m * (4 + 8)  # layer and row of every opponent-score column (Layout)
    return {
        "states": columns * goal,
        "disk_bytes": columns * goal * 10,  # float64 value + int16 policy, before compression
        "shard_rows": rows,
        "worker_bytes": rows * goal * per_col * 8 + min(cache_bytes(), columns * goal * 8) + index,
        "multiply_adds": columns * goal * (goal / 2 + 1) * per_col,
    }


def _chunk_rows(per_col: int, g: int) -> int:
    rows = max(1, SHARD_KEYS_BUDGET // max(1, per_col * g))
    return int(min(4096, 2 ** int(np.log2(rows))))


def best_response_sharded(
    opponents: list[SimPigStrategy],
    goal: int = 100,
    path: str | os.PathLike[str] = "simpig-br",
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> ShardedBestResponse:
    """Player A's exact best response to independent opponents, layer by layer on disk.

    ``path`` is a folder (created, or resumed when it holds an unfinished solve of the same
    problem). See the module docstring for the method; the answer equals
    :func:`dicelab.simpig.solver.best_response`'s.
    """
    import zarr

    from dicelab.core.backends import ResultStore, Session, Task
    from dicelab.core.progress import progress_bar

    strats = list(opponents)
    symmetric = _check_opponents(strats, goal)
    specs = [s.spec for s in strats]
    g, m = goal, len(strats)
    n = m + 1
    root = Path(path)
    zpath = root / "solution.zarr"
    problem = {
        "goal": g,
        "players": n,
        "opponents": specs,
        "symmetric": symmetric,
        "format": FORMAT,
    }
    lay = layout(g, m, symmetric)
    per_col = _keys_per_column(strats, g)
    chunk_rows = _chunk_rows(per_col, g)
    if zpath.exists():
        group = zarr.open_group(str(zpath), mode="r+")
        stored = {k: group.attrs.get(k) for k in problem}
        if stored != problem:
            raise DicelabError(
                f"{root} holds another best response ({json.dumps(stored)}); use another --store folder"
            )
        token, chunk_rows = group.attrs["token"], group.attrs["chunk_rows"]
    else:
        root.mkdir(parents=True, exist_ok=True)
        group = zarr.open_group(str(zpath), mode="w")
        token = uuid.uuid4().hex
        group.attrs.update({**problem, "token": token, "chunk_rows": chunk_rows})
        for s, ks in enumerate(lay.layer_keys):
            group.create_array(
                f"value/{s}", shape=(len(ks), g), chunks=(chunk_rows, g), dtype="f8", fill_value=0.0
            )
            group.create_array(
                f"policy/{s}", shape=(len(ks), g), chunks=(chunk_rows, g), dtype="i2", fill_value=0
            )
    base = {
        "path": str(zpath),
        "goal": g,
        "opponents": [s.to_json() for s in strats],
        "token": token,
        "chunk_rows": chunk_rows,
    }
    layers = [(s, len(ks)) for s, ks in enumerate(lay.layer_keys)]
    total_rows = sum(c for _, c in layers)
    t0 = time.perf_counter()
    shards = 0
    rss = 0.0
    results_store = ResultStore(
        root / "tasks", f"{solve_shard.__module__}.{solve_shard.__qualname__}"
    )
    with (
        Session(backend, address, workers) as session,
        progress_bar(f"best response, {n} players", total=total_rows, enabled=progress) as bar,
    ):
        for s, count in reversed(layers):
            tasks = [
                Task(
                    f"L{s}-{r0}",
                    {**base, "layer": s, "start": r0, "stop": min(count, r0 + chunk_rows)},
                )
                for r0 in range(0, count, chunk_rows)
            ]
            results = session.run(
                solve_shard,
                tasks,
                store=results_store,
                progress=False,
                on_result=lambda key, res: bar.advance(res["rows"]),
            )
            shards += len(tasks)
            rss = max([rss] + [r["max_rss_mb"] for r in results])
    seconds = time.perf_counter() - t0
    win = float(np.asarray(group["value/0"][0, 0]))
    disk = sum(f.stat().st_size for f in zpath.rglob("*") if f.is_file())
    return ShardedBestResponse(
        root,
        g,
        n,
        specs,
        symmetric,
        win,
        seconds,
        shards,
        len(layers),
        rss,
        disk,
        {"chunk_rows": chunk_rows, "successors_per_column": per_col},
    )


def sharded_report(
    opponents: list[SimPigStrategy],
    goal: int,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """``dicelab simpig best-response ... --backend``: solve, and report what the CLI prints.

    Without ``store`` a new temporary folder is used, which only works when the workers share
    this machine's disk (the local backend, or Dask without ``--address``).
    """
    if store is None:
        require(address is None, "give --store, a folder every worker of the cluster can reach")
        import tempfile

        store = tempfile.mkdtemp(prefix="dicelab-simpig-")
    res = best_response_sharded(
        opponents, goal, store, backend=backend, address=address, workers=workers, progress=progress
    )
    return {
        "players": res.players,
        "opponents": res.opponents,
        "goal": goal,
        "win_probability": res.win_probability,
        "seconds": res.seconds,
        "store": str(res.path),
        "symmetric": res.symmetric,
        "layers": res.layers,
        "shards": res.shards,
        "max_worker_rss_mb": res.max_worker_rss_mb,
        "disk_bytes": res.disk_bytes,
    }
