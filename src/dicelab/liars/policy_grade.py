"""The exact grade of a learned two-player Liar's Dice policy (``dicelab.grade("dicelab/LiarsDice-v0", ...)``).

The environment shows a seat its hand, both dice counts and the standing bid: what a window-1 duel
table holds (:func:`dicelab.liars.lbr.table_policy`). For every duel size the game can reach (each
seat 1 to ``dice`` dice) the policy is asked at every hand and every standing bid, in both seats of
the round, and the table is graded by its exploitability: what a best response gains against it,
``(BR_0 + BR_1) / 2`` with payoff +-1 per round (0 at an equilibrium). Up to 26 bids (2 v 2 with six
faces) it is exact (:func:`dicelab.liars.exact_grade`, a walk of the whole public tree); beyond, local
best response gives a lower bound with a 95% interval (:func:`dicelab.liars.lbr`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.liars.duel import Duel
from dicelab.liars.grading import MAX_EXACT_BIDS, exact_grade
from dicelab.liars.lbr import lbr, table_policy
from dicelab.liars.rules import Bid, LiarsRules

LBR_ROUNDS = 4000


def duel_observations(duel: Duel, rules: LiarsRules) -> tuple[np.ndarray, np.ndarray, list[tuple[int, tuple, int]]]:
    """Every decision of a round of ``duel``, as ``encode`` writes it: ``[hand counts by face...,
    own dice, other's dice, bid quantity, bid face, 1 if the other bid last, 1]``, its action mask
    (0 calls, 1 + r bids rank r) and its key ``(seat, hand, rank of the standing bid or -1)``."""
    F, total = rules.faces, rules.total_dice
    n = sum(duel.dice) * F  # bids a round of this size allows
    obs, masks, keys = [], [], []
    for seat in (0, 1):
        hands, _, _ = duel.hands(seat)
        for hand in hands:
            counts = [0] * F
            for face in hand:
                counts[face - 1] += 1
            for t in range(-1, n):
                q, f = (0, 0) if t < 0 else (t // F + 1, t % F + 1)
                obs.append([*counts, duel.dice[seat], duel.dice[1 - seat], q, f, int(t >= 0), 1])
                m = np.zeros(1 + total * F, np.int8)
                m[0] = t >= 0
                m[1 + t + 1:1 + n] = 1
                masks.append(m)
                keys.append((seat, tuple(hand), t))
    return np.array(obs, np.int64), np.array(masks, np.int8), keys


def duel_grade(duel: Duel, rules: LiarsRules, decide: Any, rounds: int = LBR_ROUNDS, seed: int = 0) -> dict[str, Any]:
    """The grade of the policy in one duel size."""
    obs, masks, keys = duel_observations(duel, rules)
    actions = np.asarray(decide(obs, masks), dtype=np.int64)
    choice = dict(zip(keys, actions.tolist(), strict=True))
    F = rules.faces

    def dist(view: Any) -> dict[Bid | None, float]:
        t = -1 if view.current_bid is None else view.current_bid.rank(F)
        a = choice[(view.player, tuple(view.hand), t)]
        return {None: 1.0} if a == 0 else {Bid.from_rank(a - 1, F): 1.0}

    policy = table_policy(duel, dist, rules, name="policy")
    if duel.n_bids <= MAX_EXACT_BIDS:
        g = exact_grade(policy)
        return {"dice": list(duel.dice), "bids": duel.n_bids, "method": "exact",
                "exploitability": g["exploitability"], "br0": g["br0"], "br1": g["br1"], "value": g["value"]}
    g = lbr(policy, rounds=rounds, seed=seed)
    return {"dice": list(duel.dice), "bids": duel.n_bids, "method": f"local best response, {rounds} rounds a seat "
            "(a lower bound)", "exploitability": g["exploitability_lower"], "ci": g["exploitability_lower_ci"],
            "br0": g["lbr0"], "br1": g["lbr1"]}


def grade(rules: LiarsRules, decide: Any, progress: bool = False) -> dict[str, Any]:
    """The hook behind ``dicelab.grade`` for Liar's Dice (:class:`dicelab.core.registry.Grades`)."""
    from dicelab.core.progress import progress_bar

    require(rules.players == 2, f"exact grading is for duels (two players), got players={rules.players}")
    require(rules.dice <= 5, f"duels are graded up to 5 dice each, got {rules.dice}")
    sizes = [(a, b) for a in range(rules.dice, 0, -1) for b in range(rules.dice, 0, -1)]
    duels = []
    with progress_bar("grading duels", total=len(sizes), enabled=progress) as bar:
        for a, b in sizes:
            duels.append(duel_grade(Duel(dice=(a, b), faces=rules.faces, wild=rules.wild), rules, decide))
            bar.advance()
    head = duels[0]  # the round every game starts with
    return {"kind": "exploitability", "exploitability": head["exploitability"], "method": head["method"],
            "value": head.get("value"), "duels": duels,
            "mean_exploitability": float(np.mean([d["exploitability"] for d in duels]))}


__all__ = ["duel_grade", "duel_observations", "grade"]
