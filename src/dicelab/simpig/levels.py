"""Simultaneous Pig's levels of strength (:mod:`dicelab.core.levels`): hold-at rules with a little
noise (a different target at random each turn: ``mix:``), the exact best reply to hold at 25, and
the exact mixed equilibrium; each level's exact strength against the equilibrium.

Both players choose at once, so the seats are alike: a level's strength is its share of the win
(a tie counts half) against the equilibrium from the start, exactly
(:func:`dicelab.simpig.api.evaluate`), mixed choices included. No level can beat the equilibrium:
its strength is at most 1/2.
"""

from __future__ import annotations

import re
from typing import Any

from dicelab.core.levels import Level

LADDER = (
    ("Beginner", "mix:0.5*hold:8+0.5*hold:14", "aims for a turn total of 8 or 14, at random each turn"),
    ("Casual", "mix:0.5*hold:13+0.5*hold:19", "aims for a turn total of 13 or 19, at random each turn"),
    ("Club", "mix:0.2*hold:15+0.6*hold:20+0.2*hold:25", "aims for 20 most turns, 15 or 25 now and then"),
    ("Strong", "br:hold:25", "the exact best reply to a player who holds at 25"),
    ("Perfect", "equilibrium", "the exact mixed equilibrium: no reply beats it"),
)


def levels(rules: Any) -> list[Level]:
    """The ladder, weakest first (:data:`LADDER`); a ``hold:N`` above the goal aims at the goal."""
    return [Level(name, _fit(spec, rules.goal), details) for name, spec, details in LADDER]


def _fit(spec: str, goal: int) -> str:
    """``spec`` with every hold-at target above ``goal`` brought down to it; a mix whose targets
    then coincide adds their weights (``mix:0.6*hold:20+0.4*hold:20`` is ``hold:20``)."""
    def hold(m: re.Match[str]) -> str:
        return f"hold:{min(int(m.group(1)), goal)}"

    if not spec.startswith("mix:"):
        return re.sub(r"hold:(\d+)", hold, spec)
    weights: dict[str, float] = {}
    for term in spec[len("mix:"):].split("+"):
        w, part = term.split("*", 1)
        part = re.sub(r"hold:(\d+)", hold, part)
        weights[part] = weights.get(part, 0.0) + float(w)
    if len(weights) == 1:
        return next(iter(weights))
    return "mix:" + "+".join(f"{round(w, 12):g}*{part}" for part, w in weights.items())


def measure(rules: Any, progress: bool = False) -> dict[str, Any]:
    """Every level's exact share of the win against the equilibrium (two players)."""
    from dicelab.simpig.api import evaluate
    from dicelab.simpig.rules import SimPigRules

    two = SimPigRules(goal=rules.goal, players=2)
    ladder = levels(two)
    shares = [float(evaluate(lv.spec, ladder[-1].spec, two)[0, 0]) for lv in ladder]
    return {"strengths": shares, "intervals": None, "exact": True,
            "method": "exact evaluation of each level's mixed strategy against the equilibrium, two players "
                      "(dicelab.simpig.api.evaluate); a tie counts half"}
