"""The ``dicelab`` application: one sub-command group per game, plus statistics and the server.

Errors a user can cause (bad options, impossible states, unknown strategies) end the command with a
single line on stderr and exit code 2; no traceback is ever shown for them.
"""

from __future__ import annotations

import sys

import typer

from dicelab import __version__
from dicelab.cli import liars, pig, pig_lab, serve, simpig, stats, supersix
from dicelab.errors import DicelabError

try:  # typer >= 0.22 vendors click
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as _cx  # type: ignore[no-redef]

_EXIT = getattr(_cx, "Exit", typer.Exit)
_ABORT = getattr(_cx, "Abort", typer.Abort)

app = typer.Typer(
    name="dicelab",
    help="Solve, evaluate, learn and play jeopardy dice games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(pig.app, name="pig")  # pig_lab adds its commands to the same group
assert pig_lab.app is pig.app
app.add_typer(simpig.app, name="simpig")
app.add_typer(supersix.app, name="supersix")
app.add_typer(liars.app, name="liars")
app.add_typer(stats.app, name="stats")
app.command("serve")(serve.serve)


@app.command("version")
def version() -> None:
    """Print the dicelab version."""
    typer.echo(__version__)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit code 2."""
    command = typer.main.get_command(app)
    args = sys.argv[1:] if argv is None else argv
    try:
        rv = command.main(args=args, prog_name="dicelab", standalone_mode=False)
    except DicelabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except _cx.UsageError as exc:
        msg = exc.format_message().replace("\n", " ").strip()
        cmd = exc.ctx.command_path if exc.ctx else "dicelab"
        if msg:  # empty when no arguments were given and the help was shown instead
            print(f"error: {msg} (see '{cmd} --help')", file=sys.stderr)
        sys.exit(2)
    except _EXIT as exc:
        sys.exit(exc.exit_code)
    except _ABORT:
        print("aborted", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        sys.exit(0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)
