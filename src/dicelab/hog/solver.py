"""Exact Hog: optimal play, and the same layered sweep for fixed strategies.

A state (i, j) is the mover's score i and the opponent's j. Scores never decrease, and a turn
that scores 0 swaps (i, j) for (j, i), so states are solved by layers of i + j, descending; in a
layer each state is coupled only with its mirror. For a state the two unknowns are U = P(A wins |
A to move at (i, j)) and V = P(A wins | B to move at (j, i)); with c_n, p_n (A rolls n dice: the
value from higher layers and the chance of scoring 0) and d_m, q_m for B,

    U = max_n (c_n + p_n V),   V = min_m (d_m + q_m U).

Every line has slope below 1, so the root is exact in closed form: U = max_n min_m r_nm with
r_nm = (c_n + p_n d_m) / (1 - p_n q_m) (the root of a max (min) of decreasing functions is the
max (min) of their roots). A fixed strategy is a one-element choice. Optimal play is both
maximising; the best response fixes B; evaluation fixes both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit, readonly
from dicelab.hog.rules import HogRules

OPTIMISE = 0  # a table entry 0 means "choose the best number of dice here"


@njit(cache=True, nogil=True)
def _sweep(P, tail, a_tab, b_tab, goal, U, Vt, a_pick, b_pick):  # pragma: no cover - numba
    """Fill U[i, j], Vt[j, i] and the dice chosen, layer by layer (see the module docstring)."""
    max_dice = P.shape[0] - 1
    width = P.shape[1]
    c = np.zeros(max_dice + 1)
    d = np.zeros(max_dice + 1)
    for s in range(2 * (goal - 1), -1, -1):
        for i in range(max(0, s - goal + 1), min(s, goal - 1) + 1):
            j = s - i
            a_lo, a_hi = 1, max_dice
            if a_tab[i, j] != 0:
                a_lo = a_hi = a_tab[i, j]
            b_lo, b_hi = 1, max_dice
            if b_tab[j, i] != 0:
                b_lo = b_hi = b_tab[j, i]
            top_a = min(goal - i - 1, width - 1)
            top_b = min(goal - j - 1, width - 1)
            for n in range(a_lo, a_hi + 1):
                acc = tail[n, min(goal - i, width)]
                for o in range(2 * n, top_a + 1):
                    acc += P[n, o] * Vt[j, i + o]
                c[n] = acc
            for m in range(b_lo, b_hi + 1):
                acc = 0.0
                for o in range(2 * m, top_b + 1):
                    acc += P[m, o] * U[i, j + o]
                d[m] = acc
            u = -1.0
            for n in range(a_lo, a_hi + 1):
                low = 2.0
                for m in range(b_lo, b_hi + 1):
                    r = (c[n] + P[n, 0] * d[m]) / (1.0 - P[n, 0] * P[m, 0])
                    low = min(low, r)
                u = max(u, low)
            v = 2.0
            for m in range(b_lo, b_hi + 1):
                r = d[m] + P[m, 0] * u
                if r < v:
                    v = r
                    b_pick[j, i] = m
            best = -1.0
            for n in range(a_lo, a_hi + 1):
                r = c[n] + P[n, 0] * v
                if r > best:
                    best = r
                    a_pick[i, j] = n
            U[i, j] = u
            Vt[j, i] = v


@njit(cache=True, nogil=True)
def _residual(P, tail, W, goal):  # pragma: no cover - numba
    """max |W[i, j] - max_n sum_o P_n(o) (1 - W[j, i + o])| over all states."""
    max_dice = P.shape[0] - 1
    width = P.shape[1]
    worst = 0.0
    for i in range(goal):
        top = min(goal - i - 1, width - 1)
        for j in range(goal):
            best = -1.0
            for n in range(1, max_dice + 1):
                acc = tail[n, min(goal - i, width)] + P[n, 0] * (1.0 - W[j, i])
                for o in range(2 * n, top + 1):
                    acc += P[n, o] * (1.0 - W[j, i + o])
                best = max(best, acc)
            worst = max(worst, abs(best - W[i, j]))
    return worst


def _tails(P: np.ndarray) -> np.ndarray:
    """tail[n, k] = P(score >= k), for k = 0 .. width (the last column is 0)."""
    rev = np.cumsum(P[:, ::-1], axis=1)[:, ::-1]
    return np.ascontiguousarray(np.hstack([rev, np.zeros((P.shape[0], 1))]))


@dataclass(frozen=True)
class Sweep:
    """The raw result of one sweep: U (A moves), Vt (B moves) and the dice each side chose."""

    U: np.ndarray
    Vt: np.ndarray
    a_dice: np.ndarray
    b_dice: np.ndarray


def sweep(a_table: np.ndarray, b_table: np.ndarray, rules: HogRules) -> Sweep:
    """Run the layered sweep; table entries are dice counts, or 0 where that side optimises."""
    g = rules.goal
    P = np.ascontiguousarray(rules.outcome_table())
    a, b = readonly(a_table, np.int64), readonly(b_table, np.int64)  # one compiled sweep for every caller
    assert a.shape == (g, g) and b.shape == (g, g)
    U, Vt = np.zeros((g, g)), np.zeros((g, g))
    a_pick, b_pick = np.zeros((g, g), np.int64), np.zeros((g, g), np.int64)
    _sweep(P, _tails(P), a, b, g, U, Vt, a_pick, b_pick)
    return Sweep(U=U, Vt=Vt, a_dice=a_pick, b_dice=b_pick)


@dataclass(frozen=True)
class HogSolution:
    """Optimal Hog: ``W[i, j]`` (mover at i against j wins), the optimal dice, the residual."""

    rules: HogRules
    W: np.ndarray = field(repr=False)
    dice: np.ndarray = field(repr=False)
    max_residual: float
    seconds: float

    @property
    def win_probability_first(self) -> float:
        """The first player's win probability W[0, 0]."""
        return float(self.W[0, 0])

    def win_probability(self, i: int, j: int) -> float:
        self.rules.check_state(i, j)
        return float(self.W[i, j])

    def best_dice(self, i: int, j: int) -> int:
        self.rules.check_state(i, j)
        return int(self.dice[i, j])

    def summary(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "win_probability": self.win_probability_first,
            "start_dice": int(self.dice[0, 0]),
            "states": self.rules.goal ** 2,
            "max_residual": self.max_residual,
            "solve_seconds": self.seconds,
        }


def solve(rules: HogRules | None = None) -> HogSolution:
    """Exact optimal play.

    >>> sol = solve(HogRules(goal=100))
    >>> sol.max_residual < 1e-12
    True
    """
    rules = rules or HogRules()
    g = rules.goal
    t0 = time.perf_counter()
    free = np.full((g, g), OPTIMISE, dtype=np.int64)
    res = sweep(free, free, rules)
    seconds = time.perf_counter() - t0
    P = np.ascontiguousarray(rules.outcome_table())
    residual = float(_residual(P, _tails(P), res.U, g))
    res.U.setflags(write=False)
    res.a_dice.setflags(write=False)
    return HogSolution(rules=rules, W=res.U, dice=res.a_dice, max_residual=residual, seconds=seconds)


def action_values(sol: HogSolution, i: int, j: int) -> np.ndarray:
    """P(the mover wins) when rolling n = 1..max_dice dice at (i, j), optimal play afterwards:
    sum over the turn's score o of P(o) * (1 if i + o reaches the goal, else 1 - W[j, i + o])."""
    rules = sol.rules
    rules.check_state(i, j)
    g = rules.goal
    P = rules.outcome_table()
    after = np.ones(P.shape[1])  # after[o]: the mover's chance once the turn scored o
    reach = min(g - i, P.shape[1])
    after[:reach] = 1.0 - sol.W[j, i:i + reach]
    values = P[1:] @ after
    require(values.shape == (rules.max_dice,), "internal: one value per number of dice")
    return values
