"""Absorbing Markov chains: expected visits and absorption, by one sparse direct solve (exact up to
floating point, no simulation). Used to grade a fixed policy against a fixed opponent: the states are
the positions before each decision, the chain is what the two policies and the dice make of them.

>>> import scipy.sparse as sp
>>> # a coin: from state 0, heads (1/2) moves to state 1, tails wins; from state 1 heads loses,
>>> # tails goes back to 0
>>> Q = sp.csr_matrix(([0.5, 0.5], ([0, 1], [1, 0])), shape=(2, 2))
>>> R = sp.csr_matrix(([0.5, 0.0], ([0, 1], [0, 0])), shape=(2, 1))
>>> v, a = absorb(Q, R, [1.0, 0.0])
>>> [round(float(x), 6) for x in v], [round(float(x), 6) for x in a]
([1.333333, 0.666667], [0.666667])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import require


def absorb(Q: Any, R: Any, start: Any) -> tuple[np.ndarray, np.ndarray]:
    """Expected visits of every transient state and the probability of each absorbing outcome.

    ``Q[s, t]``: P(transient ``s`` -> transient ``t``); ``R[s, o]``: P(``s`` -> absorbing outcome
    ``o``); ``start``: the distribution of the first state. Returns ``(v, a)`` with ``v = start (I -
    Q)^-1`` (expected number of visits) and ``a = v R``.
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    n = Q.shape[0]
    start = np.asarray(start, dtype=np.float64)
    require(Q.shape == (n, n) and R.shape[0] == n and start.shape == (n,), "chain shapes do not match")
    m = (sp.identity(n, format="csc") - sp.csc_matrix(Q)).T.tocsc()
    v = spla.spsolve(m, start) if n else np.zeros(0)
    v = np.atleast_1d(np.asarray(v, dtype=np.float64))
    require(bool(np.all(np.isfinite(v))), "the chain has states it never leaves (a stalemate)")
    a = np.asarray(sp.csr_matrix(R).T @ v).ravel()
    return v, a


class Chain:
    """A chain under construction: add transitions by arrays, then :meth:`solve`."""

    def __init__(self, n: int, outcomes: int) -> None:
        self.n, self.outcomes = n, outcomes
        self._q: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._r: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def move(self, src: Any, dst: Any, p: Any) -> None:
        """Transitions ``src[i] -> dst[i]`` with probability ``p[i]`` (arrays or scalars)."""
        src, dst, p = np.broadcast_arrays(np.asarray(src, np.int64), np.asarray(dst, np.int64),
                                          np.asarray(p, np.float64))
        self._q.append((src.ravel(), dst.ravel(), p.ravel()))

    def end(self, src: Any, outcome: int, p: Any) -> None:
        """Absorption of ``src[i]`` into ``outcome`` with probability ``p[i]``."""
        src, p = np.broadcast_arrays(np.asarray(src, np.int64), np.asarray(p, np.float64))
        self._r.append((src.ravel(), np.full(src.size, outcome, np.int64), p.ravel()))

    def solve(self, start: Any) -> tuple[np.ndarray, np.ndarray]:
        import scipy.sparse as sp

        def matrix(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], cols: int) -> Any:
            if not parts:
                return sp.csr_matrix((self.n, cols))
            r, c, p = (np.concatenate(x) for x in zip(*parts, strict=True))
            keep = p != 0
            return sp.csr_matrix((p[keep], (r[keep], c[keep])), shape=(self.n, cols))

        return absorb(matrix(self._q, self.n), matrix(self._r, self.outcomes), start)


__all__ = ["Chain", "absorb"]
