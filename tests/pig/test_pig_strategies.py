"""Pig strategies: the spec language, the built-ins' exact rules, table files and bad specs."""

from __future__ import annotations

import math
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigRules
from dicelab.pig.solver import solve_cached
from dicelab.pig.specs import as_strategy, compile_table, expand_specs, parse_strategy
from dicelab.pig.strategies import load_strategy_table, save_strategy

R30 = PigRules(goal=30)
R100 = PigRules()


def _valid(g: int):
    for i in range(g):
        for j in range(g):
            for k in range(g - i):
                yield i, j, k


def test_hold_n_rolls_below_n():
    t = parse_strategy("hold:7").table(R30)
    assert t.shape == (30, 30, 30) and t.dtype == np.bool_
    for i, j, k in _valid(30):
        assert t[i, j, k] == (k < 7)
    assert not parse_strategy("hold:0").table(R30).any()


def test_every_strategy_banks_at_the_goal():
    g = 30
    i = np.arange(g)[:, None, None]
    k = np.arange(g)[None, None, :]
    beyond = np.broadcast_to(i + k >= g, (g, g, g))
    for spec in (
        "hold:100",
        "roll-to-win",
        "keep-pace",
        "turtle",
        "roll-and-wait",
        "optimal",
        "best-response:hold:10",
    ):
        t = parse_strategy(spec).table(R30)
        assert not t[beyond].any(), spec
    always = as_strategy(lambda my, opp, tt: True, "always").table(R30)
    assert not always[beyond].any() and always[~beyond].all()


def _keep_pace_reference(i: int, j: int, k: int, goal: int = 100) -> bool:
    """Neller's keep pace and end race, word for word from the issue (goal 100)."""
    if i + k >= goal:
        return False
    if i >= 71 or j >= 71:
        return True
    x = Fraction(j - i, 8)
    rounded = math.floor(x + Fraction(1, 2))  # round half up
    return k < 21 + rounded


def test_keep_pace_exact_rule_at_goal_100():
    t = parse_strategy("keep-pace").table(R100)
    for i, j, k in _valid(100):
        assert t[i, j, k] == _keep_pace_reference(i, j, k), (i, j, k)
    # rounding halves up: j - i = 4 gives 21 + round(0.5) = 22; j - i = -4 gives 21 + 0 = 21
    assert t[10, 14, 21] and not t[10, 14, 22]
    assert t[14, 10, 20] and not t[14, 10, 21]


def test_turtle_and_roll_to_win_and_roll_and_wait():
    t = parse_strategy("turtle").table(R100)
    assert np.array_equal(t, parse_strategy("hold:5").table(R100))
    rtw = parse_strategy("roll-to-win").table(R100)
    for i, j, k in [(0, 0, 0), (0, 50, 99), (60, 99, 39)]:
        assert rtw[i, j, k]
    raw = parse_strategy("roll-and-wait").table(R100)
    assert raw[0, 0, 0] and raw[0, 0, 19] and not raw[0, 0, 20]  # hold:20 in the run-up
    assert raw[70, 0, 9] and not raw[70, 0, 10]  # never past 80 in the run-up
    assert not raw[80, 50, 0]  # waits while the opponent is behind
    assert raw[80, 80, 0] and raw[82, 90, 17]  # then rolls to win


def test_optimal_is_the_solver_policy():
    assert np.array_equal(parse_strategy("optimal").table(R30), solve_cached(R30).roll)


def test_callable_strategy_is_compiled_per_state():
    calls = []

    def f(my, opp, tt):
        calls.append((my, opp, tt))
        return tt < 3 or my < opp

    t = compile_table(f, PigRules(goal=6))
    assert len(calls) == 6 * 6 * 7 // 2
    assert t[5, 0, 0] and not t[2, 1, 3] and t[1, 2, 3]


@pytest.mark.parametrize("suffix", [".csv", ".npz"])
def test_table_files_round_trip(tmp_path, suffix):
    rules = PigRules(goal=12)
    t = parse_strategy("keep-pace").table(rules)
    path = save_strategy(tmp_path / f"kp{suffix}", t, "keep-pace", rules)
    s = parse_strategy(f"file:{path}")
    assert np.array_equal(s.table(rules), t)
    with pytest.raises(DicelabError, match="goal"):
        s.table(PigRules(goal=13))


def test_plain_npz_and_bad_files(tmp_path):
    t = (np.arange(8)[None, None, :] < 3) & np.ones((8, 8, 8), dtype=bool)
    np.savez(tmp_path / "plain.npz", roll=t.astype(np.uint8))
    assert np.array_equal(
        load_strategy_table(tmp_path / "plain.npz"),
        parse_strategy("hold:3").table(PigRules(goal=8)),
    )
    np.savez(tmp_path / "noroll.npz", other=t)
    (tmp_path / "bad.csv").write_text("i,j,k,roll\n0,0,0,1\n1,0,0,1\n")
    (tmp_path / "head.csv").write_text("a,b\n")
    (tmp_path / "x.txt").write_text("")
    for name, match in [
        ("noroll.npz", "no array named"),
        ("bad.csv", "every state"),
        ("head.csv", "header"),
        ("x.txt", ".csv or .npz"),
        ("missing.csv", "does not exist"),
    ]:
        with pytest.raises(DicelabError, match=match) as exc:
            parse_strategy(f"file:{tmp_path / name}")
        assert "\n" not in str(exc.value)


def _damaged_npz(tmp_path, how: str) -> Path:
    """A bare ``roll`` table (no JSON beside it) damaged in one way."""
    good = tmp_path / "good.npz"
    np.savez_compressed(good, roll=np.zeros((8, 8, 8), dtype=bool))
    data = good.read_bytes()
    bad = tmp_path / f"{how}.npz"
    if how == "truncated":
        bad.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        bad.write_bytes(b"")
    elif how == "text":
        bad.write_text("i,j,k,roll\n0,0,0,1\n")
    elif how == "npy":  # a plain .npy file renamed .npz
        np.save(tmp_path / "t.npy", np.zeros((8, 8, 8), dtype=bool))
        (tmp_path / "t.npy").rename(bad)
    elif how in ("crc", "deflate"):  # one flipped byte inside, or a stretch of garbage in, the data
        info = zipfile.ZipFile(good).infolist()[0]
        at = info.header_offset  # the data follows the local header and its name and extra field
        start = at + 30 + int.from_bytes(data[at + 26 : at + 28], "little") + int.from_bytes(
            data[at + 28 : at + 30], "little"
        )
        raw = bytearray(data)
        if how == "crc":
            raw[start + info.compress_size // 2] ^= 0x01
        else:
            raw[start + 2 : start + 12] = b"\xff" * 10
        bad.write_bytes(bytes(raw))
    elif how == "not-npy-member":
        with zipfile.ZipFile(bad, "w") as z:
            z.writestr("roll.npy", b"hello")
    return bad


@pytest.mark.parametrize(
    "how", ["truncated", "empty", "text", "npy", "crc", "deflate", "not-npy-member"]
)
def test_a_damaged_npz_is_one_line_naming_the_file(tmp_path, how, capsys, monkeypatch):
    from dicelab.cli.main import main

    monkeypatch.chdir(tmp_path)  # a short name, shown whole in the message
    bad = _damaged_npz(tmp_path, how).name
    with pytest.raises(DicelabError) as exc:
        parse_strategy(f"file:{bad}")
    assert "\n" not in str(exc.value) and f"{how}.npz" in str(exc.value)
    with pytest.raises(SystemExit) as code:
        main(["pig", "eval", f"file:{bad}", "hold:3", "--goal", "8"])
    err = capsys.readouterr().err
    assert code.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "hold",
        "hold:",
        "hold:-1",
        "hold:x",
        "hold:2.5",
        "hold:1..5",
        "best-response:",
        "best-response:nonsense",
        "file:",
        "optimum",
        "keep_pace",
        "roll to win",
    ],
)
def test_bad_specs_one_line_errors(spec):
    with pytest.raises(DicelabError) as exc:
        parse_strategy(spec)
    assert "\n" not in str(exc.value)


def test_expand_ranges():
    assert expand_specs(["hold:1..3", "keep-pace"]) == ["hold:1", "hold:2", "hold:3", "keep-pace"]
    assert expand_specs(["hold:10..30:10"]) == ["hold:10", "hold:20", "hold:30"]
    assert len(expand_specs(["hold:1..100"])) == 100
    for bad in ("hold:5..1", "hold:1..5:0", "keep..pace", "hold:0..5000"):
        with pytest.raises(DicelabError):
            expand_specs([bad])


def test_best_response_spec_names_its_target():
    s = parse_strategy("best-response:hold:20")
    assert s.name == "best-response:hold:20"
    assert parse_strategy("best-response:best-response:hold:20").name.count("best-response") == 2


def test_as_strategy_rejects_other_types():
    with pytest.raises(DicelabError):
        as_strategy(3.5)
    with pytest.raises(DicelabError):
        as_strategy(np.zeros((3, 4, 5), dtype=bool))
