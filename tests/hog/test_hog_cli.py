"""`dicelab hog` commands: one JSON object with --json, values matching the exact library
results, one-line errors with exit 2."""

from __future__ import annotations

import json

import pytest

from dicelab.cli.main import main
from dicelab.hog import HogRules, evaluate


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(["hog", *args])
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def run_json(capsys, *args: str) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_solve_and_query(capsys):
    d = run_json(capsys, "solve", "--goal", "20", "--max-dice", "4")
    q = run_json(capsys, "query", "0", "0", "--goal", "20", "--max-dice", "4")
    assert d["win_probability"] == q["win_probability"] and d["start_dice"] == q["dice"]
    assert d["max_residual"] < 1e-12 and d["optimal_dice"][0]["i"] == 0


def test_eval_best_response_and_simulate(capsys):
    e = run_json(capsys, "eval", "always:3", "always:2", "--goal", "20")
    ref = evaluate("always:3", "always:2", HogRules(goal=20))
    assert e["a_first"] == ref.a_first and e["a_second"] == ref.a_second
    br = run_json(capsys, "best-response", "always:2", "--goal", "20")
    assert br["a_first"] >= ref.a_first and br["a_second"] >= ref.a_second
    sim = run_json(capsys, "simulate", "always:3", "always:2", "--goal", "20", "--games", "500",
                   "--seed", "2")
    assert sim["games"] == 500 and 0 <= sim["wins"] <= 500


@pytest.mark.parametrize("args", [
    ["solve", "--goal", "0"], ["solve", "--max-dice", "99"], ["query", "5", "30", "--goal", "20"],
    ["eval", "always:11", "optimal"], ["eval", "nope", "optimal"],
    ["simulate", "optimal", "optimal", "--games", "0"], ["simulate", "always:1", "always:1", "--seed", "-3"],
    ["best-response", "best-response:" * 20 + "optimal"],
])
def test_errors_are_one_line(capsys, args):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ")
