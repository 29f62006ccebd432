"""Issue 26, item 1: the learned responder, a tighter lower bound on a duel policy's exploitability.

References from outside the code under test: the exact best response (``grading.exact_grade``, itself
checked against the exact solver's evaluator in ``test_liars_duel.py``), the depth-first evaluator run
on a policy table built from the responder's choices, and laws (a fixed responder never beats the
best response; with perfect recall policy iteration is the best response; sampled means lie in
their intervals; a one-step look-ahead on a strategy's own values never does worse than it).
"""

from __future__ import annotations

import numpy as np
import pytest

from dicelab.liars.duel import Duel, DuelPolicy, build_dag, train_duel
from dicelab.liars.grading import exact_grade
from dicelab.liars.lbr import bot_policy, lbr_exact
import dicelab.liars.duel as duel_mod
from dicelab.core.errors import DicelabError
from dicelab.liars.responder import (
    dag_nodes,
    default_window,
    learn_response,
    learned_br,
    learned_br_exact,
    policy_nodes,
    responder_bytes,
    responder_dag,
)


def _exploitable(duel: Duel, window: int = 2) -> DuelPolicy:
    """A policy far from equilibrium: 20 iterations of the abstract method on a short window."""
    return train_duel(duel, iterations=20, seed=0, window=window)


@pytest.mark.parametrize("n,w", [(8, 1), (12, 3), (18, 2), (20, 4)])
def test_node_count_formula(n, w):
    assert dag_nodes(n, w) == build_dag(n, w).n_nodes


def test_policy_nodes_keep_the_last_bids():
    n = 9
    big, small = build_dag(n, 4), build_dag(n, 2)
    pm = policy_nodes(big, small)
    rng = np.random.default_rng(0)
    for _ in range(200):  # random rising bid sequences: the window-4 node falls in the window-2 node of the same path
        k = int(rng.integers(0, n + 1))
        bids = sorted(rng.choice(n, size=k, replace=False).tolist())
        assert pm[big.node_of(k % 2, bids)] == small.node_of(k % 2, bids)


@pytest.mark.parametrize("make", ["probabilistic", "trained"])
def test_perfect_recall_is_the_exact_best_response(make):
    # a window as long as the game: policy iteration finds the best response, and the rollout keeps it
    duel = Duel((1, 2), 3, "ones")
    pol = bot_policy(duel, "probabilistic") if make == "probabilistic" else _exploitable(duel, 1)
    g = exact_grade(pol)
    r = learned_br_exact(pol, window=duel.n_bids)
    assert r["abstract0"] == pytest.approx(g["br0"], abs=1e-9)
    assert r["abstract1"] == pytest.approx(g["br1"], abs=1e-9)
    assert r["gain0"] == pytest.approx(g["br0"], abs=1e-9)
    assert r["gain1"] == pytest.approx(g["br1"], abs=1e-9)


def test_a_shorter_window_is_a_lower_bound_above_lbr():
    duel = Duel((2, 1), 4, "none")  # 12 bids
    pol = _exploitable(duel, 2)
    g = exact_grade(pol)
    le = lbr_exact(pol)
    r = learned_br_exact(pol, window=4)
    for i in (0, 1):
        assert r[f"gain{i}"] <= g[f"br{i}"] + 1e-12  # a fixed responder never beats the best response
        assert r[f"gain{i}"] >= r[f"abstract{i}"] - 1e-12  # rollout: never worse than its base strategy
    # measured: exact 0.0737, learned 0.0737 (window 4 of 12 bids), LBR 0.0331
    assert r["exploitability_lower"] > g["exploitability"] - 0.005
    assert r["exploitability_lower"] > le["exploitability_lower"]


def test_abstract_value_matches_the_depth_first_evaluator():
    # the responder's pure strategy and the policy as one window-W table: exact_grade's value is the
    # responder's payoff in its seat (an evaluator that shares no code with the policy-iteration pass)
    duel = Duel((2, 1), 3, "ones")
    pol = _exploitable(duel, 1)
    W = 3
    for seat in (0, 1):
        r = learn_response(pol, seat, window=W)
        dag = build_dag(duel.n_bids, W)
        pm = policy_nodes(dag, pol.dag)
        tables = []
        for i in (0, 1):
            x = np.zeros((dag.rows[i], len(duel.hands(i)[0])))
            for m in np.flatnonzero(dag.mover == i):
                k = dag.n - 1 - int(dag.top[m]) + (1 if m != 0 else 0)
                r0 = int(dag.loc[m])
                if i == seat:
                    x[r0 + r.choice[m], np.arange(x.shape[1])] = 1.0
                else:
                    p0 = int(pol.dag.loc[pm[m]])
                    x[r0:r0 + k] = pol.strategy[i][p0:p0 + k]
            tables.append(x)
        both = DuelPolicy(duel, dag, (tables[0], tables[1]))
        value0 = exact_grade(both)["value"]
        assert r.abstract_value == pytest.approx(value0 if seat == 0 else -value0, abs=1e-10)


def test_sampled_rounds_match_the_exact_value():
    duel = Duel((2, 1), 3, "highest")
    pol = _exploitable(duel, 1)
    exact = learned_br_exact(pol, window=3)
    s = learned_br(pol, rounds=20_000, seed=5, window=3)
    for i in (0, 1):  # within 2.3 half-widths (99.995%)
        assert abs(s[f"gain{i}"] - exact[f"gain{i}"]) < 2.3 * s[f"gain{i}_ci"]
        assert s[f"abstract{i}"] == pytest.approx(exact[f"abstract{i}"], abs=1e-12)
    again = learned_br(pol, rounds=20_000, seed=5, window=3)
    assert again["gain0"] == s["gain0"] and again["gain1"] == s["gain1"]  # same seed, same result


def test_default_window_respects_the_budgets():
    pol = _exploitable(Duel((1, 1), 6, "ones"), 2)
    assert default_window(pol) == 12  # small games: perfect recall
    big = DuelPolicy.__new__(DuelPolicy)  # only .duel and .window are read
    big.duel, big.dag = Duel((5, 5), 6, "ones"), build_dag(60, 2)
    assert default_window(big) == 2  # 5 v 5: window 3 would store 8.5 GB of values
    assert default_window(big, v_bytes=10 * 2**30, work=1e12) == 3


# the exactly graded sizes with 6 faces: the learned responder gets within 0.005 of the exact
# exploitability of known exploitable policies (issue 26)
VALIDATION = [((1, 1), "ones"), ((2, 1), "ones"), ((1, 2), "none"), ((2, 2), "ones"), ((2, 2), "none")]


@pytest.mark.slow
@pytest.mark.parametrize("dice,wild", VALIDATION)
def test_learned_responder_finds_the_exact_exploitability(dice, wild):
    duel = Duel(dice, 6, wild)
    for pol in (bot_policy(duel, "probabilistic"), _exploitable(duel, 2)):
        g = exact_grade(pol)
        r = learned_br_exact(pol)
        assert r["exploitability_lower"] <= g["exploitability"] + 1e-12
        assert r["exploitability_lower"] > g["exploitability"] - 0.005


def test_a_responder_too_big_for_the_machine_is_refused_before_it_is_built(monkeypatch):
    # the arrays the responder holds at its peak: the estimate covers what it allocates (V, Q, U)
    duel = Duel((2, 2), 4, "ones")
    pol = _exploitable(duel, 1)
    W, dag = responder_dag(pol, 3)
    r = learn_response(pol, 1, W, dag=dag)
    H = max(len(duel.hands(s)[1]) for s in (0, 1))
    held = r.V.nbytes + dag.rows[1] * H * 8 + dag.n_nodes * H * 8  # V, Q and one hand's U at least
    need = responder_bytes(duel, dag.n_nodes, sum(dag.rows))
    assert held <= need <= 10 * held
    # on a machine with less memory than that the same window is refused in one line, for a window DAG and a tree
    monkeypatch.setattr(duel_mod, "machine_bytes", lambda: need / 2)
    with pytest.raises(DicelabError, match="choose a shorter window") as e:
        responder_dag(pol, 3)
    assert "\n" not in str(e.value) and "GiB" in str(e.value)
    from dicelab.liars.contexts import train_contexts

    tree = train_contexts(duel, max_rows=2 * sum(pol.dag.rows), window=1, longest=3, iterations=10)
    assert tree.dag.contexts is not None
    monkeypatch.setattr(duel_mod, "machine_bytes", lambda: 1.0)
    with pytest.raises(DicelabError, match="choose a shorter window"):
        responder_dag(tree, tree.window + 1)


def test_training_too_big_for_the_machine_is_refused_before_it_is_built(monkeypatch):
    # the training arrays: the estimate covers the four tables a seat keeps per row (regrets, average,
    # strategy, instantaneous regrets), and a smaller machine refuses the same window or tree in one line
    from dicelab.liars.contexts import train_contexts
    from dicelab.liars.duel import training_bytes

    duel = Duel((2, 2), 4, "ones")
    pol = train_duel(duel, iterations=10, method="abstract", window=2)
    held = sum(x.nbytes for x in pol.state.values() if x.ndim == 2) + sum(x.nbytes for x in pol.strategy) * 2
    need = training_bytes(duel, sum(pol.dag.rows), pol.dag.n_nodes)
    assert held <= need <= 10 * held
    monkeypatch.setattr(duel_mod, "machine_bytes", lambda: need / 2)
    with pytest.raises(DicelabError, match="choose a shorter window") as e:
        train_duel(duel, iterations=10, method="abstract", window=2)
    assert "\n" not in str(e.value) and "GiB" in str(e.value)
    with pytest.raises(DicelabError, match="choose fewer rows"):
        train_contexts(duel, max_rows=sum(pol.dag.rows), window=1, longest=3, iterations=10)
