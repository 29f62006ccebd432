"""numba's ``njit``, with an on-disk cache that never serves code compiled from older sources.

numba caches a compiled function (``cache=True``) beside its source and checks that file alone:
a kernel that calls a kernel of another module keeps the callee's old machine code after the
callee's file changes, silently, until its own file changes too. An upgrade that changes one module
of a game, or an edit while developing, then runs stale code.

Every kernel of dicelab is decorated through :func:`njit` here. Before the first one is compiled or
loaded in a process, each cache directory of a game package is checked against a fingerprint (the
SHA-256 of the package's sources): where it differs, that directory's cached
functions (``*.nbi``, ``*.nbc``) are removed under a lock and the new fingerprint is written beside
them, so numba compiles them afresh once. Games do not import each other and core holds no
kernels, so a game's cache depends on its own package only. Cache directories: the source
folder's ``__pycache__`` (numba's default), ``NUMBA_CACHE_DIR`` where set, and numba's user-wide
folder (for a read-only install).

Compile once per argument type. numba compiles a kernel again for every new tuple of argument
types, and two of them are easy to create by accident: a read-only array is a type of its own (so
tables go through :func:`readonly` on every path), and a constant written in a jitted caller,
``f(0, False)``, is typed ``Literal[int](0), Literal[bool](False)``, not ``int64, bool`` as the same
values computed at run time or passed from Python are. Jitted callers therefore pass
``np.int64(0)`` and ``np.bool_(False)`` where a constant would do; do not "simplify" them back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np

STAMP = "dicelab-sources.sha256"  # beside the cached functions: the fingerprint they were compiled from
_PACKAGE = Path(__file__).resolve().parent.parent  # src/dicelab
_done: set[Path] = set()
_lock = threading.Lock()


def fingerprint(folder: Path) -> str:
    """SHA-256 over the relative paths and contents of the ``.py`` files under ``folder``: every
    kernel, and every module whose values a kernel may have frozen in when it was compiled."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def cache_dirs(source_dir: Path) -> Iterator[Path]:
    """Where numba may keep the functions of the modules in ``source_dir``."""
    yield source_dir / "__pycache__"
    try:
        from numba.core.caching import _CacheLocator
        from numba.misc.appdirs import user_cache_dir

        sub = _CacheLocator.get_suitable_cache_subpath(str(source_dir / "x.py"))
    except (ImportError, AttributeError):  # another numba layout: the default folder only
        return
    if numba.config.CACHE_DIR:
        yield Path(numba.config.CACHE_DIR) / sub
    yield Path(user_cache_dir(appname="numba", appauthor=False)) / sub


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` (none where fcntl is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux
        yield
        return
    with open(folder / (STAMP + ".lock"), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _stamped(cache: Path, want: str) -> bool:
    try:
        return (cache / STAMP).read_text().strip() == want
    except OSError:
        return False


def refresh(folder: Path) -> list[Path]:
    """Remove the cached functions of ``folder`` (a package; every source folder under it) that were
    compiled from other sources than the ones there now, and record the current fingerprint. Returns
    the files removed. A folder that cannot be written is left alone (numba then uses another)."""
    folder = folder.resolve()
    want = fingerprint(folder)
    removed: list[Path] = []
    sources = sorted({p.parent for p in folder.rglob("*.py") if "__pycache__" not in p.parts})
    for src in sources:
        for cache in cache_dirs(src):
            if _stamped(cache, want):
                continue
            if not cache.is_dir():
                if cache != src / "__pycache__":
                    continue  # numba's other folders: nothing cached there yet
                try:
                    cache.mkdir(exist_ok=True)
                except OSError:
                    continue
            try:
                with _locked(cache):
                    if _stamped(cache, want):
                        continue  # another process refreshed it meanwhile
                    for f in sorted([*cache.glob("*.nbi"), *cache.glob("*.nbc")]):
                        f.unlink(missing_ok=True)
                        removed.append(f)
                    tmp = cache / f"{STAMP}.{os.getpid()}.tmp"
                    tmp.write_text(want + "\n")
                    os.replace(tmp, cache / STAMP)
            except OSError:
                continue  # read-only: numba will not write there either
    return removed


def _package_of(func: Callable[..., Any]) -> Path | None:
    """The package folder right under dicelab holding ``func``'s source (None outside one)."""
    try:
        path = Path(func.__code__.co_filename).resolve()
        rel = path.relative_to(_PACKAGE)
    except (AttributeError, ValueError):
        return None
    return _PACKAGE / rel.parts[0] if len(rel.parts) > 1 else None  # kernels live in a package


def _ensure(func: Callable[..., Any]) -> None:
    folder = _package_of(func)
    if folder is None or folder in _done:
        return
    with _lock:
        if folder not in _done:
            refresh(folder)
            _done.add(folder)


def njit(*args: Any, **kwargs: Any) -> Any:
    """:func:`numba.njit`, first refreshing the on-disk cache of the calling package (once a process)."""
    if args and callable(args[0]):  # @njit, or njit(func, ...)
        _ensure(args[0])
        return numba.njit(*args, **kwargs)
    decorate = numba.njit(*args, **kwargs)

    def wrap(func: Callable[..., Any]) -> Any:  # @njit(cache=True, ...)
        _ensure(func)
        return decorate(func)

    return wrap


def readonly(array: Any, dtype: Any) -> Any:
    """``array`` as a C-ordered, read-only view of ``dtype`` (a copy only where the order or type
    differs). numba compiles a kernel once per argument type, and a read-only array is a type of its
    own: a kernel handed tables read-only on some paths and writable on others is compiled twice."""
    out = np.ascontiguousarray(array, dtype=dtype).view()
    out.flags.writeable = False
    return out


__all__ = ["STAMP", "cache_dirs", "fingerprint", "njit", "readonly", "refresh"]
