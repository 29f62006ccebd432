"""Slow exact references for Hog, in rational arithmetic, written apart from the code under test:
the turn distribution by enumerating every roll, optimal play by enumerating each mirror pair's
choices and keeping the one that satisfies the Bellman equations exactly, and fixed-strategy
evaluation by the 2x2 linear systems of each pair."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from dicelab.hog import HogRules, evaluate, solve, turn_distribution


def brute_distribution(n: int, sides: int) -> dict[int, Fraction]:
    """P(score = o) by listing all sides**n rolls."""
    out: dict[int, Fraction] = {}
    w = Fraction(1, sides**n)
    for roll in itertools.product(range(1, sides + 1), repeat=n):
        o = 0 if 1 in roll else sum(roll)
        out[o] = out.get(o, Fraction(0)) + w
    return out


def _dists(max_dice: int, sides: int) -> list[dict[int, Fraction]]:
    return [{}] + [brute_distribution(n, sides) for n in range(1, max_dice + 1)]


def reference_optimal(goal: int, max_dice: int, sides: int) -> dict[tuple[int, int], Fraction]:
    """W[i, j] exactly, by layers of i + j and exact policy enumeration on each mirror pair."""
    D = _dists(max_dice, sides)
    W: dict[tuple[int, int], Fraction] = {}

    def parts(i: int, j: int, n: int) -> tuple[Fraction, Fraction]:
        """(value of the scoring outcomes, P(score 0)) when the mover at (i, j) rolls n dice."""
        a = sum((p * (1 if i + o >= goal else 1 - W[(j, i + o)])
                 for o, p in D[n].items() if o > 0), Fraction(0))
        return a, D[n].get(0, Fraction(0))

    dice = range(1, max_dice + 1)
    for s in range(2 * (goal - 1), -1, -1):
        for i in range(max(0, s - goal + 1), min(s, goal - 1) + 1):
            j = s - i
            if i > j:
                continue
            A = {n: parts(i, j, n) for n in dice}
            if i == j:
                found = set()
                for n in dice:
                    a, p = A[n]
                    x = (a + p) / (1 + p)
                    if all(A[k][0] + A[k][1] * (1 - x) <= x for k in dice):
                        found.add(x)
                assert len(found) == 1, found  # the fixed point is unique
                W[(i, i)] = found.pop()
                continue
            B = {m: parts(j, i, m) for m in dice}
            sols = set()
            for n, m in itertools.product(dice, dice):
                (a, p), (b, q) = A[n], B[m]
                x = (a + p - p * (b + q)) / (1 - p * q)
                y = b + q - q * x
                if all(A[k][0] + A[k][1] * (1 - y) <= x for k in dice) and all(
                    B[k][0] + B[k][1] * (1 - x) <= y for k in dice
                ):
                    sols.add((x, y))
            assert len(sols) == 1, sols
            W[(i, j)], W[(j, i)] = sols.pop()
    return W


def reference_evaluate(goal: int, sides: int, a: Callable[[int, int], int], b: Callable[[int, int], int],
             max_dice: int) -> tuple[Fraction, Fraction]:
    """A's exact win probability moving first and moving second (policies a, b of (own, opp))."""
    D = _dists(max_dice, sides)
    U: dict[tuple[int, int], Fraction] = {}  # A to move, (A's score, B's score)
    V: dict[tuple[int, int], Fraction] = {}  # B to move, (B's score, A's score)
    for s in range(2 * (goal - 1), -1, -1):
        for i in range(max(0, s - goal + 1), min(s, goal - 1) + 1):
            j = s - i
            da, db = D[a(i, j)], D[b(j, i)]
            c = sum((p * (1 if i + o >= goal else V[(j, i + o)]) for o, p in da.items() if o),
                    Fraction(0))
            d = sum((p * (0 if j + o >= goal else U[(i, j + o)]) for o, p in db.items() if o),
                    Fraction(0))
            p, q = da.get(0, Fraction(0)), db.get(0, Fraction(0))
            U[(i, j)] = (c + p * d) / (1 - p * q)
            V[(j, i)] = d + q * U[(i, j)]
    return U[(0, 0)], V[(0, 0)]


# ---------------------------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------------------------



@pytest.mark.parametrize("n,sides", [(1, 6), (2, 6), (3, 6), (4, 6), (3, 4), (5, 2), (2, 9)])
def test_turn_distribution_matches_enumeration(n, sides):
    exact = turn_distribution(n, sides)
    brute = brute_distribution(n, sides)
    assert {o: p for o, p in enumerate(exact) if p} == brute
    assert exact[0] == 1 - Fraction(sides - 1, sides) ** n


@pytest.mark.parametrize("n", range(1, 11))
def test_expected_turn_score_is_published_formula(n):
    # E[score] = n * 4 * (5/6)^n for d6 (each surviving die averages 4)
    mean = sum(o * p for o, p in enumerate(turn_distribution(n, 6)))
    assert mean == n * 4 * Fraction(5, 6) ** n


def test_outcome_table_rows_are_distributions():
    P = HogRules(max_dice=10).outcome_table()
    assert np.allclose(P[1:].sum(axis=1), 1.0, atol=1e-15)


@pytest.mark.parametrize("goal,max_dice,sides", [(6, 3, 6), (10, 3, 6), (12, 4, 6), (9, 3, 4),
                                                 (8, 2, 2)])
def test_solver_matches_rational_reference(goal, max_dice, sides):
    ref = reference_optimal(goal, max_dice, sides)
    sol = solve(HogRules(goal=goal, max_dice=max_dice, sides=sides))
    worst = max(abs(float(v) - sol.W[i, j]) for (i, j), v in ref.items())
    assert worst < 1e-12
    assert sol.max_residual < 1e-12


@pytest.mark.parametrize("na,nb", [(1, 3), (3, 2), (2, 2)])
def test_evaluate_matches_rational_reference(na, nb):
    rules = HogRules(goal=11, max_dice=3)
    ra, rb = reference_evaluate(rules.goal, rules.sides, lambda i, j: na, lambda i, j: nb,
                                rules.max_dice)
    e = evaluate(f"always:{na}", f"always:{nb}", rules)
    assert abs(e.a_first - float(ra)) < 1e-12 and abs(e.a_second - float(rb)) < 1e-12



def test_five_and_six_dice_tie_for_the_best_mean_published():
    # Feldman & Morgan, "The Pedagogy and Probability of the Dice Game HOG", J. Statistics
    # Education 11(2), 2003: the expected score per turn peaks at 5 and 6 dice, about 8.04
    means = {n: sum(o * p for o, p in enumerate(turn_distribution(n, 6))) for n in range(1, 11)}
    best = max(means.values())
    assert [n for n, m in means.items() if m == best] == [5, 6]
    assert round(float(best), 2) == 8.04


def test_coach_values_match_the_rational_reference_at_every_state():
    # the coach's P(win) of each number of dice = one exact step on the reference W
    goal, max_dice, sides = 12, 3, 4
    rules = HogRules(goal=goal, max_dice=max_dice, sides=sides)
    W = reference_optimal(goal, max_dice, sides)
    D = _dists(max_dice, sides)
    from dicelab.core import registry
    from dicelab.hog import new_game

    play = registry.get("hog").play
    state = new_game(rules, seed=0)
    for i in range(goal):
        for j in range(goal):
            state.scores, state.mover = [i, j], 0
            coach = play.coach(state, 0)
            got = [v["value"] for v in coach["values"]]
            want = [sum(p * (1 if i + o >= goal else 1 - W[(j, i + o)]) for o, p in D[n].items())
                    for n in range(1, max_dice + 1)]
            assert got == pytest.approx([float(x) for x in want], abs=1e-12)
            assert max(want) == W[(i, j)]  # Bellman: the best choice is worth W
            best = coach["best"]["dice"]
            assert want[best - 1] == max(want)
            assert play.bot("optimal", rules).act(state, 0)["dice"] in [
                n for n in range(1, max_dice + 1) if want[n - 1] == max(want)]
