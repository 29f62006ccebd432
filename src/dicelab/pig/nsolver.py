"""Exact optimal play of Pig for n players (2 to 6): the max-n solution.

At every decision the mover maximises its own chance to win, given that every later decision is
made the same way; where rolling and holding give the mover exactly the same chance, it holds, and
a turn total of 0 must roll. The answer is every seat's win probability at every state.

Only start-of-turn values are stored, one vector of ``n - 1`` numbers per tuple of banked scores
listed mover first (``goal^n`` of them); the turn inside is recomputed in microseconds when asked
(:meth:`NPigSolution.turn`). The kernels and the structure they exploit are in
:mod:`dicelab.pig.nkernels`; the derivation in ``docs/methods/pig.md``.

>>> from dicelab.pig.rules import PigRules
>>> sol = solve_n(PigRules(goal=20, players=3))
>>> [round(p, 4) for p in sol.start()]          # seats 0, 1, 2 from the first roll
[0.4964, 0.31, 0.1936]
>>> sol.action((10, 15, 18), 6)
'roll'
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.core.store import cached, expect_array, load_as, save_table
import dicelab.pig.nkernels as K
from dicelab.pig.rules import PigRules

KIND = "pig-nsolution"
MAX_RESIDUAL = 1e-9
#: the largest value table a solve may allocate (4 players at goal 100 need 2.4 GB)
MAX_TABLE_BYTES = 4_000_000_000
#: score tuples from which a solve shares each layer among the numba threads
PARALLEL_TUPLES = 2_000_000
#: the largest table kept in the on-disk cache (bigger solves are not cached)
MAX_CACHED_BYTES = 400_000_000


def kernel_outcomes(rules: PigRules) -> tuple[np.ndarray, np.ndarray, float]:
    """The points and chances of the faces that add, and the chance of a 1. Arrays, not tuples:
    one compiled kernel serves every die (tuples would unroll the outcome loops, a few per cent
    faster, at the price of compiling every kernel again for each number of faces)."""
    o = rules.outcomes
    require(o.reset == 0.0, "the n-player kernels take standard or piglet rules (no reset)")
    return (np.ascontiguousarray(o.add_points, dtype=np.int64),
            np.ascontiguousarray(o.add_probs, dtype=np.float64), float(o.bust))


def table_bytes(rules: PigRules) -> int:
    """Bytes of the start-of-turn value table of ``rules``: goal^n x (n - 1) float64."""
    return rules.goal ** rules.players * (rules.players - 1) * 8


def check_size(rules: PigRules, what: str = "solving", copies: int = 1) -> None:
    """Refuse, in one line, a table over :data:`MAX_TABLE_BYTES` (``copies`` tables at once)."""
    need = table_bytes(rules) * copies
    if need > MAX_TABLE_BYTES:
        raise DicelabError(
            f"{what} Pig for {rules.players} players at goal {rules.goal} needs {need / 1e9:.1f} GB "
            f"of values (limit {MAX_TABLE_BYTES / 1e9:.0f} GB); lower the goal or the players"
        )


def chunks(rules: PigRules, threads: int | None = None) -> int:
    """Work chunks per layer: the numba threads, or 1 for small problems (where waking threads
    for each of the ~n * goal layers costs more than the layer)."""
    import numba

    if threads is not None:
        return max(1, int(threads))
    return numba.get_num_threads() if rules.goal ** rules.players >= PARALLEL_TUPLES else 1


def dummies(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Placeholder tables, thresholds and solved table for kernels that use none of them."""
    return (np.zeros((1, 1, 1), dtype=np.bool_), np.zeros((1, 1), dtype=np.int16),
            np.zeros((1, max(n - 1, 1), 1)))


@njit(cache=True)
def greedy_table(W, ph, n, g, pts, prb, pb, out):
    """out[idx, k] = the greedy choice (roll) at every mover-first tuple, for value table W[ph]."""
    gn1 = np.int64(1)  # not a literal 1 (numba would compile its callees once more)
    for r in range(n - 1):
        gn1 *= g
    v = np.zeros(g + 16)
    row = np.zeros(g + 16)
    for idx in range(out.shape[0]):
        c0 = idx // gn1
        y = W[ph, n - 2, (idx % gn1) * g + c0]
        K.greedy_row(W, ph, g, gn1, idx, c0, y, pts, prb, pb, v, row)
        for k in range(g - c0):
            out[idx, k] = row[k] >= 0.5
        for k in range(g - c0, g):
            out[idx, k] = False


@dataclass
class NPigSolution:
    """Optimal (max-n) play of Pig for ``rules.players`` players.

    ``w[r - 1, idx]`` is the chance of the player ``r`` seats after the mover (r = 1..n-1) at the
    start of the mover's turn, the scores listed mover first and ``idx`` their base-goal number
    (the mover's score the most significant digit); the mover's own chance is ``1 - sum``.
    ``mixes`` (m, 4) lists the mixed choices, rows ``(0, idx, k, chance of rolling)``: the
    positions where a mover indifferent between rolling and holding must mix for the cycle of its
    scores to have an equilibrium at all (see ``docs/methods/pig.md``); everywhere else the choice
    is the greedy one, ties holding.
    Positions are given mover first: ``scores = (own, next, ...)`` and the turn total ``k``.
    """

    rules: PigRules
    w: np.ndarray
    max_residual: float
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    mixes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))

    @property
    def goal(self) -> int:
        return self.rules.goal

    @property
    def players(self) -> int:
        return self.rules.players

    def _idx(self, c: tuple[int, ...]) -> int:
        idx = 0
        for x in c:
            idx = idx * self.goal + x
        return idx

    def start_vector(self, scores: Any) -> np.ndarray:
        """Every player's chance at the start of the mover's turn, mover first."""
        c = self.rules.check_scores(scores, 0)
        rest = self.w[:, self._idx(c)]
        return np.concatenate([[1.0 - rest.sum()], rest])

    def start(self, scores: Any = None) -> tuple[float, ...]:
        """Each seat's chance to win at the start of seat 0's turn with banked ``scores`` (seat
        order; default all 0: the game's start, seat 0 to roll first)."""
        c = tuple(scores) if scores is not None else (0,) * self.players
        return tuple(float(x) for x in self.start_vector(c))

    def turn(self, scores: Any) -> tuple[np.ndarray, np.ndarray]:
        """The whole turn at ``scores`` (mover first): ``(V, roll)`` with ``V[k]`` every player's
        chance (mover first) at turn total ``k`` and ``roll[k]`` the optimal chance of rolling
        (1.0 or 0.0, or strictly between at a mixed choice), ``k = 0 .. goal - 1 - scores[0]``."""
        c = self.rules.check_scores(scores, 0)
        n, g = self.players, self.goal
        pts, prb, pb = kernel_outcomes(self.rules)
        rot = c[1:] + c[:1]
        nxt = self.start_vector(rot)
        width = g + int(pts.max()) + 2
        V = np.zeros((width, n))
        row = np.zeros(width)
        tables, thr, _ = dummies(n)
        W = self.w[None]
        K.turn_values(W, 0, n, g, g ** (n - 1), self._idx(c), c[0], nxt, pts, prb, pb, K.GREEDY,
                      0, tables, thr, W, self.mixes, np.zeros(width), row, V)
        top = g - c[0]
        return V[:top].copy(), row[:top].copy()

    def win_probabilities(self, scores: Any, k: int = 0) -> tuple[float, ...]:
        """Every player's chance at ``scores`` (mover first) and turn total ``k``, mover first."""
        self.rules.check_scores(scores, k)
        V, _ = self.turn(scores)
        return tuple(float(x) for x in V[k])

    def win_probability(self, scores: Any, k: int = 0) -> float:
        """The mover's chance at ``scores`` (mover first) and turn total ``k``."""
        return self.win_probabilities(scores, k)[0]

    def action(self, scores: Any, k: int = 0) -> str:
        """``"roll"`` or ``"hold"``: the optimal action of the mover."""
        self.rules.check_scores(scores, k)
        _, row = self.turn(scores)
        return "roll" if row[k] >= 0.5 else "hold"

    def values(self, scores: Any, k: int = 0) -> tuple[np.ndarray, np.ndarray | None]:
        """``(vector if the mover rolls now, vector if it holds now)``, mover first, everyone then
        playing optimally; the hold vector is None at ``k = 0`` (a turn total of 0 must roll)."""
        c = self.rules.check_scores(scores, k)
        n, g = self.players, self.goal
        V, _ = self.turn(c)
        o = self.rules.outcomes
        nxt = self.start_vector(c[1:] + c[:1])
        roll = o.bust * np.roll(nxt, 1)
        for d, p in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
            if c[0] + k + d >= g:
                roll[0] += p
            else:
                roll += p * V[k + d]
        if k == 0:
            return roll, None
        target = c[1:] + (c[0] + k,)
        return roll, np.roll(self.start_vector(target), 1) if n > 1 else None

    def hold_threshold(self, scores: Any) -> int:
        """The smallest turn total at which optimal play holds at ``scores`` (mover first);
        ``goal - scores[0]`` when it never holds short of the goal."""
        _, row = self.turn(scores)
        holds = np.flatnonzero(row[1:] < 0.5)
        return int(holds[0] + 1) if holds.size else self.goal - int(scores[0])

    def decision_table(self) -> np.ndarray:
        """The whole optimal policy as a boolean table ``(goal^n, goal)`` (True = roll), rows
        mover first like ``w`` (small problems: goal^(n+1) bytes)."""
        n, g = self.players, self.goal
        check_size(self.rules, "a decision table")
        pts, prb, pb = kernel_outcomes(self.rules)
        out = np.zeros((g ** n, g), dtype=np.bool_)
        greedy_table(self.w[None], 0, n, g, pts, prb, pb, out)
        for _, idx, kk, p in self.mixes:
            out[int(idx), int(kk)] = p >= 0.5
        return out

    def summary(self) -> dict[str, Any]:
        """The figures ``dicelab pig solve --players N`` reports."""
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "win_probabilities": list(self.start()),
            "win_probability": self.start()[0],
            "states": self.rules.n_states,
            "stored_values": int(self.w.size),
            "max_residual": self.max_residual,
            "seconds": self.seconds,
        }

    # -- storage -------------------------------------------------------------------------------

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        meta = {"rules": self.rules.to_dict(), "max_residual": self.max_residual,
                "seconds": self.seconds, **{k: v for k, v in self.meta.items()
                                            if k in ("rounds", "fallback_cycles", "mixed_cycles")}}
        return {"w": self.w, "mixes": self.mixes}, meta

    def save(self, path: str | Path) -> Path:
        """Write ``PATH.npz`` and ``PATH.json`` (rules, residual, sha256 of the arrays)."""
        return save_table(path, KIND, *self.to_arrays())

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                    rules: PigRules | None = None) -> NPigSolution:
        stored = PigRules(**meta["rules"])
        if rules is not None and stored != rules:
            raise DicelabError(f"the table was solved for {stored}, not for {rules}")
        g, n = stored.goal, stored.players
        w = expect_array(arrays, "w", (n - 1, g ** n), np.float64)
        mixes = arrays.get("mixes")
        require(isinstance(mixes, np.ndarray) and mixes.ndim == 2 and mixes.shape[1] == 4
                and mixes.dtype == np.float64, "the stored table's mixed choices are damaged")
        return cls(stored, w, float(meta["max_residual"]), float(meta.get("seconds", 0.0)), meta,
                   mixes)

    @classmethod
    def load(cls, path: str | Path, rules: PigRules | None = None) -> NPigSolution:
        return load_as(path, KIND, lambda a, m: cls.from_arrays(a, m, rules))


def solve_n(rules: PigRules | None = None, threads: int | None = None) -> NPigSolution:
    """Solve Pig for ``rules.players`` players exactly (max-n; ties hold; 0 must roll).

    ``threads``: work chunks per layer (default: the numba threads from
    :data:`PARALLEL_TUPLES` score tuples on, else 1); the answer does not depend on it.
    """
    rules = rules or PigRules(players=3)
    check_size(rules)
    n, g = rules.players, rules.goal
    pts, prb, pb = kernel_outcomes(rules)
    tables, thr, wopt = dummies(n)
    W = np.zeros((1, n - 1, g ** n))
    kinds = np.full(n, K.GREEDY, dtype=np.int64)
    params = np.zeros(n, dtype=np.int64)
    t0 = time.perf_counter()
    stats, mixes = K.sweep(W, n, g, kinds, params, tables, thr, wopt, np.zeros((0, 4)), pts, prb,
                           pb, chunks(rules, threads))
    seconds = time.perf_counter() - t0
    residual = float(stats[0])
    if not residual <= MAX_RESIDUAL:
        raise DicelabError(
            f"the {n}-player Pig solver did not converge for {rules} (residual {residual:.3g}, "
            f"allowed {MAX_RESIDUAL:g})"
        )
    return NPigSolution(rules, W[0], residual, seconds,
                        {"rounds": int(stats[1]), "fallback_cycles": int(stats[2]),
                         "mixed_cycles": int(stats[3])}, mixes)


def solve_n_cached(rules: PigRules | None = None) -> NPigSolution:
    """:func:`solve_n` through the on-disk cache (tables over :data:`MAX_CACHED_BYTES` are solved
    afresh every time rather than written)."""
    rules = rules or PigRules(players=3)
    if table_bytes(rules) > MAX_CACHED_BYTES:
        return solve_n(rules)
    return cached(KIND, {"rules": rules.to_dict()}, lambda: solve_n(rules),
                  NPigSolution.to_arrays, lambda a, m: NPigSolution.from_arrays(a, m, rules))
