"""The exact grade of a learned Hog policy (``dicelab.grade("dicelab/Hog-v0", policy)``).

The policy's table (dice to roll at every ``[own score, opponent's score, 1]``) is evaluated against
optimal play (:func:`dicelab.hog.evaluate`); each decision's loss is the best number of dice's value
minus the chosen one's (:func:`dicelab.hog.solver.action_values`); the expected visits of every decision
in a game against optimal play come from one sparse solve of the absorbing chain of positions
(:mod:`dicelab.core.markov`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.grades import loss_summary, win_grade
from dicelab.core.markov import Chain
from dicelab.hog.rules import HogRules

WIN_A, WIN_B = 0, 1


def visits(table: np.ndarray, opponent: np.ndarray, rules: HogRules, first: bool) -> tuple[np.ndarray, float, float]:
    """Expected visits of A's decisions ``[own, opponent]`` (A plays ``table``, B ``opponent``, both
    the number of dice at ``[own, other]``), and each side's win probability."""
    g = rules.goal
    P = rules.outcome_table()  # P[n, o]: n dice score o
    x, y = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    x, y = x.ravel(), y.ravel()
    a_idx = x * g + y  # A to move at (x, y)
    b_idx = g * g + x * g + y  # B to move with A at x, B at y
    chain = Chain(2 * g * g, 2)
    na = table[x, y]
    nb = opponent[y, x]
    for o in range(P.shape[1]):
        pa, pb = P[na, o], P[nb, o]
        if o == 0:
            chain.move(a_idx, b_idx, pa)
            chain.move(b_idx, a_idx, pb)
            continue
        win = x + o >= g
        chain.end(a_idx[win], WIN_A, pa[win])
        chain.move(a_idx[~win], g * g + (x[~win] + o) * g + y[~win], pa[~win])
        win = y + o >= g
        chain.end(b_idx[win], WIN_B, pb[win])
        chain.move(b_idx[~win], x[~win] * g + y[~win] + o, pb[~win])
    start = np.zeros(2 * g * g)
    start[0 if first else g * g] = 1.0
    v, absorbed = chain.solve(start)
    return v[: g * g].reshape(g, g), float(absorbed[WIN_A]), float(absorbed[WIN_B])


def observations(rules: HogRules) -> tuple[np.ndarray, np.ndarray]:
    """Every decision, as ``encode`` writes it (``[own, opponent, 1]``), and its ``(i, j)``."""
    g = rules.goal
    i, j = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    ij = np.stack([i.ravel(), j.ravel()], axis=1).astype(np.int64)
    return np.concatenate([ij, np.ones((len(ij), 1), np.int64)], axis=1), ij


def grade(rules: HogRules, decide: Any, progress: bool = False) -> dict[str, Any]:
    """The hook behind ``dicelab.grade`` for Hog (:class:`dicelab.core.registry.Grades`)."""
    from dicelab.hog.api import evaluate
    from dicelab.hog.solver import action_values, solve
    from dicelab.hog.strategies import TableStrategy

    g = rules.goal
    obs, ij = observations(rules)
    actions = np.asarray(decide(obs, np.ones((len(obs), rules.max_dice), np.int8)), dtype=np.int64)
    table = np.zeros((g, g), np.int64)
    table[ij[:, 0], ij[:, 1]] = actions + 1  # action a rolls a + 1 dice
    sol = solve(rules)
    values = np.array([action_values(sol, i, j) for i, j in ij.tolist()]).reshape(g, g, rules.max_dice)
    chosen = np.take_along_axis(values, (table - 1)[:, :, None], axis=2)[:, :, 0]
    loss = np.maximum(values.max(axis=2) - chosen, 0.0)
    e = evaluate(TableStrategy("policy", dice_table=table, rules=rules), "optimal", rules)
    seats = []
    for first in (True, False):
        va, wa, _ = visits(table, sol.dice, rules, first)
        seats.append(loss_summary(va.ravel(), loss.ravel(), wa))
    w = sol.win_probability_first

    def describe(flat: int) -> dict[str, Any]:
        i, j = divmod(flat, g)
        n, best = int(table[i, j]), int(sol.dice[i, j])
        return {"own": i, "opponent": j, "action": n, "best": best,
                "text": f"rolled {n} dice with {i} points against {j}; optimal play rolls {best}"}

    return win_grade(e.a_first, e.a_second, w, 1.0 - w, seats, describe, decisions=len(obs))


__all__ = ["grade", "observations", "visits"]
