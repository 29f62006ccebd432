"""``dicelab stats``: sample-size planning and significance tests for simulated win rates."""

from __future__ import annotations

import typer

from dicelab.cli.common import JsonOption, emit
from dicelab.sim import stats as st

app = typer.Typer(help="Statistics for simulations: sample sizes, intervals, comparisons.", no_args_is_help=True)


@app.command("sample-size")
def sample_size(
    margin: float = typer.Option(0.025, help="Half-width of the confidence interval."),
    confidence: float = typer.Option(0.95, help="Confidence level, between 0 and 1."),
    json_out: bool = JsonOption,
) -> None:
    """Games needed so that the win-rate interval has half-width MARGIN: n = z^2/(4 E^2)."""
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
    lo, hi = st.interval(wins, games, confidence, method)
    emit({"rate": wins / games, "ci_low": lo, "ci_high": hi, "method": method}, json_out)
