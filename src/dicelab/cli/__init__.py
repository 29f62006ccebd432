"""The ``dicelab`` command line: a thin typer layer over the public functions."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> None:
    """The ``dicelab`` console script: the environment variables are checked first (one line and
    exit code 2 for a bad one, :mod:`dicelab.core.env`), before the game packages are imported
    (some size their caches from them at import), then :func:`dicelab.cli.main.main` runs."""
    import sys

    from dicelab.core import env
    from dicelab.core.errors import DicelabError

    try:
        env.check_all()
    except DicelabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    from dicelab.cli.main import main as run

    run(argv)
