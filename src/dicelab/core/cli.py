"""Helpers every command module shares: output (``--json`` or a rich table) and errors."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import shorten


class _Console(Console):
    """rich's console, but a closed pipe (``| head``) is a :class:`BrokenPipeError` for the command
    line to end quietly with exit 0 (rich's own answer is exit 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


stdout_console = _Console()


def quiet_stdout() -> None:
    """Point stdout at the null device, so that nothing more is written into a closed pipe (the
    interpreter's last flush would print "Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real stdout (tests capture it)
        pass


#: The image formats every ``--out``/``--plot`` of a figure accepts.
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
#: Longest file name (a store adds up to 16 characters, such as ``.tmp.npz``) and path, in bytes.
NAME_MAX = 255 - 16
PATH_MAX = 4000
#: Largest ``--seed`` (numpy's SeedSequence takes any whole number >= 0; this keeps it sane).
MAX_SEED = 2**63 - 1

JsonOption = typer.Option(False, "--json", help="Print exactly one JSON object on stdout.")


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, fractions, tuples and dataclass-likes into JSON types."""
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "to_dict"):
        return to_jsonable(value.to_dict())
    return value


def print_json(data: Mapping[str, Any]) -> None:
    """Write one JSON object, and nothing else, on stdout."""
    typer.echo(json.dumps(to_jsonable(data)))


def emit(
    data: Mapping[str, Any],
    as_json: bool,
    render: Callable[[Console], None] | None = None,
    title: str | None = None,
) -> None:
    """Print ``data`` as one JSON object, or for people through ``render`` (default: key/value table)."""
    if as_json:
        print_json(data)
        return
    if render is not None:
        render(stdout_console)
        return
    stdout_console.print(kv_table(data, title=title))


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.10g}"
    if isinstance(v, Mapping):
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items())
    return str(v)


def kv_table(data: Mapping[str, Any], title: str | None = None) -> Table:
    """A two-column table of the scalar entries of ``data``."""
    table = Table(title=title, show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    for k, v in data.items():
        if isinstance(v, (list, tuple)) and len(v) > 12:
            v = f"[{len(v)} items]"
        table.add_row(str(k), _fmt(v))
    return table


def rows_table(rows: Sequence[Mapping[str, Any]], title: str | None = None) -> Table:
    """A table with one row per mapping; columns from the first row's keys."""
    table = Table(title=title)
    if not rows:
        return table
    cols = list(rows[0].keys())
    for c in cols:
        table.add_column(str(c))
    for r in rows:
        table.add_row(*(_fmt(r.get(c, "")) for c in cols))
    return table


def parse_int_list(text: str, what: str) -> list[int]:
    """Parse ``"1,2,3"`` into integers, with a one-line error naming ``what``."""
    try:
        return [int(x) for x in text.split(",") if x.strip() != ""]
    except ValueError:
        raise DicelabError(f"{what} must be comma-separated whole numbers, got {text!r}") from None


def _check_path_text(path: Path, option: str, folder: bool = False) -> str:
    text = os.fspath(path)
    require(
        text != "" and (folder or text != "." and path.name not in ("", ".", "..")),
        f"{option} needs a {'folder' if folder else 'file'} name, got {shorten(text)}",
    )
    require("\x00" not in text, f"{option} must not hold a NUL byte")
    size = len(text.encode("utf-8", "surrogateescape"))
    longest = max((len(part.encode("utf-8", "surrogateescape")) for part in path.parts), default=0)
    require(
        size <= PATH_MAX and longest <= NAME_MAX,
        f"{option} is too long: a name may have at most {NAME_MAX} bytes and a path {PATH_MAX}, "
        f"got {shorten(text)}",
    )
    return text


def _check_writable_folder(folder: Path, option: str, text: str) -> None:
    """The nearest existing folder above ``folder`` (or itself) must be one we may write into."""
    p = folder
    while not (p.exists() or p.is_symlink()) and p != p.parent:
        p = p.parent
    require(p.is_dir(), f"cannot write {option} {shorten(text)}: {shorten(str(p))} is not a folder")
    require(
        os.access(p, os.W_OK | os.X_OK),
        f"cannot write {option} {shorten(text)}: no permission to write in {shorten(str(p))}",
    )


def check_out_file(
    path: Path | None, option: str, suffixes: Sequence[str] | None = None
) -> Path | None:
    """Check an output file option before any work is done: a name, not too long, one of
    ``suffixes`` (if given), not a folder, in a place we may write. None passes through."""
    if path is None:
        return None
    text = _check_path_text(path, option)
    if suffixes is not None:
        require(
            path.suffix.lower() in suffixes,
            f"{option} must end in {', '.join(suffixes)}, got {shorten(path.name)}",
        )
    try:
        require(not path.is_dir(), f"{option} {shorten(text)} is a folder; give a file name")
        require(
            not path.exists() or path.is_file(),
            f"{option} {shorten(text)} exists and is not a regular file",
        )
        _check_writable_folder(path.parent, option, text)
    except OSError as exc:
        raise DicelabError(f"cannot write {option} {shorten(text)}: {exc.strerror}") from None
    return path


def check_out_plot(path: Path | None, option: str) -> Path | None:
    """:func:`check_out_file` for a figure: ``.png``, ``.pdf`` or ``.svg``."""
    return check_out_file(path, option, PLOT_SUFFIXES)


def check_out_folder(path: Path | None, option: str, here_ok: bool = True) -> Path | None:
    """Check an output folder option (``--store``): an existing folder or one we may create, never
    the root folder (``/``, ``//``, ``/.``); with ``here_ok=False`` (a command that writes reports
    named after its inputs) also not the current folder (``''``, ``.``, ``./``), which needs a name."""
    if path is None:
        return None
    require(here_ok or path.name not in ("", ".", ".."),
            f"{option} needs a folder name (not the current or the root folder), got {shorten(os.fspath(path))}")
    text = _check_path_text(path, option, folder=True)
    require(not path.is_absolute() or os.path.normpath(text) not in ("/", "//"),
            f"{option} {shorten(text)} is the root folder; give a folder of its own")
    try:
        require(
            not path.exists() or path.is_dir(),
            f"{option} {shorten(text)} exists and is not a folder",
        )
        _check_writable_folder(path, option, text)
    except OSError as exc:
        raise DicelabError(f"cannot write {option} {shorten(text)}: {exc.strerror}") from None
    return path


def check_count(value: int | None, option: str, lo: int, hi: int) -> int | None:
    """A whole-number option from ``lo`` to ``hi`` (None passes through)."""
    if value is not None:
        require(lo <= value <= hi, f"{option} must be from {lo:,} to {hi:,}, got {value}")
    return value


def check_seed(seed: int | None, option: str = "--seed") -> int | None:
    """A seed from 0 to :data:`MAX_SEED` (None: fresh randomness, where a command allows it)."""
    return check_count(seed, option, 0, MAX_SEED)


def parse_rule_options(values: Sequence[str] | None) -> dict[str, Any]:
    """``["goal=50", "variant=piglet"]`` as ``{"goal": 50, "variant": "piglet"}`` (whole numbers
    become ints), with a one-line error for an item without ``=``."""
    out: dict[str, Any] = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        require(sep == "=" and key.strip() != "", f"--rule takes NAME=VALUE, got {shorten(item)}")
        v = value.strip()
        out[key.strip()] = int(v) if v.lstrip("-").isdigit() and len(v) < 12 else v
    return out


def add_levels_command(group: typer.Typer, entry: Any) -> None:
    """Add ``levels`` to a game's command group when its Play offers levels
    (:class:`dicelab.core.levels.Ranks`): the ladder with each level's measured strength."""
    if entry.play_name is None:
        return

    @group.command("levels")
    def levels_cmd(
        rule: list[str] = typer.Option(None, "--rule", help="A rule as NAME=VALUE (repeatable), e.g. --rule goal=50."),
        as_json: bool = JsonOption,
    ) -> None:
        """The levels of strength (weakest first) and each one's chance to win against the strongest,
        the two seats averaged: exact where the game allows, else from games played."""
        from dicelab.core.levels import ladder, ranks

        play = entry.play
        require(ranks(play) is not None, f"{entry.title} offers no levels")
        rules = entry.make_rules(**parse_rule_options(rule))
        answer = ladder(entry.name, play, rules, progress=not as_json)
        rows = [{"level": lv["name"], "strength": f"{100 * lv['strength']:.1f}%"
                 + (f" ({100 * lv['interval'][0]:.1f}-{100 * lv['interval'][1]:.1f}%)" if lv["interval"] else ""),
                 "plays": lv["details"], "spec": lv["spec"]} for lv in answer["levels"]]
        emit(answer, as_json, lambda c: (c.print(rows_table(rows, title=f"{entry.title}: levels of strength")),
                                         c.print(answer["details"]["method"])))
