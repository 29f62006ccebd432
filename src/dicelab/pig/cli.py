"""``dicelab pig``: exact optimal play for two-player Pig and its variants.

The strategy-lab commands (eval, best-response, simulate, tournament) live in
:mod:`dicelab.pig.lab_cli` and register on the same group.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console

from dicelab.core.cli import JsonOption, check_out_file, check_out_plot, emit, kv_table
from dicelab.core.errors import DicelabError
from dicelab.core.progress import progress_bar
from dicelab.pig.rules import VARIANTS, PigRules

app = typer.Typer(
    help="Two-player Pig and its variants: solve, query, plot, evaluate, simulate.",
    no_args_is_help=True,
)

GoalOption = typer.Option(100, "--goal", help="Points needed to win.")
SidesOption = typer.Option(None, "--sides", help="Faces per die (default: 6; a coin for piglet).")
VariantOption = typer.Option("standard", "--variant", help=f"One of: {', '.join(VARIANTS)}.")
TurnLimitOption = typer.Option(
    None, "--turn-limit", help="Score the game a draw after this many turns (seed 003's E[x,y,n])."
)


def make_rules(goal: int, sides: int | None, variant: str) -> PigRules:
    """Rules from the CLI's rule options (validation errors are one-line DicelabErrors)."""
    return PigRules(goal=goal, sides=sides, variant=variant)


def solve_with_progress(
    rules: PigRules, turn_limit: int | None = None, quiet: bool = False, no_cache: bool = False
):
    """Solve through the cache (afresh with ``no_cache``), with a bar on stderr for large problems."""
    from dicelab.pig.solver import solve, solve_cached

    big = rules.goal >= 200 or turn_limit is not None
    with progress_bar("solving Pig", total=1, enabled=big and not quiet) as bar:
        sol = solve(rules, turn_limit) if no_cache else solve_cached(rules, turn_limit)
        bar.advance()
    return sol


@app.command("solve")
def solve_cmd(
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    turn_limit: int | None = TurnLimitOption,
    out: Path | None = typer.Option(None, "--out", help="Also save the table as OUT.npz + OUT.json."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Solve afresh; ignore the table cache."),
    json_out: bool = JsonOption,
) -> None:
    """Solve the game exactly; print the first player's optimal win probability.

    Solved tables are cached in the user cache folder (DICELAB_CACHE_DIR overrides it), so a
    repeated call loads the table instead of solving again; ``seconds`` is this call's time.
    """
    rules = make_rules(goal, sides, variant)
    check_out_file(out, "--out")
    t0 = time.perf_counter()
    sol = solve_with_progress(rules, turn_limit, no_cache=no_cache)
    summary = sol.summary()
    summary["seconds"] = time.perf_counter() - t0
    summary["solve_seconds"] = sol.seconds
    if out is not None:
        summary["out"] = str(sol.save(out))

    def render(console: Console) -> None:
        console.print(kv_table({
            "rules": f"{rules.variant}, goal {rules.goal}, sides {rules.sides}",
            "turn limit": turn_limit if turn_limit is not None else "none",
            "P(first player wins)": f"{summary['win_probability']:.10f}",
            "states": f"{summary['states']:,}",
            "max Bellman residual": f"{summary['max_residual']:.2e}",
            "seconds": f"{summary['seconds']:.3f}",
            **({"saved": summary["out"]} if out is not None else {}),
        }, title="Optimal Pig"))

    emit(summary, json_out, render)


@app.command("query")
def query_cmd(
    i: int = typer.Argument(..., help="Mover's banked score."),
    j: int = typer.Argument(..., help="Opponent's banked score."),
    k: int = typer.Argument(0, help="Mover's turn total."),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    json_out: bool = JsonOption,
) -> None:
    """Win probability and optimal action at state (I, J, K)."""
    rules = make_rules(goal, sides, variant)
    rules.check_state(i, j, k)
    sol = solve_with_progress(rules)
    p_roll, p_hold = sol.values(i, j, k)
    data = {
        "state": [i, j, k],
        "win_probability": sol.win_probability(i, j, k),
        "action": sol.action(i, j, k),
        "p_roll": p_roll,
        "p_hold": p_hold,
        "hold_threshold": sol.hold_threshold(i, j),
    }
    emit(data, json_out, title=f"Pig state ({i}, {j}, {k})")


@app.command("plot")
def plot_cmd(
    kind: str = typer.Option("boundary", "--kind", help="boundary (3-D roll/hold surface) or heatmap."),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    out: Path = typer.Option(
        Path("pig.png"), "--out", help="Image file to write (.png, .pdf or .svg)."
    ),
    json_out: bool = JsonOption,
) -> None:
    """Draw Neller's roll/hold boundary or a heatmap of P(i, j, 0)."""
    from dicelab.pig import plots

    if kind not in ("boundary", "heatmap"):
        raise DicelabError(f"unknown plot kind {kind!r}; choose boundary or heatmap")
    rules = make_rules(goal, sides, variant)
    check_out_plot(out, "--out")
    sol = solve_with_progress(rules)
    path = plots.boundary(sol, out) if kind == "boundary" else plots.heatmap(sol, out)
    emit({"kind": kind, "out": str(path), "rules": rules.to_dict()}, json_out)
