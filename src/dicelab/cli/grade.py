"""``dicelab grade``: the exact grade of a learned policy in one of dicelab's environments.

Generic: the game comes from the environment's name through the registry, and the game's grading
hook does the work (:mod:`dicelab.envs.grading`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from dicelab.core.cli import JsonOption, emit
from dicelab.core.errors import require

MAX_RULES = 8


def _rule(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    require(bool(sep) and key.isidentifier() and value != "",
            f"a rule is KEY=VALUE (e.g. goal=10 or variant=piglet), got {text[:60]!r}")
    if value.lstrip("-").isdigit() and len(value) <= 9:
        return key, int(value)
    return key, value


def grade(
    env_id: str = typer.Argument(..., help="The environment, e.g. dicelab/Pig-v0 (or a game name: pig)."),
    policy: Path = typer.Option(..., "--policy", help="The policy: a Stable-Baselines3 .zip, or a table .npz / .csv."),
    rule: list[str] = typer.Option([], "--rule", help="A rule of the environment, KEY=VALUE (repeatable): goal=10."),
    algo: str | None = typer.Option(None, "--algo", help="For a .zip whose algorithm cannot be told: DQN, PPO or A2C."),
    json_out: bool = JsonOption,
) -> None:
    """Exact grade of a policy: win probability against optimal play in both seats and the win chance
    it gives away per decision (Pig, Hog, Super Six, simultaneous Pig), or its exploitability (a
    Liar's Dice duel). No games are played: every decision is enumerated."""
    from dicelab.envs.grading import grade as run

    require(len(rule) <= MAX_RULES, f"give at most {MAX_RULES} --rule options, got {len(rule)}")
    params = dict(_rule(r) for r in rule)
    g = run(env_id, policy, algo=algo, progress=not json_out, **params)

    def render(console: Console) -> None:
        console.print(f"[bold]{g.policy}[/bold] in {g.env_id} ({', '.join(f'{k} {v}' for k, v in g.rules.items())}):")
        for line in g.lines():
            console.print("  " + line)

    emit(g.to_dict(), json_out, render)
