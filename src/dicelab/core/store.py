"""Safe storage of solved tables (``.npz`` arrays + JSON metadata with checksums), and the cache.

No pickle anywhere: arrays are written and read with ``allow_pickle=False``. A table ``NAME.npz``
has a sibling ``NAME.json`` holding ``kind``, ``dicelab_version``, ``sha256`` (over every array's
name, dtype, shape and bytes), ``meta_sha256`` (over the rest of the JSON) and the caller's
metadata. :func:`load_table` verifies both digests and turns every failure into one
:class:`DicelabError` line.

:func:`cached` is the one on-disk cache of solved tables (in the user cache folder;
``DICELAB_CACHE_DIR`` overrides it). A damaged entry is reported in one line, deleted and
computed again; writes go to temporary files renamed into place (the JSON last), under a file
lock where the system has one, so processes filling the same entry at once never mix a pair.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import platformdirs

from dicelab.core import env
from dicelab.core.errors import DicelabError

T = TypeVar("T")
Arrays = dict[str, np.ndarray]
log = logging.getLogger("dicelab.core.store")
_PARAMS = "cache_params"
STORE_KEYS = frozenset({"kind", "dicelab_version", "sha256", "arrays", "meta_sha256", _PARAMS})
"""Metadata keys written by this module (not the caller's)."""
_unwritable: set[str] = set()  # cache folders already reported as unwritable (once per process)


def table_paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """The (.npz, .json) pair of a stored table named ``path`` (with or without its suffix)."""
    p = Path(path)
    if p.name in ("", ".", ".."):  # '', '.', '/', './', '//', '/.', 'x/..': a folder, not a table's name
        text = os.fspath(path)
        what = f"{_flat(text)} names a folder" if text.strip() else "the file name is empty"
        raise DicelabError(f"{what}, not a stored table; give a file name such as policy.npz")
    if p.suffix == ".json":
        p = p.with_suffix(".npz")
    if p.suffix != ".npz":
        p = p.with_name(p.name + ".npz")
    return p, p.with_suffix(".json")


def arrays_digest(arrays: Arrays) -> str:
    """sha256 over the arrays' names, dtypes, shapes and contents, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _meta_digest(meta: dict[str, Any]) -> str:
    rest = {k: v for k, v in meta.items() if k != "meta_sha256"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


MAX_SHOWN_PATH = 160  # characters of a path in a message; longer ones are cut in the middle


def _flat(path: Path | str) -> str:
    """A path for a one-line message (a newline in a file name is shown as ``\\n``; a path longer
    than :data:`MAX_SHOWN_PATH` is cut in the middle)."""
    text = str(path).replace("\r", "\\r").replace("\n", "\\n")
    if len(text) > MAX_SHOWN_PATH:
        half = MAX_SHOWN_PATH // 2 - 2
        text = f"{text[:half]}...{text[-half:]}"
    return text


def _one_line(exc: BaseException) -> str:
    """A short one-line reason (a DicelabError's own message, else the exception type and text)."""
    text = " ".join(str(exc).split())[:300] or "no details"
    return text if isinstance(exc, DicelabError) else f"{type(exc).__name__}: {text}"


# -- writing ----------------------------------------------------------------------------------


@contextmanager
def _locked(lock: Path | None, exclusive: bool) -> Iterator[None]:
    """Hold ``flock`` on ``lock`` (shared or exclusive); a no-op where that is impossible."""
    fd = None
    if lock is not None:
        try:
            import fcntl

            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        except (ImportError, OSError):
            if fd is not None:
                os.close(fd)
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)  # closing releases the lock


def _temp_beside(target: Path) -> tuple[int, Path]:
    """A new, unique file beside ``target`` (created exclusively; the umask sets its mode)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    return os.open(tmp, flags, 0o666), tmp


def _write_temp(target: Path, write: Callable[[Any], None]) -> Path:
    """Write a unique temporary file beside ``target`` (flushed to disk) and return its path."""
    fd, tmp = _temp_beside(target)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _write_pair(npz: Path, js: Path, arrays: Arrays, meta: dict[str, Any], lock: Path | None,
                compress: bool = True) -> None:
    text = json.dumps(meta, indent=2, sort_keys=True).encode()
    savez = np.savez_compressed if compress else np.savez
    tmp_npz = _write_temp(npz, lambda fh: savez(fh, **arrays))
    try:
        tmp_js = _write_temp(js, lambda fh: fh.write(text))
    except BaseException:
        tmp_npz.unlink(missing_ok=True)
        raise
    try:
        with _locked(lock, exclusive=True):
            os.replace(tmp_npz, npz)
            os.replace(tmp_js, js)  # last: the JSON holds the checksum the reader verifies
    except BaseException:
        tmp_npz.unlink(missing_ok=True)
        tmp_js.unlink(missing_ok=True)
        raise


def _full_meta(kind: str, arrays: Arrays, meta: dict[str, Any]) -> dict[str, Any]:
    from dicelab import __version__

    full = {**meta, "kind": kind, "dicelab_version": __version__, "sha256": arrays_digest(arrays),
            "arrays": sorted(arrays)}
    full["meta_sha256"] = _meta_digest(full)
    return full


def _save(path: str | os.PathLike[str], kind: str, arrays: Arrays, meta: dict[str, Any],
          lock: Path | None, compress: bool = True) -> Path:
    arrays = {name: np.asarray(a) for name, a in arrays.items()}
    for name, a in arrays.items():
        if a.dtype == object:
            raise DicelabError(f"array {name!r} has dtype object, which cannot be stored safely")
    npz, js = table_paths(path)
    npz.parent.mkdir(parents=True, exist_ok=True)
    _write_pair(npz, js, arrays, _full_meta(kind, arrays, meta), lock, compress)
    return npz


def save_table(path: str | os.PathLike[str], kind: str, arrays: Arrays, meta: dict[str, Any],
               compress: bool = True) -> Path:
    """Write ``arrays`` to ``PATH.npz`` and ``meta`` (plus kind, version, checksums) to ``PATH.json``.

    Both files are written to temporary names and renamed into place, the JSON last. Returns the
    path of the ``.npz`` file. ``compress=False`` stores the arrays as they are (gigabytes of
    checkpoint write at disk speed instead of zlib's tens of MB a second).
    """
    return _save(path, kind, arrays, meta, lock=None, compress=compress)


# -- reading ----------------------------------------------------------------------------------


class _Missing(DicelabError):
    """The .npz or the .json of a table does not exist."""


def _read(npz: Path, js: Path, kind: str | None, need_meta_digest: bool) -> tuple[Arrays, dict[str, Any]]:
    """The table's arrays and metadata; a DicelabError names what is wrong (not the path)."""
    jsn = _flat(js.name)
    missing = [_flat(f.name) for f in (npz, js) if not f.is_file()]
    if missing:
        raise _Missing(f"{' and '.join(missing)} missing (a table needs both files)")
    try:
        meta = json.loads(js.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DicelabError(f"{jsn} is not valid JSON ({_one_line(exc)})") from None
    if not isinstance(meta, dict):
        raise DicelabError(f"{jsn} holds a JSON {type(meta).__name__}, not a metadata object")
    if kind is not None and meta.get("kind") != kind:
        raise DicelabError(f"it holds a {str(meta.get('kind'))[:40]!r} table, expected {kind!r}")
    if ("meta_sha256" in meta or need_meta_digest) and meta.get("meta_sha256") != _meta_digest(meta):
        raise DicelabError(f"{jsn} does not match its own checksum; the file is damaged")
    with np.load(npz, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    if arrays_digest(arrays) != meta.get("sha256"):
        raise DicelabError(f"the arrays do not match the checksum in {jsn}; the file is damaged")
    return arrays, meta


def _load(path: str | os.PathLike[str], kind: str | None, need_meta_digest: bool,
          lock: Path | None = None) -> tuple[Arrays, dict[str, Any]]:
    npz, js = table_paths(path)
    try:
        with _locked(lock, exclusive=False):
            return _read(npz, js, kind, need_meta_digest)
    except DicelabError:
        raise
    except Exception as exc:  # zip, zlib, EOF, OS, value, memory...: all mean "cannot read"
        raise DicelabError(f"the table cannot be read ({_one_line(exc)})") from None


def load_table(
    path: str | os.PathLike[str], kind: str | None = None
) -> tuple[Arrays, dict[str, Any]]:
    """Read a table written by :func:`save_table`, verifying its checksums (and kind, if given).

    Every failure (missing, unreadable, truncated or damaged file, JSON of the wrong shape) raises
    one :class:`DicelabError` line naming the path.
    """
    npz = _flat(table_paths(path)[0])
    try:
        return _load(path, kind, need_meta_digest=False)
    except _Missing as exc:
        raise DicelabError(f"no table at {npz}: {exc}") from None
    except DicelabError as exc:
        raise DicelabError(f"{npz}: {exc}") from None


def load_as(
    path: str | os.PathLike[str], kind: str, from_arrays: Callable[[Arrays, dict[str, Any]], T]
) -> T:
    """:func:`load_table`, then ``from_arrays(arrays, meta)``; any failure is one DicelabError line."""
    arrays, meta = load_table(path, kind)
    try:
        return from_arrays(arrays, meta)
    except Exception as exc:
        raise DicelabError(f"{_flat(table_paths(path)[0])}: {_one_line(exc)}") from None


def expect_array(arrays: Arrays, name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """``arrays[name]``, or a :class:`DicelabError` unless it has this shape and dtype."""
    a = arrays.get(name)
    want = np.dtype(dtype)
    if a is None or a.shape != tuple(shape) or a.dtype != want:
        got = "nothing" if a is None else f"{a.dtype} {a.shape}"
        raise DicelabError(f"array {name!r} should be {want} {tuple(shape)}, got {got}")
    return a


# -- the cache --------------------------------------------------------------------------------


def cache_dir() -> Path:
    """The folder for cached solved tables (``DICELAB_CACHE_DIR`` overrides the user cache)."""
    given = env.get("DICELAB_CACHE_DIR")  # a folder name, or a one-line error
    root = Path(given) if given else Path(platformdirs.user_cache_dir("dicelab"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_key(kind: str, params: dict[str, Any]) -> str:
    """A file-name-safe key for a cached table: kind plus a short hash of the parameters."""
    from dicelab import __version__

    blob = json.dumps({"kind": kind, "params": params, "v": __version__}, sort_keys=True)
    return f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:16]}"


def _report_unwritable(folder: Path | str, exc: BaseException) -> None:
    if str(folder) not in _unwritable:
        _unwritable.add(str(folder))
        log.warning("dicelab: cannot write the cache folder %s (%s); going on without caching",
                    folder, _one_line(exc))


def _discard(npz: Path, js: Path, lock: Path, if_half: bool = False) -> bool:
    """Remove both files of a damaged entry, whatever stands there: files, links (dangling or
    looping) or a folder in a file's place (the rewrite could not replace a folder). ``if_half``:
    only if it is still half an entry once the lock is held (another process renames a pair into
    place under it, the ``.npz`` first: what looked like half an entry may have been its write);
    returns whether it removed them."""
    with _locked(lock, exclusive=True):
        if if_half and npz.is_file() and js.is_file():
            return False
        for f in (npz, js):
            try:
                if f.is_dir() and not f.is_symlink():
                    shutil.rmtree(f)
                else:
                    f.unlink(missing_ok=True)
            except OSError:
                pass  # the rewrite below replaces it, or the folder is read-only (reported then)
    return True


def entry_on_disk(kind: str, params: dict[str, Any]) -> bool:
    """Whether the cache entry of ``kind`` and ``params`` has both its files (not verified: reading
    it through :func:`cached` does that). Half an entry, only its ``.npz`` or only its ``.json``
    (a copy cut short, a file deleted by hand), is damage: reported in one line and removed, so
    that it is built again like any other damaged entry instead of being ignored for ever."""
    try:
        base = cache_dir() / cache_key(kind, params)
    except OSError:
        return False
    npz, js = table_paths(base)
    have = [f.is_file() for f in (npz, js)]
    if all(have):
        return True
    if any(have) or npz.is_symlink() or js.is_symlink() or npz.is_dir() or js.is_dir():
        if not _discard(npz, js, base.with_name(base.name + ".lock"), if_half=True):
            return True  # another process was writing it: whole now
        missing = " and ".join(_flat(f.name) for f, ok in zip((npz, js), have, strict=True) if not ok)
        log.warning("dicelab: damaged cache entry %s (%s missing: a table needs both files); removed", npz, missing)
    return False


def cached(
    kind: str,
    params: dict[str, Any],
    compute: Callable[[], T],
    to_arrays: Callable[[T], tuple[Arrays, dict[str, Any]]],
    from_arrays: Callable[[Arrays, dict[str, Any]], T],
) -> T:
    """``compute()``, through the on-disk cache entry of ``kind`` and the JSON-able ``params``.

    ``to_arrays(value)`` gives the arrays and metadata to store; ``from_arrays(arrays, meta)``
    rebuilds the value and raises if they do not fit ``params``. Any failure to read, verify or
    rebuild an entry makes it a damaged entry: one line on stderr (logging), both files deleted,
    the value computed and stored again. A cache folder that cannot be written is reported once
    and the value is computed without caching. Errors from ``compute`` itself propagate.
    """
    want = json.loads(json.dumps(params))
    try:
        folder = cache_dir()
    except OSError as exc:
        _report_unwritable(env.get("DICELAB_CACHE_DIR") or "(user cache)", exc)
        return compute()
    base = folder / cache_key(kind, params)
    npz, js = table_paths(base)
    lock = base.with_name(base.name + ".lock")
    if npz.exists() or js.exists():
        try:
            arrays, meta = _load(base, kind, need_meta_digest=True, lock=lock)
            if meta.get(_PARAMS) != want:
                raise DicelabError(f"the entry was stored for {meta.get(_PARAMS)!r}")
            return from_arrays(arrays, meta)
        except Exception as exc:
            log.warning("dicelab: damaged cache entry %s (%s); recomputing", npz, _one_line(exc))
            _discard(npz, js, lock)
    value = compute()
    arrays, meta = to_arrays(value)
    try:
        _save(base, kind, arrays, {**meta, _PARAMS: want}, lock)
    except OSError as exc:
        _report_unwritable(folder, exc)
    return value


# -- JSON documents (records too nested for a table: the puzzle sets) -----------------------------


def save_json(path: str | os.PathLike[str], kind: str, data: dict[str, Any]) -> Path:
    """Write ``data`` as one JSON document with ``kind``, ``dicelab_version`` and ``meta_sha256``
    (over the rest, as for a table's metadata), to a temporary file renamed into place."""
    from dicelab import __version__

    require_keys = STORE_KEYS & set(data)
    if require_keys:
        raise DicelabError(f"the document may not hold the store's own keys: {', '.join(sorted(require_keys))}")
    full = {**data, "kind": kind, "dicelab_version": __version__}
    full["meta_sha256"] = _meta_digest(full)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = (json.dumps(full, sort_keys=True, separators=(",", ":")) + "\n").encode()
    os.replace(_write_temp(target, lambda fh: fh.write(text)), target)
    return target


def load_json(path: str | os.PathLike[str], kind: str) -> dict[str, Any]:
    """Read a document written by :func:`save_json`, verifying its kind and checksum; every
    failure (missing, unreadable, not JSON, damaged, another kind) is one :class:`DicelabError`
    line naming the file."""
    p = Path(path)
    name = _flat(p)
    try:
        meta = json.loads(p.read_bytes())
    except FileNotFoundError:
        raise DicelabError(f"no document at {name}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DicelabError(f"{name} is not valid JSON ({_one_line(exc)})") from None
    except (OSError, RecursionError, MemoryError) as exc:
        raise DicelabError(f"{name} cannot be read ({_one_line(exc)})") from None
    if not isinstance(meta, dict):
        raise DicelabError(f"{name} holds a JSON {type(meta).__name__}, not a document")
    if meta.get("kind") != kind:
        raise DicelabError(f"{name} holds a {str(meta.get('kind'))[:40]!r} document, expected {kind!r}")
    if meta.get("meta_sha256") != _meta_digest(meta):
        raise DicelabError(f"{name} does not match its own checksum; the file is damaged")
    return meta
