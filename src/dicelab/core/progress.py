"""Progress bars on stderr (rich), so that ``--json`` output on stdout stays clean."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

stderr_console = Console(stderr=True)


class _NullTask:
    def advance(self, n: float = 1) -> None:  # noqa: D401 - trivial
        """Do nothing."""


class _Task:
    def __init__(self, progress: Progress, task_id: int) -> None:
        self._progress = progress
        self._id = task_id

    def advance(self, n: float = 1) -> None:
        self._progress.advance(self._id, n)


@contextmanager
def progress_bar(description: str, total: float, enabled: bool = True) -> Iterator[_Task | _NullTask]:
    """A rich progress bar on stderr; ``enabled=False`` gives a silent stand-in.

    The bar is drawn only when stderr is a terminal: piped or captured (CI, scripts, ``2>log``)
    it would only leave blank lines behind, so there it stays silent too.

    Usage::

        with progress_bar("solving", total=n) as bar:
            for ...:
                bar.advance()
    """
    if not enabled or not stderr_console.is_terminal:
        yield _NullTask()
        return
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=stderr_console, transient=True) as progress:
        task_id = progress.add_task(description, total=total)
        yield _Task(progress, task_id)
