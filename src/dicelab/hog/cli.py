"""``dicelab hog``: Hog (roll 1 to 10 dice at once; any 1 scores nothing): solve exactly, query a
state, evaluate strategies, best responses and seeded simulations."""

from __future__ import annotations

import time

import typer
from rich.console import Console

from dicelab import hog as game
from dicelab.core.cli import JsonOption, check_seed, emit, kv_table

app = typer.Typer(help="Hog: choose how many dice to roll; solve, query, evaluate, simulate.",
                  no_args_is_help=True)

GoalOption = typer.Option(100, "--goal", help="Points needed to win.")
MaxDiceOption = typer.Option(10, "--max-dice", help="Most dice a turn may roll.")
SidesOption = typer.Option(6, "--sides", help="Faces per die.")
_STRATEGY_HELP = "Strategy: always:N, optimal or best-response:SPEC."
#: states whose optimal dice ``solve`` prints (as fractions of the goal)
_SHOWN = ((0, 0), (0, 0.5), (0.5, 0), (0.5, 0.5), (0.8, 0.8), (0.9, 0.5), (0.5, 0.9))


def make_rules(goal: int, max_dice: int, sides: int) -> game.HogRules:
    """Rules from the CLI's options (validation errors are one-line DicelabErrors)."""
    return game.HogRules(goal=goal, max_dice=max_dice, sides=sides)


@app.command("solve")
def solve_cmd(goal: int = GoalOption, max_dice: int = MaxDiceOption, sides: int = SidesOption,
              json_out: bool = JsonOption) -> None:
    """Solve exactly: the first player's win probability and the optimal dice at a few states."""
    rules = make_rules(goal, max_dice, sides)
    t0 = time.perf_counter()
    sol = game.solve(rules)
    data = sol.summary()
    data["seconds"] = time.perf_counter() - t0
    g = rules.goal
    data["optimal_dice"] = [
        {"i": i, "j": j, "dice": sol.best_dice(i, j), "win_probability": sol.win_probability(i, j)}
        for i, j in sorted({(min(g - 1, int(a * g)), min(g - 1, int(b * g))) for a, b in _SHOWN})
    ]

    def render(console: Console) -> None:
        console.print(kv_table({
            "rules": f"goal {g}, 1 to {rules.max_dice} dice, {rules.sides} sides",
            "P(first player wins)": f"{data['win_probability']:.10f}",
            "max Bellman residual": f"{data['max_residual']:.2e}",
            "seconds": f"{data['seconds']:.3f}",
            **{f"dice at ({r['i']}, {r['j']})": r["dice"] for r in data["optimal_dice"]},
        }, title="Optimal Hog"))

    emit(data, json_out, render)


@app.command("query")
def query_cmd(i: int = typer.Argument(..., help="Mover's score."),
              j: int = typer.Argument(..., help="Opponent's score."),
              goal: int = GoalOption, max_dice: int = MaxDiceOption, sides: int = SidesOption,
              json_out: bool = JsonOption) -> None:
    """Win probability and optimal number of dice at state (I, J)."""
    rules = make_rules(goal, max_dice, sides)
    rules.check_state(i, j)
    sol = game.solve(rules)
    emit({"state": [i, j], "win_probability": sol.win_probability(i, j),
          "dice": sol.best_dice(i, j)}, json_out, title=f"Hog state ({i}, {j})")


@app.command("eval")
def eval_cmd(a: str = typer.Argument(..., help=_STRATEGY_HELP),
             b: str = typer.Argument(..., help=_STRATEGY_HELP),
             goal: int = GoalOption, max_dice: int = MaxDiceOption, sides: int = SidesOption,
             json_out: bool = JsonOption) -> None:
    """Exact win probability of A against B, A moving first and B moving first."""
    rules = make_rules(goal, max_dice, sides)
    e = game.evaluate(game.parse_strategy(a), game.parse_strategy(b), rules)
    emit(e.to_dict(), json_out, title="Hog: exact evaluation")


@app.command("best-response")
def best_response_cmd(b: str = typer.Argument(..., help=_STRATEGY_HELP),
                      goal: int = GoalOption, max_dice: int = MaxDiceOption,
                      sides: int = SidesOption, json_out: bool = JsonOption) -> None:
    """The exact best response to B: its win probability moving first and second."""
    rules = make_rules(goal, max_dice, sides)
    br = game.best_response(game.parse_strategy(b), rules)
    emit({**br.to_dict(), "start_dice": br.strategy.dice(0, 0, rules)}, json_out, title="Hog: best response")


@app.command("simulate")
def simulate_cmd(a: str = typer.Argument(..., help=_STRATEGY_HELP),
                 b: str = typer.Argument(..., help=_STRATEGY_HELP),
                 games: int = typer.Option(10_000, "--games", help="Games to play."),
                 seed: int = typer.Option(0, "--seed", help="Seed (same seed, same result)."),
                 goal: int = GoalOption, max_dice: int = MaxDiceOption, sides: int = SidesOption,
                 json_out: bool = JsonOption) -> None:
    """Monte Carlo games of A against B (first move alternating) with a 95% Wilson interval."""
    rules = make_rules(goal, max_dice, sides)
    check_seed(seed)
    res = game.simulate(game.parse_strategy(a), game.parse_strategy(b), rules, games=games,
                        seed=seed)
    emit(res.to_dict(), json_out, title="Hog: simulation")
