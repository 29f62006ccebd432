"""Issue 26, item 2: re-solving a window policy from the exact ranges at every decision.

References from outside the code under test: the exact solver's evaluator
(``cfr.evaluate_profile``, a perfect-recall best response on the full tree), the depth-first
grader (``grading.exact_grade``), the training driver (``duel.train_duel``: the same CFR run from
the root must give the same strategy), brute-force enumeration of bid sequences, and laws (each
strategy sums to one; a depth-limited subgame whose frontier holds the policy's own values gives
the policy's value).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.liars.duel import Duel, build_dag, train_duel
from dicelab.liars.grading import exact_grade, grade_with_tree
from dicelab.liars.resolve import (
    _node_values,
    _response_values,
    blueprint_values,
    resolve_profile,
    solve_subgame,
    sub_dag,
)


def _hands(duel: Duel):
    _, p0, c0 = duel.hands(0)
    _, p1, c1 = duel.hands(1)
    return (p0, p1), (c0, c1)


@pytest.mark.parametrize("window,depth", [(2, None), (3, None), (2, 1), (2, 2), (3, 2), (3, 3)])
def test_the_subgame_holds_every_node_reachable_from_its_root(window, depth):
    n = 9
    dag = build_dag(n, window)
    rng = np.random.default_rng(window * 10 + (depth or 0))
    for _ in range(12):
        k = int(rng.integers(0, 5))
        hist = sorted(rng.choice(n - 1, size=k, replace=False).tolist())
        root = dag.node_of(k % 2, hist)
        sub = sub_dag(dag, root, depth)
        top = hist[-1] if hist else -1
        want, edge = set(), set()
        for j in range((depth if depth is not None else n) + 1):
            for more in itertools.combinations(range(top + 1, n), j):
                node = dag.node_of((k + j) % 2, hist + list(more))
                want.add(node)
                if depth is not None and j == depth:
                    edge.add(node)
        assert set(sub.nodes.tolist()) == want
        assert set(sub.nodes[sub.frontier].tolist()) == edge
        assert sub.nodes[0] == root
        # children keep their meaning: local child of a local node is the DAG's child
        for m in range(len(sub.nodes)):
            for b in range(n):
                c = sub.child[m, b]
                if c >= 0:
                    assert sub.nodes[c] == dag.child[sub.nodes[m], b]
                elif sub.leaf[m] < 0 and b > sub.top[m]:
                    pytest.fail("a legal raise below the frontier has no child")


def test_the_depth_cannot_pass_the_window():
    dag = build_dag(8, 2)
    with pytest.raises(DicelabError, match="depth must be 1 to the window"):
        sub_dag(dag, 0, 3)


@pytest.mark.parametrize("dice,faces,wild,window", [((1, 1), 6, "ones", 2), ((2, 1), 3, "none", 3)])
def test_solving_from_the_root_is_the_training_run(dice, faces, wild, window):
    duel = Duel(dice, faces, wild)
    pol = train_duel(duel, iterations=120, window=window, method="abstract", seed=0)
    chance, counts = _hands(duel)
    game = solve_subgame(sub_dag(pol.dag, 0), faces, counts, chance, 120)
    for i in (0, 1):
        np.testing.assert_allclose(game.strategy[i], pol.strategy[i], atol=1e-6)


@pytest.mark.parametrize("dice,faces,wild", [((2, 1), 4, "ones"), ((2, 2), 3, "none")])
def test_blueprint_values_give_the_exact_value_and_feed_the_frontier(dice, faces, wild):
    duel = Duel(dice, faces, wild)
    pol = train_duel(duel, iterations=60, window=2, method="abstract", seed=1)
    (p0, p1), counts = _hands(duel)
    V = blueprint_values(pol)
    assert p0 @ V[0] @ p1 == pytest.approx(exact_grade(pol)["value"], abs=1e-9)
    # a depth-limited subgame whose frontier holds those values, played with the policy's own
    # strategy above it, has the same values at its root
    dag = pol.dag
    for hist in ([], [2], [1, 4]):
        root = dag.node_of(len(hist) % 2, hist)
        for depth in (1, 2):
            sub = sub_dag(dag, root, depth)
            s = [np.zeros((sub.rows[i], counts[i].shape[0])) for i in (0, 1)]
            for m, g in enumerate(sub.nodes):
                i = int(sub.mover[m])
                k = dag.n - 1 - int(sub.top[m]) + (1 if sub.top[m] >= 0 else 0)
                s[i][sub.loc[m]:sub.loc[m] + k] = pol.strategy[i][dag.loc[g]:dag.loc[g] + k]
            W = np.zeros((len(sub.nodes),) + V.shape[1:])
            _node_values(dag.n, faces, sub.top, sub.mover, sub.loc, sub.child, counts[0], counts[1], s[0], s[1],
                         sub.leaf, np.ascontiguousarray(V[sub.nodes[sub.frontier]]), W)
            np.testing.assert_allclose(W[0], V[root], atol=1e-12)


def _rows_sum_to_one(res) -> None:
    tree = res["tree"]
    s = res["profile"]
    for m in range(tree.n_nodes):
        i = m.bit_count() % 2
        np.testing.assert_allclose(s[i][tree.off[m]:tree.off[m + 1]].sum(axis=0), 1.0, atol=1e-9)


@pytest.mark.parametrize("dice,faces", [((2, 2), 3), ((1, 2), 4)])
def test_the_response_values_are_the_exact_best_response(dice, faces):
    # with a window as long as the game the subgame from the root is the whole game with perfect
    # recall, so the responder's values there are the exact best response of the evaluator
    duel = Duel(dice, faces, "none")
    pol = train_duel(duel, iterations=50, window=duel.n_bids, method="abstract", seed=0)
    g = grade_with_tree(pol)
    (p0, p1), (c0, c1) = _hands(duel)
    sub = sub_dag(pol.dag, 0)
    s0, s1 = (np.asarray(pol.strategy[i], dtype=np.float64) for i in (0, 1))
    for fixed, reach in ((0, p0), (1, p1)):
        V = np.zeros((len(sub.top), len(p0), len(p1)))
        _response_values(duel.n_bids, faces, sub.top, sub.mover, sub.loc, sub.child, c0, c1, s0, s1, fixed, reach,
                         sub.leaf, np.zeros((1, 1, 1)), np.zeros((len(sub.top), len(reach))), V)
        seat0 = float(p0 @ V[0] @ p1)
        assert (-seat0 if fixed == 0 else seat0) == pytest.approx(g["br1"] if fixed == 0 else g["br0"], abs=1e-12)


def test_safe_resolving_lowers_the_exact_exploitability():
    # 2 v 2 with 3 faces, nothing wild: the window-2 policy is exploitable by 0.0100 (exact). Re-solved
    # at every decision from the exact ranges, the opponent held to its best response against the
    # previous plan: 0.0003 (whole subgame, 600 iterations), 0.0015 (two bids ahead, 200); trusting
    # the ranges alone (unsafe) 0.20. Every grade is the exact perfect-recall best response.
    duel = Duel((2, 2), 3, "none")
    pol = train_duel(duel, iterations=300, window=2, method="abstract", seed=0)
    grade = grade_with_tree(pol)
    base = grade["exploitability"]
    assert base > 0.005
    full = resolve_profile(pol, iterations=600)
    _rows_sum_to_one(full)
    assert full["exploitability"] < 0.1 * base
    two = resolve_profile(pol, iterations=200, depth=2, tree=full["tree"])
    assert two["exploitability"] < 0.3 * base
    unsafe = resolve_profile(pol, iterations=200, safe=False, tree=full["tree"])
    assert unsafe["exploitability"] > 5 * base
    # re-solving moves strategies, not chances: the game's value under the profile stays near the policy's
    assert abs(full["value"] - grade["value"]) < 0.005


def test_resolving_keeps_an_equilibrium_and_the_plan_values_would_not():
    # a window as long as the game: the policy is near an equilibrium (0.0002). Nested safe re-solving
    # keeps it there (0.00008 at 600 iterations), but promising the opponent its values under the
    # previous plan instead of its best response (a hand that never reaches a node keeps a uniform
    # average there, so its promise is too low) makes it worse the longer each re-solve runs (0.017).
    duel = Duel((2, 2), 3, "none")
    pol = train_duel(duel, iterations=300, window=duel.n_bids, method="abstract", seed=0)
    base = grade_with_tree(pol)["exploitability"]
    assert base < 0.0005
    kept = resolve_profile(pol, iterations=600)
    assert kept["exploitability"] < max(base, 0.0002)
    plan = resolve_profile(pol, iterations=600, constraints="average", tree=kept["tree"])
    assert plan["exploitability"] > 10 * base


def test_bad_constraints_are_refused():
    duel = Duel((1, 1), 3, "none")
    pol = train_duel(duel, iterations=5, window=2, method="abstract", seed=0)
    with pytest.raises(DicelabError, match="constraints are 'response' or 'average'"):
        resolve_profile(pol, constraints="best")


@pytest.mark.slow
def test_safe_resolving_at_three_against_two_dice():
    # 15 bids, 32,768 public nodes: the window-2 policy 0.0493 -> 0.0100 (whole subgame, 200 iterations)
    duel = Duel((3, 2), 3, "none")
    pol = train_duel(duel, iterations=300, window=2, method="abstract", seed=0)
    base = grade_with_tree(pol)["exploitability"]
    full = resolve_profile(pol, iterations=200)
    assert full["exploitability"] < 0.3 * base
