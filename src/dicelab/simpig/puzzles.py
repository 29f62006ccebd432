"""Simultaneous Pig puzzles (:mod:`dicelab.core.puzzles`): which hold-at target to choose, where
the exact game disagrees with a natural rule of thumb.

Positions come from two-player games to 100 between two players of the exact mixed equilibrium
(each draws its target from the equilibrium's mix), at random turns (one in :data:`EMIT`), and
only where the equilibrium plays one target (a mixed position has no single best move: every
target in the mix is worth the same). The value of a target ``k`` is the exact win probability of
holding at ``k`` now against the equilibrium's mix and playing on optimally
(:func:`dicelab.simpig.play.target_values`). The offered moves are the best target and the rules
of thumb's:

* *hold at 25*, the paper's fixed rule (or the whole remaining distance when nearer);
* *hold at 20*, the Pig rule of thumb;
* *go for the goal*: aim for all the points still needed in one turn.

The value of every target (1 to what is still needed) is kept too, as the answer's curve
(``extra["curve"]``, see :mod:`dicelab.core.puzzles`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from dicelab.core.puzzles import Candidate, Move, Thumb

EMIT = 3
SETTINGS = ({"goal": 100, "players": 2},)
AGAINST = "equilibrium"
PURE = 0.999  # the equilibrium's largest weight at a position it plays as one target


def _target_label(k: int, need: int) -> str:
    return f"Go for all {need}" if k >= need else f"Hold at {k}"


class SimPigPuzzles:
    """Simultaneous Pig's :class:`~dicelab.core.puzzles.PuzzleSource`."""

    def settings(self) -> list[dict[str, Any]]:
        return [dict(s) for s in SETTINGS]

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[Candidate]:
        from dicelab.simpig.play import mixture, target_values, turn_distribution

        goal = int(setting["goal"])
        dists: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def turn(k: int) -> int:
            if k not in dists:
                d = turn_distribution(k, goal)
                dists[k] = (np.array([x for x, _ in d]), np.array([p for _, p in d]) / sum(p for _, p in d))
            xs, ps = dists[k]
            return int(xs[int(rng.choice(len(xs), p=ps))])

        def draw_target(own: int, other: int) -> tuple[int, float]:
            comps = mixture(AGAINST, goal, own, [other])
            ws = np.array([w for w, _ in comps])
            pick = int(rng.choice(len(comps), p=ws / ws.sum()))
            return comps[pick][1], float(ws.max() / ws.sum())

        while True:  # games between two equilibrium players
            scores = [0, 0]
            while max(scores) < goal:
                picks = [draw_target(scores[s], scores[1 - s]) for s in (0, 1)]
                for s in (0, 1):
                    if picks[s][1] >= PURE and rng.integers(0, EMIT) == 0:
                        i, j = scores[s], scores[1 - s]
                        yield self._candidate(goal, i, j, target_values(AGAINST, goal, i, j),
                                              mixture(AGAINST, goal, j, [i]))
                scores = [scores[s] + turn(picks[s][0]) for s in (0, 1)]

    def _candidate(self, goal: int, i: int, j: int, q: list[float], theirs: list[tuple[float, int]]) -> Candidate:
        need = goal - i
        best = int(np.argmax(q)) + 1
        thumbs = [Thumb("Hold at 25 (the paper's rule)", {"target": min(25, need)}),
                  Thumb("Hold at 20 (as in Pig)", {"target": min(20, need)}),
                  Thumb("Go for the goal in one turn", {"target": need})]
        offered = sorted({best, *(t.action["target"] for t in thumbs)})
        moves = [Move({"target": k}, _target_label(k, need), float(q[k - 1])) for k in offered]
        board: list[dict[str, Any]] = [
            {"type": "scores", "items": [{"label": "You", "value": i, "goal": goal, "you": True},
                                         {"label": "Opponent", "value": j, "goal": goal, "you": False}]},
            {"type": "facts", "items": [{"label": "You need", "value": str(need)},
                                        {"label": "The opponent needs", "value": str(goal - j)}]},
        ]
        question = (f"Simultaneous Pig to {goal}: you have {i} points and the opponent {j}. You both choose a "
                    f"target in secret and roll until you reach it or roll a 1. Which target do you choose?")
        mix = ", ".join(f"{k} ({100 * w:.0f}%)" for w, k in sorted(theirs, key=lambda x: -x[0]))
        return Candidate(
            game="simpig", setting=f"Simultaneous Pig to {goal}, two players", rules={"goal": goal, "players": 2},
            position={"i": i, "j": j}, question=question, board=board, kind="win probability", moves=moves,
            thumbs=thumbs, why=lambda b, second, wrong: why(goal, i, j, b, second),
            details=(f"state ({i}, {j}); values of holding at each target against the exact mixed equilibrium "
                     f"(Shapley), which here aims for {mix}; best target over all 1..{need}: {best}"),
            extra={"curve": {"title": "Your chance to win for every target", "x_label": "target", "x0": 1,
                             "y": [round(float(v), 5) for v in q]}})


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def why(goal: int, i: int, j: int, best: Move, second: Move) -> str:
    """One plain sentence on why ``best`` is right at ``(i, j)``."""
    from dicelab.simpig.play import turn_distribution

    k = best.action["target"]
    need, their = goal - i, goal - j
    bust = turn_distribution(k, goal)[0][1]
    odds = f"({_pct(best.value)} against {_pct(second.value)} for {second.label.lower()})"
    if k >= need and their <= need:
        return (f"The opponent needs only {their} and may well finish soon, so aim for all {need} you need "
                f"at once, though it succeeds only {_pct(1 - bust)} of the time {odds}.")
    if k >= need:
        return (f"You need {need} and the opponent {their}: aim for all {need} at once, though it succeeds only "
                f"{_pct(1 - bust)} of the time; stopping short gives the opponent more turns to catch up {odds}.")
    if k > 25:
        return (f"Behind by {j - i}, a target of 25 will not catch up in time: aim for {k}, which still "
                f"comes home {_pct(1 - bust)} of the time {odds}." if j > i else
                f"With {need} to go, a target of {k} sets up a finish in few turns while still coming home "
                f"{_pct(1 - bust)} of the time {odds}.")
    if i > j:
        return (f"Ahead by {i - j}, a smaller target of {k} comes home {_pct(1 - bust)} of the time and keeps "
                f"the lead growing {odds}.")
    return (f"With {need} to go, a target of {k} reaches the goal in a few safe steps ({_pct(1 - bust)} of the "
            f"time each) {odds}.")


SOURCE = SimPigPuzzles()
