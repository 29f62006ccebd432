"""Every on-disk cache heals: a damaged entry is reported in one line, replaced, and never raises.

Kinds: Pig tables, the simultaneous-Pig equilibrium, Super Six, the Liar's Dice Q agent. Each is
damaged in every way below; the result must equal an uncached computation (and a published figure
or a law where one exists), one line must be reported, and the entry must be good again.
Also: two processes filling the same keys at once, an unwritable cache folder, the CLI and the
web lab over a damaged entry.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dicelab.core import store
from dicelab.core.errors import DicelabError
from dicelab.liars.rules import LiarsRules
from dicelab.pig.rules import PigRules
from dicelab.supersix.rules import SuperSixRules
from dicelab.liars import library, qlearning
from dicelab.liars.duel import Duel, DuelPolicy
from dicelab.pig import solver as pig
from dicelab.simpig import equilibrium as simpig_equilibrium
from dicelab.supersix import solver as supersix
from dicelab.core.store import STORE_KEYS, load_table, save_table
from tests.web.conftest import PoliteClient


# -- the caches ---------------------------------------------------------------------------------


def _supersix_cached() -> supersix.SuperSixSolution:
    supersix.solve_two_cached.cache_clear()  # the in-process lru sits in front of the disk cache
    return supersix.solve_two_cached(SuperSixRules(sticks=4))


def _check_supersix(sol: supersix.SuperSixSolution) -> None:
    # seed 001 (n = 7): the start player wins 0.602; P(5, 1, 1, forced) = 0.4512917
    assert round(sol.start_player_win(), 3) == 0.602
    assert sol.win_probability(5, 1, 1, 1) == pytest.approx(0.4512917, abs=5e-8)


def _check_equilibrium(eq: simpig_equilibrium.Equilibrium) -> None:
    # a symmetric zero-sum game: V(i, j) + V(j, i) = 1, so the start is worth exactly 1/2
    assert eq.start_value == pytest.approx(0.5, abs=1e-12)
    np.testing.assert_allclose(eq.value + eq.value.T, 1.0, atol=1e-12)


def _check_pig(sol: pig.PigSolution) -> None:
    # a law: P(roll) and P(hold) from the stored table agree with the stored optimum at the start
    assert sol.p[0, 0, 0] == pytest.approx(max(sol.values(0, 0, 0)), abs=1e-12)


LIARS = LiarsRules(players=2, dice=2)
DUEL = Duel((1, 1), 4, "none")  # a Liar's Dice duel policy small enough to train in a moment


def _duel_policy_cached() -> DuelPolicy:
    library._policies.clear()  # the in-memory copies sit in front of the disk cache
    p = library.policy(DUEL)
    assert p is not None
    return p


def _duel_policy_fresh() -> DuelPolicy:
    return library._compact(library._train(DUEL))


def _half(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A policy's arrays as memory keeps them (float16: :func:`dicelab.liars.library._compact`)."""
    return {k: v.astype(np.float16) if v.dtype.kind == "f" else v for k, v in arrays.items()}


def _check_duel_policy(p: DuelPolicy) -> None:
    # a law: the opener's move with every hand is a probability distribution over the duel's bids
    for hand in DUEL.hands(0)[0]:
        probs = p.action_probabilities(0, hand, [])
        assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9) and min(probs.values()) >= 0


@dataclass(frozen=True)
class Kind:
    name: str
    kind: str  # the store kind of its entries
    cached: Callable[[], Any]
    fresh: Callable[[], Any]
    to_arrays: Callable[[Any], tuple[dict[str, np.ndarray], dict[str, Any]]]
    check: Callable[[Any], None]
    stored: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]] = lambda a: a  # as the value holds them


KINDS = [
    Kind("pig", pig.KIND, lambda: pig.solve_cached(PigRules(goal=20)),
         lambda: pig.solve(PigRules(goal=20)), pig.PigSolution.to_arrays, _check_pig),
    Kind("simpig-equilibrium", simpig_equilibrium.EQ_KIND,
         lambda: simpig_equilibrium.solve_equilibrium(10, progress=False, use_cache=True),
         lambda: simpig_equilibrium.solve_equilibrium(10, progress=False),
         simpig_equilibrium._eq_arrays, _check_equilibrium),
    Kind("supersix", supersix.KIND, _supersix_cached,
         lambda: supersix.solve_two(SuperSixRules(sticks=4)), supersix.SuperSixSolution.to_arrays,
         _check_supersix),
    Kind("liars-agent", qlearning.TABLE_KIND, lambda: qlearning.cached_agent(LIARS, games=300, seed=0),
         lambda: qlearning.train(LIARS, games=300, seed=0).agent, qlearning.QAgent.to_arrays,
         lambda agent: None),
    Kind("liars-duel-policy", library.POLICY_KIND, _duel_policy_cached, _duel_policy_fresh,
         lambda p: (_half(library._to_arrays(p)[0]), {}), _check_duel_policy, _half),
]


@cache
def fresh_arrays(name: str) -> dict[str, np.ndarray]:
    k = next(k for k in KINDS if k.name == name)
    return k.to_arrays(k.fresh())[0]


def assert_same_arrays(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].dtype == want[name].dtype, name
        np.testing.assert_array_equal(got[name], want[name])  # NaN == NaN here


# -- the damage ---------------------------------------------------------------------------------


def _flip_middle(f: Path) -> None:
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))


def _crc_error(npz: Path) -> None:
    """Change the CRC-32 recorded for every member in the zip's central directory."""
    data = bytearray(npz.read_bytes())
    i = data.find(b"PK\x01\x02")
    assert i >= 0
    while i >= 0:
        data[i + 16] ^= 0xFF
        i = data.find(b"PK\x01\x02", i + 4)
    npz.write_bytes(bytes(data))


def _resave(npz: Path, kind: str | None = None, arrays: Callable | None = None,
            meta: Callable | None = None) -> None:
    """Rewrite the entry with valid checksums but a wrong kind, arrays or recorded parameters."""
    a, m = load_table(npz)
    keep = {k: v for k, v in m.items() if k not in STORE_KEYS or k == "cache_params"}
    save_table(npz, kind or m["kind"], arrays(a) if arrays else a, meta(keep) if meta else keep)


DAMAGES: dict[str, Callable[[Path, Path], None]] = {
    "truncated npz": lambda npz, js: npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2]),
    "flipped byte in npz": lambda npz, js: _flip_middle(npz),
    "zip CRC error": lambda npz, js: _crc_error(npz),
    "0-byte npz": lambda npz, js: npz.write_bytes(b""),
    "0-byte json": lambda npz, js: js.write_bytes(b""),
    "flipped byte in json": lambda npz, js: _flip_middle(js),
    "json is a list": lambda npz, js: js.write_text("[]"),
    "json of the wrong shape": lambda npz, js: js.write_text('{"sha256": 1}'),
    "not json": lambda npz, js: js.write_bytes(b"\x00\xff not json"),
    "edited metadata": lambda npz, js: js.write_text(
        json.dumps({**json.loads(js.read_text()), "note": "edited by hand"})),
    "npz missing": lambda npz, js: npz.unlink(),
    "json missing": lambda npz, js: js.unlink(),
    "wrong kind": lambda npz, js: _resave(npz, kind="something-else"),
    "wrong params": lambda npz, js: _resave(npz, meta=lambda m: {**m, "cache_params": {"goal": 3}}),
    "arrays of the wrong shape": lambda npz, js: _resave(
        npz, arrays=lambda a: {k: v.ravel()[:1] for k, v in a.items()}),
    "arrays of the wrong dtype": lambda npz, js: _resave(
        npz, arrays=lambda a: {k: v.astype(np.float16 if v.dtype == np.float32 else np.float32) for k, v in a.items()}),
    # issue 23: damage that was answered right but left the entry broken
    "npz is a folder": lambda npz, js: (npz.unlink(), npz.mkdir(), (npz / "x").write_text("x")),
    "json is a folder": lambda npz, js: (js.unlink(), js.mkdir()),
    "npz is a dangling link": lambda npz, js: (npz.unlink(), npz.symlink_to(npz.with_name("nowhere"))),
    "json is a link to itself": lambda npz, js: (js.unlink(), js.symlink_to(js.name)),
    "json of another entry": lambda npz, js: _other_json(npz, js),
    "npz holds an extra array": lambda npz, js: _extra_array(npz),
    "no read permission": lambda npz, js: (_flip_middle(npz), npz.chmod(0)),
}


def _other_json(npz: Path, js: Path) -> None:
    """A valid JSON of a different table (its checksums do not fit this .npz)."""
    old = js.read_text()
    _resave(npz, arrays=lambda a: {k: v[::-1].copy() if v.ndim else v for k, v in a.items()})
    npz_bytes = npz.read_bytes()
    js.write_text(old)
    npz.write_bytes(npz_bytes)


def _extra_array(npz: Path) -> None:
    """An .npz with one more array than its JSON names (written without the store)."""
    with np.load(npz) as z:
        arrays = {k: z[k] for k in z.files}
    with npz.open("wb") as fh:
        np.savez_compressed(fh, **arrays, extra=np.zeros(3))


def entry(cache: Path) -> tuple[Path, Path]:
    files = sorted(cache.glob("*.npz"))
    assert len(files) == 1, files
    return files[0], files[0].with_suffix(".json")


def store_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "dicelab.core.store"]


# -- tests ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_damaged_entry_is_reported_replaced_and_recomputed(kind, damage, cache_dir, caplog):
    caplog.set_level(logging.WARNING, logger="dicelab.core.store")
    kind.cached()
    npz, js = entry(cache_dir)
    DAMAGES[damage](npz, js)
    caplog.clear()

    got = kind.cached()

    assert_same_arrays(kind.to_arrays(got)[0], fresh_arrays(kind.name))
    kind.check(got)
    lines = store_lines(caplog)
    assert len(lines) == 1, lines
    assert "\n" not in lines[0] and lines[0].startswith(f"dicelab: damaged cache entry {npz}")
    # the damaged files were replaced by a good entry, which the next call reads silently
    arrays, meta = load_table(npz, kind.kind)
    assert_same_arrays(kind.stored(arrays), fresh_arrays(kind.name))
    caplog.clear()
    written = (npz.stat().st_mtime_ns, js.stat().st_mtime_ns)
    again = kind.cached()
    assert store_lines(caplog) == []
    assert_same_arrays(kind.to_arrays(again)[0], fresh_arrays(kind.name))
    assert (npz.stat().st_mtime_ns, js.stat().st_mtime_ns) == written  # read, not rewritten


def test_healed_piglet_keeps_the_hand_solved_values(cache_dir, caplog):
    # Neller & Presser's Piglet to 2, solved by hand: P(0, 0, 0) = 4/7 and so on
    caplog.set_level(logging.WARNING, logger="dicelab.core.store")
    rules = PigRules(goal=2, variant="piglet")
    pig.solve_cached(rules)
    DAMAGES["truncated npz"](*entry(cache_dir))
    sol = pig.solve_cached(rules)
    expected = {(0, 0, 0): Fraction(4, 7), (0, 1, 0): Fraction(2, 5), (1, 0, 0): Fraction(4, 5),
                (1, 1, 0): Fraction(2, 3)}
    for state, value in expected.items():
        assert sol.win_probability(*state) == pytest.approx(float(value), abs=1e-12)
    assert len(store_lines(caplog)) == 1


def test_load_table_turns_every_damage_into_one_dicelab_error(tmp_path):
    for name, damage in DAMAGES.items():
        if name in ("wrong params", "arrays of the wrong shape", "arrays of the wrong dtype"):
            continue  # valid tables: only a cache (or a loader with rules) can tell them wrong
        base = tmp_path / name.replace(" ", "_")
        npz = save_table(base, "demo", {"a": np.arange(5000.0), "b": np.ones(7, bool)}, {"x": 1})
        damage(npz, npz.with_suffix(".json"))
        with pytest.raises(DicelabError) as err:
            load_table(npz, "demo")
        assert "\n" not in str(err.value), name


def test_user_tables_with_wrong_arrays_are_refused_in_one_line(tmp_path):
    path = pig.solve(PigRules(goal=10)).save(tmp_path / "t")
    _resave(path, arrays=lambda a: {k: v.astype(np.float32) for k, v in a.items()})
    with pytest.raises(DicelabError, match="should be"):
        pig.PigSolution.load(path)
    save_table(path, pig.KIND, {"p": np.zeros(3)}, {"rules": "not rules"})
    with pytest.raises(DicelabError, match=str(path)):
        pig.PigSolution.load(path)


def test_unwritable_cache_folder_is_reported_once_and_skipped(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(store, "_unwritable", set())
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(blocker / "cache"))
    want = pig.solve(PigRules(goal=12)).p
    for _ in range(3):
        np.testing.assert_array_equal(pig.solve_cached(PigRules(goal=12)).p, want)
    lines = store_lines(caplog)
    assert len(lines) == 1 and "cannot write the cache folder" in lines[0]


def test_a_failing_write_is_reported_once_and_leaves_no_files(cache_dir, monkeypatch, caplog):
    monkeypatch.setattr(store, "_unwritable", set())
    pig.solve_cached(PigRules(goal=10))  # creates the folder
    for f in cache_dir.iterdir():
        f.unlink()

    def refuse(target: Path) -> tuple[int, Path]:
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr(store, "_temp_beside", refuse)
    for _ in range(2):
        assert pig.solve_cached(PigRules(goal=11)).goal == 11
    assert len(store_lines(caplog)) == 1
    assert not list(cache_dir.glob("*.npz")) and not list(cache_dir.glob("*.tmp"))


RACER = r"""
import logging, os, sys, time
from pathlib import Path
import numpy as np
cache, sync, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
os.environ["DICELAB_CACHE_DIR"] = cache
from dicelab.core import store
lines = []
class Keep(logging.Handler):
    def emit(self, record):
        lines.append(record.getMessage())
store.log.addHandler(Keep())
store.log.propagate = False
def value(i):
    return np.random.default_rng(i).random(100_000)
for i in range(n):
    (sync / f"{i}.{os.getpid()}").touch()  # a barrier: both processes start key i together
    deadline = time.monotonic() + 30
    while len(list(sync.glob(f"{i}.*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.0005)
    for _ in range(3):
        got = store.cached("race", {"i": i}, lambda: value(i), lambda a: ({"a": a}, {}),
                           lambda a, m: a["a"])
        assert np.array_equal(got, value(i)), i
print(len(lines))
for line in lines:
    print(line)
"""


def test_two_processes_filling_the_same_keys_at_once(tmp_path):
    cache, sync, n = tmp_path / "cache", tmp_path / "sync", 30
    sync.mkdir()
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    procs = [subprocess.Popen([sys.executable, "-c", RACER, str(cache), str(sync), str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert out.splitlines()[0] == "0", out  # no entry was ever seen damaged or half-written
    for i in range(n):
        arrays, _ = load_table(cache / store.cache_key("race", {"i": i}), "race")
        np.testing.assert_array_equal(arrays["a"], np.random.default_rng(i).random(100_000))
    assert not list(cache.glob(".*.tmp"))  # no temporary file left behind


def _fill_and_damage(goal: int, cache: Path) -> Path:
    pig.solve_cached(PigRules(goal=goal))
    npz, _ = entry(cache)
    _flip_middle(npz)
    return npz


def test_cli_pig_solve_over_a_damaged_entry(cache_dir):
    npz = _fill_and_damage(20, cache_dir)
    env = {**os.environ, "DICELAB_CACHE_DIR": str(cache_dir), "COLUMNS": "200"}
    r = subprocess.run([sys.executable, "-m", "dicelab", "pig", "solve", "--goal", "20"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"{pig.solve(PigRules(goal=20)).p[0, 0, 0]:.10f}" in r.stdout
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"dicelab: damaged cache entry {npz}"), r.stderr
    load_table(npz, pig.KIND)  # healed


def test_web_lab_creates_an_optimal_game_over_a_damaged_entry(cache_dir, tmp_path, caplog):
    
    from dicelab.pig import strategies as pig_strategies
    from dicelab.web.app import create_app

    npz = _fill_and_damage(20, cache_dir)
    from dicelab.pig import play

    # the in-process copies sit in front of the disk: empty them, whatever ran before in this process
    pig_strategies._optimal_table.cache_clear()
    play._solutions.clear()
    play._tables.clear()
    caplog.clear()
    with PoliteClient(create_app(f"sqlite:///{tmp_path / 'lab.sqlite'}", warm=False)) as client:
        r = client.post("/api/games", json={"goal": 20, "opponent": "optimal", "human_first": False})
        assert r.status_code == 201, r.text
        assert client.get("/healthz").json()["status"] == "ok"
    assert len(store_lines(caplog)) == 1
    load_table(npz, pig.KIND)  # healed


@pytest.mark.parametrize("left", [".npz", ".json"])
def test_half_a_duel_policy_entry_is_reported_and_removed(left, cache_dir, caplog):
    # issue 23, item 7: a Liar's Dice policy entry with only its .npz or only its .json was ignored
    # and never repaired (the other kinds repair it). A size too big to train on demand cannot be
    # rebuilt inside a request: the half entry is reported once and removed, the size is no longer
    # offered as available, and a full entry written later is read as usual.
    from dicelab.liars.duel import uniform_policy

    caplog.set_level(logging.WARNING, logger="dicelab.core.store")
    big = Duel((2, 2), 6, "ones")
    assert not library.quick(big)
    make = lambda: uniform_policy(big, window=library.recipe(big)["window"])  # noqa: E731
    library._through_cache(big, make)
    npz, js = library._paths(big)
    (js if left == ".npz" else npz).unlink()
    library._policies.discard(library._key(big))
    caplog.clear()
    assert library.policy(big) is None and not library.available(big)
    lines = store_lines(caplog)
    assert len(lines) == 1 and "damaged cache entry" in lines[0] and "missing" in lines[0], lines
    assert not npz.exists() and not js.exists()
    caplog.clear()
    assert library.policy(big) is None and store_lines(caplog) == []  # reported once: nothing is left
    library._through_cache(big, make)  # trained again (dicelab liars train-all)
    library._policies.discard(library._key(big))
    assert library.available(big) and library.policy(big) is not None and store_lines(caplog) == []
    library._policies.discard(library._key(big))  # leave no policy in memory for later tests
