"""Safe storage: npz + JSON with a checksum, never pickle."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dicelab.core import store
from dicelab.core.errors import DicelabError
from dicelab.core.store import cache_key, expect_array, load_table, save_table


def test_roundtrip(tmp_path):
    arrays = {"a": np.arange(6).reshape(2, 3), "b": np.array([True, False])}
    save_table(tmp_path / "x", "demo", arrays, {"note": "hi"})
    back, meta = load_table(tmp_path / "x.npz", "demo")
    assert meta["note"] == "hi" and meta["kind"] == "demo"
    assert all(np.array_equal(back[k], arrays[k]) for k in arrays)


def test_an_uncompressed_table_round_trips_and_its_damage_is_caught(tmp_path):
    arrays = {"z": np.zeros((200, 50), dtype=np.float32), "a": np.arange(7)}
    save_table(tmp_path / "c", "demo", arrays, {}, compress=True)
    save_table(tmp_path / "u", "demo", arrays, {}, compress=False)
    # stored as is: larger than the compressed file by about the zeros' 40,000 bytes
    assert (tmp_path / "u.npz").stat().st_size > (tmp_path / "c.npz").stat().st_size + 30_000
    back, _ = load_table(tmp_path / "u", "demo")
    assert all(np.array_equal(back[k], arrays[k]) for k in arrays)
    raw = bytearray((tmp_path / "u.npz").read_bytes())
    raw[-300] ^= 0x01  # one bit of the last array's data
    (tmp_path / "u.npz").write_bytes(bytes(raw))
    with pytest.raises(DicelabError, match="damaged|cannot be read"):
        load_table(tmp_path / "u", "demo")


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


def test_an_edited_metadata_value_is_refused_but_old_tables_still_load(tmp_path):
    save_table(tmp_path / "x", "demo", {"a": np.zeros(2)}, {"residual": 1e-15})
    js = tmp_path / "x.json"
    meta = json.loads(js.read_text())
    js.write_text(json.dumps({**meta, "residual": 0.5}))
    with pytest.raises(DicelabError, match="its own checksum"):
        load_table(tmp_path / "x", "demo")
    # a table written before metadata checksums existed (no meta_sha256) is still read
    del meta["meta_sha256"]
    js.write_text(json.dumps(meta))
    assert load_table(tmp_path / "x", "demo")[1]["residual"] == 1e-15


@pytest.mark.parametrize(
    "content",
    [b"", b"[1, 2]", b'"a string"', b"3", b"2.5", b"null", b"true", b"\xff\xfe\x00",
     b'{"kind": "demo"}', b'{"kind": ["demo"]}', b"[" * 100_000],
)
@pytest.mark.parametrize(("name", "kind"), [("x", "demo"), ("x.json", "demo"), ("x.json", None)])
def test_bad_json_is_one_dicelab_error(tmp_path, content, name, kind):
    save_table(tmp_path / "x", "demo", {"a": np.zeros(2)}, {})
    (tmp_path / "x.json").write_bytes(content)
    with pytest.raises(DicelabError) as err:  # never AttributeError, TypeError or RecursionError
        load_table(tmp_path / name, kind)
    assert "\n" not in str(err.value) and str(tmp_path / "x.npz") in str(err.value)
    if content in (b"[1, 2]", b'"a string"', b"3", b"2.5", b"null", b"true"):  # JSON, not an object
        assert "not a metadata object" in str(err.value)


def test_a_directory_is_not_a_table(tmp_path):
    (tmp_path / "d.npz").mkdir()
    (tmp_path / "d.json").write_text("{}")
    with pytest.raises(DicelabError, match="no table"):
        load_table(tmp_path / "d")


def test_writes_are_atomic_json_last_and_leave_no_temporary_files(tmp_path, monkeypatch):
    save_table(tmp_path / "x", "demo", {"a": np.arange(3)}, {"n": 1})
    replaced = []
    real = store.os.replace
    monkeypatch.setattr(store.os, "replace", lambda a, b: (replaced.append(Path(b).name), real(a, b)))
    save_table(tmp_path / "x", "demo", {"a": np.arange(4)}, {"n": 2})
    assert replaced == ["x.npz", "x.json"]  # the JSON, which holds the checksum, goes last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "x.npz"]

    def crash(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.np, "savez_compressed", crash)
    with pytest.raises(OSError):
        save_table(tmp_path / "x", "demo", {"a": np.arange(5)}, {"n": 3})
    arrays, meta = load_table(tmp_path / "x", "demo")  # the previous table is intact
    assert arrays["a"].tolist() == [0, 1, 2, 3] and meta["n"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "x.npz"]


def test_expect_array_names_what_is_wrong():
    arrays = {"p": np.zeros((2, 2))}
    assert expect_array(arrays, "p", (2, 2), np.float64) is arrays["p"]
    with pytest.raises(DicelabError, match=r"'p' should be float64 \(3, 3\), got float64 \(2, 2\)"):
        expect_array(arrays, "p", (3, 3), np.float64)
    with pytest.raises(DicelabError, match="got nothing"):
        expect_array(arrays, "q", (2, 2), np.float64)


def test_a_newline_in_the_file_name_still_gives_one_line(tmp_path):
    path = tmp_path / "a\nb"
    for kind in (None, "other"):
        with pytest.raises(DicelabError) as err:
            load_table(path, kind)
        assert "\n" not in str(err.value) and "a\\nb" in str(err.value)
        save_table(path, "demo", {"a": np.zeros(2)}, {})


def test_a_pair_another_process_is_renaming_into_place_is_not_taken_for_damage(tmp_path, monkeypatch):
    """Two processes sharing a cache folder (a lab beside a test run): one checks an entry while
    the other is between its two renames (the .npz in place, the JSON not yet, under the entry's
    exclusive lock). Half an entry is damage only if it is still half once the lock is free."""
    import threading

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    params = {"n": 3}
    assert store.cached("demo", params, lambda: 3, lambda v: ({"a": np.arange(v)}, {}),
                        lambda a, m: int(a["a"].size)) == 3
    base = tmp_path / cache_key("demo", params)
    npz, js = store.table_paths(base)
    text = js.read_bytes()
    js.unlink()
    found: list[bool] = []
    with store._locked(base.with_name(base.name + ".lock"), exclusive=True):  # the writer, mid-rename
        checker = threading.Thread(target=lambda: found.append(store.entry_on_disk("demo", params)))
        checker.start()
        checker.join(0.5)  # it saw half an entry and waits for the lock
        js.write_bytes(text)  # the writer's second rename
    checker.join(10)
    assert found == [True] and npz.is_file() and js.is_file()
    js.unlink()  # half an entry nobody writes: still removed
    assert store.entry_on_disk("demo", params) is False and not npz.exists()
