"""Super Six strategies: named ones, Python callables, and the spec parser.

A strategy answers one question at a non-forced position: throw again? It is called as
``decide(lid, own, others) -> bool`` with ``lid`` the sticks in the pits, ``own`` the mover's sticks
and ``others`` the other players' sticks in turn order (the next player first).

Named strategies (the ``SPEC`` strings of the command line):

``optimal``
    Optimal play: the exact two-player policy (:func:`dicelab.supersix.solver.solve_two`), or the
    max-n policy with more players (:func:`dicelab.supersix.solver.solve_maxn`).
``always``
    Always throw again; the turn ends only by taking a stick (or winning).
``stop-at:N``
    Stop as soon as ``N`` pits are filled (``N`` from 1 to 5), i.e. throw while ``lid < N``.
    Seed 001's two-player optimum is close to ``stop-at:4`` (it differs only at 4/1/1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import check_spec, parse_whole, shorten
from dicelab.supersix.rules import PITS, SuperSixRules

NAMES = ("optimal", "always", "stop-at:N")


@dataclass(frozen=True)
class Strategy:
    """A named strategy: ``decide(lid, own, others) -> bool`` (True: throw again)."""

    name: str
    decide: Callable[[int, int, tuple[int, ...]], bool]
    stop_at: int | None = None  # set for threshold strategies (always = 6)

    def __call__(self, lid: int, own: int, others: tuple[int, ...]) -> bool:
        return bool(self.decide(lid, own, others))


def threshold(n: int) -> Strategy:
    """``stop-at:n``: throw while fewer than ``n`` pits are filled (``n = 6``: ``always``)."""
    require(1 <= n <= PITS + 1, f"stop-at takes a number of pits from 1 to {PITS}, got {n}")
    name = "always" if n == PITS + 1 else f"stop-at:{n}"
    return Strategy(name, lambda lid, own, others: lid < n, n)


@lru_cache(maxsize=16)
def _optimal(rules: SuperSixRules) -> Strategy:
    if rules.players == 2:
        from dicelab.supersix.solver import solve_two_cached

        sol = solve_two_cached(rules)
        throw = sol.throw

        def decide(lid: int, own: int, others: tuple[int, ...]) -> bool:
            return bool(throw[lid, own, others[0]])

        return Strategy("optimal", decide)
    from dicelab.supersix.solver import solve_maxn

    return Strategy("optimal", solve_maxn(rules).decide)


def parse(spec: str | Callable[..., bool] | Strategy, rules: SuperSixRules) -> Strategy:
    """Turn a spec string (``optimal``, ``always``, ``stop-at:N``) or a callable into a Strategy."""
    if isinstance(spec, Strategy):
        return spec
    if callable(spec):
        name = getattr(spec, "__name__", "callable")
        return Strategy(name, spec)
    require(
        isinstance(spec, str),
        f"a strategy is a spec string or a callable, got {shorten(repr(spec))}",
    )
    s = check_spec(spec, f"use one of {', '.join(NAMES)}").lower()
    if s == "optimal":
        return _optimal(rules)
    if s == "always":
        return threshold(PITS + 1)
    if s.startswith("stop-at:"):
        return threshold(parse_whole(s.split(":", 1)[1], "the pits of stop-at:N", 1, PITS))
    raise DicelabError(f"unknown strategy {shorten(spec)}; use one of {', '.join(NAMES)}")


def policy_array(rules: SuperSixRules, strategy: Strategy) -> np.ndarray:
    """A two-player strategy as an int8 array ``[lid, own, opp]`` (1 = throw again)."""
    import dicelab.supersix.solver as solver

    if strategy.name == "optimal" and rules.players == 2:
        return solver.solve_two_cached(rules).throw.astype(np.int8)
    return solver.policy_array(rules, strategy)
