"""``dicelab reproduce``: recompute the source documents' tables and figures, beside their printed values.

Generic: the documents come from the registry (each game's reproductions, :mod:`dicelab.core.reproduce`).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from dicelab.core import reproduce as rp
from dicelab.core.cli import JsonOption, check_out_folder, emit, rows_table


def reproduce(
    documents: list[str] = typer.Argument(..., help="Documents to reproduce: 000, 001, 002, 003, 004, or all."),
    out: Path = typer.Option(..., "--out", help="Folder for the reports (DOC.md, DOC/*.png, index.md)."),
    quick: bool = typer.Option(False, "--quick", help="Reduced sizes for the slow parts (seconds, not minutes)."),
    json_out: bool = JsonOption,
) -> None:
    """Recompute every table and figure of the source documents; write a report that sets the paper's
    printed value beside dicelab's and says why they differ."""
    check_out_folder(out, "--out", here_ok=False)
    reports = rp.run(documents, out, quick=quick, progress=not json_out)
    data = {"out": str(out), "quick": quick,
            "documents": [{k: v for k, v in r.to_dict().items() if k != "sections"} | {"report": str(out / f"{r.doc}.md")}
                          for r in reports]}

    def render(console: Console) -> None:
        console.print(rows_table([{"document": r.doc, "printed values": n["checks"], "agree": n["agree"],
                                   "differ": n["differ"], "not compared": n["not_compared"],
                                   "seconds": f"{r.seconds:.0f}"} for r in reports for n in [r.counts()]],
                                 title="Reproductions"))
        console.print(f"reports: {out / 'index.md'}")

    emit(data, json_out, render)
