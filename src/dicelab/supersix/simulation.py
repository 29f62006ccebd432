"""Super Six's Monte Carlo games: one batch function that the local loop (:func:`dicelab.supersix.simulate`)
and the distributed jobs (:mod:`dicelab.supersix.jobs`) both call, so every backend plays the very
same games: batch ``b`` (games ``b * BATCH ..``) draws from the ``b``-th child of
``SeedSequence(seed)``, and with ``rotate`` game ``g`` seats strategy ``n`` at ``(n + g) mod P``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dicelab.core.stats import interval
from dicelab.supersix.rules import SuperSixGame, SuperSixRules
from dicelab.supersix.strategies import Strategy

BATCH = 500


def batches(games: int) -> int:
    """How many batches ``games`` games make."""
    return -(-games // BATCH)


def play_batches(strategies: Sequence[Strategy], rules: SuperSixRules, games: int, seed: int,
                 rotate: bool, b0: int, b1: int) -> np.ndarray:
    """The wins of each strategy in batches ``b0 .. b1 - 1`` of a ``games``-game run."""
    P = rules.players
    wins = np.zeros(P, dtype=np.int64)
    for b in range(b0, b1):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(b,)))
        for g in range(b * BATCH, min(games, (b + 1) * BATCH)):
            shift = g % P if rotate else 0
            seats = [strategies[(s - shift) % P] for s in range(P)]
            winner_seat = SuperSixGame(rules, seats, rng).play()
            wins[(winner_seat - shift) % P] += 1
    return wins


def report(names: Sequence[str], wins: np.ndarray, rules: SuperSixRules, games: int, seed: int,
           confidence: float, rotate: bool, method: str) -> dict[str, Any]:
    """The simulation's answer: each strategy's wins and rate with a confidence interval."""
    results = []
    for n, name in enumerate(names):
        lo, hi = interval(int(wins[n]), games, confidence, method)
        results.append({"strategy": name, "seat": None if rotate else n, "wins": int(wins[n]),
                        "rate": float(wins[n] / games), "ci_low": lo, "ci_high": hi})
    return {"rules": rules.to_dict(), "games": games, "seed": seed, "confidence": confidence,
            "rotate": rotate, "results": results}
