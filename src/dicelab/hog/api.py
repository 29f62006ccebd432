"""Hog's public verbs on strategy specs (or objects): parse them with :mod:`dicelab.hog.specs`,
then run the exact algorithms of :mod:`dicelab.hog.evaluation` or the simulation."""

from __future__ import annotations

from typing import Any

import dicelab.hog.evaluation as evaluation
import dicelab.hog.simulation as simulation
from dicelab.core.results import BestResponse, HeadToHead
from dicelab.hog.rules import HogRules
from dicelab.hog.specs import as_strategy


def evaluate(a: Any, b: Any, rules: HogRules | None = None) -> HeadToHead:
    """Exact win probabilities of ``a`` against ``b``.

    >>> e = evaluate("always:6", "always:5", HogRules(goal=100))
    >>> 0.5 < e.a_first < 1
    True
    """
    return evaluation.evaluate(as_strategy(a), as_strategy(b), rules)


def best_response(strategy: Any, rules: HogRules | None = None) -> BestResponse:
    """The exact best response to ``strategy`` and its value."""
    return evaluation.best_response(as_strategy(strategy), rules)


def simulate(
    a: Any, b: Any, rules: HogRules | None = None, games: int = 100_000, seed: int = 0,
    confidence: float = 0.95,
) -> simulation.SimulationResult:
    """Monte Carlo games of ``a`` against ``b`` (first move alternating), reproducible by seed."""
    rules = rules or HogRules()
    sa, sb = as_strategy(a), as_strategy(b)
    return simulation.simulate_tables(sa.table(rules), sb.table(rules), rules, games, seed,
                                      (sa.name, sb.name), confidence)
