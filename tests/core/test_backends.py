"""Execution backends: the same numbers on every backend, dead workers, resumable runs.

A real ``dask.distributed.LocalCluster`` with two worker processes is started once for the module.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from dask import distributed  # the dask extra, installed by `make install`: no silent skip

from dicelab.core.backends import (
    Session,
    Task,
    batches,
    check_backend,
    read_results,
    run_tasks,
    task_seed,
)
from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigGame, PigRules

try:  # ship this module's task functions to the Dask workers by value
    import cloudpickle

    if __name__ in sys.modules:
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
except ImportError:  # pragma: no cover
    pass


# ---- task functions (module level, so workers can run them) ---------------------------------


def hold_at_batch(params: dict) -> dict:
    """Simulate ``count`` games of Pig, hold-at-a (first) against hold-at-b, with the task's seed."""
    rules = PigRules(goal=params["goal"])
    rng = np.random.default_rng(task_seed(params["seed"], params["index"]))
    wins = 0
    turns = np.zeros(params["count"], dtype=np.int64)
    for g in range(params["count"]):
        game = PigGame(rules, rng, first=0)
        targets = (params["a"], params["b"])
        while game.winner is None:
            if game.turn_total < targets[game.to_move]:
                if game.roll() and game.turn_total == 0:
                    turns[g] += 1
            else:
                game.hold()
                turns[g] += 1
        wins += game.winner == 0
    if params.get("sleep"):
        time.sleep(params["sleep"])
    return {"a_wins": int(wins), "games": params["count"], "turns": turns}


def pair_score(params: dict) -> dict:
    """A tournament-like task: a deterministic score matrix row for one pair of 'strategies'."""
    a, b = params["a"], params["b"]
    # the exact probability that hold-at-a reaches a turn total of at least a before a 1 (goal-free)
    q = (5 / 6) ** np.arange(1, 8)
    return {"a": a, "b": b, "score": float(q[a % 7] - q[b % 7]), "pair": np.array([a, b])}


def crash_once(params: dict) -> dict:
    """Kill the worker process the first time task ``crash`` runs (a marker file remembers)."""
    marker = Path(params["marker"])
    if params["index"] == params["crash"] and not marker.exists():
        marker.write_text("crashed")
        os._exit(1)
    return {"y": params["index"] * 3}


def timed(params: dict) -> dict:
    """Sleep a little and write when the task ran (wall clock, start and end) to ``dir/key``; task
    ``crash``, if named, kills its worker the first time it runs instead; ``meet`` names a task
    this one waits for, so two that can run side by side do so however slowly workers start."""
    marker = Path(params["dir"], "crashed")
    if params.get("crash") == params["key"] and not marker.exists():
        marker.write_text("")
        os._exit(1)
    start = time.time()
    Path(params["dir"], params["key"] + ".start").write_text("")
    meet = params.get("meet")  # wait (up to a minute) for this task to start too: a fresh pool
    deadline = start + 60.0  # may take seconds to start its second worker on a loaded machine
    while meet and not Path(params["dir"], meet + ".start").exists() and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(params["sleep"])
    Path(params["dir"], params["key"]).write_text(f"{start!r} {time.time()!r}")
    return {"y": 1}


# ---- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as c:
        yield c


def sim_tasks(n: int = 8, count: int = 30, sleep: float = 0.0) -> list[Task]:
    return [
        Task(
            f"sim-{i}",
            {"goal": 30, "a": 8, "b": 12, "seed": 2024, "index": i, "count": count, "sleep": sleep},
        )
        for i in range(n)
    ]


def same(r1: list[dict], r2: list[dict]) -> bool:
    if len(r1) != len(r2):
        return False
    for x, y in zip(r1, r2):
        if x.keys() != y.keys():
            return False
        for k in x:
            if isinstance(x[k], np.ndarray):
                if x[k].dtype != y[k].dtype or not np.array_equal(x[k], y[k]):
                    return False
            elif x[k] != y[k] or type(x[k]) is not type(y[k]):
                return False
    return True


# ---- tests -----------------------------------------------------------------------------------


def test_task_seed_is_the_spawned_child():
    children = np.random.SeedSequence(7).spawn(5)
    for i, child in enumerate(children):
        assert np.array_equal(child.generate_state(4), task_seed(7, i).generate_state(4))
    assert batches(10, 4) == [(0, 4), (4, 4), (8, 2)]


def test_simulation_identical_on_every_backend(cluster, tmp_path):
    tasks = sim_tasks()
    serial = run_tasks(hold_at_batch, tasks, workers=1, progress=False)
    pooled = run_tasks(hold_at_batch, tasks, workers=2, progress=False)
    on_dask = run_tasks(
        hold_at_batch, tasks, backend="dask", address=cluster.scheduler_address, progress=False
    )
    stored = run_tasks(hold_at_batch, tasks, workers=2, store=tmp_path / "s", progress=False)
    assert same(serial, pooled) and same(serial, on_dask) and same(serial, stored)
    # what was written to Parquet reads back bit for bit, too
    again = run_tasks(hold_at_batch, tasks, store=tmp_path / "s", progress=False)
    assert same(serial, again)
    # the games themselves: hold:8 moving first against hold:12 wins as often as the exact value
    from dicelab.core.stats import wilson_interval
    from dicelab.pig import evaluate

    exact = evaluate("hold:8", "hold:12", PigRules(goal=30)).a_first
    lo, hi = wilson_interval(sum(r["a_wins"] for r in serial), sum(r["games"] for r in serial), 0.999)
    assert lo <= exact <= hi


def test_tournament_identical_on_dask(cluster):
    tasks = [Task(f"{a}v{b}", {"a": a, "b": b}) for a in range(1, 9) for b in range(a + 1, 9)]
    local = run_tasks(pair_score, tasks, workers=1, progress=False)
    remote = run_tasks(
        pair_score, tasks, backend="dask", address=cluster.scheduler_address, progress=False
    )
    assert same(local, remote)
    assert [r["pair"].tolist() for r in remote] == [[t.params["a"], t.params["b"]] for t in tasks]


def test_killed_dask_worker_loses_nothing(cluster, tmp_path):
    tasks = sim_tasks(n=8, count=10, sleep=0.3)
    expected = run_tasks(hold_at_batch, tasks, workers=1, progress=False)
    with distributed.Client(cluster.scheduler_address) as client:
        pids = list(client.run(os.getpid).values())
    killed: list[int] = []

    def kill_one(key, result):
        if not killed:  # a worker dies while both are busy with their next tasks
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    got = run_tasks(
        hold_at_batch,
        tasks,
        backend="dask",
        address=cluster.scheduler_address,
        store=tmp_path / "kill",
        progress=False,
        on_result=kill_one,
    )
    assert killed and same(expected, got)
    rows = read_results(tmp_path / "kill")
    assert sorted(r["task_id"] for r in rows) == sorted(t.key for t in tasks)  # no loss, no double


def test_local_pool_retries_a_dead_worker(tmp_path):
    tasks = [
        Task(str(i), {"index": i, "crash": 2, "marker": str(tmp_path / "m")}) for i in range(6)
    ]
    got = run_tasks(crash_once, tasks, workers=2, progress=False)
    assert (tmp_path / "m").exists()  # the crash did happen
    assert [r["y"] for r in got] == [3 * i for i in range(6)]


def _ran_together(folder: Path, a: str, b: str) -> bool:
    (s1, e1), (s2, e2) = (map(float, (folder / k).read_text().split()) for k in (a, b))
    return s1 < e2 and s2 < e1


@pytest.mark.parametrize("memory, together", [
    # two fit the budget of 10: the two workers run them side by side
    ({"a": 4, "b": 4, "c": 4, "d": 4}, {("a", "b"), ("c", "d")}),
    # none fits beside another: one at a time though two workers are free
    ({"a": 6, "b": 6, "c": 6}, set()),
    # the large ones one after the other, the small ones beside them (the first in order that fits
    # starts: c overtakes b); a task over the whole budget still runs, alone
    ({"a": 8, "b": 8, "c": 1, "d": 30}, {("a", "c")}),
])
def test_local_tasks_start_only_where_their_memory_fits(tmp_path, memory, together):
    meet = {a: b for pair in together for a, b in (pair, pair[::-1])}
    tasks = [Task(k, {"key": k, "dir": str(tmp_path), "sleep": 0.6, "meet": meet.get(k)}, memory=m)
             for k, m in memory.items()]
    with Session("local", workers=2, memory=10) as session:
        got = session.run(timed, tasks, progress=False)
    assert [r["y"] for r in got] == [1] * len(tasks)
    keys = list(memory)
    pairs = {(a, b) for i, a in enumerate(keys) for b in keys[i + 1:]}
    for a, b in pairs:
        if memory[a] + memory[b] > 10:  # the law: never together over the budget
            assert not _ran_together(tmp_path, a, b), (a, b)
    for a, b in together:  # and the workers are used where the budget allows
        assert _ran_together(tmp_path, a, b), (a, b)


def test_the_tasks_running_when_a_worker_died_run_again_alone(tmp_path):
    # b kills its worker at once while a runs beside it: both are suspects (the kernel may have
    # killed either for memory), so each runs again alone, and c and d side by side after them
    # (c and d wait for each other: the fresh pool starts its second worker only when d is handed
    # to it, which may take seconds on a loaded machine)
    meet = {"c": "d", "d": "c"}
    tasks = [Task(k, {"key": k, "dir": str(tmp_path), "sleep": 0.6, "crash": "b", "meet": meet.get(k)})
             for k in "abcd"]
    with Session("local", workers=2) as session:
        got = session.run(timed, tasks, progress=False)
    assert (tmp_path / "crashed").exists()
    assert [r["y"] for r in got] == [1] * 4
    for a in "ab":
        for other in "abcd".replace(a, ""):
            assert not _ran_together(tmp_path, a, other), (a, other)
    assert _ran_together(tmp_path, "c", "d")


def test_the_memory_budget_must_be_positive():
    with pytest.raises(DicelabError, match="memory budget must be positive"):
        Session("local", workers=2, memory=0)


def test_resume_skips_finished_tasks(tmp_path):
    tasks = sim_tasks(n=8, count=10)
    full = run_tasks(hold_at_batch, tasks, workers=1, progress=False)
    seen: list[str] = []

    class Interrupted(Exception):
        pass

    def stop_after_three(key, result):
        seen.append(key)
        if len(seen) == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        run_tasks(
            hold_at_batch,
            tasks,
            workers=1,
            store=tmp_path / "r",
            progress=False,
            on_result=stop_after_three,
        )
    assert len(read_results(tmp_path / "r")) == 3
    rerun: list[str] = []
    resumed = run_tasks(
        hold_at_batch,
        tasks,
        workers=1,
        store=tmp_path / "r",
        progress=False,
        on_result=lambda k, r: rerun.append(k),
    )
    assert rerun == [t.key for t in tasks[3:]]
    assert same(full, resumed)


def test_store_refuses_another_job(tmp_path):
    tasks = sim_tasks(n=2, count=2)
    run_tasks(hold_at_batch, tasks, workers=1, store=tmp_path / "j", progress=False)
    with pytest.raises(DicelabError, match="belongs to job"):
        run_tasks(pair_score, [Task("x", {"a": 1, "b": 2})], store=tmp_path / "j", progress=False)
    changed = [Task(tasks[0].key, {**tasks[0].params, "count": 3})]
    with pytest.raises(DicelabError, match="other parameters"):
        run_tasks(hold_at_batch, changed, store=tmp_path / "j", progress=False)


def test_bad_backend_options():
    with pytest.raises(DicelabError, match="unknown backend"):
        check_backend("spark")
    with pytest.raises(DicelabError, match="--address"):
        check_backend("local", "tcp://127.0.0.1:8786")
    try:
        import ray  # noqa: F401
    except ImportError:
        with pytest.raises(DicelabError, match="pip install 'dicelab\\[ray\\]'"):
            check_backend("ray")


# ---- dicelab's own jobs on the cluster: the same numbers as the single-process code ---------------


def test_pig_simulation_job_matches_simulate(cluster):
    from dicelab.pig import simulation as jobs
    from dicelab.pig.simulation import BATCH, simulate
    from dicelab.pig.specs import as_strategy

    rules = PigRules(goal=40)
    sa, sb = as_strategy("hold:12"), as_strategy("keep-pace")
    tables = np.stack([sa.table(rules), sb.table(rules)])
    games = 3 * BATCH + 1234  # a short last batch, and more batches than one task holds
    ref = simulate(sa, sb, rules, games=games, seed=11, exact=False)
    for kw in ({"workers": 2}, {"backend": "dask", "address": cluster.scheduler_address}):
        jobs.BATCHES_PER_TASK, saved = 2, jobs.BATCHES_PER_TASK
        try:
            c = jobs.pig_counts(tables, rules, games, 11, progress=False, **kw)
        finally:
            jobs.BATCHES_PER_TASK = saved
        assert (int(c[0] + c[3]), int(c[1] + c[4]), int(c[2] + c[5])) == (
            ref.a_wins,
            ref.b_wins,
            ref.stalemates,
        )
        assert int(c[0]) == ref.a_wins_a_first and int(c[4]) == ref.b_wins_b_first


def test_pig_round_robin_jobs_match_the_single_process_code(cluster):
    from dicelab.pig import jobs
    from dicelab.pig.evaluation import evaluate_many
    from dicelab.pig.simulation import simulate
    from dicelab.pig.specs import as_strategy

    rules = PigRules(goal=30)
    tables = np.ascontiguousarray(
        np.stack([as_strategy(f"hold:{n}").table(rules) for n in range(3, 13)])
    )
    pairs = np.array([(a, b) for a in range(10) for b in range(a, 10)], dtype=np.int64)
    exact = jobs.pig_pairs_exact(
        tables, pairs, rules, backend="dask", address=cluster.scheduler_address, progress=False
    )
    assert np.array_equal(exact, evaluate_many(tables, pairs, rules))
    sims = jobs.pig_pairs_simulated(
        tables,
        pairs[:5],
        rules,
        2000,
        3,
        backend="dask",
        address=cluster.scheduler_address,
        progress=False,
    )
    seeds = np.random.SeedSequence(3).spawn(5)  # how the single-process tournament seeds its pairs
    for (a, b), ss, got in zip(pairs[:5], seeds, sims):
        r = simulate(
            f"hold:{a + 3}",
            f"hold:{b + 3}",
            rules,
            games=2000,
            seed=int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1)),
            exact=False,
        )
        assert (got.a_wins, got.b_wins, got.a_wins_a_first) == (
            r.a_wins,
            r.b_wins,
            r.a_wins_a_first,
        )


def test_liars_sweep_is_reproducible(cluster):
    from dicelab.liars import jobs
    from dicelab.liars.qlearning import train
    from dicelab.liars.rules import LiarsRules

    rules = LiarsRules(players=3, dice=2)
    grid = jobs.parse_sweep("seed=0..1;alpha=0.1,0.3")
    assert grid[1] == {"seed": 0, "alpha": 0.3}
    local = jobs.liars_sweep(
        rules, grid, 300, 0, ["random", "random"], eval_games=300, workers=1, progress=False
    )
    remote = jobs.liars_sweep(
        rules,
        grid,
        300,
        0,
        ["random", "random"],
        eval_games=300,
        backend="dask",
        address=cluster.scheduler_address,
        progress=False,
    )
    timeless = [
        [{k: v for k, v in row.items() if k != "train_seconds"} for row in rows]
        for rows in (local, remote)
    ]
    assert same(*timeless)
    direct = train(rules, games=300, seed=1, opponents=["random", "random"], alpha=0.3)
    assert np.array_equal(local[3]["q"], direct.agent.q)
    with pytest.raises(DicelabError, match="unknown sweep key"):
        jobs.parse_sweep("lr=0.1")


def test_a_store_of_many_parts_is_compacted(tmp_path):
    from dicelab.core.backends import ResultStore, Session

    tasks = [Task(f"{a}v{b}", {"a": a, "b": b}) for a in range(1, 13) for b in range(a + 1, 13)]
    store = ResultStore(
        tmp_path / "c", f"{pair_score.__module__}.{pair_score.__qualname__}", flush_seconds=0
    )
    with Session(workers=1) as session:
        first = session.run(pair_score, tasks, store=store, progress=False)
    assert len(list((tmp_path / "c").glob("part-*.parquet"))) == 1  # 66 one-row files merged
    seen: list[str] = []
    again = run_tasks(
        pair_score,
        tasks,
        store=tmp_path / "c",
        progress=False,
        on_result=lambda k, r: seen.append(k),
    )
    assert seen == [] and same(first, again)
