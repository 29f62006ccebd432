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


def grade(env_id: str, policy: object, **kwargs: object) -> object:
    """The exact grade of a learned policy in one of dicelab's environments (``"dicelab/Pig-v0"``, ...):
    win probability against optimal play and win chance lost per decision, or exploitability. See
    :func:`dicelab.envs.grading.grade`."""
    from dicelab.envs.grading import grade as _grade

    return _grade(env_id, policy, **kwargs)  # type: ignore[arg-type]


__all__ = ["DicelabError", "__version__", "grade"]
