"""The exact grade of a learned Pig policy (``dicelab.grade("dicelab/Pig-v0", policy)``).

The policy's decision table comes from asking it at every observation its seat can face (the
environment's ``[own score, opponent's score, turn total, 1]``), then:

* its win probability against optimal play, moving first and second (:func:`dicelab.pig.evaluate`);
* the win chance it gives away at each decision: the value of the best action minus the value of
  its action, both with optimal play afterwards (the coach's numbers, :meth:`PigSolution.values`);
* how often it meets each decision: the expected number of visits of every state in a game against
  optimal play, computed exactly by score blocks (:func:`visits`). Scores never fall, so the blocks
  ``(x, y)`` of banked scores are met in increasing ``x + y``; inside a block only the two turn
  starts link back to each other (a 1, or a hold at turn total 0, hands the same scores over), a
  2 x 2 system solved in closed form.

The mean loss weights each state by its expected visits (the win chance lost per decision), and
the expected total loss per game equals the optimal value minus the policy's win probability (the
performance-difference identity, a check the tests make).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.grades import loss_summary, win_grade
from dicelab.core.jit import njit
from dicelab.pig.rules import PigRules


@njit(cache=True)
def _turn(table, me, opp, g, adds, probs, bust, m, hold):
    """One turn from ``(me, opp, 0)`` under ``table``: m[k] = P(the turn reaches total k), hold[k]
    = P(it holds at k >= 1); returns (P(win in this turn), P(hand over the same scores))."""
    for k in range(g + 8):
        m[k] = 0.0
        hold[k] = 0.0
    m[0] = 1.0
    win = 0.0
    same = 0.0
    for k in range(g - me):
        w = m[k]
        if w == 0.0:
            continue
        if table[me, opp, k]:
            for c in range(adds.shape[0]):
                t = k + adds[c]
                if me + t >= g:
                    win += w * probs[c]
                else:
                    m[t] += w * probs[c]
            same += w * bust
        elif k == 0:
            same += w
        else:
            hold[k] += w
    return win, same


@njit(cache=True)
def _visits(ta, tb, adds, probs, bust, g, a_first, va):
    """Expected visits ``va[x, y, k]`` of A's decision states when A (table ``ta``) plays B
    (``tb``, indexed from B's side) to ``g``; returns (P(A wins), P(B wins), stalled mass)."""
    start_a = np.zeros((g, g))
    start_b = np.zeros((g, g))  # B to move with A at x, B at y: indexed [x, y]
    if a_first:
        start_a[0, 0] = 1.0
    else:
        start_b[0, 0] = 1.0
    ma = np.zeros(g + 8)
    ha = np.zeros(g + 8)
    mb = np.zeros(g + 8)
    hb = np.zeros(g + 8)
    win_a = 0.0
    win_b = 0.0
    stalled = 0.0
    for s in range(2 * g - 1):
        for x in range(max(0, s - g + 1), min(s, g - 1) + 1):
            y = s - x
            ia = start_a[x, y]
            ib = start_b[x, y]
            if ia == 0.0 and ib == 0.0:
                continue
            wa, qa = _turn(ta, x, y, g, adds, probs, bust, ma, ha)
            wb, qb = _turn(tb, y, x, g, adds, probs, bust, mb, hb)
            den = 1.0 - qa * qb
            if den <= 1e-300:
                stalled += ia + ib
                continue
            a = (ia + ib * qb) / den
            b = ib + a * qa
            for k in range(g - x):
                if ma[k] != 0.0:
                    va[x, y, k] += a * ma[k]
                if k > 0 and ha[k] != 0.0:
                    start_b[x + k, y] += a * ha[k]
            for k in range(1, g - y):
                if hb[k] != 0.0:
                    start_a[x, y + k] += b * hb[k]
            win_a += a * wa
            win_b += b * wb
    return win_a, win_b, stalled


def visits(table: np.ndarray, opponent: np.ndarray, rules: PigRules, first: bool) -> tuple[np.ndarray, float, float]:
    """Expected visits of the policy's decision states ``[own, opponent, turn total]`` in one game
    against ``opponent`` (both roll tables, True = roll), and each side's win probability."""
    o = rules.outcomes
    require(o.reset == 0.0, "exact grading needs Pig without the two-dice reset (variant standard or piglet)")
    g = rules.goal
    va = np.zeros((g, g, g))
    wa, wb, stalled = _visits(np.ascontiguousarray(table), np.ascontiguousarray(opponent),
                              o.add_points.astype(np.int64), o.add_probs.astype(np.float64), float(o.bust), g,
                              first, va)
    if stalled > 0:
        raise DicelabError(f"the policy never ends some games against optimal play (stalemate, probability "
                           f"{stalled:.3g}); it must roll at turn total 0 somewhere")
    return va, wa, wb


def action_values(rules: PigRules) -> tuple[np.ndarray, np.ndarray, Any]:
    """(value of rolling, value of holding) at every state, optimal play afterwards (NaN off the
    states), and the optimal solution."""
    from dicelab.pig.solver import solve_cached

    sol = solve_cached(rules)
    g, o, p = rules.goal, rules.outcomes, sol.p
    i, j, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    valid = i + k < g
    roll = o.bust * (1.0 - p[j, i, 0])
    for d, q in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
        t = k + d
        roll = roll + q * np.where(i + t >= g, 1.0, p[i, j, np.minimum(t, g - 1)])
    hold = 1.0 - p[j, np.minimum(i + k, g - 1), 0]
    roll = np.where(valid, roll, np.nan)
    hold = np.where(valid, hold, np.nan)
    return roll, hold, sol


def observations(rules: PigRules) -> tuple[np.ndarray, np.ndarray]:
    """Every decision the mover can face, as ``encode`` gives it (``[own, opponent, turn total, 1]``),
    and the ``(i, j, k)`` of each row."""
    g = rules.goal
    i, j, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    valid = i + k < g
    ijk = np.stack([i[valid], j[valid], k[valid]], axis=1).astype(np.int64)
    obs = np.concatenate([ijk, np.ones((len(ijk), 1), np.int64)], axis=1)
    return obs, ijk


def grade(rules: PigRules, decide: Any, progress: bool = False) -> dict[str, Any]:
    """The hook behind ``dicelab.grade`` for Pig (:class:`dicelab.core.registry.Grades`)."""
    from dicelab.pig.api import evaluate
    from dicelab.pig.strategies import TableStrategy

    require(rules.outcomes.reset == 0.0,
            "exact grading covers Pig without the two-dice reset (variant standard or piglet)")
    obs, ijk = observations(rules)
    actions = np.asarray(decide(obs, np.ones((len(obs), 2), np.int8)), dtype=np.int64)  # 0 holds, 1 rolls
    g = rules.goal
    table = np.zeros((g, g, g), dtype=np.bool_)
    table[ijk[:, 0], ijk[:, 1], ijk[:, 2]] = actions == 1
    roll, hold, sol = action_values(rules)
    chosen = np.where(table, roll, hold)
    loss = np.where(np.isnan(chosen), 0.0, np.fmax(roll, hold) - chosen)
    loss = np.maximum(loss, 0.0)
    e = evaluate(TableStrategy("policy", roll_table=table), "optimal", rules)
    seats = []
    for first in (True, False):
        va, wa, _ = visits(table, sol.roll, rules, first)
        seats.append(loss_summary(va.ravel(), loss.ravel(), wa))
    optimal_first = float(sol.p[0, 0, 0])

    def describe(flat: int) -> dict[str, Any]:
        x, y, k = np.unravel_index(flat, (g, g, g))
        return {"own": int(x), "opponent": int(y), "turn_total": int(k),
                "action": "roll" if table[x, y, k] else "hold", "best": "roll" if sol.roll[x, y, k] else "hold",
                "text": f"{'rolled' if table[x, y, k] else 'held'} at turn total {k} with {x} banked against {y}; "
                        f"optimal play {'rolls' if sol.roll[x, y, k] else 'holds'}"}

    return win_grade(e.a_first, e.a_second, optimal_first, 1.0 - optimal_first, seats, describe,
                     decisions=len(obs), stalemate=e.stalemate_a_first + e.stalemate_b_first)


__all__ = ["action_values", "grade", "observations", "visits"]
