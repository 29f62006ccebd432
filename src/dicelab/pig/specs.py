"""Pig strategy specs: ``optimal``, ``hold:25``, ``keep-pace``, ``best-response:SPEC``,
``file:PATH`` and ranges such as ``hold:1..100``, parsed into strategy objects.

This module sits above the algorithms: ``best-response:SPEC`` needs the exact best response of
:mod:`dicelab.pig.evaluation`, which itself takes strategy objects only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import MAX_DIGITS, check_depth, check_spec, parse_whole, shorten
from dicelab.pig.evaluation import best_response
from dicelab.pig.rules import PigRules
from dicelab.pig.strategies import (
    MAX_HOLD,
    MAX_RANGE,
    HoldAt,
    KeepPace,
    Optimal,
    PigStrategy,
    RollAndWait,
    RollToWin,
    TableStrategy,
    Turtle,
    load_strategy_table,
    to_strategy,
)


@dataclass(eq=False)
class BestResponseStrategy(PigStrategy):
    """``best-response:SPEC``: the exact best response to another strategy."""

    against: PigStrategy | None = None

    def _build(self, rules: PigRules) -> np.ndarray:
        assert self.against is not None
        return best_response(self.against, rules).table



_HELP = (
    "use optimal, hold:N, keep-pace, turtle, roll-to-win, roll-and-wait, "
    "best-response:SPEC or file:PATH"
)


def parse_strategy(spec: str) -> PigStrategy:
    """Parse one strategy spec (``hold:25``, ``keep-pace``, ``file:PATH`` ...) into a strategy."""
    return _parse(check_spec(spec, _HELP), 0)


def _parse(s: str, depth: int) -> PigStrategy:
    check_depth(depth, s)
    low = s.lower()
    if low in ("optimal", "opt"):
        return Optimal("optimal")
    if low == "keep-pace":
        return KeepPace("keep-pace")
    if low == "turtle":
        return Turtle("turtle")
    if low == "roll-to-win":
        return RollToWin("roll-to-win")
    if low == "roll-and-wait":
        return RollAndWait("roll-and-wait")
    if low.startswith("hold:"):
        arg = s[5:]
        require(
            ".." not in arg,
            f"bad strategy {shorten(s)}: a range like hold:1..100 names many "
            "strategies; it is allowed in tournaments only",
        )
        n = parse_whole(arg, f"N in {shorten(s)}", 0, MAX_HOLD)
        return HoldAt(f"hold:{n}", n=n)
    if low.startswith("best-response:"):
        inner = s[len("best-response:") :].strip()
        require(
            inner != "",
            f"bad strategy {shorten(s)}: best-response needs a strategy, "
            "e.g. best-response:hold:20",
        )
        target = _parse(inner, depth + 1)
        return BestResponseStrategy(f"best-response:{target.name}", against=target)
    if low.startswith("file:"):
        path = s[5:]
        require(
            path != "", f"bad strategy {shorten(s)}: file: needs a path to a .csv or .npz table"
        )
        return TableStrategy(f"file:{path}", roll_table=load_strategy_table(path))
    raise DicelabError(f"unknown strategy {shorten(s)}; {_HELP}")


_N = r"([0-9]{1,%d})" % MAX_DIGITS
_RANGE = re.compile(rf"^hold:{_N}\.\.{_N}(?::{_N})?$", re.IGNORECASE)


def expand_specs(specs: Iterable[str]) -> list[str]:
    """Expand ranges (``hold:1..100``, ``hold:10..50:5``) into single specs; others pass through."""
    out: list[str] = []
    for spec in specs:
        s = check_spec(spec, _HELP)
        m = _RANGE.match(s)
        if m is None:
            require(
                ".." not in s,
                f"bad strategy range {shorten(s)}; write hold:A..B or hold:A..B:STEP "
                f"with numbers of at most {MAX_DIGITS} digits",
            )
            out.append(s)
            continue
        a, b = int(m.group(1)), int(m.group(2))
        step = int(m.group(3)) if m.group(3) else 1
        require(a <= b and step >= 1, f"bad strategy range {shorten(s)}: need A <= B and STEP >= 1")
        require(
            (b - a) // step + 1 <= MAX_RANGE,
            f"strategy range {shorten(s)} names more than {MAX_RANGE} strategies",
        )
        out.extend(f"hold:{n}" for n in range(a, b + 1, step))
    return out


def as_strategy(x: Any, name: str | None = None) -> PigStrategy:
    """Turn a spec string, callable, decision table or strategy into a :class:`PigStrategy`."""
    if isinstance(x, str):
        return parse_strategy(x)
    return to_strategy(x, name)


def compile_table(x: Any, rules: PigRules) -> np.ndarray:
    """The decision table of any strategy-like ``x`` for ``rules``."""
    return as_strategy(x).table(rules)
