"""Exact evaluation and best responses for Hog strategy objects (the solver's layered sweep with
one or both sides fixed), as the shared result types of :mod:`dicelab.core.results`."""

from __future__ import annotations

import numpy as np

from dicelab.core.results import BestResponse, HeadToHead
from dicelab.hog.rules import HogRules
from dicelab.hog.solver import OPTIMISE, sweep
from dicelab.hog.strategies import HogStrategy, TableStrategy


def evaluate(a: HogStrategy, b: HogStrategy, rules: HogRules | None = None) -> HeadToHead:
    """Exact win probabilities of A against B, A moving first and second."""
    rules = rules or HogRules()
    res = sweep(a.table(rules), b.table(rules), rules)
    return HeadToHead(a=a.name, b=b.name, a_first=float(res.U[0, 0]), a_second=float(res.Vt[0, 0]))


def best_response(b: HogStrategy, rules: HogRules | None = None) -> BestResponse:
    """The strategy that maximises its win probability against the fixed strategy ``b``."""
    rules = rules or HogRules()
    free = np.full((rules.goal, rules.goal), OPTIMISE, dtype=np.int64)
    res = sweep(free, b.table(rules), rules)
    table = res.a_dice
    table.setflags(write=False)
    strategy = TableStrategy(name=f"best-response:{b.name}", dice_table=table, rules=rules)
    result = HeadToHead(a=strategy.name, b=b.name, a_first=float(res.U[0, 0]), a_second=float(res.Vt[0, 0]))
    return BestResponse(against=b.name, strategy=strategy, result=result)
