"""Exact optimal play and exact strategy evaluation for Super Six.

Two players: layered policy iteration with exact linear solves on the forced positions of each
layer of sticks in play; head-to-head evaluation and best responses on the same layers. More than
two players: max-n value iteration, layer by layer. The derivation and the measured figures are
in ``docs/methods/supersix.md``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.core.results import HeadToHead
from dicelab.core.store import cached, expect_array, load_as, save_table
from dicelab.supersix.rules import PITS, SuperSixRules

KIND = "supersix-solution"
TIE = 1e-12
MAX_MAXN_STATES = 6_000_000

# ---------------------------------------------------------------------------------------------
# numba kernels (two players)
# ---------------------------------------------------------------------------------------------
# Arrays are indexed [w, i, m, o]: w the mover's identity (one copy for self-play, two for a
# head-to-head evaluation), i the lid count, m the mover's sticks, o the opponent's sticks.
# F holds forced positions, G non-forced ones; both hold the mover's win probability.
# pol[w, i, m, o] is 1 where the mover throws again at the non-forced position.


@njit(cache=True, nogil=True)
def _turn_coeffs(w, o, s, T, G, pol, coef):
    """Affine form of every non-forced value of one turn (lid + mover = s, opponent has o).

    coef[i, 0] is the constant and coef[i, 1 + i'] the weight of x(i') = F[w', i', o, T-i'-o],
    the opponent's forced value, for the non-forced position (i, s - i); coef[6 + i, :] the same
    for the forced (throw) value. Mover's win = const + sum weight * x.
    """
    top = min(PITS, s - 1)
    for i in range(top, -1, -1):
        m = s - i
        # throw
        for t in range(7):
            coef[6 + i, t] = 0.0
        six = 1.0 if m == 1 else G[w, i, m - 1, o]
        coef[6 + i, 0] += six / 6.0
        if i < PITS:
            q = (PITS - i) / 6.0
            if m == 1:
                coef[6 + i, 0] += q
            else:
                for t in range(7):
                    coef[6 + i, t] += q * coef[i + 1, t]
        if i > 0:
            q = i / 6.0
            coef[6 + i, 0] += q
            coef[6 + i, i] -= q  # 1 - x(i - 1): column 1 + (i - 1)
        # non-forced: throw or stop (stop = 1 - x(i))
        if pol[w, i, m, o] == 1:
            for t in range(7):
                coef[i, t] = coef[6 + i, t]
        else:
            for t in range(7):
                coef[i, t] = 0.0
            coef[i, 0] = 1.0
            coef[i, 1 + i] = -1.0


@njit(cache=True, nogil=True)
def _layer_index(T, W, idx):
    """Number the forced positions of layer T: idx[w, i, m] (o = T - i - m)."""
    n = 0
    for w in range(W):
        for i in range(min(PITS, T - 2) + 1):
            for m in range(1, T - i):
                idx[w, i, m] = n
                n += 1
    return n


@njit(cache=True, nogil=True)
def _evaluate_layer(T, W, G, F, pol, idx, coef):
    """Solve layer T exactly for the current policy; fill F and G of the layer."""
    n = _layer_index(T, W, idx)
    A = np.zeros((n, n))
    b = np.zeros(n)
    for w in range(W):
        wo = (1 - w) if W == 2 else 0
        for o in range(1, T):
            s = T - o
            _turn_coeffs(w, o, s, T, G, pol, coef)
            for i in range(min(PITS, s - 1) + 1):
                r = idx[w, i, s - i]
                A[r, r] += 1.0
                b[r] += coef[6 + i, 0]
                for ip in range(min(PITS, s - 1) + 1):
                    c = coef[6 + i, 1 + ip]
                    if c != 0.0:
                        A[r, idx[wo, ip, o]] -= c
    x = np.linalg.solve(A, b)
    for w in range(W):
        for i in range(min(PITS, T - 2) + 1):
            for m in range(1, T - i):
                F[w, i, m, T - i - m] = x[idx[w, i, m]]
    # non-forced values from the forced ones (backward over the lid count)
    for w in range(W):
        wo = (1 - w) if W == 2 else 0
        for o in range(1, T):
            s = T - o
            for i in range(min(PITS, s - 1), -1, -1):
                m = s - i
                if pol[w, i, m, o] == 1:
                    G[w, i, m, o] = F[w, i, m, o]
                else:
                    G[w, i, m, o] = 1.0 - F[wo, i, o, m]


@njit(cache=True, nogil=True)
def _throw_value(w, wo, i, m, o, G, F):
    six = 1.0 if m == 1 else G[w, i, m - 1, o]
    v = six / 6.0
    if i < PITS:
        v += (PITS - i) / 6.0 * (1.0 if m == 1 else G[w, i + 1, m - 1, o])
    if i > 0:
        v += i / 6.0 * (1.0 - F[wo, i - 1, o, m + 1])
    return v


@njit(cache=True, nogil=True)
def _vi_sweeps(T, G, F, pol, sweeps, tol):
    """Gauss-Seidel value iteration on self-play layer T (warm start for policy iteration)."""
    for _ in range(sweeps):
        delta = 0.0
        for o in range(1, T):
            s = T - o
            for i in range(min(PITS, s - 1), -1, -1):
                m = s - i
                q = _throw_value(np.int64(0), np.int64(0), i, m, o, G, F)
                st = 1.0 - F[0, i, o, m]
                d = abs(q - F[0, i, m, o])
                if d > delta:
                    delta = d
                F[0, i, m, o] = q
                if q > st + TIE:
                    pol[0, i, m, o] = 1
                    G[0, i, m, o] = q
                else:
                    pol[0, i, m, o] = 0
                    G[0, i, m, o] = st
        if delta < tol:
            break


@njit(cache=True, nogil=True)
def _improve_layer(T, G, F, pol):
    """Greedy policy for self-play layer T from its values; returns the number of changes."""
    changed = 0
    for o in range(1, T):
        s = T - o
        for i in range(min(PITS, s - 1) + 1):
            m = s - i
            q = _throw_value(np.int64(0), np.int64(0), i, m, o, G, F)
            st = 1.0 - F[0, i, o, m]
            a = pol[0, i, m, o]
            if q > st + TIE:
                a = 1
            elif q < st - TIE:
                a = 0
            if a != pol[0, i, m, o]:
                pol[0, i, m, o] = a
                changed += 1
    return changed


@njit(cache=True, nogil=True)
def _solve_two(N, max_iter):
    """Optimal self-play values for every layer T = 2..N; returns (G, F, pol, iterations)."""
    G = np.full((1, PITS + 1, N + 1, N + 1), np.nan)
    F = np.full((1, PITS + 1, N + 1, N + 1), np.nan)
    pol = np.ones((1, PITS + 1, N + 1, N + 1), dtype=np.int8)
    idx = np.zeros((1, PITS + 1, N + 1), dtype=np.int64)
    coef = np.zeros((12, 7))
    iters = np.zeros(N + 1, dtype=np.int64)
    for T in range(2, N + 1):
        for o in range(1, T):
            for i in range(min(PITS, T - o - 1) + 1):
                F[0, i, T - o - i, o] = 0.5
                G[0, i, T - o - i, o] = 0.5
        _vi_sweeps(T, G, F, pol, 60, 1e-7)
        for it in range(max_iter):
            _evaluate_layer(T, np.int64(1), G, F, pol, idx, coef)
            iters[T] = it + 1
            if _improve_layer(T, G, F, pol) == 0:
                break
    return G, F, pol, iters


@njit(cache=True, nogil=True)
def _evaluate_two(N, pol):
    """Exact values of a head-to-head match: pol[0] for player A, pol[1] for player B."""
    G = np.full((2, PITS + 1, N + 1, N + 1), np.nan)
    F = np.full((2, PITS + 1, N + 1, N + 1), np.nan)
    idx = np.zeros((2, PITS + 1, N + 1), dtype=np.int64)
    coef = np.zeros((12, 7))
    for T in range(2, N + 1):
        _evaluate_layer(T, np.int64(2), G, F, pol, idx, coef)
    return G, F


@njit(cache=True, nogil=True)
def _best_response_two(N, pol, max_iter):
    """Policy iteration for player A (pol[0]) against B's fixed policy pol[1], layer by layer.

    With B fixed, A faces a one-player MDP; per layer, exact evaluation plus greedy improvement of
    A's decisions only. Returns (G, F, iterations) and leaves A's best response in pol[0].
    """
    G = np.full((2, PITS + 1, N + 1, N + 1), np.nan)
    F = np.full((2, PITS + 1, N + 1, N + 1), np.nan)
    idx = np.zeros((2, PITS + 1, N + 1), dtype=np.int64)
    coef = np.zeros((12, 7))
    worst = 0
    for T in range(2, N + 1):
        for it in range(max_iter):
            _evaluate_layer(T, np.int64(2), G, F, pol, idx, coef)
            changed = 0
            for o in range(1, T):
                s = T - o
                for i in range(min(PITS, s - 1) + 1):
                    m = s - i
                    q = _throw_value(np.int64(0), np.int64(1), i, m, o, G, F)
                    st = 1.0 - F[1, i, o, m]
                    a = pol[0, i, m, o]
                    if q > st + TIE:
                        a = 1
                    elif q < st - TIE:
                        a = 0
                    if a != pol[0, i, m, o]:
                        pol[0, i, m, o] = a
                        changed += 1
            if changed == 0:
                worst = max(worst, it + 1)
                break
    return G, F, worst


@njit(cache=True, nogil=True)
def _residual_two(N, G, F, pol):
    """Largest Bellman residual of self-play values (optimality equation, both flags)."""
    r = 0.0
    for T in range(2, N + 1):
        for o in range(1, T):
            s = T - o
            for i in range(min(PITS, s - 1) + 1):
                m = s - i
                q = _throw_value(np.int64(0), np.int64(0), i, m, o, G, F)
                st = 1.0 - F[0, i, o, m]
                r = max(r, abs(q - F[0, i, m, o]))
                r = max(r, abs(max(q, st) - G[0, i, m, o]))
    return r


# ---------------------------------------------------------------------------------------------
# two-player solution
# ---------------------------------------------------------------------------------------------


def _check_two(rules: SuperSixRules) -> None:
    require(rules.players == 2, f"this needs a two-player game, got players={rules.players}")


@dataclass
class SuperSixSolution:
    """Optimal two-player play at every position with at most ``2 * sticks`` sticks in play.

    ``forced[i, j, k]`` / ``free[i, j, k]`` hold the mover's win probability at ``i/j/k/1`` and
    ``i/j/k/0`` (seed 001's ``prob``; its ``value`` is ``2 prob - 1``); ``throw[i, j, k]`` is True
    where throwing again is optimal at ``i/j/k/0``. Entries that are not positions hold NaN.
    """

    rules: SuperSixRules
    free: np.ndarray
    forced: np.ndarray
    throw: np.ndarray
    max_residual: float
    iterations: int
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def max_total(self) -> int:
        return self.free.shape[1] - 1

    def _check(self, lid: int, own: int, opp: int, forced: bool | int) -> None:
        self.rules.check_state(lid, (own, opp), forced)

    def win_probability(self, lid: int, own: int, opp: int, forced: bool | int = False) -> float:
        """P(mover wins) at ``lid/own/opp/forced`` with optimal play by both."""
        self._check(lid, own, opp, forced)
        a = self.forced if forced else self.free
        return float(a[lid, own, opp])

    def values(self, lid: int, own: int, opp: int) -> tuple[float, float]:
        """(P(win | throw), P(win | stop)) at the non-forced position ``lid/own/opp/0``."""
        self._check(lid, own, opp, False)
        G, F = self.free[None], self.forced[None]
        return float(_throw_value(0, 0, lid, own, opp, G, F)), float(1.0 - F[0, lid, opp, own])

    def action(self, lid: int, own: int, opp: int, forced: bool | int = False) -> str:
        """``"throw"`` or ``"stop"``; a forced position always throws."""
        self._check(lid, own, opp, forced)
        return "throw" if forced or self.throw[lid, own, opp] else "stop"

    def start_player_win(self) -> float:
        """P(the start player wins) with optimal play, round 1 as in seed 001."""
        total = 0.0
        for p, lid, counts, winner in self.rules.opening():
            if winner is not None:
                total += float(p) * (1.0 if winner == 0 else 0.0)
            else:
                total += float(p) * float(self.forced[lid, counts[0], counts[1]])
        return total

    def n_states(self) -> int:
        """Positions solved (both forced flags)."""
        return int(2 * np.count_nonzero(~np.isnan(self.free)))

    def table(self, min_lid: int = 0) -> list[dict[str, Any]]:
        """Rows like seed 001's Results (lid, own, opponent, forced, value, throw, prob).

        Every position with ``lid >= min_lid`` and at most ``2 * sticks`` sticks in play, ordered
        as in seed 001 (lid, then own, then opponent descending; forced before free).
        """
        rows = []
        N = self.max_total
        for i in range(PITS, min_lid - 1, -1):
            for j in range(N, 0, -1):
                for k in range(N, 0, -1):
                    if i + j + k > N:
                        continue
                    for forced in (1, 0):
                        p = float((self.forced if forced else self.free)[i, j, k])
                        rows.append(
                            {
                                "lid": i,
                                "own": j,
                                "opponent": k,
                                "forced": forced,
                                "value": 2.0 * p - 1.0,
                                "throw": bool(forced or self.throw[i, j, k]),
                                "prob": p,
                            }
                        )
        return rows

    def summary(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "start_player_win": self.start_player_win(),
            "states": self.n_states(),
            "max_residual": self.max_residual,
            "policy_iterations": self.iterations,
            "seconds": self.seconds,
        }

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and metadata stored by :meth:`save` and the cache."""
        arrays = {"free": self.free, "forced": self.forced, "throw": self.throw}
        meta = {"rules": self.rules.to_dict(), "max_residual": self.max_residual,
                "iterations": self.iterations, "seconds": self.seconds}
        return arrays, meta

    def save(self, path: str | Path) -> Path:
        """Write ``PATH.npz`` + ``PATH.json`` (rules, residual, sha256); no pickle."""
        return save_table(path, KIND, *self.to_arrays())

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], rules: SuperSixRules | None = None
    ) -> SuperSixSolution:
        """Rebuild a stored solution; check its arrays and, if given, that its rules match."""
        stored = SuperSixRules(**meta["rules"])
        require(rules is None or stored == rules, f"the table was solved for {stored}, not for {rules}")
        shape = (PITS + 1, stored.total + 1, stored.total + 1)
        return cls(
            stored,
            expect_array(arrays, "free", shape, np.float64),
            expect_array(arrays, "forced", shape, np.float64),
            expect_array(arrays, "throw", shape, np.bool_),
            float(meta["max_residual"]),
            int(meta["iterations"]),
            float(meta.get("seconds", 0.0)),
            meta=meta,
        )

    @classmethod
    def load(cls, path: str | Path) -> SuperSixSolution:
        return load_as(path, KIND, cls.from_arrays)


def solve_two(rules: SuperSixRules | None = None) -> SuperSixSolution:
    """Optimal two-player play by layered policy iteration (see the module docstring)."""
    rules = rules or SuperSixRules()
    _check_two(rules)
    N = rules.total
    t0 = time.perf_counter()
    G, F, pol, iters = _solve_two(N, 100)
    seconds = time.perf_counter() - t0
    if iters.max() >= 100:  # pragma: no cover - never seen; kept as an honest guard
        raise DicelabError(f"policy iteration did not settle within 100 steps for {rules}")
    residual = float(_residual_two(N, G, F, pol))
    return SuperSixSolution(
        rules, G[0], F[0], pol[0].astype(bool), residual, int(iters.max()), seconds
    )


@lru_cache(maxsize=32)
def solve_two_cached(rules: SuperSixRules) -> SuperSixSolution:
    """:func:`solve_two` through the on-disk cache, remembered per rules in the process (read-only)."""
    _check_two(rules)
    return cached(KIND, {"rules": rules.to_dict()}, lambda: solve_two(rules),
                  SuperSixSolution.to_arrays, lambda a, m: SuperSixSolution.from_arrays(a, m, rules))


# ---------------------------------------------------------------------------------------------
# head-to-head evaluation (two players)
# ---------------------------------------------------------------------------------------------


def policy_array(rules: SuperSixRules, decide: Any) -> np.ndarray:
    """Tabulate a two-player strategy ``decide(lid, own, (opp,))`` as an int8 array [i, m, o]."""
    N = rules.total
    pol = np.zeros((PITS + 1, N + 1, N + 1), dtype=np.int8)
    for i in range(PITS + 1):
        for m in range(1, N + 1):
            for o in range(1, N - m - i + 1):
                pol[i, m, o] = 1 if decide(i, m, (o,)) else 0
    return pol


def evaluate_two(rules: SuperSixRules, pol_a: np.ndarray, pol_b: np.ndarray, names: tuple[str, str] = ("a", "b")
                 ) -> HeadToHead:
    """Exact win probabilities of policy A against policy B (arrays from :func:`policy_array`)."""
    _check_two(rules)
    N = rules.total
    pol = np.ascontiguousarray(np.stack([pol_a, pol_b]).astype(np.int8))
    require(pol.shape == (2, PITS + 1, N + 1, N + 1), "policy arrays do not match the rules")
    _, F = _evaluate_two(N, pol)
    return _head_to_head(rules, F, names)


def _head_to_head(rules: SuperSixRules, F: np.ndarray, names: tuple[str, str]) -> HeadToHead:
    a_first = a_second = 0.0
    for p, lid, counts, winner in rules.opening():
        if winner is not None:
            a_first += float(p) * (winner == 0)
            a_second += float(p) * (winner == 1)  # B starts: A sits in seat 1
        else:
            a_first += float(p) * float(F[0, lid, counts[0], counts[1]])
            a_second += float(p) * (1.0 - float(F[1, lid, counts[0], counts[1]]))
    return HeadToHead(a=names[0], b=names[1], a_first=a_first, a_second=a_second)


def best_response_two(rules: SuperSixRules, pol_b: np.ndarray, names: tuple[str, str] = ("a", "b")
                      ) -> tuple[np.ndarray, HeadToHead]:
    """A's best reply to B's fixed policy: (A's policy [i, m, o] as bool, exact result)."""
    _check_two(rules)
    N = rules.total
    require(pol_b.shape == (PITS + 1, N + 1, N + 1), "policy array does not match the rules")
    pol = np.ascontiguousarray(np.stack([np.ones_like(pol_b), pol_b]).astype(np.int8))
    _, F, _ = _best_response_two(N, pol, 100)
    return pol[0].astype(bool), _head_to_head(rules, F, names)


# ---------------------------------------------------------------------------------------------
# more than two players: max-n value iteration
# ---------------------------------------------------------------------------------------------


def _enumerate(P: int, total: int) -> np.ndarray:
    """All (lid, c_0..c_{P-1}) with every c >= 1 and lid + sum c <= total, as an int64 array."""
    arr = np.arange(PITS + 1, dtype=np.int64)[:, None]
    rem = total - arr[:, 0]
    for p in range(P):
        maxc = np.maximum(rem - (P - p - 1), 0)
        reps = maxc
        starts = np.cumsum(reps) - reps
        tot = int(reps.sum())
        arr = np.repeat(arr, reps, axis=0)
        c = np.arange(tot, dtype=np.int64) - np.repeat(starts, reps) + 1
        rem = np.repeat(rem, reps) - c
        arr = np.concatenate([arr, c[:, None]], axis=1)
    return arr


def _keys(states: np.ndarray, base: int) -> np.ndarray:
    k = np.zeros(states.shape[0], dtype=np.int64)
    for col in range(states.shape[1] - 1, 0, -1):
        k = k * base + states[:, col]
    return k * (PITS + 1) + states[:, 0]


@njit(cache=True, nogil=True)
def _maxn_layers(P, bounds, lid, six, free, occ, stop, tol, max_sweeps, Vf, Vn, pol, sweeps, deltas):
    """Gauss-Seidel max-n value iteration, layer by layer.

    Successor codes: -1 = the mover has just won; -2 = impossible (no such throw outcome).
    Vf/Vn[s, m]: win probability of the player m seats after the mover, forced / non-forced.
    """
    q = np.zeros(P)
    st = np.zeros(P)
    for L in range(bounds.size - 1):
        a, b = bounds[L], bounds[L + 1]
        for sweep in range(max_sweeps):
            delta = 0.0
            for s in range(a, b):
                i = lid[s]
                for m in range(P):
                    q[m] = 0.0
                # six
                if six[s] == -1:
                    q[0] += 1.0 / 6.0
                else:
                    for m in range(P):
                        q[m] += Vn[six[s], m] / 6.0
                if i < PITS:
                    w = (PITS - i) / 6.0
                    if free[s] == -1:
                        q[0] += w
                    else:
                        for m in range(P):
                            q[m] += w * Vn[free[s], m]
                if i > 0:
                    w = i / 6.0
                    for m in range(P):
                        q[m] += w * Vf[occ[s], (m - 1) % P]
                for m in range(P):
                    st[m] = Vf[stop[s], (m - 1) % P]
                act = pol[s]
                if q[0] > st[0] + TIE:
                    act = 1
                elif q[0] < st[0] - TIE:
                    act = 0
                pol[s] = act
                for m in range(P):
                    d = abs(q[m] - Vf[s, m])
                    if d > delta:
                        delta = d
                    Vf[s, m] = q[m]
                    nv = q[m] if act == 1 else st[m]
                    d = abs(nv - Vn[s, m])
                    if d > delta:
                        delta = d
                    Vn[s, m] = nv
            sweeps[L] = sweep + 1
            deltas[L] = delta
            if delta < tol:
                break


@dataclass
class MaxNSolution:
    """Max-n values for ``P`` players: every player maximises its own win probability.

    ``states[s]`` is ``(lid, c_0, ..., c_{P-1})`` with ``c_0`` the mover; ``forced[s, m]`` and
    ``free[s, m]`` are the win probabilities of the player ``m`` seats after the mover;
    ``throw[s]`` is the mover's choice at the non-forced position.
    """

    rules: SuperSixRules
    states: np.ndarray
    keys: np.ndarray
    forced: np.ndarray
    free: np.ndarray
    throw: np.ndarray
    converged: bool
    max_delta: float
    max_sweeps: int
    seconds: float = 0.0

    def index(self, lid: int, counts: tuple[int, ...]) -> int:
        self.rules.check_state(lid, counts)
        base = self.rules.total + 1
        key = 0
        for c in reversed(counts):
            key = key * base + int(c)
        key = key * (PITS + 1) + int(lid)
        pos = int(np.searchsorted(self.keys, key))
        if pos >= self.keys.size or int(self.keys[pos]) != key:  # pragma: no cover - checked above
            raise DicelabError(f"position {lid}/{counts} is not in this solution")
        return pos

    def win_probabilities(self, lid: int, counts: tuple[int, ...], forced: bool = False) -> np.ndarray:
        """Win probabilities of the mover and the players after it, at this position."""
        s = self.index(lid, counts)
        return (self.forced if forced else self.free)[s].copy()

    def decide(self, lid: int, own: int, others: tuple[int, ...]) -> bool:
        """The max-n policy as a strategy callable."""
        return bool(self.throw[self.index(lid, (own, *others))])

    def start_order_wins(self) -> list[float]:
        """Win probability of each seat (seat 0 starts), round 1 as in seed 001."""
        P = self.rules.players
        out = np.zeros(P)
        for p, lid, counts, winner in self.rules.opening():
            if winner is not None:
                out[winner] += float(p)
            else:
                out += float(p) * self.forced[self.index(lid, counts)]
        return out.tolist()

    def summary(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "start_order_wins": self.start_order_wins(),
            "states": int(2 * self.states.shape[0]),
            "converged": self.converged,
            "max_delta": self.max_delta,
            "max_sweeps": self.max_sweeps,
            "seconds": self.seconds,
        }


def solve_maxn(
    rules: SuperSixRules, tol: float = 1e-13, max_sweeps: int = 20_000
) -> MaxNSolution:
    """Max-n value iteration for any number of players (2 gives the two-player optimum)."""
    require(rules.players <= 6, f"max-n solving takes 2 to 6 players, got {rules.players}")
    t0 = time.perf_counter()
    P, total = rules.players, rules.total
    n_est = sum(math.comb(total - i, P) for i in range(PITS + 1) if total - i >= P)
    require(
        n_est <= MAX_MAXN_STATES,
        f"{P} players with {rules.sticks} sticks give {n_est} positions; at most "
        f"{MAX_MAXN_STATES} are solved (use fewer sticks)",
    )
    raw = _enumerate(P, total)
    T = raw.sum(axis=1)
    order = np.lexsort((-raw[:, 0], T))  # by layer, high lid first (free successors first)
    states = raw[order]
    T = T[order]
    base = total + 1
    keys_by_state = _keys(states, base)
    sort = np.argsort(keys_by_state)
    sorted_keys = keys_by_state[sort]

    def lookup(st: np.ndarray) -> np.ndarray:
        k = _keys(st, base)
        pos = np.searchsorted(sorted_keys, k)
        pos = np.minimum(pos, sorted_keys.size - 1)
        assert np.all(sorted_keys[pos] == k)
        return sort[pos]

    n = states.shape[0]
    lid, c0 = states[:, 0], states[:, 1]
    six = np.full(n, -1, dtype=np.int64)
    free = np.full(n, -2, dtype=np.int64)
    alive = c0 > 1
    s6 = states[alive].copy()
    s6[:, 1] -= 1
    six[alive] = lookup(s6)
    ok = lid < PITS
    free[ok & ~alive] = -1
    m = ok & alive
    sf = states[m].copy()
    sf[:, 0] += 1
    sf[:, 1] -= 1
    free[m] = lookup(sf)
    occ = np.full(n, -2, dtype=np.int64)
    m = lid > 0
    so = states[m].copy()
    so[:, 0] -= 1
    so[:, 1] += 1
    so = np.concatenate([so[:, :1], so[:, 2:], so[:, 1:2]], axis=1)
    occ[m] = lookup(so)
    ss = np.concatenate([states[:, :1], states[:, 2:], states[:, 1:2]], axis=1)
    stop = lookup(ss)
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(T)) + 1, [n]]).astype(np.int64)
    Vf = np.full((n, P), 1.0 / P)
    Vn = np.full((n, P), 1.0 / P)
    pol = np.ones(n, dtype=np.int8)
    L = bounds.size - 1
    sweeps = np.zeros(L, dtype=np.int64)
    deltas = np.zeros(L)
    _maxn_layers(P, bounds, lid.astype(np.int64), six, free, occ, stop, tol, max_sweeps,
                 Vf, Vn, pol, sweeps, deltas)
    return MaxNSolution(
        rules, states[sort], sorted_keys, Vf[sort], Vn[sort], pol[sort].astype(bool),
        bool(np.all(deltas < tol)), float(deltas.max()), int(sweeps.max()),
        time.perf_counter() - t0,
    )
