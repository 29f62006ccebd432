"""Pig for n players (issue 25): the max-n solver against an independent slow reference, laws,
and two players against today's two-player solver."""

from __future__ import annotations

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.pig.nsolver import NPigSolution, solve_n
from dicelab.pig.rules import PigRules


def reference_value_iteration(n: int, g: int, adds: tuple[tuple[int, float], ...] | None = None,
                              tol: float = 1e-15, max_iter: int = 20_000,
                              fixed: list[np.ndarray | None] | None = None) -> tuple[np.ndarray, int]:
    """Plain value iteration (Jacobi) on the whole state space, written independently here.

    State: every seat's banked score (seat order), the seat to move and the turn total. Value: the
    vector of every seat's chance to win. Rules of issue 25: a 1 loses the turn total and passes
    the turn; reaching the goal wins at once; a turn total of 0 must roll; otherwise the mover
    maximises its own chance and holds on a tie. Returns (V, iterations): V[m, s_0..s_{n-1}, k, :]
    with zeros at non-states. ``adds``: (points, chance) of the faces that add (default: a six-sided
    die, 2..6 each 1/6); the rest of the chance is a 1. ``fixed[m]``: seat m's fixed choices
    instead (a boolean array over (s_0..s_{n-1}, k) in seat order, True = roll), for evaluating
    a profile; None keeps the seat maximising.
    """
    adds = adds or tuple((d, 1 / 6) for d in range(2, 7))
    bust = 1.0 - sum(p for _, p in adds)
    shape = (n,) + (g,) * n + (g, n)
    V = np.zeros(shape)
    grid = np.indices((g,) * n + (g,))
    k = grid[n]
    eye = np.eye(n)
    for it in range(1, max_iter + 1):
        new = np.zeros_like(V)
        for m in range(n):
            nm = (m + 1) % n
            sm = grid[m]
            valid = sm + k < g
            start_next = V[nm][..., 0, :]  # the next seat's start of turn, same scores
            roll = bust * start_next[..., None, :] * np.ones((g, 1))
            for d, p in adds:
                kk = k + d
                win = sm + kk >= g
                cont = np.take_along_axis(V[m], np.minimum(kk, g - 1)[..., None], axis=n)
                roll = roll + p * np.where(win[..., None], eye[m], cont)
            idx = list(grid[:n])
            idx[m] = np.minimum(sm + k, g - 1)
            hold = start_next[tuple(idx)]
            if fixed is not None and fixed[m] is not None:
                take_roll = fixed[m] | (k == 0)
            else:
                take_roll = (roll[..., m] > hold[..., m]) | (k == 0)
            best = np.where(take_roll[..., None], roll, hold)
            new[m] = np.where(valid[..., None], best, 0.0)
        step = np.abs(new - V).max()
        V = new
        if step <= tol:
            return V, it
    raise AssertionError(f"the reference value iteration did not converge (step {step:.2e})")


def mine_by_seat(sol: NPigSolution, V: np.ndarray) -> float:
    """Largest difference between the solver and the reference over every state (all k)."""
    n, g = sol.players, sol.goal
    worst = 0.0
    for s in np.ndindex(*(g,) * n):
        for m in range(n):
            c = tuple(s[(m + r) % n] for r in range(n))
            turn, _ = sol.turn(c)
            ref = V[(m,) + s][: g - s[m]]  # (k, seat)
            mine = np.zeros_like(ref)
            for r in range(n):
                mine[:, (m + r) % n] = turn[:, r]
            worst = max(worst, float(np.abs(mine - ref).max()))
    return worst


@pytest.mark.parametrize(("n", "g"), [(3, 10), (4, 7)])
def test_solver_matches_plain_value_iteration(n: int, g: int) -> None:
    V, iterations = reference_value_iteration(n, g)
    sol = solve_n(PigRules(goal=g, players=n))
    assert sol.max_residual <= 1e-12
    assert len(sol.mixes) == 0  # at these goals every cycle has an equilibrium in pure choices
    assert mine_by_seat(sol, V) <= 1e-11
    # the start: every seat's chance from the reference, in seat order
    assert np.allclose(sol.start(), V[(0,) + (0,) * n + (0,)], atol=1e-11)


def test_piglet_and_other_dice_match_reference() -> None:
    V, _ = reference_value_iteration(3, 8, adds=((1, 0.5),))  # a coin: heads adds 1
    assert mine_by_seat(solve_n(PigRules(goal=8, variant="piglet", players=3)), V) <= 1e-11
    V, _ = reference_value_iteration(3, 9, adds=((2, 0.25), (3, 0.25), (4, 0.25)))
    assert mine_by_seat(solve_n(PigRules(goal=9, sides=4, players=3)), V) <= 1e-11


def test_two_players_equal_todays_solver() -> None:
    from dicelab.pig.solver import solve

    for g in (20, 100):
        old = solve(PigRules(goal=g))
        new = solve_n(PigRules(goal=g, players=2))
        assert np.abs(old.p[:, :, 0] - (1.0 - new.w[0].reshape(g, g))).max() <= 1e-12
        for i in range(0, g, 7):
            for j in range(0, g, 5):
                V, roll = new.turn((i, j))
                assert np.abs(V[:, 0] - old.p[i, j, : g - i]).max() <= 1e-12
                assert np.array_equal(roll >= 0.5, old.roll[i, j, : g - i])


def test_same_answer_on_any_number_of_threads() -> None:
    rules = PigRules(goal=24, players=3)
    one, two = solve_n(rules, threads=1), solve_n(rules, threads=2)
    assert np.array_equal(one.w, two.w) and np.array_equal(one.mixes, two.mixes)


def test_laws_sum_to_one_and_order_of_play() -> None:
    sol = solve_n(PigRules(goal=30, players=4))
    start = sol.start()
    assert abs(sum(start) - 1.0) <= 1e-12
    assert start[0] > start[1] > start[2] > start[3] > 0.0  # earlier seats do better
    for c in [(0, 0, 0, 0), (5, 20, 3, 11), (29, 0, 28, 1)]:
        V, roll = sol.turn(c)
        assert np.allclose(V.sum(axis=1), 1.0, atol=1e-12)
        assert (V >= -1e-15).all() and (V <= 1 + 1e-15).all()
        assert roll[0] == 1.0  # a turn total of 0 must roll
    # a hold value is the next start, turned to the mover's order
    roll_v, hold_v = sol.values((10, 12, 14, 16), 8)
    assert hold_v is not None and abs(hold_v.sum() - 1.0) <= 1e-12
    assert np.allclose(np.roll(hold_v, -1), sol.start_vector((12, 14, 16, 18)))


def test_storage_round_trip(tmp_path) -> None:
    sol = solve_n(PigRules(goal=12, players=3))
    path = sol.save(tmp_path / "n3")
    back = NPigSolution.load(path, PigRules(goal=12, players=3))
    assert np.array_equal(back.w, sol.w) and back.start() == sol.start()
    with pytest.raises(DicelabError):
        NPigSolution.load(path, PigRules(goal=12, players=4))


def test_bad_positions_are_one_line_errors() -> None:
    sol = solve_n(PigRules(goal=10, players=3))
    for scores, k in [((1, 2), 0), ((1, 2, 10), 0), ((9, 0, 0), 1), ((-1, 0, 0), 0)]:
        with pytest.raises(DicelabError) as e:
            sol.win_probabilities(scores, k)
        assert "\n" not in str(e.value)
    with pytest.raises(DicelabError):
        PigRules(players=7)
    with pytest.raises(DicelabError):
        PigRules(players=3, variant="two-dice")


# ---------------------------------------------------------------------------------------------
# profiles: exact evaluation, best response, simulation
# ---------------------------------------------------------------------------------------------


def _seat_rows(n: int, g: int, m: int, rule) -> np.ndarray:
    """Seat m's choices over the state space in seat order, from ``rule(own, others, k)``."""
    out = np.zeros((g,) * n + (g,), dtype=bool)
    for idx in np.ndindex(*(g,) * n + (g,)):
        s, k = idx[:n], idx[n]
        own = s[m]
        if own + k < g:
            out[idx] = rule(own, tuple(s[(m + r) % n] for r in range(1, n)), k)
    return out


def test_profile_evaluation_matches_reference() -> None:
    from dicelab.pig.nevaluation import evaluate_profile

    n, g = 3, 9

    def lead_rule(own, others, k):  # a callable strategy: race the leader
        return k < 3 + max(0, max(others) - own) // 2

    rules = [lambda o, x, k: k < 4, lambda o, x, k: k < 6, lead_rule]
    fixed = [_seat_rows(n, g, m, rules[m]) for m in range(n)]
    V, _ = reference_value_iteration(n, g, fixed=fixed)
    e = evaluate_profile(["hold:4", "hold:6", lead_rule], PigRules(goal=g, players=n))
    assert np.allclose(e.wins, V[(0,) + (0,) * n + (0,)], atol=1e-12)
    assert abs(sum(e.wins) - 1.0) <= 1e-12
    # one strategy in every seat is solved mover first (one table): the same numbers
    V, _ = reference_value_iteration(n, g, fixed=[_seat_rows(n, g, m, rules[2]) for m in range(n)])
    e = evaluate_profile([lead_rule] * n, PigRules(goal=g, players=n))
    assert np.allclose(e.wins, V[(0,) + (0,) * n + (0,)], atol=1e-12)


def test_two_players_profile_equals_seed_002_and_todays_evaluation() -> None:
    from dicelab.pig import evaluate
    from dicelab.pig.nevaluation import best_response_n, evaluate_profile

    rules = PigRules(goal=100)
    e = evaluate_profile(["hold:20", "hold:21"], rules)
    assert round(e.wins[0], 4) == 0.5426  # seed 002, Figure 17: hold:20 first against hold:21
    old = evaluate("hold:20", "hold:21", rules)
    assert abs(e.wins[0] - old.a_first) <= 1e-12
    e = evaluate_profile(["keep-pace", "optimal"], rules)
    assert abs(e.wins[0] - evaluate("keep-pace", "optimal", rules).a_first) <= 1e-12
    from dicelab.pig import best_response

    br = best_response_n([None, "hold:25"], 0, rules)
    assert abs(br.wins[0] - best_response("hold:25", rules).result.a_first) <= 1e-12


def test_optimal_profile_and_best_response_laws() -> None:
    from dicelab.pig.nevaluation import best_response_n, evaluate_profile

    rules = PigRules(goal=25, players=3)
    sol = solve_n(rules)
    e = evaluate_profile(["optimal"] * 3, rules)
    assert np.allclose(e.wins, sol.start(), atol=1e-13)
    # optimal play is a best response to optimal play (the max-n solution is an equilibrium)
    for seat in range(3):
        br = best_response_n(["optimal"] * 3, seat, rules)
        assert abs(br.wins[seat] - sol.start()[seat]) <= 1e-12
    # a best response does at least as well as any strategy in its seat
    field = [None, "hold:20", "keep-pace"]
    br = best_response_n(field, 0, rules)
    for mine in ("optimal", "hold:10", "hold:20", "keep-pace", "turtle"):
        assert br.wins[0] >= evaluate_profile([mine, *field[1:]], rules).wins[0] - 1e-13
    # and its table, played as a fixed strategy, is worth what the best response promised
    e = evaluate_profile([br.table.reshape((25,) * 4), *field[1:]], rules)
    assert np.allclose(e.wins, br.wins, atol=1e-12)


def test_simulation_agrees_with_exact_evaluation() -> None:
    from dicelab.pig.nsimulation import simulate_n

    rules = PigRules(goal=40, players=3)
    r = simulate_n(["optimal", "hold:15", "keep-pace"], rules, games=40_000, seed=3,
                   confidence=0.999)
    assert r.inside == (True,) * 3 and sum(r.wins) == 40_000
    r4 = simulate_n(["hold:8", "hold:15", "keep-pace", "turtle"], PigRules(goal=20, players=4),
                    games=40_000, seed=5, confidence=0.999)
    assert r4.inside == (True,) * 4
    again = simulate_n(["optimal", "hold:15", "keep-pace"], rules, games=40_000, seed=3,
                       exact=False)
    assert again.wins == r.wins  # the same seed plays the same games


def test_hold_tournament_laws() -> None:
    from dicelab.pig.nevaluation import hold_tournament

    t = hold_tournament([4, 8, 12], PigRules(goal=20, players=3))
    assert np.allclose(np.diag(t.matrix), 1 / 3)  # against its own field a strategy gets its share
    assert t.best_reply and set(t.best_reply) <= {4, 8, 12}


def test_the_small_linear_solver_agrees_with_lapack():
    # the mixing weights' Newton step solves its small systems by hand (no LAPACK compile); checked
    # against numpy's LAPACK on random and nearly singular systems
    from dicelab.pig.nkernels import _gauss_solve

    rng = np.random.default_rng(7)
    for n in range(1, 7):
        for _ in range(20):
            A = rng.normal(size=(n, n))
            b = rng.normal(size=n)
            x = np.empty(n)
            assert _gauss_solve(A, b, x)
            assert np.allclose(x, np.linalg.solve(A, b), rtol=1e-9, atol=1e-9)
    S = np.array([[1.0, 2.0], [2.0, 4.0]])  # singular: refused
    assert not _gauss_solve(S, np.ones(2), np.empty(2))


def max_n_bellman_gap(sol: NPigSolution, sides: int, mix_shift: float = 0.0) -> tuple[float, int]:
    """Independent check that a solution is a fixed point of the max-n operator, mixes allowed.

    From the solver's stored start-of-turn vectors only, every turn is recomputed here backwards
    over the turn total, for all score tuples at once (mover first): a 1 passes the turn with the
    scores unchanged, a face of ``2..sides`` adds, reaching the goal wins, a hold banks and passes.
    The mover takes the better of roll and hold for itself; where they are within 1e-12 it may
    take either or mix, and the solver's listed mix (``mixes``, shifted by ``mix_shift``) or
    choice is used. Returns (largest gap between the recomputed and the stored start vectors,
    mixed positions where the mover is not indifferent).
    """
    n, g = sol.players, sol.goal
    adds = [(d, 1.0 / sides) for d in range(2, sides + 1)]
    bust = 1.0 / sides
    N = g ** n
    S = np.empty((N, n))
    S[:, 1:] = sol.w.T
    S[:, 0] = 1.0 - S[:, 1:].sum(axis=1)
    digits = np.array(np.unravel_index(np.arange(N), (g,) * n)).T
    c0 = digits[:, 0]
    turned = np.roll(digits, -1, axis=1)  # (c_1, ..., c_{n-1}, c_0): after a 1
    after_one = np.roll(S[np.ravel_multi_index(tuple(turned.T), (g,) * n)], 1, axis=1)
    table = sol.decision_table()
    mixes: dict[int, list[tuple[int, float]]] = {}
    for _, idx, k, p in sol.mixes:
        mixes.setdefault(int(k), []).append((int(idx), float(p) + mix_shift))
    win = np.zeros(n)
    win[0] = 1.0
    V = np.zeros((g, N, n))
    not_indifferent = 0
    for k in range(g - 1, -1, -1):
        valid = c0 + k <= g - 1
        roll = bust * after_one
        for d, p in adds:
            done = c0 + k + d >= g
            roll = roll + p * np.where(done[:, None], win, V[min(k + d, g - 1)])
        if k == 0:
            V[0] = np.where(valid[:, None], roll, 0.0)
            continue
        target = turned.copy()
        target[:, -1] = np.minimum(c0 + k, g - 1)
        hold = np.roll(S[np.ravel_multi_index(tuple(target.T), (g,) * n)], 1, axis=1)
        diff = roll[:, 0] - hold[:, 0]
        chance = np.where(np.abs(diff) <= 1e-12, table[:, k], diff > 0).astype(float)
        for idx, p in mixes.get(k, []):
            chance[idx] = p
            not_indifferent += int(abs(diff[idx]) > 1e-12)
        V[k] = np.where(valid[:, None], chance[:, None] * roll + (1 - chance[:, None]) * hold, 0.0)
    return float(np.abs(V[0] - S).max()), not_indifferent


def test_a_cycle_whose_equilibrium_mixes_twice_is_solved():
    # 3 players, a 4-sided die, goal 43: the smallest case where the cycle of scores (0, 13, 30)
    # has no equilibrium in pure choices and two movers must mix, the one on 0 at turn total 20
    # with a chance of rolling close to 1 (0.99769). The solver used to stop at residual 5.2e-8
    # there (its Newton step read the slope of the weights from outside [0, 1]) and refused.
    rules = PigRules(goal=43, players=3, sides=4)
    sol = solve_n(rules)
    assert sol.max_residual <= 1e-12
    mixed = {(int(i), int(k)): p for _, i, k, p in sol.mixes}
    at = int(np.ravel_multi_index((0, 13, 30), (43,) * 3))
    assert 0.99 < mixed[(at, 20)] < 1.0
    gap, not_indifferent = max_n_bellman_gap(sol, 4)
    assert gap <= 1e-12 and not_indifferent == 0
    assert abs(sum(sol.start()) - 1.0) <= 1e-12
    # the check can fail: the same solution with its mixes moved by 0.01 is no fixed point
    gap, _ = max_n_bellman_gap(sol, 4, mix_shift=-0.01)
    assert gap > 1e-6
