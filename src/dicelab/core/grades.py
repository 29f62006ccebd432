"""The shape of an exact grade (``dicelab.grade``): one home for the summary every race game's
grading hook returns (:class:`dicelab.core.registry.Grades`).

A *loss* is the win chance a decision gives away: the value of the best action minus the value of the
action taken, both followed by optimal play. A *visit* is the expected number of times a game against
optimal play meets the decision. The mean loss per decision weights each decision by its visits; the
expected loss per game (visits times loss, summed) equals the optimal win probability minus the
policy's (the performance-difference identity: a check the grades carry as ``identity_gap``).

>>> import numpy as np
>>> s = loss_summary(np.array([1.0, 0.5, 0.0]), np.array([0.0, 0.1, 0.9]), 0.45)
>>> s["decisions_per_game"], round(s["mean_loss"], 4), s["worst_loss"], s["worst_index"]
(1.5, 0.0333, 0.1, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def loss_summary(visits: np.ndarray, loss: np.ndarray, win: float) -> dict[str, Any]:
    """Per-seat numbers from the expected ``visits`` and the ``loss`` of every decision state (flat
    arrays of one shape) and the policy's ``win`` probability in that seat."""
    visits = np.asarray(visits, dtype=np.float64)
    loss = np.asarray(loss, dtype=np.float64)
    reached = visits > 0
    n = float(visits.sum())
    total = float(visits @ loss)
    worst = int(np.argmax(np.where(reached, loss, -1.0))) if reached.any() else -1
    return {"decisions_per_game": n, "lost_per_game": total, "mean_loss": total / n if n else 0.0,
            "worst_loss": float(loss[worst]) if worst >= 0 else 0.0, "worst_index": worst,
            "worst_reach": float(visits[worst]) if worst >= 0 else 0.0,
            "states_reached": int(reached.sum()), "win": float(win)}


def win_grade(win_first: float, win_second: float, optimal_first: float, optimal_second: float,
              seats: list[dict[str, Any]], describe: Callable[[int], dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """The grade of a race game: win probabilities in both seats beside optimal play's, and the
    losses pooled over both seats (a game in each seat, visits added)."""
    first, second = seats
    n = first["decisions_per_game"] + second["decisions_per_game"]
    lost = first["lost_per_game"] + second["lost_per_game"]
    w = first if first["worst_loss"] >= second["worst_loss"] else second
    out = {"kind": "win", "win_first": float(win_first), "win_second": float(win_second),
           "win": 0.5 * (win_first + win_second), "optimal_first": float(optimal_first),
           "optimal_second": float(optimal_second), "optimal": 0.5 * (optimal_first + optimal_second),
           "mean_loss": lost / n if n else 0.0, "worst_loss": w["worst_loss"],
           "worst_state": describe(w["worst_index"]) if w["worst_index"] >= 0 else None}
    for name, s, win, opt in (("first", first, win_first, optimal_first), ("second", second, win_second, optimal_second)):
        out[name] = {k: v for k, v in s.items() if k != "worst_index"}
        # performance difference: expected loss per game = optimal value - the policy's win probability
        out[name]["identity_gap"] = abs(s["lost_per_game"] - (opt - win))
    out.update(extra)
    return out


__all__ = ["loss_summary", "win_grade"]
