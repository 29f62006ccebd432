"""The web lab's bots and the coach's oracle: solved tables shared by every request.

A Pig bot is a *strategy* from :mod:`dicelab.pig.strategies`, compiled once per rules into a
decision table ``roll[i, j, k]`` (mover's banked score ``i``, opponent's banked score ``j``, turn
total ``k``), and then a table lookup per decision. The web offers the built-ins

``optimal``
    Neller & Presser's optimal policy, from the exact solution (:mod:`dicelab.pig.solver`).
``hold:N``
    roll while the turn total is below N.
``keep-pace``
    Neller's "keep pace and end race" rule (constants scaled with the goal).
``turtle``, ``roll-to-win``, ``roll-and-wait``
    seed 002's non-transitive trio.
``best-response:SPEC``
    the exact best response to another of these (needs :mod:`dicelab.pig.evaluation`, issue 3;
    listed as coming until it is installed).

``file:PATH`` strategies are refused: a web client must not make the server read its files.

Solutions and tables are built once per rules object and kept in memory in LRU caches with a
memory budget (:class:`dicelab.web.limits.BudgetLRU`); concurrent first requests for one key wait
for a single build. A build estimated over :data:`QUICK_WORK` (a two-dice solve, a best response
on a big die) runs in a worker process (:func:`build_bytes`, sent back as ``.npz`` bytes), so it
never holds the server's GIL while games are moving.
"""

from __future__ import annotations

import importlib.util
import io
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.pig.rules import PigRules
from dicelab.web.limits import bounded_cache

Policy = Callable[[int, int, int], str]

# a goal-100 solution is about 9 MB (P and the roll table), a decision table 1 MB
_solutions = bounded_cache("pig solutions", 128)
_tables = bounded_cache("pig decision tables", 48)
_SIMPLE = ("optimal", "keep-pace", "turtle", "roll-to-win", "roll-and-wait")
ALLOWED = "optimal, hold:N, keep-pace, turtle, roll-to-win, roll-and-wait, best-response:SPEC"


# Work estimates in "state-outcome visits": an exact evaluation of two strategies visits every
# state (about goal^3) with every roll outcome; a best response or a solve costs a few evaluations
# (two-dice d12 to 100 on the project machine: one evaluation 0.17 s, one best response 1.0 s).
BR_EVALS = 7
SOLVE_EVALS = 2
QUICK_WORK = 5e7  # about 50-150 ms: below it a table is built in a thread of the server itself


def work_units(rules: PigRules, evaluations: int, specs: list[str]) -> float:
    """Estimated work of ``evaluations`` exact evaluations plus the tables ``specs`` need."""
    outcomes = rules.sides ** 2 if rules.variant == "two-dice" else rules.sides
    builds = sum(BR_EVALS * s.count("best-response:") + SOLVE_EVALS * s.endswith("optimal") for s in set(specs))
    return float(evaluations + builds) * rules.goal ** 3 * outcomes


def module_available(name: str) -> bool:
    """True when ``name`` can be imported (used to list games and tools as ready or coming)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def solution(rules: PigRules) -> Any:
    """The exact :class:`~dicelab.pig.solver.PigSolution` for ``rules`` (solved once, cached)."""
    from dicelab.pig.solver import solve_cached

    return _solutions.get_or_build(rules, lambda: solve_cached(rules))


def solved(rules: PigRules) -> bool:
    return rules in _solutions


def best_response_available() -> bool:
    return module_available("dicelab.pig.evaluation")


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
                "best-response bots are coming (they need dicelab.pig.evaluation); "
                "choose optimal, hold:N or keep-pace")
        inner = parse_opponent(s[len("best-response:"):], rules)
        return f"best-response:{inner}"
    raise DicelabError(f"unknown strategy {spec!r}; allowed: {ALLOWED}")


def table(spec: str, rules: PigRules) -> np.ndarray:
    """The decision table of the (checked) ``spec`` for ``rules``: bool, True = roll."""

    def build() -> np.ndarray:
        if spec == "optimal":
            return solution(rules).roll
        from dicelab.pig.specs import compile_table

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


def needs_worker(spec: str, rules: PigRules) -> bool:
    """True when building what a game with bot ``spec`` needs is estimated over :data:`QUICK_WORK`
    (the coach's solution included)."""
    todo = [] if (spec, rules) in _tables else [spec]
    if rules not in _solutions:
        todo.append("optimal")
    return work_units(rules, 0, todo) > QUICK_WORK


def build_bytes(spec: str, variant: str, goal: int, sides: int) -> bytes:
    """In a worker process: the decision table of ``spec`` and the exact solution for the rules,
    as ``.npz`` bytes (no pickle) for :func:`install`."""
    rules = PigRules(goal=goal, sides=sides, variant=variant)
    sol_arrays, meta = solution(rules).to_arrays()
    buf = io.BytesIO()
    np.savez(buf, table=table(spec, rules), meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
             **{f"solution_{k}": v for k, v in sol_arrays.items()})
    return buf.getvalue()


def install(spec: str, rules: PigRules, data: bytes) -> None:
    """Put what :func:`build_bytes` sent into this process's caches."""
    from dicelab.pig.solver import PigSolution

    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        meta = json.loads(z["meta"].tobytes().decode())
        sol = PigSolution.from_arrays({k[len("solution_"):]: z[k] for k in z.files if k.startswith("solution_")},
                                      meta, rules)
        t = z["table"]
    _solutions.put(rules, sol)
    _tables.put((spec, rules), sol.roll if spec == "optimal" else t)


def is_ready(spec: str, rules: PigRules) -> bool:
    """True when :func:`prepare` has nothing left to do (no solve will block a request)."""
    return (spec, rules) in _tables and rules in _solutions
