"""`dicelab puzzles`: --json prints one object, a built set round-trips through --out and list,
bad input is one line with exit 2, and the options are fuzzed as in test_cli_fuzz.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicelab.core import puzzles as pz
from dicelab.core import registry

sys.path.insert(0, str(Path(__file__).parent))
from test_cli_fuzz import HOSTILE_INTS, HOSTILE_PATHS, HOSTILE_TEXT, QUICK, check_cli, make_work_files, run_cli


def test_build_json_is_one_object_with_the_drawn_puzzles():
    code, out, err, _ = run_cli(["puzzles", "build", "--game", "supersix", "--count", "3", "--seed", "2", "--json"])
    assert code == 0, err
    d = json.loads(out)  # exactly one object: json.loads refuses trailing data
    assert d["puzzles"] == pz.draw(pz.source_of(registry.get("supersix")), 3, 2)
    assert d["games"]["supersix"]["puzzles"] == 3 and d["seed"] == 2 and d["out"] is None


def test_build_out_then_list_round_trips(tmp_path):
    out = tmp_path / "set.json"
    code, text, err, _ = run_cli(["puzzles", "build", "--game", "supersix", "--count", "2", "--seed", "1",
                                  "--out", str(out), "--json"])
    assert code == 0, err
    summary = json.loads(text)
    assert summary["out"] == str(out) and summary["puzzles"] == 2 and "puzzles" not in json.dumps(summary["games"])[:0]
    code, text, err, _ = run_cli(["puzzles", "list", "--from", str(out), "--json"])
    assert code == 0, err
    assert [p["id"] for p in json.loads(text)["puzzles"]] == [p["id"] for p in pz.load(out)["puzzles"]]
    code, text, _, _ = run_cli(["puzzles", "list", "--from", str(out), "--game", "pig", "--json"])
    assert code == 0 and json.loads(text)["puzzles"] == []
    code, text, _, _ = run_cli(["puzzles", "list"])  # the shipped set, for people
    assert code == 0 and "puzzles" in text


@pytest.mark.parametrize("argv, says", [
    (["build", "--game", "chess"], "--game must be one of all, hog, liars, pig, simpig, supersix"),
    (["build", "--game", "pig", "--count", "0"], "--count must be from 1"),
    (["build", "--game", "pig", "--count", "5001"], "--count must be from 1"),
    (["build", "--game", "pig", "--seed", "-1"], "--seed must be from 0"),
    (["build", "--game", "pig", "--out", "set.txt"], "--out must end in .json"),
    (["build"], "Missing option '--game'"),
    (["list", "--from", "missing.json"], "no document at missing.json"),
    (["list", "--from", "bad.json"], "bad.json is not valid JSON"),
    (["list", "--from", "t.json"], "expected 'dicelab-puzzles'"),
])
def test_bad_input_is_one_line_and_exit_2(argv, says, tmp_path, monkeypatch):
    make_work_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err, _ = run_cli(["puzzles", *argv])
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and says in err, err


def test_a_damaged_set_is_refused_by_list_and_serve(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = pz.save(tmp_path / "set.json", {"seed": 0, "count": 0, "games": {}, "seconds": 0.0, "puzzles": []})
    path.write_text(path.read_text().replace('"seed":0', '"seed":1'))
    for argv in (["puzzles", "list", "--from", str(path)], ["serve", "--puzzles", str(path), "--port", "1"]):
        code, _, err, _ = run_cli(argv)
        assert code == 2 and len(err.splitlines()) == 1 and "damaged" in err, err


GAMES = st.sampled_from(["hog", "supersix", "all", "", "PIG", "chess", *HOSTILE_TEXT])  # quick games only
COUNTS = st.one_of(st.integers(1, 3).map(str), st.sampled_from(HOSTILE_INTS))


@st.composite
def puzzle_argv(draw) -> list[str]:
    if draw(st.booleans()):
        game = draw(GAMES)
        if game == "all":  # every game at once takes seconds a count: only as a bad combination
            return ["puzzles", "build", "--game", "all", "--count", draw(st.sampled_from(HOSTILE_INTS))]
        args = ["puzzles", "build", "--game", game]
        if draw(st.booleans()):
            args += ["--count", draw(COUNTS)]
        if draw(st.booleans()):
            args += ["--seed", draw(st.one_of(st.integers(0, 9).map(str), st.sampled_from(HOSTILE_INTS)))]
        if draw(st.booleans()):
            args += ["--out", draw(st.sampled_from([*HOSTILE_PATHS, "set.json", "sub/set.json"]))]
    else:
        args = ["puzzles", "list"]
        if draw(st.booleans()):
            args += ["--from", draw(st.sampled_from([*HOSTILE_PATHS, "t.json", "bad.json"]))]
        if draw(st.booleans()):
            args += ["--game", draw(GAMES)]
    if draw(st.booleans()):
        args.append("--json")
    return args


def test_fuzz_puzzles_options(tmp_path: Path, monkeypatch):
    make_work_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")

    @settings(max_examples=4 * QUICK, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
              database=None)
    @given(argv=puzzle_argv())
    def run(argv: list[str]) -> None:
        check_cli(argv)

    run()
