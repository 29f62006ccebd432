"""Pig's verbs on strategy specs: parse the specs (:mod:`dicelab.pig.specs`), then run the exact
algorithms of :mod:`dicelab.pig.evaluation` on strategy objects."""

from __future__ import annotations

from typing import Any

import dicelab.pig.evaluation as evaluation
from dicelab.pig.rules import PigRules
from dicelab.pig.specs import as_strategy


def evaluate(a: Any, b: Any, rules: PigRules | None = None) -> evaluation.Evaluation:
    """Exact win and stalemate probabilities of ``a`` against ``b`` (specs, callables, tables or
    strategy objects), layer by layer: :func:`dicelab.pig.evaluation.evaluate`."""
    return evaluation.evaluate(as_strategy(a), as_strategy(b), rules)


def best_response(b: Any, rules: PigRules | None = None) -> evaluation.BestResponse:
    """The exact best response to the fixed strategy ``b``: :func:`dicelab.pig.evaluation.best_response`."""
    return evaluation.best_response(as_strategy(b), rules)


def iterated_best_response(
    start: Any, rules: PigRules | None = None, max_iter: int = 20, on_step: Any = None
) -> evaluation.IteratedBestResponse:
    """``S <- best_response(S)`` from ``start``: :func:`dicelab.pig.evaluation.iterated_best_response`."""
    return evaluation.iterated_best_response(as_strategy(start), rules, max_iter, on_step)


def linear_system(a: Any, b: Any, rules: PigRules | None = None) -> tuple[Any, Any, int, int]:
    """The evaluation as one sparse system: :func:`dicelab.pig.evaluation.linear_system`."""
    return evaluation.linear_system(as_strategy(a), as_strategy(b), rules)
