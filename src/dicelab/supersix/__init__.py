"""Super Six in dicelab: rules, exact optimal play, strategy comparison, simulation.

The game (seed 001; Jehn, arXiv 2109.10700): a lid with five pits and a hole marked 6; every player
starts with some sticks (4 by default). A 6 puts one of the thrower's sticks into the hole, 1-5 on
an empty pit puts one into that pit, 1-5 on a filled pit takes that stick and ends the turn. In round
1 everybody throws once; afterwards every turn starts with a forced throw, and after each throw that
does not end the turn the player may throw again or stop. The first player without sticks wins.

>>> from dicelab import supersix as ss
>>> sol = ss.solve(ss.SuperSixRules(sticks=4))
>>> round(sol.start_player_win(), 3)                 # seed 001: 0.602
0.602
>>> round(sol.win_probability(5, 1, 1, forced=1), 7)  # seed 001's first table row
0.4512917
>>> sol.action(5, 1, 1)                              # five pits filled: stop
'stop'
>>> round(ss.evaluate("always", "optimal").mean, 4) < 0.5
True

Verbs:

* :func:`solve` — exact optimal play for two players (layered policy iteration, see
  :mod:`dicelab.supersix.solver`), or max-n value iteration for 3 to 6 players.
* :func:`evaluate` — exact win probabilities of one strategy against another (two players).
* :func:`best_response` — the exact best reply to a fixed strategy and its result (two players).
* :func:`simulate` — Monte Carlo games for any number of players, with confidence intervals from
  :mod:`dicelab.core.stats` (the same helpers as Pig).

Strategies are spec strings (``optimal``, ``always``, ``stop-at:N``) or Python callables
``decide(lid, own, others) -> bool``; see :mod:`dicelab.supersix.strategies`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicelab.core.lazy import lazy_api
from dicelab.core.registry import GameEntry, Param

if TYPE_CHECKING:
    from dicelab.supersix.api import best_response, evaluate, simulate, solve
    from dicelab.supersix.rules import SuperSixRules
    from dicelab.supersix.solver import MaxNSolution, SuperSixSolution
    from dicelab.supersix.state import new_game, state_from_json
    from dicelab.supersix.strategies import Strategy, parse
    from dicelab.supersix.strategies import parse as parse_strategy

#: public name -> (module, attribute); loaded on first use
_PUBLIC: dict[str, tuple[str, str]] = {
    "PUZZLES": ("dicelab.supersix.puzzles", "SOURCE"),
    "PLAY": ("dicelab.supersix.play", "PLAY"),
    "REPRODUCTIONS": ("dicelab.supersix.reproduce", "REPRODUCTIONS"),
    "cli_app": ("dicelab.supersix.cli", "app"),
    "MaxNSolution": ("dicelab.supersix.solver", "MaxNSolution"),
    "Strategy": ("dicelab.supersix.strategies", "Strategy"),
    "SuperSixRules": ("dicelab.supersix.rules", "SuperSixRules"),
    "SuperSixSolution": ("dicelab.supersix.solver", "SuperSixSolution"),
    "best_response": ("dicelab.supersix.api", "best_response"),
    "evaluate": ("dicelab.supersix.api", "evaluate"),
    "parse": ("dicelab.supersix.strategies", "parse"),
    "parse_strategy": ("dicelab.supersix.strategies", "parse"),
    "simulate": ("dicelab.supersix.api", "simulate"),
    "solve": ("dicelab.supersix.api", "solve"),
    "new_game": ("dicelab.supersix.state", "new_game"),
    "state_from_json": ("dicelab.supersix.state", "state_from_json"),
}

#: this game in the registry (:mod:`dicelab.core.registry`): entry point ``supersix = "dicelab.supersix:GAME"``
GAME = GameEntry(
    name="supersix", title="Super Six", module=__name__, rules_name="SuperSixRules", cli_name="cli_app", play_name="PLAY",
    reproductions_name="REPRODUCTIONS",
    about="Put sticks into the lid's pits; the first with no sticks left wins.",
    params=(
        Param("sticks", 4, "sticks each", lo=1, hi=30),
        Param("players", 2, "players", lo=2, hi=2),
    ),
    popularity=30,
)
__getattr__, __dir__, __all__ = lazy_api(__name__, _PUBLIC, "GAME")
