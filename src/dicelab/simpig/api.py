"""Simultaneous Pig's verbs on strategy specs: parse the specs (:mod:`dicelab.simpig.specs`), then
run the algorithms of :mod:`dicelab.simpig.solver`, :mod:`~dicelab.simpig.equilibrium` and
:mod:`~dicelab.simpig.simulation`, which take strategy objects only.

Every verb takes the game's :class:`~dicelab.simpig.rules.SimPigRules` (default: two players to
100), as every game's verbs do; the number of players of a verb that seats several strategies
comes from how many it is given.
"""

from __future__ import annotations

import numpy as np

import dicelab.simpig.equilibrium as equilibrium
import dicelab.simpig.simulation as simulation
import dicelab.simpig.solver as solver
import dicelab.simpig.specs as specs
from dicelab.simpig.rules import SimPigRules
from dicelab.simpig.strategies import SimPigStrategy

Spec = SimPigStrategy | str


def _rules(rules: SimPigRules | None, players: int | None = None) -> SimPigRules:
    """``rules`` (default two players to 100), with ``players`` seats if given."""
    rules = rules or SimPigRules()
    return rules if players is None or players == rules.players else SimPigRules(goal=rules.goal, players=players)


def parse_strategy(spec: str, rules: SimPigRules | None = None) -> SimPigStrategy:
    """Parse a strategy spec (see :mod:`dicelab.simpig.specs`) for ``rules``.

    >>> parse_strategy("hold:25").spec
    'hold:25'
    """
    rules = _rules(rules)
    return specs.parse_strategy(spec, rules.goal, rules.players)


def best_response(
    opponents: Spec | list[Spec],
    rules: SimPigRules | None = None,
    max_memory: float = solver.DEFAULT_MAX_MEMORY,
    max_work: float = solver.DEFAULT_MAX_WORK,
) -> solver.BestResponse:
    """Player A's exact best response to one strategy, or to a list of independent opponents (one
    per other seat): :func:`dicelab.simpig.solver.best_response`.

    >>> round(best_response("hold:25").win_probability, 4)
    0.5231
    """
    others = [opponents] if isinstance(opponents, (str, SimPigStrategy)) else list(opponents)
    r = _rules(rules, len(others) + 1)
    strats = [specs.as_strategy(s, r.goal, r.players) for s in others]
    return solver.best_response(strats, r.goal, max_memory, max_work)


def evaluate(a: Spec, b: Spec, rules: SimPigRules | None = None) -> np.ndarray:
    """Exact win-probability table of ``a`` against ``b`` (two players; ``value[i, j]``: A's
    share of the win with scores i and j): :func:`dicelab.simpig.solver.evaluate`."""
    r = _rules(rules, 2)
    return solver.evaluate(specs.as_strategy(a, r.goal, 2), specs.as_strategy(b, r.goal, 2), r.goal)


def evaluate_n(strategies: list[Spec], rules: SimPigRules | None = None) -> float:
    """Exact share of the win of player 0, one strategy per seat: :func:`dicelab.simpig.solver.evaluate_n`."""
    r = _rules(rules, len(strategies))
    return solver.evaluate_n([specs.as_strategy(s, r.goal, r.players) for s in strategies], r.goal)


def turns_to_goal(
    strategy: Spec, rules: SimPigRules | None = None, tol: float = 1e-16, max_turns: int = 10**6
) -> np.ndarray:
    """Distribution of the turn a state-independent strategy reaches the goal:
    :func:`dicelab.simpig.solver.turns_to_goal`."""
    r = _rules(rules)
    return solver.turns_to_goal(specs.as_strategy(strategy, r.goal, 3), r.goal, tol, max_turns)


def many_player_win(strategy: Spec, others: Spec, rules: SimPigRules) -> float:
    """Exact share of the win of ``strategy`` against ``rules.players - 1`` players of ``others``
    (any number of players, by turns to the goal): :func:`dicelab.simpig.solver.many_player_win`."""
    a, b = specs.as_strategy(strategy, rules.goal, 3), specs.as_strategy(others, rules.goal, 3)
    return solver.many_player_win(a, b, rules.players, rules.goal)


def selfplay(rules: SimPigRules | None = None, start: Spec | None = None, max_sweeps: int = 400) -> solver.SelfPlay:
    """Symmetric self-play value iteration from ``start``: :func:`dicelab.simpig.solver.selfplay`."""
    r = _rules(rules, 2)
    first = None if start is None else specs.as_strategy(start, r.goal, 2)
    return solver.selfplay(r.goal, first, max_sweeps)


def svima(rules: SimPigRules | None = None) -> solver.Svima:
    """Stackelberg value iteration (the paper's Algorithm 0.2): :func:`dicelab.simpig.solver.svima`."""
    return solver.svima(_rules(rules, 2).goal)


def sweep_hold(ns: list[int], rules: SimPigRules | None = None) -> list[dict[str, float]]:
    """The best response's win probability against ``hold:N`` for each N (Figure 1):
    :func:`dicelab.simpig.solver.sweep_hold`."""
    return solver.sweep_hold(ns, _rules(rules, 2).goal)


def solve(rules: SimPigRules | None = None, progress: bool = True, use_cache: bool = False) -> equilibrium.Equilibrium:
    """The exact mixed equilibrium of the two-player game (Shapley):
    :func:`dicelab.simpig.equilibrium.solve_equilibrium`."""
    return equilibrium.solve_equilibrium(_rules(rules, 2).goal, progress, use_cache)


def exploitability(strategy: Spec, rules: SimPigRules | None = None) -> float:
    """What a best response gains over 1/2: :func:`dicelab.simpig.equilibrium.exploitability`."""
    r = _rules(rules, 2)
    return equilibrium.exploitability(specs.as_strategy(strategy, r.goal, 2), r.goal)


def simulate(
    strategies: list[Spec], rules: SimPigRules | None = None, games: int = 10_000, seed: int = 0
) -> np.ndarray:
    """Monte Carlo shares of the win, one strategy per seat: :func:`dicelab.simpig.simulation.simulate`."""
    r = _rules(rules, len(strategies))
    strats = [specs.as_strategy(s, r.goal, r.players) for s in strategies]
    return simulation.simulate(strats, games, seed, r.goal)
