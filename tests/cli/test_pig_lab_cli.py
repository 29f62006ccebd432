"""``dicelab pig eval / best-response / simulate / tournament / vs-hold`` end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, chi2, norm

from dicelab.cli.main import main

DICELAB = Path(sys.executable).with_name("dicelab")


def run(args: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def run_json(args: list[str], capsys) -> dict:
    code, out, err = run(args + ["--json"], capsys)
    assert code == 0, err
    return json.loads(out)  # exactly one JSON object on stdout


def wilson(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """scipy's Wilson score interval, independent of dicelab.core.stats."""
    ci = binomtest(wins, games).proportion_ci(confidence, method="wilson")
    return ci.low, ci.high


# seed 002, Figure 17 (theoretical columns: A first, B first, A overall), goal 100
FIGURE_17 = [
    ("hold:20", "hold:21", 0.5426, 0.5258, 0.5084),
    ("hold:15", "hold:20", 0.4784, 0.5933, 0.4426),
    ("hold:1", "hold:5", 0.0236, 0.9860, 0.0188),
    ("hold:36", "hold:52", 0.6354, 0.3969, 0.6193),
]


@pytest.mark.parametrize(("a", "b", "a_first", "b_first", "a_overall"), FIGURE_17)
def test_eval_json_keys_and_figure_17(a, b, a_first, b_first, a_overall, capsys):
    d = run_json(["pig", "eval", a, b], capsys)
    for key in ("a_first", "b_first", "a_overall", "stalemate_a_first", "stalemate_b_first"):
        assert key in d
    assert round(d["a_first"], 4) == a_first and round(d["b_first"], 4) == b_first
    # the seed's overall figure is (A first + 1 - B first) / 2 of its rounded values: within 1e-4
    assert abs(d["a_overall"] - a_overall) <= 1e-4


def test_eval_hold_25_against_hold_30(capsys):
    # seed 002, section 3.4: 0.573741 and 0.48091 going first, 0.546416 in general
    d = run_json(["pig", "eval", "hold:25", "hold:30"], capsys)
    assert round(d["a_first"], 6) == 0.573741 and round(d["b_first"], 5) == 0.48091
    assert round(d["a_overall"], 6) == 0.546416


@pytest.mark.parametrize(("variant", "goal"), [("standard", 30), ("piglet", 8), ("two-dice", 30)])
def test_every_command_in_every_variant(variant, goal, capsys, tmp_path):
    rule = ["--variant", variant, "--goal", str(goal)]
    e = run_json(["pig", "eval", "keep-pace", "hold:3", *rule], capsys)
    assert e["stalemate_a_first"] == 0.0  # neither ever holds at a turn total of 0
    b = run_json(["pig", "best-response", "hold:3", *rule], capsys)
    # the best response to hold:3 does at least as well against it as keep-pace does
    assert b["a_first"] >= e["a_first"] - 1e-13 and b["a_overall"] >= e["a_overall"] - 1e-13
    s = run_json(
        ["pig", "simulate", "keep-pace", "hold:3", "--games", "20000", "--seed", "4", *rule], capsys
    )
    for key in (
        "games",
        "a_wins",
        "b_wins",
        "stalemates",
        "a_overall",
        "ci_low",
        "ci_high",
        "exact_a_overall",
    ):
        assert key in s
    assert s["games"] == 20000 and s["a_wins"] + s["b_wins"] + s["stalemates"] == 20000
    # the games played agree with the exact linear solve: inside a 99.9% Wilson interval
    lo, hi = wilson(s["a_wins"], 20000, 0.999)
    assert lo <= e["a_overall"] <= hi
    t = run_json(["pig", "tournament", "hold:2..4", "turtle", *rule], capsys)
    assert set(("strategies", "matrix", "ranking", "cycles")) <= set(t)
    assert t["strategies"] == ["hold:2", "hold:3", "hold:4", "turtle"]
    assert len(t["matrix"]) == 4


def test_stalemate_reported(capsys):
    d = run_json(["pig", "eval", "hold:0", "hold:0", "--goal", "10"], capsys)
    assert d["stalemate_a_first"] == 1.0 and d["stalemate_b_first"] == 1.0


def test_best_response_out_file_and_iterate(capsys, tmp_path):
    out = tmp_path / "br.csv"
    d = run_json(
        [
            "pig",
            "best-response",
            "hold:6",
            "--goal",
            "20",
            "--out",
            str(out),
            "--iterate",
            "--max-iter",
            "30",
        ],
        capsys,
    )
    assert out.exists() and d["out"] == str(out)
    assert d["iterations"] and d["converged"] and d["reached_optimal_at"] is not None
    # the saved table plays exactly as the best response
    e = run_json(["pig", "eval", f"file:{out}", "hold:6", "--goal", "20"], capsys)
    assert e["a_first"] == pytest.approx(d["a_first"], abs=1e-15)
    npz = tmp_path / "br.npz"
    run_json(["pig", "best-response", "optimal", "--goal", "20", "--out", str(npz)], capsys)
    e = run_json(["pig", "eval", f"file:{npz}", "optimal", "--goal", "20"], capsys)
    assert e["a_overall"] == pytest.approx(0.5, abs=1e-12)


def test_simulate_records_and_tournament_plot(capsys, tmp_path):
    rec = tmp_path / "t.parquet"
    d = run_json(
        [
            "pig",
            "simulate",
            "hold:5",
            "hold:6",
            "--goal",
            "20",
            "--games",
            "500",
            "--records",
            str(rec),
        ],
        capsys,
    )
    assert rec.exists() and d["records"] == str(rec)
    png = tmp_path / "m.png"
    t = run_json(
        ["pig", "tournament", "turtle", "roll-to-win", "roll-and-wait", "--plot", str(png)], capsys
    )
    assert png.exists() and t["cycles"] == [["turtle", "roll-to-win", "roll-and-wait"]]
    sim = run_json(
        ["pig", "tournament", "hold:3", "hold:5", "--goal", "20", "--simulate", "2000"], capsys
    )
    assert sim["mode"] == "simulated"
    v = run_json(
        [
            "pig",
            "vs-hold",
            "hold:4",
            "--goal",
            "20",
            "--max",
            "10",
            "--out",
            str(tmp_path / "v.png"),
        ],
        capsys,
    )
    assert len(v["a_overall"]) == 10 and v["a_overall"][3] == pytest.approx(0.5, abs=1e-13)


def test_fair_test_command(capsys):
    d = run_json(
        [
            "pig",
            "fair-test",
            "hold:5,hold:6",
            "turtle,roll-to-win",
            "--goal",
            "30",
            "--games",
            "4000",
            "--seed",
            "2",
        ],
        capsys,
    )
    assert [(r["a"], r["b"]) for r in d["rows"]] == [
        ("hold:5", "hold:6"),
        ("turtle", "roll-to-win"),
    ]
    for r in d["rows"]:  # the printed interval is the Wilson interval of the games A won
        wins = round(r["sim_a_overall"] * 4000)
        assert (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(wins, 4000), abs=1e-12)
    code, _, err = run(["pig", "fair-test", "hold:5"], capsys)
    assert code == 2 and err.count("\n") == 1


def _variance_of_share(games: int, p_first: float, p_second: float) -> float:
    """Variance of A's share of ``games`` games, first move alternating (A first in game 0):
    the sum of two binomial laws, with the exact win chances going first and second."""
    n1 = (games + 1) // 2
    n2 = games - n1
    return (n1 * p_first * (1 - p_first) + n2 * p_second * (1 - p_second)) / games**2


def _spread_ok(values: list[float], mean: float, var: float, alpha: float = 1e-3) -> None:
    """The sample's mean and variance against the binomial law's (z test, chi-square test)."""
    x = np.asarray(values)
    r = x.size
    z = (x.mean() - mean) / np.sqrt(var / r)
    assert abs(z) < norm.ppf(1 - alpha / 2), (x.mean(), mean)
    stat = (r - 1) * x.var(ddof=1) / var
    assert chi2.ppf(alpha / 2, r - 1) < stat < chi2.ppf(1 - alpha / 2, r - 1), (x.var(ddof=1), var)


def test_fair_test_repeats_spread_follows_the_binomial_law(capsys, tmp_path):
    """Seed 002's Figure 16: repeated fair tests scatter as the binomial law says they must."""
    games, repeats = 400, 300
    out = tmp_path / "fig16.png"
    d = run_json(
        ["pig", "fair-test", "hold:20,hold:20", "hold:5,hold:21", "--goal", "50", "--games",
         str(games), "--repeats", str(repeats), "--seed", "3", "--plot", str(out)],
        capsys,
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and d["plot"] == str(out)
    for r in d["rows"]:
        ex = run_json(["pig", "eval", r["a"], r["b"], "--goal", "50"], capsys)
        p_second = 1 - ex["b_first"] - ex["stalemate_b_first"]
        var = _variance_of_share(games, ex["a_first"], p_second)
        assert r["repeats"] == repeats and len(r["repeat_overall"]) == repeats
        _spread_ok(r["repeat_overall"], r["a_overall"], var)
        assert r["repeat_sd"] == pytest.approx(np.std(r["repeat_overall"], ddof=1), rel=1e-12)
        assert r["binomial_sd"] == pytest.approx(
            np.sqrt(r["a_overall"] * (1 - r["a_overall"]) / games), rel=1e-12
        )
        # each repeat's 95% interval holds the exact value with chance about 0.95
        assert binomtest(r["repeat_inside"], repeats, 0.95).pvalue > 1e-3
    # the same seed gives the same tests
    again = run_json(
        ["pig", "fair-test", "hold:20,hold:20", "--goal", "50", "--games", str(games),
         "--repeats", str(repeats), "--seed", "3"],
        capsys,
    )
    assert again["rows"][0]["repeat_overall"] == d["rows"][0]["repeat_overall"]


def test_fair_convergence_spread_shrinks_as_the_binomial_law_says(capsys, tmp_path):
    """Seed 002's Figure 15: the estimate after n games has the binomial law's spread at every n
    (the estimates at one n across repeats are independent)."""
    repeats, max_games = 400, 600
    out = tmp_path / "fig15.png"
    d = run_json(
        ["pig", "fair-convergence", "hold:20", "--goal", "40", "--max-games", str(max_games),
         "--repeats", str(repeats), "--seed", "5", "--plot", str(out)],
        capsys,
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ex = run_json(["pig", "eval", "hold:20", "hold:20", "--goal", "40"], capsys)
    p1, p2 = ex["a_first"], 1 - ex["b_first"] - ex["stalemate_b_first"]
    rows = {r["games"]: r for r in d["rows"]}
    assert sorted(rows) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 600]
    for n, r in rows.items():
        n1 = (n + 1) // 2
        assert r["exact"] == pytest.approx((n1 * p1 + (n - n1) * p2) / n, abs=1e-12)
        sd = np.sqrt(_variance_of_share(n, p1, p2))
        # sample sd of 400 repeats: within the chi-square law's 99.9% range of the true sd
        lo, hi = (np.sqrt(chi2.ppf(q, repeats - 1) / (repeats - 1)) for q in (5e-4, 1 - 5e-4))
        assert lo * sd < r["sd"] < hi * sd, (n, r["sd"], sd)
        assert r["binomial_sd"] == pytest.approx(np.sqrt(r["exact"] * (1 - r["exact"]) / n))
        assert r["q025"] <= r["median"] <= r["q975"]
    # more games, a tighter estimate: the seed's conclusion, at 600 against 20 games
    assert rows[600]["within_band"] > rows[20]["within_band"]


def test_human_readable_output(capsys):
    code, out, _ = run(["pig", "tournament", "turtle", "roll-to-win", "roll-and-wait"], capsys)
    assert code == 0 and "turtle > roll-to-win > roll-and-wait > turtle" in out
    code, out, _ = run(["pig", "eval", "hold:2", "hold:3", "--goal", "10"], capsys)
    assert code == 0 and "a_first" in out


@pytest.mark.parametrize(
    "args",
    [
        ["pig", "eval", "hold:x", "hold:2"],
        ["pig", "eval", "hold:1..4", "hold:2"],
        ["pig", "eval", "nonsense", "hold:2"],
        ["pig", "eval", "file:/no/such/file.csv", "hold:2"],
        ["pig", "eval", "hold:2", "hold:3", "--variant", "three-dice"],
        ["pig", "eval", "hold:2", "hold:3", "--goal", "0"],
        ["pig", "best-response", "best-response:", "--goal", "10"],
        ["pig", "best-response", "hold:2", "--out", "x.txt"],
        ["pig", "simulate", "hold:2", "hold:3", "--games", "0"],
        ["pig", "simulate", "hold:2", "hold:3", "--records", "x.csv"],
        ["pig", "tournament", "hold:2"],
        ["pig", "tournament", "hold:9..1", "hold:2"],
        ["pig", "tournament", "hold:2", "hold:3", "--simulate", "1"],
        ["pig", "fair-test", "hold:2,hold:3", "--plot", "f.png"],
        ["pig", "fair-test", "hold:2,hold:3", "--repeats", "0"],
        ["pig", "fair-test", "hold:2,hold:3", "--repeats", "3", "--plot", "f.txt"],
        ["pig", "fair-convergence", "hold:2", "--repeats", "1"],
        ["pig", "fair-convergence", "hold:2", "--max-games", "0"],
        ["pig", "fair-convergence", "hold:2", "--max-games", "100000", "--repeats", "10000"],
    ],
)
def test_bad_input_one_line_exit_2(args, capsys):
    code, out, err = run(args, capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_subprocess_end_to_end(tmp_path):
    env = dict(os.environ)
    p = subprocess.run(
        [str(DICELAB), "pig", "eval", "turtle", "roll-to-win", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert p.returncode == 0
    d = json.loads(p.stdout)
    assert round(d["a_first"], 6) == 0.812840
    p = subprocess.run(
        [str(DICELAB), "pig", "eval", "hold:-3", "turtle"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
