"""Hog strategy specs, parsed into strategy objects: ``always:N``, ``optimal`` and
``best-response:SPEC`` (which needs the exact best response, so this module sits above
:mod:`dicelab.hog.evaluation`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError
from dicelab.core.specs import check_depth, check_spec, parse_whole, shorten
from dicelab.hog.evaluation import best_response
from dicelab.hog.rules import MAX_DICE, HogRules
from dicelab.hog.solver import solve
from dicelab.hog.strategies import Always, Computed, HogStrategy

_HELP = f"use always:N (N from 1 to {MAX_DICE}), optimal or best-response:SPEC"
_BR = "best-response:"


def _optimal_table(rules: HogRules) -> np.ndarray:
    return solve(rules).dice


def parse_strategy(spec: str) -> HogStrategy:
    """Parse one strategy spec into a strategy object.

    >>> parse_strategy("always:5").dice(0, 0, HogRules())
    5
    """
    s = check_spec(spec, _HELP)
    depth = 0
    while s.lower().startswith(_BR):  # a loop, not recursion: nesting depth is checked first
        depth += 1
        check_depth(depth, spec)
        s = s[len(_BR):].strip()
    strategy = _parse_atom(s)
    for _ in range(depth):
        strategy = _best_response_to(strategy)
    return strategy


def _parse_atom(s: str) -> HogStrategy:
    low = s.lower()
    if low in ("optimal", "opt"):
        return Computed(name="optimal", build=_optimal_table)
    if low.startswith("always:"):
        n = parse_whole(s[7:], f"N in {shorten(s)}", 1, MAX_DICE)
        return Always(name=f"always:{n}", n=n)
    raise DicelabError(f"unknown Hog strategy {shorten(s)}; {_HELP}")


def _best_response_to(target: HogStrategy) -> HogStrategy:
    def build(rules: HogRules) -> np.ndarray:
        return best_response(target, rules).strategy.table(rules)

    return Computed(name=f"{_BR}{target.name}", build=build)


def as_strategy(value: Any) -> HogStrategy:
    """A strategy object from a spec string or a strategy object."""
    if isinstance(value, HogStrategy):
        return value
    if isinstance(value, str):
        return parse_strategy(value)
    raise DicelabError(f"a Hog strategy must be a spec string or a strategy, got {type(value).__name__}")
