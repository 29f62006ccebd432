"""Test-wide settings: a private cache folder, so tests never touch the user's cache."""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("DICELAB_CACHE_DIR", tempfile.mkdtemp(prefix="dicelab-test-cache-"))
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    """A fresh, empty cache folder for one test."""
    d = tmp_path / "cache"
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(d))
    return d
