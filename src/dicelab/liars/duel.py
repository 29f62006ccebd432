"""A scalable solver for the two-player single-round Liar's Dice duel (1 v 1 up to 5 v 5 dice).

The exact solver (:mod:`dicelab.liars.cfr`) keeps one public node per *set* of bids made, 2^N for
N bids: 2^60 at 5 v 5. Here a player remembers only the last ``window`` bids (and whose turn it
is), as Neller and Hnath did for Dudo: an imperfect-recall abstraction whose public states form a
DAG (a node ``(parity, last bids)`` is reached by many bid sequences). The game stays Markov in
the last bid (legal raises and the call's payoff depend on it alone), so the value of a node below
it depends only on the node: the counterfactual value of an information set (node, own hand) is
the opponent's reach summed over every path into the node times that value. That makes CFR on
the DAG exact for a fixed opponent hand, and Monte Carlo CFR when the opponent's hand is sampled.

Each iteration, for each player ``i`` in turn (alternating updates):

1. sample the opponent's hand ``g`` from its chance distribution;
2. forward pass: the opponent's reach (a scalar, summed over paths) and ``i``'s own reach (a
   vector over ``i``'s hands) at every node;
3. backward pass: ``i``'s values (a vector over hands) and, at ``i``'s nodes, the sampled
   counterfactual regrets, discounted as in DCFR (or not, ``lcfr``); regret matching gives the
   new strategy and the average strategy gains ``t^gamma * own reach * strategy``.

Policies are stored without pickle (:mod:`dicelab.core.store`): node codes, the average strategy
of both seats (float32), and optionally the full training state so that training resumes and
gives the same result as an uninterrupted run with the same seed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, ClassVar

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.core.memory import machine_bytes
from dicelab.liars.cfr import DuelGame, hands_of
from dicelab.liars.rules import Bid

POLICY_KIND = "liars-duel-policy"
MAX_DUEL_DICE = 5
CHUNK = 50  # iterations per compiled call; each chunk re-seeds from (seed, chunk), so resuming is exact
# method -> (alpha, beta, gamma): positive regrets scaled by t^a / (t^a + 1), negative ones by
# t^b / (t^b + 1), the average weighted by t^gamma
SAMPLED_METHODS: dict[str, tuple[float, float, float, bool]] = {
    "abstract": (1.5, 0.0, 2.0, False),  # every opponent hand, every iteration: DCFR on the abstraction
    "mccfr": (1.5, 0.5, 2.0, True),  # opponent hands sampled, DCFR-style discounting
    "lcfr": (1.0, 1.0, 1.0, True),  # opponent hands sampled, linear CFR
}


@dataclass(frozen=True)
class Duel(DuelGame):
    """Two players, one round, payoff +1 / -1: dice per player (1 to 5), faces (2 to 6), wild; no
    size limit but the abstraction's memory (:class:`~dicelab.liars.cfr.DuelGame`'s checks)."""

    max_faces: ClassVar[int] = 6

    def hands(self, seat: int) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray]:
        """Sorted hands of ``seat``, their chances, and counts[h, f] of dice matching f (wilds included)."""
        h, p = hands_of(self.dice[seat], self.faces)
        c = np.zeros((len(h), self.faces + 1), dtype=np.int64)
        w = self.wild_face
        for i, hand in enumerate(h):
            for f in range(1, self.faces + 1):
                c[i, f] = sum(1 for x in hand if x == f or (w != 0 and x == w))
        return h, p, c


# ------------------------------------------------------------------------------------------------
# the abstract public DAG


def window_code(parity: int, bids: tuple[int, ...] | list[int], n: int, window: int) -> int:
    """The code of the node ``(parity, last ``window`` bids)``: digits ``bid + 1`` (0 = none), base n + 1."""
    last = list(bids)[-window:] if window > 0 else []
    code = 0
    for b in [-1] * (window - len(last)) + last:
        code = code * (n + 1) + (b + 1)
    return parity * (n + 1) ** window + code


def context_offset(n: int, base: int, length: int) -> int:
    """Where the codes of contexts ``length`` bids long start (after every shorter one's, from ``base``)."""
    return sum(2 * (n + 1) ** j for j in range(base, length))


def codes_fit(n: int, window: int, longest: int) -> bool:
    """Whether the codes of a DAG of ``n`` bids, a window and contexts up to ``longest`` bids fit 62 bits."""
    return 2 * (n + 1) ** longest < 2**62 and context_offset(n, window, longest) + 2 * (n + 1) ** longest < 2**62


def context_code(parity: int, ctx: tuple[int, ...], n: int, base: int) -> int:
    """The code of a context: the last ``len(ctx)`` bids (a leading -1: the round's start), with the
    window codes of contexts longer than ``base`` shifted past the shorter ones'."""
    bids = [b for b in ctx if b >= 0]
    return context_offset(n, base, len(ctx)) + window_code(parity, bids, n, len(ctx))


def context_of_code(code: int, n: int, base: int, longest: int) -> tuple[int, tuple[int, ...]]:
    """The inverse of :func:`context_code`: ``(parity, context)``."""
    for length in range(longest, base - 1, -1):
        off = context_offset(n, base, length)
        if code >= off:
            parity, rest = divmod(int(code) - off, (n + 1) ** length)
            digits = []
            for _ in range(length):
                rest, x = divmod(rest, n + 1)
                digits.append(x - 1)
            return parity, tuple(reversed(digits))
    raise DicelabError(f"{code} is not a context code")


@dataclass(frozen=True)
class Dag:
    """The abstract public states. Node 0 is the root; nodes are in increasing order of their top bid
    (children come after parents). Node m has ``n - 1 - top[m]`` raises then the call (none at the
    root); row ``loc[m] + j`` of the mover's strategy table is its j-th action.

    A node remembers the last ``window`` bids, or, where ``contexts`` holds a longer context (a
    context tree, :mod:`dicelab.liars.contexts`), the longest one of them that ends the history,
    up to ``longest`` bids."""

    n: int
    window: int
    codes: np.ndarray  # sorted codes
    code_node: np.ndarray  # node of codes[k]
    top: np.ndarray
    mover: np.ndarray
    loc: np.ndarray  # first row of the node's actions in its mover's table
    child: np.ndarray  # child[m, b]: node after bid b at m (-1 if not a legal raise)
    rows: tuple[int, int]  # rows of each player's table
    longest: int = 0  # the longest context (0: every node remembers exactly ``window`` bids)
    contexts: np.ndarray | None = None  # the codes of the contexts longer than the window, sorted
    faces: int = 0  # the faces, when a node remembers faces beyond its window (0: it remembers bids only)
    first: bool = False  # every node also remembers the face of the round's first bid
    older: int = 0  # ... or the faces of this many bids just before its window

    @property
    def n_nodes(self) -> int:
        return len(self.top)

    @property
    def memory(self) -> int:
        """The most bids a node remembers: the window, or the longest context the tree holds (which
        may stop short of ``longest``, the bound it was grown under and its codes are built on: a
        tree grows one bid a step, so a window of 2 grown in three steps holds 5 bids at most)."""
        if self.contexts is None or len(self.contexts) == 0:
            return self.window
        top, length = int(self.contexts[-1]), self.window  # the codes of longer contexts come after
        while length < self.longest and context_offset(self.n, self.window, length + 1) <= top:
            length += 1
        return length

    def _find(self, c: int) -> int:
        k = int(np.searchsorted(self.codes, c))
        return int(self.code_node[k]) if k < len(self.codes) and self.codes[k] == c else -1

    def node_of(self, parity: int, bids: tuple[int, ...] | list[int]) -> int:
        bids = list(bids)
        if self.faces:
            m = self._find(face_code(window_code(parity, bids, self.n, self.window),
                                     remembered_faces(bids, self.window, self.faces, self.first, self.older),
                                     self.faces))
            if m < 0:
                raise DicelabError("the bid history holds a sequence the policy does not know (bids must rise)")
            return m
        for length in range(min(self.longest, len(bids) + 1), self.window, -1):
            m = self._find(context_offset(self.n, self.window, length) + window_code(parity, bids, self.n, length))
            if m >= 0:
                return m
        m = self._find(window_code(parity, bids, self.n, self.window))
        if m < 0:
            raise DicelabError("the bid history holds a sequence the policy does not know (bids must rise)")
        return m


def remembered_faces(bids: tuple[int, ...] | list[int], window: int, faces: int, first: bool, older: int
                     ) -> tuple[int, ...]:
    """What a node remembers beyond its window (bids are ranks: face ``rank % faces + 1``; 0: no bid
    there): the face of the round's first bid, or the faces of the ``older`` bids before the window."""
    bids = list(bids)
    if first:
        return (int(bids[0]) % faces + 1 if bids else 0,)
    before = bids[max(0, len(bids) - window - older):max(0, len(bids) - window)]
    return (0,) * (older - len(before)) + tuple(int(b) % faces + 1 for b in before)


def face_code(code: int, remembered: tuple[int, ...], faces: int) -> int:
    """A window code with the remembered faces appended as digits base ``faces + 1``."""
    for f in remembered:
        code = code * (faces + 1) + f
    return code


def _check_contexts(n: int, window: int, longest: int, contexts: set[tuple[int, tuple[int, ...]]]) -> None:
    for p, ctx in contexts:
        require(p in (0, 1) and window < len(ctx) <= longest,
                f"a context is {window + 1} to {longest} bids long, got {len(ctx)}")
        bids = ctx[1:] if ctx[0] == -1 else ctx
        require(all(0 <= b < n for b in bids) and all(x < y for x, y in pairwise(bids)),
                "a context is rising bids, the oldest possibly -1 (the round's start)")
        require(ctx[0] != -1 or (len(ctx) - 1) % 2 == p, "a context from the round's start has the parity of its bids")
        for part in ((p, ctx[1:]), (1 - p, ctx[:-1])):
            require(len(part[1]) == window or part in contexts,
                    "contexts must hold every shorter context inside them (drop the oldest or the newest bid)")


def build_dag(n: int, window: int, contexts: set[tuple[int, tuple[int, ...]]] | None = None,
              longest: int | None = None, faces: int = 0, first: bool = False, older: int = 0) -> Dag:
    """The window DAG, or with ``contexts`` (``(parity, bids)`` longer than ``window``, at most
    ``longest``; -1 for the round's start) the context tree: a node keeps the longest context that
    ends the history. The contexts must be closed under dropping the oldest or the newest bid, so
    that a node and a bid decide the next node.

    A window DAG may remember faces beyond its bids (``faces``: the number of faces): with ``first``
    the face of the round's first bid, the opener's first word on its hand, which a window forgets
    after ``window`` bids; with ``older`` the faces (not the quantities) of that many bids just
    before the window. Up to ``faces`` times the nodes for each face kept."""
    require(isinstance(window, int) and window >= 1, f"the window must be at least 1 bid, got {window}")
    contexts = set(contexts or ())
    require(isinstance(older, int) and 0 <= older <= 4, f"older faces are 0 to 4 bids, got {older}")
    require(not (first and older), "a node keeps the first bid's face or the faces of older bids, not both")
    kept = int(bool(first)) + older
    require(isinstance(faces, int) and (faces == 0 if not kept else faces >= 2 and n % faces == 0),
            f"faces kept beyond the window need the number of faces (2 or more, dividing the {n} bids), got {faces}")
    require(not (kept and contexts), "a context tree does not remember faces beyond its bids (a window does)")
    longest = max([window] + [len(c) for _, c in contexts]) if longest is None else longest
    require(codes_fit(n, window, longest) and 2 * (n + 1) ** window * (faces + 1) ** kept < 2**62,
            "the window is too long for this many bids")
    _check_contexts(n, window, longest, contexts)

    def state(p: int, last: tuple[int, ...], b: int) -> tuple[int, tuple[int, ...]]:
        """The node after bid ``b`` at the node ``(1 - p, last)``: the longest context ending the history."""
        full = last + (b,)
        if len(last) < window or last[0] == -1:
            full = (-1,) * (full[0] != -1) + full  # the history is all there: the round's start is known
        for length in range(min(len(full), longest), window, -1):
            key = (p, full[len(full) - length:])
            if key in contexts:
                return key
        return p, tuple(x for x in full if x >= 0)[-window:]

    Key = tuple[int, tuple[int, ...], tuple[int, ...]]  # (mover, remembered bids, remembered faces)

    def step(key: Key, b: int) -> Key:
        p, last, kf = key
        q, nxt = state(1 - p, last, b)
        if first:
            kf = kf if kf[0] else (b % faces + 1,)
        elif older and len(last) == window:  # the oldest bid leaves the window: keep its face
            kf = (*kf[1:], last[0] % faces + 1)
        return q, nxt, kf

    root: Key = (0, (), (0,) * kept)
    by_top: dict[int, list[Key]] = {t: [] for t in range(-1, n)}
    by_top[-1].append(root)
    seen = {root}
    for t in range(-1, n):
        for key in by_top[t]:
            for b in range(t + 1, n):
                nxt = step(key, b)
                if nxt not in seen:
                    seen.add(nxt)
                    by_top[b].append(nxt)
    nodes = [k for t in range(-1, n) for k in sorted(by_top[t])]
    idx = {k: i for i, k in enumerate(nodes)}
    N = len(nodes)
    top = np.array([k[1][-1] if k[1] else -1 for k in nodes], dtype=np.int64)
    mover = np.array([k[0] for k in nodes], dtype=np.int64)
    loc = np.zeros(N, dtype=np.int64)
    rows = [0, 0]
    child = np.full((N, n), -1, dtype=np.int32)
    codes = np.empty(N, dtype=np.int64)
    for m, key in enumerate(nodes):
        p, last, kf = key
        loc[m] = rows[p]
        rows[p] += (n - 1 - int(top[m])) + (1 if m != 0 else 0)
        codes[m] = context_code(p, last, n, window) if len(last) > window else window_code(p, last, n, window)
        codes[m] = face_code(int(codes[m]), kf, faces)
        for b in range(int(top[m]) + 1, n):
            child[m, b] = idx[step(key, b)]
    order = np.argsort(codes)
    ctx_codes = np.array(sorted(context_code(p, c, n, window) for p, c in contexts), dtype=np.int64)
    return Dag(n, window, codes[order], order.astype(np.int64), top, mover, loc, child, (rows[0], rows[1]),
               longest if contexts else 0, ctx_codes if contexts else None, faces if kept else 0, bool(first),
               older)


# ------------------------------------------------------------------------------------------------
# compiled training


@njit(cache=True)
def _call_value(i, caller, q, f, ci, cg_f, out):
    """Player i's payoff of a call of bid (q, f) by ``caller``, per own hand, for an opponent count cg_f."""
    for h in range(out.shape[0]):
        holds = ci[h, f] + cg_f >= q
        bidder_wins = 1.0 if holds else -1.0
        out[h] = bidder_wins if caller != i else -bidder_wins


@njit(cache=True)
def _regret_match_rows(reg, s, r0, k):
    H = reg.shape[1]
    for h in range(H):
        tot = 0.0
        for j in range(k):
            x = reg[r0 + j, h]
            if x > 0.0:
                tot += x
        for j in range(k):
            x = reg[r0 + j, h]
            s[r0 + j, h] = (x / tot if x > 0.0 else 0.0) if tot > 0.0 else 1.0 / k


@njit(cache=True)
def _opponent_hand(kk, samples, p_opp, cum_opp):
    """The kk-th opponent hand and its weight: every hand in turn with its chance (``samples == 0``),
    else one drawn from ``cum_opp`` with weight ``1 / samples``."""
    if samples == 0:
        return kk, p_opp[kk]
    u = np.random.random()
    g = 0
    while g < cum_opp.shape[0] - 1 and cum_opp[g] <= u:
        g += 1
    return g, 1.0 / samples


BLOCK = 8  # opponent hands per backward pass: each pass reads the own strategy and writes the regrets once
# for all of them (the pass is memory-bound; bit for bit the same sums as one hand at a time)
VALUE_BYTES = 512 * 2**20  # fewer hands a pass where their values would take more (a tree's regret pass runs
# on a DAG about ten times the policy's, where BLOCK hands could take gigabytes)


def block_size(nodes: int, hands: int, budget: int = VALUE_BYTES) -> int:
    """Opponent hands a pass takes on a DAG of ``nodes`` nodes with ``hands`` own hands: :data:`BLOCK`,
    fewer where their values ``U[node, b, hand]`` (float64) would pass ``budget`` bytes (any block
    gives the same sums)."""
    return int(max(1, min(BLOCK, budget // (8 * hands * max(nodes, 1)))))


@njit(cache=True)
def _reached(ro, m, nb):
    """Whether any of the ``nb`` opponent hands reaches node m."""
    for b in range(nb):
        if ro[m, b] != 0.0:
            return True
    return False


@njit(cache=True)
def _block_reach(i, n, top, mover, sloc, child, s_opp, gs, nb, leaf, ro):
    """The reach of each of the ``nb`` opponent hands ``gs[:nb]`` at every node, summed over the paths
    into it: ``ro[m, b]``, from 1 at the root; player i's own moves pass it on whole, the opponent's
    by its strategy (rows from ``sloc[m]``); frontier nodes (``leaf[m] >= 0``) pass nothing on."""
    _block_reach_from(i, n, top, mover, sloc, child, s_opp, gs, np.ones(nb), nb, leaf, ro)


@njit(cache=True)
def _block_reach_from(i, n, top, mover, sloc, child, s_opp, gs, start, nb, leaf, ro):
    """:func:`_block_reach` from ``start[b]`` at the root (the same products, bit for bit, as one
    hand's reach carried from ``start``)."""
    ro[:, :nb] = 0.0
    for b in range(nb):
        ro[0, b] = start[b]
    for m in range(top.shape[0]):
        if leaf[m] >= 0 or not _reached(ro, m, nb):
            continue
        t = top[m]
        r0 = sloc[m]
        own = mover[m] == i
        for a in range(t + 1, n):
            c = child[m, a]
            if own:
                for b in range(nb):
                    ro[c, b] += ro[m, b]
            else:
                row = r0 + a - t - 1
                for b in range(nb):
                    if ro[m, b] != 0.0:
                        ro[c, b] += ro[m, b] * s_opp[row, gs[b]]


@njit(cache=True)
def _block_pass(i, n, F, top, mover, loc, sloc, child, c_own, c_opp, gs, ws, nb, s_own, s_opp, inst, ro, U, term,
                leaf, leaf_v):
    """For the ``nb`` opponent hands ``gs[:nb]`` of weights ``ws``: their reach at every node (summed
    over paths), player i's values ``U[m, b, h]`` below every node hand b reaches, and at i's nodes
    the regrets ``ws[b] * reach * (Q - V)`` added to ``inst`` rows ``loc[m] + j``, hand after hand in
    the order given. Node m plays strategy rows from ``sloc[m]`` (``loc`` itself in training; a
    coarser DAG's rows when a finer DAG replays a policy). Frontier nodes (``leaf[m] >= 0``) take
    ``leaf_v[leaf[m], h, g]``."""
    N = top.shape[0]
    H = c_own.shape[0]
    _block_reach(i, n, top, mover, sloc, child, s_opp, gs, nb, leaf, ro)
    for m in range(N - 1, -1, -1):
        if not _reached(ro, m, nb):
            continue  # nothing here or below is reached: no regret, and no parent reads U[m]
        if leaf[m] >= 0:
            for b in range(nb):
                if ro[m, b] != 0.0:
                    for h in range(H):
                        U[m, b, h] = leaf_v[leaf[m], h, gs[b]]
            continue
        t = top[m]
        r0 = sloc[m]
        k = n - 1 - t + (1 if t >= 0 else 0)
        if t >= 0:
            f = t % F + 1
            for b in range(nb):
                if ro[m, b] != 0.0:
                    _call_value(i, mover[m], t // F + 1, f, c_own, c_opp[gs[b], f], term[b])
        if mover[m] == i:
            for b in range(nb):
                if ro[m, b] != 0.0:
                    for h in range(H):
                        U[m, b, h] = s_own[r0 + k - 1, h] * term[b, h] if t >= 0 else 0.0
            for a in range(t + 1, n):
                c = child[m, a]
                row = r0 + a - t - 1
                for b in range(nb):
                    if ro[m, b] != 0.0:
                        for h in range(H):
                            U[m, b, h] += s_own[row, h] * U[c, b, h]
            for j in range(k):
                row = loc[m] + j
                call = t >= 0 and j == k - 1
                c = child[m, t + 1 + j] if not call else 0
                for b in range(nb):
                    if ro[m, b] == 0.0:
                        continue
                    w = ws[b] * ro[m, b]
                    if call:
                        for h in range(H):
                            inst[row, h] += w * (term[b, h] - U[m, b, h])
                    else:
                        for h in range(H):
                            inst[row, h] += w * (U[c, b, h] - U[m, b, h])
        else:
            for b in range(nb):
                if ro[m, b] == 0.0:
                    continue
                g = gs[b]
                pc = s_opp[r0 + k - 1, g] if t >= 0 else 0.0
                for h in range(H):
                    U[m, b, h] = pc * term[b, h]
                for a in range(t + 1, n):
                    p = s_opp[r0 + a - t - 1, g]
                    if p == 0.0:
                        continue
                    c = child[m, a]
                    if ro[c, b] == 0.0:
                        continue
                    for h in range(H):
                        U[m, b, h] += p * U[c, b, h]


@njit(cache=True)
def _next_block(kk, n_g, samples, p_opp, cum_opp, gs, ws):
    """Fill ``gs``/``ws`` with the next opponent hands of weight > 0 from draw ``kk`` on (every hand in
    turn, or drawn): how many, and the next ``kk``."""
    nb = 0
    while nb < gs.shape[0] and kk < n_g:
        g, wg = _opponent_hand(kk, samples, p_opp, cum_opp)
        kk += 1
        if wg != 0.0:
            gs[nb] = g
            ws[nb] = wg
            nb += 1
    return nb, kk


@njit(cache=True)
def _own_reach(i, n, top, mover, loc, child, s_own, leaf, rs):
    """Player i's own reach ``rs[m, h]`` (summed over paths), the same for every opponent hand."""
    H = rs.shape[1]
    rs[:, :] = 0.0
    rs[0, :] = 1.0
    for m in range(top.shape[0]):
        if leaf[m] >= 0:
            continue
        t = top[m]
        r0 = loc[m]
        own = mover[m] == i
        for b in range(t + 1, n):
            c = child[m, b]
            row = r0 + b - t - 1
            if own:
                for h in range(H):
                    rs[c, h] += rs[m, h] * s_own[row, h]
            else:
                for h in range(H):
                    rs[c, h] += rs[m, h]


@njit(cache=True)
def _all_blocks(i, n, F, top, mover, loc, sloc, child, c_own, c_opp, p_opp, cum_opp, samples, s_own, s_opp, inst,
                ro, U, term, leaf, leaf_v, root_v):
    """Every opponent hand (or ``samples`` drawn), ``ro.shape[1]`` at a time through
    :func:`_block_pass`; adds each hand's weighted value at node 0 to ``root_v``."""
    H = c_own.shape[0]
    n_g = p_opp.shape[0] if samples == 0 else samples
    gs = np.empty(ro.shape[1], np.int64)
    ws = np.empty(ro.shape[1])
    kk = np.int64(0)
    while kk < n_g:
        nb, kk = _next_block(kk, n_g, samples, p_opp, cum_opp, gs, ws)
        if nb == 0:
            break
        _block_pass(i, n, F, top, mover, loc, sloc, child, c_own, c_opp, gs, ws, nb, s_own, s_opp, inst, ro, U, term,
                    leaf, leaf_v)
        for b in range(nb):
            for h in range(H):
                root_v[h] += ws[b] * U[0, b, h]


@njit(cache=True)
def _update(i, n, top, mover, loc, reg, avg, s_own, inst, rs, weight, pos_d, neg_d, leaf):
    """Discount player i's regrets, add the iteration's, add to the average, regret-match."""
    H = reg.shape[1]
    for m in range(top.shape[0]):
        if mover[m] != i or leaf[m] >= 0:
            continue
        t = top[m]
        r0 = loc[m]
        k = n - 1 - t + (1 if t >= 0 else 0)
        for j in range(k):
            row = r0 + j
            for h in range(H):
                x = reg[row, h]
                reg[row, h] = x * (pos_d if x > 0.0 else neg_d) + inst[row, h]
                avg[row, h] += weight * rs[m, h] * s_own[row, h]
        _regret_match_rows(reg, s_own, r0, k)


@njit(cache=True)
def _iterate(i, n, F, top, mover, loc, child, c_own, c_opp, p_opp, cum_opp, samples, reg, avg, s_own, s_opp,
             inst, ro, rs, U, term, weight, pos_d, neg_d, root_v, leaf, leaf_v):
    """One update of player i: the opponent's hands all enumerated (``samples == 0``, weighted by their
    chances: CFR on the abstraction) or ``samples`` of them drawn from ``cum_opp`` (Monte Carlo CFR).

    A node with ``leaf[m] >= 0`` is a frontier (depth-limited re-solving): no moves, and player i's
    value there is ``leaf_v[leaf[m], h, g]`` for own hand h and opponent hand g."""
    _own_reach(i, n, top, mover, loc, child, s_own, leaf, rs)
    inst[:, :] = 0.0
    root_v[:] = 0.0  # the value at node 0 of every own hand, weighted by the opponent's hands
    _all_blocks(i, n, F, top, mover, loc, loc, child, c_own, c_opp, p_opp, cum_opp, samples, s_own, s_opp, inst, ro,
                U, term, leaf, leaf_v, root_v)
    _update(i, n, top, mover, loc, reg, avg, s_own, inst, rs, weight, pos_d, neg_d, leaf)


@njit(cache=True)
def _discounts(t, alpha, beta, gamma):
    """DCFR at iteration t: the factors of positive and negative regrets, and the average's weight."""
    tt = float(t)
    pos_d = tt**alpha / (tt**alpha + 1.0) if t > 0 else 0.0
    neg_d = tt**beta / (tt**beta + 1.0) if t > 0 else 0.0
    return pos_d, neg_d, (tt + 1.0) ** gamma


def work_arrays(n: int, top: np.ndarray, mover: np.ndarray, loc: np.ndarray, rows: tuple[int, int],
                H: tuple[int, int], reg: list[np.ndarray]) -> dict[str, Any]:
    """The buffers of :func:`_iterate` for a DAG (or a subgame of one) and both seats' current
    strategies, regret-matched from ``reg``: ``s``, ``ro``, ``rs``, ``U``, ``term``, ``inst``."""
    N = len(top)
    s = [np.zeros((rows[i], H[i])) for i in (0, 1)]
    for m in range(N):
        i = int(mover[m])
        _regret_match_rows(reg[i], s[i], int(loc[m]), n - 1 - int(top[m]) + (1 if top[m] >= 0 else 0))
    B = block_size(N, max(H))
    return {"s": s, "ro": np.zeros((N, B)), "rs": [np.zeros((N, H[0])), np.zeros((N, H[1]))],
            "U": [np.zeros((N, B, H[0])), np.zeros((N, B, H[1]))], "term": [np.zeros((B, H[0])), np.zeros((B, H[1]))],
            "inst": [np.zeros((rows[i], H[i])) for i in (0, 1)]}


@njit(cache=True)
def _run_chunk(t0, t1, seed, n, F, top, mover, loc, child, c0, c1, p0, p1, cum0, cum1, samples, reg0, reg1,
               avg0, avg1, s0, s1, inst0, inst1, ro, rs0, rs1, U0, U1, term0, term1, alpha, beta, gamma):
    np.random.seed(seed)
    rv0 = np.zeros(c0.shape[0])
    rv1 = np.zeros(c1.shape[0])
    leaf = np.full(top.shape[0], -1, np.int64)
    leaf_v = np.zeros((1, 1, 1))
    # the seats as run-time integers: a literal 0 and 1 would each compile the whole pass again
    # (numba specializes on literal arguments), beside the int64 one the regret pass compiles
    seat = np.arange(2)
    for t in range(t0, t1):
        pos_d, neg_d, weight = _discounts(t, alpha, beta, gamma)
        _iterate(seat[0], n, F, top, mover, loc, child, c0, c1, p1, cum1, samples, reg0, avg0, s0, s1, inst0, ro,
                 rs0, U0, term0, weight, pos_d, neg_d, rv0, leaf, leaf_v)
        _iterate(seat[1], n, F, top, mover, loc, child, c1, c0, p0, cum0, samples, reg1, avg1, s1, s0, inst1, ro,
                 rs1, U1, term1, weight, pos_d, neg_d, rv1, leaf, leaf_v)


@njit(cache=True)
def _normalise_rows(dag_top, loc, mover, who, n, avg, out):
    N = dag_top.shape[0]
    H = avg.shape[1]
    for m in range(N):
        if mover[m] != who:
            continue
        k = n - 1 - dag_top[m] + (1 if dag_top[m] >= 0 else 0)
        r0 = loc[m]
        for h in range(H):
            tot = 0.0
            for j in range(k):
                tot += avg[r0 + j, h]
            for j in range(k):
                out[r0 + j, h] = avg[r0 + j, h] / tot if tot > 0.0 else 1.0 / k


# ------------------------------------------------------------------------------------------------
# the policy


# meta keys a saved policy carries that are rebuilt from its arrays and DAG on load, not kept as meta
_DERIVED_META = frozenset({"duel", "window", "longest", "first_face", "older_faces", "kind", "dicelab_version",
                           "sha256", "arrays", "meta_sha256", "cache_params"})


@dataclass
class DuelPolicy:
    """A policy for both seats of a duel: per abstract node and own hand, probabilities of every action.

    ``strategy[i][loc[m] + j, h]`` is seat i's probability of the j-th action at node m (raises in
    rank order, then the call) with hand h (index into ``duel.hands(i)``).
    """

    duel: Duel
    dag: Dag
    strategy: tuple[np.ndarray, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)
    state: dict[str, np.ndarray] | None = field(default=None, repr=False)  # reg0, reg1, avg0, avg1

    def __post_init__(self) -> None:
        self._hand_index = [{h: k for k, h in enumerate(self.duel.hands(i)[0])} for i in (0, 1)]

    @property
    def window(self) -> int:
        return self.dag.window

    @property
    def memory_label(self) -> str:
        """What the policy remembers, for a details line: ``window 3`` or ``2 to 4 bids (a context tree)``."""
        d = self.dag
        if d.first:
            return f"window {d.window} and the first bid's face"
        if d.older:
            return f"window {d.window} and the face of the bid before it" if d.older == 1 else \
                f"window {d.window} and the faces of the {d.older} bids before it"
        return f"window {d.window}" if d.contexts is None else f"{d.window} to {d.memory} bids (a context tree)"

    # -- the function API (web lab, bots) -----------------------------------------------------------
    def _locate(self, seat: int, hand: tuple[int, ...] | list[int], history: list[Bid] | tuple[Bid, ...]
                ) -> tuple[int, int, int]:
        d = self.duel
        require(seat in (0, 1), f"seat must be 0 or 1, got {seat}")
        h = tuple(sorted(int(x) for x in hand))
        require(len(h) == d.dice[seat],
                f"seat {seat} holds {d.dice[seat]} dice in this duel, got a hand of {len(h)}")
        hi = self._hand_index[seat].get(h)
        require(hi is not None, f"hand {h} has faces outside 1..{d.faces}")
        require(len(history) % 2 == seat, f"with {len(history)} bids made it is seat {len(history) % 2}'s turn")
        ranks = []
        for b in history:
            require(1 <= b.face <= d.faces and 1 <= b.quantity <= sum(d.dice), f"bid {b} is not a bid of this duel")
            ranks.append(b.rank(d.faces))
        require(all(x < y for x, y in zip(ranks, ranks[1:], strict=False)), "the bids must rise")
        return self.dag.node_of(seat, ranks), hi, (ranks[-1] if ranks else -1)

    def action_probabilities(self, seat: int, hand: tuple[int, ...] | list[int],
                             history: list[Bid] | tuple[Bid, ...]) -> dict[Bid | None, float]:
        """``{bid or None (the call): probability}`` for ``seat`` holding ``hand`` after ``history`` (the bids
        of this round, oldest first; seat 0 opened)."""
        m, hi, t = self._locate(seat, hand, history)
        n, F = self.dag.n, self.duel.faces
        r0 = int(self.dag.loc[m])
        k = n - 1 - t + (1 if m != 0 else 0)
        p = np.asarray(self.strategy[seat][r0:r0 + k, hi], dtype=np.float64)
        p = p / p.sum()
        out: dict[Bid | None, float] = {}
        for j in range(k):
            if p[j] <= 0.0:
                continue
            out[None if (m != 0 and j == k - 1) else Bid.from_rank(t + 1 + j, F)] = float(p[j])
        return out

    def act(self, seat: int, hand: tuple[int, ...] | list[int], history: list[Bid] | tuple[Bid, ...],
            rng: np.random.Generator) -> Bid | None:
        """A move drawn from :meth:`action_probabilities` (None is the call)."""
        dist = self.action_probabilities(seat, hand, history)
        keys = list(dist)
        probs = np.array([dist[k] for k in keys])
        return keys[int(rng.choice(len(keys), p=probs / probs.sum()))]

    # -- storage ----------------------------------------------------------------------------------
    def to_arrays(self, with_state: bool = True) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays = {"s0": self.strategy[0].astype(np.float32), "s1": self.strategy[1].astype(np.float32)}
        if with_state and self.state is not None:
            arrays.update(self.state)
        meta = {**self.meta, "duel": self.duel.to_dict(), "window": self.dag.window}
        if self.dag.contexts is not None:
            arrays["contexts"] = self.dag.contexts
            meta["longest"] = self.dag.longest
        if self.dag.first:
            meta["first_face"] = True
        if self.dag.older:
            meta["older_faces"] = self.dag.older
        return arrays, meta

    def save(self, path: str, with_state: bool = True) -> str:
        from dicelab.core.store import save_table

        return str(save_table(path, POLICY_KIND, *self.to_arrays(with_state)))

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> DuelPolicy:
        from dicelab.core.store import expect_array

        d = meta["duel"]
        duel = Duel(tuple(d["dice"]), int(d["faces"]), str(d["wild"]))
        n, window = duel.n_bids, int(meta["window"])
        contexts = None
        if "contexts" in arrays:
            longest = int(meta.get("longest", 0))
            require(window < longest <= n, "the policy's longest context is out of range")
            codes = np.asarray(arrays["contexts"])
            require(codes.ndim == 1 and codes.dtype.kind == "i", "the policy's contexts are not a list of codes")
            contexts = {context_of_code(int(c), n, window, longest) for c in codes}
        first, older = meta.get("first_face", False), meta.get("older_faces", 0)
        require(isinstance(first, bool) and not (first and contexts),
                "the policy's first_face is true or false, and a context tree has none")
        require(type(older) is int and 0 <= older <= 4 and not (older and (contexts or first)),
                "the policy's older_faces is 0 to 4, and only on a window without the first face")
        dag = build_dag(n, window, contexts, int(meta["longest"]) if contexts else None,
                        duel.faces if first or older else 0, first, older)
        H = [len(duel.hands(i)[0]) for i in (0, 1)]
        s = tuple(expect_array(arrays, f"s{i}", (dag.rows[i], H[i]), np.float32) for i in (0, 1))
        state = None
        if "reg0" in arrays:
            state = {f"{a}{i}": expect_array(arrays, f"{a}{i}", (dag.rows[i], H[i]), np.float64)
                     for a in ("reg", "avg") for i in (0, 1)}
        keep = {k: v for k, v in meta.items() if k not in _DERIVED_META}
        return cls(duel, dag, (s[0], s[1]), keep, state)

    @classmethod
    def load(cls, path: str) -> DuelPolicy:
        from dicelab.core.store import load_as

        return load_as(path, POLICY_KIND, cls.from_arrays)


def dag_nodes(n: int, window: int) -> int:
    """Nodes of the window DAG for ``n`` bids (as :func:`dag_rows` counts rows)."""
    comb = math.comb
    nodes = 1
    for j in range(1, window + 1):
        nodes += sum(comb(t, j - 1) + (comb(t - 1, j - 1) if j == window and t >= 1 else 0) for t in range(j - 1, n))
    return nodes


def check_fits(need: float, what: str, instead: str) -> None:
    """Refuse, in one line, work whose arrays (``need`` bytes, estimated before anything is built)
    would not fit the machine's memory: ``what`` needs about so much, and ``instead`` says what to do."""
    have = machine_bytes()
    require(need <= have, f"{what} needs about {need / 2**30:,.1f} GiB and this machine has {have / 2**30:,.1f} "
            f"GiB: {instead}")


def training_bytes(duel: Duel, rows: float, nodes: float) -> float:
    """About the memory (bytes) training holds for tables of ``rows`` rows (both seats) on ``nodes``
    nodes: per row and own hand the regrets, the average, the current strategy and the instantaneous
    regrets (float64), per node and hand the own reach, a block of opponent hands' values
    (:func:`block_size`), and the DAG's children."""
    H = max(math.comb(x + duel.faces - 1, x) for x in duel.dice)
    one = nodes * H * 8.0
    return rows * H * 8.0 * 4 + one + max(one, min(BLOCK * one, float(VALUE_BYTES))) + nodes * duel.n_bids * 8.0


def dag_rows(n: int, window: int, faces: int = 0, first: bool = False, older: int = 0) -> int:
    """Rows of both players' strategy tables for ``n`` bids and a window (without building the DAG);
    with ``faces`` and ``first`` or ``older``, for a window that also keeps faces beyond its bids
    (:func:`build_dag`)."""
    from math import comb

    if first or older:
        return _kept_rows(n, window, faces, first, older)
    rows = n  # the root's opening bids
    for j in range(1, window + 1):
        # j bids with top t; a full window whose oldest bid is not the lowest may follow earlier
        # bids, so either player may be to move there
        rows += sum((comb(t, j - 1) + (comb(t - 1, j - 1) if j == window and t >= 1 else 0)) * (n - t)
                    for t in range(j - 1, n))
    return rows


def _kept_rows(n: int, w: int, F: int, first: bool, older: int) -> int:
    """:func:`dag_rows` of a window that keeps faces. A history shorter than the window is its own
    node. A full window ``x_1 < ... < x_w`` is reached by histories that differ before ``x_1``; each
    distinct (mover, faces kept) among them is a node. With ``first``: the history of exactly the
    window (mover ``w % 2``), or a first bid ``b`` below ``x_1`` followed by no other bid before the
    window (mover ``(w + 1) % 2``, any ``b < x_1``) or by some (either mover, ``b <= x_1 - 2``).
    With ``older`` = k: the faces of the ``m <= k`` bids ``y_1 < ... < y_m < x_1`` just before the
    window; fewer than k only when the round began with ``y_1`` (one mover), k with nothing before
    (mover ``(w + k) % 2``) or with some bids before ``y_1`` (the other mover too): a tuple of faces
    is possible when the lowest rising ranks with those faces, from rank 0 (or 1, leaving room for a
    bid before), end below ``x_1``."""
    from itertools import product
    from math import comb

    def lowest_end(fs: tuple[int, ...], lo: int) -> int:
        y = lo - 1
        for f in fs:
            y += 1 + (f - (y + 1)) % F
        return y

    rows = n  # the root
    for j in range(1, w):  # histories shorter than the window: (x_1 .. x_j), top t
        rows += sum(comb(t, j - 1) * (n - t) for t in range(j - 1, n))
    for x1 in range(n):
        if first:
            count = len({x1 % F} | {b % F for b in range(max(0, x1 - 1))}) + min(x1, F)
        else:
            count = 0
            for m in range(older + 1):
                for fs in product(range(F), repeat=m):
                    count += lowest_end(fs, 0) < x1
                    count += m == older and lowest_end(fs, 1) < x1
        for t in range(x1 + w - 1, n) if w > 1 else (x1,):  # the window's top
            rows += (1 if w == 1 else comb(t - x1 - 1, w - 2)) * count * (n - t)
    return rows


WINDOW_CELLS = 6_000_000  # rows x hands of the larger table: about 50 MB per training array


def default_window(duel: Duel, cells: int = WINDOW_CELLS) -> int:
    """The longest window (at least 2, at most all bids) whose tables stay within ``cells`` rows x hands."""
    H = max(len(duel.hands(i)[0]) for i in (0, 1))
    w = 2
    while (w < duel.n_bids and 2 * (duel.n_bids + 1) ** (w + 1) < 2**62
           and dag_rows(duel.n_bids, w + 1) * H <= cells):
        w += 1
    return w


def default_method(duel: Duel) -> str:
    """``abstract`` (every opponent hand each iteration) up to 3 dice a seat, else ``mccfr``."""
    return "abstract" if max(duel.dice) <= 3 else "mccfr"


def default_samples(duel: Duel) -> int:
    """Opponent hands drawn per update in Monte Carlo CFR."""
    return 16


def train_duel(
    duel: Duel,
    iterations: int = 10_000,
    seed: int = 0,
    window: int | None = None,
    method: str | None = None,
    resume: DuelPolicy | None = None,
    progress: bool = False,
    callback: Any = None,
    check_every: int = 0,
    samples: int | None = None,
    dag: Dag | None = None,
    first_face: bool = False,
    older_faces: int = 0,
) -> DuelPolicy:
    """Train (or, from ``resume``, continue) the abstract policy for ``iterations`` more iterations,
    on the window DAG (each node also remembering the face of the round's first bid with
    ``first_face``, or the faces of ``older_faces`` bids before the window) or on ``dag`` (a context
    tree, :mod:`dicelab.liars.contexts`).

    The same seed and total iterations give the same policy whether or not the run was resumed
    (resume points fall on chunks of :data:`CHUNK` iterations). ``callback(policy, t)`` is called
    every ``check_every`` iterations (a multiple of CHUNK) and may return True to stop.
    """
    from dicelab.core.progress import progress_bar

    method = default_method(duel) if method is None else method
    require(method in SAMPLED_METHODS, f"unknown method {method!r}; choose one of {', '.join(SAMPLED_METHODS)}")
    require(isinstance(iterations, int) and iterations >= 1, f"iterations must be at least 1, got {iterations}")
    t_start = 0
    if resume is not None:
        require(resume.state is not None, "the policy file holds no training state to resume from")
        require(resume.duel == duel, "the policy to resume was trained for another duel")
        require(resume.meta.get("method") == method and resume.meta.get("seed") == seed,
                "resume with the same --method and --seed as the run that wrote the file")
        t_start = int(resume.meta["iterations"])
        require(t_start % CHUNK == 0, "the training state stopped between chunks; it cannot resume exactly")
    t0 = time.perf_counter()
    if resume is not None:
        require(dag is None, "a resumed policy trains on its own DAG")
        dag = resume.dag  # a window (faces kept or not) or a context tree, as the file holds it
    elif dag is None:
        kept = bool(first_face) or bool(older_faces)
        window = default_window(duel) if window is None else window
        n = duel.n_bids
        if isinstance(window, int) and 1 <= window <= n and codes_fit(n, window, window):  # else build_dag says why
            rows = dag_rows(n, window, duel.faces if kept else 0, first_face, older_faces)
            check_fits(training_bytes(duel, rows, dag_nodes(n, window) * rows / dag_rows(n, window)),
                       f"training on a window of {window} bids ({rows:,} rows)", "choose a shorter window")
        dag = build_dag(n, window, faces=duel.faces if kept else 0, first=first_face, older=older_faces)
    else:
        require(dag.n == duel.n_bids and not first_face and not older_faces,
                "a given DAG trains from scratch, for its own duel (and holds its own memory)")
    h0, p0, c0 = duel.hands(0)
    h1, p1, c1 = duel.hands(1)
    H = (len(h0), len(h1))
    if resume is not None and resume.state is not None:
        reg = [resume.state["reg0"].copy(), resume.state["reg1"].copy()]
        avg = [resume.state["avg0"].copy(), resume.state["avg1"].copy()]
    else:
        reg = [np.zeros((dag.rows[i], H[i])) for i in (0, 1)]
        avg = [np.zeros((dag.rows[i], H[i])) for i in (0, 1)]
    wa = work_arrays(dag.n, dag.top, dag.mover, dag.loc, dag.rows, H, reg)  # s: regret matching on the regrets
    s, ro, rs, U, term, inst = wa["s"], wa["ro"], wa["rs"], wa["U"], wa["term"], wa["inst"]
    cum0, cum1 = np.cumsum(p0), np.cumsum(p1)
    a, b, g, sampled = SAMPLED_METHODS[method]
    if samples is None:
        samples = default_samples(duel) if sampled else 0
    require(isinstance(samples, int) and samples >= 0, f"samples must be a whole number >= 0, got {samples}")
    if not sampled:
        samples = 0
    if resume is not None:
        require(int(resume.meta.get("samples", samples)) == samples, "resume with the same --samples")
    ss = np.random.SeedSequence(seed)
    seconds0 = float(resume.meta.get("seconds", 0.0)) if resume is not None else 0.0
    t_end = t_start + iterations

    def snapshot(t: int) -> DuelPolicy:
        out = []
        for i in (0, 1):
            x = np.zeros_like(avg[i])
            _normalise_rows(dag.top, dag.loc, dag.mover, i, dag.n, avg[i], x)
            out.append(x)
        meta = {**(resume.meta if resume is not None else {}),  # a tree's growth record, say
                "method": method, "seed": seed, "iterations": t, "samples": samples,
                "seconds": seconds0 + time.perf_counter() - t0}
        return DuelPolicy(duel, dag, (out[0], out[1]), meta,
                          {"reg0": reg[0], "reg1": reg[1], "avg0": avg[0], "avg1": avg[1]})

    with progress_bar(f"{method} {duel.dice[0]}v{duel.dice[1]}", total=iterations, enabled=progress) as bar:
        t = t_start
        while t < t_end:
            chunk = t // CHUNK
            t1 = min(t_end, (chunk + 1) * CHUNK)
            cseed = int(np.random.SeedSequence(ss.entropy, spawn_key=(chunk,)).generate_state(1, np.uint32)[0])
            # a chunk always starts from its own seed: a run cut inside a chunk replays its start
            if t != chunk * CHUNK:
                raise DicelabError("training must resume on a chunk boundary")
            _run_chunk(t, t1, cseed, dag.n, duel.faces, dag.top, dag.mover, dag.loc, dag.child, c0, c1, p0, p1,
                       cum0, cum1, samples, reg[0], reg[1], avg[0], avg[1], s[0], s[1], inst[0], inst[1], ro, rs[0],
                       rs[1], U[0], U[1], term[0], term[1], a, b, g)
            bar.advance(t1 - t)
            t = t1
            if callback is not None and check_every and t % check_every == 0 and t < t_end:
                policy = snapshot(t)
                if callback(policy, t):
                    return policy
    return snapshot(t_end)


def uniform_policy(duel: Duel, window: int = 1) -> DuelPolicy:
    """Every legal action equally likely (a reference point)."""
    dag = build_dag(duel.n_bids, window)
    s = []
    for i in (0, 1):
        x = np.zeros((dag.rows[i], len(duel.hands(i)[0])))
        for m in range(dag.n_nodes):
            if dag.mover[m] == i:
                k = dag.n - 1 - int(dag.top[m]) + (1 if m != 0 else 0)
                x[dag.loc[m]:dag.loc[m] + k] = 1.0 / k
        s.append(x)
    return DuelPolicy(duel, dag, (s[0], s[1]), {"method": "uniform"})
