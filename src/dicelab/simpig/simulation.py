"""Monte Carlo games of simultaneous Pig for any number of players, reproducible from a seed."""

from __future__ import annotations

import numpy as np

from dicelab.core.errors import require
from dicelab.simpig.rules import (
    SimPigRules,
    sample_turn_totals,
)
from dicelab.simpig.strategies import SimPigStrategy, check_goal

BATCH = 4096


def simulate(
    strategies: list[SimPigStrategy], games: int = 10_000, seed: int = 0, goal: int = 100
) -> np.ndarray:
    """Monte Carlo: each player's average share of the win over ``games`` games (sums to 1).

    Games run in fixed batches of 4096, each with its own stream from ``SeedSequence(seed).spawn``,
    so the result depends only on ``seed``. Turn totals are drawn from the exact ``X_k``
    distributions (the same law as rolling die by die, see :class:`SimPigGame`).
    """
    n = len(strategies)
    rules = SimPigRules(goal=goal, players=n)
    require(
        isinstance(games, int) and games >= 1,
        f"games must be a positive whole number, got {games!r}",
    )
    strats = [check_goal(s, goal) for s in strategies]
    nb = -(-games // BATCH)
    streams = np.random.SeedSequence(seed).spawn(nb)
    total = np.zeros(n)
    for b in range(nb):
        size = min(BATCH, games - b * BATCH)
        total += _simulate_batch(strats, rules, size, np.random.default_rng(streams[b]))
    return total / games


def _simulate_batch(
    strats: list[SimPigStrategy], rules: SimPigRules, size: int, rng: np.random.Generator
) -> np.ndarray:
    n, g = rules.players, rules.goal
    scores = np.zeros((size, n), np.int64)
    active = np.ones(size, bool)
    shares = np.zeros(n)
    while active.any():
        idx = np.flatnonzero(active)
        sc = scores[idx]
        new = sc.copy()
        for p, s in enumerate(strats):
            others = [sc[:, q] for q in range(n) if q != p]
            comps = s.mixture(sc[:, p], others)
            if len(comps) == 1:
                k = np.broadcast_to(comps[0][1], (len(idx),))
            else:
                w = np.stack([np.broadcast_to(np.asarray(c[0], float), (len(idx),)) for c in comps])
                ks = np.stack([np.broadcast_to(c[1], (len(idx),)) for c in comps])
                pick = (rng.random(len(idx))[None] > np.cumsum(w, axis=0)).sum(axis=0)
                pick = np.minimum(pick, len(comps) - 1)
                k = ks[pick, np.arange(len(idx))]
            new[:, p] += sample_turn_totals(k, rng)
        scores[idx] = new
        won = new >= g
        done = won.any(axis=1)
        if done.any():
            w = won[done].astype(float)
            shares += (w / w.sum(axis=1, keepdims=True)).sum(axis=0)
            active[idx[done]] = False
    return shares
