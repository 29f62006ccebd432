"""Safe storage of solved tables: ``.npz`` arrays plus a JSON metadata file with a checksum.

No pickle is used anywhere: arrays are written with ``allow_pickle=False`` and read the same way.
A table ``NAME.npz`` has a sibling ``NAME.json`` holding

* ``kind``: what the table is (``"pig-solution"``, ``"liars-q-table"``, ...),
* ``dicelab_version``,
* ``sha256``: a digest over every array's name, dtype, shape and bytes,
* any metadata the caller adds (the rules, residuals, ...).

:func:`load_table` recomputes the digest and refuses a file that does not match.

The cache of solved tables lives in the user cache folder (``platformdirs``); the environment
variable ``DICELAB_CACHE_DIR`` overrides it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from dicelab.errors import DicelabError


def _paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    p = Path(path)
    if p.suffix == ".json":
        p = p.with_suffix(".npz")
    if p.suffix != ".npz":
        p = p.with_name(p.name + ".npz")
    return p, p.with_suffix(".json")


def arrays_digest(arrays: dict[str, np.ndarray]) -> str:
    """sha256 over the arrays' names, dtypes, shapes and contents, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_table(
    path: str | os.PathLike[str], kind: str, arrays: dict[str, np.ndarray], meta: dict[str, Any]
) -> Path:
    """Write ``arrays`` to ``PATH.npz`` and ``meta`` (plus kind, version, checksum) to ``PATH.json``.

    Returns the path of the ``.npz`` file.
    """
    from dicelab import __version__

    npz, js = _paths(path)
    npz.parent.mkdir(parents=True, exist_ok=True)
    for name, a in arrays.items():
        if np.asarray(a).dtype == object:
            raise DicelabError(f"array {name!r} has dtype object, which cannot be stored safely")
    full = {
        "kind": kind,
        "dicelab_version": __version__,
        "sha256": arrays_digest(arrays),
        "arrays": sorted(arrays),
        **meta,
    }
    tmp = npz.with_name(npz.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, npz)
    js.write_text(json.dumps(full, indent=2, sort_keys=True))
    return npz


def load_table(
    path: str | os.PathLike[str], kind: str | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a table written by :func:`save_table`, verifying its checksum (and kind, if given)."""
    npz, js = _paths(path)
    if not npz.exists() or not js.exists():
        raise DicelabError(f"no table at {npz} (both {npz.name} and {js.name} are needed)")
    try:
        meta = json.loads(js.read_text())
    except json.JSONDecodeError as exc:
        raise DicelabError(f"{js} is not valid JSON: {exc.msg}") from None
    if kind is not None and meta.get("kind") != kind:
        raise DicelabError(f"{npz} holds a {meta.get('kind')!r} table, expected {kind!r}")
    try:
        with np.load(npz, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        raise DicelabError(f"cannot read {npz}: {exc}") from None
    if arrays_digest(arrays) != meta.get("sha256"):
        raise DicelabError(f"{npz} does not match the checksum in {js.name}; the file is damaged")
    return arrays, meta


def cache_dir() -> Path:
    """The folder for cached solved tables (``DICELAB_CACHE_DIR`` overrides the user cache)."""
    env = os.environ.get("DICELAB_CACHE_DIR")
    root = Path(env) if env else Path(platformdirs.user_cache_dir("dicelab"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_key(kind: str, params: dict[str, Any]) -> str:
    """A file-name-safe key for a cached table: kind plus a short hash of the parameters."""
    from dicelab import __version__

    blob = json.dumps({"kind": kind, "params": params, "v": __version__}, sort_keys=True)
    return f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:16]}"
