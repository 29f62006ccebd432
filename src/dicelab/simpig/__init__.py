"""Simultaneous Pig (Zhu & Ma 2023): all players take their turn at once.

Every turn each of ``n`` players secretly picks a hold-at target ``k`` and rolls one die until the
turn total reaches ``k`` or a 1 wipes it out; then all turn totals are banked together, and the
players at or above the goal (100) share the win. Because the choices are simultaneous, the
two-player game is a zero-sum *stochastic game*, not a Markov decision process.

The public verbs, on the paper's numbers (seed 000):

>>> from dicelab import simpig
>>> round(float(simpig.turn_total_fractions(100)[0]), 4)     # X_100: P(0) = 0.9898
0.9898
>>> round(simpig.best_response("hold:25").win_probability, 4)   # Algorithm 0.1
0.5231

and, more slowly::

    simpig.best_response(["hold:20", "hold:30"])   # Algorithm 0.3, three players (0.3955)
    simpig.evaluate("hold:25", "hold:30")    # exact win-probability table of a pair
    simpig.solve()                           # the exact mixed equilibrium (Shapley), value 1/2
    simpig.exploitability("svima")           # what a best response gains against a strategy
    simpig.many_player_win("hold:100", "hold:25", simpig.SimPigRules(players=1000))
    simpig.simulate(["hold:25", "hold:30"], games=10_000, seed=1)

Every verb takes the rules (``SimPigRules(goal=..., players=...)``) as its rules argument.

Strategies are text specs (``hold:25``, ``pw:25<40,30<60,goal``, ``mix:0.5*hold:20+0.5*hold:30``,
``table:FILE``, ``equilibrium``, ...); see :mod:`dicelab.simpig.specs`. The verbs here accept specs
or strategy objects; the algorithms below them (:mod:`~dicelab.simpig.solver`, ...) take objects.

How it works: scores never decrease, so every state's successors are larger (in score sum, or
lexicographically for ``n`` players) except for the all-bust self-loop, whose fixed point has a
closed form. One backward pass therefore solves a best response exactly; the equilibrium solves
a small matrix game per state (a linear program only where no pure saddle point exists).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicelab.core.lazy import lazy_api
from dicelab.core.registry import GameEntry, Param

if TYPE_CHECKING:
    from dicelab.simpig.api import (
        best_response,
        evaluate,
        evaluate_n,
        exploitability,
        many_player_win,
        selfplay,
        simulate,
        turns_to_goal,
    )
    from dicelab.simpig.equilibrium import Equilibrium
    from dicelab.simpig.equilibrium import solve_equilibrium as solve
    from dicelab.simpig.rules import (
        SimPigGame,
        SimPigRules,
        turn_total_distribution,
        turn_total_fractions,
        turn_total_table,
    )
    from dicelab.simpig.solver import (
        BestResponse,
        best_response_vs_goal_holders,
        local_minima,
        svima,
        sweep_hold,
    )
    from dicelab.simpig.specs import parse_strategy
    from dicelab.simpig.state import new_game, state_from_json
    from dicelab.simpig.strategies import SimPigStrategy

#: public name -> (module, attribute); loaded on first use
_PUBLIC: dict[str, tuple[str, str]] = {
    "PUZZLES": ("dicelab.simpig.puzzles", "SOURCE"),
    "PLAY": ("dicelab.simpig.play", "PLAY"),
    "REPRODUCTIONS": ("dicelab.simpig.reproduce", "REPRODUCTIONS"),
    "cli_app": ("dicelab.simpig.cli", "app"),
    "BestResponse": ("dicelab.simpig.solver", "BestResponse"),
    "Equilibrium": ("dicelab.simpig.equilibrium", "Equilibrium"),
    "SimPigGame": ("dicelab.simpig.rules", "SimPigGame"),
    "SimPigRules": ("dicelab.simpig.rules", "SimPigRules"),
    "SimPigStrategy": ("dicelab.simpig.strategies", "SimPigStrategy"),
    "best_response": ("dicelab.simpig.api", "best_response"),
    "best_response_vs_goal_holders": ("dicelab.simpig.solver", "best_response_vs_goal_holders"),
    "evaluate": ("dicelab.simpig.api", "evaluate"),
    "evaluate_n": ("dicelab.simpig.api", "evaluate_n"),
    "exploitability": ("dicelab.simpig.api", "exploitability"),
    "local_minima": ("dicelab.simpig.solver", "local_minima"),
    "many_player_win": ("dicelab.simpig.api", "many_player_win"),
    "parse_strategy": ("dicelab.simpig.api", "parse_strategy"),
    "selfplay": ("dicelab.simpig.api", "selfplay"),
    "simulate": ("dicelab.simpig.api", "simulate"),
    "solve": ("dicelab.simpig.api", "solve"),
    "svima": ("dicelab.simpig.api", "svima"),
    "sweep_hold": ("dicelab.simpig.api", "sweep_hold"),
    "turn_total_distribution": ("dicelab.simpig.rules", "turn_total_distribution"),
    "turn_total_fractions": ("dicelab.simpig.rules", "turn_total_fractions"),
    "turn_total_table": ("dicelab.simpig.rules", "turn_total_table"),
    "turns_to_goal": ("dicelab.simpig.api", "turns_to_goal"),
    "new_game": ("dicelab.simpig.state", "new_game"),
    "state_from_json": ("dicelab.simpig.state", "state_from_json"),
}

#: this game in the registry (:mod:`dicelab.core.registry`): entry point ``simpig = "dicelab.simpig:GAME"``
GAME = GameEntry(
    name="simpig", title="Simultaneous Pig", module=__name__, rules_name="SimPigRules", cli_name="cli_app", play_name="PLAY",
    reproductions_name="REPRODUCTIONS",
    about="Everyone picks a target at once, then rolls until the turn reaches it or a 1 wipes it out; 2 to 4 players race to the goal.",
    players=(2, 4),
    extra={"env_id": "dicelab/SimPig-v0"},
    params=(
        Param("goal", 100, "points needed to win", lo=2, hi=100),
        Param("players", 2, "players, you included", lo=2, hi=4),
    ),
    popularity=10,
)
__getattr__, __dir__, __all__ = lazy_api(__name__, _PUBLIC, "GAME")
