"""The sharded n-player best response (score layers on zarr) equals the in-memory general pass bit
for bit (and the factorised pass to rounding), on any backend, and resumes an interrupted solve."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.simpig import SimPigRules, best_response, parse_strategy
from dicelab.simpig import sharded as sh
from dicelab.simpig import solver as S
from dicelab.simpig.strategies import SimPigStrategy, strategy_from_json

CASES = [
    (["hold:4", "hold:5"], 12),  # three players, different opponents
    (
        ["hold:3", "hold:3", "hold:3"],
        9,
    ),  # four players, one symmetric strategy: sorted columns only
    (["pw:3<5,goal", "mix:1/2*hold:2+1/2*hold:6"], 10),  # state-dependent and mixed opponents
]


def _objects(opponents: list[str], goal: int) -> list[SimPigStrategy]:
    """The sharded solver takes strategy objects (specs are parsed above it)."""
    return [parse_strategy(o, SimPigRules(goal=goal, players=len(opponents) + 1)) for o in opponents]


def _general(opponents: list[str], goal: int) -> S.BestResponse:
    """The in-memory general pass (every joint outcome enumerated), the algorithm the shards run;
    ``best_response`` itself takes the factorised pass for own-score opponents."""
    hidden = [
        dataclasses.replace(S.check_goal(s, goal), state_independent=False)
        for s in _objects(opponents, goal)
    ]
    return S._best_response_n(hidden, goal, 1e10, 1e13)


@pytest.mark.parametrize(("opponents", "goal"), CASES)
def test_sharded_equals_in_memory_bit_for_bit(opponents, goal, tmp_path):
    ref = _general(opponents, goal)
    fast = best_response(opponents, SimPigRules(goal=goal))
    np.testing.assert_allclose(fast.value, ref.value, atol=1e-13, rtol=0)
    res = sh.best_response_sharded(
        _objects(opponents, goal), goal=goal, path=tmp_path / "br", workers=1, progress=False
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
    ref = _general(opponents, goal)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        on_dask = sh.best_response_sharded(
            _objects(opponents, goal),
            goal=goal,
            path=tmp_path / "d",
            backend="dask",
            address=cluster.scheduler_address,
            progress=False,
        )
    pooled = sh.best_response_sharded(
        _objects(opponents, goal), goal=goal, path=tmp_path / "p", workers=2, progress=False
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
            _objects(opponents, goal), goal=goal, path=tmp_path / "r", workers=1, progress=False
        )
    first = len(calls) - 1  # shards that finished before the interruption
    calls.clear()
    interrupt[0] = False
    res = sh.best_response_sharded(
        _objects(opponents, goal), goal=goal, path=tmp_path / "r", workers=1, progress=False
    )
    assert len(calls) == res.shards - first  # the finished shards were not solved again
    assert np.array_equal(res.to_dense()[0], _general(opponents, goal).value)
    with pytest.raises(DicelabError, match="another best response"):
        sh.best_response_sharded(
            _objects(["hold:4", "hold:6"], goal),
            goal=goal,
            path=tmp_path / "r",
            workers=1,
            progress=False,
        )


def test_estimate_counts_states():
    est = sh.estimate(4, 20, _objects(["hold:5"] * 3, 20))
    assert est["states"] == 20 * (22 * 21 * 20 // 6)  # sorted opponent columns: C(20 + 2, 3)
    assert sh.estimate(3, 20, _objects(["hold:5", "hold:6"], 20))["states"] == 20**3
    # the default opponents follow the goal (hold:25 is not a strategy at goal 20)
    assert sh.estimate(3, 20)["states"] == 20 * (21 * 20 // 2)  # C(20 + 1, 2) sorted columns


@pytest.mark.parametrize(
    "spec",
    [
        "hold:5",
        "hold:goal",
        "pw:3<5,goal",
        "mix:1/3*hold:2+2/3*pw:2<4,goal",
        "mix:0.1*hold:7+0.9*hold:3",
    ],
)
def test_strategies_reach_the_workers_as_json(spec):
    # the shard tasks carry the opponents' JSON form: it must give back the same strategy
    s = parse_strategy(spec, SimPigRules(goal=10, players=3))
    back = strategy_from_json(json.loads(json.dumps(s.to_json())))
    assert back == s
    own, a, b = np.indices((10, 10, 10))
    for (w1, k1), (w2, k2) in zip(s.mixture(own, [a, b]), back.mixture(own, [a, b]), strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(k1, k2)


def test_tables_have_no_json_form():
    with pytest.raises(DicelabError, match="is a table"):
        parse_strategy("svima", SimPigRules(goal=10, players=2)).to_json()
