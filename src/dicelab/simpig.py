"""Simultaneous Pig (Zhu & Ma 2023): all players take their turn at once.

Every turn each of ``n`` players secretly picks a hold-at target ``k`` and rolls one die until the
turn total reaches ``k`` or a 1 wipes it out; then all turn totals are banked together, and the
players at or above the goal (100) share the win. Because the choices are simultaneous, the
two-player game is a zero-sum *stochastic game*, not a Markov decision process.

The public verbs::

    from dicelab import simpig

    simpig.turn_total_fractions(25)          # exact distribution of X_25 (Table 2)
    simpig.best_response(["hold:25"])        # Algorithm 0.1: exact, one backward pass (0.5231)
    simpig.best_response(["hold:20", "hold:30"])   # Algorithm 0.3, three players (0.3955)
    simpig.evaluate("hold:25", "hold:30")    # exact win-probability table of a pair
    simpig.solve()                           # the exact mixed equilibrium (Shapley), value 1/2
    simpig.exploitability("svima")           # what a best response gains against a strategy
    simpig.many_player_win("hold:100", "hold:25", players=1000)
    simpig.simulate(["hold:25", "hold:30"], games=10_000, seed=1)

Strategies are text specs (``hold:25``, ``pw:25<40,30<60,goal``, ``mix:0.5*hold:20+0.5*hold:30``,
``table:FILE``, ``equilibrium``, ...); see :mod:`dicelab.strategies.simpig`.

How it works: scores never decrease, so every state's successors are larger (in score sum, or
lexicographically for ``n`` players) except for the all-bust self-loop, whose fixed point has a
closed form. One backward pass therefore solves a best response exactly; the equilibrium solves
a small matrix game per state (a linear program only where no pure saddle point exists).
"""

from __future__ import annotations

import numpy as np

from dicelab.errors import require
from dicelab.games.simpig import (
    SimPigGame,
    SimPigRules,
    sample_turn_totals,
    turn_total_distribution,
    turn_total_fractions,
    turn_total_table,
)
from dicelab.solvers.simpig import (
    BestResponse,
    best_response,
    best_response_vs_goal_holders,
    evaluate,
    evaluate_n,
    local_minima,
    many_player_win,
    selfplay,
    svima,
    sweep_hold,
    turns_to_goal,
)
from dicelab.solvers.simpig_equilibrium import Equilibrium, exploitability, solve_equilibrium
from dicelab.strategies.simpig import SimPigStrategy, parse_strategy

__all__ = [
    "BestResponse",
    "Equilibrium",
    "SimPigGame",
    "SimPigRules",
    "SimPigStrategy",
    "best_response",
    "best_response_vs_goal_holders",
    "evaluate",
    "evaluate_n",
    "exploitability",
    "local_minima",
    "many_player_win",
    "parse_strategy",
    "selfplay",
    "simulate",
    "solve",
    "svima",
    "sweep_hold",
    "turn_total_distribution",
    "turn_total_fractions",
    "turn_total_table",
    "turns_to_goal",
]

solve = solve_equilibrium

BATCH = 4096


def simulate(
    strategies: list[str | SimPigStrategy], games: int = 10_000, seed: int = 0, goal: int = 100
) -> np.ndarray:
    """Monte Carlo: each player's average share of the win over ``games`` games (sums to 1).

    Games run in fixed batches of 4096, each with its own stream from ``SeedSequence(seed).spawn``,
    so the result depends only on ``seed``. Turn totals are drawn from the exact ``X_k``
    distributions (the same law as rolling die by die, see :class:`SimPigGame`).
    """
    n = len(strategies)
    rules = SimPigRules(goal=goal, players=n)
    require(
        isinstance(games, int) and games >= 1,
        f"games must be a positive whole number, got {games!r}",
    )
    strats = [
        s if isinstance(s, SimPigStrategy) else parse_strategy(s, goal, n) for s in strategies
    ]
    nb = -(-games // BATCH)
    streams = np.random.SeedSequence(seed).spawn(nb)
    total = np.zeros(n)
    for b in range(nb):
        size = min(BATCH, games - b * BATCH)
        total += _simulate_batch(strats, rules, size, np.random.default_rng(streams[b]))
    return total / games


def _simulate_batch(
    strats: list[SimPigStrategy], rules: SimPigRules, size: int, rng: np.random.Generator
) -> np.ndarray:
    n, g = rules.players, rules.goal
    scores = np.zeros((size, n), np.int64)
    active = np.ones(size, bool)
    shares = np.zeros(n)
    while active.any():
        idx = np.flatnonzero(active)
        sc = scores[idx]
        new = sc.copy()
        for p, s in enumerate(strats):
            others = [sc[:, q] for q in range(n) if q != p]
            comps = s.mixture(sc[:, p], others)
            if len(comps) == 1:
                k = np.broadcast_to(comps[0][1], (len(idx),))
            else:
                w = np.stack([np.broadcast_to(np.asarray(c[0], float), (len(idx),)) for c in comps])
                ks = np.stack([np.broadcast_to(c[1], (len(idx),)) for c in comps])
                pick = (rng.random(len(idx))[None] > np.cumsum(w, axis=0)).sum(axis=0)
                pick = np.minimum(pick, len(comps) - 1)
                k = ks[pick, np.arange(len(idx))]
            new[:, p] += sample_turn_totals(k, rng)
        scores[idx] = new
        won = new >= g
        done = won.any(axis=1)
        if done.any():
            w = won[done].astype(float)
            shares += (w / w.sum(axis=1, keepdims=True)).sum(axis=0)
            active[idx[done]] = False
    return shares
