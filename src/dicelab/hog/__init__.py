"""Hog: each turn, roll 1 to 10 dice at once; any 1 scores nothing, otherwise the sum counts;
first to 100 wins. Solved exactly.

>>> from dicelab.hog import HogRules, solve
>>> sol = solve(HogRules(goal=100))
>>> round(sol.win_probability_first, 10), sol.best_dice(0, 0)
(0.5306649245, 6)

The public verbs: :func:`solve` (optimal play), :func:`evaluate` (exact, fixed strategies),
:func:`best_response`, :func:`simulate` (Monte Carlo with Wilson intervals),
:func:`parse_strategy` (``always:N``, ``optimal``, ``best-response:SPEC``) and :func:`new_game`
(the state interface of :mod:`dicelab.core.game`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicelab.core.lazy import lazy_api
from dicelab.core.registry import GameEntry, Param

if TYPE_CHECKING:
    from dicelab.hog.api import best_response, evaluate, simulate
    from dicelab.hog.rules import HogRules, turn_distribution
    from dicelab.hog.solver import HogSolution, solve
    from dicelab.hog.specs import as_strategy, parse_strategy
    from dicelab.hog.state import HogState, new_game, state_from_json

#: public name -> (module, attribute); loaded on first use
_PUBLIC: dict[str, tuple[str, str]] = {
    "PUZZLES": ("dicelab.hog.puzzles", "SOURCE"),
    "cli_app": ("dicelab.hog.cli", "app"),
    "PLAY": ("dicelab.hog.play", "PLAY"),
    "HogRules": ("dicelab.hog.rules", "HogRules"),
    "HogSolution": ("dicelab.hog.solver", "HogSolution"),
    "HogState": ("dicelab.hog.state", "HogState"),
    "as_strategy": ("dicelab.hog.specs", "as_strategy"),
    "best_response": ("dicelab.hog.api", "best_response"),
    "evaluate": ("dicelab.hog.api", "evaluate"),
    "new_game": ("dicelab.hog.state", "new_game"),
    "parse_strategy": ("dicelab.hog.specs", "parse_strategy"),
    "simulate": ("dicelab.hog.api", "simulate"),
    "solve": ("dicelab.hog.solver", "solve"),
    "state_from_json": ("dicelab.hog.state", "state_from_json"),
    "turn_distribution": ("dicelab.hog.rules", "turn_distribution"),
}

#: this game in the registry (:mod:`dicelab.core.registry`): entry point ``hog = "dicelab.hog:GAME"``
GAME = GameEntry(
    name="hog", title="Hog", module=__name__, rules_name="HogRules", cli_name="cli_app",
    play_name="PLAY",
    about="Choose how many dice to roll at once; any 1 scores nothing, otherwise the sum counts.",
    params=(
        Param("goal", 100, "points needed to win", lo=10, hi=100),
        Param("max_dice", 10, "most dice a turn may roll", lo=1, hi=10),
        Param("sides", 6, "faces of each die", lo=2, hi=6),
    ),
    popularity=20,
)
__getattr__, __dir__, __all__ = lazy_api(__name__, _PUBLIC, "GAME")
