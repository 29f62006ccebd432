"""A learned best response to a duel policy: a tighter lower bound on its exploitability than LBR.

Local best response (:mod:`dicelab.liars.lbr`) keeps the exact posterior over the opponent's hands
but looks one step ahead; it misses gains that take several moves. The responder here learns
values for the whole rest of the round first, then plays them with the exact posterior:

1. **Counterfactual best response on a finer abstraction.** The responder's states are the
   abstract nodes of a window ``W`` at least the policy's own (:func:`dicelab.liars.duel.build_dag`),
   or for a context tree the tree with every node remembering ``W - w`` more bids
   (:func:`refined_dag`); either way a node determines the policy's node (:func:`policy_nodes`), so
   the opponent's strategy there is known. Play walks both DAGs bid by bid, so a tree is graded on
   its own nodes, never written out on a long window. Because both
   strategies are Markov in the node, the value below a node for a pair of hands depends on the node
   only, so one pass over the opponent's hands (several side by side, :data:`U_BYTES`) computes, at
   every responder node and own hand, the value of each action weighted by the opponent's chance
   and reach summed over every path into the node.
   Policy iteration: play the action with the best such value, recompute, repeat (a few passes;
   with a window as long as the game, perfect recall, this is the exact best response). The last
   pass stores ``V[node, h, g]``, the value of every opponent node for every pair of hands, and
   gives the exact payoff of this abstract responder (itself a lower bound).
2. **Rollout with the exact posterior.** In play the responder knows the opponent's policy, so it
   keeps the exact posterior over the opponent's hands (its chance times the probability of every
   move the opponent made, as LBR does) and at each turn picks the action with the best value under
   that posterior: the call exactly, a raise by ``V`` of the node it leads to. A one-step look-ahead
   on the values of a fixed strategy never does worse than that strategy (Bertsekas' rollout), and
   usually better, because the posterior remembers what the window forgets.

It is one fixed strategy, so its expected payoff against the policy is a lower bound on the best
response: ``(gain_0 + gain_1) / 2`` bounds the exploitability from below. :func:`learned_br`
estimates it by playing rounds (95% interval); :func:`learned_br_exact` computes it exactly by
walking the full public tree (up to :data:`dicelab.liars.grading.MAX_EXACT_BIDS` bids), which is
how it is validated against the exact best response (:func:`dicelab.liars.grading.exact_grade`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.core.progress import progress_bar
from dicelab.liars.contexts import candidates, contexts_of
from dicelab.liars.duel import (BLOCK, Dag, Duel, DuelPolicy, _block_reach_from, _call_value, _next_block, _reached,
                                block_size, build_dag, check_fits, codes_fit, dag_nodes, dag_rows)
from dicelab.liars.grading import MAX_EXACT_BIDS
from dicelab.liars.lbr import gain_by_bids

# rounds a seat: cheap beside learning the responder (1,000,000 take about 10 s at 3 v 3, where
# learning takes 80 s), and they make the bound's 95% half-width about 0.002
ROUNDS = 500_000
V_BYTES = 2**30  # the stored values V[node, h, g] (float32) stay under this (3 v 3: window 4, 747 MB)
U_BYTES = 2**31  # a pass takes as many opponent hands at once (up to duel.BLOCK) as keep their values U[node, b, h]
# under this: each row of Q is then read and written once for all of them (the pass is memory-bound; bit for bit the
# same sums as one hand at a time; 1.5x as fast, BENCHMARKS.md). At memory 9 on the 3 v 4 trees (849,026 nodes)
# that is 2 hands in the 4-dice seat, 1.7 GB (0.9 more than one) beside V's 12 GB
PASS_WORK = 3e9  # and one pass (rows x own hands x opponent hands) under this
MAX_EXTRA = 3  # a tree's default refinement adds at most this many bids (each one builds a DAG several
# times larger, in Python: at 18 bids the fourth takes 7 s and the eighth 46 s, twice per seat)


# ------------------------------------------------------------------------------------------------
# the abstraction


def policy_nodes(dag: Dag, policy_dag: Dag) -> np.ndarray:
    """The node of ``policy_dag`` that every node of ``dag`` falls in, found by walking both DAGs from
    the root bid by bid: ``dag`` must refine the policy's (every path into a node of ``dag`` reaches
    the same policy node), as a longer window refines a shorter one and a context tree refined by
    more bids refines the tree. Any two DAGs of the same bids, window or tree."""
    require(policy_dag.n == dag.n, "the responder and the policy play different bids")
    N = dag.n_nodes
    pm = np.full(N, -1, dtype=np.int64)
    pm[0] = 0
    for t in range(-1, dag.n - 1):  # children have larger tops: every node's parents come first
        ms = np.flatnonzero(dag.top == t)
        for b in range(t + 1, dag.n):
            c = dag.child[ms, b].astype(np.int64)
            pc = policy_dag.child[pm[ms], b].astype(np.int64)
            clash = bool(((pm[c] >= 0) & (pm[c] != pc)).any())
            pm[c] = pc
            clash = clash or bool((pm[c] != pc).any())  # two paths of this step into one node, two policy nodes
            require(not clash, "the responder's abstraction must refine the policy's (a responder node falls in "
                    "two policy nodes)")
    require(bool(np.all(pm >= 0)), "a responder node has no policy node")
    return pm


def refined_dag(dag: Dag, extra: int) -> Dag:
    """``dag`` with every node remembering up to ``extra`` more bids: a window DAG becomes the window
    ``extra`` bids longer; a context tree gains every context one bid longer than a node of it
    (:func:`dicelab.liars.contexts.candidates`) ``extra`` times, its longest context growing as well."""
    require(isinstance(extra, int) and extra >= 0, f"the extra memory must be a whole number >= 0, got {extra}")
    if dag.contexts is None:
        return dag if extra == 0 else build_dag(dag.n, dag.window + extra, faces=dag.faces, first=dag.first,
                                                older=dag.older)
    for _ in range(extra):
        longest = dag.memory + 1
        dag = build_dag(dag.n, dag.window, contexts_of(dag) | candidates(dag, longest), longest)
    return dag


def max_refined_window(dag: Dag) -> int:
    """The largest responder window a tree can be refined to: each extra bid lengthens its longest
    context by one, and the contexts' codes must fit 62 bits."""
    extra = 0
    while codes_fit(dag.n, dag.window, dag.memory + extra + 1):
        extra += 1
    return dag.window + extra


def refinement_size(dag: Dag) -> tuple[int, int]:
    """Nodes and rows (both seats) of ``refined_dag(dag, 1)`` at most, without building it: every new
    context is a node with ``n - bid`` rows (some coarser nodes fall out of reach, so it is an upper
    bound; within about a quarter at 3 v 3)."""
    new = candidates(dag, dag.memory + 1) if dag.contexts is not None else None
    if new is None:
        return dag_nodes(dag.n, dag.window + 1), dag_rows(dag.n, dag.window + 1)
    return dag.n_nodes + len(new), sum(dag.rows) + sum(dag.n - c[-1] for _, c in new)


def _pairs(d: Duel) -> int:
    return comb(d.dice[0] + d.faces - 1, d.dice[0]) * comb(d.dice[1] + d.faces - 1, d.dice[1])


def default_window(policy: DuelPolicy, v_bytes: int = V_BYTES, work: float = PASS_WORK) -> int:
    """The longest window (at least the policy's, at most the number of bids) whose stored values
    (opponent nodes x hands x hands, float32) stay under ``v_bytes`` and whose pass (rows x hands x
    hands) under ``work``. For a context tree: every bid where that window fits, else its window plus
    the most extra bids (:func:`refined_dag`, at most :data:`MAX_EXTRA`) whose size bound
    (:func:`refinement_size`) is within the same budgets."""
    return _default(policy, v_bytes, work)[0]


def _window_size(dag: Dag, win: int) -> tuple[int, float]:
    """Rows and (about) nodes of ``dag``'s window lengthened to ``win`` with its faces kept (the nodes
    grow as the rows do)."""
    rows = dag_rows(dag.n, win, dag.faces, dag.first, dag.older)
    return rows, dag_nodes(dag.n, win) * rows / dag_rows(dag.n, win)


def responder_bytes(duel: Duel, nodes: float, rows: float) -> float:
    """About the most memory (bytes) the responder holds on a DAG of ``nodes`` nodes and ``rows`` rows
    (both seats), a seat at a time: its stored values ``V`` (float32, at the opponent's half of the
    nodes, for every pair of hands), its action values ``Q`` and a block of hands' node values ``U``
    (float64), and the DAG's children. (3 v 4, memory 9: 18.3 GB from the DAG's true size; the run
    peaked at 19.2 GB with one hand a pass, whose ``U`` is 0.9 GB less.)"""
    h = [comb(x + duel.faces - 1, x) for x in duel.dice]
    one = nodes * max(h) * 8.0
    return (nodes / 2 * h[0] * h[1] * 4.0 + rows / 2 * max(h) * 8.0 + max(one, min(BLOCK * one, float(U_BYTES)))
            + nodes * duel.n_bids * 8.0)


def _check_fits(duel: Duel, window: int, nodes: float, rows: float) -> None:
    """Refuse, in one line, a responder whose arrays would not fit the machine's memory."""
    check_fits(responder_bytes(duel, nodes, rows), f"the learned responder with a window of {window} bids "
               f"({nodes:,.0f} nodes, each with a value for every pair of hands)",
               "choose a shorter window, or leave it out for the default (values under 1 GiB)")


def _default(policy: DuelPolicy, v_bytes: int = V_BYTES, work: float = PASS_WORK) -> tuple[int, Dag | None]:
    """:func:`default_window`, with the refinement of a context tree it built on the way (None for a
    window DAG, which is built from the window alone)."""
    d = policy.duel
    n = d.n_bids
    hh = _pairs(d)
    w = policy.window
    if policy.dag.contexts is not None:
        if codes_fit(n, n, n) and dag_rows(n, n) * hh <= work and dag_nodes(n, n) / 2 * hh * 4 <= v_bytes:
            return n, None  # a small game: perfect recall (the window of every bid refines any tree)
        dag = policy.dag
        top = min(policy.window + MAX_EXTRA, max_refined_window(dag))
        while dag.memory < n and w < top:
            nodes, rows = refinement_size(dag)  # before building it: the build takes seconds to minutes
            if nodes == dag.n_nodes or rows * hh > work or nodes / 2 * hh * 4 > v_bytes:
                break
            dag, w = refined_dag(dag, 1), w + 1
        return w, dag
    while w < n and codes_fit(n, w + 1, w + 1):
        rows, nodes = _window_size(policy.dag, w + 1)
        if rows * hh > work or nodes / 2 * hh * 4 > v_bytes:
            break
        w += 1
    return w, None


# ------------------------------------------------------------------------------------------------
# policy iteration on the window abstraction


@njit(cache=True)
def _pass(i, n, F, top, mover, loc, child, sloc, s_opp, c_i, c_j, p_i, p_j, choice, Q, V, vidx, store, ro, U,
          term, leaf, gs, ws):
    """Values of the responder's pure strategy ``choice[m, h]`` (seat i) against the fixed opponent
    table ``s_opp`` (row ``sloc[m] + j`` at node m), ``gs.shape[0]`` opponent hands at a time
    (:func:`_block`). Adds to ``Q[loc[m] + a, h]`` the counterfactual value of every action
    (opponent's chance x reach summed over paths x value); with ``store``, writes ``V[vidx[m], h, g]``
    at the opponent's nodes. Returns the responder's expected payoff."""
    for r in range(Q.shape[0]):
        for h in range(Q.shape[1]):
            Q[r, h] = 0.0
    total = 0.0
    kk = np.int64(0)
    while True:
        nb, kk = _next_block(kk, p_j.shape[0], np.int64(0), p_j, p_j, gs, ws)
        if nb == 0:
            return total
        total = _block(i, n, F, top, mover, loc, child, sloc, s_opp, c_i, c_j, p_i, gs, ws, nb, choice, Q, V, vidx,
                       store, ro, U, term, leaf, total)


@njit(cache=True)
def _block(i, n, F, top, mover, loc, child, sloc, s_opp, c_i, c_j, p_i, gs, ws, nb, choice, Q, V, vidx, store, ro,
           U, term, leaf, total):
    """:func:`_pass` for the ``nb`` opponent hands ``gs[:nb]`` of chances ``ws``: their reach
    ``ro[m, b]`` and the values ``U[m, b, h]`` side by side, so a row of ``Q`` is read and written
    once for all of them, each hand's terms added in the order of the hands (the same sums, bit for
    bit, as one hand at a time). Returns ``total`` plus their share of the payoff."""
    N = top.shape[0]
    Hi = c_i.shape[0]
    _block_reach_from(i, n, top, mover, sloc, child, s_opp, gs, ws, nb, leaf, ro)
    for m in range(N - 1, -1, -1):
        opp = mover[m] != i
        if not _reached(ro, m, nb):
            if store and opp:
                for b in range(nb):
                    for h in range(Hi):
                        V[vidx[m], h, gs[b]] = 0.0  # never reached with these hands: any value will do
            continue
        t = top[m]
        k = n - 1 - t + (1 if m != 0 else 0)
        if m != 0:
            f = t % F + 1
            for b in range(nb):
                if ro[m, b] != 0.0:
                    _call_value(i, mover[m], t // F + 1, f, c_i, c_j[gs[b], f], term[b])
        if not opp:
            r0 = loc[m]
            for b in range(nb):
                if ro[m, b] == 0.0:
                    continue
                for h in range(Hi):
                    a = choice[m, h]
                    if m != 0 and a == k - 1:
                        U[m, b, h] = term[b, h]
                    else:
                        U[m, b, h] = U[child[m, t + 1 + a], b, h]
            for j in range(k):
                call = m != 0 and j == k - 1
                c = 0 if call else child[m, t + 1 + j]
                for b in range(nb):
                    w = ro[m, b]
                    if w == 0.0:
                        continue
                    if call:
                        for h in range(Hi):
                            Q[r0 + j, h] += w * term[b, h]
                    else:
                        for h in range(Hi):
                            Q[r0 + j, h] += w * U[c, b, h]
        else:
            r0 = sloc[m]
            for b in range(nb):
                g = gs[b]
                if ro[m, b] == 0.0:
                    if store:
                        for h in range(Hi):
                            V[vidx[m], h, g] = 0.0
                    continue
                pc = s_opp[r0 + k - 1, g] if m != 0 else 0.0
                for h in range(Hi):
                    U[m, b, h] = pc * term[b, h]
                for a in range(t + 1, n):
                    p = s_opp[r0 + a - t - 1, g]
                    if p == 0.0:
                        continue
                    c = child[m, a]
                    for h in range(Hi):
                        U[m, b, h] += p * U[c, b, h]
                if store:
                    for h in range(Hi):
                        V[vidx[m], h, g] = U[m, b, h]
    for b in range(nb):
        for h in range(Hi):
            total += ws[b] * p_i[h] * U[0, b, h]
    return total


@njit(cache=True)
def _greedy(i, n, top, mover, loc, Q, choice):
    """choice[m, h] = the action with the largest Q at every responder node; returns how many changed."""
    changed = 0
    for m in range(top.shape[0]):
        if mover[m] != i:
            continue
        k = n - 1 - top[m] + (1 if m != 0 else 0)
        r0 = loc[m]
        for h in range(Q.shape[1]):
            best = 0
            for j in range(1, k):
                if Q[r0 + j, h] > Q[r0 + best, h] + 1e-12:
                    best = j
            if best != choice[m, h]:
                changed += 1
                choice[m, h] = best
    return changed


@dataclass
class Responder:
    """The learned responder in one seat against one policy (see the module notes)."""

    seat: int
    dag: Dag
    window: int  # the responder's window (for a context tree: the tree's window plus the extra bids)
    choice: np.ndarray  # the abstract responder's action per (node, own hand)
    V: np.ndarray = field(repr=False)  # V[vidx[m], h, g]: value of opponent node m (float32)
    vidx: np.ndarray = field(repr=False)
    abstract_value: float = 0.0  # exact payoff of the abstract responder (choice) against the policy
    passes: int = 0
    seconds: float = 0.0
    history: list[float] = field(default_factory=list)  # exact payoff after each pass


def responder_dag(policy: DuelPolicy, window: int | None = None) -> tuple[int, Dag]:
    """The responder's window and abstraction: the window-``window`` DAG (default:
    :func:`default_window`); for a context tree, the tree refined by ``window`` minus its window
    bids (:func:`refined_dag`), or at every bid the window of the whole round. The same for both
    seats."""
    d = policy.duel
    if window is None:
        W, built = _default(policy)
        if built is not None:
            return W, built  # the refinement the default was found with: not built twice
    else:
        W = window
    require(isinstance(W, int) and W >= policy.window,
            f"the responder's window ({W}) must be at least the policy's ({policy.window})")
    n = d.n_bids
    if W >= n:  # with every bid (perfect recall) the window of the whole round
        _check_fits(d, W, dag_nodes(n, W), dag_rows(n, W))
        return W, build_dag(n, W)
    if policy.dag.contexts is None:
        rows, nodes = _window_size(policy.dag, W)
        _check_fits(d, W, nodes, rows)
        return W, refined_dag(policy.dag, W - policy.window)
    # a tree: refined by the extra bids, each checked before it is built (a build takes minutes)
    top = max_refined_window(policy.dag)
    require(W <= top, f"the responder's window for this context tree is at most {top} (its window plus the "
            f"bids whose codes fit 62 bits), or {n} for every bid")
    dag = policy.dag
    for _ in range(W - policy.window):
        nodes, rows = refinement_size(dag)
        _check_fits(d, W, nodes, rows)
        dag = refined_dag(dag, 1)
    return W, dag


def pass_inputs(policy: DuelPolicy, seat: int, dag: Dag) -> tuple[tuple[Any, ...], np.ndarray, np.ndarray]:
    """What :func:`_pass` reads for the responder in ``seat`` on ``dag`` against ``policy``: its
    leading arguments (seat, bids, faces, the DAG, the policy's rows at every node and the opponent's
    table, both seats' hands), the start (the policy's own most likely action at every responder node
    and hand) and ``vidx``, the row of ``V`` of every opponent node (-1 at the responder's)."""
    d = policy.duel
    pm = policy_nodes(dag, policy.dag)
    i, j = seat, 1 - seat
    _, p_i, c_i = d.hands(i)
    _, p_j, c_j = d.hands(j)
    s_opp = np.ascontiguousarray(policy.strategy[j], dtype=np.float64)
    opp = np.flatnonzero(dag.mover != i)
    vidx = np.full(dag.n_nodes, -1, dtype=np.int64)
    vidx[opp] = np.arange(len(opp))
    choice = np.zeros((dag.n_nodes, len(p_i)), dtype=np.int64)
    own_rows = policy.strategy[i]
    for m in np.flatnonzero(dag.mover == i):
        k = d.n_bids - 1 - int(dag.top[m]) + (1 if m != 0 else 0)
        r0 = int(policy.dag.loc[pm[m]])
        choice[m] = np.argmax(np.asarray(own_rows[r0:r0 + k], dtype=np.float64), axis=0)
    sloc = policy.dag.loc[pm].astype(np.int64)  # the policy's rows at every responder node
    return (i, d.n_bids, d.faces, dag.top, dag.mover, dag.loc, dag.child, sloc, s_opp, c_i, c_j, p_i, p_j), choice, vidx


def learn_response(policy: DuelPolicy, seat: int, window: int | None = None, passes: int = 8,
                   dag: Dag | None = None, advance: Callable[[float], None] | None = None) -> Responder:
    """Policy iteration for the responder in ``seat`` on :func:`responder_dag` of ``window``
    (``dag``: that DAG, with its ``window``, when the caller built it already, as :func:`learned_br`
    does once for both seats); at most ``passes`` improvement passes, then one pass storing the values
    (``advance(1)`` after each, and for the passes not needed when it stops early)."""
    require(seat in (0, 1), f"seat must be 0 or 1, got {seat}")
    require(isinstance(passes, int) and passes >= 0, f"passes must be a whole number >= 0, got {passes}")
    require(dag is None or window is not None, "a responder DAG comes with its window")
    t0 = time.perf_counter()
    d = policy.duel
    W, dag = responder_dag(policy, window) if dag is None else (window, dag)
    args, choice, vidx = pass_inputs(policy, seat, dag)
    i, N, Hi = seat, dag.n_nodes, len(choice[0])
    Q = np.zeros((dag.rows[i], Hi))
    B = block_size(N, Hi, U_BYTES)
    ro, U, term = np.zeros((N, B)), np.zeros((N, B, Hi)), np.zeros((B, Hi))
    gs, ws = np.zeros(B, dtype=np.int64), np.zeros(B)
    leaf = np.full(N, -1, dtype=np.int64)  # no frontier: every node is played out
    V = np.zeros((int((vidx >= 0).sum()), Hi, len(d.hands(1 - seat)[1])), dtype=np.float32)  # opponent nodes
    history = []
    best_value, best_choice = -math.inf, choice.copy()
    done = 0
    step = advance or (lambda n: None)
    for _ in range(passes):
        v = _pass(*args, choice, Q, V, vidx, False, ro, U, term, leaf, gs, ws)
        history.append(v)
        done += 1
        step(1)
        if v > best_value:
            best_value, best_choice = v, choice.copy()
        if _greedy(i, d.n_bids, dag.top, dag.mover, dag.loc, Q, choice) == 0:
            break
    # the stored pass: the best strategy seen, or the last improvement if it is new
    cand = choice if not history or not np.array_equal(choice, best_choice) else best_choice
    v = _pass(*args, cand, Q, V, vidx, True, ro, U, term, leaf, gs, ws)
    history.append(v)
    if v < best_value:  # the last step made it worse: store the best one instead
        cand = best_choice
        v = _pass(*args, cand, Q, V, vidx, True, ro, U, term, leaf, gs, ws)
    step(passes - done + 1)
    return Responder(seat, dag, W, cand, V, vidx, float(v), done + 1, time.perf_counter() - t0, history)


# ------------------------------------------------------------------------------------------------
# rollout with the exact posterior: playing rounds, and exactly on the full tree


@njit(cache=True)
def _choose(n, F, child, m, vidx, V, t, d, c_own_h, c_opp, h, ro):
    """The rollout responder's action (bid rank, or n for the call) at its node m after d bids, the
    last t, with own hand h (counts ``c_own_h``) and the opponent's unnormalised posterior ``ro``."""
    Hj = c_opp.shape[0]
    best = -1e300
    choice = n
    if d > 0:
        q = t // F + 1
        f = t % F + 1
        v = 0.0
        for g in range(Hj):
            if ro[g] != 0.0:
                v += ro[g] * (-1.0 if c_own_h[f] + c_opp[g, f] >= q else 1.0)
        best = v
    for b in range(t + 1, n):
        c = child[m, b]
        x = vidx[c]
        v = 0.0
        for g in range(Hj):
            if ro[g] != 0.0:
                v += ro[g] * V[x, h, g]
        if v > best + 1e-12:
            best = v
            choice = b
    return choice


@njit(cache=True)
def _draw(cum):
    u = np.random.random()
    g = 0
    while g < cum.shape[0] - 1 and cum[g] <= u:
        g += 1
    return g


@njit(cache=True)
def _credit(i, mover, k, d, step, adv, dev):
    """A move's change of seat i's self-play value: the responder's (``mover == i``) to its move's
    column of ``adv[k]`` (from the last column on, all together), the policy's to ``dev[k]``."""
    if mover == i:
        adv[k, min(d, adv.shape[1] - 1)] += step
    else:
        dev[k] += step


@njit(cache=True)
def _rounds(i, rounds, seed, n, F, child, vidx, V, pchild, ploc, s_opp, c_own, c_opp, cum_own, p_opp, out, bids, PV,
            base, adv, dev):
    """Rounds of the rollout responder (seat i, on its DAG ``child``) against the policy (on its own,
    ``pchild``); payoffs to ``out``, the bids each round took to its call to ``bids``.

    With the policy's self-play values ``PV[m, h0, h1]`` (seat 0's payoff below its node m; an empty
    array skips this), every move's change of seat i's value ``PV`` (the payoff at the call) is added:
    the responder's to ``adv[k, d]`` (d: the bids before the move, the last column all from there on),
    the policy's to ``dev[k]``, seat i's value of the deal to ``base[k]``: per round they add up to
    ``out[k]``."""
    np.random.seed(seed)
    Hj = c_opp.shape[0]
    path = np.zeros(n + 2, np.int64)
    ro = np.zeros(Hj)
    cum_opp = np.cumsum(p_opp)
    for k in range(rounds):
        h = _draw(cum_own)
        g = _draw(cum_opp)
        for x in range(Hj):
            ro[x] = p_opp[x]
        d = np.int64(0)
        m = np.int64(0)  # the responder's node and the policy's after path[0..d-1]
        pm = 0
        track = PV.shape[0] > 0
        sign = 1.0 if i == 0 else -1.0
        h0 = h if i == 0 else g
        h1 = g if i == 0 else h
        if track:
            base[k] = sign * PV[0, h0, h1]
        while True:
            mover = d % 2
            t = path[d - 1] if d > 0 else -1
            if mover == i:
                a = _choose(n, F, child, m, vidx, V, t, d, c_own[h], c_opp, h, ro)
            else:
                kk = n - 1 - t + (1 if d > 0 else 0)
                r0 = ploc[pm]
                u = np.random.random()
                tot = 0.0
                for j in range(kk):
                    tot += s_opp[r0 + j, g]
                acc = 0.0
                jj = kk - 1
                for j in range(kk):
                    acc += s_opp[r0 + j, g] / tot
                    if u < acc:
                        jj = j
                        break
                for x in range(Hj):
                    ro[x] *= s_opp[r0 + jj, x]
                a = n if (d > 0 and jj == kk - 1) else t + 1 + jj
            if a == n:
                q = t // F + 1
                f = t % F + 1
                holds = c_own[h, f] + c_opp[g, f] >= q
                i_is_bidder = mover != i
                out[k] = 1.0 if (holds == i_is_bidder) else -1.0
                bids[k] = d
                if track:
                    _credit(i, mover, k, d, out[k] - sign * PV[pm, h0, h1], adv, dev)
                break
            path[d] = a
            if track:
                _credit(i, mover, k, d, sign * (PV[pchild[pm, a], h0, h1] - PV[pm, h0, h1]), adv, dev)
            m = child[m, a]
            pm = pchild[pm, a]
            d += 1


@njit(cache=True)
def _exact(i, n, F, child, vidx, V, pchild, ploc, s_opp, c_own, c_opp, p_own, p_opp):
    """The rollout responder's exact expected payoff (seat i), walking the full public tree depth
    first: at its nodes each own hand follows the action its rule picks under the exact posterior
    (the opponent's chance x reach carried down the path); at the opponent's nodes every move is
    weighted by the policy."""
    Hi = c_own.shape[0]
    Hj = c_opp.shape[0]
    K = c_opp.max() + 2
    path = np.zeros(n + 2, np.int64)
    nxt = np.zeros(n + 2, np.int64)
    pnd = np.zeros(n + 2, np.int64)
    rn = np.zeros(n + 2, np.int64)  # the responder's node and the policy's at each depth
    pn = np.zeros(n + 2, np.int64)
    ro = np.zeros((n + 2, Hj))
    acc = np.zeros((n + 2, Hi))
    pick = np.zeros((n + 2, Hi), np.int64)  # the responder's action per hand at its frames
    live = np.zeros((n + 2, Hi), np.bool_)  # hands that reach the frame through their own choices
    below = np.zeros(K)
    q = 0
    f = 0
    total = 0.0
    sign = 1.0
    for g in range(Hj):
        ro[0, g] = p_opp[g]
    for h in range(Hi):
        live[0, h] = True
    d = np.int64(0)
    entering = True
    while True:
        mover = d % 2
        t = path[d - 1] if d > 0 else -1
        if entering:
            entering = False
            kk = n - 1 - t + (1 if d > 0 else 0)
            if mover != i:
                pnd[d] = ploc[pn[d]]
            for h in range(Hi):
                acc[d, h] = 0.0
            if d > 0:
                q = t // F + 1
                f = t % F + 1
                for x in range(K):
                    below[x] = 0.0
                for g in range(Hj):
                    wgt = ro[d, g] * (s_opp[pnd[d] + kk - 1, g] if mover != i else 1.0)
                    below[c_opp[g, f] + 1] += wgt
                for x in range(1, K):
                    below[x] += below[x - 1]
                total = below[K - 1]
                sign = 1.0 if mover != i else -1.0
            for h in range(Hi):
                if not live[d, h]:
                    continue
                if mover == i:
                    a = _choose(n, F, child, rn[d], vidx, V, t, d, c_own[h], c_opp, h, ro[d])
                    pick[d, h] = a
                    if a == n:
                        jj = q - c_own[h, f]
                        lo = 0.0 if jj <= 0 else below[min(jj, K - 1)]
                        acc[d, h] = sign * (total - 2.0 * lo)
                elif d > 0:
                    jj = q - c_own[h, f]
                    lo = 0.0 if jj <= 0 else below[min(jj, K - 1)]
                    acc[d, h] = sign * (total - 2.0 * lo)
            nxt[d] = t + 1
        if nxt[d] < n:
            b = nxt[d]
            nxt[d] += 1
            anyh = False
            if mover == i:
                for h in range(Hi):
                    lv = live[d, h] and pick[d, h] == b
                    live[d + 1, h] = lv
                    if lv:
                        anyh = True
                if not anyh:
                    continue
                for g in range(Hj):
                    ro[d + 1, g] = ro[d, g]
            else:
                anyg = False
                for g in range(Hj):
                    r = ro[d, g] * s_opp[pnd[d] + b - t - 1, g]
                    ro[d + 1, g] = r
                    if r != 0.0:
                        anyg = True
                if not anyg:
                    continue
                for h in range(Hi):
                    lv = live[d, h]
                    live[d + 1, h] = lv
                    if lv:
                        anyh = True
                if not anyh:
                    continue
            path[d] = b
            rn[d + 1] = child[rn[d], b]
            pn[d + 1] = pchild[pn[d], b]
            d += 1
            entering = True
            continue
        if d == 0:
            break
        b = path[d - 1]
        d -= 1
        for h in range(Hi):
            if live[d + 1, h]:
                acc[d, h] += acc[d + 1, h]
    total = 0.0
    for h in range(Hi):
        total += p_own[h] * acc[0, h]
    return total


BY_MOVE_CAP = 8  # the moves of a round from the eighth on are counted together


def self_play_bytes(policy: DuelPolicy) -> int:
    """Bytes of :func:`self_play_values` (float32)."""
    return policy.dag.n_nodes * int(np.prod([len(policy.duel.hands(i)[0]) for i in (0, 1)])) * 4


def self_play_values(policy: DuelPolicy) -> np.ndarray:
    """``V[m, h0, h1]``: seat 0's expected payoff below the policy's node m when it plays itself, for
    every pair of hands (float32)."""
    from dicelab.liars.resolve import _node_values

    d, g = policy.duel, policy.dag
    _, _, c0 = d.hands(0)
    _, _, c1 = d.hands(1)
    V = np.zeros((g.n_nodes, len(c0), len(c1)), np.float32)
    s0, s1 = (np.ascontiguousarray(x, np.float64) for x in policy.strategy)
    _node_values(g.n, d.faces, g.top, g.mover, g.loc, g.child, c0, c1, s0, s1, np.full(g.n_nodes, -1, np.int64),
                 np.zeros((1, len(c0), len(c1)), np.float32), V)
    return V


def gain_by_move(bases: list[np.ndarray], advs: list[np.ndarray], devs: list[np.ndarray]) -> dict[str, Any]:
    """Where a responder gains, move by move (the performance-difference identity): each move's change
    of the value the policy's self-play gives the position (the payoff at the call). The responder's
    moves' changes are what choosing its move rather than the policy's is worth there; the policy's
    average 0. ``gain_by_move``: the mean over the seats of each move's part (``"1"``: the opening
    bid, ``"2"``: the answer to it, ... ``"8+"``), with 95% half-widths (``gain_by_move_ci``);
    ``policy_moves`` (and ``_ci``) the policy's part; with ``deal_value`` (self-play's value of
    the deals played, seats averaged: about 0) they add up to the bound (``bases``: each round's
    deal value, ``advs`` the responder's moves' parts, ``devs`` the policy's, one array per seat)."""
    cap = advs[0].shape[1]
    keys = [str(k) for k in range(1, cap)] + [f"{cap}+"]
    n = advs[0].shape[0]
    part = sum(a.mean(axis=0) for a in advs) / len(advs)
    ci = 1.96 * np.sqrt(sum(a.var(axis=0, ddof=1) for a in advs) / n) / len(advs)
    pol = sum(float(x.mean()) for x in devs) / len(devs)
    pol_ci = 1.96 * math.sqrt(sum(float(x.var(ddof=1)) for x in devs) / n) / len(devs)
    return {"gain_by_move": dict(zip(keys, part.tolist(), strict=True)),
            "gain_by_move_ci": dict(zip(keys, ci.tolist(), strict=True)),
            "policy_moves": pol, "policy_moves_ci": pol_ci,
            "deal_value": sum(float(b.mean()) for b in bases) / len(bases)}


def _seed(seed: int, *key: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1, np.uint32)[0])


def _args(policy: DuelPolicy, r: Responder) -> tuple[Any, ...]:
    d = policy.duel
    return (r.seat, d.n_bids, d.faces, r.dag.child, r.vidx, r.V, policy.dag.child, policy.dag.loc,
            np.ascontiguousarray(policy.strategy[1 - r.seat], dtype=np.float64))


def _seat_result(i: int, r: Responder, out: np.ndarray) -> dict[str, Any]:
    """Seat i's mean payoff with its 95% normal half-width, and the responder's own figures."""
    hw = 1.96 * float(out.std(ddof=1)) / math.sqrt(len(out))
    return {f"gain{i}": float(out.mean()), f"gain{i}_ci": hw, f"abstract{i}": r.abstract_value,
            f"passes{i}": r.passes, "window": r.window, "memory": r.dag.memory}


def learned_br(policy: DuelPolicy, rounds: int = ROUNDS, seed: int = 0, window: int | None = None,
               passes: int = 8, progress: bool = False) -> dict[str, Any]:
    """The learned responder in both seats against ``policy``, by playing ``rounds`` rounds per seat
    (``progress``: a bar on stderr over the learning passes and the rounds).

    Returns ``gain0``, ``gain1`` (mean payoffs of the rollout responder, each with a 95% normal
    half-width ``..._ci``), ``exploitability_lower`` = (gain_0 + gain_1) / 2 with its half-width, and
    ``abstract0``, ``abstract1``: the exact payoffs of the abstract responders (step 1 alone), and the
    bound split by the rounds' length (:func:`dicelab.liars.lbr.gain_by_bids`) and, where the policy's
    self-play values fit :data:`V_BYTES` (:func:`gain_by_move`), by the responder's moves.
    """
    require(isinstance(rounds, int) and rounds >= 2, f"rounds must be at least 2, got {rounds}")
    t0 = time.perf_counter()
    window, dag = responder_dag(policy, window)  # once for both seats
    d = policy.duel
    res: dict[str, Any] = {}
    outs, lengths = [], []
    pv = self_play_values(policy) if self_play_bytes(policy) <= V_BYTES else np.zeros((0, 0, 0), np.float32)
    bases, advs, devs = [], [], []
    with progress_bar("learned responder", 2 * (passes + 2), enabled=progress) as bar:
        for i in (0, 1):
            r = learn_response(policy, i, window, passes, dag=dag, advance=bar.advance)
            _, p_i, c_i = d.hands(i)
            _, p_j, c_j = d.hands(1 - i)
            out = np.zeros(rounds)
            bids = np.zeros(rounds, dtype=np.int64)
            base, adv, dev = np.zeros(rounds), np.zeros((rounds, BY_MOVE_CAP)), np.zeros(rounds)
            _rounds(*_args(policy, r)[:1], rounds, _seed(seed, i), *_args(policy, r)[1:], c_i, c_j, np.cumsum(p_i),
                    p_j, out, bids, pv, base, adv, dev)
            bar.advance(1)
            res.update(_seat_result(i, r, out))
            bases.append(base)
            advs.append(adv)
            devs.append(dev)
            outs.append(out)
            lengths.append(bids)
            del r
    res["exploitability_lower"] = (res["gain0"] + res["gain1"]) / 2.0
    res["exploitability_lower_ci"] = math.hypot(res["gain0_ci"], res["gain1_ci"]) / 2.0
    res["abstract_lower"] = (res["abstract0"] + res["abstract1"]) / 2.0
    res.update(gain_by_bids(outs, lengths))
    if pv.shape[0]:
        res.update(gain_by_move(bases, advs, devs))
    res["rounds"] = rounds
    res["seconds"] = time.perf_counter() - t0
    res["method"] = "learned"
    return res


def learned_br_exact(policy: DuelPolicy, window: int | None = None, passes: int = 8) -> dict[str, Any]:
    """The learned responder's exact payoff in both seats, walking the full public tree (at most
    :data:`~dicelab.liars.grading.MAX_EXACT_BIDS` bids: 2 v 2 with 6 faces takes about a minute)."""
    d = policy.duel
    require(d.n_bids <= MAX_EXACT_BIDS, f"exact evaluation walks every bid sequence; at most {MAX_EXACT_BIDS} bids")
    window, dag = responder_dag(policy, window)  # once for both seats
    res: dict[str, Any] = {}
    for i in (0, 1):
        r = learn_response(policy, i, window, passes, dag=dag)
        _, p_i, c_i = d.hands(i)
        _, p_j, c_j = d.hands(1 - i)
        res[f"gain{i}"] = float(_exact(*_args(policy, r), c_i, c_j, p_i, p_j))
        res[f"abstract{i}"] = r.abstract_value
        res["window"], res["memory"] = r.window, r.dag.memory
    res["exploitability_lower"] = (res["gain0"] + res["gain1"]) / 2.0
    res["abstract_lower"] = (res["abstract0"] + res["abstract1"]) / 2.0
    return res


__all__ = ["Responder", "learn_response", "learned_br", "learned_br_exact", "responder_dag"]
