"""Hog puzzles: every shipped puzzle's values re-derived by a textbook value iteration written here
(Jacobi sweeps of W[i, j] = max_n sum_o P(n dice score o) x (1 if i + o reaches the goal, else
1 - W[j, i + o]), the turn's law convolved by hand with fractions), which shares nothing with the
solver's closed-form layer roots; the rules of thumb recomputed from their definitions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicelab.core import puzzles as pz


def turn_law(n: int, sides: int = 6) -> list[Fraction]:
    """P(score = o) for n dice: any 1 scores 0, else the sum (enumerated die by die)."""
    dist = {0: Fraction(1)}  # sums of the dice so far, given no 1 yet
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for s, p in dist.items():
            for f in range(2, sides + 1):
                nxt[s + f] = nxt.get(s + f, Fraction(0)) + p / sides
        dist = nxt
    out = [Fraction(0)] * (n * sides + 1)
    for s, p in dist.items():
        out[s] = p
    out[0] = 1 - sum(dist.values())
    return out


def value_iteration(goal: int = 100, max_dice: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(W, Q): W[i, j] the mover's optimal win chance, Q[n - 1, i, j] rolling n dice then optimal
    (Jacobi sweeps; sums by hand, no BLAS, which threads badly on a busy machine)."""
    laws = [[float(p) for p in turn_law(n)] for n in range(1, max_dice + 1)]
    top = 6 * max_dice
    o = np.arange(top + 1)[:, None, None]
    i = np.arange(goal)[None, :, None]
    j = np.arange(goal)[None, None, :]
    won = np.broadcast_to(i + o >= goal, (top + 1, goal, goal))
    where = np.broadcast_to(j * goal + np.minimum(i + o, goal - 1), (top + 1, goal, goal))
    W = np.full((goal, goal), 0.5)
    for _ in range(10_000):
        after = 1.0 - W.ravel().take(where)  # after[o, i, j]: the mover's chance once the turn scored o
        after[won] = 1.0
        Q = np.zeros((max_dice, goal, goal))
        for n, law in enumerate(laws):
            for score, p in enumerate(law):
                if p:
                    Q[n] += p * after[score]
        new = Q.max(axis=0)
        if np.max(np.abs(new - W)) < 1e-14:
            return new, Q
        W = new
    raise AssertionError("no convergence")


def test_shipped_hog_puzzles_agree_with_value_iteration():
    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "hog"]
    assert len(shipped) >= 20
    W, Q = value_iteration()
    assert W[0, 0] == pytest.approx(0.5306649245, abs=1e-9)  # the package's documented opening value
    laws = [turn_law(n) for n in range(1, 11)]
    mean = [sum(o * p for o, p in enumerate(law)) for law in laws]
    six = max(n for n in range(1, 11) if mean[n - 1] == max(mean))  # five and six tie at 8.04
    assert six == 6 and mean[4] == mean[5]
    for p in shipped:
        i, j = p["position"]["i"], p["position"]["j"]
        vals = {m["action"]["dice"]: m["value"] for m in p["moves"]}
        assert sorted(vals) == list(range(1, 11))
        for n, v in vals.items():
            assert v == pytest.approx(Q[n - 1, i, j], abs=1e-9), (p["id"], n)
        best = int(np.argmax(Q[:, i, j])) + 1
        second = float(np.sort(Q[:, i, j])[-2])
        assert p["best"] == {"dice": best} and p["margin"] == pytest.approx(Q[best - 1, i, j] - second, abs=1e-9)
        need = 100 - i
        reach = [sum(law[need:], Fraction(0)) for law in laws]
        goal_rule = six if max(reach) == 0 else 1 + max(range(10), key=lambda n: (reach[n], -n))
        thumbs = [t["action"]["dice"] for t in p["thumbs"]]
        assert thumbs == [six, goal_rule]
        assert p["failed"] == sum(t != best for t in thumbs) >= 1


def test_shipped_hog_whys_give_the_right_chances():
    """The sentence's figures from the turn's law enumerated here: the chance to score nothing and
    the chance to reach what you need this turn, for the best dice count and the rule's; a 'you
    need only' sentence says how often each reaches it (the reason fewer dice win there)."""
    import re

    goal = 100
    laws = {n: turn_law(n) for n in range(1, 11)}

    def reach(n: int, need: int) -> float:
        return float(sum(laws[n][max(need, 1):], Fraction(0)))

    def pct(x: float | Fraction) -> str:
        return f"{100 * float(x):.1f}%"

    for p in (p for p in pz.load()["puzzles"] if p["game"] == "hog"):
        i, j, why = p["position"]["i"], p["position"]["j"], p["why"]
        n = p["best"]["dice"]
        other = next(t["action"]["dice"] for t in p["thumbs"] if not t["right"])
        need = goal - i
        if m := re.match(r"You need (?:only )?(\d+):", why):
            assert int(m.group(1)) == need, why
        if "score nothing just" in why or "scores nothing just" in why:
            assert f"just {pct(laws[n][0])} of the time against {pct(laws[other][0])} with {other}" in why, why
        if "reach it this turn" in why and "more often" not in why:
            assert f"reach it this turn {pct(reach(n, need))} of the time against {pct(reach(other, need))}" in why
        if why.startswith("You need only"):
            assert reach(n, need) >= reach(other, need)
            assert f"more often ({pct(reach(n, need))} against {pct(reach(other, need))})" in why, why
        if m := re.search(r"trail by (\d+)", why):
            assert int(m.group(1)) == j - i, why
