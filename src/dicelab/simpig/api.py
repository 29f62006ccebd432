"""Simultaneous Pig's verbs on strategy specs: parse the specs (:mod:`dicelab.simpig.specs`), then
run the algorithms of :mod:`dicelab.simpig.solver`, :mod:`~dicelab.simpig.equilibrium` and
:mod:`~dicelab.simpig.simulation`, which take strategy objects only."""

from __future__ import annotations

import numpy as np

import dicelab.simpig.equilibrium as equilibrium
import dicelab.simpig.simulation as simulation
import dicelab.simpig.solver as solver
from dicelab.simpig.rules import SimPigRules
from dicelab.simpig.specs import as_strategy
from dicelab.simpig.strategies import SimPigStrategy

Spec = SimPigStrategy | str


def best_response(
    opponents: list[Spec],
    goal: int = 100,
    max_memory: float = solver.DEFAULT_MAX_MEMORY,
    max_work: float = solver.DEFAULT_MAX_WORK,
) -> solver.BestResponse:
    """Player A's exact best response to independent opponents: :func:`dicelab.simpig.solver.best_response`.

    >>> round(best_response(["hold:25"]).win_probability, 4)
    0.5231
    """
    n = SimPigRules(goal=goal, players=len(opponents) + 1).players
    strats = [as_strategy(s, goal, n) for s in opponents]
    return solver.best_response(strats, goal, max_memory, max_work)


def evaluate(strategy: Spec, opponent: Spec, goal: int = 100) -> np.ndarray:
    """Exact win-probability table of ``strategy`` against ``opponent``:
    :func:`dicelab.simpig.solver.evaluate`."""
    return solver.evaluate(as_strategy(strategy, goal, 2), as_strategy(opponent, goal, 2), goal)


def evaluate_n(strategies: list[Spec], goal: int) -> float:
    """Exact share of the win of player 0: :func:`dicelab.simpig.solver.evaluate_n`."""
    n = SimPigRules(goal=goal, players=len(strategies)).players
    return solver.evaluate_n([as_strategy(s, goal, n) for s in strategies], goal)


def turns_to_goal(
    strategy: Spec, goal: int, tol: float = 1e-16, max_turns: int = 10**6
) -> np.ndarray:
    """Distribution of the turn a state-independent strategy reaches the goal:
    :func:`dicelab.simpig.solver.turns_to_goal`."""
    return solver.turns_to_goal(as_strategy(strategy, goal, 3), goal, tol, max_turns)


def many_player_win(strategy: Spec, others: Spec, players: int, goal: int = 100) -> float:
    """Exact share of the win against ``players - 1`` others: :func:`dicelab.simpig.solver.many_player_win`."""
    SimPigRules(goal=goal, players=players)
    a, b = as_strategy(strategy, goal, 3), as_strategy(others, goal, 3)
    return solver.many_player_win(a, b, players, goal)


def selfplay(goal: int = 100, start: Spec | None = None, max_sweeps: int = 400) -> solver.SelfPlay:
    """Symmetric self-play value iteration from ``start``: :func:`dicelab.simpig.solver.selfplay`."""
    first = None if start is None else as_strategy(start, SimPigRules(goal=goal).goal, 2)
    return solver.selfplay(goal, first, max_sweeps)


def exploitability(strategy: Spec, goal: int = 100) -> float:
    """What a best response gains over 1/2: :func:`dicelab.simpig.equilibrium.exploitability`."""
    return equilibrium.exploitability(as_strategy(strategy, goal, 2), goal)


def simulate(
    strategies: list[Spec], games: int = 10_000, seed: int = 0, goal: int = 100
) -> np.ndarray:
    """Monte Carlo shares of the win: :func:`dicelab.simpig.simulation.simulate`."""
    n = SimPigRules(goal=goal, players=len(strategies)).players
    strats = [as_strategy(s, goal, n) for s in strategies]
    return simulation.simulate(strats, games, seed, goal)
