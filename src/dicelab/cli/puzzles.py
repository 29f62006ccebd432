"""``dicelab puzzles``: build puzzle sets from the games' exact solutions, and show them.

Every game that offers puzzles (the optional hook of :mod:`dicelab.core.puzzles`) is built the
same way; nothing here names a game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from dicelab.core import puzzles as pz
from dicelab.core import registry
from dicelab.core.cli import JsonOption, check_count, check_out_file, check_seed, emit
from dicelab.core.errors import DicelabError
from dicelab.core.specs import shorten

app = typer.Typer(help="Puzzles drawn from the exact solutions: build a set, list one.", no_args_is_help=True)
ALL = "all"


def offering() -> list[registry.GameEntry]:
    """The registered games that offer puzzles."""
    return [g for g in registry.games() if pz.source_of(g) is not None]


def games_named(name: str) -> list[registry.GameEntry]:
    """``all`` or one game offering puzzles; a one-line error names the allowed otherwise."""
    games = offering()
    allowed = ", ".join([ALL, *(g.name for g in games)])
    if name == ALL:
        return games
    found = [g for g in games if g.name == name]
    if not found:
        raise DicelabError(f"--game must be one of {allowed}, got {shorten(name)}")
    return found


def _summary(doc: dict[str, Any], out: Path | None) -> dict[str, Any]:
    by_game = {name: {"puzzles": g["puzzles"], "seconds": g["seconds"], "min_margin": g["min_margin"]}
               for name, g in doc["games"].items()}
    return {"games": by_game, "puzzles": len(doc["puzzles"]), "seed": doc["seed"], "count": doc["count"],
            "seconds": doc["seconds"], "out": None if out is None else str(out)}


def _table(puzzles: list[dict[str, Any]], title: str) -> Table:
    t = Table(title=title)
    for col in ("id", "setting", "rating", "best", "margin", "rules that fail", "why"):
        t.add_column(col, overflow="fold")
    for p in puzzles:
        t.add_row(p["id"], p["setting"], str(p["rating"]), p["best_label"], f"{100 * p['margin']:.1f} points",
                  ", ".join(x["name"] for x in p["thumbs"] if not x["right"]), p["why"])
    return t


@app.command("build")
def build(
    game: str = typer.Option(..., "--game", help="A game offering puzzles, or 'all'."),
    count: int = typer.Option(20, "--count", help=f"Puzzles of each game (1 to {pz.MAX_COUNT}), shared among its settings."),
    seed: int = typer.Option(0, "--seed", help="Seed of the games the positions are drawn from."),
    out: Path = typer.Option(None, "--out", help="Write the set here (.json, with a checksum)."),
    json_out: bool = JsonOption,
) -> None:
    """Draw positions from games between strong bots, keep those where the exact best move beats
    the second by a clear margin and a rule of thumb gets it wrong, rate them, and store them."""
    entries = games_named(game)
    check_count(count, "--count", 1, pz.MAX_COUNT)
    check_seed(seed)
    check_out_file(out, "--out", (".json",))
    doc = pz.build(entries, count, seed, progress=not json_out)
    if out is not None:
        pz.save(out, doc)
    summary = _summary(doc, out)

    def render(console: Console) -> None:
        if out is None:  # nothing stored: show the puzzles themselves
            console.print(_table(doc["puzzles"], f"{len(doc['puzzles'])} puzzles (seed {seed})"))
        t = Table(title=f"{len(doc['puzzles'])} puzzles built in {doc['seconds']:.1f} s (seed {seed})")
        for col in ("game", "puzzles", "ratings", "smallest margin kept", "seconds"):
            t.add_column(col)
        for name, g in summary["games"].items():
            ratings = [p["rating"] for p in doc["puzzles"] if p["game"] == name]
            t.add_row(name, str(g["puzzles"]), f"{min(ratings)}-{max(ratings)}" if ratings else "-",
                      f"{100 * g['min_margin']:g} points", f"{g['seconds']:.1f}")
        console.print(t)
        if out is not None:
            console.print(f"written to {out}")

    emit({**summary, "puzzles": doc["puzzles"]} if json_out and out is None else summary, json_out, render)


@app.command("list")
def list_(
    path: Path = typer.Option(None, "--from", help="A puzzle set (default: the one shipped with dicelab)."),
    game: str = typer.Option(ALL, "--game", help="Only this game's puzzles, or 'all'."),
    json_out: bool = JsonOption,
) -> None:
    """The puzzles of a set, with their ratings and the rules of thumb that fail."""
    names = {g.name for g in games_named(game)}
    doc = pz.load(path if path is not None else pz.SHIPPED)
    chosen = [p for p in doc["puzzles"] if p.get("game") in names]
    emit({"puzzles": chosen, "seed": doc.get("seed"), "count": len(chosen)}, json_out,
         lambda console: console.print(_table(chosen, f"{len(chosen)} puzzles")))
