"""``dicelab pig``: exact optimal play for two-player Pig and its variants."""

from __future__ import annotations

import typer

app = typer.Typer(help="Two-player Pig and its variants: solve, query, plot, evaluate, simulate.", no_args_is_help=True)
