"""Re-solving a duel from the exact ranges: what a window policy forgets, given back at play time.

A window policy (:mod:`dicelab.liars.duel`) plays the same way at every history that ends in the
same last bids, so an opponent who remembers more can steer into histories where that shared play is
wrong (:mod:`dicelab.liars.responder` measures how much). The ranges -- each seat's probability of
every hand given all the bids so far -- remember the whole history. Here, at every decision, the
rest of the round is solved again on the same window abstraction, but from the current node with
both seats' exact ranges as its start (unsafe nested re-solving: the ranges come from the policy
actually played, re-solved at every earlier decision too). Inside the subgame the window still
forgets, but only bids made after the current one.

:func:`resolve_profile` builds the whole nested re-solved profile on the exact solver's tree (at
most 18 bids) so that it is graded exactly (:func:`dicelab.liars.cfr.evaluate_profile`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.liars.cfr import Tree, build_tree, evaluate_profile
from dicelab.liars.contexts import as_window_policy
from dicelab.liars.duel import (
    SAMPLED_METHODS,
    Dag,
    DuelPolicy,
    _discounts,
    _iterate,
    _normalise_rows,
    work_arrays,
)


@dataclass(frozen=True)
class SubDag:
    """The part of a window DAG below one node, renumbered so that the node is 0."""

    n: int
    nodes: np.ndarray  # global node of every local node (local 0 = the root)
    top: np.ndarray
    mover: np.ndarray
    loc: np.ndarray
    child: np.ndarray
    rows: tuple[int, int]
    leaf: np.ndarray  # leaf[m] >= 0: a frontier node (its index among the frontier), else -1

    @property
    def frontier(self) -> np.ndarray:
        """The local nodes of the frontier, in the order of their ``leaf`` index."""
        return np.flatnonzero(self.leaf >= 0)


def sub_dag(dag: Dag, root: int, depth: int | None = None) -> SubDag:
    """Every node of ``dag`` reachable from ``root`` (in the DAG's order, which is topological); with
    ``depth`` (at most the window), only those within ``depth`` bids, the last of them the frontier.
    Within the window no two paths from the root meet (each node holds the root's top bid and the
    bids made since, in order), so the depth of a node is well defined."""
    n, N = dag.n, dag.n_nodes
    require(depth is None or 1 <= depth <= dag.window, f"the depth must be 1 to the window ({dag.window}), got {depth}")
    seen = np.zeros(N, dtype=bool)
    seen[root] = True
    level = np.full(N, -1, dtype=np.int64)
    level[root] = 0
    for m in range(root, N):
        if seen[m] and (depth is None or level[m] < depth):
            kids = dag.child[m]
            kids = kids[kids >= 0]
            seen[kids] = True
            level[kids] = level[m] + 1
    nodes = np.flatnonzero(seen)
    local = np.full(N, -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    top = dag.top[nodes].copy()
    mover = dag.mover[nodes].copy()
    loc = np.zeros(len(nodes), dtype=np.int64)
    rows = [0, 0]
    for k, t in enumerate(top):
        p = int(mover[k])
        loc[k] = rows[p]
        rows[p] += n - 1 - int(t) + (1 if t >= 0 else 0)
    g = dag.child[nodes]
    child = np.where(g >= 0, local[np.maximum(g, 0)], -1).astype(np.int32)
    leaf = np.full(len(nodes), -1, dtype=np.int64)
    if depth is not None:
        edge = level[nodes] == depth
        leaf[edge] = np.arange(int(edge.sum()))
        child[edge] = -1
    return SubDag(n, nodes, top, mover, loc, child, (rows[0], rows[1]), leaf)


@njit(cache=True)
def _call0(c0, c1, h0, h1, t, F, caller):
    """Seat 0's payoff when ``caller`` calls the bid of rank t: the bidder (the other seat) wins if it holds."""
    holds = c0[h0, t % F + 1] + c1[h1, t % F + 1] >= t // F + 1
    win0 = holds if caller == 1 else not holds
    return 1.0 if win0 else -1.0


@njit(cache=True)
def _follow(n, F, m, top, mover, loc, child, c0, c1, s0, s1, V):
    """V[m] when the mover at m follows its strategy (its children's values already in V)."""
    t = top[m]
    r0 = loc[m]
    k = n - 1 - t + (1 if t >= 0 else 0)
    who = mover[m]
    for h0 in range(c0.shape[0]):
        for h1 in range(c1.shape[0]):
            x = 0.0
            if t >= 0:
                pc = s0[r0 + k - 1, h0] if who == 0 else s1[r0 + k - 1, h1]
                x = pc * _call0(c0, c1, h0, h1, t, F, who)
            for b in range(t + 1, n):
                p = s0[r0 + b - t - 1, h0] if who == 0 else s1[r0 + b - t - 1, h1]
                if p > 0.0:
                    x += p * V[child[m, b], h0, h1]
            V[m, h0, h1] = x


@njit(cache=True)
def _node_values(n, F, top, mover, loc, child, c0, c1, s0, s1, leaf, leaf_v, V):
    """V[m, h0, h1]: seat 0's payoff below node m when both seats follow (s0, s1), for every pair of hands
    (at a frontier node, ``leaf_v[leaf[m]]``)."""
    for m in range(top.shape[0] - 1, -1, -1):
        if leaf[m] >= 0:
            V[m] = leaf_v[leaf[m]]
        else:
            _follow(n, F, m, top, mover, loc, child, c0, c1, s0, s1, V)


@njit(cache=True)
def _solve_loop(iterations, i, n, F, top, mover, loc, child, c_i, c_j, r_i, r_j, cfv, use_cfv, alpha, beta, gamma,
                reg_i, reg_j, avg_i, avg_j, s_i, s_j, inst_i, inst_j, ro, rs_i, rs_j, U_i, U_j, term_i, term_j,
                rv_i, rv_j, leaf, lv_i, lv_j, enter, greg, gavg):
    """DCFR on the subgame with alternating updates (the mover i, then j), and the gadget of j."""
    j = 1 - i
    Hj = c_j.shape[0]
    p_i = np.empty(Hj)  # j's weights as i sees them: its range times its chance of entering
    for t in range(iterations):
        pos, neg, w = _discounts(t, alpha, beta, gamma)
        for g in range(Hj):
            p_i[g] = r_j[g] * enter[g]
        _iterate(i, n, F, top, mover, loc, child, c_i, c_j, p_i, p_i, 0, reg_i, avg_i, s_i, s_j, inst_i, ro, rs_i,
                 U_i, term_i, w, pos, neg, rv_i, leaf, lv_i)
        _iterate(j, n, F, top, mover, loc, child, c_j, c_i, r_i, r_i, 0, reg_j, avg_j, s_j, s_i, inst_j, ro, rs_j,
                 U_j, term_j, w, pos, neg, rv_j, leaf, lv_j)
        if use_cfv:
            for g in range(Hj):  # regret matching+ between taking the constraint (0) and entering (1)
                v = enter[g] * rv_j[g] + (1.0 - enter[g]) * cfv[g]
                greg[0, g] = max(greg[0, g] + cfv[g] - v, 0.0)
                greg[1, g] = max(greg[1, g] + rv_j[g] - v, 0.0)
                tot = greg[0, g] + greg[1, g]
                enter[g] = greg[1, g] / tot if tot > 0.0 else 0.5
                gavg[g] += w * enter[g]


@dataclass
class Subgame:
    """A solved subgame: both seats' average strategies and seat 0's values at every node."""

    sub: SubDag
    strategy: tuple[np.ndarray, np.ndarray]
    values: np.ndarray  # values[m, h0, h1]
    enter: np.ndarray | None  # the opponent's chance of entering rather than taking its constraint, per hand

    def root_strategy(self) -> np.ndarray:
        i = int(self.sub.mover[0])
        k = self.sub.n - 1 - int(self.sub.top[0]) + (1 if self.sub.top[0] >= 0 else 0)
        return self.strategy[i][:k]


@njit(cache=True)
def _response_values(n, F, top, mover, loc, child, c0, c1, s0, s1, i, root_reach, leaf, leaf_v, reach, V):
    """As :func:`_node_values`, but the seat ``1 - i`` best-responds to seat i's strategy: at each of its
    nodes and hands it takes the move whose value, weighted by i's reach into the node (from
    ``root_reach``, summed over paths), is best for it. Those are the values a later solve may promise
    it: the average strategy's own values are not, because a hand that never reaches a node keeps a
    uniform average there."""
    N = top.shape[0]
    H0 = c0.shape[0]
    H1 = c1.shape[0]
    Hi = H0 if i == 0 else H1
    for m in range(N):
        for h in range(Hi):
            reach[m, h] = 0.0
    for h in range(Hi):
        reach[0, h] = root_reach[h]
    for m in range(N):
        if leaf[m] >= 0:
            continue
        t = top[m]
        r0 = loc[m]
        for b in range(t + 1, n):
            c = child[m, b]
            for h in range(Hi):
                p = 1.0
                if mover[m] == i:
                    p = s0[r0 + b - t - 1, h] if i == 0 else s1[r0 + b - t - 1, h]
                reach[c, h] += reach[m, h] * p
    sj = 1.0 if i == 1 else -1.0  # the responder's payoff is sj * (seat 0's)
    Hj = H1 if i == 0 else H0
    for m in range(N - 1, -1, -1):
        if leaf[m] >= 0:
            V[m] = leaf_v[leaf[m]]
            continue
        t = top[m]
        who = mover[m]
        if who == i:
            _follow(n, F, m, top, mover, loc, child, c0, c1, s0, s1, V)
        else:
            for g in range(Hj):
                best = -1e300
                best_b = -1
                if t >= 0:  # the call, weighed by i's reach
                    best = 0.0
                    for h in range(Hi):
                        h0 = h if i == 0 else g
                        h1 = g if i == 0 else h
                        best += reach[m, h] * sj * _call0(c0, c1, h0, h1, t, F, who)
                for b in range(t + 1, n):
                    c = child[m, b]
                    x = 0.0
                    for h in range(Hi):
                        h0 = h if i == 0 else g
                        h1 = g if i == 0 else h
                        x += reach[m, h] * sj * V[c, h0, h1]
                    if x > best + 1e-12:
                        best = x
                        best_b = b
                for h in range(Hi):
                    h0 = h if i == 0 else g
                    h1 = g if i == 0 else h
                    if best_b < 0:
                        V[m, h0, h1] = _call0(c0, c1, h0, h1, t, F, who)
                    else:
                        V[m, h0, h1] = V[child[m, best_b], h0, h1]


def blueprint_values(policy: DuelPolicy) -> np.ndarray:
    """Seat 0's payoff below every node of the policy's DAG for every pair of hands, both seats
    following the policy: the frontier values of depth-limited re-solving (nodes x hands x hands)."""
    d, dag = policy.duel, policy.dag
    c0, c1 = d.hands(0)[2], d.hands(1)[2]
    V = np.zeros((dag.n_nodes, c0.shape[0], c1.shape[0]))
    s0 = np.ascontiguousarray(policy.strategy[0], dtype=np.float64)
    s1 = np.ascontiguousarray(policy.strategy[1], dtype=np.float64)
    _node_values(dag.n, d.faces, dag.top, dag.mover, dag.loc, dag.child, c0, c1, s0, s1,
                 np.full(dag.n_nodes, -1, np.int64), np.zeros((1, 1, 1)), V)
    return V


def solve_subgame(sub: SubDag, faces: int, counts: tuple[np.ndarray, np.ndarray], ranges: tuple[np.ndarray, np.ndarray],
                  iterations: int = 200, method: str = "abstract", cfv: np.ndarray | None = None,
                  frontier: np.ndarray | None = None, respond: bool = False) -> Subgame:
    """Solve the subgame below ``sub``'s root from ``ranges`` (each seat's weight on every hand), every
    opponent hand enumerated (DCFR as :func:`dicelab.liars.duel.train_duel`).

    With ``cfv`` (safe re-solving, Burch, Johanson and Bowling 2014): the seat not to move may, hand by
    hand, take ``cfv[g]`` (its counterfactual value promised by the previous solve, per unit of the
    mover's normalised range) instead of playing the subgame, so the mover's new strategy must give it
    no more than that on any hand; its ``ranges`` entry then only weighs the hands.

    ``frontier``: seat 0's values at the frontier nodes of a depth-limited ``sub`` (frontier x hands x
    hands, as :func:`blueprint_values` gives them for ``sub.nodes[sub.frontier]``).

    ``values`` of the result: seat 0's payoff at every node for every pair of hands when both seats
    follow the average strategies, or (``respond``) when the seat not to move best-responds to the
    mover's average strategy from the root's ranges (:func:`_response_values`).
    """
    c0, c1 = counts
    H = (c0.shape[0], c1.shape[0])
    n, N = sub.n, len(sub.top)
    i = int(sub.mover[0])
    j = 1 - i
    reg = [np.zeros((sub.rows[x], H[x])) for x in (0, 1)]
    avg = [np.zeros((sub.rows[x], H[x])) for x in (0, 1)]
    wa = work_arrays(n, sub.top, sub.mover, sub.loc, sub.rows, H, reg)
    s, ro, rs, U, term, inst = wa["s"], wa["ro"], wa["rs"], wa["U"], wa["term"], wa["inst"]
    rv = [np.zeros(H[0]), np.zeros(H[1])]
    r = [np.ascontiguousarray(ranges[0], dtype=np.float64), np.ascontiguousarray(ranges[1], dtype=np.float64)]
    c = (c0, c1)
    enter = np.ones(H[j])
    greg = np.zeros((2, H[j]))  # the opponent's regrets for (take the constraint, enter)
    gavg = np.zeros(H[j])
    if frontier is None:
        require(not (sub.leaf >= 0).any(), "a depth-limited subgame needs the values at its frontier")
        frontier = np.zeros((1, H[0], H[1]))
    lv = (np.ascontiguousarray(frontier), np.ascontiguousarray(-frontier.transpose(0, 2, 1)))
    a, b, g, _ = SAMPLED_METHODS[method]
    use = cfv is not None
    con = np.ascontiguousarray(cfv, dtype=np.float64) if use else np.zeros(H[j])
    _solve_loop(iterations, i, n, faces, sub.top, sub.mover, sub.loc, sub.child, c[i], c[j], r[i], r[j], con, use,
                a, b, g, reg[i], reg[j], avg[i], avg[j], s[i], s[j], inst[i], inst[j], ro, rs[i], rs[j], U[i], U[j],
                term[i], term[j], rv[i], rv[j], sub.leaf, lv[i], lv[j], enter, greg, gavg)
    out = []
    for x in (0, 1):
        o = np.zeros_like(avg[x])
        _normalise_rows(sub.top, sub.loc, sub.mover, x, n, avg[x], o)
        out.append(o)
    V = np.zeros((N, H[0], H[1]))
    if respond:
        _response_values(n, faces, sub.top, sub.mover, sub.loc, sub.child, c0, c1, out[0], out[1], i, r[i], sub.leaf,
                         lv[0], np.zeros((N, H[i])), V)
    else:
        _node_values(n, faces, sub.top, sub.mover, sub.loc, sub.child, c0, c1, out[0], out[1], sub.leaf, lv[0], V)
    wsum = sum(_discounts(t, a, b, g)[2] for t in range(iterations))
    return Subgame(sub, (out[0], out[1]), V, gavg / wsum if cfv is not None else None)


def _unit(x: np.ndarray) -> np.ndarray:
    tot = x.sum()
    return x / tot if tot > 0 else x


def resolve_profile(policy: DuelPolicy, iterations: int = 200, floor: float = 0.1, safe: bool = True,
                    depth: int | None = None, max_bids: int | None = None, constraints: str = "response",
                    tree: Tree | None = None) -> dict[str, Any]:
    """The nested re-solved profile of ``policy`` on the full tree and its exact grade.

    At every public node the seat to move re-solves the rest of the round on the policy's window
    abstraction, from the exact ranges (each seat's chance times its probability of every move so far
    under this same re-solved profile). ``floor`` mixes that share of the chance distribution into
    the opponent's range, so that every hand keeps some weight. ``safe``: the opponent's values from
    the mover's previous solve (two bids up; the first two nodes from the solve at the root) are its
    constraints (continual re-solving, as in DeepStack); otherwise the ranges alone are trusted
    (unsafe re-solving). Returns the grade (:func:`dicelab.liars.cfr.evaluate_profile`) and the
    profile. ``depth``: re-solve only that many bids ahead (at most the window), with the policy's own
    values (:func:`blueprint_values`) at the frontier. ``max_bids``: re-solve only while at most that
    many bids have been made; later the policy plays. ``constraints``: the opponent's values promised
    by the previous solve are its best response to the mover's plan there (``"response"``) or the
    plan's own values (``"average"``; too low for hands that never reach a node, which the re-solve
    then pays for with the others).
    """
    require(constraints in ("response", "average"), f"constraints are 'response' or 'average', got {constraints!r}")
    require(not policy.dag.faces, "re-solving works on a window or a context tree, not on faces kept beyond them")
    policy = as_window_policy(policy)  # a context tree: the same behaviour on a window
    from dicelab.liars.cfr import DuelRules
    from dicelab.liars.grading import _mask_nodes

    d = policy.duel
    require(d.n_bids <= 18, "re-solving is graded on the full tree, at most 18 bids")
    t0 = time.perf_counter()
    tree = tree or build_tree(DuelRules(d.dice, d.faces, d.wild))
    dag = policy.dag
    n, N = d.n_bids, tree.n_nodes
    gnode = _mask_nodes(policy, N)
    _, p0, c0 = d.hands(0)
    _, p1, c1 = d.hands(1)
    chance = (p0, p1)
    R = [np.zeros((N, len(p0))), np.zeros((N, len(p1)))]
    R[0][0], R[1][0] = p0, p1
    cfv = [np.full((N, len(p0)), np.nan), np.full((N, len(p1)), np.nan)]  # cfv[x][m]: seat x's constraint at m
    s = [np.zeros((tree.n_edges, len(p0))), np.zeros((tree.n_edges, len(p1)))]
    subs: dict[int, SubDag] = {}
    V_blue = blueprint_values(policy) if depth is not None else None
    solves = 0
    for m in range(N):
        t = int(tree.top[m])
        i = m.bit_count() % 2
        j = 1 - i
        e0 = int(tree.off[m])
        k = n - 1 - t + (1 if t >= 0 else 0)
        root = int(gnode[m])
        game = None
        if R[i][m].sum() == 0.0 or (max_bids is not None and m.bit_count() > max_bids):  # the policy plays
            loc = int(dag.loc[root])
            strat = np.asarray(policy.strategy[i][loc:loc + k], dtype=np.float64)
            strat = strat / strat.sum(axis=0)
        else:
            sub = subs.get(root)
            if sub is None:
                sub = subs[root] = sub_dag(dag, root, depth)
            rng: list[np.ndarray] = [np.empty(0), np.empty(0)]
            rng[i] = _unit(R[i][m])
            rng[j] = (1.0 - floor) * (_unit(R[j][m]) if R[j][m].sum() > 0 else chance[j]) + floor * chance[j]
            con = cfv[j][m] if safe and m != 0 else None
            if con is not None and np.isnan(con).any():
                con = None
            front = V_blue[sub.nodes[sub.frontier]] if V_blue is not None else None
            game = solve_subgame(sub, d.faces, (c0, c1), (rng[0], rng[1]), iterations, cfv=con, frontier=front,
                                 respond=safe and constraints == "response")
            solves += 1
            strat = game.root_strategy()
        s[i][e0:e0 + k] = strat
        for b in range(t + 1, n):
            cm = m | (1 << b)
            R[i][cm] = R[i][m] * strat[b - t - 1]
            R[j][cm] = R[j][m]
        if game is None or not safe:
            continue
        sign = 1.0 if i == 0 else -1.0  # seat i's values are sign * V
        V_i = game.values
        if m == 0 and constraints == "response":  # seat i's constraints at the first reply: its response to j
            V_i = np.zeros_like(game.values)
            _response_values(n, d.faces, sub.top, sub.mover, sub.loc, sub.child, c0, c1, game.strategy[0],
                             game.strategy[1], j, rng[j], sub.leaf, front if front is not None else np.zeros((1, 1, 1)),
                             np.zeros((len(sub.top), len(rng[j]))), V_i)
        for b in range(t + 1, n):
            cm = m | (1 << b)
            lc = int(sub.child[0, b])
            if m == 0:  # the first reply: seat 0's constraint comes from the root solve
                cfv[0][cm] = V_i[lc] @ _unit(R[1][cm])
            if R[i][cm].sum() == 0.0:
                continue
            ri = _unit(R[i][cm])
            for b2 in range(b + 1, n):
                lc2 = int(sub.child[lc, b2])
                v2 = game.values[lc2] if lc2 >= 0 else V_blue[dag.child[dag.child[root, b], b2]]
                vj = -sign * (ri @ v2 if i == 0 else v2 @ ri)
                cfv[j][cm | (1 << b2)] = vj
    grade = evaluate_profile(tree, s[0], s[1])
    return {**grade, "solves": solves, "seconds": time.perf_counter() - t0, "profile": (s[0], s[1]), "tree": tree}


__all__ = ["SubDag", "Subgame", "blueprint_values", "resolve_profile", "solve_subgame", "sub_dag"]
