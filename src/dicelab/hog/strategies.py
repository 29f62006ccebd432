"""Hog strategy objects: a strategy compiles, for given rules, a table ``dice[i, j]`` (the number
of dice to roll with own score i against j). Spec strings are parsed in :mod:`dicelab.hog.specs`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dicelab.core.errors import require
from dicelab.hog.rules import HogRules


@dataclass(eq=False)
class HogStrategy(ABC):
    """A recipe for a dice table under any rules; ``name`` is its spec."""

    name: str

    @abstractmethod
    def table(self, rules: HogRules) -> np.ndarray:
        """The number of dice at every state (i, j), shape ``(goal, goal)``, values 1..max_dice."""

    def dice(self, i: int, j: int, rules: HogRules) -> int:
        return int(self.table(rules)[i, j])


@dataclass(eq=False)
class Always(HogStrategy):
    """``always:N``: roll N dice every turn."""

    n: int = 1

    def table(self, rules: HogRules) -> np.ndarray:
        require(
            1 <= self.n <= rules.max_dice,
            f"strategy {self.name} rolls {self.n} dice; these rules allow 1 to {rules.max_dice}",
        )
        return np.full((rules.goal, rules.goal), self.n, dtype=np.int64)

    def dice(self, i: int, j: int, rules: HogRules) -> int:
        return self.n


@dataclass(eq=False)
class Computed(HogStrategy):
    """A strategy whose table is computed for the rules (``optimal``, ``best-response:SPEC``)."""

    build: Callable[[HogRules], np.ndarray] | None = None
    _cache: dict[HogRules, np.ndarray] = field(default_factory=dict, repr=False)

    def table(self, rules: HogRules) -> np.ndarray:
        if rules not in self._cache:
            assert self.build is not None
            self._cache[rules] = self.build(rules)
        return self._cache[rules]


@dataclass(eq=False)
class TableStrategy(HogStrategy):
    """A fixed table for one set of rules (for example a best response)."""

    dice_table: np.ndarray | None = None
    rules: HogRules | None = None

    def table(self, rules: HogRules) -> np.ndarray:
        require(
            rules == self.rules,
            f"strategy {self.name} was computed for {self.rules}, not for {rules}",
        )
        assert self.dice_table is not None
        return self.dice_table
