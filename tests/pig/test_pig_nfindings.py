"""The n-player findings of docs/methods/pig.md (issue 25, item 3) that are cheap to check
independently: the hold-at-N tournament against a reference written here by another method (each
hold:N turn as a distribution of banked points, the game as a Markov chain over start-of-turn
states), and the laws the findings rest on."""

from __future__ import annotations

import numpy as np

from dicelab.pig.nevaluation import best_response_n, evaluate_profile, hold_tournament
from dicelab.pig.rules import PigRules


def turn_outcomes(hold: int, own: int, g: int) -> tuple[float, dict[int, float], float]:
    """A hold:``hold`` turn from banked score ``own`` (standard die): (chance of a 1, chance of
    banking each j, chance of reaching the goal). Forward over the turn total."""
    reach = np.zeros(g + 7)
    reach[0] = 1.0
    bust, win, bank = 0.0, 0.0, {}
    for k in range(g):
        p = reach[k]
        if p == 0.0:
            continue
        if k >= hold and k > 0:
            bank[k] = bank.get(k, 0.0) + p
            continue
        bust += p / 6
        for d in range(2, 7):
            if own + k + d >= g:
                win += p / 6
            else:
                reach[k + d] += p / 6
    return bust, bank, win


def hold_profile_reference(holds: list[int], g: int, tol: float = 1e-15) -> np.ndarray:
    """Every seat's chance from the start when seat m always holds at ``holds[m]`` (seat 0
    first): x[m][s, :] (seat m to move, scores s in seat order) iterated to a fixed point."""
    n = len(holds)
    shape = (g,) * n
    x = [np.zeros(shape + (n,)) for _ in range(n)]
    tabs = []
    for m in range(n):
        bust, bank, win = np.zeros(g), np.zeros((g, g)), np.zeros(g)
        for own in range(g):
            b, banks, w = turn_outcomes(holds[m], own, g)
            bust[own], win[own] = b, w
            for j, p in banks.items():
                bank[own, j] = p
        view = [1] * (n + 1)
        view[m] = g
        tabs.append((bust.reshape(view), bank, win.reshape(view)))
    for _ in range(100_000):
        new = []
        for m in range(n):
            nxt = x[(m + 1) % n]
            bust, bank, win = tabs[m]
            v = bust * nxt
            for j in range(1, g):
                shifted = np.zeros_like(nxt)  # shifted[.., s_m, ..] = nxt[.., s_m + j, ..]
                src = [slice(None)] * (n + 1)
                dst = [slice(None)] * (n + 1)
                src[m], dst[m] = slice(j, g), slice(0, g - j)
                shifted[tuple(dst)] = nxt[tuple(src)]
                view = [1] * (n + 1)
                view[m] = g
                v = v + bank[:, j].reshape(view) * shifted
            v[..., m] += win[..., 0]
            new.append(v)
        step = max(float(np.abs(a - b).max()) for a, b in zip(new, x, strict=True))
        x = new
        if step <= tol:
            return x[0][(0,) * n]
    raise AssertionError("the reference did not converge")


def test_hold_tournament_matches_markov_chain_reference() -> None:
    g = 12
    rules = PigRules(goal=g, players=3)
    t = hold_tournament([3, 5], rules)
    for a, mine in enumerate((3, 5)):
        for b, field in enumerate((3, 5)):
            ref = np.mean([hold_profile_reference([mine if s == seat else field for s in range(3)],
                                                  g)[seat] for seat in range(3)])
            assert abs(t.matrix[a, b] - ref) <= 1e-12
    # the first seat's edge: three hold:5 players at goal 12, seat by seat
    e = evaluate_profile(["hold:5"] * 3, rules)
    assert np.allclose(e.wins, hold_profile_reference([5, 5, 5], g), atol=1e-12)
    assert e.wins[0] > e.wins[1] > e.wins[2]


def test_optimal_gains_over_any_hold_in_its_field() -> None:
    """What the findings call optimal play's gain over a hold:N field: the exact best response to
    the field is at least every fixed strategy's chance there, optimal play's included."""
    rules = PigRules(goal=14, players=4)
    field = ["hold:5"] * 4
    br = best_response_n([None, *field[1:]], 0, rules)
    for mine in ("optimal", "hold:3", "hold:5", "hold:7", "keep-pace"):
        assert br.wins[0] >= evaluate_profile([mine, *field[1:]], rules).wins[0] - 1e-13


def test_hold_race_matches_markov_chain_reference_and_evaluation() -> None:
    from dicelab.pig.nevaluation import hold_race

    for holds in ([3, 5, 4], [4, 4, 2, 6]):
        g = 12 if len(holds) == 3 else 10
        rules = PigRules(goal=g, players=len(holds))
        race = hold_race(holds, rules)
        assert abs(sum(race) - 1.0) <= 1e-14
        assert np.allclose(race, hold_profile_reference(holds, g), atol=1e-13, rtol=0)
        assert np.allclose(race, evaluate_profile([f"hold:{h}" for h in holds], rules).wins,
                           atol=1e-13, rtol=0)
