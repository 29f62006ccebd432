"""Exact evaluation and best responses for Hog strategy objects (the solver's layered sweep with
one or both sides fixed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicelab.hog.rules import HogRules
from dicelab.hog.solver import OPTIMISE, sweep
from dicelab.hog.strategies import HogStrategy, TableStrategy


@dataclass(frozen=True)
class Evaluation:
    """A's exact win probability against B when A moves first and when B moves first."""

    a: str
    b: str
    a_first: float
    b_first: float

    @property
    def mean(self) -> float:
        """A's win probability when the first move alternates."""
        return (self.a_first + self.b_first) / 2

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "a_first": self.a_first, "b_first": self.b_first,
                "mean": self.mean}


@dataclass(frozen=True)
class BestResponse:
    """The exact best response to ``against`` and its win probabilities (moving first, second)."""

    strategy: TableStrategy
    against: str
    value: float
    value_second: float

    def to_dict(self) -> dict[str, Any]:
        return {"against": self.against, "value": self.value, "value_second": self.value_second,
                "start_dice": int(self.strategy.table(self.strategy.rules)[0, 0])}  # type: ignore[arg-type]


def evaluate(a: HogStrategy, b: HogStrategy, rules: HogRules | None = None) -> Evaluation:
    """Exact win probabilities of A against B."""
    rules = rules or HogRules()
    res = sweep(a.table(rules), b.table(rules), rules)
    return Evaluation(a=a.name, b=b.name, a_first=float(res.U[0, 0]), b_first=float(res.Vt[0, 0]))


def best_response(b: HogStrategy, rules: HogRules | None = None) -> BestResponse:
    """The strategy that maximises its win probability against the fixed strategy ``b``."""
    rules = rules or HogRules()
    free = np.full((rules.goal, rules.goal), OPTIMISE, dtype=np.int64)
    res = sweep(free, b.table(rules), rules)
    table = res.a_dice
    table.setflags(write=False)
    strategy = TableStrategy(name=f"best-response:{b.name}", dice_table=table, rules=rules)
    return BestResponse(strategy=strategy, against=b.name, value=float(res.U[0, 0]),
                        value_second=float(res.Vt[0, 0]))
