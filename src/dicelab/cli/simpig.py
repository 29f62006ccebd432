"""`dicelab simpig`: Simultaneous Pig for 2 to n players (Zhu & Ma 2023)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Simultaneous Pig for 2 to n players (Zhu & Ma 2023).", no_args_is_help=True)
