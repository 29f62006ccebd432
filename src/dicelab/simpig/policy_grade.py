"""The exact grade of a learned two-player simultaneous-Pig policy (``dicelab.grade("dicelab/SimPig-v0", ...)``).

"Optimal play" is the exact mixed equilibrium (Shapley's method, :func:`dicelab.simpig.solve`). The
policy is asked at every ``[own score, opponent's score]``; its target table is evaluated against the
equilibrium (:func:`dicelab.simpig.evaluate`: its share of the win, ties halved). A target's value at a
state is its expected win share against the equilibrium's mix there with equilibrium play afterwards;
the loss is the best target's value minus the chosen one's (against the equilibrium the best is worth
the state's value). The expected visits of every state come from one sparse solve of the absorbing
chain of score pairs (:mod:`dicelab.core.markov`). The game is symmetric: both seats grade alike.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.grades import loss_summary, win_grade
from dicelab.core.markov import Chain
from dicelab.simpig.rules import SimPigRules, turn_total_table

WIN_A, TIE, WIN_B = 0, 1, 2
OPTIMAL = "equilibrium"


@lru_cache(maxsize=8)
def _laws(g: int) -> tuple[np.ndarray, np.ndarray]:
    """``law[k]``: the turn totals of holding at k (0, k .. k + 5, capped at g) and their chances."""
    p0, pk = turn_total_table(g)
    tot = np.zeros((g + 1, 7), np.int64)
    prob = np.zeros((g + 1, 7))
    for k in range(1, g + 1):
        tot[k] = [0, *(k + r for r in range(6))]
        prob[k] = [p0[k], *pk[k]]
    return tot, prob


def opponent_law(opponent: Any, g: int, j: int, i: int) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's turn total at its score ``j`` against ``i``: (totals, chances)."""
    tot, prob = _laws(g)
    law: dict[int, float] = {}
    for w, kb in opponent.mixture(np.array([j]), [np.array([i])]):
        w, kb = float(np.asarray(w).ravel()[0]), int(np.asarray(kb).ravel()[0])
        if w <= 0:
            continue
        for y, p in zip(tot[kb].tolist(), prob[kb].tolist(), strict=True):
            if p > 0:
                law[y] = law.get(y, 0.0) + w * p
    ys = np.array(sorted(law), np.int64)
    return ys, np.array([law[y] for y in ys.tolist()])


def target_values(v: np.ndarray, g: int, i: int, ys: np.ndarray, py: np.ndarray, j: int,
                  tot: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """Q(k) for k = 1 .. g - i: A's win share holding at k against the opponent's law (ys, py),
    ``v`` the value grid (index g: reached the goal)."""
    w = v[:, np.minimum(j + ys, g)] @ py  # w[a]: A's value with A at a, the opponent's turn drawn
    ks = np.arange(1, g - i + 1)
    a = np.minimum(i + tot[ks], g)
    return (prob[ks] * w[a]).sum(axis=1)


def visits(table: np.ndarray, opponent: Any, rules: SimPigRules) -> tuple[np.ndarray, float]:
    """Expected visits of every score pair when the policy (targets ``table[i, j]``) plays
    ``opponent`` (a strategy object), and the policy's share of the win."""
    g = rules.goal
    tot, prob = _laws(g)
    chain = Chain(g * g, 3)
    for i in range(g):
        for j in range(g):
            ys, py = opponent_law(opponent, g, j, i)
            k = int(table[i, j])
            xs = tot[k][prob[k] > 0]
            px = prob[k][prob[k] > 0]
            a = i + xs[:, None] + 0 * ys[None, :]
            b = j + ys[None, :] + 0 * xs[:, None]
            p = px[:, None] * py[None, :]
            s = i * g + j
            live = (a < g) & (b < g)
            chain.move(s, (a * g + b)[live], p[live])
            chain.end(s, WIN_A, p[(a >= g) & (b < g)].sum())
            chain.end(s, TIE, p[(a >= g) & (b >= g)].sum())
            chain.end(s, WIN_B, p[(a < g) & (b >= g)].sum())
    start = np.zeros(g * g)
    start[0] = 1.0
    v, absorbed = chain.solve(start)
    return v.reshape(g, g), float(absorbed[WIN_A] + 0.5 * absorbed[TIE])


def grade(rules: SimPigRules, decide: Any, progress: bool = False) -> dict[str, Any]:
    """The hook behind ``dicelab.grade`` for simultaneous Pig (:class:`dicelab.core.registry.Grades`)."""
    from dicelab.simpig.api import best_response, evaluate, parse_strategy
    from dicelab.simpig.strategies import table_strategy

    require(rules.players == 2, f"exact grading is for two players, got players={rules.players}")
    g = rules.goal
    i, j = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    obs = np.stack([i.ravel(), j.ravel()], axis=1).astype(np.int64)
    masks = (np.arange(g)[None, :] < (g - obs[:, :1])).astype(np.int8)  # targets 1 .. goal - own
    actions = np.asarray(decide(obs, masks), dtype=np.int64)
    table = (actions + 1).reshape(g, g)
    optimal = parse_strategy(OPTIMAL, rules)
    value = best_response(optimal, rules).value  # against the equilibrium: the game's value everywhere
    tot, prob = _laws(g)
    loss = np.zeros((g, g))
    best = np.zeros((g, g), np.int64)
    for x in range(g):
        for y in range(g):
            ys, py = opponent_law(optimal, g, y, x)
            q = target_values(value, g, x, ys, py, y, tot, prob)
            best[x, y] = int(np.argmax(q)) + 1
            loss[x, y] = max(float(q.max() - q[table[x, y] - 1]), 0.0)
    win = float(evaluate(table_strategy("policy", g, np.ones((1, g, g)), table[None]), optimal, rules)[0, 0])
    va, wa = visits(table, optimal, rules)
    seat = loss_summary(va.ravel(), loss.ravel(), wa)

    def describe(flat: int) -> dict[str, Any]:
        x, y = divmod(flat, g)
        return {"own": x, "opponent": y, "action": int(table[x, y]), "best": int(best[x, y]),
                "text": f"held at {table[x, y]} with {x} points against {y}; the best reply to the equilibrium "
                        f"holds at {best[x, y]}"}

    return win_grade(win, win, 0.5, 0.5, [seat, dict(seat)], describe, decisions=len(obs),
                     note="simultaneous moves: both seats are the same")


__all__ = ["grade", "target_values", "visits"]
