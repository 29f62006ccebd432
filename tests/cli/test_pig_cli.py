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
    assert data["win_probability"] == pytest.approx(0.5305927, abs=1e-7)
    assert data["states"] == 505000 and data["max_residual"] <= 1e-12


def test_solve_table_and_out(tmp_path, capsys):
    code, out, _ = run(["pig", "solve", "--goal", "12", "--variant", "piglet", "--out",
                        str(tmp_path / "s")], capsys)
    assert code == 0 and "Optimal Pig" in out
    assert (tmp_path / "s.npz").exists() and (tmp_path / "s.json").exists()


def test_query_json(capsys):
    code, out, _ = run(["pig", "query", "0", "0", "1", "--goal", "2", "--variant", "piglet",
                        "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["action"] in ("roll", "hold")
    assert data["win_probability"] == pytest.approx(5 / 7, abs=1e-12)
    assert max(data["p_roll"], data["p_hold"]) == pytest.approx(data["win_probability"])


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
