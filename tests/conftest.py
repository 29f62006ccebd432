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
