"""Super Six solver: seed 001's published numbers, slow independent references, and laws."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicelab import supersix as ss
from dicelab.supersix.rules import SuperSixRules
from dicelab.supersix.solver import SuperSixSolution, solve_maxn, solve_two

# Seed 001, Results table (n = 7): i, j, k, l, prob, strategy.
SEED_TABLE = [
    (5, 1, 1, 1, 0.4512917, True), (5, 1, 1, 0, 0.5487083, False),
    (4, 2, 1, 1, 0.3185117, True), (4, 2, 1, 0, 0.3415501, False),
    (4, 1, 2, 1, 0.6584499, True), (4, 1, 2, 0, 0.6814883, False),
    (4, 1, 1, 1, 0.5242297, True), (4, 1, 1, 0, 0.5242297, True),
    (3, 3, 1, 1, 0.2362578, True), (3, 3, 1, 0, 0.2362578, True),
    (3, 2, 2, 1, 0.5123251, True), (3, 2, 2, 0, 0.5123251, True),
    (3, 2, 1, 1, 0.3613104, True), (3, 2, 1, 0, 0.3613104, True),
    (3, 1, 3, 1, 0.7904670, True), (3, 1, 3, 0, 0.7904670, True),
    (3, 1, 2, 1, 0.7136555, True), (3, 1, 2, 0, 0.7136555, True),
    (3, 1, 1, 1, 0.6125487, True), (3, 1, 1, 0, 0.6125487, True),
]
SEED_VALUES = {(5, 1, 1, 1): -0.09741652, (4, 2, 1, 0): -0.31689982, (3, 1, 3, 0): 0.58093392}


@pytest.fixture(scope="module")
def sol4() -> SuperSixSolution:
    return solve_two(SuperSixRules(sticks=4))


@pytest.mark.parametrize(("i", "j", "k", "l", "prob", "throw"), SEED_TABLE)
def test_seed_001_table(sol4, i, j, k, l, prob, throw):
    assert sol4.win_probability(i, j, k, l) == pytest.approx(prob, abs=5e-8)
    assert (sol4.action(i, j, k, l) == "throw") is throw


def test_seed_001_values_and_table_rows(sol4):
    rows = {(r["lid"], r["own"], r["opponent"], r["forced"]): r for r in sol4.table(3)}
    for key, v in SEED_VALUES.items():
        assert rows[key]["value"] == pytest.approx(v, abs=5e-9)
    # "With less than 3 sticks the decision is always to continue throwing" (seed 001, n = 7).
    for r in sol4.table(0):
        if r["lid"] < 3 and r["lid"] + r["own"] + r["opponent"] <= 7:
            assert r["throw"]


def test_start_player_seed_001(sol4):
    assert round(sol4.start_player_win(), 3) == 0.602
    assert sol4.max_residual < 1e-14


# -- slow independent references ---------------------------------------------------------------


def seed_value_iteration(n: int, eps: float = 1e-13) -> dict[tuple[int, int, int, int], float]:
    """Seed 001's algorithm, plainly: synchronous value iteration on U = 2 p - 1 over i/j/k/l."""
    states = [(i, j, k, l) for i in range(6) for j in range(1, n) for k in range(1, n)
              for l in (0, 1) if i + j + k <= n]
    U = {s: 0.0 for s in states}

    def R(s):
        return 1 if s[1] == 0 else (-1 if s[2] == 0 else 0)

    def u(s):
        return 0.0 if s[1] == 0 or s[2] == 0 else U[s]

    while True:
        new, delta = {}, 0.0
        for s in states:
            i, j, k, l = s
            six, free, occ, swp = (i, j - 1, k, 0), (i + 1, j - 1, k, 0), (i - 1, k, j + 1, 1), (i, k, j, 1)
            q = (R(six) + u(six)) / 6 + ((5 - i) / 6 * (R(free) + u(free)) if i < 5 else 0)
            q += i / 6 * (R(occ) - u(occ)) if i > 0 else 0
            v = q if l == 1 else max(q, -(R(swp) + u(swp)))
            new[s] = v
            delta = max(delta, abs(v - U[s]))
        U = new
        if delta <= eps:
            return {s: (v + 1) / 2 for s, v in U.items()}


def test_fast_solver_matches_seed_algorithm():
    ref = seed_value_iteration(7)
    sol = solve_two(SuperSixRules(sticks=4))
    for (i, j, k, l), p in ref.items():
        assert sol.win_probability(i, j, k, l) == pytest.approx(p, abs=1e-11)


def _fraction_solve(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    n = len(b)
    M = [row[:] + [b[r]] for r, row in enumerate(A)]
    for c in range(n):
        p = next(r for r in range(c, n) if M[r][c] != 0)
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[r][n] / M[r][r] for r in range(n)]


def test_exact_rational_solution_at_three_sticks():
    """Rational policy evaluation of the solver's policy, then an exact check of optimality.

    Every Bellman inequality is checked in exact arithmetic, so the rational values are the
    optimal values (unique fixed point), and the float solver must agree with them to rounding.
    """
    n = 6
    sol = solve_two(SuperSixRules(sticks=3))
    states = [(i, j, k, l) for i in range(6) for j in range(1, n) for k in range(1, n)
              for l in (0, 1) if i + j + k <= n]
    ix = {s: r for r, s in enumerate(states)}
    sixth = Fraction(1, 6)
    A = [[Fraction(0)] * len(states) for _ in states]
    b = [Fraction(0)] * len(states)

    def add(r, s, w):  # term w * p(s), p = mover's win probability of s (1 if the mover won)
        if s[1] == 0:
            b[r] += w
        else:
            A[r][ix[s]] -= w

    def add_opp(r, s, w):  # term w * (1 - p(s)) for the opponent's position s
        b[r] += w
        A[r][ix[s]] += w

    for s, r in ix.items():
        i, j, k, l = s
        A[r][r] += 1
        if l == 0 and not sol.throw[i, j, k]:
            add_opp(r, (i, k, j, 1), Fraction(1))
            continue
        add(r, (i, j - 1, k, 0), sixth)
        if i < 5:
            add(r, (i + 1, j - 1, k, 0), (5 - i) * sixth)
        if i > 0:
            add_opp(r, (i - 1, k, j + 1, 1), i * sixth)
    x = dict(zip(states, _fraction_solve(A, b)))

    def p(s):
        return Fraction(1) if s[1] == 0 else x[s]

    for (i, j, k, l), v in x.items():
        throw = sixth * p((i, j - 1, k, 0)) + ((5 - i) * sixth * p((i + 1, j - 1, k, 0)) if i < 5 else 0)
        throw += i * sixth * (1 - x[(i - 1, k, j + 1, 1)]) if i > 0 else 0
        best = throw if l == 1 else max(throw, 1 - x[(i, k, j, 1)])
        assert v == best  # exact Bellman optimality
        assert float(v) == pytest.approx(sol.win_probability(i, j, k, l), abs=1e-14)
    assert x[(0, 1, 1, 1)] == Fraction(1) and 0 < x[(4, 1, 1, 1)] < 1


# -- laws ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("sticks", [1, 2, 5, 12])
def test_probabilities_and_symmetry_laws(sticks):
    rules = SuperSixRules(sticks=sticks)
    sol = solve_two(rules)
    ok = ~np.isnan(sol.free)
    assert np.all((sol.free[ok] >= 0) & (sol.free[ok] <= 1)) and np.all(sol.forced[ok] <= sol.free[ok] + 1e-15)
    h = ss.evaluate("optimal", "optimal", rules)
    assert h.a_first == pytest.approx(sol.start_player_win(), abs=1e-12)
    assert h.a_first + h.a_second == pytest.approx(1.0, abs=1e-12) and h.mean == pytest.approx(0.5)
    if sticks == 1:
        assert sol.start_player_win() == 1.0


def test_start_player_edge_up_to_thirty():
    edges = [solve_two(SuperSixRules(sticks=s)).start_player_win() for s in (2, 4, 10, 20, 30)]
    assert all(a > b > 0.5 for a, b in zip(edges, edges[1:]))  # the edge shrinks but stays
    sol = solve_two(SuperSixRules(sticks=30))
    assert sol.max_residual < 1e-13 and sol.n_states() > 19_000


@pytest.mark.parametrize("other", ["always", "stop-at:1", "stop-at:3", "stop-at:4", "stop-at:5"])
def test_optimal_beats_or_ties_every_named_strategy(other):
    rules = SuperSixRules(sticks=4)
    h = ss.evaluate("optimal", other, rules)
    assert h.mean >= 0.5 - 1e-12
    # A-first of (A, B) and B-first of (B, A) describe the same games from the two sides.
    g = ss.evaluate(other, "optimal", rules)
    assert h.a_first == pytest.approx(1.0 - g.a_second, abs=1e-12)
    assert h.a_second == pytest.approx(1.0 - g.a_first, abs=1e-12)


def test_python_callable_equals_named_threshold():
    rules = SuperSixRules(sticks=5)
    a = ss.evaluate(lambda lid, own, others: lid < 4, "always", rules)
    b = ss.evaluate("stop-at:4", "always", rules)
    assert (a.a_first, a.a_second) == (b.a_first, b.a_second)  # the names differ, the numbers not


def test_simulation_agrees_with_exact_head_to_head():
    rules = SuperSixRules(sticks=4)
    exact = ss.evaluate("always", "stop-at:3", rules)
    res = ss.simulate(["always", "stop-at:3"], rules, games=3000, seed=5, confidence=0.99)
    a = res["results"][0]
    assert a["ci_low"] <= exact.a_first <= a["ci_high"]
    assert res == ss.simulate(["always", "stop-at:3"], rules, games=3000, seed=5, confidence=0.99)
    rot = ss.simulate(["always", "stop-at:3"], rules, games=3000, seed=6, confidence=0.99, rotate=True)
    assert rot["results"][0]["ci_low"] <= exact.mean <= rot["results"][0]["ci_high"]


# -- more players (max-n) ------------------------------------------------------------------------


def test_maxn_with_two_players_is_the_two_player_optimum():
    rules = SuperSixRules(sticks=3)
    m, s = solve_maxn(rules), solve_two(rules)
    assert m.converged
    for st, v in zip(m.states, m.free):
        assert v[0] == pytest.approx(s.free[tuple(st)], abs=1e-12)
    assert m.start_order_wins()[0] == pytest.approx(s.start_player_win(), abs=1e-12)


@pytest.mark.parametrize(("players", "sticks"), [(3, 2), (3, 3), (4, 2)])
def test_maxn_laws(players, sticks):
    m = solve_maxn(SuperSixRules(sticks=sticks, players=players))
    assert m.converged and m.max_delta < 1e-13
    assert np.allclose(m.free.sum(axis=1), 1.0, atol=1e-12)
    assert np.allclose(m.forced.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(m.free >= -1e-15) and np.all(m.free <= 1 + 1e-15)
    wins = m.start_order_wins()
    assert sum(wins) == pytest.approx(1.0, abs=1e-12)
    assert wins[0] == max(wins)  # the start player keeps an edge


def test_maxn_simulation_agrees():
    rules = SuperSixRules(sticks=2, players=3)
    wins = solve_maxn(rules).start_order_wins()
    res = ss.simulate(["optimal"] * 3, rules, games=3000, seed=2, confidence=0.99)
    for w, r in zip(wins, res["results"]):
        assert r["ci_low"] <= w <= r["ci_high"]


def test_save_load_roundtrip(tmp_path):
    sol = solve_two(SuperSixRules(sticks=3))
    sol.save(tmp_path / "s6")
    back = SuperSixSolution.load(tmp_path / "s6")
    assert np.array_equal(back.throw, sol.throw) and np.allclose(back.free, sol.free, equal_nan=True)
    assert back.start_player_win() == sol.start_player_win()


@pytest.mark.parametrize("other", ["optimal", "always", "stop-at:2", "stop-at:5"])
def test_best_response_laws(other):
    rules = SuperSixRules(sticks=4)
    br = ss.best_response(other, rules)
    strat, h = br.strategy, br.result
    again = ss.evaluate(strat, other, rules)  # the reported result is the reply's real result
    assert (again.a_first, again.a_second) == (h.a_first, h.a_second)
    assert h.mean >= ss.evaluate("optimal", other, rules).mean - 1e-12
    for named in ("always", "stop-at:3", "stop-at:4"):  # no named strategy does better
        assert h.mean >= ss.evaluate(named, other, rules).mean - 1e-12
    if other == "optimal":  # the optimum is an equilibrium: no reply beats it
        assert h.mean == pytest.approx(0.5, abs=1e-12)
