"""Strategies: the protocol, named strategies and the spec parser (``"hold:25"``, ``"file:P"``).

The limits every spec parser shares live here, so that no input can make parsing unbounded:
numbers in specs have at most :data:`MAX_DIGITS` digits, specs nest at most :data:`MAX_DEPTH`
deep and are at most :data:`MAX_SPEC_LENGTH` characters long.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from dicelab.core.errors import DicelabError, require

#: Longest spec accepted (a path inside ``file:PATH`` included).
MAX_SPEC_LENGTH = 10_000
#: Deepest nesting of ``best-response:``/``br:``/``mix:`` inside one another.
MAX_DEPTH = 8
#: Most digits of a whole number in a spec (``hold:N``, ``stop-at:N``, thresholds, ranges).
MAX_DIGITS = 6

_WHOLE = re.compile(r"[0-9]+")


def shorten(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut to about ``limit`` characters so that error lines stay short."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[: limit - 10]) + f"... ({len(text)} characters)"


def check_spec(spec: object, help_text: str) -> str:
    """The stripped spec, after checking that it is a string of reasonable length."""
    require(isinstance(spec, str), f"a strategy spec must be a string, got {type(spec).__name__}")
    assert isinstance(spec, str)
    require(
        len(spec) <= MAX_SPEC_LENGTH,
        f"strategy spec {shorten(spec)} is longer than {MAX_SPEC_LENGTH} characters; {help_text}",
    )
    return spec.strip()


def check_depth(depth: int, spec: str) -> None:
    """Refuse specs nested deeper than :data:`MAX_DEPTH`."""
    require(
        depth <= MAX_DEPTH,
        f"strategy {shorten(spec)} nests more than {MAX_DEPTH} levels deep "
        f"(best-response:, br: and mix: may be nested at most {MAX_DEPTH} times)",
    )


def parse_whole(text: str, what: str, lo: int, hi: int) -> int:
    """A whole number in ASCII digits from ``lo`` to ``hi`` (its length checked before converting)."""
    t = text.strip()
    require(
        _WHOLE.fullmatch(t) is not None and len(t.lstrip("0")) <= MAX_DIGITS,
        f"{what} must be a whole number from {lo} to {hi}, got {shorten(text)}",
    )
    v = int(t)
    require(lo <= v <= hi, f"{what} must be a whole number from {lo} to {hi}, got {v}")
    return v


def check_input_file(path: str | os.PathLike[str], what: str) -> Path:
    """``path`` as a Path, after checking that it names a readable regular file."""
    text = os.fspath(path)
    require(text.strip() != "", f"{what}: the file name is empty")
    require("\x00" not in text, f"{what}: the file name holds a NUL byte")
    p = Path(text)
    try:
        if not p.exists():
            raise DicelabError(f"{what} {shorten(text)} does not exist")
        require(not p.is_dir(), f"{what} {shorten(text)} is a folder, not a file")
        require(p.is_file(), f"{what} {shorten(text)} is not a regular file")
        require(os.access(p, os.R_OK), f"{what} {shorten(text)} is not readable")
    except OSError as exc:  # a name too long, a file where a folder is expected, ...
        raise DicelabError(f"{what} {shorten(text)}: {exc.strerror or exc}") from None
    return p
