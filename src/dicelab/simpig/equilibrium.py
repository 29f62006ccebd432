"""The exact equilibrium of two-player simultaneous Pig (Shapley's method), and exploitability.

Each state's turn is a matrix game whose value is a fixed point in the state's own value, solved
by a safeguarded iteration of linear programs (scipy's HiGHS) in decreasing score-sum order; the
strategies are polished on their supports. The derivation and the results at goal 100 are in
``docs/methods/simpig.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linprog

from dicelab.core.errors import require
from dicelab.core.progress import progress_bar
from dicelab.simpig.rules import SimPigRules, turn_total_table
from dicelab.simpig.solver import best_response, state_matrix
from dicelab.simpig.strategies import SimPigStrategy, check_goal, table_strategy

EQ_KIND = "simpig-equilibrium"


@dataclass
class Equilibrium:
    """The exact equilibrium: ``value[i, j]`` (A's win probability) and the mixed strategy of the
    player holding ``i`` against ``j``: target ``targets[c, i, j]`` with probability
    ``weights[c, i, j]``."""

    goal: int
    value: np.ndarray
    weights: np.ndarray
    targets: np.ndarray
    seconds: float
    linear_programs: int
    mixed_states: int

    @property
    def start_value(self) -> float:
        return float(self.value[0, 0])

    def strategy(self) -> SimPigStrategy:
        return table_strategy("equilibrium", self.goal, self.weights, self.targets)

    def support(self, i: int, j: int) -> dict[int, float]:
        """The mixed strategy at ``(i, j)`` as ``{target: probability}``."""
        out: dict[int, float] = {}
        for c in range(self.weights.shape[0]):
            w = float(self.weights[c, i, j])
            if w > 0:
                out[int(self.targets[c, i, j])] = out.get(int(self.targets[c, i, j]), 0.0) + w
        return out


def solve_matrix_game(
    m: np.ndarray, tol: float = 1e-13
) -> tuple[float, np.ndarray, np.ndarray, bool]:
    """Value and optimal mixed strategies ``(v, x, y, used_lp)`` of the zero-sum game ``m``
    (the row player maximises). Pure saddle points are found without a linear program."""
    rowmin = m.min(axis=1)
    colmax = m.max(axis=0)
    r = int(np.argmax(rowmin))
    c = int(np.argmin(colmax))
    if colmax[c] - rowmin[r] <= tol:
        x = np.zeros(m.shape[0])
        y = np.zeros(m.shape[1])
        x[r] = 1.0
        y[c] = 1.0
        return float(m[r, c]), x, y, False
    # Drop rows/columns strictly dominated by the saddle candidates' bounds (cheap reduction).
    rows = np.flatnonzero(m.max(axis=1) >= rowmin[r] - tol)
    cols = np.flatnonzero(m.min(axis=0) <= colmax[c] + tol)
    sub = m[np.ix_(rows, cols)]
    nr, nc = sub.shape
    cost = np.zeros(nr + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-sub.T, np.ones((nc, 1))])
    a_eq = np.zeros((1, nr + 1))
    a_eq[0, :nr] = 1.0
    res = linprog(
        cost,
        A_ub=a_ub,
        b_ub=np.zeros(nc),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * nr + [(None, None)],
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - HiGHS solves every bounded matrix game
        raise RuntimeError(f"linear program failed: {res.message}")
    x = np.zeros(m.shape[0])
    y = np.zeros(m.shape[1])
    x[rows] = np.clip(res.x[:nr], 0, None)
    y[cols] = np.clip(-res.ineqlin.marginals, 0, None)
    x /= x.sum()
    y /= y.sum()
    x, y = _polish(m, x, y)
    return float(x @ m @ y), x, y, True


def _polish(m: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Re-solve the equaliser equations on the supports (exact up to round-off), if they fit."""
    sx = np.flatnonzero(x > 1e-12)
    sy = np.flatnonzero(y > 1e-12)
    if len(sx) != len(sy):
        return x, y
    n = len(sx)
    sub = m[np.ix_(sx, sy)]
    a = np.zeros((n + 1, n + 1))
    a[:n, :n] = sub.T
    a[:n, n] = -1.0
    a[n, :n] = 1.0
    b = np.zeros(n + 1)
    b[n] = 1.0
    a2 = np.zeros((n + 1, n + 1))
    a2[:n, :n] = sub
    a2[:n, n] = -1.0
    a2[n, :n] = 1.0
    try:
        solx = np.linalg.solve(a, b)
        soly = np.linalg.solve(a2, b)
    except np.linalg.LinAlgError:
        return x, y
    nx, ny = solx[:n], soly[:n]
    if np.any(nx < -1e-12) or np.any(ny < -1e-12):
        return x, y
    x2 = np.zeros_like(x)
    y2 = np.zeros_like(y)
    x2[sx] = np.clip(nx, 0, None)
    y2[sy] = np.clip(ny, 0, None)
    x2 /= x2.sum()
    y2 /= y2.sum()
    # keep only if it is at least as good a pair of guarantees
    old = (x @ m).min() - (m @ y).max()
    new = (x2 @ m).min() - (m @ y2).max()
    return (x2, y2) if new >= old - 1e-15 else (x, y)


def _solve_state(
    r: np.ndarray, s: np.ndarray, guess: float, known: float | None
) -> tuple[float, np.ndarray, np.ndarray, int]:
    """The fixed point ``v = val(r + v s)`` and the optimal pair there: ``(v, x, y, lps)``."""
    lps = 0
    if known is not None:
        val, x, y, used = solve_matrix_game(r + known * s)
        return known, x, y, int(used)
    lo, hi = 0.0, 1.0
    v = min(max(guess, 0.0), 1.0)
    best = None
    for _ in range(200):
        val, x, y, used = solve_matrix_game(r + v * s)
        lps += int(used)
        h = val - v
        if best is None or abs(h) < abs(best[0]):
            best = (h, v, x, y)
        if abs(h) <= 1e-15:
            break
        if h > 0:
            lo = max(lo, v)
        else:
            hi = min(hi, v)
        if hi - lo <= 1e-16:
            break
        w = float(x @ r @ y) / (1.0 - float(x @ s @ y))
        if not (lo < w < hi) or w == v:
            w = 0.5 * (lo + hi)
        v = w
    assert best is not None
    _, v, x, y = best
    return v, x, y, lps


def solve_equilibrium(
    goal: int = 100, progress: bool = True, use_cache: bool = False
) -> Equilibrium:
    """Solve two-player simultaneous Pig exactly (value and optimal mixed strategies everywhere).

    With ``use_cache`` the result goes through the dicelab cache (a damaged entry is solved again).
    """
    g = SimPigRules(goal=goal, players=2).goal
    if not use_cache:
        return _solve_equilibrium(g, progress)
    from dicelab.core.store import cached

    return cached(EQ_KIND, {"goal": g}, lambda: _solve_equilibrium(g, progress), _eq_arrays,
                  lambda a, m: _eq_from_arrays(a, m, g))


def _eq_arrays(eq: Equilibrium) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    arrays = {"value": eq.value, "weights": eq.weights, "targets": eq.targets.astype(np.int16)}
    meta = {"goal": eq.goal, "seconds": eq.seconds, "linear_programs": eq.linear_programs,
            "mixed_states": eq.mixed_states}
    return arrays, meta


def _eq_from_arrays(arrays: dict[str, np.ndarray], meta: dict[str, Any], g: int) -> Equilibrium:
    from dicelab.core.store import expect_array

    require(meta["goal"] == g, f"the table is for goal {meta['goal']}, not {g}")
    c = len(arrays["weights"])
    require(c >= 1, "the table has no strategy components")
    value = expect_array(arrays, "value", (g, g), np.float64)
    weights = expect_array(arrays, "weights", (c, g, g), np.float64)
    targets = expect_array(arrays, "targets", (c, g, g), np.int16)
    return Equilibrium(g, value, weights, targets.astype(np.int64), float(meta["seconds"]),
                       int(meta["linear_programs"]), int(meta["mixed_states"]))


def _solve_equilibrium(g: int, progress: bool) -> Equilibrium:
    p0, pk = turn_total_table(g)
    t0 = time.perf_counter()
    v = np.zeros((g + 1, g + 1))
    v[g, :g] = 1.0
    v[g, g] = 0.5
    rmat = np.empty((g, g))
    smat = np.empty((g, g))
    strat: dict[tuple[int, int], list[tuple[int, float]]] = {}
    lps = 0
    mixed = 0
    n_states = g * (g + 1) // 2
    with progress_bar(
        f"equilibrium, goal {g}", total=n_states, enabled=progress and g >= 40
    ) as bar:
        for s in range(2 * g - 2, -1, -1):
            for i in range(max(0, s - g + 1), min(s, g - 1) + 1):
                j = s - i
                if i > j:
                    continue
                state_matrix(g, p0, pk, v, i, j, rmat, smat)
                ka, kb = g - i, g - j
                r = rmat[:ka, :kb]
                sm = smat[:ka, :kb]
                guess = 0.5 * (v[min(i + 20, g), j] + v[i, min(j + 20, g)])
                val, x, y, n_lp = _solve_state(r, sm, guess, 0.5 if i == j else None)
                lps += n_lp
                v[i, j] = val
                v[j, i] = 1.0 - val
                sx = [(k + 1, float(x[k])) for k in np.flatnonzero(x > 0)]
                sy = [(k + 1, float(y[k])) for k in np.flatnonzero(y > 0)]
                mixed += (len(sx) > 1) + (i != j and len(sy) > 1)
                strat[(i, j)] = sx
                if i != j:
                    strat[(j, i)] = sy
                bar.advance()
    cmax = max(len(c) for c in strat.values())
    weights = np.zeros((cmax, g, g))
    targets = np.ones((cmax, g, g), np.int64)
    for (i, j), comps in strat.items():
        for c, (k, w) in enumerate(comps):
            weights[c, i, j] = w
            targets[c, i, j] = k
    return Equilibrium(g, v[:g, :g].copy(), weights, targets, time.perf_counter() - t0, lps, mixed)


def exploitability(strategy: SimPigStrategy, goal: int = 100) -> float:
    """How much an exact best response gains against ``strategy`` over the game value 1/2."""
    return best_response([check_goal(strategy, goal)], goal).win_probability - 0.5
