"""The training kernel's counterfactual regrets, opponent hands taken a block at a time
(``duel._block_pass``), against a slow reference written here: for one opponent hand at a time, its
reach at every node summed over the paths into it, and player i's value below every node by plain
recursion over the DAG. The blocks change the order in which memory is read, not the sums, so any
block size (all hands at once, a partial last block, one hand at a time) must give the reference's
regrets."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import dicelab.liars.duel as duel_mod
from dicelab.liars.contexts import regrets
from dicelab.liars.duel import BLOCK, Duel, build_dag, train_duel


def _reference_regrets(duel: Duel, dag, s, i: int) -> np.ndarray:
    j = 1 - i
    c_i = duel.hands(i)[2]
    _, p_j, c_j = duel.hands(j)
    n, F = dag.n, duel.faces
    top, mover, loc, child = dag.top, dag.mover, dag.loc, dag.child
    inst = np.zeros_like(s[i])
    for g in range(len(p_j)):
        reach = np.zeros(dag.n_nodes)
        reach[0] = 1.0
        for m in range(dag.n_nodes):  # parents come before their children
            t = int(top[m])
            for b in range(t + 1, n):
                by = 1.0 if mover[m] == i else s[j][loc[m] + b - t - 1, g]
                reach[child[m, b]] += reach[m] * by

        def call(m: int) -> np.ndarray:
            t = int(top[m])
            q, f = t // F + 1, t % F + 1
            holds = c_i[:, f] + c_j[g, f] >= q
            bidder = np.where(holds, 1.0, -1.0)  # the bid's maker wins when it holds
            return -bidder if mover[m] == i else bidder

        @lru_cache(maxsize=None)
        def value(m: int) -> np.ndarray:
            t = int(top[m])
            k = n - 1 - t + (1 if t >= 0 else 0)
            own = mover[m] == i
            v = np.zeros(len(c_i))
            for b in range(t + 1, n):
                p = s[i][loc[m] + b - t - 1] if own else s[j][loc[m] + b - t - 1, g]
                v = v + p * value(int(child[m, b]))
            if t >= 0:
                p = s[i][loc[m] + k - 1] if own else s[j][loc[m] + k - 1, g]
                v = v + p * call(m)
            return v

        for m in range(dag.n_nodes):
            if mover[m] != i or reach[m] == 0.0:
                continue
            t = int(top[m])
            v = value(m)
            for b in range(t + 1, n):
                inst[loc[m] + b - t - 1] += p_j[g] * reach[m] * (value(int(child[m, b])) - v)
            if t >= 0:
                k = n - 1 - t + 1
                inst[loc[m] + k - 1] += p_j[g] * reach[m] * (call(m) - v)
    return inst


@pytest.mark.parametrize("block_bytes", [None, 1, "three"])
def test_block_regrets_match_a_per_hand_reference(monkeypatch, block_bytes):
    # 2 v 2 with 4 faces: 10 hands a seat, so BLOCK = 8 leaves a partial second block
    duel = Duel((2, 2), 4, "ones")
    pol = train_duel(duel, iterations=30, method="abstract", window=2)
    dag = pol.dag
    s = [np.asarray(x, dtype=np.float64) for x in pol.strategy]
    H = len(duel.hands(0)[1])
    assert H > BLOCK and H % BLOCK
    if block_bytes == 1:  # one hand at a time
        monkeypatch.setattr(duel_mod, "VALUE_BYTES", 1)
    elif block_bytes == "three":
        monkeypatch.setattr(duel_mod, "VALUE_BYTES", 3 * 8 * H * dag.n_nodes)
    got = regrets(duel, dag, dag.loc, (s[0], s[1]))
    for i in (0, 1):
        want = _reference_regrets(duel, dag, s, i)
        assert np.abs(want).max() > 1e-3  # the policy is not yet an equilibrium: regrets to compare
        assert np.abs(got[i] - want).max() < 1e-12


def test_training_is_the_same_for_any_block(monkeypatch):
    # the sums a training iteration makes do not depend on how many opponent hands share a pass
    duel = Duel((2, 2), 4, "none")
    dag = build_dag(duel.n_bids, 2)
    a = train_duel(duel, iterations=20, method="abstract", dag=dag)
    monkeypatch.setattr(duel_mod, "BLOCK", 3)
    b = train_duel(duel, iterations=20, method="abstract", dag=dag)
    monkeypatch.setattr(duel_mod, "BLOCK", 1)
    c = train_duel(duel, iterations=20, method="abstract", dag=dag)
    for x, y, z in zip(a.strategy, b.strategy, c.strategy, strict=True):
        assert np.array_equal(x, y) and np.array_equal(x, z)
