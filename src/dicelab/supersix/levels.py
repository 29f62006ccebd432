"""Super Six's levels of strength (:mod:`dicelab.core.levels`): the game's own stopping rules and
optimal play, each with its exact strength against optimal play.

With 4 sticks a game is a few turns long and the stopping rules lie close together (stop once 3
pits are filled wins 48.5 % against optimal play, stop at 4 pits 49.97 %), so the ladder has four
levels and no noise: a noisy rule would land between levels that are hardly apart already.
"""

from __future__ import annotations

from typing import Any

from dicelab.core.levels import Level

LADDER = (
    ("Beginner", "stop-at:1", "stops as soon as one pit is filled"),
    ("Casual", "stop-at:2", "stops once two pits are filled"),
    ("Club", "stop-at:3", "stops once three pits are filled"),
    ("Perfect", "optimal", "optimal play (the exact solution)"),
)


def levels(rules: Any) -> list[Level]:
    """The ladder, weakest first (:data:`LADDER`)."""
    return [Level(name, spec, details) for name, spec, details in LADDER]


def measure(rules: Any, progress: bool = False) -> dict[str, Any]:
    """Every level's exact chance to win against optimal play, seats averaged
    (:func:`dicelab.supersix.api.evaluate`)."""
    from dicelab.supersix.api import evaluate

    ladder = levels(rules)
    h = [evaluate(lv.spec, ladder[-1].spec, rules) for lv in ladder]
    return {"strengths": [x.mean for x in h], "intervals": None, "exact": True,
            "method": "exact evaluation of each level against optimal play (dicelab.supersix.api.evaluate)",
            "first": [x.a_first for x in h], "second": [x.a_second for x in h]}
