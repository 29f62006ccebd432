"""The ``dicelab`` application: one sub-command group per registered game
(:mod:`dicelab.core.registry`), plus statistics and the server.

Errors a user can cause (bad options, impossible states, unknown strategies) end the command with a
single line on stderr and exit code 2; no traceback is ever shown for them. Inputs are validated
where they are parsed; as a last line of defence :func:`main` also turns a file-system error, an
early end of data, a recursion or memory overflow into one line and exit code 2.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import typer

# the submodules by their full names: dicelab.cli (the package) imports this module to run it
import dicelab.cli.grade as grade
import dicelab.cli.puzzles as puzzles
import dicelab.cli.reproduce as reproduce
import dicelab.cli.serve as serve
import dicelab.cli.stats as stats
from dicelab import __version__
from dicelab.core import env, registry
from dicelab.core.cli import add_levels_command, quiet_stdout
from dicelab.core.errors import DicelabError

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
for _game in registry.games():
    _group = _game.cli()
    if _group is not None:
        add_levels_command(_group, _game)
        app.add_typer(_group, name=_game.name)
app.add_typer(stats.app, name="stats")
app.add_typer(puzzles.app, name="puzzles")
app.command("serve")(serve.serve)
app.command("reproduce")(reproduce.reproduce)
app.command("grade")(grade.grade)


@app.command("version")
def version() -> None:
    """Print the dicelab version."""
    typer.echo(__version__)


MAX_ERROR_LINE = 400  # characters of an error line (a 5,000-digit number is cut in the middle)


def _one_line(message: str) -> str:
    text = " ".join(message.split())
    if len(text) > MAX_ERROR_LINE:
        cut = len(text) - MAX_ERROR_LINE + 80
        text = f"{text[: MAX_ERROR_LINE - 100]} ...[{cut} characters]... {text[-80:]}"
    return text


def _os_message(exc: OSError) -> str:
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    return f"cannot read or write {str(exc.filename)!r}: {reason}"


def _guarded(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` with the last line of defence: OS, end-of-data, recursion and memory errors
    become a :class:`DicelabError` (inside the command, so click never sees them)."""

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise DicelabError(_one_line(_os_message(exc))) from None
        except EOFError as exc:  # np.load of an empty file, for one; click would turn it into Abort
            raise DicelabError(_one_line(f"unexpected end of data: {exc}")) from None
        except RecursionError:
            raise DicelabError("the input is nested too deeply to process") from None
        except MemoryError:
            raise DicelabError("not enough memory for this input; choose smaller sizes") from None

    return run


def _guard_tree(command: Any) -> Any:
    for sub in getattr(command, "commands", {}).values():
        _guard_tree(sub)
    if getattr(command, "callback", None) is not None:
        command.callback = _guarded(command.callback)
    return command


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit code 2."""
    command = _guard_tree(typer.main.get_command(app))
    args = sys.argv[1:] if argv is None else argv
    try:
        env.check_all()  # every environment variable dicelab reads, before any work
        rv = command.main(args=args, prog_name="dicelab", standalone_mode=False)
    except DicelabError as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        sys.exit(2)
    except _cx.UsageError as exc:
        msg = _one_line(exc.format_message())
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
        quiet_stdout()
        sys.exit(0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)
