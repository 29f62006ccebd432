"""The web lab's bots and the coach's oracle: solved tables shared by every request.

A Pig bot is a *strategy* from :mod:`dicelab.strategies.pig`, compiled once per rules into a
decision table ``roll[i, j, k]`` (mover's banked score ``i``, opponent's banked score ``j``, turn
total ``k``), and then a table lookup per decision. The web offers the built-ins

``optimal``
    Neller & Presser's optimal policy, from the exact solution (:mod:`dicelab.solvers.pig`).
``hold:N``
    roll while the turn total is below N.
``keep-pace``
    Neller's "keep pace and end race" rule (constants scaled with the goal).
``turtle``, ``roll-to-win``, ``roll-and-wait``
    seed 002's non-transitive trio.
``best-response:SPEC``
    the exact best response to another of these (needs :mod:`dicelab.solvers.pig_eval`, issue 3;
    listed as coming until it is installed).

``file:PATH`` strategies are refused: a web client must not make the server read its files.

Solutions and tables are built once per rules object and kept in memory in LRU caches with a
memory budget (:class:`dicelab.web.limits.BudgetLRU`); concurrent first requests for one key wait
for a single build.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from dicelab.errors import DicelabError, require
from dicelab.games.pig import PigRules
from dicelab.web.limits import bounded_cache

Policy = Callable[[int, int, int], str]

# a goal-100 solution is about 9 MB (P and the roll table), a decision table 1 MB
_solutions = bounded_cache("pig solutions", 128)
_tables = bounded_cache("pig decision tables", 48)
_SIMPLE = ("optimal", "keep-pace", "turtle", "roll-to-win", "roll-and-wait")
ALLOWED = "optimal, hold:N, keep-pace, turtle, roll-to-win, roll-and-wait, best-response:SPEC"


def module_available(name: str) -> bool:
    """True when ``name`` can be imported (used to list games and tools as ready or coming)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def solution(rules: PigRules) -> Any:
    """The exact :class:`~dicelab.solvers.pig.PigSolution` for ``rules`` (solved once, cached)."""
    from dicelab.solvers.pig import solve_cached

    return _solutions.get_or_build(rules, lambda: solve_cached(rules))


def solved(rules: PigRules) -> bool:
    return rules in _solutions


def best_response_available() -> bool:
    return module_available("dicelab.solvers.pig_eval")


def pig_opponents() -> list[dict[str, Any]]:
    """The opponents the Pig page offers, each with a label and whether it is ready."""
    br = best_response_available()
    return [
        {"spec": "optimal", "label": "Optimal (Neller & Presser)", "ready": True},
        {"spec": "hold:20", "label": "Hold at 20", "ready": True},
        {"spec": "hold:25", "label": "Hold at 25", "ready": True},
        {"spec": "keep-pace", "label": "Keep pace and end race", "ready": True},
        {"spec": "turtle", "label": "Turtle (seed 002)", "ready": True},
        {"spec": "best-response:hold:20", "label": "Best response to hold at 20", "ready": br},
        {"spec": "best-response:keep-pace", "label": "Best response to keep pace", "ready": br},
    ]


def parse_opponent(spec: str, rules: PigRules) -> str:
    """Check a bot spec for ``rules``; return it normalised, or raise a one-line DicelabError."""
    require(isinstance(spec, str) and len(spec) <= 80, f"a strategy is a short string: {ALLOWED}")
    s = spec.strip().lower()
    if s in _SIMPLE:
        return s
    m = re.fullmatch(r"hold:(\d{1,4})", s)
    if m:
        n = int(m.group(1))
        require(1 <= n <= rules.goal, f"hold:N needs 1 <= N <= goal ({rules.goal}), got {n}")
        return f"hold:{n}"
    if s.startswith("best-response:"):
        require(s.count("best-response:") <= 2, f"best-response may be nested twice at most, got {spec!r}")
        require(best_response_available(),
                "best-response bots are coming (they need dicelab.solvers.pig_eval); "
                "choose optimal, hold:N or keep-pace")
        inner = parse_opponent(s[len("best-response:"):], rules)
        return f"best-response:{inner}"
    raise DicelabError(f"unknown strategy {spec!r}; allowed: {ALLOWED}")


def table(spec: str, rules: PigRules) -> np.ndarray:
    """The decision table of the (checked) ``spec`` for ``rules``: bool, True = roll."""

    def build() -> np.ndarray:
        if spec == "optimal":
            return solution(rules).roll
        from dicelab.strategies.pig import compile_table

        return compile_table(spec, rules)

    return _tables.get_or_build((spec, rules), build)


def policy(spec: str, rules: PigRules) -> Policy:
    """The bot ``spec`` as a function ``(i, j, k) -> "roll" | "hold"``."""
    t = table(spec, rules)

    def decide(i: int, j: int, k: int) -> str:
        return "roll" if t[i, j, k] else "hold"

    return decide


def prepare(spec: str, rules: PigRules) -> None:
    """Build everything a game with bot ``spec`` under ``rules`` needs (table and coach solution)."""
    table(spec, rules)
    solution(rules)


def is_ready(spec: str, rules: PigRules) -> bool:
    """True when :func:`prepare` has nothing left to do (no solve will block a request)."""
    return (spec, rules) in _tables and rules in _solutions
