"""Test-wide settings: a fresh private cache folder, so tests never touch the user's cache."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Always a new, empty folder (never an inherited DICELAB_CACHE_DIR): tables left by earlier runs
# must not stand in for tables the tests compute. Each process that imports this file (the
# pytest-xdist controller and every worker) gets its own, removed when its session ends.
SESSION_CACHE_DIR = tempfile.mkdtemp(prefix="dicelab-test-cache-")
os.environ["DICELAB_CACHE_DIR"] = SESSION_CACHE_DIR
os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(SESSION_CACHE_DIR, ignore_errors=True)


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    """A fresh, empty cache folder for one test."""
    d = tmp_path / "cache"
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(d))
    return d


@pytest.fixture()
def run_cli(capsys):
    """``run_cli(ARGS)``: run ``dicelab ARGS`` in this process; (exit code, stdout, stderr)."""
    from dicelab.cli.main import main

    def run(args: list[str]) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as ex:
            main(args)
        out = capsys.readouterr()
        return ex.value.code, out.out, out.err

    return run
