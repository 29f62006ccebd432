"""Safe storage: npz + JSON with a checksum, never pickle."""

from __future__ import annotations

import numpy as np
import pytest

from dicelab.errors import DicelabError
from dicelab.store import cache_key, load_table, save_table


def test_roundtrip(tmp_path):
    arrays = {"a": np.arange(6).reshape(2, 3), "b": np.array([True, False])}
    save_table(tmp_path / "x", "demo", arrays, {"note": "hi"})
    back, meta = load_table(tmp_path / "x.npz", "demo")
    assert meta["note"] == "hi" and meta["kind"] == "demo"
    assert all(np.array_equal(back[k], arrays[k]) for k in arrays)


def test_refuses_wrong_kind_missing_and_object_arrays(tmp_path):
    save_table(tmp_path / "x", "demo", {"a": np.zeros(2)}, {})
    with pytest.raises(DicelabError, match="expected"):
        load_table(tmp_path / "x", "other")
    with pytest.raises(DicelabError, match="no table"):
        load_table(tmp_path / "missing")
    with pytest.raises(DicelabError, match="object"):
        save_table(tmp_path / "y", "demo", {"a": np.array([{}], dtype=object)}, {})


def test_cache_key_depends_on_params():
    assert cache_key("k", {"a": 1}) != cache_key("k", {"a": 2})
    assert cache_key("k", {"a": 1, "b": 2}) == cache_key("k", {"b": 2, "a": 1})
