"""`dicelab pig solve/query/plot` and `dicelab stats`: JSON output, tables and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dicelab.cli.main import main


def run(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_solve_json_goal_100(capsys):
    code, out, err = run(["pig", "solve", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"rules", "win_probability", "states", "max_residual", "seconds"}
    assert round(data["win_probability"], 4) == 0.5306  # Neller & Presser (2004)
    # states (i, j, k) with i, j < goal and i + k < goal, counted from the rules
    assert data["states"] == sum(100 - i for i in range(100)) * 100
    assert data["max_residual"] <= 1e-12


def test_solve_table_and_out(tmp_path, capsys):
    code, out, _ = run(["pig", "solve", "--goal", "12", "--variant", "piglet", "--out",
                        str(tmp_path / "s")], capsys)
    assert code == 0 and "Optimal Pig" in out
    assert (tmp_path / "s.npz").exists() and (tmp_path / "s.json").exists()


def _query_piglet_2(i: int, j: int, k: int, capsys) -> dict:
    code, out, _ = run(["pig", "query", str(i), str(j), str(k), "--goal", "2", "--variant",
                        "piglet", "--json"], capsys)
    assert code == 0
    return json.loads(out)


def test_query_json_obeys_bellmans_equation(capsys):
    """Piglet to 2 (a coin: heads adds 1 to the turn total, tails loses it), from the rules:
    hold(i, j, k) = 1 - P(j, i + k, 0) and
    roll(i, j, k) = (1 - P(j, i, 0)) / 2 + P(i, j, k + 1) / 2, where P(i, j, k + 1) = 1 once
    i + k + 1 reaches the goal."""

    def p(i: int, j: int, k: int) -> float:
        return _query_piglet_2(i, j, k, capsys)["win_probability"]

    data = _query_piglet_2(0, 0, 1, capsys)
    assert data["win_probability"] == pytest.approx(5 / 7, abs=1e-12)
    assert data["p_hold"] == pytest.approx(1 - p(0, 1, 0), abs=1e-12)
    assert data["p_roll"] == pytest.approx((1 - p(0, 0, 0)) / 2 + 1 / 2, abs=1e-12)
    assert data["action"] == "roll"  # 5/7 > 3/5
    data = _query_piglet_2(0, 1, 0, capsys)
    assert data["p_hold"] == pytest.approx(1 - p(1, 0, 0), abs=1e-12)
    assert data["p_roll"] == pytest.approx((1 - p(1, 0, 0)) / 2 + p(0, 1, 1) / 2, abs=1e-12)


def test_plot_writes_png(tmp_path, capsys):
    for kind in ("boundary", "heatmap"):
        out_png = tmp_path / f"{kind}.png"
        code, out, _ = run(["pig", "plot", "--kind", kind, "--goal", "30", "--out", str(out_png),
                            "--json"], capsys)
        assert code == 0 and json.loads(out)["out"] == str(out_png)
        assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args", [
    ["pig", "solve", "--variant", "huge"],
    ["pig", "solve", "--goal", "0"],
    ["pig", "solve", "--sides", "1"],
    ["pig", "query", "100", "0", "0"],
    ["pig", "query", "0", "0", "100"],
    ["pig", "query", "5", "5", "7", "--goal", "10"],
    ["pig", "plot", "--kind", "pie", "--out", "x.png"],
    ["pig", "solve", "--goal", "ten"],
    ["stats", "sample-size", "--margin", "0.9"],
])
def test_bad_input_one_line_exit_2(args, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_stats_commands(capsys):
    code, out, _ = run(["stats", "sample-size", "--margin", "0.025", "--confidence", "0.95",
                        "--json"], capsys)
    assert json.loads(out)["games"] == 1537
    code, out, _ = run(["stats", "compare", "--wins-a", "820", "--games", "1537", "--json"], capsys)
    data = json.loads(out)
    assert set(data) >= {"p_value", "ci_low", "ci_high", "verdict"} and data["p_value"] < 0.05


def test_console_script_end_to_end():
    proc = subprocess.run([sys.executable, "-m", "dicelab", "pig", "solve", "--goal", "50",
                           "--json"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["rules"]["goal"] == 50
    bad = subprocess.run([sys.executable, "-m", "dicelab", "pig", "solve", "--variant", "x"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stdout == ""
