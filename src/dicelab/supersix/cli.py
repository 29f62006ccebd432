"""`dicelab supersix`: Super Six: the stick-and-lid dice game."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console

from dicelab.core.cli import (
    JsonOption,
    check_count,
    check_out_plot,
    check_seed,
    emit,
    rows_table,
)
from dicelab.core.cli_backends import (
    AddressOption,
    BackendOption,
    StoreOption,
    WorkersOption,
    backend_kwargs,
)
from dicelab.core.errors import require
from dicelab.core.progress import progress_bar
from dicelab.core.specs import parse_whole, shorten
from dicelab.supersix.rules import MAX_GAMES, MAX_STICKS, SuperSixRules

app = typer.Typer(help="Super Six: the stick-and-lid dice game.", no_args_is_help=True)

SticksOption = typer.Option(4, "--sticks", help="Sticks per player at the start.")
PlayersOption = typer.Option(2, "--players", help="Number of players (2 to 6 for solving).")


def _state(text: str) -> tuple[int, int, int, int]:
    """Parse seed 001's ``LID/OWN/OPP/FORCED`` (FORCED optional, default 0)."""
    parts = text.strip().split("/")
    require(
        len(parts) in (3, 4), f"a position is LID/OWN/OPP/FORCED, e.g. 5/1/1/1; got {shorten(text)}"
    )
    vals = [parse_whole(p, "each number of LID/OWN/OPP/FORCED", 0, MAX_STICKS) for p in parts]
    if len(vals) == 3:
        vals.append(0)
    return vals[0], vals[1], vals[2], vals[3]


@app.command("solve")
def solve_cmd(
    sticks: int = SticksOption,
    players: int = PlayersOption,
    json_out: bool = JsonOption,
) -> None:
    """Solve the game: the start player's win probability (2 players) or every seat's (max-n)."""
    from dicelab.supersix.solver import solve_maxn, solve_two

    rules = SuperSixRules(sticks=sticks, players=players)
    t0 = time.perf_counter()
    if players == 2:
        sol = solve_two(rules)
        data = {
            "rules": rules.to_dict(),
            "start_player_win": sol.start_player_win(),
            "states": sol.n_states(),
            "max_residual": sol.max_residual,
            "policy_iterations": sol.iterations,
            "seconds": time.perf_counter() - t0,
        }
    else:
        require(players <= 6, f"max-n solving takes 2 to 6 players, got {players}")
        with progress_bar(f"max-n value iteration, {players} players", total=1,
                          enabled=players >= 4 and not json_out) as bar:
            msol = solve_maxn(rules)
            bar.advance()
        data = {
            "rules": rules.to_dict(),
            "start_order_wins": msol.start_order_wins(),
            "states": int(2 * msol.states.shape[0]),
            "converged": msol.converged,
            "max_delta": msol.max_delta,
            "max_sweeps": msol.max_sweeps,
            "throw_share": float(msol.throw.mean()),
            "seconds": time.perf_counter() - t0,
        }
    emit(data, json_out, title="Super Six")


@app.command("edge")
def edge_cmd(
    max_sticks: int = typer.Option(30, "--max-sticks", help="Largest S to solve."),
    json_out: bool = JsonOption,
) -> None:
    """The start player's win probability for S = 1..MAX sticks each (two players, optimal)."""
    from dicelab.supersix.plots import start_player_edges

    edges = start_player_edges(max_sticks)
    rows = [{"sticks": s, "start_player_win": p} for s, p in enumerate(edges, start=1)]

    def render(console: Console) -> None:
        console.print(rows_table(rows, title="Start player's edge (optimal play)"))

    emit({"rows": rows}, json_out, render)


@app.command("table")
def table_cmd(
    sticks: int = SticksOption,
    min_lid: int = typer.Option(3, "--min-lid", help="Only positions with at least this many sticks in the lid."),
    max_total: int = typer.Option(7, "--max-total", help="Only positions with at most this many sticks in play (seed 001: 7)."),
    json_out: bool = JsonOption,
) -> None:
    """Seed 001's Results table: value, decision and win probability at every position."""
    from dicelab.supersix.solver import solve_two_cached

    rules = SuperSixRules(sticks=sticks)
    require(0 <= min_lid <= 5, f"--min-lid must be from 0 to 5, got {min_lid}")
    require(max_total >= 2, f"--max-total must be at least 2, got {max_total}")
    sol = solve_two_cached(rules)
    rows = [r for r in sol.table(min_lid) if r["lid"] + r["own"] + r["opponent"] <= max_total]

    def render(console: Console) -> None:
        console.print(rows_table(rows, title=f"Super Six, {sticks} sticks: optimal play"))

    emit({"rules": rules.to_dict(), "rows": rows}, json_out, render)


@app.command("query")
def query_cmd(
    state: str = typer.Argument(..., help="LID/OWN/OPP/FORCED, e.g. 5/1/1/1 (seed 001's i/j/k/l)."),
    sticks: int = SticksOption,
    json_out: bool = JsonOption,
) -> None:
    """Win probability and optimal action at one two-player position."""
    from dicelab.supersix.solver import solve_two_cached

    lid, own, opp, forced = _state(state)
    rules = SuperSixRules(sticks=sticks)
    rules.check_state(lid, (own, opp), forced)
    sol = solve_two_cached(rules)
    data = {
        "state": f"{lid}/{own}/{opp}/{forced}",
        "prob": sol.win_probability(lid, own, opp, forced),
        "action": sol.action(lid, own, opp, forced),
    }
    if not forced:
        throw, stop = sol.values(lid, own, opp)
        data["prob_throw"], data["prob_stop"] = throw, stop
    emit(data, json_out, title="Super Six position")


@app.command("eval")
def eval_cmd(
    a: str = typer.Argument(..., help="Strategy A: optimal, always, stop-at:N."),
    b: str = typer.Argument(..., help="Strategy B: optimal, always, stop-at:N."),
    sticks: int = SticksOption,
    json_out: bool = JsonOption,
) -> None:
    """Exact P(A wins) against B (two players): A starting, B starting, and the mean."""
    from dicelab.supersix import evaluate

    rules = SuperSixRules(sticks=sticks)
    h = evaluate(a, b, rules)
    data = {"rules": rules.to_dict(), **h.to_dict(), "a": a, "b": b, "exact": True}
    emit(data, json_out, title=f"{a} against {b}")


@app.command("best-response")
def best_response_cmd(
    b: str = typer.Argument(..., help="The fixed opponent: optimal, always, stop-at:N."),
    sticks: int = SticksOption,
    json_out: bool = JsonOption,
) -> None:
    """The exact best reply to a fixed strategy (two players) and how often it wins."""
    from dicelab.supersix import best_response

    rules = SuperSixRules(sticks=sticks)
    br = best_response(b, rules)
    data = {"rules": rules.to_dict(), "b": b, "strategy": br.strategy.name, **br.result.to_dict(), "exact": True}
    emit(data, json_out, title=f"best response to {b}")


@app.command("simulate")
def simulate_cmd(
    specs: list[str] = typer.Argument(..., help="One strategy per seat (seat 1 starts)."),
    games: int = typer.Option(10_000, "--games", help="Games to play."),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same result)."),
    sticks: int = SticksOption,
    rotate: bool = typer.Option(False, "--rotate", help="Rotate the seats so each strategy starts equally often."),
    confidence: float = typer.Option(0.95, "--confidence", help="Confidence level of the intervals."),
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Monte Carlo games for 2 to 10 players, with Wilson confidence intervals."""
    from dicelab.supersix import simulate

    require(len(specs) >= 2, f"give one strategy per player (at least 2), got {len(specs)}")
    rules = SuperSixRules(sticks=sticks, players=len(specs))
    check_count(games, "--games", 1, MAX_GAMES)
    check_seed(seed)
    require(
        0.0 < confidence < 1.0, f"--confidence must lie strictly between 0 and 1, got {confidence}"
    )
    scale = backend_kwargs(backend, address, workers, store) or {}
    if scale:  # the same batches of games, spread over workers
        scale["progress"] = not json_out
    res = simulate(specs, rules, games=games, seed=seed, confidence=confidence, rotate=rotate, **scale)

    def render(console: Console) -> None:
        console.print(rows_table(res["results"], title=f"{games} games, seed {seed}"))

    emit(res, json_out, render)


@app.command("plot")
def plot_cmd(
    out: Path = typer.Option(..., "--out", help="Image file to write (.png, .pdf or .svg)."),
    kind: str = typer.Option("strategy", "--kind", help="strategy (seed 001's chart) or edge."),
    sticks: int = SticksOption,
    max_total: int = typer.Option(7, "--max-total", help="Strategy chart: positions with at most this many sticks."),
    max_sticks: int = typer.Option(30, "--max-sticks", help="Edge plot: largest S."),
    json_out: bool = JsonOption,
) -> None:
    """Draw seed 001's strategy chart or the start player's edge against S."""
    from dicelab.supersix.plots import edge_plot, strategy_chart
    from dicelab.supersix.solver import solve_two_cached

    require(kind in ("strategy", "edge"), f"--kind must be strategy or edge, got {kind!r}")
    check_out_plot(out, "--out")
    if kind == "strategy":
        require(max_total >= 2, f"--max-total must be at least 2, got {max_total}")
        path = strategy_chart(solve_two_cached(SuperSixRules(sticks=sticks)), out, max_total)
    else:
        path = edge_plot(out, max_sticks)
    emit({"out": str(path), "kind": kind}, json_out)

