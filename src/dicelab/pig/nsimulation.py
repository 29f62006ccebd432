"""Monte Carlo of n-player Pig for a profile of strategies (one per seat), reproducible on any
number of cores, with a Wilson interval per seat and the exact chances beside it.

The games are played by one numba kernel; each turn asks the mover's strategy for its choices
over the turn (:mod:`dicelab.pig.nkernels`; a mixed choice of optimal play is drawn). Randomness
as in :mod:`dicelab.pig.simulation`: batches of 65,536 games, each with its own xoshiro256**
generator from ``SeedSequence(seed)``, added up in batch order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numba import prange

from dicelab.core import stats as st
from dicelab.core.errors import require
from dicelab.core.jit import njit
import dicelab.pig.nkernels as K
from dicelab.pig.nevaluation import _pack, evaluate_profile, profile_of
from dicelab.pig.nsolver import kernel_outcomes
from dicelab.pig.rules import PigRules
from dicelab.pig.simulation import BATCH, MAX_GAMES, _atoms, _next, batch_states


@njit(cache=True)
def _play_batch(kinds, params, tables, thr, wopt, mixes, n, g, pts, prb, pb, gain, akind, state,
                n_games, counts):
    """Play ``n_games`` games (seat 0 first) with generator ``state``; counts[s] += wins of s."""
    gn1 = np.int64(1)  # not a literal 1 (numba would compile its callees once more)
    for r in range(n - 1):
        gn1 *= g
    n_atoms = np.uint64(gain.shape[0])
    mask32 = np.uint64(0xFFFFFFFF)
    scale = 1.0 / 4294967296.0
    scores = np.zeros(n, dtype=np.int64)
    row = np.zeros(g + 16)
    v = np.zeros(g + 16)
    for game in range(n_games):
        for r in range(n):
            scores[r] = 0
        mover = 0
        while True:
            idx = 0
            for r in range(n):
                idx = idx * g + scores[(mover + r) % n]
            c0 = scores[mover]
            K._fixed_row(kinds[mover], params[mover], tables, thr, wopt, mixes, n, g, gn1, idx,
                         c0, pts, prb, pb, v, row)
            k = 0
            action = 0  # 0 hold, 1 bust, 3 win
            while True:
                rp = 1.0 if k == 0 else row[k]
                if rp < 1.0:
                    if rp <= 0.0:
                        break
                    u = (_next(state) & mask32) * scale
                    if u >= rp:
                        break
                x = _next(state) & mask32
                atom = (x * n_atoms) >> np.uint64(32)
                if akind[atom] == 0:
                    k += gain[atom]
                    if c0 + k >= g:
                        action = 3
                        break
                else:
                    action = 1
                    break
            if action == 3:
                counts[mover] += 1
                break
            if action == 0:
                scores[mover] = c0 + k
            mover = (mover + 1) % n


@njit(cache=True, parallel=True)
def _play_all(kinds, params, tables, thr, wopt, mixes, n, g, pts, prb, pb, gain, akind, states,
              n_games, batch, counts):
    for b in prange(states.shape[0]):
        m = min(batch, n_games - b * batch)
        s = states[b].copy()
        _play_batch(kinds, params, tables, thr, wopt, mixes, n, g, pts, prb, pb, gain, akind, s, m,
                    counts[b])


@dataclass(frozen=True)
class NSimulationResult:
    """Wins per seat (seat 0 first) of ``games`` simulated games, each seat's share with its
    Wilson interval, and the exact chances (``exact``, when computed) with whether each lies
    inside its interval."""

    seats: tuple[str, ...]
    games: int
    seed: int
    wins: tuple[int, ...]
    shares: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    confidence: float
    exact: tuple[float, ...] | None
    inside: tuple[bool, ...] | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["seats"] = list(self.seats)
        return d


def simulate_n(profile: Sequence[Any], rules: PigRules | None = None, games: int = 100_000,
               seed: int = 0, confidence: float = 0.95, exact: bool = True) -> NSimulationResult:
    """Play ``games`` games of the profile (seat 0 first in every game), reproducibly.

    >>> r = simulate_n(["hold:20", "hold:25", "keep-pace"], PigRules(goal=50, players=3), 20_000)
    >>> r.inside
    (True, True, True)
    """
    rules = rules or PigRules(players=len(profile))
    require(isinstance(games, int) and 1 <= games <= MAX_GAMES,
            f"games must be a whole number from 1 to {MAX_GAMES}, got {games}")
    require(isinstance(seed, int) and seed >= 0, f"seed must be a whole number >= 0, got {seed}")
    require(0.0 < confidence < 1.0, f"confidence must lie strictly between 0 and 1, got {confidence}")
    seats = profile_of(profile, rules)
    n, g = rules.players, rules.goal
    pk = _pack(seats, rules)
    pts, prb, pb = kernel_outcomes(rules)
    gain, akind = _atoms(rules)
    states = batch_states(seed, games)
    counts = np.zeros((len(states), n), dtype=np.int64)
    t0 = time.perf_counter()
    _play_all(pk.kinds, pk.params, pk.tables, pk.thr, pk.wopt, pk.mixes, n, g, pts, prb, pb, gain,
              akind, states, games, BATCH, counts)
    seconds = time.perf_counter() - t0
    wins = counts.sum(axis=0)
    lo, hi = zip(*(st.wilson_interval(int(w), games, confidence) for w in wins), strict=True)
    ex = inside = None
    if exact:
        ex = evaluate_profile(seats, rules).wins
        inside = tuple(bool(a <= e <= b) for a, e, b in zip(lo, ex, hi, strict=True))
    return NSimulationResult(tuple(s.name for s in seats), games, seed,
                             tuple(int(w) for w in wins), tuple(float(w) / games for w in wins),
                             tuple(lo), tuple(hi), confidence, ex, inside, seconds)
