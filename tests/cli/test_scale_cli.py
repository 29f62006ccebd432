"""The distributed commands: --backend/--address give the single-process numbers, on a real Dask
cluster (a LocalCluster with two worker processes) and on local worker processes."""

from __future__ import annotations

import json
import logging
import sys

import dask.distributed as distributed  # installed by ``make install``: no silent skip
import numpy as np
import pytest
from scipy.stats import binomtest

from dicelab.cli.main import main


def run(args, capsys):
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def run_json(args, capsys):
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def address():
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster.scheduler_address


def _covers(wins: int, games: int, p: float) -> bool:
    ci = binomtest(wins, games).proportion_ci(0.95, method="wilson")
    return bool(ci.low <= p <= ci.high)


def test_pig_simulate(address, capsys):
    base = ["pig", "simulate", "hold:20", "hold:21", "--games", "150000", "--seed", "4"]
    ref = run_json(base, capsys)
    # seed 002, Figure 17, hold:20 v hold:21 at goal 100: 0.5426 (A first), 0.5258 (B first), 0.5084
    assert round(ref["exact_a_overall"], 4) == 0.5084 and ref["inside"] is True
    assert _covers(ref["a_wins"], ref["games"], 0.5084)
    assert _covers(ref["a_wins_a_first"], ref["a_first_games"], 0.5426)
    assert _covers(ref["b_wins_b_first"], ref["games"] - ref["a_first_games"], 0.5258)
    on_dask = run_json([*base, "--backend", "dask", "--address", address], capsys)
    pooled = run_json([*base, "--backend", "local", "--workers", "2"], capsys)
    for got in (on_dask, pooled):
        for key in (
            "games",
            "a_wins",
            "b_wins",
            "stalemates",
            "a_wins_a_first",
            "ci_low",
            "ci_high",
        ):
            assert got[key] == ref[key], key


def test_pig_tournament_exact_and_simulated(address, capsys, tmp_path):
    base = ["pig", "tournament", "hold:4..9", "turtle", "--goal", "30"]
    ref = run_json(base, capsys)
    got = run_json(
        [*base, "--backend", "dask", "--address", address, "--store", str(tmp_path / "t")], capsys
    )
    assert np.array_equal(np.array(got["matrix"]), np.array(ref["matrix"]))
    assert got["ranking"] == ref["ranking"] and got["cycles"] == ref["cycles"]
    sim = [*base, "--simulate", "400", "--seed", "2"]
    ref_sim = run_json(sim, capsys)
    got_sim = run_json([*sim, "--backend", "dask", "--address", address], capsys)
    assert np.array_equal(np.array(got_sim["matrix"]), np.array(ref_sim["matrix"]))
    # the store resumes: the same command finds every task done
    again = run_json(
        [*base, "--backend", "dask", "--address", address, "--store", str(tmp_path / "t")], capsys
    )
    assert np.array_equal(np.array(again["matrix"]), np.array(ref["matrix"]))


def test_supersix_simulate(address, capsys):
    base = ["supersix", "simulate", "always", "stop-at:3", "--sticks", "3", "--games", "1200", "--seed", "8"]
    ref = run_json(base, capsys)
    got = run_json([*base, "--backend", "dask", "--address", address], capsys)
    assert [r["wins"] for r in got["results"]] == [r["wins"] for r in ref["results"]]


def test_liars_training_sweep(address, capsys, tmp_path):
    out = tmp_path / "best"
    args = [
        "liars",
        "train",
        "--players",
        "3",
        "--dice",
        "2",
        "--games",
        "300",
        "--sweep",
        "seed=0..1;alpha=0.1,0.3",
        "--eval-games",
        "400",
        "--out",
        str(out),
    ]
    got = run_json([*args, "--backend", "dask", "--address", address], capsys)
    assert [(r["seed"], r["alpha"]) for r in got["sweep"]] == [
        (0, 0.1),
        (0, 0.3),
        (1, 0.1),
        (1, 0.3),
    ]
    local = run_json([*args, "--backend", "local", "--workers", "1"], capsys)
    assert [r["win_rate"] for r in local["sweep"]] == [r["win_rate"] for r in got["sweep"]]
    best = max(got["sweep"], key=lambda r: r["win_rate"])
    assert got["best"]["win_rate"] == best["win_rate"]
    ev = run_json(
        ["liars", "eval", "--agent", got["out"], "--opponents", "random,random", "--games", "200"],
        capsys,
    )
    assert ev["games"] == 200 and ev["agent"] == got["out"]  # the saved best agent loads and plays


def test_liars_train_all_on_dask_gives_the_policies_trained_here(address, capsys, cache_dir):
    # issue 26, item 2: every duel size trains on a Dask cluster, each size a task on some worker;
    # the policies that come back are the ones this process trains with the same recipe and seed
    from dicelab.liars import library
    from dicelab.liars.duel import Duel

    args = ["liars", "train-all", "--faces", "3", "--wild", "ones,none", "--max-dice", "2"]
    got = run_json([*args, "--backend", "dask", "--address", address], capsys)
    sizes = [[1, 1], [1, 2], [2, 1], [2, 2]]
    assert [(s["wild"], s["dice"]) for s in got["sizes"]] == [(w, d) for w in ("none", "ones") for d in sizes]
    assert got["trained"] == 8
    for s in got["sizes"]:
        d = Duel(tuple(s["dice"]), 3, s["wild"])
        assert library.on_disk(d) and s["seconds"] > 0
        library._policies.discard(library._key(d))  # read back from the disk cache
        served, here = library.policy(d, train=False), library._train(d)
        for seat in (0, 1):  # float16 as cached
            assert np.allclose(served.strategy[seat], here.strategy[seat], atol=1e-3), (d, seat)
    again = run_json([*args, "--backend", "dask", "--address", address], capsys)
    assert again["trained"] == 0 and all(s["cached"] for s in again["sizes"])


def test_simpig_best_response_sharded(address, capsys, tmp_path):
    base = ["simpig", "best-response", "hold:3", "hold:3", "hold:3", "--goal", "9"]
    ref = run_json(base, capsys)
    got = run_json(
        [*base, "--backend", "dask", "--address", address, "--store", str(tmp_path / "br")], capsys
    )
    # in memory, own-score opponents take the factorised pass (same value up to rounding); the
    # shards run the general pass (bit for bit equal to it: tests/simpig/test_simpig_sharded.py)
    assert got["win_probability"] == pytest.approx(ref["win_probability"], abs=1e-13)
    assert got["players"] == 4 and got["shards"] >= 1


def test_dask_without_an_address_starts_a_local_cluster(capsys):
    base = [
        "pig",
        "simulate",
        "hold:10",
        "hold:12",
        "--goal",
        "30",
        "--games",
        "70000",
        "--seed",
        "1",
    ]
    ref = run_json(base, capsys)
    got = run_json([*base, "--backend", "dask", "--workers", "2"], capsys)
    assert got["a_wins"] == ref["a_wins"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--address", "tcp://127.0.0.1:8786"], "--address needs --backend dask or ray"),
        (["--backend", "spark"], "unknown backend"),
        (["--backend", "local", "--workers", "0"], "--workers must be from 1"),
    ],
)
def test_bad_backend_options(extra, message, capsys):
    code, out, err = run(
        ["pig", "simulate", "hold:10", "hold:12", "--goal", "30", "--games", "100", *extra], capsys
    )
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_ray_backend_without_ray_is_one_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # ``import ray`` fails, installed or not
    args = ["pig", "tournament", "hold:1..3", "--goal", "20", "--backend", "ray"]
    code, _, err = run(args, capsys)
    assert code == 2 and "pip install 'dicelab[ray]'" in err and err.count("\n") == 1
