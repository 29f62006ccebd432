"""Exact optimal play for two-player Pig and its dice variants.

Solves Neller & Presser's equations score layer by score layer (mirror score pairs by Newton's
method on their piecewise-linear fixed point), the two-dice reset by an outer fixed point, and
the turn-limited form of seed 003. The derivation is in ``docs/methods/pig.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from dicelab.core.errors import DicelabError
from dicelab.core.store import cached, expect_array, load_as, save_table
from dicelab.pig.rules import PigRules

KIND = "pig-solution"
FALLBACK_PASSES = 200_000  # plain fixed-point passes per pair when Newton does not settle
FLOOR = 1e-12  # a fixed-point step this small that stops shrinking is rounding noise
MAX_SWEEPS = 500  # outer sweeps of the two-dice reset iteration
MAX_RESIDUAL = 1e-9  # a finished table further than this from the Bellman equations is an error
MAX_WORK = 5e10  # multiply-adds a solve may need (a minute or two on one core)

# ---------------------------------------------------------------------------------------------
# numba kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _turn(P, i, j, y, r_opp, goal, pts, prb, p_bust, p_reset, V, dV):
    """One backward pass over the mover's turn at banked scores (i, j).

    ``y`` is the current value of P(j, i, 0) (what the opponent gets after a bust or a skip);
    ``r_opp`` is P(j, 0, 0) (after a two-dice reset; ignored when i == 0, where it equals y).
    Fills V[k] (the optimal values) and dV[k] = dV[k]/dy for k = goal - 1 - i down to 0, and
    returns nothing. Hold values for k > 0 read the higher layer P[j, i + k, 0].
    """
    top = goal - 1 - i
    m = pts.shape[0]
    reset_val = 1.0 - y if i == 0 else 1.0 - r_opp
    reset_slope = -1.0 if i == 0 else 0.0
    for k in range(top, -1, -1):
        roll = p_bust * (1.0 - y) + p_reset * reset_val
        droll = -p_bust + p_reset * reset_slope
        for q in range(m):
            t = k + pts[q]
            if i + t >= goal:
                roll += prb[q]
            else:
                roll += prb[q] * V[t]
                droll += prb[q] * dV[t]
        if k == 0:
            hold = 1.0 - y
            dhold = -1.0
        else:
            hold = 1.0 - P[j, i + k, 0]
            dhold = 0.0
        # ties: roll at k = 0 (a skip would only stall), hold otherwise
        if roll > hold or (k == 0 and roll == hold):
            V[k] = roll
            dV[k] = droll
        else:
            V[k] = hold
            dV[k] = dhold


@njit(cache=True)
def _solve_pair(P, i, j, y0, R, goal, pts, prb, p_bust, p_reset, Vi, dVi, Vj, dVj):
    """Solve the mirror pair (i, j), (j, i) exactly; write P[i, j, :] and P[j, i, :].

    Returns the number of Newton passes used (negative if the fallback iteration ran).
    """
    y = y0  # warm start: the neighbouring pair's fixed point, or the previous sweep's value
    same = i == j
    passes = 0
    converged = False
    for it in range(60):
        passes += 1
        _turn(P, i, j, y, R[j], goal, pts, prb, p_bust, p_reset, Vi, dVi)
        x, sx = Vi[0], dVi[0]
        if same:
            # x = f(x): linearise f at y and solve x = fx + sx * (x - y)
            den = 1.0 - sx
            y_new = (x - sx * y) / den if den > 1e-14 else x
        else:
            _turn(P, j, i, x, R[i], goal, pts, prb, p_bust, p_reset, Vj, dVj)
            yy, sy = Vj[0], dVj[0]
            # y = g(f(y)) on the current pieces: y' = yy + sy * sx * (y' - y)
            s = sy * sx
            den = 1.0 - s
            y_new = (yy - s * y) / den if den > 1e-14 else yy
        if y_new < 0.0:
            y_new = 0.0
        elif y_new > 1.0:
            y_new = 1.0
        if abs(y_new - y) <= 1e-15:
            # Vi (at y) and Vj (at x = f(y)) already hold the fixed point to 1e-15
            converged = True
            break
        y = y_new
    if not converged:
        # guarded fallback: plain fixed-point iteration, a contraction off stalemate pairs
        # (y -> g(f(y)) has slope in [0, 1), so its steps shrink until rounding noise; a step that
        # no longer shrinks is that noise, and the Bellman check in ``solve`` judges the result)
        passes = -passes
        prev = 2.0
        for it in range(FALLBACK_PASSES):
            _turn(P, i, j, y, R[j], goal, pts, prb, p_bust, p_reset, Vi, dVi)
            if same:
                y_new = Vi[0]
            else:
                _turn(P, j, i, Vi[0], R[i], goal, pts, prb, p_bust, p_reset, Vj, dVj)
                y_new = Vj[0]
            step = abs(y_new - y)
            y = y_new
            if step <= 1e-15 or (step >= prev and step <= FLOOR):
                break
            prev = step
        # final consistent passes at the fixed point
        _turn(P, i, j, y, R[j], goal, pts, prb, p_bust, p_reset, Vi, dVi)
        if not same:
            _turn(P, j, i, Vi[0], R[i], goal, pts, prb, p_bust, p_reset, Vj, dVj)
    for k in range(goal - i):
        P[i, j, k] = Vi[k]
    if not same:
        for k in range(goal - j):
            P[j, i, k] = Vj[k]
    return passes


@njit(cache=True)
def _sweep_layers(P, R, goal, pts, prb, p_bust, p_reset, first):
    """Solve every pair, layers of decreasing banked-score sum first. Returns fallback count.

    ``first`` is False on the repeat sweeps of the two-dice outer iteration, where the previous
    sweep's value of each pair is the better warm start.
    """
    Vi = np.zeros(goal + 1)
    dVi = np.zeros(goal + 1)
    Vj = np.zeros(goal + 1)
    dVj = np.zeros(goal + 1)
    fallbacks = 0
    for s in range(2 * goal - 2, -1, -1):
        lo = s - (goal - 1)
        if lo < 0:
            lo = 0
        for i in range(lo, s // 2 + 1):
            j = s - i
            # warm start from the neighbouring pair of this layer (values vary smoothly)
            y0 = P[j, i, 0] if (first or i == lo) else P[j + 1, i - 1, 0]
            if _solve_pair(P, i, j, y0, R, goal, pts, prb, p_bust, p_reset, Vi, dVi, Vj, dVj) < 0:
                fallbacks += 1
    return fallbacks


@njit(cache=True)
def _bellman(P, goal, pts, prb, p_bust, p_reset, roll_out):
    """Max Bellman residual over all states; fills the optimal-action table ``roll_out``."""
    worst = 0.0
    m = pts.shape[0]
    for i in range(goal):
        for j in range(goal):
            for k in range(goal - i):
                roll = p_bust * (1.0 - P[j, i, 0]) + p_reset * (1.0 - P[j, 0, 0])
                for q in range(m):
                    t = k + pts[q]
                    roll += prb[q] if i + t >= goal else prb[q] * P[i, j, t]
                hold = 1.0 - P[j, i + k, 0]
                best = roll if roll > hold else hold
                roll_out[i, j, k] = roll > hold or (k == 0 and roll == hold)
                d = abs(P[i, j, k] - best)
                if d > worst:
                    worst = d
    return worst


@njit(cache=True)
def _turn_limited(goal, n_turns, pts, prb, p_bust, p_reset, out):
    """E_n for n = n_turns: out[i, j, k] with n turns left (the current one included).

    Only E_{n-1}(., ., 0) is needed from the previous step, so memory stays O(goal^2) plus the
    final full table.
    """
    prev = np.full((goal, goal), 0.5)  # E_0: no turns left, a draw
    cur = np.empty((goal, goal))
    V = np.zeros(goal + 1)
    m = pts.shape[0]
    for n in range(1, n_turns + 1):
        last = n == n_turns
        for i in range(goal):
            for j in range(goal):
                for k in range(goal - 1 - i, -1, -1):
                    roll = p_bust * (1.0 - prev[j, i]) + p_reset * (1.0 - prev[j, 0])
                    for q in range(m):
                        t = k + pts[q]
                        roll += prb[q] if i + t >= goal else prb[q] * V[t]
                    hold = 1.0 - prev[j, i + k] if i + k < goal else 1.0
                    V[k] = roll if roll > hold or (k == 0 and roll == hold) else hold
                    if last:
                        out[i, j, k] = V[k]
                cur[i, j] = V[0]
        for i in range(goal):
            for j in range(goal):
                prev[i, j] = cur[i, j]


# ---------------------------------------------------------------------------------------------
# the public solution object
# ---------------------------------------------------------------------------------------------


@dataclass
class PigSolution:
    """The solved game: win probabilities and optimal actions at every state (i, j, k).

    ``p[i, j, k]`` is the probability that the mover wins from (i, j, k) with optimal play by
    both (entries with ``i + k >= goal`` hold 1.0: those are wins, not states); ``roll[i, j, k]``
    is True where rolling is optimal.
    """

    rules: PigRules
    p: np.ndarray
    roll: np.ndarray
    max_residual: float
    turn_limit: int | None = None
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def goal(self) -> int:
        return self.rules.goal

    def win_probability(self, i: int, j: int, k: int = 0) -> float:
        """P(mover wins) at (i, j, k) under optimal play by both."""
        self.rules.check_state(i, j, k)
        return float(self.p[i, j, k])

    def values(self, i: int, j: int, k: int = 0) -> tuple[float, float]:
        """(P(win | roll now), P(win | hold now)) at (i, j, k), both then playing optimally."""
        self.rules.check_state(i, j, k)
        if self.turn_limit is not None:
            raise DicelabError("per-action values are available for unlimited solutions only")
        o = self.rules.outcomes
        g = self.goal
        p = self.p
        roll = o.bust * (1.0 - p[j, i, 0]) + o.reset * (1.0 - p[j, 0, 0])
        for d, q in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
            roll += q if i + k + d >= g else q * p[i, j, k + d]
        hold = 1.0 - p[j, i + k, 0]
        return float(roll), float(hold)

    def action(self, i: int, j: int, k: int = 0) -> str:
        """``"roll"`` or ``"hold"``: the optimal action at (i, j, k)."""
        self.rules.check_state(i, j, k)
        return "roll" if self.roll[i, j, k] else "hold"

    def hold_threshold(self, i: int, j: int) -> int:
        """The smallest turn total at which optimal play holds at scores (i, j).

        ``goal - i`` when optimal play never holds short of the goal. This is the height of
        Neller & Presser's roll/hold boundary surface.
        """
        self.rules.check_state(i, j, 0)
        row = self.roll[i, j, : self.goal - i]
        holds = np.flatnonzero(~row)
        return int(holds[0]) if holds.size else self.goal - i

    def hold_thresholds(self) -> np.ndarray:
        """``hold_threshold(i, j)`` for every (i, j), as a (goal, goal) integer array."""
        g = self.goal
        k = np.arange(g)
        valid = k[None, None, :] < (g - np.arange(g))[:, None, None]
        holding = valid & ~self.roll
        first = np.where(holding.any(axis=2), holding.argmax(axis=2), g - np.arange(g)[:, None])
        return first.astype(np.int64)

    def summary(self) -> dict[str, Any]:
        """The figures ``dicelab pig solve`` reports."""
        return {
            "rules": self.rules.to_dict(),
            "turn_limit": self.turn_limit,
            "win_probability": float(self.p[0, 0, 0]),
            "states": self.rules.n_states,
            "max_residual": self.max_residual,
            "seconds": self.seconds,
        }

    # -- storage -------------------------------------------------------------------------------

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and metadata stored by :meth:`save` and the cache."""
        meta = {"rules": self.rules.to_dict(), "turn_limit": self.turn_limit,
                "max_residual": self.max_residual, "seconds": self.seconds}
        return {"p": self.p, "roll": self.roll}, meta

    def save(self, path: str | Path) -> Path:
        """Write ``PATH.npz`` and ``PATH.json`` (rules, version, residual, sha256 of the arrays)."""
        return save_table(path, KIND, *self.to_arrays())

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
        rules: PigRules | None = None, turn_limit: int | None = None,
    ) -> PigSolution:
        """Rebuild a stored solution; check its arrays and, if given, that its rules match."""
        stored = PigRules(**meta["rules"])
        if rules is not None and stored != rules:
            raise DicelabError(f"the table was solved for {stored}, not for {rules}")
        if rules is not None and meta.get("turn_limit") != turn_limit:
            raise DicelabError(
                f"the table was solved with turn_limit={meta.get('turn_limit')}, not {turn_limit}"
            )
        g = stored.goal
        p = expect_array(arrays, "p", (g, g, g), np.float64)
        roll = expect_array(arrays, "roll", (g, g, g), np.bool_)
        return cls(stored, p, roll, float(meta["max_residual"]), meta.get("turn_limit"),
                   float(meta.get("seconds", 0.0)), meta)

    @classmethod
    def load(
        cls, path: str | Path, rules: PigRules | None = None, turn_limit: int | None = None
    ) -> PigSolution:
        """Read a saved solution; verify its checksum and, if given, that its rules match."""
        return load_as(path, KIND, lambda a, m: cls.from_arrays(a, m, rules, turn_limit))


# ---------------------------------------------------------------------------------------------
# solve
# ---------------------------------------------------------------------------------------------


def _kernel_args(rules: PigRules) -> tuple[np.ndarray, np.ndarray, float, float]:
    o = rules.outcomes
    return o.add_points, o.add_probs, o.bust, o.reset


def _check_turn_limit(turn_limit: int | None) -> None:
    if turn_limit is not None and not (isinstance(turn_limit, int) and 1 <= turn_limit <= 100_000):
        raise DicelabError(f"turn limit must be a whole number from 1 to 100000, got {turn_limit}")


def work_needed(rules: PigRules, turn_limit: int | None = None) -> float:
    """Multiply-adds a solve needs, about: states x roll outcomes x passes over the table.

    Unlimited: about 4 passes per sweep (Newton and the Bellman check), ten sweeps with the
    two-dice reset. Turn-limited: one pass per turn, twice (the table, then its actions).
    Calibrated at 1-4 ns each on one core.
    """
    per_pass = float(rules.n_states) * (len(rules.outcomes.add_points) + 2)
    if turn_limit is not None:
        return 2.0 * turn_limit * per_pass
    return per_pass * 4 * (10 if rules.outcomes.reset > 0 else 1)


def check_work(rules: PigRules, turn_limit: int | None = None, max_work: float = MAX_WORK) -> None:
    """Refuse up front, in one line, a solve that would need more than ``max_work`` operations."""
    work = work_needed(rules, turn_limit)
    if work > max_work:
        limited = f" with a turn limit of {turn_limit}" if turn_limit is not None else ""
        raise DicelabError(
            f"solving {rules.variant} Pig at goal {rules.goal} with {rules.sides} sides{limited} "
            f"needs about {work:.1e} multiply-adds (limit {max_work:.0e}, a minute or two); "
            f"lower the goal, the sides or the turn limit"
        )


def solve(rules: PigRules | None = None, turn_limit: int | None = None) -> PigSolution:
    """Solve Pig exactly: the optimal win probability and action at every state.

    ``turn_limit=n`` solves the turn-limited game of seed 003 instead (a draw, worth 1/2, once
    ``n`` turns have been played without a winner).
    """
    rules = rules or PigRules()
    _check_turn_limit(turn_limit)
    check_work(rules, turn_limit)
    g = rules.goal
    pts, prb, p_bust, p_reset = _kernel_args(rules)
    t0 = time.perf_counter()
    fallbacks = 0
    outer = 0
    if turn_limit is None:
        P = np.full((g, g, g), 1.0)
        P[:, :, 0] = 0.5
        R = np.full(g, 0.5)
        prev = 2.0
        while True:
            outer += 1
            fallbacks += _sweep_layers(P, R, g, pts, prb, p_bust, p_reset, outer == 1)
            if p_reset == 0.0:
                break
            R_new = P[:, 0, 0].copy()
            change = float(np.max(np.abs(R_new - R)))
            R = R_new
            # settled, at the rounding floor (the change no longer shrinks), or out of sweeps
            if change <= 1e-15 or FLOOR >= change >= prev or outer >= MAX_SWEEPS:
                fallbacks += _sweep_layers(P, R, g, pts, prb, p_bust, p_reset, False)
                break
            prev = change
    else:
        P = np.full((g, g, g), 1.0)
        _turn_limited(g, turn_limit, pts, prb, p_bust, p_reset, P)
    roll = np.zeros((g, g, g), dtype=np.bool_)
    if turn_limit is None:
        residual = float(_bellman(P, g, pts, prb, p_bust, p_reset, roll))
        if not residual <= MAX_RESIDUAL:  # NaN included
            raise DicelabError(
                f"the Pig solver did not converge for {rules} (Bellman residual {residual:.3g}, "
                f"allowed {MAX_RESIDUAL:g}, after {outer} sweeps)"
            )
    else:
        residual = 0.0  # finite-horizon backward induction: exact by construction
        _limited_actions(rules, turn_limit, P, roll)
    seconds = time.perf_counter() - t0
    return PigSolution(rules, P, roll, residual, turn_limit, seconds,
                       {"sweeps": outer, "fallback_pairs": fallbacks})


def _limited_actions(rules: PigRules, turn_limit: int, P: np.ndarray, roll: np.ndarray) -> None:
    """Optimal first-turn actions of a turn-limited solution (needs E_{n-1} at k = 0)."""
    g = rules.goal
    pts, prb, p_bust, p_reset = _kernel_args(rules)
    if turn_limit == 1:
        prev0 = np.full((g, g), 0.5)
    else:
        tmp = np.full((g, g, g), 1.0)
        _turn_limited(g, turn_limit - 1, pts, prb, p_bust, p_reset, tmp)
        prev0 = tmp[:, :, 0]
    i, j, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    valid = i + k < g
    ii, jj, kk = i[valid], j[valid], k[valid]
    rollv = p_bust * (1 - prev0[jj, ii]) + p_reset * (1 - prev0[jj, 0])
    for d, q in zip(pts.tolist(), prb.tolist(), strict=True):
        t = kk + d
        win = ii + t >= g
        rollv = rollv + np.where(win, q, q * P[ii, jj, np.minimum(t, g - 1)])
    holdv = 1 - prev0[jj, np.minimum(ii + kk, g - 1)]
    roll[ii, jj, kk] = (rollv > holdv) | ((kk == 0) & (rollv == holdv))


def solve_cached(rules: PigRules | None = None, turn_limit: int | None = None) -> PigSolution:
    """:func:`solve`, through the on-disk cache of solved tables (a damaged entry is solved again)."""
    rules = rules or PigRules()
    _check_turn_limit(turn_limit)
    return cached(
        KIND,
        {"rules": rules.to_dict(), "turn_limit": turn_limit},
        lambda: solve(rules, turn_limit),
        PigSolution.to_arrays,
        lambda a, m: PigSolution.from_arrays(a, m, rules, turn_limit),
    )
