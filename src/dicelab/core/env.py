"""Every environment variable dicelab reads, checked in one place.

A variable that is set must hold a value its reader accepts; otherwise the reader gets a one-line
:class:`~dicelab.core.errors.DicelabError` that names the variable, says what it holds and what is
allowed (the command line prints it and exits with code 2 before any work: :func:`check_all`). A
variable that is set but empty is refused too (unset it to get the default): an empty value is
almost always a script's mistake, and a silent default would hide it.

========================== =====================================================================
``DICELAB_CACHE_DIR``      folder for cached solved tables (default: the user cache folder)
``DICELAB_WEB_CACHE_MIB``  total MiB of the in-memory table caches, a whole number (default 2400)
``DICELAB_SHARD_CACHE_MB`` MB of column chunks a sharded simultaneous-Pig solve keeps (1024)
``DICELAB_DB``             the web lab's SQLAlchemy database URL (default: SQLite, user data)
``DICELAB_SQLITE_SYNC``    the web lab's SQLite ``synchronous``: NORMAL (default), FULL or EXTRA
``DICELAB_ADMIN_KEY``      the web lab's researcher key: 8 to 200 visible ASCII characters
``PGHOST``                 libpq's PostgreSQL host list; read only to see whether it is local
========================== =====================================================================

>>> whole_number("DICELAB_SHARD_CACHE_MB", {"DICELAB_SHARD_CACHE_MB": "64"})
64
>>> whole_number("DICELAB_SHARD_CACHE_MB", {"DICELAB_SHARD_CACHE_MB": "1.5"})
Traceback (most recent call last):
...
dicelab.core.errors.DicelabError: DICELAB_SHARD_CACHE_MB must be a whole number of MB from 1 to 1048576, got '1.5'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dicelab.core.errors import DicelabError

MAX_PATH = 4000
MAX_URL = 4000
ADMIN_KEY_FORMAT = re.compile(r"[\x21-\x7e]{8,200}")  # visible ASCII: it travels in an HTTP header
SYNC_MODES = ("NORMAL", "FULL", "EXTRA")


def _shown(raw: str) -> str:
    return repr(raw if len(raw) <= 40 else raw[:30] + f"... ({len(raw)} characters)")


@dataclass(frozen=True)
class Variable:
    """One environment variable: its default (None: unset means "not given") and its check,
    which turns the raw text into the value or raises :class:`DicelabError`."""

    name: str
    default: Any
    allowed: str  # what a value may be, for the error line
    parse: Callable[[str], Any]
    secret: bool = False  # never echo the value (the researcher key)
    empty_is_unset: bool = False  # libpq's own variables: empty means unset there

    def value(self, environ: Mapping[str, str] | None = None) -> Any:
        env = os.environ if environ is None else environ
        raw = env.get(self.name)
        if raw is None or (raw == "" and self.empty_is_unset):
            return self.default
        if raw.strip() == "":
            raise DicelabError(f"{self.name} is set but empty; unset it, or give {self.allowed}")
        try:
            return self.parse(raw)
        except (ValueError, OverflowError):
            shown = "a value of the wrong form" if self.secret else _shown(raw)
            raise DicelabError(f"{self.name} must be {self.allowed}, got {shown}") from None


def _whole(lo: int, hi: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        text = raw.strip()
        if not re.fullmatch(r"[0-9]{1,9}", text) or not lo <= int(text) <= hi:
            raise ValueError(raw)
        return int(text)

    return parse


def _path(raw: str) -> str:
    if "\x00" in raw or len(raw.encode("utf-8", "surrogateescape")) > MAX_PATH or raw.strip() in ("", "."):
        raise ValueError(raw)
    return raw


def _url(raw: str) -> str:
    if len(raw) > MAX_URL or "://" not in raw:
        raise ValueError(raw)
    return raw


def _sync(raw: str) -> str:
    if raw.strip().upper() not in SYNC_MODES:
        raise ValueError(raw)
    return raw.strip().upper()


def _admin_key(raw: str) -> str:
    if ADMIN_KEY_FORMAT.fullmatch(raw) is None:
        raise ValueError("the key")
    return raw


def _text(raw: str) -> str:
    return raw


MAX_MIB = 1 << 20  # a TiB: more than any machine gives a cache
VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("DICELAB_CACHE_DIR", None, "a folder name", _path),
    Variable("DICELAB_WEB_CACHE_MIB", None, f"a whole number of MiB from 1 to {MAX_MIB}", _whole(1, MAX_MIB)),
    Variable("DICELAB_SHARD_CACHE_MB", 1024, f"a whole number of MB from 1 to {MAX_MIB}", _whole(1, MAX_MIB)),
    Variable("DICELAB_DB", None, "an SQLAlchemy database URL such as sqlite:///lab.sqlite", _url),
    Variable("DICELAB_SQLITE_SYNC", "NORMAL", "NORMAL, FULL or EXTRA", _sync),
    Variable("DICELAB_ADMIN_KEY", None, "8 to 200 visible ASCII characters without spaces", _admin_key,
             secret=True),
    Variable("PGHOST", None, "libpq's host list", _text, empty_is_unset=True),
)}


def get(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The checked value of the variable ``name`` (its default when unset)."""
    return VARIABLES[name].value(environ)


def whole_number(name: str, environ: Mapping[str, str] | None = None) -> int:
    """:func:`get` for a whole-number variable."""
    return int(get(name, environ))


def check_all(environ: Mapping[str, str] | None = None) -> None:
    """Check every variable that is set: the first bad one raises its one-line error."""
    for var in VARIABLES.values():
        var.value(environ)
