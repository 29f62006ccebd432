"""numba's on-disk cache never serves a kernel compiled against another module's older code."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dicelab
from dicelab.core.jit import STAMP, fingerprint, refresh

SRC = Path(dicelab.__file__).resolve().parent

CALLER = """
from numba import njit
from game.callee import value

@njit(cache=True)
def twice():
    return 2 * value()
"""
CALLEE = """
from numba import njit

@njit(cache=True)
def value():
    return {k}
"""
RUN = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
if {fresh}:
    from dicelab.core.jit import refresh
    refresh(Path({root!r}) / "game")
from game.caller import twice
print(twice())
"""


def _run(root: Path, fresh: bool, cache_dir: Path | None = None) -> int:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", RUN.format(root=str(root), fresh=fresh)], capture_output=True,
                         text=True, check=True, env=env)
    return int(out.stdout.strip())


def _package(root: Path, k: int) -> None:
    game = root / "game"
    game.mkdir(exist_ok=True)
    (game / "__init__.py").write_text("")
    (game / "caller.py").write_text(textwrap.dedent(CALLER))
    (game / "callee.py").write_text(textwrap.dedent(CALLEE.format(k=k)))


@pytest.mark.parametrize("own_dir", [False, True], ids=["beside the sources", "NUMBA_CACHE_DIR"])
def test_a_changed_callee_is_recompiled_into_its_cached_caller(tmp_path, own_dir):
    """The caller's file is unchanged; only the module it calls into changes. With the refresh the
    second run computes from the new callee (2 x 5), as a fresh process without any cache would
    (without it numba serves 6 again), wherever numba keeps its cache."""
    root, cache = tmp_path / "src", (tmp_path / "numba-cache" if own_dir else None)
    root.mkdir()
    _package(root, 3)
    assert _run(root, True, cache) == 6
    where = cache.rglob("caller.twice-*.nbi") if cache else (root / "game" / "__pycache__").glob("caller.twice-*.nbi")
    assert any(where)  # it was cached there
    _package(root, 5)
    assert _run(root, True, cache) == 10
    assert _run(root, True, cache) == 10  # and cached again from the new sources


def test_processes_refreshing_at_once_agree(tmp_path):
    """Several processes starting together after a change: each waits for the lock, the cached
    functions are removed once, and the stamp ends as the sources' fingerprint."""
    _package(tmp_path, 3)
    game = tmp_path / "game"
    cache = game / "__pycache__"
    cache.mkdir()
    for k in range(200):
        (cache / f"caller.f{k}-1.py311.nbi").write_bytes(b"old")
    code = ("import sys; from pathlib import Path; from dicelab.core.jit import refresh; "
            f"print(len(refresh(Path({str(game)!r}))))")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(4)]
    counts = sorted(int(p.communicate()[0].strip()) for p in procs)
    assert all(p.returncode == 0 for p in procs)
    assert counts == [0, 0, 0, 200]
    assert not any(cache.glob("*.nbi"))
    assert (cache / STAMP).read_text().strip() == fingerprint(game)


def test_refresh_removes_only_what_changed_sources_made(tmp_path):
    _package(tmp_path, 3)
    game = tmp_path / "game"
    cache = game / "__pycache__"
    cache.mkdir()
    (cache / "caller.twice-5.py311.nbi").write_bytes(b"old")
    (cache / "caller.twice-5.py311.nbc").write_bytes(b"old")
    (cache / "caller.cpython-311.pyc").write_bytes(b"bytecode")
    removed = refresh(game)
    assert sorted(p.name for p in removed) == ["caller.twice-5.py311.nbc", "caller.twice-5.py311.nbi"]
    assert (cache / "caller.cpython-311.pyc").exists()  # Python's own cache is not numba's
    assert (cache / STAMP).read_text().strip() == fingerprint(game)
    (cache / "caller.twice-5.py311.nbi").write_bytes(b"compiled from these sources")
    assert refresh(game) == []  # same sources: kept
    (game / "callee.py").write_text(textwrap.dedent(CALLEE.format(k=4)))
    assert [p.name for p in refresh(game)] == ["caller.twice-5.py311.nbi"]
    (cache / "caller.twice-5.py311.nbi").write_bytes(b"compiled from these sources")
    (game / "rules.py").write_text("LIMIT = 3  # a value a kernel may have frozen in\n")
    assert [p.name for p in refresh(game)] == ["caller.twice-5.py311.nbi"]


def test_fingerprint_follows_content_and_names_of_the_sources(tmp_path):
    _package(tmp_path, 3)
    game = tmp_path / "game"
    a = fingerprint(game)
    (game / "callee.py").touch()
    assert fingerprint(game) == a  # a touch is not a change
    (game / "callee.py").rename(game / "callee2.py")
    assert fingerprint(game) != a


def test_every_kernel_goes_through_the_refreshing_njit():
    """A kernel decorated by numba's own njit would skip the refresh and could run stale code."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "core" / "jit.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module == "numba":
                bad += [f"{path.relative_to(SRC)}: from numba import {a.name}" for a in node.names
                        if a.name in ("njit", "jit", "vectorize", "guvectorize", "cfunc")]
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "numba"
                  and node.attr in ("njit", "jit", "vectorize", "guvectorize", "cfunc")):
                bad.append(f"{path.relative_to(SRC)}: numba.{node.attr}")
    assert bad == []
    kernels = [p for p in SRC.rglob("*.py") if "dicelab.core.jit import njit" in p.read_text()]
    assert len(kernels) >= 20  # the check above looked at the real sources


def test_the_package_caches_carry_their_fingerprint():
    """Importing a game's kernels leaves its cache stamped with its sources' fingerprint."""
    import dicelab.liars.duel  # noqa: F401

    stamp = SRC / "liars" / "__pycache__" / STAMP
    if os.access(SRC / "liars", os.W_OK):  # (a read-only install caches elsewhere)
        assert stamp.read_text().strip() == fingerprint(SRC / "liars")
