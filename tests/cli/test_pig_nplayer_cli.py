"""``dicelab pig ... --players N`` (issue 25): solve, query, eval/evaluate, simulate, best-response,
tournament and plot for three or more players; --json prints one object; bad input is one line
with exit code 2."""

from __future__ import annotations

import json

import pytest

from dicelab.cli.main import main


def run(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def run_json(args, capsys) -> dict:
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_solve_query_eval_agree(capsys):
    rules = ["--players", "3", "--goal", "12"]
    s = run_json(["pig", "solve", *rules, "--no-cache"], capsys)
    assert len(s["win_probabilities"]) == 3 and abs(sum(s["win_probabilities"]) - 1) <= 1e-12
    # the solution played as a profile of fixed strategies is worth the same
    e = run_json(["pig", "eval", "optimal", "optimal", "optimal", *rules], capsys)
    assert e["wins"] == pytest.approx(s["win_probabilities"], abs=1e-13)
    again = run_json(["pig", "evaluate", "optimal", "optimal", "optimal", *rules], capsys)
    assert {**again, "seconds": 0} == {**e, "seconds": 0}  # evaluate is eval under another name
    q = run_json(["pig", "query", "3", "5", "7", "2", *rules], capsys)
    assert q["win_probability"] == pytest.approx(max(q["p_roll"], q["p_hold"]), abs=1e-12)
    assert q["action"] == ("roll" if q["p_roll"] > q["p_hold"] else "hold")
    assert abs(sum(q["win_probabilities"]) - 1) <= 1e-12
    q0 = run_json(["pig", "query", "3", "5", "7", *rules], capsys)  # turn total 0 must roll
    assert q0["action"] == "roll" and q0["p_hold"] is None


def test_best_response_simulate_tournament(capsys, tmp_path):
    rules = ["--players", "3", "--goal", "12"]
    npz = tmp_path / "br.npz"
    br = run_json(["pig", "best-response", "hold:4", "turtle", "--seat", "1", "--out", str(npz),
                   *rules], capsys)
    e = run_json(["pig", "eval", "hold:4", "keep-pace", "turtle", *rules], capsys)
    assert br["win_probability"] >= e["wins"][1] - 1e-13
    # the saved response, played from its file, is worth what the best response promised
    f = run_json(["pig", "eval", "hold:4", f"file:{npz}", "turtle", *rules], capsys)
    assert f["wins"] == pytest.approx(br["wins"], abs=1e-12)
    sim = run_json(["pig", "simulate", "hold:4", "keep-pace", "turtle", "--games", "3000",
                    "--confidence", "0.999", *rules], capsys)
    assert sum(sim["wins"]) == 3000 and all(sim["inside"])
    t = run_json(["pig", "tournament", "hold:3..5", *rules], capsys)
    assert t["values"] == [3, 4, 5] and len(t["matrix"]) == 3
    p = run_json(["pig", "plot", "--kind", "boundary", "--out", str(tmp_path / "b.png"), *rules], capsys)
    assert (tmp_path / "b.png").stat().st_size > 0 and p["kind"] == "boundary"


@pytest.mark.parametrize("args", [
    ["pig", "solve", "--players", "7"],
    ["pig", "solve", "--players", "3", "--variant", "two-dice"],
    ["pig", "solve", "--players", "3", "--turn-limit", "5", "--goal", "10"],
    ["pig", "eval", "hold:2", "hold:3", "--players", "3", "--goal", "10"],
    ["pig", "eval", "hold:2", "roll-and-wait", "hold:3", "--players", "3", "--goal", "10"],
    ["pig", "query", "1", "2", "--players", "3", "--goal", "10"],
    ["pig", "query", "9", "2", "3", "4", "--players", "3", "--goal", "10"],
    ["pig", "best-response", "hold:2", "--players", "3", "--goal", "10"],
    ["pig", "tournament", "keep-pace", "hold:3", "--players", "3", "--goal", "10"],
    ["pig", "simulate", "hold:2", "hold:3", "hold:4", "--players", "3", "--goal", "10", "--records", "x.parquet"],
])
def test_bad_input_one_line_exit_2(args, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
