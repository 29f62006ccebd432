"""Memory that grows where it pays: a context tree over the bid history (issue 26, item 2).

A window policy (:mod:`dicelab.liars.duel`) remembers the last ``w`` bids everywhere, and its
tables grow like ``bids^w``. Here a node remembers the last ``window`` bids, or more where that
was measured to matter: the policy keeps a set of longer *contexts* (the last ``k`` bids, the
oldest possibly the round's start), and a history falls in the longest context that ends it. The
set is closed under dropping the oldest or the newest bid, so a node and a bid decide the next
node and the abstraction is still a DAG that CFR trains as before (a variable-order Markov model
of the history; the same idea as context-tree models of sequences).

Which contexts to add: the policy is played on a DAG one bid finer than its own (every candidate
context added at once, the policy copied into them), and each player's counterfactual regrets of
every action are computed there against the policy, every opponent hand enumerated. Splitting a
candidate ``c`` off the node ``s`` it falls in lets its histories choose their own action, which
is worth ``M(R_c) + M(R_s - R_c) - M(R_s)`` with ``M(R) = sum over hands of max over actions of R``
(a local best response's gain, never negative since ``M`` is convex). :func:`train_contexts` adds
the candidates of largest gain per row until the tables grow by a factor, trains again, and
repeats up to a row budget.

The graders walk a tree on its own nodes; :func:`as_window_policy` writes the same behaviour out on
the window DAG as long as the longest context (re-solving reads that form; tests compare the two).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.liars.duel import (
    CHUNK,
    Dag,
    Duel,
    DuelPolicy,
    _all_blocks,
    block_size,
    build_dag,
    check_fits,
    context_code,
    context_of_code,
    default_method,
    train_duel,
    training_bytes,
)

Key = tuple[int, tuple[int, ...]]


def node_keys(dag: Dag) -> list[Key]:
    """``(parity, context)`` of every node of ``dag``: the last bids, a -1 first for a context longer
    than the window that starts at the round's start (one shorter than the window starts there too)."""
    n, w = dag.n, dag.window
    keys: list[Key] = [(0, ())] * dag.n_nodes
    base_top = 2 * (n + 1) ** w
    for c, m in zip(dag.codes, dag.code_node, strict=True):
        if c < base_top:
            p, ctx = context_of_code(int(c), n, w, w)
            keys[int(m)] = (p, tuple(x for x in ctx if x >= 0))
        else:
            keys[int(m)] = context_of_code(int(c), n, w, dag.longest)
    return keys


def contexts_of(dag: Dag) -> set[Key]:
    """The contexts longer than the window that ``dag`` was built with."""
    if dag.contexts is None:
        return set()
    return {context_of_code(int(c), dag.n, dag.window, dag.longest) for c in dag.contexts}


def candidates(dag: Dag, longest: int, keys: list[Key] | None = None) -> set[Key]:
    """Every context one bid longer than a node of ``dag`` (at most ``longest``) that keeps the set
    closed: its newest bid dropped must be a context already (or the window). ``keys``: the nodes'
    :func:`node_keys`, when the caller has them."""
    have = contexts_of(dag)
    w = dag.window
    out: set[Key] = set()
    for p, ctx in (node_keys(dag) if keys is None else keys)[1:]:
        if len(ctx) < w or len(ctx) >= longest or ctx[0] == -1:
            continue  # the whole history already, or as long as allowed
        for x in [-1, *range(ctx[0])]:
            if x == -1 and len(ctx) % 2 != p:
                continue
            c = (p, (x, *ctx))
            if len(ctx) == w or (1 - p, c[1][:-1]) in have:
                out.add(c)
    return out


@njit(cache=True)
def _regret_pass(i, n, F, top, mover, loc, sloc, child, c_own, c_opp, p_opp, cum_opp, samples, seed, s_own, s_opp,
                 inst, block):
    """Player i's counterfactual regrets ``inst[loc[m] + j, h]`` on a DAG whose node m plays the
    strategy rows from ``sloc[m]`` (a coarser DAG's table), opponent hands enumerated with their
    chances (``samples == 0``) or ``samples`` of them drawn: the training pass without its update,
    ``block`` opponent hands at a time."""
    np.random.seed(seed)
    N = top.shape[0]
    H = c_own.shape[0]
    ro = np.zeros((N, block))
    U = np.zeros((N, block, H))
    term = np.zeros((block, H))
    leaf = np.full(N, -1, np.int64)
    leaf_v = np.zeros((1, 1, 1))
    _all_blocks(i, n, F, top, mover, loc, sloc, child, c_own, c_opp, p_opp, cum_opp, samples, s_own, s_opp, inst, ro,
                U, term, leaf, leaf_v, np.zeros(H))


def regrets(duel: Duel, dag: Dag, sloc: np.ndarray, strategy: tuple[np.ndarray, np.ndarray], samples: int = 0,
            seed: int = 0) -> list[np.ndarray]:
    """Each seat's counterfactual regret of every action at every node of ``dag`` (rows of ``dag``,
    per own hand) when node m plays ``strategy`` rows from ``sloc[m]``, against the other seat
    playing the same; opponent hands enumerated (``samples == 0``) or drawn."""
    hands = [duel.hands(i) for i in (0, 1)]
    s = [np.ascontiguousarray(x, dtype=np.float64) for x in strategy]
    out = []
    for i in (0, 1):
        j = 1 - i
        H = len(hands[i][1])
        inst = np.zeros((dag.rows[i], H))
        _regret_pass(i, dag.n, duel.faces, dag.top, dag.mover, dag.loc, sloc, dag.child, hands[i][2], hands[j][2],
                     hands[j][1], np.cumsum(hands[j][1]), samples, seed + i, s[i], s[j], inst,
                     block_size(dag.n_nodes, H))
        out.append(inst)
    return out


def _local_gain(r: np.ndarray, chances: np.ndarray | None = None) -> float:
    best = r.max(axis=0)
    return float(best.sum() if chances is None else best @ chances)


def split_gains(policy: DuelPolicy, longest: int, samples: int = 0, seed: int = 0,
                weighted: bool = False) -> dict[Key, float]:
    """The candidates of :func:`candidates` with the gain of splitting each off its node, per row it
    adds (the regrets with every opponent hand, or ``samples`` drawn ones).

    The regrets are each own hand's (the opponent's hands weighted by their chances, the own hand
    given). ``weighted``: each own hand's gain weighted by its chance too, so that the gains are
    expected values a round, comparable across hands and across seats with different dice; else
    every own hand counts alike, which leans to rare hands and to the seat with more hands."""
    dag, duel = policy.dag, policy.duel
    chances = [duel.hands(i)[1] if weighted else None for i in (0, 1)]
    coarse_keys = node_keys(dag)
    cand = candidates(dag, longest, coarse_keys)
    if not cand:
        return {}
    fine = build_dag(dag.n, dag.window, contexts_of(dag) | cand, longest)
    fine_keys = node_keys(fine)
    parent_of = {c: (c[0], c[1][1:]) for c in cand}  # the oldest bid dropped: the node it falls in now
    coarse_index = {k: m for m, k in enumerate(coarse_keys)}
    sloc = np.array([dag.loc[coarse_index[parent_of.get(k, k)]] for k in fine_keys], dtype=np.int64)
    r = regrets(duel, fine, sloc, policy.strategy, samples, seed)
    total: dict[Key, np.ndarray] = {}
    part: dict[Key, np.ndarray] = {}
    for m, key in enumerate(fine_keys[1:], start=1):
        block = r[key[0]][fine.loc[m]:fine.loc[m] + dag.n - int(fine.top[m])]
        home = parent_of.get(key, key)
        total[home] = total[home] + block if home in total else block.copy()
        if key in parent_of:
            part[key] = block
    whole = {s: _local_gain(x, chances[s[0]]) for s, x in total.items()}  # each node's gain, once
    out: dict[Key, float] = {}
    for c, x in part.items():
        s, w = parent_of[c], chances[c[0]]
        out[c] = (_local_gain(x, w) + _local_gain(total[s] - x, w) - whole[s]) / x.shape[0]
    return out


def warm_start(policy: DuelPolicy, dag: Dag) -> DuelPolicy:
    """``policy``'s training state carried onto ``dag``, a tree holding every context of
    ``policy.dag`` and more: each node starts from the regrets and average of the node its histories
    fell in before (its context with the oldest bids dropped), at the iteration the policy reached,
    ready to resume (:func:`~dicelab.liars.duel.train_duel` with ``resume``)."""
    require(policy.state is not None, "warm starting needs the policy's training state")
    old = {k: m for m, k in enumerate(node_keys(policy.dag))}
    n = dag.n
    state = {f"{x}{i}": np.zeros((dag.rows[i], policy.state[f"{x}{i}"].shape[1])) for x in ("reg", "avg")
             for i in (0, 1)}
    for m, key in enumerate(node_keys(dag)):
        home = key
        while home not in old:
            require(len(home[1]) > 0, "the finer DAG holds a node the coarser one cannot place")
            home = (home[0], home[1][1:])
        v = old[home]
        i = int(dag.mover[m])
        k = n - 1 - int(dag.top[m]) + (1 if m != 0 else 0)
        for x in ("reg", "avg"):
            state[f"{x}{i}"][dag.loc[m]:dag.loc[m] + k] = policy.state[f"{x}{i}"][policy.dag.loc[v]:policy.dag.loc[v] + k]
    return DuelPolicy(policy.duel, dag, policy.strategy, dict(policy.meta), state)


def grown_rows(start: int, max_rows: int, grow: float = 1.5) -> float:
    """The rows of the last step of a warm growth (:func:`train_contexts` with ``warm``) from a window
    of ``start`` rows: each step holds ``grow`` times the rows of the one before (to within 1%), and
    the last is the first that another step would take past ``max_rows``. A cold growth's steps fall
    short of ``grow`` times (a new context can leave an older node unreached), so there it is a guide.
    Near a budget where a step short by 1% fits one more, the growth takes one step more than this."""
    rows = float(start)
    while rows * grow <= max_rows:
        rows *= grow
    return rows


def train_contexts(duel: Duel, max_rows: int, window: int = 2, longest: int = 6, grow: float = 1.5,
                   iterations: int = 300, method: str | None = None, seed: int = 0, samples: int | None = None,
                   step_iterations: int | None = None, gain_samples: int = 0, progress: bool = False,
                   say: Any = None, warm: bool = False, weighted: bool = False) -> DuelPolicy:
    """Train on the window, then add the contexts worth most (:func:`split_gains`) until the tables
    hold ``grow`` times the rows, train again, and repeat while another step stays within ``max_rows``.

    ``step_iterations`` (default ``iterations``) trains the policies that only choose the next
    contexts; the last one gets ``iterations``. ``gain_samples``: opponent hands drawn for the gains
    (0: every hand). ``warm``: each step continues from the one before (:func:`warm_start`) instead
    of starting afresh, for ``step_iterations`` more, the last for ``iterations`` more. ``weighted``:
    the gains weighted by the own hand's chance (:func:`split_gains`)."""
    require(isinstance(max_rows, int) and max_rows > 0,
            f"the row budget must be a positive whole number, got {max_rows}")
    require(isinstance(grow, (int, float)) and grow > 1.0, f"grow must be above 1, got {grow}")
    require(isinstance(longest, int) and longest > window, f"the longest context must exceed the window ({window})")
    step_iterations = iterations if step_iterations is None else step_iterations
    require(isinstance(step_iterations, int) and 1 <= step_iterations <= iterations,
            f"step iterations must be from 1 to the iterations ({iterations}), got {step_iterations}")
    require(not warm or (step_iterations % CHUNK == 0 and iterations % CHUNK == 0),
            f"a warm start resumes training on chunks of {CHUNK} iterations: give step iterations and "
            f"iterations in multiples of {CHUNK}")
    check_fits(training_bytes(duel, max_rows, max_rows), f"a context tree of up to {max_rows:,} rows",
               "choose fewer rows")  # a node has a row or more: the nodes are at most the rows
    method = default_method(duel) if method is None else method
    have: set[Key] = set()
    history = []
    t0 = time.perf_counter()

    pol: DuelPolicy | None = None  # the last step's policy

    def fit(dag: Dag, its: int) -> DuelPolicy:
        if warm and pol is not None:
            return train_duel(duel, iterations=its, seed=seed, method=method, samples=samples,
                              resume=warm_start(pol, dag), progress=progress)
        return train_duel(duel, iterations=its, seed=seed, window=window, method=method, samples=samples, dag=dag,
                          progress=progress)

    while True:
        dag = build_dag(duel.n_bids, window, have, longest)
        rows = sum(dag.rows)
        last = rows * grow > max_rows
        pol = fit(dag, iterations if last else step_iterations)
        history.append({"rows": rows, "contexts": len(have), "seconds": round(time.perf_counter() - t0, 1)})
        if say is not None:
            say(f"{rows} rows, {len(have)} longer contexts")
        if last:
            break
        gains = split_gains(pol, longest, gain_samples, seed + len(history), weighted)
        if not gains:
            if step_iterations < iterations:
                pol = fit(dag, iterations)
            break
        order = sorted(gains, key=lambda c: (-gains[c], context_code(c[0], c[1], dag.n, window)))
        target, added, k = rows * grow, rows, 0
        while k < len(order):
            # each context adds at most its node's rows (fewer where it leaves an older node unreached)
            while k < len(order) and added < target:
                have.add(order[k])
                added += dag.n - order[k][1][-1]
                k += 1
            if not warm:
                break  # (the cold recipe's steps, as the library's policies were trained)
            added = sum(build_dag(duel.n_bids, window, have, longest).rows)  # the rows it really has
            if added >= 0.99 * target:
                break
    pol.meta.update({"contexts": {"window": window, "longest": longest, "grow": grow, "max_rows": max_rows,
                                  "step_iterations": step_iterations, "gain_samples": gain_samples, "warm": warm,
                                  **({"weighted": True} if weighted else {}),
                                  "steps": history}, "seconds": time.perf_counter() - t0})
    return pol


def as_window_policy(policy: DuelPolicy) -> DuelPolicy:
    """``policy`` itself for a window policy; for a context tree, the same behaviour on the window DAG
    as long as its longest context (what the graders read)."""
    dag = policy.dag
    if dag.contexts is None:
        return policy
    wide = build_dag(dag.n, dag.memory)
    n = dag.n
    s = [np.zeros((wide.rows[i], policy.strategy[i].shape[1]), dtype=np.float32) for i in (0, 1)]
    for m, (p, last) in enumerate(node_keys(wide)):
        v = dag.node_of(p, last)  # the whole history when shorter than the wide window, else its last bids
        k = n - 1 - int(wide.top[m]) + (1 if m != 0 else 0)
        s[p][wide.loc[m]:wide.loc[m] + k] = policy.strategy[p][dag.loc[v]:dag.loc[v] + k]
    return DuelPolicy(policy.duel, wide, (s[0], s[1]), dict(policy.meta))
