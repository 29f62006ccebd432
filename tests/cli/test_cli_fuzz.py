"""Fuzz targets for the command line and the strategy-spec parsers (like python-chess's ``fuzz/``).

Hypothesis builds argument lists for every command of the click tree (walked from the app, so a
new command is fuzzed without editing this file): real option names mixed with hostile values
(huge, negative, empty, unicode, paths to folders, non-UTF-8 or missing files, unwritable places,
deeply nested or huge strategy specs). Each example runs in-process through ``main(argv)`` under a
time limit and must end with exit 0, or with exit 2 and exactly one line on stderr; any escaping
exception, other exit code or hang fails. The parser targets feed grammar-built and random text to
each game's spec parser: it must succeed or raise :class:`~dicelab.core.errors.DicelabError`, quickly.

``DICELAB_FUZZ_EXAMPLES=N`` sets the examples per command (default: a few, about a minute in all);
the ``slow`` variants run many more.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba.core.compiler_lock import global_compiler_lock

from dicelab.cli.main import app, main
from dicelab.core.errors import DicelabError

QUICK = int(os.environ.get("DICELAB_FUZZ_EXAMPLES", "3"))
SLOW = int(os.environ.get("DICELAB_FUZZ_SLOW_EXAMPLES", "60"))
LIMIT = float(os.environ.get("DICELAB_FUZZ_LIMIT", "60"))  # seconds per example, soft (cold numba compiles under load fit)
HARD_LIMIT = 10 * LIMIT  # no return to Python (a C loop): dump the stacks and stop the process


# ---------------------------------------------------------------------------------------------
# the command tree and hostile values
# ---------------------------------------------------------------------------------------------


def _walk(cmd: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    subs = getattr(cmd, "commands", None)
    if subs is None:
        yield path, cmd
        return
    for name, sub in sorted(subs.items()):
        yield from _walk(sub, (*path, name))


COMMANDS = dict(_walk(typer.main.get_command(app), ()))
FUZZED = sorted(p for p in COMMANDS if p != ("serve",))  # serve is fuzzed with bad ports only

# Files the examples point at, made in the working folder (see the ``workdir`` fixture).
WORK_FILES: dict[str, bytes | None] = {
    "folder": None,  # a directory
    "folder.csv": None,  # a directory named like a table
    "folder.npz": None,
    "latin1.csv": "i,j,k,roll\n0,0,0,1\n# caf\xe9\n".encode("latin-1"),
    "binary.npz": b"\xff\xfe\x00garbage\x80" * 7,
    "empty.npz": b"",
    "empty.csv": b"",
    "huge.csv": b"i,j,k,roll\n10000000,0,0,1\n",
    "neg.csv": b"i,j,k,roll\n-1,0,0,1\n",
    "nan.csv": b"i,j,k,roll\n0,0,0,nan\n",
    "short.csv": b"i,j,k,roll\n0,0\n",
    "columns.csv": b"i,j\n0,0\n",
    "header.csv": b"i,j,k,roll\n",
    "big.csv": b"i,j,k,roll\n" + b"99999999999999999999999,0,0,1\n",
    "t.json": b"{\"kind\": 3}",
    "t.npz": b"PK\x03\x04 not really a zip",
    "bad.json": b"\xff\xfe not utf-8",
    "bad.npz": b"PK\x05\x06" + b"\x00" * 18,
}
HOSTILE_PATHS = [
    *WORK_FILES,
    "missing.csv",
    "missing.npz",
    "missing",
    "",
    ".",
    "./",
    "..",
    "folder/..",  # empty-name paths (issue 23); '/', '//' and '/.' in test_empty_name_paths_are_one_line
    "/etc/passwd/x.png",
    "/proc/version/x.npz",
    "/proc/self/nope/x.parquet",
    "/proc/version",
    "a" * 300 + ".png",
    "a" * 5000 + ".png",
    "b/" * 2100 + "x.csv",
    "out.txt",
    "out.png",
    "out.pdf",
    "out.svg",
    "out.csv",
    "out.npz",
    "out.parquet",
    "sub/dir/out.png",
    "ünïcødé/ø.png",
    "nul\x00byte.png",
    "folder/x.png",
    "x.PNG",
    "-",
    "--",
]
HUGE_INTS = ["9" * 5000, "9" * 4300, str(2**63), str(2**64), "-" + "9" * 30, str(10**30)]
HOSTILE_INTS = ["-1", "0", "-0", "+3", "1_0", "١٢", "0x10", "1e3", " 7", "", "nan", *HUGE_INTS]
HOSTILE_FLOATS = ["nan", "-nan", "inf", "-inf", "1e309", "-1e309", "0", "-0.5", "1", "1.5",
                  "5e-324", "1e-99999999", "0x1p-3", "", "½", *HUGE_INTS[:3]]
HOSTILE_TEXT = ["", " ", "\t", "é", "中文", "\u202e", "%s", "{}", "'", "\\", "--json", "-x",
                "a" * 5000, "\udcff", "😀" * 50, "\n", "x\ny"]

# Options that set how much work a command does: legitimate values stay small, so that an example
# that is accepted finishes in a moment; hostile values (beyond every cap) come from HOSTILE_INTS.
SMALL = {
    "--goal": (2, 14),
    "--games": (1, 60),
    "--eval-games": (1, 30),
    "--iterations": (1, 30),
    "--max": (1, 12),
    "--max-iter": (1, 3),
    "--max-sticks": (1, 3),
    "--sticks": (1, 3),
    "--simulate": (1, 40),
    "--players": (2, 3),
    "--turn-limit": (1, 6),
    "--max-total": (2, 7),
    "--max-dice": (1, 1),  # liars train-all: every duel size up to this many dice (5 takes 20 minutes)
    "--min-lid": (0, 5),
    "--workers": (1, 1),
    "--seed": (0, 9),
    "--seat": (1, 3),
    "--port": (0, 0),
}


def _numbers(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.integers(lo, hi).map(str)


def _number_text() -> st.SearchStrategy[str]:
    return st.one_of(_numbers(0, 40), st.sampled_from(HOSTILE_INTS))


# --- strategy-spec grammars -----------------------------------------------------------------

SPEC_PATHS = st.sampled_from(HOSTILE_PATHS)


def _nest(prefix: str, inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``prefix`` repeated 1 to 500 times in front of ``inner``."""
    return st.tuples(st.sampled_from([1, 2, 3, 8, 9, 50, 400, 500]), inner).map(
        lambda t: prefix * t[0] + t[1]
    )


def _range(prefix: str) -> st.SearchStrategy[str]:
    n = _number_text()
    return st.tuples(n, n, st.one_of(st.just(""), n.map(lambda s: ":" + s))).map(
        lambda t: f"{prefix}{t[0]}..{t[1]}{t[2]}"
    )


def pig_specs() -> st.SearchStrategy[str]:
    named = st.sampled_from(
        ["optimal", "opt", "keep-pace", "turtle", "roll-to-win", "roll-and-wait", "OPTIMAL",
         "hold:"]
    )
    atom = st.one_of(
        named,
        _number_text().map(lambda n: "hold:" + n),
        SPEC_PATHS.map(lambda p: "file:" + p),
        _range("hold:"),
    )
    return st.one_of(atom, _nest("best-response:", atom), st.sampled_from(HOSTILE_TEXT))


def _weights() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["0.5", "1/2", "1/3", "1", "0", "-0.5", "2", "1e-99999999", "1e-5",
                         "1e+400",
                         "nan", "inf", "1/0", "0.5e0", "5e-324", "9" * 5000, "1/" + "9" * 5000,
                         "0." + "0" * 5000 + "1", "½", ""]),
        st.floats(0, 1).map(repr),
    )


def simpig_specs() -> st.SearchStrategy[str]:
    n = _number_text()
    target = st.one_of(n, st.just("goal"))
    pw = st.lists(st.tuples(target, n), min_size=0, max_size=6).flatmap(
        lambda pieces: target.map(
            lambda last: "pw:" + ",".join([f"{k}<{t}" for k, t in pieces] + [last])
        )
    )
    atom = st.one_of(
        st.sampled_from(["equilibrium", "optimal", "svima", "svima-b", "cyclic:1", "cyclic:2",
                         "cyclic:3", "hold:goal", "pw:", "mix:", "br:", "table:", "25<40,goal"]),
        n.map(lambda s: "hold:" + s),
        pw,
        SPEC_PATHS.map(lambda p: "table:" + p),
        _range("hold:"),
        st.lists(n, min_size=1, max_size=5).map(lambda xs: "hold:" + ",".join(xs)),
    )
    plain = st.one_of(atom, _nest("br:", atom))
    mix = st.lists(st.tuples(_weights(), plain), min_size=1, max_size=40).map(
        lambda terms: "mix:" + "+".join(f"{w}*{s}" for w, s in terms)
    )
    nested_mix = _nest("mix:1*", atom)
    return st.one_of(plain, mix, nested_mix, _nest("br:", mix), st.sampled_from(HOSTILE_TEXT))


def supersix_specs() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["optimal", "always", "ALWAYS", "stop-at:", "stop-at:0", "stop-at:6"]),
        _number_text().map(lambda n: "stop-at:" + n),
        st.sampled_from(HOSTILE_TEXT),
    )


def liars_agents() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(["random", "probabilistic", "genius"]), SPEC_PATHS)


def _comma_list(item: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(item, min_size=0, max_size=12).map(",".join)


ANY_SPEC = st.one_of(pig_specs(), simpig_specs(), supersix_specs(), liars_agents())
TEXT = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=30), ANY_SPEC)

# Values by option name, where the name says more than the type does.
BY_NAME: dict[str, st.SearchStrategy[str]] = {
    "--variant": st.sampled_from(["standard", "piglet", "two-dice", "big-pig", "", "STANDARD"]),
    "--kind": st.sampled_from(["boundary", "heatmap", "br-curve", "contour", "slices", "surface3",
                               "strategy", "edge", "nope", ""]),
    "--wild": st.sampled_from(["none", "ones", "highest", "wild", ""]),
    "--method": st.sampled_from(["dcfr", "cfr+", "cfr+2", "pcfr+", "pdcfr+", "exact", "wilson",
                                 "cfr", ""]),
    "--design": st.sampled_from(["seed", "extended", "other", ""]),
    # dask and ray start clusters (seconds each): the quick fuzz gives only bad or local backends
    "--backend": st.sampled_from(["local", "spark", "", "DASK"]),
    "--address": st.sampled_from(["tcp://127.0.0.1:1", "ray://nowhere:1", "auto", "", "x" * 300]),
    "--opponents": st.one_of(_comma_list(st.sampled_from(["random", "probabilistic", "x", ""])),
                             st.sampled_from(["hold:10..40", "hold:1..9", "10,20"]),
                             _range("hold:")),
    "--opponent": st.one_of(simpig_specs(), _range("hold:"), _range("")),
    "--bots": _comma_list(st.sampled_from(["random", "probabilistic", "x", ""])),
    "--dice": st.one_of(_comma_list(_numbers(0, 3)), _comma_list(st.sampled_from(HOSTILE_INTS)),
                        _numbers(0, 4)),
    "--at": _comma_list(st.one_of(_numbers(0, 14), st.sampled_from(HOSTILE_INTS))),
    "--sweep": st.sampled_from(["seed=0..1", "alpha=0.1,0.2", "seed=0..99999999999", "x=1",
                                "seed=0..1;alpha=nan", "games=" + "9" * 5000, "", ";;", "seed"]),
    "--strategy": st.one_of(simpig_specs(), supersix_specs()),
    "--others": simpig_specs(),
    "--agent": liars_agents(),
    "--db": st.sampled_from(["sqlite:///folder", "nope://", ""]),
    "--host": st.sampled_from(["127.0.0.1", "", "999.1.1.1"]),
    "--target": st.one_of(st.sampled_from(HOSTILE_FLOATS), st.just("0.1"), st.just("0.01")),
    "--confidence": st.one_of(st.sampled_from(HOSTILE_FLOATS), st.just("0.9")),
    "--margin": st.one_of(st.sampled_from(HOSTILE_FLOATS), st.just("0.1")),
}
ARG_BY_NAME: dict[str, st.SearchStrategy[str]] = {
    "state": st.one_of(
        st.lists(_number_text(), min_size=2, max_size=5).map("/".join),
        st.sampled_from(HOSTILE_TEXT),
    ),
    "pairs": st.one_of(st.tuples(pig_specs(), pig_specs()).map(",".join), pig_specs()),
}
GAME_SPECS = {"pig": pig_specs(), "simpig": simpig_specs(), "supersix": supersix_specs()}


def _annotation(param: Any) -> Any:
    td = getattr(param, "type_descriptor", None)
    ann = getattr(td, "annotation", None)
    if ann is None and param.default is not None:
        ann = type(param.default)
    return ann


def _value(path: tuple[str, ...], param: Any, name: str) -> st.SearchStrategy[str]:
    """Hostile or legitimate text for one parameter of the command at ``path``."""
    if name in SMALL:
        lo, hi = SMALL[name]
        return st.one_of(_numbers(lo, hi), _numbers(lo, hi), st.sampled_from(HOSTILE_INTS))
    if name in BY_NAME:
        return BY_NAME[name]
    if param.name in ARG_BY_NAME:
        return ARG_BY_NAME[param.name]
    ann = _annotation(param)
    text = str(ann)
    if ann is int or "int" in text:
        return st.one_of(_numbers(0, 14), st.sampled_from(HOSTILE_INTS))
    if ann is float or "float" in text:
        return st.one_of(st.floats(-2, 2).map(repr), st.sampled_from(HOSTILE_FLOATS))
    if ann is Path or "Path" in text:
        return SPEC_PATHS
    game = GAME_SPECS.get(path[0])
    if game is not None and param.param_type_name == "argument":
        return st.one_of(game, game, TEXT)
    return TEXT


@st.composite
def argv_for(draw: Callable, path: tuple[str, ...]) -> list[str]:
    """One argument list for the command at ``path``: its real options with fuzzed values."""
    cmd = COMMANDS[path]
    args: list[str] = list(path)
    positional: list[str] = []
    for p in cmd.params:
        if p.param_type_name == "argument":
            if not p.required and draw(st.booleans()):
                continue
            count = 1 if p.nargs == 1 else draw(st.integers(1 if p.required else 0, 4))
            positional += [draw(_value(path, p, p.name)) for _ in range(count)]
            continue
        name = p.opts[0]
        use = p.required or name in ("--goal", "--max-dice") or draw(st.integers(0, 3)) == 0
        if name == "--help" or not use and not p.is_flag:
            continue
        if p.is_flag:
            if draw(st.booleans()):
                args.append(draw(st.sampled_from(p.opts + p.secondary_opts)))
            continue
        if p.required and draw(st.integers(0, 9)) == 0:
            continue  # a missing required option
        args += [name, draw(_value(path, p, name))]
    if positional and draw(st.booleans()):
        args.append("--")  # so that values starting with '-' stay values
    args += positional
    if draw(st.integers(0, 9)) == 0:
        args.insert(draw(st.integers(len(path), len(args))), draw(TEXT))
    return args


STDIN = st.lists(st.sampled_from(["call", "c", "liar", "1x2", "2x6", "0x1", "99x99", "x", "",
                                  "1x" + "9" * 5000, "9" * 5000 + "x2", "é"]), max_size=8)


# ---------------------------------------------------------------------------------------------
# running one example
# ---------------------------------------------------------------------------------------------


class Hang(BaseException):
    """Raised by the alarm when an example overruns its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: Any) -> None:
        # Not while numba compiles: the alarm can land in the ctypes callback where LLVM hands
        # numba the object code, where the exception is swallowed and the function's cache entry
        # is left without its code; numba then fails later with "no compiled object yet" (seen
        # once on a loaded fresh clone, 2026-12-06). A cold compile is not a hang: look again in
        # a second (the hard limit still stops a real one).
        if global_compiler_lock.is_locked():
            signal.setitimer(signal.ITIMER_REAL, 1.0)
            return
        raise Hang(f"no answer within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(
        max(HARD_LIMIT, 10 * seconds), exit=True, file=sys.__stderr__
    )
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old)


def run_cli(argv: list[str], stdin: str = "") -> tuple[int, str, str, float]:
    """Run ``main(argv)`` in-process; (exit code, stdout, stderr, seconds). Escapes propagate."""
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    code: Any = 0
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(LIMIT):
            main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stdin = old_in
    return (code if isinstance(code, int) else 1), out.getvalue(), err.getvalue(), (
        time.perf_counter() - t0
    )


# ``liars play --json`` writes the game for people on stderr; its error is the last line there.
INTERACTIVE = {("liars", "play")}


def check_cli(argv: list[str], stdin: str = "") -> None:
    """Fail unless ``argv`` ends with exit 0, or exit 2 and exactly one non-empty stderr line."""
    shown = [a if len(a) < 80 else a[:40] + f"...({len(a)} chars)" for a in argv]
    code, _, err, seconds = run_cli(argv, stdin)
    assert "Traceback" not in err, f"{shown}: traceback on stderr:\n{err[-2000:]}"
    assert code in (0, 2), f"{shown}: exit code {code}, stderr {err[-500:]!r}"
    if code == 2:
        lines = err.splitlines()
        if tuple(argv[:2]) in INTERACTIVE and len(lines) > 1:  # the error follows a prompt
            lines = ["error: " + lines[-1].partition("error: ")[2]]
        assert len(lines) == 1 and lines[0].startswith("error: "), (
            f"{shown}: stderr is not one error line: {err[:500]!r}"
        )
        assert len(lines[0]) <= 1000, f"{shown}: a {len(lines[0])}-character error line"




def make_work_files(folder: Path) -> None:
    for name, data in WORK_FILES.items():
        p = folder / name
        if data is None:
            p.mkdir(exist_ok=True)
        else:
            p.write_bytes(data)


@pytest.fixture()
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch working folder holding the hostile files; every output lands in it."""
    make_work_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    return tmp_path


def _env_settings() -> st.SearchStrategy[tuple[str, str] | None]:
    """No change, or one environment variable dicelab reads set to a hostile or good value (every
    value here is a name inside the working folder, so a cache folder lands there)."""
    from dicelab.core.env import VARIABLES

    return st.one_of(st.none(), st.tuples(st.sampled_from(sorted(VARIABLES)), st.sampled_from(HOSTILE_ENV)))


@contextlib.contextmanager
def environment(setting: tuple[str, str] | None) -> Iterator[None]:
    if setting is None:
        yield
        return
    name, value = setting
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def _fuzz_command(path: tuple[str, ...], examples: int) -> Callable[[], None]:
    @settings(max_examples=examples, deadline=None, derandomize=examples <= QUICK,
              suppress_health_check=list(HealthCheck), database=None)
    @given(argv=argv_for(path), stdin=STDIN, setting=_env_settings())
    def run(argv: list[str], stdin: list[str], setting: tuple[str, str] | None) -> None:
        with environment(setting):
            check_cli(argv, "\n".join(stdin) + ("\n" if stdin else ""))

    return run


@pytest.mark.parametrize("path", FUZZED, ids=" ".join)
def test_fuzz_command(path: tuple[str, ...], workdir: Path) -> None:
    _fuzz_command(path, QUICK)()


@pytest.mark.slow
@pytest.mark.parametrize("path", FUZZED, ids=" ".join)
def test_fuzz_command_long(path: tuple[str, ...], workdir: Path) -> None:
    _fuzz_command(path, SLOW)()


@pytest.mark.parametrize("port", ["0", "-1", "65536", "9" * 5000, "x", ""])
def test_fuzz_serve_bad_port(port: str, workdir: Path) -> None:
    code, _, err, _ = run_cli(["serve", "--port", port])
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err


def test_every_command_is_fuzzed() -> None:
    # the tree walk finds the commands of every group (a sanity check on the walk itself)
    groups = {p[0] for p in FUZZED}
    assert {"pig", "simpig", "supersix", "liars", "stats", "version"} <= groups
    assert ("pig", "solve") in FUZZED and ("liars", "play") in FUZZED and len(FUZZED) >= 30


# ---------------------------------------------------------------------------------------------
# the strategy-spec parsers
# ---------------------------------------------------------------------------------------------


def _parsers() -> dict[str, tuple[Callable[[str], Any], st.SearchStrategy[str]]]:
    from dicelab.pig.rules import PigRules
    from dicelab.supersix.rules import SuperSixRules
    from dicelab.liars import strategies as lstrat
    from dicelab.pig import specs as pstrat
    from dicelab.simpig import specs as sstrat
    from dicelab.supersix import strategies as s6strat

    def pig(spec: str) -> Any:
        return pstrat.parse_strategy(spec).table(PigRules(goal=8))

    def pig_range(spec: str) -> Any:
        return pstrat.expand_specs([spec])

    def simpig(spec: str) -> Any:
        return sstrat.parse_strategy(spec, 8, 2).target_table()

    def simpig3(spec: str) -> Any:
        return sstrat.parse_strategy(spec, 8, 3)

    def supersix(spec: str) -> Any:
        return s6strat.parse(spec, SuperSixRules(sticks=2))

    def liars(spec: str) -> Any:
        return lstrat.bot(spec)

    noise = st.text(max_size=60)
    return {
        "pig": (pig, st.one_of(pig_specs(), noise)),
        "pig-range": (pig_range, st.one_of(_range("hold:"), pig_specs(), noise)),
        "simpig": (simpig, st.one_of(simpig_specs(), noise)),
        "simpig-3": (simpig3, st.one_of(simpig_specs(), noise)),
        "supersix": (supersix, st.one_of(supersix_specs(), noise)),
        "liars": (liars, st.one_of(liars_agents(), noise)),
    }


PARSERS = _parsers()


def _fuzz_parser(name: str, examples: int) -> Callable[[], None]:
    parse, specs = PARSERS[name]

    @settings(max_examples=examples, deadline=None, derandomize=examples <= 4 * QUICK,
              suppress_health_check=list(HealthCheck), database=None)
    @given(spec=specs)
    def run(spec: str) -> None:
        try:
            with time_limit(LIMIT):
                parse(spec)
        except DicelabError as exc:
            assert "\n" not in str(exc) and len(str(exc)) <= 1000

    return run


def test_time_limit_waits_for_a_compile_and_stops_a_hang() -> None:
    """The soft limit lets a cold numba compile finish (its alarm inside a compile is swallowed in
    a ctypes callback and breaks numba's cache) and still stops Python that runs too long."""
    import numba
    import numpy as np

    @numba.njit(cache=False)
    def kernel(a):  # a fresh function: compiled here, inside the limit, in well over 20 ms
        s = 0.0
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                s += np.sin(a[i, j]) * np.cos(a[j, i]) if i != j else np.sqrt(abs(a[i, i]))
        return s

    t0 = time.perf_counter()
    with time_limit(0.02):
        value = kernel(np.eye(3))
    assert value == pytest.approx(3.0)  # sqrt|1| on the diagonal, sin(0) elsewhere
    assert time.perf_counter() - t0 > 0.02  # the compile did outlast the limit
    with pytest.raises(Hang), time_limit(0.02):
        while True:
            time.sleep(0.001)


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_fuzz_spec_parser(name: str, workdir: Path) -> None:
    _fuzz_parser(name, 10 * QUICK)()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PARSERS))
def test_fuzz_spec_parser_long(name: str, workdir: Path) -> None:
    _fuzz_parser(name, 10 * SLOW)()


# ---------------------------------------------------------------------------------------------
# issue 23, item 6: every path option with every empty-name path, every environment variable
# ---------------------------------------------------------------------------------------------

EMPTY_NAMES = ["", ".", "/", "./", "//", "/.", "..", "folder/.."]
# the small, valid rest of each command's arguments, so that the path is what is checked
BASE_ARGS: dict[tuple[str, ...], list[str]] = {
    ("liars", "eval"): ["--games", "3"],
    ("liars", "exploit"): ["--dice", "1,1"],
    ("liars", "grade"): ["--dice", "1,1"],
    ("liars", "solve"): ["--dice", "1,1", "--iterations", "3"],
    ("liars", "train"): ["--games", "3"],
    ("liars", "train-all"): ["--max-dice", "1", "--iterations", "3"],
    ("pig", "best-response"): ["--goal", "8", "hold:4"],
    ("pig", "fair-convergence"): ["--goal", "8", "--games", "20"],
    ("pig", "fair-test"): ["--goal", "8", "--games", "20"],
    ("pig", "plot"): ["--goal", "8"],
    ("pig", "simulate"): ["--goal", "8", "--games", "5", "hold:4", "hold:5"],
    ("pig", "solve"): ["--goal", "8"],
    ("pig", "tournament"): ["--goal", "8", "--games", "5", "hold:4", "hold:5"],
    ("pig", "vs-hold"): ["--goal", "8", "4"],
    ("simpig", "best-response"): ["--goal", "8", "hold:4"],
    ("simpig", "equilibrium"): ["--goal", "8"],
    ("simpig", "plot"): ["--goal", "8", "--kind", "strategy"],
    ("simpig", "selfplay"): ["--goal", "8"],
    ("simpig", "svima"): ["--goal", "8"],
    ("supersix", "plot"): ["--sticks", "2"],
    ("supersix", "simulate"): ["--sticks", "2", "--games", "5", "optimal", "always"],
    ("grade",): ["pig"],
    ("puzzles", "build"): ["--game", "pig", "--count", "1"],
    ("puzzles", "list"): [],
    ("reproduce",): ["999"],  # a folder ('.' and '/' are folders): the document is refused, not run
    ("serve",): ["--port", "1"],  # every empty name is refused before the server would start
}
# options that take a file (or a bot name) as text rather than as a Path
TEXT_PATH_OPTIONS = {("liars", "eval"): ["--agent"], ("liars", "exploit"): ["--agent"],
                     ("liars", "grade"): ["--policy"]}
FOLDER_OPTIONS = {"--store"}  # a folder: '.' is a good one; '/' would write into the root folder


def path_options() -> list[tuple[tuple[str, ...], str]]:
    """Every (command, option) that takes a path: Path-typed options and the text ones above."""
    out = []
    for path, cmd in sorted(COMMANDS.items()):
        for p in cmd.params:
            if p.param_type_name == "option" and "Path" in str(_annotation(p)):
                out.append((path, p.opts[0]))
        out += [(path, o) for o in TEXT_PATH_OPTIONS.get(path, [])]
    return out


def test_every_path_option_has_a_base() -> None:
    assert {c for c, _ in path_options()} <= set(BASE_ARGS) | {("liars", "play")}, "add BASE_ARGS for a new command"
    assert len(path_options()) >= 20


@pytest.mark.parametrize("command, option", path_options(), ids=lambda x: " ".join(x) if isinstance(x, tuple) else x)
def test_empty_name_paths_are_one_line(command: tuple[str, ...], option: str, workdir: Path) -> None:
    # ValueError: PosixPath('.') has an empty name, from liars eval --agent, grade --policy, solve --resume
    base = BASE_ARGS.get(command, [])
    for value in EMPTY_NAMES:
        if option in FOLDER_OPTIONS and value.startswith("/"):
            continue
        extra = ["--out", "x.npz"] if command == ("liars", "solve") and option == "--resume" else []
        if command == ("liars", "train") and option != "--out":
            extra = ["--out", "q.npz"]
        if command in (("simpig", "plot"), ("supersix", "plot")) and option != "--out":
            extra = ["--out", "x.png"]
        check_cli([*command, *extra, option, value, *base])


@pytest.mark.parametrize("value", EMPTY_NAMES)
def test_reproduce_refuses_the_current_and_the_root_folder(value: str, workdir: Path) -> None:
    # issue 23: `reproduce --out ''` wrote its reports into the current folder, `--out /` into /
    before = sorted(p.name for p in workdir.iterdir())
    code, _, err, _ = run_cli(["reproduce", "000", "--quick", "--out", value])
    assert code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith("error: --out needs a folder name"), err
    assert sorted(p.name for p in workdir.iterdir()) == before  # nothing written


@pytest.mark.parametrize("value", ["/", "//", "/."])
def test_no_folder_option_takes_the_root_folder(value: str, workdir: Path) -> None:
    code, _, err, _ = run_cli(["simpig", "best-response", "--goal", "8", "hold:4", "--store", value])
    assert code == 2 and "is the root folder" in err, err


HOSTILE_ENV = ["", " ", "abc", "1.5", "nan", "-1", "0", "inf", "1e3", "9" * 40, "\x01", "é", "folder",
               "latin1.csv", "sqlite:///folder", "FULL", "normal", "64", "short", "a-good-key-123"]


@pytest.mark.parametrize("name", sorted(__import__("dicelab.core.env", fromlist=["VARIABLES"]).VARIABLES))
def test_every_environment_variable_is_checked_in_one_line(name: str, workdir: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # DICELAB_SHARD_CACHE_MB=abc|1.5|'' ended in a ValueError; DICELAB_WEB_CACHE_MIB=nan|abc|-1 was
    # taken silently. Every value is accepted (exit 0) or refused in one line naming the variable.
    from dicelab.core import env

    for value in HOSTILE_ENV:
        monkeypatch.setenv(name, value)
        try:
            env.get(name)
            accepted = True
        except DicelabError as exc:
            accepted = False
            assert name in str(exc) and "\n" not in str(exc)
        code, _, err, _ = run_cli(["version"])
        assert code == (0 if accepted else 2), (name, value, err)
        if not accepted:
            assert len(err.splitlines()) == 1 and err.startswith("error: ") and name in err, (name, value, err)
    for bad in ("", "abc", "1.5"):
        if name.endswith(("_MB", "_MIB")):
            monkeypatch.setenv(name, bad)
            with pytest.raises(DicelabError, match=name):
                env.get(name)
    for nan in ("nan", "-1", "abc"):
        if name == "DICELAB_WEB_CACHE_MIB":
            monkeypatch.setenv(name, nan)
            with pytest.raises(DicelabError, match="whole number"):
                env.get(name)


def test_dicelab_reads_the_environment_in_one_place() -> None:
    # every environment variable dicelab reads goes through dicelab.core.env (checked there)
    import re as _re

    src = Path(__import__("dicelab").__file__).parent
    readers = []
    for f in src.rglob("*.py"):
        text = f.read_text()
        if f.name == "env.py" and f.parent.name == "core":
            continue
        if _re.search(r"os\.environ\.get|os\.getenv|environ\[[^]]+\](?!\s*=)|envvar=", text):
            readers.append(str(f.relative_to(src)))
    assert readers == [], readers


@pytest.mark.parametrize("name, value", [("DICELAB_WEB_CACHE_MIB", "abc"), ("DICELAB_SHARD_CACHE_MB", "1.5"),
                                         ("DICELAB_WEB_CACHE_MIB", "nan"), ("DICELAB_CACHE_DIR", "")])
def test_the_console_script_checks_the_environment_before_importing(name: str, value: str) -> None:
    # some variables size caches when the game packages are imported: checked before that
    import subprocess

    envs = {**os.environ, name: value}
    r = subprocess.run([sys.executable, "-m", "dicelab", "pig", "solve", "--goal", "5"], env=envs,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and name in r.stderr and "Traceback" not in r.stderr


def test_a_closed_pipe_ends_quietly_with_exit_0(tmp_path: Path) -> None:
    # `dicelab pig tournament hold:1..60 --goal 20 | head -c 10` exited 1 without a word
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "dicelab", "pig", "tournament", "hold:1..60", "--goal", "20"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0 and err == "", err
    # and after a first piece was read (head -c 10)
    proc = subprocess.Popen(f"{sys.executable} -m dicelab pig tournament hold:1..60 --goal 20 | head -c 10",
                            shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                            executable="/bin/bash")
    out, err2 = proc.communicate(timeout=300)
    assert len(out) == 10 and err2 == b""
