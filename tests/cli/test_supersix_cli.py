"""`dicelab supersix` commands: JSON output, seed 001's numbers, one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dicelab.cli.main import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(["supersix", *args])
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def run_json(capsys, *args: str) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)  # exactly one JSON object: json.loads rejects trailing data


def test_solve_json(capsys):
    d = run_json(capsys, "solve", "--sticks", "4")
    assert round(d["start_player_win"], 3) == 0.602  # seed 001
    # seed 001's positions i/j/k/l: lid i from 0 to 5, both players still hold a stick (j, k >= 1),
    # at most 2 x 4 sticks in play (a stick never comes back), and l = 0 or 1: 2 x 83 = 166
    count = sum(2 for i in range(6) for j in range(1, 9) for k in range(1, 9) if i + j + k <= 8)
    assert d["states"] == count


def test_solve_three_players(capsys):
    d = run_json(capsys, "solve", "--sticks", "2", "--players", "3")
    assert len(d["start_order_wins"]) == 3 and sum(d["start_order_wins"]) == pytest.approx(1.0)
    assert d["converged"] is True


def test_table_has_seed_rows(capsys):
    d = run_json(capsys, "table")
    rows = {(r["lid"], r["own"], r["opponent"], r["forced"]): r for r in d["rows"]}
    assert len(rows) == 20  # seed 001 shows the 20 positions with lid >= 3 and at most 7 sticks
    assert rows[(5, 1, 1, 1)]["prob"] == pytest.approx(0.4512917, abs=5e-8)
    assert rows[(4, 1, 1, 0)]["prob"] == pytest.approx(0.5242297, abs=5e-8)
    assert rows[(4, 1, 1, 0)]["throw"] is True and rows[(5, 1, 1, 0)]["throw"] is False
    assert set(d["rows"][0]) == {"lid", "own", "opponent", "forced", "value", "throw", "prob"}


def test_query(capsys):
    d = run_json(capsys, "query", "4/2/1/0")
    assert d["prob"] == pytest.approx(0.3415501, abs=5e-8) and d["action"] == "stop"


def test_eval_and_simulate(capsys):
    d = run_json(capsys, "eval", "always", "stop-at:3")
    s = run_json(capsys, "simulate", "always", "stop-at:3", "--games", "2000", "--seed", "4",
                 "--confidence", "0.99")
    a = s["results"][0]
    assert a["ci_low"] <= d["a_first"] <= a["ci_high"]
    s3 = run_json(capsys, "simulate", "always", "stop-at:4", "stop-at:3", "--games", "300", "--seed", "1")
    assert sum(r["wins"] for r in s3["results"]) == 300


def test_best_response(capsys):
    d = run_json(capsys, "best-response", "optimal")
    assert d["mean"] == pytest.approx(0.5, abs=1e-12) and round(d["a_first"], 3) == 0.602


def test_plots(capsys, tmp_path):
    d = run_json(capsys, "plot", "--out", str(tmp_path / "s.png"))
    assert Path(d["out"]).stat().st_size > 1000
    d = run_json(capsys, "plot", "--kind", "edge", "--max-sticks", "6", "--out", str(tmp_path / "e.png"))
    assert Path(d["out"]).stat().st_size > 1000


@pytest.mark.parametrize(
    "args",
    [
        ["query", "6/1/1/1"],          # more sticks in the lid than pits
        ["query", "3/-1/2/0"],         # negative count
        ["query", "3/1/2/2"],          # bad forced flag
        ["query", "3/1"],              # malformed
        ["query", "5/4/4/0"],          # more sticks than the game has
        ["solve", "--sticks", "0"],
        ["solve", "--players", "7"],
        ["eval", "always", "sometimes"],
        ["simulate", "always", "stop-at:9", "--games", "10"],
        ["plot", "--kind", "pie", "--out", "x.png"],
    ],
)
def test_bad_input_one_line_exit_2(capsys, args):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_end_to_end_subprocess():
    exe = Path(sys.executable).with_name("dicelab")
    p = subprocess.run([str(exe), "supersix", "query", "5/1/1/1", "--json"], capture_output=True, text=True)
    assert p.returncode == 0 and json.loads(p.stdout)["prob"] == pytest.approx(0.4512917, abs=5e-8)
    p = subprocess.run([str(exe), "supersix", "query", "6/1/1/1"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "lid" in p.stderr
