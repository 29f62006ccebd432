"""``dicelab stats``: sample-size planning and significance tests for simulated win rates."""

from __future__ import annotations

import typer

from dicelab.core.cli import JsonOption, check_count, emit
from dicelab.core import stats as st
from dicelab.core.errors import require

MAX_GAMES = 10**15  # counts beyond this lose precision as floats
MIN_MARGIN = 1e-6  # a margin of 1e-6 already needs about 10^12 games

app = typer.Typer(help="Statistics for simulations: sample sizes, intervals, comparisons.", no_args_is_help=True)


@app.command("sample-size")
def sample_size(
    margin: float = typer.Option(0.025, help="Half-width of the confidence interval."),
    confidence: float = typer.Option(0.95, help="Confidence level, between 0 and 1."),
    json_out: bool = JsonOption,
) -> None:
    """Games needed so that the win-rate interval has half-width MARGIN: n = z^2/(4 E^2)."""
    require(
        MIN_MARGIN <= margin < 0.5,
        f"--margin must be at least {MIN_MARGIN:g} and below 0.5, got {margin}",
    )
    n = st.sample_size(margin, confidence)
    z = st._z(confidence)
    emit(
        {"games": n, "margin": margin, "confidence": confidence, "z": z,
         "formula": "n = ceil(z^2 * p * (1 - p) / margin^2) with p = 1/2"},
        json_out,
    )


@app.command("compare")
def compare(
    wins_a: int = typer.Option(..., "--wins-a", help="Games A won."),
    games: int = typer.Option(..., "--games", help="Games played."),
    confidence: float = typer.Option(0.95, help="Confidence level, between 0 and 1."),
    json_out: bool = JsonOption,
) -> None:
    """Test whether A beats B more than half the time (exact one-sided binomial test)."""
    check_count(games, "--games", 1, MAX_GAMES)
    emit(st.compare(wins_a, games, confidence).to_dict(), json_out)


@app.command("interval")
def interval(
    wins: int = typer.Option(..., "--wins", help="Successes."),
    games: int = typer.Option(..., "--games", help="Trials."),
    confidence: float = typer.Option(0.95, help="Confidence level, between 0 and 1."),
    method: str = typer.Option("wilson", help="wilson or exact (Clopper-Pearson)."),
    json_out: bool = JsonOption,
) -> None:
    """A confidence interval for a win rate."""
    check_count(games, "--games", 1, MAX_GAMES)
    lo, hi = st.interval(wins, games, confidence, method)
    emit({"rate": wins / games, "ci_low": lo, "ci_high": hi, "method": method}, json_out)
