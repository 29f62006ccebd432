"""The sharded n-player best response (score layers on zarr) equals the in-memory pass bit for bit,
on any backend, and resumes an interrupted solve."""

from __future__ import annotations

import functools
import logging

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.simpig import sharded as sh
from dicelab.simpig.solver import best_response

CASES = [
    (["hold:4", "hold:5"], 12),  # three players, different opponents
    (
        ["hold:3", "hold:3", "hold:3"],
        9,
    ),  # four players, one symmetric strategy: sorted columns only
    (["pw:3<5,goal", "mix:1/2*hold:2+1/2*hold:6"], 10),  # state-dependent and mixed opponents
]


@pytest.mark.parametrize(("opponents", "goal"), CASES)
def test_sharded_equals_in_memory_bit_for_bit(opponents, goal, tmp_path):
    ref = best_response(opponents, goal=goal)
    res = sh.best_response_sharded(
        opponents, goal=goal, path=tmp_path / "br", workers=1, progress=False
    )
    value, policy = res.to_dense()
    assert np.array_equal(value, ref.value)
    assert np.array_equal(policy, ref.policy)
    assert res.win_probability == ref.win_probability
    assert res.symmetric == (len(set(opponents)) == 1)
    j = tuple(range(1, len(opponents) + 1))
    assert res.value(2, *j) == ref.value[(2, *j)] and res.target(2, *j) == ref.policy[(2, *j)]


def test_sharded_on_a_dask_cluster_and_a_process_pool(tmp_path):
    from dask import distributed  # the dask extra: installed by `make install`, no silent skip
    opponents, goal = ["hold:3", "hold:4", "hold:5"], 8
    ref = best_response(opponents, goal=goal)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        on_dask = sh.best_response_sharded(
            opponents,
            goal=goal,
            path=tmp_path / "d",
            backend="dask",
            address=cluster.scheduler_address,
            progress=False,
        )
    pooled = sh.best_response_sharded(
        opponents, goal=goal, path=tmp_path / "p", workers=2, progress=False
    )
    for res in (on_dask, pooled):
        assert np.array_equal(res.to_dense()[0], ref.value)


class Interrupted(Exception):
    pass


def test_an_interrupted_solve_resumes(tmp_path, monkeypatch):
    opponents, goal = ["hold:4", "hold:5"], 12
    real = sh.solve_shard
    calls: list[str] = []
    interrupt = [True]

    @functools.wraps(real)
    def flaky(params):
        calls.append(f"L{params['layer']}-{params['start']}")
        if interrupt[0] and len(calls) == 7:
            raise Interrupted
        return real(params)

    monkeypatch.setattr(sh, "solve_shard", flaky)
    with pytest.raises(Interrupted):
        sh.best_response_sharded(
            opponents, goal=goal, path=tmp_path / "r", workers=1, progress=False
        )
    first = len(calls) - 1  # shards that finished before the interruption
    calls.clear()
    interrupt[0] = False
    res = sh.best_response_sharded(
        opponents, goal=goal, path=tmp_path / "r", workers=1, progress=False
    )
    assert len(calls) == res.shards - first  # the finished shards were not solved again
    assert np.array_equal(res.to_dense()[0], best_response(opponents, goal=goal).value)
    with pytest.raises(DicelabError, match="another best response"):
        sh.best_response_sharded(
            ["hold:4", "hold:6"], goal=goal, path=tmp_path / "r", workers=1, progress=False
        )


def test_estimate_counts_states():
    est = sh.estimate(4, 20, ["hold:5"] * 3)
    assert est["states"] == 20 * (22 * 21 * 20 // 6)  # sorted opponent columns: C(20 + 2, 3)
    assert sh.estimate(3, 20, ["hold:5", "hold:6"])["states"] == 20**3
    # the default opponents follow the goal (hold:25 is not a strategy at goal 20)
    assert sh.estimate(3, 20)["states"] == 20 * (21 * 20 // 2)  # C(20 + 1, 2) sorted columns
