"""Strategy objects of simultaneous Pig, and their tables on disk.

A strategy tells a player which hold-at target ``k`` to pick at the start of a turn, from its own
score and the other players' scores; it may randomise (a *mixed* strategy). Targets are always
clipped to the legal range ``1 .. goal - own score``. Strategies are written as text specs
(``hold:25``, ``pw:25<40,30<60,goal``, ``mix:...``, ``br:SPEC``, ``equilibrium``, ...), parsed
by :mod:`dicelab.simpig.specs`; this module needs no solver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import shorten

STRATEGY_KIND = "simpig-strategy"

Component = tuple[np.ndarray | float, np.ndarray]


@dataclass(frozen=True)
class SimPigStrategy:
    """A strategy. Build one with :func:`dicelab.simpig.specs.parse_strategy` or the
    constructors below (:func:`hold_strategy`, :func:`table_strategy`).

    ``mixture(own, others)`` returns the components ``[(weight, k), ...]``: at a state the player
    plays target ``k`` with probability ``weight`` (arrays broadcast over the states given).
    """

    spec: str
    goal: int
    state_independent: bool = False  # the target depends on the own score only
    symmetric: bool = True  # depends on the other players' scores only through their multiset
    two_player_only: bool = False
    parts: tuple = field(default=(), repr=False)
    table: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def mixture(self, own: np.ndarray, others: list[np.ndarray]) -> list[Component]:
        """The mixed choice at the states ``(own, others)`` (integer arrays that broadcast)."""
        g = self.goal
        kind = self.parts[0] if self.parts else "table"
        own = np.asarray(own)
        cap = np.maximum(g - own, 1)
        if kind == "hold":
            n = self.parts[1]
            return [(1.0, np.minimum(n, cap) if n is not None else cap)]
        if kind == "pw":
            lead = others[0]
            for o in others[1:]:
                lead = np.maximum(lead, o)
            k = np.full(np.broadcast(own, lead).shape, 0, dtype=np.int64)
            done = np.zeros(k.shape, dtype=bool)
            for target, thr in self.parts[1]:
                t = cap if target is None else np.minimum(target, cap)
                sel = ~done & (lead < thr) if thr is not None else ~done
                k = np.where(sel, t, k)
                done |= sel
            return [(1.0, k)]
        if kind == "mix":
            out: list[Component] = []
            for p, sub in self.parts[1]:
                for w, k in sub.mixture(own, others):
                    out.append((w * p, k))
            return out
        require(len(others) == 1, f"strategy {self.spec!r} is a two-player table")
        weights, targets = self.table  # type: ignore[misc]
        require(
            weights.shape[1] == g, f"strategy {self.spec!r} is for goal {weights.shape[1]}, not {g}"
        )
        o = np.minimum(own, g - 1)
        j = np.minimum(others[0], g - 1)
        return [(weights[c][o, j], np.minimum(targets[c][o, j], cap)) for c in range(len(weights))]

    def target_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Two-player arrays ``weights[c, own, opp]`` and ``targets[c, own, opp]``."""
        g = self.goal
        own, opp = np.indices((g, g))
        comps = self.mixture(own, [opp])
        w = np.stack([np.broadcast_to(np.asarray(c[0], dtype=float), (g, g)) for c in comps])
        k = np.stack([np.broadcast_to(np.asarray(c[1], dtype=np.int64), (g, g)) for c in comps])
        return w, k

    def to_json(self) -> dict[str, Any]:
        """A JSON form (for tasks sent to workers); tables have none."""
        require(self.table is None, f"strategy {self.spec!r} is a table; it has no JSON form")
        kind, arg = self.parts
        if kind == "mix":
            arg = [[p, sub.to_json()] for p, sub in arg]
        elif kind == "pw":
            arg = [list(piece) for piece in arg]
        return {
            "spec": self.spec,
            "goal": self.goal,
            "state_independent": self.state_independent,
            "symmetric": self.symmetric,
            "two_player_only": self.two_player_only,
            "parts": [kind, arg],
        }


def strategy_from_json(data: dict[str, Any]) -> SimPigStrategy:
    """The strategy of :meth:`SimPigStrategy.to_json`'s form."""
    kind, arg = data["parts"]
    if kind == "mix":
        arg = tuple((float(p), strategy_from_json(sub)) for p, sub in arg)
    elif kind == "pw":
        arg = tuple((target, thr) for target, thr in arg)
    return SimPigStrategy(
        data["spec"],
        int(data["goal"]),
        bool(data["state_independent"]),
        bool(data["symmetric"]),
        bool(data["two_player_only"]),
        (kind, arg),
    )


def check_goal(strategy: SimPigStrategy, goal: int) -> SimPigStrategy:
    """``strategy`` itself, after checking that it was built for ``goal``."""
    require(
        strategy.goal == goal,
        f"strategy {strategy.spec!r} was built for goal {strategy.goal}, not {goal}",
    )
    return strategy


def hold_strategy(n: int | None, goal: int, spec: str | None = None) -> SimPigStrategy:
    """``hold:N`` (``n=None``: ``hold:goal``, hold at ``goal - own``)."""
    text = spec if spec is not None else f"hold:{'goal' if n is None else n}"
    return SimPigStrategy(text, goal, True, True, False, ("hold", n))


def table_strategy(
    spec: str, goal: int, weights: np.ndarray, targets: np.ndarray
) -> SimPigStrategy:
    """A two-player table: target ``targets[c, own, opp]`` with probability ``weights[c, own, opp]``."""
    return SimPigStrategy(
        spec,
        goal,
        False,
        True,
        True,
        (),
        (np.asarray(weights, float), np.asarray(targets, np.int64)),
    )


def save_strategy(
    path: str | Path,
    weights: np.ndarray,
    targets: np.ndarray,
    goal: int,
    source: str,
    value: np.ndarray | None = None,
) -> Path:
    """Save a two-player strategy table (``weights[c, own, opp]``, ``targets[c, own, opp]``),
    optionally with the win-probability table ``value[own, opp]`` it was solved with."""
    from dicelab.core.store import save_table

    arrays = {"weights": np.asarray(weights, np.float64), "targets": np.asarray(targets, np.int16)}
    if value is not None:
        arrays["value"] = np.asarray(value, np.float64)
    return save_table(path, STRATEGY_KIND, arrays, {"goal": goal, "players": 2, "source": source})


def load_strategy(path: str, goal: int) -> SimPigStrategy:
    """Load a table written by :func:`save_strategy` and check it fits ``goal``."""
    from dicelab.core.store import load_table

    where = shorten(path)
    require(path.strip() != "", "table: needs the path of a saved strategy table")
    try:
        arrays, meta = load_table(path, STRATEGY_KIND)
    except DicelabError:
        raise
    except (ValueError, EOFError, KeyError) as exc:  # a damaged or non-UTF-8 JSON or zip
        raise DicelabError(f"cannot read strategy table {where}: {exc}") from None
    w, k = arrays.get("weights"), arrays.get("targets")
    require(w is not None and k is not None, f"{where} lacks the weights/targets arrays")
    assert w is not None and k is not None
    require(
        isinstance(meta, dict)
        and meta.get("goal") == goal
        and w.ndim == 3
        and w.shape[1:] == (goal, goal)
        and k.shape == w.shape
        and 1 <= w.shape[0] <= goal,
        f"{where} holds a strategy for goal {meta.get('goal') if isinstance(meta, dict) else '?'}"
        f" with arrays of shape {w.shape}, not one for goal {goal}",
    )
    require(
        np.issubdtype(w.dtype, np.floating) and np.issubdtype(k.dtype, np.integer),
        f"{where}: weights must be floating point and targets whole numbers",
    )
    require(
        bool(np.all(w >= 0)) and np.allclose(w.sum(axis=0), 1.0),
        f"{where}: weights must be non-negative and sum to 1 at every state",
    )
    own = np.arange(goal)[:, None]
    ok = (k >= 1) & (k <= goal - own[None]) | (w == 0)
    require(bool(np.all(ok)), f"{where}: every target must be from 1 to goal - own score")
    return table_strategy(f"table:{path}", goal, w, k.astype(np.int64))
