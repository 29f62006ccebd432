"""Reproducers of the CLI audit (issue 11, item 3): bad input ends with one line and exit 2.

One case per reproducer, run in-process through ``main`` (a few also as a real ``python -m
dicelab`` process): the exit code is 2, stderr is exactly one line starting with ``error:``, and
nothing shows a traceback. Cases that used to hang run under a time limit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dicelab.cli.main import main

NINES = "9" * 5000
LIMIT = 60  # seconds; every case below answers in well under one


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang("the command did not answer in time")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, float]:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    t0 = time.perf_counter()
    try:
        with pytest.raises(SystemExit) as exc:
            main(args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err, time.perf_counter() - t0


def assert_one_line_error(code: int, err: str, needle: str) -> None:
    assert "Traceback" not in err
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert len(lines[0]) < 500
    assert needle.lower() in lines[0].lower(), lines[0]


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A scratch working folder with the damaged files of the audit."""
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder.svg").mkdir()
    (tmp_path / "latin1.csv").write_bytes("i,j,k,roll\n0,0,0,1\n# caf\xe9\n".encode("latin-1"))
    (tmp_path / "huge.csv").write_text("i,j,k,roll\n10000000,0,0,1\n")
    (tmp_path / "negative.csv").write_text("i,j,k,roll\n-1,0,0,1\n")
    (tmp_path / "nan.csv").write_text("i,j,k,roll\n0,0,0,nan\n")
    (tmp_path / "columns.csv").write_text("i,j\n0,0\n")
    (tmp_path / "short.csv").write_text("i,j,k,roll\n0,0\n")
    (tmp_path / "empty.npz").write_bytes(b"")
    for name in ("table", "agent"):  # a table whose JSON half is not UTF-8
        np.savez(tmp_path / f"{name}.npz", x=np.zeros(1))
        (tmp_path / f"{name}.json").write_bytes(b'{"kind": "caf\xe9"}')
    (tmp_path / "json-folder.json").mkdir()
    monkeypatch.chdir(tmp_path)
    yield tmp_path


# (arguments, words the error line must contain)
PATH_CASES = [
    (["pig", "plot", "--goal", "10", "--out", "/etc/passwd/x.png"], "not a folder"),
    (["pig", "solve", "--goal", "5", "--out", "/etc/passwd/x"], "not a folder"),
    (["pig", "solve", "--goal", "5", "--out", ""], "needs a file name"),
    (["pig", "plot", "--goal", "5", "--out", "a" * 5000 + ".png"], "too long"),
    (["pig", "plot", "--goal", "5", "--out", "folder"], "must end in .png, .pdf, .svg"),
    (["pig", "plot", "--goal", "5", "--out", "folder.svg"], "is a folder"),
    (["pig", "vs-hold", "hold:5", "--goal", "10", "--out", "x.txt"], ".png, .pdf, .svg"),
    (["pig", "best-response", "hold:5", "--goal", "5", "--out", "/proc/version/x.csv"],
     "not a folder"),
    (["pig", "simulate", "hold:5", "hold:6", "--goal", "5", "--games", "10",
      "--records", "/proc/version/r.parquet"], "not a folder"),
    (["pig", "simulate", "hold:5", "hold:6", "--goal", "5", "--games", "10",
      "--store", "latin1.csv"], "not a folder"),
    (["pig", "tournament", "hold:1..3", "--goal", "5", "--plot", "latin1.csv/x.png"],
     "not a folder"),
    (["simpig", "best-response", "hold:3", "--goal", "6", "--out", "/etc/passwd/x"],
     "not a folder"),
    (["simpig", "plot", "--kind", "contour", "--goal", "6", "--out", "x.gif"], ".png, .pdf, .svg"),
    (["supersix", "plot", "--out", "latin1.csv/x.png"], "not a folder"),
    (["liars", "train", "--players", "2", "--dice", "1", "--games", "5", "--out",
      "/etc/passwd/q"], "not a folder"),
    (["liars", "train", "--players", "2", "--dice", "1", "--games", "5", "--out", "q",
      "--plot", "curve.jpg"], ".png, .pdf, .svg"),
    # the last line of defence: the table's JSON half is a folder (found only while saving)
    (["pig", "solve", "--goal", "5", "--out", "json-folder"], "cannot read or write"),
]

TABLE_CASES = [
    (["pig", "eval", "file:folder.csv", "hold:5", "--goal", "5"], "is a folder"),
    (["pig", "eval", "file:latin1.csv", "hold:5", "--goal", "5"], "not UTF-8"),
    (["pig", "eval", "file:huge.csv", "hold:5", "--goal", "5"], "at most 1000"),
    (["pig", "eval", "file:negative.csv", "hold:5", "--goal", "5"], "must not be negative"),
    (["pig", "eval", "file:nan.csv", "hold:5", "--goal", "5"], "whole numbers only"),
    (["pig", "eval", "file:columns.csv", "hold:5", "--goal", "5"], "header i,j,k,roll"),
    (["pig", "eval", "file:short.csv", "hold:5", "--goal", "5"], "rows of 4 numbers"),
    (["pig", "eval", "file:empty.npz", "hold:5", "--goal", "5"], "cannot read strategy file"),
    (["simpig", "exploitability", "table:table", "--goal", "5"], "not valid JSON"),
    (["simpig", "exploitability", "table:folder", "--goal", "5"], "no table"),
    (["liars", "eval", "--agent", "agent", "--games", "5"], "not valid JSON"),
]

SPEC_CASES = [
    (["pig", "eval", "hold:" + NINES, "hold:5", "--goal", "10"], "whole number from 0"),
    (["pig", "eval", "best-response:" * 400 + "hold:5", "hold:5", "--goal", "10"],
     "more than 8 levels"),
    (["pig", "tournament", "hold:1..100000000", "--goal", "10"], "at most 6 digits"),
    (["pig", "tournament", "hold:1..2000", "--goal", "10"], "more than 1000 strategies"),
    (["pig", "tournament", f"hold:1..{NINES}", "--goal", "10"], "at most 6 digits"),
    (["simpig", "exploitability", "hold:" + NINES, "--goal", "10"], "whole number from 1 to 10"),
    (["simpig", "exploitability", "br:" * 400 + "hold:3", "--goal", "10"], "more than 8 levels"),
    (["simpig", "exploitability", "mix:1e-99999999*hold:5", "--goal", "10"], "2.5e-1"),
    (["simpig", "exploitability", "mix:0.000000000001*hold:5+0.999999999999*hold:3", "--goal",
      "10"], "from 1e-09 to 1"),
    (["simpig", "exploitability", "mix:" + "+".join(["0.01*hold:3"] * 100), "--goal", "10"],
     "at most 32 parts"),
    (["simpig", "exploitability", f"pw:3<{NINES},goal", "--goal", "10"], "threshold"),
    (["simpig", "sweep", "--opponent", f"hold:1..{NINES}", "--goal", "10"], "HI of the range"),
    (["supersix", "eval", "stop-at:" + NINES, "always", "--sticks", "2"], "from 1 to 5"),
    (["supersix", "query", f"5/1/{NINES}/1"], "LID/OWN/OPP/FORCED"),
    (["pig", "simulate", "hold:5", "hold:6", "--goal", "5", "--seed", "-1"], "--seed"),
    (["supersix", "simulate", "always", "always", "--seed", "-1"], "--seed"),
    (["supersix", "simulate", "always", "always", "--games", str(10**12)], "--games"),
    (["liars", "train", "--games", str(10**15), "--out", "q"], "--games"),
    (["liars", "train", "--seed", "-5", "--games", "5", "--out", "q"], "--seed"),
    (["liars", "solve", "--iterations", str(10**12)], "--iterations"),
    (["stats", "sample-size", "--margin", "5e-324"], "--margin must be at least 1e-06"),
    (["stats", "interval", "--wins", "6", "--games", str(10**21), "--method", "exact"],
     "--games"),
]


def _id(x: object) -> str:
    return " ".join(x)[:60] if isinstance(x, list) else ""


@pytest.mark.parametrize("args,needle", PATH_CASES, ids=_id)
def test_bad_paths_are_one_line(args, needle, here, capsys):
    code, out, err, _ = run(args, capsys)
    assert_one_line_error(code, err, needle)
    assert out == ""


@pytest.mark.parametrize("args,needle", TABLE_CASES, ids=_id)
def test_bad_table_files_are_one_line(args, needle, here, capsys):
    code, out, err, seconds = run(args, capsys)
    assert_one_line_error(code, err, needle)
    assert seconds < 20  # huge.csv must not allocate a (10^7)^3 table


@pytest.mark.parametrize("args,needle", SPEC_CASES, ids=_id)
def test_absurd_specs_and_counts_are_refused_up_front(args, needle, here, capsys):
    code, _, err, seconds = run(args, capsys)
    assert_one_line_error(code, err, needle)
    assert seconds < 20


def test_plot_extension_is_checked_before_the_work(here, capsys, monkeypatch):
    import dicelab.pig.lab_plots as lab

    def no_work(*a, **k):
        raise AssertionError("the evaluation ran before --out was checked")

    monkeypatch.setattr(lab, "against_holds", no_work)
    code, _, err, _ = run(["pig", "vs-hold", "hold:5", "--goal", "10", "--out", "x.txt"], capsys)
    assert_one_line_error(code, err, "--out must end in .png, .pdf, .svg")


def test_end_of_data_is_not_aborted(here, capsys):
    # np.load of a 0-byte file raises EOFError, which click turns into "aborted" and exit 1
    code, _, err, _ = run(["pig", "eval", "file:empty.npz", "hold:1", "--goal", "4"], capsys)
    assert code == 2 and "aborted" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("goal", ["24", "12", "3"])
def test_simpig_selfplay_defaults_follow_the_goal(goal, here, capsys):
    # a hidden start at hold:25 refused every goal below 25
    code, out, err, _ = run(["simpig", "selfplay", "--goal", goal, "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["goal"] == int(goal) and data["cycle_length"] >= 1


@pytest.mark.parametrize(
    "args",
    [
        ["simpig", "sweep", "--goal", "12"],
        ["simpig", "plot", "--kind", "contour", "--goal", "12", "--out", "c.png"],
        ["simpig", "plot", "--kind", "br-curve", "--goal", "8", "--out", "b.png"],
        ["simpig", "plot", "--kind", "surface3", "--goal", "5", "--out", "s.svg"],
        ["simpig", "plot", "--kind", "slices", "--goal", "10", "--out", "s.pdf"],
        ["pig", "vs-hold", "hold:3", "--goal", "10"],
    ],
)
def test_defaults_follow_the_goal(args, here, capsys):
    # hold:10..40, hold:25, hold:20..30, slices at 25..90 and --max 100 are the defaults of goal
    # 100; other goals scale them
    code, out, err, _ = run([*args, "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    if "rows" in data:  # the sweep: hold:1..5 at goal 12 (10% to 40% of the goal)
        assert [r["n"] for r in data["rows"]] == [1, 2, 3, 4, 5]
    elif "a_overall" in data:  # vs-hold: opponents hold:1 .. hold:goal
        assert data["n"] == list(range(1, 11))
    else:
        assert Path(data["out"]).stat().st_size > 0


@pytest.mark.parametrize(
    "args,needle",
    [
        (["pig", "eval", "hold:" + NINES, "hold:5", "--goal", "10"], "whole number from 0"),
        (["simpig", "exploitability", "mix:1e-99999999*hold:5", "--goal", "10"], "2.5e-1"),
        (["pig", "solve", "--goal", "5", "--out", "/etc/passwd/x"], "not a folder"),
    ],
)
def test_real_process_gives_one_line(args, needle, tmp_path):
    env = {**os.environ, "COLUMNS": "100"}
    p = subprocess.run([sys.executable, "-m", "dicelab", *args], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path, env=env)
    assert_one_line_error(p.returncode, p.stderr, needle)
