"""`dicelab liars`: Liar's Dice: engine, bots, Q-learning and equilibria."""

from __future__ import annotations

import typer

app = typer.Typer(help="Liar's Dice: engine, bots, Q-learning and equilibria.", no_args_is_help=True)
