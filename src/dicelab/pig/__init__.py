"""Pig: the classic jeopardy dice game, solved.

Two players take turns rolling a die. Each roll adds to a *turn total*, unless it is a 1, which
wipes the turn total and passes the turn. At any moment the mover may *hold*: bank the turn total
and pass the turn. The first to reach the goal (100) wins. Every decision is "press on or stop".

>>> from dicelab.pig import PigRules, solve
>>> sol = solve(PigRules(goal=100))
>>> round(sol.win_probability(0, 0, 0), 7)      # Neller & Presser: the first player's edge
0.5305927
>>> sol.action(50, 60, 20)
'hold'

The public verbs:

* :func:`solve` — exact optimal play (win probability and action at every state), with the
  turn-limited variant of seed 003; :func:`solve_cached` reuses solved tables on disk.
* :class:`PigRules` — goal, die and variant (``standard``, ``piglet``, ``two-dice``).
* :class:`PigGame` — a live game engine, for play against bots.

The strategy lab (seed 002): any strategy against any other, exactly and by simulation.

>>> from dicelab.pig import evaluate, best_response, simulate, tournament, parse_strategy
>>> e = evaluate("hold:20", "hold:21", PigRules())   # seed 002, Figure 17: 0.5426, 0.5258
>>> round(e.a_first, 4), round(e.b_first, 4)
(0.5426, 0.5258)

* :func:`parse_strategy` — strategies from specs (``optimal``, ``hold:25``, ``keep-pace``,
  ``turtle``, ``roll-to-win``, ``roll-and-wait``, ``best-response:SPEC``, ``file:PATH``); any
  callable ``f(my, opp, turn_total) -> bool`` or decision table works too.
* :func:`evaluate` — exact win and stalemate probabilities, layer by layer.
* :func:`best_response` — the exact counter-strategy to any fixed strategy.
* :func:`simulate` — reproducible Monte Carlo on all cores, with intervals and Parquet records.
* :func:`tournament` — round robins with a win matrix, ranking and non-transitive cycles.

Three to six players (``PigRules(players=n)``, issue 25): exact max-n optimal play, profiles of
strategies (one per seat) evaluated exactly, best responses, simulation and a hold-at-N tournament.

>>> from dicelab.pig import solve_n, evaluate_profile
>>> sol = solve_n(PigRules(goal=30, players=3))
>>> [round(p, 4) for p in sol.start()]                       # seats 0, 1, 2
[0.4274, 0.3252, 0.2474]
>>> [round(p, 4) for p in evaluate_profile(["optimal", "hold:20", "hold:20"],
...                                         PigRules(goal=30, players=3)).wins]
[0.5444, 0.2648, 0.1908]

* :func:`solve_n` — the max-n solution for n players (:class:`NPigSolution`: every seat's chance
  at every state, the decisions, ``query``-style look-ups); two players equal :func:`solve`.
* :func:`evaluate_profile`, :func:`best_response_n`, :func:`simulate_n`, :func:`hold_tournament`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicelab.core.lazy import lazy_api
from dicelab.core.registry import GameEntry, Param

if TYPE_CHECKING:
    from dicelab.pig.api import best_response, evaluate, iterated_best_response
    from dicelab.pig.rules import VARIANTS, PigGame, PigRules
    from dicelab.pig.simulation import simulate
    from dicelab.pig.solver import PigSolution, solve, solve_cached
    from dicelab.pig.specs import as_strategy, expand_specs, parse_strategy
    from dicelab.pig.state import new_game, state_from_json
    from dicelab.pig.tournaments import tournament
    from dicelab.pig.nevaluation import best_response_n, evaluate_profile, hold_tournament
    from dicelab.pig.nsimulation import simulate_n
    from dicelab.pig.nsolver import NPigSolution, solve_n, solve_n_cached

#: public name -> (module, attribute); loaded on first use
_PUBLIC: dict[str, tuple[str, str]] = {
    "PUZZLES": ("dicelab.pig.puzzles", "SOURCE"),
    "PLAY": ("dicelab.pig.play", "PLAY"),
    "REPRODUCTIONS": ("dicelab.pig.reproduce", "REPRODUCTIONS"),
    "parse_bot": ("dicelab.pig.play", "parse_spec"),
    "play_solution": ("dicelab.pig.play", "solution"),
    "work_units": ("dicelab.pig.play", "work_units"),
    "cli_app": ("dicelab.pig.lab_cli", "app"),
    "PigGame": ("dicelab.pig.rules", "PigGame"),
    "PigRules": ("dicelab.pig.rules", "PigRules"),
    "PigSolution": ("dicelab.pig.solver", "PigSolution"),
    "VARIANTS": ("dicelab.pig.rules", "VARIANTS"),
    "best_response": ("dicelab.pig.api", "best_response"),
    "evaluate": ("dicelab.pig.api", "evaluate"),
    "iterated_best_response": ("dicelab.pig.api", "iterated_best_response"),
    "as_strategy": ("dicelab.pig.specs", "as_strategy"),
    "expand_specs": ("dicelab.pig.specs", "expand_specs"),
    "parse_strategy": ("dicelab.pig.specs", "parse_strategy"),
    "simulate": ("dicelab.pig.simulation", "simulate"),
    "solve": ("dicelab.pig.solver", "solve"),
    "solve_cached": ("dicelab.pig.solver", "solve_cached"),
    "tournament": ("dicelab.pig.tournaments", "tournament"),
    "NPigSolution": ("dicelab.pig.nsolver", "NPigSolution"),
    "solve_n": ("dicelab.pig.nsolver", "solve_n"),
    "solve_n_cached": ("dicelab.pig.nsolver", "solve_n_cached"),
    "evaluate_profile": ("dicelab.pig.nevaluation", "evaluate_profile"),
    "best_response_n": ("dicelab.pig.nevaluation", "best_response_n"),
    "hold_tournament": ("dicelab.pig.nevaluation", "hold_tournament"),
    "simulate_n": ("dicelab.pig.nsimulation", "simulate_n"),
    "new_game": ("dicelab.pig.state", "new_game"),
    "state_from_json": ("dicelab.pig.state", "state_from_json"),
}

#: this game in the registry (:mod:`dicelab.core.registry`): entry point ``pig = "dicelab.pig:GAME"``
GAME = GameEntry(
    name="pig", title="Pig", module=__name__, rules_name="PigRules", cli_name="cli_app", play_name="PLAY",
    reproductions_name="REPRODUCTIONS",
    about="Two to four players race to the goal; roll as often as you dare, a 1 loses the turn.",
    players=(2, 4),
    params=(
        Param("variant", "standard", "standard, piglet (a coin) or two-dice",
              choices=("standard", "piglet", "two-dice")),
        Param("goal", 100, "points needed to win", lo=2, hi=100),
        Param("sides", None, "faces of the die (default: the variant's own)", lo=2, hi=12),
        Param("players", 2, "players, you included (four up to goal 40)", lo=2, hi=4),
    ),
    popularity=50,
)
__getattr__, __dir__, __all__ = lazy_api(__name__, _PUBLIC, "GAME")
