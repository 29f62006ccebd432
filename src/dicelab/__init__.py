"""dicelab: solve, evaluate, learn and play jeopardy dice games.

The package is layered so that data flows one way::

    games (rules, engines) -> solvers (exact algorithms) -> strategies -> sim (evaluation,
    simulation, statistics) -> cli / web

Game-level facades (:mod:`dicelab.pig`, :mod:`dicelab.simpig`, :mod:`dicelab.supersix`,
:mod:`dicelab.liars`) re-export the small public verbs for each game: ``solve``, ``evaluate``,
``best_response`` and ``simulate``.
"""

from dicelab.core.errors import DicelabError

__version__ = "0.1.0"

__all__ = ["DicelabError", "__version__"]
