"""The exact grade of a learned two-player Super Six policy (``dicelab.grade("dicelab/SuperSix-v0", ...)``).

The policy is asked at every free decision ``[lid, 0, own sticks, opponent's sticks]`` (forced throws
have one legal action); its table is evaluated against optimal play (:func:`dicelab.supersix.evaluate`,
round 1 as in seed 001), each decision's loss comes from the optimal values of throwing and stopping
(:meth:`SuperSixSolution.values`), and the expected visits from one sparse solve of the absorbing chain
of positions (:mod:`dicelab.core.markov`), starting from the round-1 outcomes (``rules.opening()``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.grades import loss_summary, win_grade
from dicelab.core.markov import Chain
from dicelab.supersix.rules import PITS, SuperSixRules

WIN_A, WIN_B = 0, 1


def positions(rules: SuperSixRules) -> list[tuple[int, int, int]]:
    """Every two-player position ``(lid, mover's sticks, opponent's sticks)``."""
    n = rules.total
    return [(i, m, o) for i in range(PITS + 1) for m in range(1, n + 1) for o in range(1, n - m - i + 1)]


def visits(throw: np.ndarray, opponent: np.ndarray, rules: SuperSixRules, first: bool
           ) -> tuple[dict[tuple[int, int, int], float], float, float]:
    """Expected visits of A's free decisions (A plays ``throw[lid, own, opp]``, B ``opponent``), and
    each side's win probability."""
    pos = positions(rules)
    index: dict[tuple[int, int, int, int, int], int] = {}
    for who in (0, 1):
        for forced in (0, 1):
            for p in pos:
                index[(who, forced, *p)] = len(index)
    chain = Chain(len(index), 2)
    for (who, forced, i, m, o), s in index.items():
        table = throw if who == 0 else opponent
        six, free = 1.0 / 6.0, (PITS - i) / 6.0
        filled = i / 6.0
        go = 1.0 if forced or table[i, m, o] else 0.0
        if go < 1.0:  # stop: the other player throws from (i, o, m)
            chain.move(s, index[(1 - who, 1, i, o, m)], 1.0)
            continue
        for q, di in ((six, 0), (free, 1)):
            if q == 0.0:
                continue
            if m - 1 == 0:
                chain.end(s, WIN_A if who == 0 else WIN_B, q)
            else:
                chain.move(s, index[(who, 0, i + di, m - 1, o)], q)
        if filled > 0:
            chain.move(s, index[(1 - who, 1, i - 1, o, m + 1)], filled)
    start = np.zeros(len(index))
    win_a = win_b = 0.0
    for p, lid, counts, winner in rules.opening():
        if winner is not None:
            a_won = (winner == 0) == first
            win_a, win_b = win_a + float(p) * a_won, win_b + float(p) * (not a_won)
            continue
        start[index[(0 if first else 1, 1, lid, counts[0], counts[1])]] += float(p)
    v, absorbed = chain.solve(start)
    free_a = {p: float(v[index[(0, 0, *p)]]) for p in pos}
    return free_a, win_a + float(absorbed[WIN_A]), win_b + float(absorbed[WIN_B])


def grade(rules: SuperSixRules, decide: Any, progress: bool = False) -> dict[str, Any]:
    """The hook behind ``dicelab.grade`` for Super Six (:class:`dicelab.core.registry.Grades`)."""
    from dicelab.supersix.api import evaluate
    from dicelab.supersix.solver import solve_two_cached

    require(rules.players == 2, f"exact grading is for two players, got players={rules.players}")
    pos = positions(rules)
    obs = np.array([(i, 0, m, o) for i, m, o in pos], dtype=np.int64)
    actions = np.asarray(decide(obs, np.ones((len(obs), 2), np.int8)), dtype=np.int64)  # 0 stops, 1 throws
    n = rules.total
    throw = np.zeros((PITS + 1, n + 1, n + 1), dtype=np.bool_)
    for (i, m, o), a in zip(pos, actions.tolist(), strict=True):
        throw[i, m, o] = a == 1
    sol = solve_two_cached(rules)
    loss = np.zeros(len(pos))
    for r, (i, m, o) in enumerate(pos):
        t, s = sol.values(i, m, o)
        loss[r] = max(max(t, s) - (t if throw[i, m, o] else s), 0.0)
    e = evaluate(lambda lid, own, others: bool(throw[lid, own, others[0]]), "optimal", rules)
    seats = []
    for first in (True, False):
        va, wa, _ = visits(throw, sol.throw, rules, first)
        seats.append(loss_summary(np.array([va[p] for p in pos]), loss, wa))
    w = sol.start_player_win()

    def describe(r: int) -> dict[str, Any]:
        i, m, o = pos[r]
        act = "throw" if throw[i, m, o] else "stop"
        best = sol.action(i, m, o)
        return {"lid": i, "own": m, "opponent": o, "action": act, "best": best,
                "text": f"chose to {act} at {i}/{m}/{o} (lid/own/opponent); optimal play would {best}"}

    return win_grade(e.a_first, e.a_second, w, 1.0 - w, seats, describe, decisions=len(obs))


__all__ = ["grade", "positions", "visits"]
