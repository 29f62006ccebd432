"""Obviously-correct references for the Pig solver, used by the tests and the benchmarks.

Three float references, all plain numpy, all the textbook Bellman update ``P = max(roll, hold)``:

* :func:`value_iteration_sliced`: synchronous (Jacobi) value iteration over the whole (i, j, k)
  table, written the way a numpy user would: the turn-total axis is padded with wins so every
  roll outcome is a slice, the hold values are a strided view, every sweep works in preallocated
  buffers. This is the fair baseline for the benchmark.
* :func:`layered_value_iteration`: Neller & Presser's method in plain numpy: score layers of
  decreasing banked-score sum, each layer (a closed system once the higher layers are known)
  iterated to convergence with the whole layer as one array. Also a fair baseline.
* :func:`value_iteration`: the same sweeps as :func:`value_iteration_sliced`, written with
  million-element fancy-index gathers and ``np.where`` copies. Simple to check, *slow* (about 7x
  the sliced version); kept for the tests and :func:`solve_exact`, not as a benchmark baseline.

:func:`solve_exact` gives the optimal win probabilities as exact fractions, for small goals
(<= 6). It shares nothing with the fast solver's layer-and-pair method:

1. a policy (roll or hold at every state) is read off a float :func:`value_iteration`;
2. the policy is evaluated exactly by Gaussian elimination over *all* states at once, in rational
   arithmetic (``fractions.Fraction``), from the linear equations
   ``V(s) = sum over outcomes of prob * value of the next position``;
3. the policy is improved greedily against those exact values and re-evaluated, until no state
   gains by switching. At that point ``V = max(roll, hold)`` holds *exactly* at every state: the
   Bellman equations are satisfied in rational arithmetic, which certifies the values.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigRules

MAX_EXACT_GOAL = 6

State = tuple[int, int, int]


def value_iteration(rules: PigRules, tol: float = 1e-13, max_sweeps: int = 100_000) -> tuple[np.ndarray, int]:
    """Textbook synchronous value iteration over the whole table, with fancy-index gathers (slow).

    Same sweeps and result as :func:`value_iteration_sliced`, about 7x slower: kept because it is
    the simplest to read, not as a speed baseline.

    Returns ``(P, sweeps)`` with ``P[i, j, k]`` as in :mod:`dicelab.pig.solver` (1.0 where
    ``i + k >= goal``).
    """
    g = rules.goal
    o = rules.outcomes
    i, j, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    valid = i + k < g
    P = np.where(valid, 0.0, 1.0)
    hold_idx = (j, np.minimum(i + k, g - 1))
    add = []
    for d, q in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
        t = k + d
        add.append((q, i + t >= g, np.minimum(t, g - 1)))
    for sweep in range(1, max_sweeps + 1):
        P0 = P[:, :, 0]
        roll = o.bust * (1.0 - P0.T[:, :, None]) + o.reset * (1.0 - P0[:, 0][None, :, None])
        for q, win, t in add:
            roll = roll + np.where(win, q, q * P[i, j, t])
        hold = 1.0 - P0[hold_idx]
        new = np.where(valid, np.maximum(roll, hold), 1.0)
        delta = float(np.max(np.abs(new - P)))
        P = new
        if delta < tol:
            return P, sweep
    return P, max_sweeps


def _check_tol(tol: float, max_sweeps: int) -> None:
    if not (tol > 0 and max_sweeps >= 1):
        raise DicelabError(f"tolerance must be > 0 and sweeps >= 1, got {tol} and {max_sweeps}")


def value_iteration_sliced(
    rules: PigRules, tol: float = 1e-13, max_sweeps: int = 100_000
) -> tuple[np.ndarray, int]:
    """Textbook synchronous value iteration in numpy, with slices (the fair baseline).

    ``P[i, j, t]`` lives in a table whose turn-total axis is padded with wins (1.0 wherever
    ``i + t >= goal``), so the roll value of every state is ``bust * (1 - P[j, i, 0]) + reset *
    (1 - P[j, 0, 0]) + sum_d q_d * P[:, :, d:d + goal]``, one slice per outcome; the hold value
    ``1 - P[j, i + k, 0]`` is a sliding-window view of the k = 0 plane. Each sweep is a dozen
    whole-array operations into preallocated buffers. Stops when the largest change is below
    ``tol``. Returns ``(P, sweeps)`` with ``P`` as in :mod:`dicelab.pig.solver`.
    """
    _check_tol(tol, max_sweeps)
    g = rules.goal
    o = rules.outcomes
    adds = list(zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True))
    width = g + max((d for d, _ in adds), default=0)
    win = (np.arange(g)[:, None, None] + np.arange(width)[None, None, :]) >= g
    P = np.broadcast_to(win, (g, g, width)).astype(np.float64)  # 1.0 on wins, 0.0 on states
    inner = P[:, :, :g]
    not_state = np.broadcast_to(win[:, :, :g], (g, g, g))
    plane = np.ones((g, 2 * g))  # plane[j, t] = P[j, t, 0], padded with wins
    # hold[i, j, k] = 1 - plane[j, i + k]: a strided view, no copy
    window = sliding_window_view(plane, g, axis=1)[:, :g, :].transpose(1, 0, 2)
    base = np.empty((g, g))
    roll = np.empty((g, g, g))
    hold = np.empty((g, g, g))
    tmp = np.empty((g, g, g))
    for sweep in range(1, max_sweeps + 1):
        plane[:, :g] = P[:, :, 0]
        P0 = plane[:, :g]
        np.subtract(1.0, P0.T, out=base)  # base[i, j] = 1 - P[j, i, 0]
        base *= o.bust
        if o.reset:
            base += o.reset * (1.0 - P0[:, 0])[None, :]
        roll[...] = base[:, :, None]
        for d, q in adds:
            np.multiply(P[:, :, d:d + g], q, out=tmp)
            roll += tmp
        np.subtract(1.0, window, out=hold)
        np.maximum(roll, hold, out=roll)
        np.copyto(roll, 1.0, where=not_state)
        np.subtract(roll, inner, out=tmp)
        np.abs(tmp, out=tmp)
        delta = float(tmp.max())
        inner[...] = roll
        if delta < tol:
            break
    return np.ascontiguousarray(inner), sweep


def layered_value_iteration(
    rules: PigRules, tol: float = 1e-13, max_sweeps: int = 100_000
) -> tuple[np.ndarray, int]:
    """Neller & Presser's layered value iteration, in plain numpy (the second fair baseline).

    States with banked-score sum ``s = i + j`` depend only on themselves and on layers with a
    larger sum (holding banks points; a bust swaps the scores). So the layers are solved from
    ``s = 2 goal - 2`` down to 0, each by synchronous value iteration over the whole layer at
    once (an ``(n pairs, goal + 6)`` array, roll outcomes as slices) until its largest change is
    below ``tol``. Needs rules without the two-dice reset (which links every layer to layer 0).
    Returns ``(P, sweeps)``: the table and the total number of layer sweeps.
    """
    _check_tol(tol, max_sweeps)
    o = rules.outcomes
    if o.reset:
        raise DicelabError("the layered method needs rules without the two-dice reset")
    g = rules.goal
    adds = list(zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True))
    width = g + max((d for d, _ in adds), default=0)
    win = (np.arange(g)[:, None, None] + np.arange(width)[None, None, :]) >= g
    P = np.broadcast_to(win, (g, g, width)).astype(np.float64)
    plane = np.ones((g, 2 * g))  # plane[j, t] = P[j, t, 0], padded with wins
    k = np.arange(g)
    total = 0
    for s in range(2 * g - 2, -1, -1):
        ii = np.arange(max(0, s - g + 1), min(s, g - 1) + 1)
        jj = s - ii  # the pair at row r has its mirror at row n - 1 - r
        L = P[ii, jj, :]  # (n, width), wins already in place
        hold = 1.0 - plane[jj[:, None], ii[:, None] + k[None, :]]  # higher layers (k > 0)
        states = (ii[:, None] + k[None, :]) < g
        for _ in range(max_sweeps):
            total += 1
            y = 1.0 - L[::-1, 0]  # 1 - P[j, i, 0]: bust hands the mirror state to the opponent
            hold[:, 0] = y
            roll = o.bust * y[:, None]
            for d, q in adds:
                roll = roll + q * L[:, d:d + g]
            new = np.where(states, np.maximum(roll, hold), 1.0)
            delta = float(np.max(np.abs(new - L[:, :g])))
            L[:, :g] = new
            if delta < tol:
                break
        P[ii, jj, :] = L
        plane[ii, jj] = L[:, 0]
    return np.ascontiguousarray(P[:, :, :g]), total


def _transitions(rules: PigRules, s: State, action: str) -> list[tuple[Fraction, State | None, bool]]:
    """Successors of state s under an action: (probability, next state or None, flip).

    ``flip`` means the next state belongs to the opponent (value 1 - V); ``None`` is a win.
    """
    i, j, k = s
    g = rules.goal
    o = rules.outcomes
    if action == "hold":
        if i + k >= g:
            return [(Fraction(1), None, False)]
        return [(Fraction(1), (j, i + k, 0), True)]
    out: list[tuple[Fraction, State | None, bool]] = []
    for d, q in o.exact_add:
        out.append((q, None, False) if i + k + d >= g else (q, (i, j, k + d), False))
    if o.exact_bust:
        out.append((o.exact_bust, (j, i, 0), True))
    if o.exact_reset:
        out.append((o.exact_reset, (j, 0, 0), True))
    return out


def _evaluate_exact(rules: PigRules, policy: dict[State, str]) -> dict[State, Fraction]:
    """Solve V = T_policy V exactly by sparse Gaussian elimination over all states."""
    states = list(policy)
    index = {s: n for n, s in enumerate(states)}
    rows: list[dict[int, Fraction]] = []
    rhs: list[Fraction] = []
    for s in states:
        row: dict[int, Fraction] = {index[s]: Fraction(1)}
        b = Fraction(0)
        for q, nxt, flip in _transitions(rules, s, policy[s]):
            if nxt is None:
                b += q
            elif flip:  # V(s) = ... + q * (1 - V(nxt))
                b += q
                c = index[nxt]
                row[c] = row.get(c, Fraction(0)) + q
            else:
                c = index[nxt]
                row[c] = row.get(c, Fraction(0)) - q
        rows.append({c: v for c, v in row.items() if v != 0})
        rhs.append(b)
    n = len(states)
    for col in range(n):
        piv = next((r for r in range(col, n) if rows[r].get(col, 0) != 0), None)
        if piv is None:
            raise DicelabError("the policy never ends the game from some state (stalemate)")
        rows[col], rows[piv] = rows[piv], rows[col]
        rhs[col], rhs[piv] = rhs[piv], rhs[col]
        prow, pval = rows[col], rows[col][col]
        for r in range(n):
            if r != col and rows[r].get(col, 0) != 0:
                f = rows[r][col] / pval
                row = rows[r]
                for c, v in prow.items():
                    nv = row.get(c, Fraction(0)) - f * v
                    if nv == 0:
                        row.pop(c, None)
                    else:
                        row[c] = nv
                rhs[r] -= f * rhs[col]
    return {s: rhs[n_] / rows[n_][n_] for n_, s in enumerate(states)}


def _action_value(rules: PigRules, V: dict[State, Fraction], s: State, action: str) -> Fraction:
    total = Fraction(0)
    for q, nxt, flip in _transitions(rules, s, action):
        if nxt is None:
            total += q
        else:
            total += q * (1 - V[nxt]) if flip else q * V[nxt]
    return total


def solve_exact(rules: PigRules, max_iterations: int = 50) -> dict[State, Fraction]:
    """Exact optimal win probabilities ``{(i, j, k): Fraction}`` for goals up to 6."""
    if rules.goal > MAX_EXACT_GOAL:
        raise DicelabError(f"the exact reference solves goals up to {MAX_EXACT_GOAL}, got {rules.goal}")
    P, _ = value_iteration(rules, tol=1e-14)
    g = rules.goal
    policy: dict[State, str] = {}
    for s in rules.states():
        i, j, k = s
        roll = float(_action_value(rules, {t: Fraction(float(P[t])) for t in _needed(rules, s)}, s, "roll"))
        hold = float(_action_value(rules, {t: Fraction(float(P[t])) for t in _needed(rules, s)}, s, "hold"))
        policy[s] = "roll" if roll >= hold else "hold"
    assert len(policy) == rules.n_states and all(i + k < g for i, _, k in policy)
    for _ in range(max_iterations):
        V = _evaluate_exact(rules, policy)
        changed = False
        for s in policy:
            best = max(("roll", "hold"), key=lambda a: _action_value(rules, V, s, a))
            if _action_value(rules, V, s, best) > _action_value(rules, V, s, policy[s]):
                policy[s] = best
                changed = True
        if not changed:
            return V
    raise DicelabError("exact policy iteration did not settle")


def _needed(rules: PigRules, s: State) -> list[State]:
    return [t for a in ("roll", "hold") for _, t, _ in _transitions(rules, s, a) if t is not None]
