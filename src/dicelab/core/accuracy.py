"""Accuracy, as chess players know it, for dice games: each decision's loss (the win probability
the coach says it gave away: best value - chosen value) becomes a per-decision accuracy and a
label; a game's accuracy sums up the player's decisions that were real choices.

One source of truth for the review (:mod:`dicelab.web.review`) and "My games":

* :data:`THRESHOLDS`: an inaccuracy gives away over 1 win-percentage point, a mistake over 3, a
  blunder over 8;
* :func:`move_accuracy`: ``100 exp(-loss / 4)``, the loss in percentage points (1 point scores 78,
  3 points 47, 8 points 14);
* :func:`game_accuracy`: as lichess does, the mean of the arithmetic and the harmonic mean of the
  decisions' accuracies (each at least 10 in the harmonic mean), over the *choices*: decisions
  whose best and worst actions differ by more than :data:`CHOICE` (0.1 points; a forced move is
  no choice).

Why (lichess uses 5 / 10 / 15 points and ``103.17 exp(-0.0435 x) - 3.17`` for chess): a dice
game's decisions are worth far less than a chess move, and most of them are easy. There is no
record of human dice play to learn from, so the numbers come from the levels' own play
(:func:`losses`: 200 games of each level against the strongest, docs/methods/levels.md). In Pig
the Beginner level gives away over 5 points in 5 % of its choices and over 10 in 1.5 %; the Strong
level over 5 in 0.1 %: with lichess's thresholds almost nothing would be labelled. At 1 / 3 / 8 the
Strong levels (near-perfect play) have 0.9-3.7 % inaccuracies, at most 0.5 % mistakes and no
blunder, while the Beginners have 20-94 % inaccuracies and 2-50 % blunders. A scale of 4 points and
the harmonic blend spread the levels' mean game accuracies over the scale: Pig 80 / 88 / 95 / 97 /
100, Hog 52 / 69 / 87 / 97 / 100, Super Six 28 / 46 / 85 / 100, simultaneous Pig 68 / 83 / 89 / 99 /
100 (Beginner to Perfect); the plain mean would give Pig's Beginner 88.

>>> label_of(0.005), label_of(0.02), label_of(0.05), label_of(0.2)
(None, 'inaccuracy', 'mistake', 'blunder')
>>> round(move_accuracy(0.0)), round(move_accuracy(0.01)), round(move_accuracy(0.08))
(100, 78, 14)
>>> summary([0.0, 0.0, 0.02, 0.1], [1, 1, 1, 1])["blunders"]
1
>>> round(game_accuracy([0.0, 0.0, 0.0, 0.03]), 1)   # (arithmetic 86.8 + harmonic 78.2) / 2
82.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

# what a decision gave away in win probability, from the worst label down: (label, more than)
THRESHOLDS = (("blunder", 0.08), ("mistake", 0.03), ("inaccuracy", 0.01))
SCALE = 4.0  # percentage points: a decision's accuracy is 100 exp(-loss / SCALE)
CHOICE = 0.001  # a decision whose actions' values span at most this is no choice (win probability)
FLOOR = 10.0  # a decision's accuracy in the harmonic mean is at least this


def label_of(loss: float | None) -> str | None:
    """``blunder`` / ``mistake`` / ``inaccuracy`` by :data:`THRESHOLDS`, None for a good move."""
    if loss is None:
        return None
    return next((name for name, over in THRESHOLDS if loss > over), None)


def move_accuracy(loss: float) -> float:
    """One decision's accuracy in percent from its loss in win probability (0..1)."""
    return 100.0 * math.exp(-100.0 * max(0.0, float(loss)) / SCALE)


def game_accuracy(losses: Sequence[float], spans: Sequence[float] | None = None) -> float | None:
    """The mean of the arithmetic and the harmonic mean of :func:`move_accuracy` over the decisions
    that were choices (``spans``: each decision's best value - worst value; None counts every
    decision), or None without any."""
    acc = np.array([move_accuracy(x) for n, x in enumerate(losses) if spans is None or spans[n] > CHOICE])
    if len(acc) == 0:
        return None
    harmonic = len(acc) / float(np.sum(1.0 / np.maximum(acc, FLOOR)))
    return float((acc.mean() + harmonic) / 2)


def summary(losses: Sequence[float], spans: Sequence[float] | None = None) -> dict[str, Any]:
    """``accuracy`` (None without a choice), the count of each label, ``decisions`` and ``choices``."""
    labels = [label_of(x) for x in losses]
    return {"accuracy": game_accuracy(losses, spans), "decisions": len(losses),
            "choices": sum(1 for n in range(len(losses)) if spans is None or spans[n] > CHOICE),
            "inaccuracies": labels.count("inaccuracy"), "mistakes": labels.count("mistake"),
            "blunders": labels.count("blunder")}


def span_of(values: Sequence[float]) -> float:
    """The best value - the worst value of one decision's coach values."""
    return float(max(values) - min(values)) if values else 0.0


def losses(entry: Any, spec: str, against: str, rules: Any, games: int = 200, seed: int = 0) -> dict[str, Any]:
    """The per-decision losses of the bot ``spec`` against ``against`` (``entry``: a registered
    game whose Play has a win-probability coach), ``games`` games with the seats alternating:
    ``{"losses": [...], "spans": [...], "summary": per-game summaries}`` (what the docs' choice of
    :data:`THRESHOLDS` and :data:`SCALE` rests on)."""
    play = entry.play
    out_l: list[float] = []
    out_s: list[float] = []
    per_game = []
    takes_against = "against" in getattr(play.coach, "__code__", type("x", (), {"co_varnames": ()})).co_varnames
    for g in range(games):
        state = entry.new_game(rules, seed * 100_003 + g)
        me = g % 2
        bots = {me: play.bot(spec, rules, seed=seed + 2 * g) if _seeded(play) else play.bot(spec, rules),
                1 - me: play.bot(against, rules, seed=seed + 2 * g + 1) if _seeded(play) else play.bot(against, rules)}
        gl, gs = [], []
        while not state.is_over:
            seats = state.to_move()
            acts = {s: bots[s].act(state, s) for s in seats}
            if me in seats:
                c = play.coach(state, me, against=against) if takes_against else play.coach(state, me)
                if c and c.get("values"):
                    vals = [float(v["value"]) for v in c["values"]]
                    mine = next(float(v["value"]) for v in c["values"] if _same(v["action"], acts[me]))
                    gl.append(max(0.0, max(vals) - mine))
                    gs.append(span_of(vals))
            state.apply(acts[seats[0]] if len(seats) == 1 else {str(s): a for s, a in acts.items()})
        out_l += gl
        out_s += gs
        per_game.append(summary(gl, gs))
    return {"losses": out_l, "spans": out_s, "games": per_game}


def _seeded(play: Any) -> bool:
    import inspect

    return "seed" in inspect.signature(play.bot).parameters


def _same(a: Any, b: Any) -> bool:
    import json

    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
