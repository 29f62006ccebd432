"""The learned responder's pass, opponent hands taken a block at a time (``responder._block``),
against a slow reference written here: for one opponent hand at a time, the value of the responder's
pure strategy below every node by plain recursion over its DAG, against the policy's rows at the
node's policy node. The blocks change the order in which memory is read, not the sums, so any block
size (a partial last block, three hands, one hand at a time) must store the reference's values and
learn the same responder, bit for bit."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import dicelab.liars.responder as responder_mod
from dicelab.liars.duel import BLOCK, Duel, train_duel
from dicelab.liars.responder import learn_response, policy_nodes, responder_dag


def _reference_values(pol, r) -> tuple[np.ndarray, float]:
    """``V[vidx[m], h, g]`` at every opponent node hand g reaches, and the responder's payoff."""
    duel, dag, i = pol.duel, r.dag, r.seat
    j = 1 - i
    _, p_i, c_i = duel.hands(i)
    _, p_j, c_j = duel.hands(j)
    n, F = dag.n, duel.faces
    s_opp = np.asarray(pol.strategy[j], dtype=np.float64)
    sloc = pol.dag.loc[policy_nodes(dag, pol.dag)]
    V = np.full(r.V.shape, np.nan)
    payoff = 0.0
    for g in range(len(p_j)):
        reach = np.zeros(dag.n_nodes)
        reach[0] = 1.0
        for m in range(dag.n_nodes):  # parents come before their children
            t = int(dag.top[m])
            for b in range(t + 1, n):
                by = 1.0 if dag.mover[m] == i else s_opp[sloc[m] + b - t - 1, g]
                reach[dag.child[m, b]] += reach[m] * by

        def call(m: int) -> np.ndarray:
            t = int(dag.top[m])
            q, f = t // F + 1, t % F + 1
            bidder = np.where(c_i[:, f] + c_j[g, f] >= q, 1.0, -1.0)  # the bid's maker wins when it holds
            return -bidder if dag.mover[m] == i else bidder

        @lru_cache(maxsize=None)
        def value(m: int) -> np.ndarray:
            t = int(dag.top[m])
            k = n - 1 - t + (1 if t >= 0 else 0)
            if dag.mover[m] == i:  # the responder's pure action for each own hand
                a = r.choice[m]
                below = [call(m) if (t >= 0 and x == k - 1) else value(int(dag.child[m, t + 1 + x])) for x in range(k)]
                return np.array([below[a[h]][h] for h in range(len(c_i))])
            v = s_opp[sloc[m] + k - 1, g] * call(m) if t >= 0 else np.zeros(len(c_i))
            for b in range(t + 1, n):
                v = v + s_opp[sloc[m] + b - t - 1, g] * value(int(dag.child[m, b]))
            return v

        for m in np.flatnonzero((dag.mover != i) & (reach > 0)):
            V[r.vidx[m], :, g] = value(int(m))
        payoff += p_j[g] * float(p_i @ value(0))
    return V, payoff


@pytest.fixture(scope="module")
def policy():
    # 2 v 2 with 4 faces: 10 hands a seat, so BLOCK = 8 leaves a partial second block
    duel = Duel((2, 2), 4, "ones")
    pol = train_duel(duel, iterations=20, method="abstract", window=1)
    assert len(duel.hands(0)[1]) > BLOCK and len(duel.hands(0)[1]) % BLOCK
    return pol


@pytest.mark.parametrize("seat", [0, 1])
def test_stored_values_match_a_per_hand_reference(policy, seat):
    W, dag = responder_dag(policy, 3)
    r = learn_response(policy, seat, W, dag=dag)
    want, payoff = _reference_values(policy, r)
    reached = ~np.isnan(want)
    assert reached.any() and np.abs(want[reached]).max() > 0.1
    assert np.abs(r.V[reached] - want[reached]).max() < 1e-6  # V is float32
    assert r.abstract_value == pytest.approx(payoff, abs=1e-12)
    assert r.history[-1] == pytest.approx(payoff, abs=1e-12)


@pytest.mark.parametrize("seat", [0, 1])
def test_any_block_learns_the_same_responder(monkeypatch, policy, seat):
    W, dag = responder_dag(policy, 3)
    H = len(policy.duel.hands(seat)[1])
    got = []
    for u_bytes in (responder_mod.U_BYTES, 3 * 8 * H * dag.n_nodes, 1):  # 8 hands (and 2), 3 at a time, 1
        monkeypatch.setattr(responder_mod, "U_BYTES", u_bytes)
        got.append(learn_response(policy, seat, W, dag=dag))
    a = got[0]
    assert a.passes > 1  # policy iteration improved on its start: the passes' Q decided something
    for b in got[1:]:
        assert np.array_equal(a.choice, b.choice) and np.array_equal(a.V, b.V) and a.history == b.history
