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
    help="Pig and its variants, for 2 to 6 players: solve, query, plot, evaluate, simulate.",
    no_args_is_help=True,
)

GoalOption = typer.Option(100, "--goal", help="Points needed to win.")
SidesOption = typer.Option(None, "--sides", help="Faces per die (default: 6; a coin for piglet).")
VariantOption = typer.Option("standard", "--variant", help=f"One of: {', '.join(VARIANTS)}.")
TurnLimitOption = typer.Option(
    None, "--turn-limit", help="Score the game a draw after this many turns (seed 003's E[x,y,n])."
)
PlayersOption = typer.Option(2, "--players", help="Players, 2 to 6 (seat 0 moves first).")


def make_rules(goal: int, sides: int | None, variant: str, players: int = 2) -> PigRules:
    """Rules from the CLI's rule options (validation errors are one-line DicelabErrors)."""
    return PigRules(goal=goal, sides=sides, variant=variant, players=players)


def solve_n_with_progress(rules: PigRules, quiet: bool = False, no_cache: bool = False):
    """The n-player solution through the cache, with a bar on stderr for large problems."""
    from dicelab.pig.nsolver import solve_n, solve_n_cached

    big = rules.goal ** rules.players >= 2_000_000
    with progress_bar(f"solving Pig for {rules.players} players", total=1,
                      enabled=big and not quiet) as bar:
        sol = solve_n(rules) if no_cache else solve_n_cached(rules)
        bar.advance()
    return sol


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
    players: int = PlayersOption,
    turn_limit: int | None = TurnLimitOption,
    out: Path | None = typer.Option(None, "--out", help="Also save the table as OUT.npz + OUT.json."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Solve afresh; ignore the table cache."),
    json_out: bool = JsonOption,
) -> None:
    """Solve the game exactly; print the first player's optimal win probability.

    Solved tables are cached in the user cache folder (DICELAB_CACHE_DIR overrides it), so a
    repeated call loads the table instead of solving again; ``seconds`` is this call's time.
    """
    rules = make_rules(goal, sides, variant, players)
    check_out_file(out, "--out")
    if players > 2:
        from dicelab.core.errors import require

        require(turn_limit is None, "--turn-limit is for two players")
        _solve_n_cmd(rules, out, no_cache, json_out)
        return
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


def _solve_n_cmd(rules: PigRules, out: Path | None, no_cache: bool, json_out: bool) -> None:
    t0 = time.perf_counter()
    sol = solve_n_with_progress(rules, no_cache=no_cache)
    summary = sol.summary()
    summary["seconds"] = time.perf_counter() - t0
    summary["solve_seconds"] = sol.seconds
    summary["mixed_choices"] = int(len(sol.mixes))
    if out is not None:
        summary["out"] = str(sol.save(out))

    def render(console: Console) -> None:
        console.print(kv_table({
            "rules": f"{rules.variant}, goal {rules.goal}, sides {rules.sides}, "
                     f"{rules.players} players",
            **{f"P(seat {s} wins)": f"{p:.10f}" for s, p in enumerate(summary["win_probabilities"])},
            "states": f"{summary['states']:,}",
            "mixed choices": summary["mixed_choices"],
            "max Bellman residual": f"{summary['max_residual']:.2e}",
            "seconds": f"{summary['seconds']:.3f}",
            **({"saved": summary["out"]} if out is not None else {}),
        }, title=f"Optimal Pig for {rules.players} players (max-n)"))

    emit(summary, json_out, render)


@app.command("query")
def query_cmd(
    numbers: list[int] = typer.Argument(
        ..., help="I J [K]: the mover's banked score, the others' in turn order (one with two "
        "players), then the mover's turn total (default 0)."),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    players: int = PlayersOption,
    json_out: bool = JsonOption,
) -> None:
    """Win probability and optimal action at a state: the scores mover first, then the turn total."""
    from dicelab.core.errors import require

    rules = make_rules(goal, sides, variant, players)
    require(len(numbers) in (players, players + 1),
            f"give {players} banked scores (the mover's first) and optionally the turn total, "
            f"got {len(numbers)} numbers")
    scores, k = numbers[:players], (numbers[players] if len(numbers) > players else 0)
    if players > 2:
        c = rules.check_scores(scores, k)
        sol = solve_n_with_progress(rules)
        p_roll, p_hold = sol.values(c, k)
        emit({"scores": list(c), "turn_total": k,
              "win_probabilities": list(sol.win_probabilities(c, k)),
              "win_probability": sol.win_probability(c, k), "action": sol.action(c, k),
              "p_roll": float(p_roll[0]), "p_hold": None if p_hold is None else float(p_hold[0]),
              "hold_threshold": sol.hold_threshold(c)},
             json_out, title=f"Pig for {players} players: scores {list(c)}, turn total {k}")
        return
    i, j = scores
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
    players: int = PlayersOption,
    out: Path = typer.Option(
        Path("pig.png"), "--out", help="Image file to write (.png, .pdf or .svg)."
    ),
    json_out: bool = JsonOption,
) -> None:
    """Draw Neller's roll/hold boundary or a heatmap of P(i, j, 0); with --players 3 the hold
    boundary over the other two players' scores (boundary) or each seat's chance (seats)."""
    from dicelab.pig import plots

    rules = make_rules(goal, sides, variant, players)
    check_out_plot(out, "--out")
    if players > 2:
        from dicelab.pig import nplots

        if kind not in ("boundary", "seats"):
            raise DicelabError(f"unknown plot kind {kind!r} for {players} players; choose boundary or seats")
        sol = solve_n_with_progress(rules)
        if kind == "boundary":
            path = nplots.hold_boundary(sol, out)
        else:
            path = nplots.seats_by_position([{"players": players, "goal": goal,
                                              "win_probabilities": list(sol.start())}], out)
        emit({"kind": kind, "out": str(path), "rules": rules.to_dict()}, json_out)
        return
    if kind not in ("boundary", "heatmap"):
        raise DicelabError(f"unknown plot kind {kind!r}; choose boundary or heatmap")
    sol = solve_with_progress(rules)
    path = plots.boundary(sol, out) if kind == "boundary" else plots.heatmap(sol, out)
    emit({"kind": kind, "out": str(path), "rules": rules.to_dict()}, json_out)
