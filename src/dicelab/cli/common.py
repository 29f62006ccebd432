"""Helpers every command module shares: output (``--json`` or a rich table) and errors."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from dicelab.errors import DicelabError

stdout_console = Console()

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
