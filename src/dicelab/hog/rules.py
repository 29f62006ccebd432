"""Hog's rules and the exact outcome distribution of one turn.

A turn rolls ``n`` dice at once (1 to ``max_dice``): any 1 scores 0 for the turn, otherwise the
sum of the dice is scored. The first to reach ``goal`` wins. The distribution of a turn's score is
exact (:func:`turn_distribution`, as fractions) and the solver uses the same numbers as floats
(:meth:`HogRules.outcome_table`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.core.errors import require

MAX_GOAL = 1000
MAX_DICE = 20
MAX_SIDES = 20


def _whole(value: object, name: str, lo: int, hi: int) -> None:
    ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    require(ok, f"{name} must be a whole number from {lo} to {hi}, got {value!r}")


@dataclass(frozen=True)
class HogRules:
    """The rules of a two-player Hog game.

    >>> HogRules().goal, HogRules().max_dice, HogRules().sides
    (100, 10, 6)
    """

    goal: int = 100
    max_dice: int = 10
    sides: int = 6

    def __post_init__(self) -> None:
        _whole(self.goal, "goal", 1, MAX_GOAL)
        _whole(self.max_dice, "max_dice", 1, MAX_DICE)
        _whole(self.sides, "sides", 2, MAX_SIDES)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def check_dice(self, n: object) -> int:
        """``n`` if it is a legal number of dice, else a one-line error."""
        _whole(n, "the number of dice", 1, self.max_dice)
        assert isinstance(n, int)
        return n

    def check_state(self, i: int, j: int) -> None:
        """Raise a one-line error unless (i, j) is a non-terminal state (both scores below goal)."""
        g = self.goal
        require(0 <= i < g, f"mover's score i must be from 0 to {g - 1} (goal {g}), got {i}")
        require(0 <= j < g, f"opponent's score j must be from 0 to {g - 1} (goal {g}), got {j}")

    def outcome_table(self) -> np.ndarray:
        """``P[n, o]``: probability that rolling ``n`` dice scores ``o`` (row 0 unused), as floats."""
        return _float_table(self.max_dice, self.sides)


@lru_cache(maxsize=64)
def turn_distribution(n: int, sides: int = 6) -> tuple[Fraction, ...]:
    """Exact ``P(score = o)`` for ``o = 0 .. n * sides`` when rolling ``n`` dice.

    P(0) = 1 - ((sides - 1) / sides)^n; given no 1, each die is uniform on 2..sides, so the
    rest is the n-fold convolution of that uniform law, scaled by ((sides - 1) / sides)^n.

    >>> d = turn_distribution(2)
    >>> d[0], d[4], d[12]
    (Fraction(11, 36), Fraction(1, 36), Fraction(1, 36))
    """
    require(isinstance(n, int) and n >= 1, f"the number of dice must be at least 1, got {n}")
    require(isinstance(sides, int) and sides >= 2, f"sides must be at least 2, got {sides}")
    face = Fraction(1, sides)
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for f in range(2, sides + 1):
                nxt[total + f] = nxt.get(total + f, Fraction(0)) + p * face
        dist = nxt
    out = [Fraction(0)] * (n * sides + 1)
    for total, p in dist.items():
        out[total] = p
    out[0] = 1 - sum(dist.values())
    return tuple(out)


@lru_cache(maxsize=32)
def _float_table(max_dice: int, sides: int) -> np.ndarray:
    """Row n: the score distribution of n dice as floats, padded to max_dice * sides + 1."""
    width = max_dice * sides + 1
    table = np.zeros((max_dice + 1, width), dtype=np.float64)
    for n in range(1, max_dice + 1):
        dist = turn_distribution(n, sides)
        table[n, : len(dist)] = [float(p) for p in dist]
    table.setflags(write=False)
    return table
