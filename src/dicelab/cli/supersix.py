"""`dicelab supersix`: Super Six: the stick-and-lid dice game."""

from __future__ import annotations

import typer

app = typer.Typer(help="Super Six: the stick-and-lid dice game.", no_args_is_help=True)
