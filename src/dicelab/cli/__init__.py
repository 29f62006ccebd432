"""The ``dicelab`` command line: a thin typer layer over the public functions."""
