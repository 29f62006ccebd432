"""Exact equilibria of two-player, single-round Liar's Dice by DCFR / CFR+ (and a sequence-form LP check).

The game is OpenSpiel's ``liars_dice``; the public tree of increasing bid sequences is indexed by
bitmask, regrets are updated by Discounted CFR (or CFR+ and its predictive forms), and the exact
exploitability is the stopping rule. The method is in ``docs/methods/liars.md``.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.liars.rules import MAX_FACES, WILDS, Bid, LiarsRules, PlayerView

MAX_BIDS = 18  # (d0 + d1) * faces: 2**18 public nodes; beyond that the tree does not fit
OPENSPIEL_VALUE_1V1_6_HIGHEST = -0.027131782945736
# method: (alpha, beta, gamma, predictive): positive regrets scaled by t^alpha / (t^alpha + 1)
# (None: kept whole), negative ones by t^beta / (t^beta + 1) (None: clipped at zero), the average
# weighted by t^gamma; predictive: regret matching on the regrets plus the last regret
METHODS = {
    "cfr+": (None, None, 1.0, False),
    "cfr+2": (None, None, 2.0, False),
    "dcfr": (1.5, 0.0, 2.0, False),
    "pcfr+": (None, None, 2.0, True),
    "pdcfr+": (2.3, None, 5.0, True),
}


@dataclass(frozen=True)
class DuelGame:
    """Two players, one round, payoff +1 / -1: dice per player (1 to 5), faces, wild option; the
    checks and derived sizes every duel shares (:class:`DuelRules` for the exact solver,
    :class:`dicelab.liars.duel.Duel` for the scalable one)."""

    dice: tuple[int, int] = (1, 1)
    faces: int = 6
    wild: str = "highest"
    #: the most faces this kind of duel allows
    max_faces: ClassVar[int] = MAX_FACES

    def __post_init__(self) -> None:
        d = tuple(int(x) for x in self.dice)
        require(len(d) == 2, f"give dice for exactly two players, such as 1,1 or 5,5; got {len(d)} numbers")
        require(all(1 <= x <= 5 for x in d), f"dice per player must be from 1 to 5, got {d[0]},{d[1]}")
        require(
            isinstance(self.faces, (int, np.integer)) and 2 <= self.faces <= self.max_faces,
            f"faces must be a whole number from 2 to {self.max_faces}, got {self.faces}",
        )
        require(self.wild in WILDS, f"unknown wild option {self.wild!r}; choose one of {', '.join(WILDS)}")
        object.__setattr__(self, "dice", d)
        object.__setattr__(self, "faces", int(self.faces))

    @property
    def n_bids(self) -> int:
        return sum(self.dice) * self.faces

    @property
    def wild_face(self) -> int:
        return {"none": 0, "ones": 1, "highest": self.faces}[self.wild]

    def to_dict(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "faces": self.faces, "wild": self.wild}


@dataclass(frozen=True)
class DuelRules(DuelGame):
    """A duel small enough for the exact solver on the whole public tree (at most ``MAX_BIDS`` bids)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        d, n = self.dice, self.n_bids
        require(
            n <= MAX_BIDS,
            f"(dice {d[0]} + {d[1]}) x {self.faces} faces = {n} bids; the exact solver handles at most "
            f"{MAX_BIDS} (for example 1,1 with up to 9 faces, 2,1 with up to 6)",
        )


@dataclass(frozen=True)
class Tree:
    """The public tree in arrays: node = bid bitmask; edges in CSR order (bids, then the call)."""

    rules: DuelRules
    hands: tuple[list[tuple[int, ...]], list[tuple[int, ...]]]
    probs: tuple[np.ndarray, np.ndarray]
    counts: tuple[np.ndarray, np.ndarray]  # counts[i][h, f]: dice of hand h matching face f (wild included)
    off: np.ndarray  # first edge of node m
    top: np.ndarray  # highest bid in m (-1 for the root)
    W: np.ndarray  # W[b, h0, h1] = P(h0) P(h1) * (+1 if bid b holds else -1)

    @property
    def n_nodes(self) -> int:
        return len(self.top)

    @property
    def n_edges(self) -> int:
        return int(self.off[-1])

    def edge(self, m: int, b: int | None) -> int:
        """Edge index of bid ``b`` (None: the call) at node ``m``."""
        n = self.rules.n_bids
        if b is None:
            return int(self.off[m] + n - 1 - self.top[m])
        return int(self.off[m] + b - self.top[m] - 1)


def hands_of(n_dice: int, faces: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """All sorted hands of ``n_dice`` dice and their chances."""
    hands = list(itertools.combinations_with_replacement(range(1, faces + 1), n_dice))
    probs = []
    for h in hands:
        ways = math.factorial(n_dice)
        for f in set(h):
            ways //= math.factorial(h.count(f))
        probs.append(ways / faces**n_dice)
    return hands, np.array(probs)


def build_tree(rules: DuelRules) -> Tree:
    n = rules.n_bids
    F = rules.faces
    hs, ps, cs = [], [], []
    for d in rules.dice:
        h, p = hands_of(d, F)
        c = np.zeros((len(h), F + 1), dtype=np.int64)
        for i, hand in enumerate(h):
            for f in range(1, F + 1):
                c[i, f] = sum(1 for x in hand if x == f or (x == rules.wild_face and rules.wild_face != 0))
        hs.append(h)
        ps.append(p)
        cs.append(c)
    masks = np.arange(1 << n, dtype=np.int64)
    top = np.full(1 << n, -1, dtype=np.int64)
    for b in range(n):
        top[(masks >> b) & 1 == 1] = b
    n_act = (n - 1 - top) + (masks != 0)
    off = np.zeros((1 << n) + 1, dtype=np.int64)
    np.cumsum(n_act, out=off[1:])
    W = np.zeros((n, len(hs[0]), len(hs[1])))
    for b in range(n):
        q, f = b // F + 1, b % F + 1
        holds = (cs[0][:, f][:, None] + cs[1][:, f][None, :]) >= q
        W[b] = np.outer(ps[0], ps[1]) * np.where(holds, 1.0, -1.0)
    return Tree(rules, (hs[0], hs[1]), (ps[0], ps[1]), (cs[0], cs[1]), off, top, W)


# ------------------------------------------------------------------------------------------------
# compiled passes


@njit(cache=True)
def _popparity(m):
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c & 1


@njit(cache=True)
def _forward(n, off, top, s0, s1, r0, r1):
    """Reach of both players under behaviour strategies s0[e, h0], s1[e, h1] (one pass, top-down)."""
    r0[0, :] = 1.0
    r1[0, :] = 1.0
    for m in range((1 << n)):
        p = _popparity(m)
        e = off[m]
        for b in range(top[m] + 1, n):
            c = m | (1 << b)
            if p == 0:
                for h in range(r0.shape[1]):
                    r0[c, h] = r0[m, h] * s0[e, h]
                for h in range(r1.shape[1]):
                    r1[c, h] = r1[m, h]
            else:
                for h in range(r0.shape[1]):
                    r0[c, h] = r0[m, h]
                for h in range(r1.shape[1]):
                    r1[c, h] = r1[m, h] * s1[e, h]
            e += 1


@njit(cache=True)
def _reach(j, n, off, top, s, r):
    """Reach r[m, h] of player j alone under its behaviour strategy s[e, h] (top-down)."""
    H = r.shape[1]
    r[0, :] = 1.0
    for m in range((1 << n)):
        own = _popparity(m) == j
        e = off[m]
        for b in range(top[m] + 1, n):
            c = m | (1 << b)
            if own:
                for h in range(H):
                    r[c, h] = r[m, h] * s[e, h]
            else:
                for h in range(H):
                    r[c, h] = r[m, h]
            e += 1


@njit(cache=True)
def _backward(i, mode, n, F, off, top, c_own, c_opp, p_own, p_opp, s_own, s_opp, r_opp, v):
    """Counterfactual values v[m, h] of player i, bottom-up.

    mode 0: follow s_own; mode 1: best response (max per hand at i's nodes).
    Returns sum_h v[0, h], player i's expected payoff.
    """
    H = v.shape[1]
    below = np.empty(c_opp.max() + 2)  # by the opponent's count of the bid face, 0..dice
    term = np.zeros(H)
    for m in range((1 << n) - 1, -1, -1):
        p = _popparity(m)
        ec = off[m + 1] - 1
        if m != 0:
            _terminal(i, p, m, top[m], ec, F, c_own, c_opp, p_own, p_opp, s_opp, r_opp, below, term)
        if p == i and mode == 1:
            for h in range(H):
                v[m, h] = term[h] if m != 0 else -1e300
            for b in range(top[m] + 1, n):
                c = m | (1 << b)
                for h in range(H):
                    if v[c, h] > v[m, h]:
                        v[m, h] = v[c, h]
        elif p == i:
            for h in range(H):
                v[m, h] = s_own[ec, h] * term[h] if m != 0 else 0.0
            e = off[m]
            for b in range(top[m] + 1, n):
                c = m | (1 << b)
                for h in range(H):
                    v[m, h] += s_own[e, h] * v[c, h]
                e += 1
        else:
            for h in range(H):
                v[m, h] = term[h] if m != 0 else 0.0
            for b in range(top[m] + 1, n):
                c = m | (1 << b)
                for h in range(H):
                    v[m, h] += v[c, h]
    total = 0.0
    for h in range(H):
        total += v[0, h]
    return total


@njit(cache=True)
def _regret_match(n, off, top, reg, s, who):
    """Current strategy from clipped regrets (uniform where all are zero) at player ``who``'s nodes."""
    H = reg.shape[1]
    for m in range(1 << n):
        if _popparity(m) != who:
            continue
        e0 = off[m]
        e1 = off[m + 1]
        for h in range(H):
            tot = 0.0
            for e in range(e0, e1):
                if reg[e, h] > 0.0:
                    tot += reg[e, h]
            for e in range(e0, e1):
                if tot > 0.0:
                    s[e, h] = reg[e, h] / tot if reg[e, h] > 0.0 else 0.0
                else:
                    s[e, h] = 1.0 / (e1 - e0)


@njit(cache=True)
def _terminal(i, p, m, b, ec, F, c_own, c_opp, p_own, p_opp, s_opp, r_opp, below, out):
    """Player i's counterfactual value of the call at node m (caller p, bid b) for each own hand.

    The bid (q of face f) holds when both hands together show at least q of f (wilds included), so
    the opponent's hands are pooled by their count: ``below[k]`` is the chance-weighted reach of
    the opponent's hands with fewer than k; hand h's value is ``+-P(h) (total - 2 below[q - c_h])``
    (the same sums as the matrix ``W[b]``, in O(hands) instead of O(hands^2)).
    """
    q = b // F + 1
    f = b % F + 1
    K = below.shape[0] - 1
    for k in range(K + 1):
        below[k] = 0.0
    for g in range(p_opp.shape[0]):
        w = p_opp[g] * r_opp[m, g] * (s_opp[ec, g] if p != i else 1.0)  # the opponent's own call, if it calls
        below[c_opp[g, f] + 1] += w
    for k in range(1, K + 1):
        below[k] += below[k - 1]
    total = below[K]
    sign = 1.0 if (1 - p) == i else -1.0
    for h in range(out.shape[0]):
        j = q - c_own[h, f]
        lo = 0.0 if j <= 0 else below[min(j, K)]
        out[h] = sign * p_own[h] * (total - 2.0 * lo)


@njit(cache=True)
def _update(i, n, F, off, top, c_own, c_opp, p_own, p_opp, reg, avg, s_own, s_opp, r_own, r_opp, v, weight,
            pos_d, neg_d, predictive):
    """One update of player i, bottom-up: values, discounted regrets, weighted average, new strategy.

    Cumulative regrets are first scaled by ``pos_d`` (positive) or ``neg_d`` (negative), then the
    instantaneous regret is added; with ``neg_d == 0`` they are clipped at zero (CFR+). The average
    strategy gains ``weight * reach * strategy``. The new strategy is regret matching on the updated
    regrets at each node as soon as they are known (a node's strategy is not read below it), with
    ``predictive`` the instantaneous regret is added once more as the prediction (PCFR+).
    """
    H = v.shape[1]
    below = np.empty(c_opp.max() + 2)  # by the opponent's count of the bid face, 0..dice
    term = np.zeros(H)
    q = np.empty(n + 1)
    for m in range((1 << n) - 1, -1, -1):
        p = _popparity(m)
        e0 = off[m]
        e1 = off[m + 1]
        ec = e1 - 1
        unreached = True  # by the opponent: then every value below m is zero
        for g in range(r_opp.shape[1]):
            if r_opp[m, g] != 0.0:
                unreached = False
                break
        if unreached:
            for h in range(H):
                v[m, h] = 0.0
                term[h] = 0.0
            if p != i:
                continue
            if pos_d == 1.0 and neg_d == 0.0 and not predictive:
                # CFR+: regrets and strategy stay as they are; only the average moves
                for h in range(H):
                    w = weight * r_own[m, h]
                    if w != 0.0:
                        for e in range(e0, e1):
                            avg[e, h] += w * s_own[e, h]
                continue
        elif m != 0:
            _terminal(i, p, m, top[m], ec, F, c_own, c_opp, p_own, p_opp, s_opp, r_opp, below, term)
        if p == i:
            if not unreached:
                for h in range(H):
                    v[m, h] = s_own[ec, h] * term[h] if m != 0 else 0.0
                e = e0
                for b in range(top[m] + 1, n):
                    c = m | (1 << b)
                    for h in range(H):
                        v[m, h] += s_own[e, h] * v[c, h]
                    e += 1
            for h in range(H):
                w = weight * r_own[m, h]
                vm = v[m, h]
                tot = 0.0
                e = e0
                for b in range(top[m] + 1, n + (m != 0)):
                    x = term[h] if b == n else v[m | (1 << b), h]
                    g = reg[e, h]
                    g = g * (pos_d if g > 0.0 else neg_d) + x - vm
                    if neg_d == 0.0 and g < 0.0:
                        g = 0.0
                    reg[e, h] = g
                    if w != 0.0:
                        avg[e, h] += w * s_own[e, h]
                    y = g + (x - vm) if predictive else g
                    y = y if y > 0.0 else 0.0
                    q[e - e0] = y
                    tot += y
                    e += 1
                k = e1 - e0
                for j in range(k):
                    s_own[e0 + j, h] = q[j] / tot if tot > 0.0 else 1.0 / k
        else:
            for h in range(H):
                v[m, h] = term[h] if m != 0 else 0.0
            for b in range(top[m] + 1, n):
                c = m | (1 << b)
                for h in range(H):
                    v[m, h] += v[c, h]


# ------------------------------------------------------------------------------------------------


@dataclass
class Solution:
    """An approximate equilibrium (average CFR+ strategies) and its exact quality."""

    rules: DuelRules
    value: float  # expected payoff of player 0 (the first bidder) under the average profile
    exploitability: float  # (BR_0 + BR_1) / 2
    br0: float
    br1: float
    iterations: int
    seconds: float
    strategy: tuple[np.ndarray, np.ndarray] = field(repr=False)
    tree: Tree = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "value": self.value,
            "exploitability": self.exploitability,
            "best_response_0": self.br0,
            "best_response_1": self.br1,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "info_sets": int(self.tree.n_nodes * (len(self.tree.hands[0]) + len(self.tree.hands[1])) // 2),
        }


def _normalise(tree: Tree, avg: np.ndarray, who: int, out: np.ndarray | None = None) -> np.ndarray:
    """The average strategy: ``avg`` normalised at ``who``'s nodes (uniform where it is all zero)."""
    s = np.zeros_like(avg) if out is None else out
    _regret_match(tree.rules.n_bids, tree.off, tree.top, avg, s, who)  # avg >= 0: the same as its clip
    return s


def evaluate_profile(tree: Tree, s0: np.ndarray, s1: np.ndarray, scratch: list[np.ndarray] | None = None
                     ) -> dict[str, float]:
    """Exact value for player 0 and both best-response values against the profile (s0, s1).

    ``scratch``: optional reach and value arrays ``[r0, r1, v0, v1]`` (node x hand) to reuse.
    """
    n = tree.rules.n_bids
    H0, H1 = len(tree.hands[0]), len(tree.hands[1])
    N = tree.n_nodes
    if scratch is None:
        scratch = [np.empty((N, H0)), np.empty((N, H1)), np.empty((N, H0)), np.empty((N, H1))]
    r0, r1, v0, v1 = scratch
    _forward(n, tree.off, tree.top, s0, s1, r0, r1)
    F, (c0, c1), (p0, p1) = tree.rules.faces, tree.counts, tree.probs
    value = _backward(0, 0, n, F, tree.off, tree.top, c0, c1, p0, p1, s0, s1, r1, v0)
    br0 = _backward(0, 1, n, F, tree.off, tree.top, c0, c1, p0, p1, s0, s1, r1, v0)
    br1 = _backward(1, 1, n, F, tree.off, tree.top, c1, c0, p1, p0, s1, s0, r0, v1)
    return {"value": value, "br0": br0, "br1": br1, "exploitability": (br0 + br1) / 2.0}


def solve(
    rules: DuelRules | None = None,
    iterations: int = 20000,
    target: float = 1e-5,
    check_every: int = 50,
    progress: bool = False,
    method: str = "dcfr",
) -> Solution:
    """Run DCFR (or ``method``, one of :data:`METHODS`) until the exploitability is below ``target``.

    At most ``iterations``; the exact exploitability of the average profile is checked every
    ``check_every`` iterations.
    """
    from dicelab.core.progress import progress_bar

    rules = rules or DuelRules()
    require(isinstance(iterations, int) and iterations >= 1, f"iterations must be at least 1, got {iterations}")
    require(target > 0, f"the target exploitability must be positive, got {target}")
    require(method in METHODS, f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    t0 = time.perf_counter()
    tree = build_tree(rules)
    n = rules.n_bids
    H = (len(tree.hands[0]), len(tree.hands[1]))
    N, E = tree.n_nodes, tree.n_edges
    reg = [np.zeros((E, H[0])), np.zeros((E, H[1]))]
    avg = [np.zeros((E, H[0])), np.zeros((E, H[1]))]
    s = [np.zeros((E, H[0])), np.zeros((E, H[1]))]
    r = [np.empty((N, H[0])), np.empty((N, H[1]))]
    v = [np.empty((N, H[0])), np.empty((N, H[1]))]
    for i in (0, 1):
        _regret_match(n, tree.off, tree.top, reg[i], s[i], i)
        _reach(i, n, tree.off, tree.top, s[i], r[i])
    pos_a, neg_b, gamma, predictive = METHODS[method]
    F, c, pr = rules.faces, tree.counts, tree.probs
    out = [np.zeros((E, H[0])), np.zeros((E, H[1]))]  # the average strategies, normalised
    scratch = [np.empty((N, H[0])), np.empty((N, H[1])), v[0], v[1]]
    done = 0
    quality = {"exploitability": math.inf}
    with progress_bar(method.upper(), total=iterations, enabled=progress) as bar:
        for t in range(1, iterations + 1):
            pos_d = 1.0 if pos_a is None else (t - 1) ** pos_a / ((t - 1) ** pos_a + 1.0)
            neg_d = 0.0 if neg_b is None else (t - 1) ** neg_b / ((t - 1) ** neg_b + 1.0)
            for i in (0, 1):
                _update(i, n, F, tree.off, tree.top, c[i], c[1 - i], pr[i], pr[1 - i], reg[i], avg[i], s[i],
                        s[1 - i], r[i], r[1 - i], v[i], float(t) ** gamma, pos_d, neg_d, predictive)
                _reach(i, n, tree.off, tree.top, s[i], r[i])
            done = t
            bar.advance()
            if t % check_every == 0 or t == iterations:
                a0, a1 = _normalise(tree, avg[0], 0, out[0]), _normalise(tree, avg[1], 1, out[1])
                quality = evaluate_profile(tree, a0, a1, scratch)
                if quality["exploitability"] < target:
                    break
    strat = (_normalise(tree, avg[0], 0), _normalise(tree, avg[1], 1))
    quality = evaluate_profile(tree, *strat)
    return Solution(rules, quality["value"], quality["exploitability"], quality["br0"], quality["br1"], done,
                    time.perf_counter() - t0, strat, tree)


def policy_profile(
    tree: Tree, policy: Callable[[int, tuple[int, ...], tuple[int, ...] | None], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Behaviour strategies for both seats from ``policy(player, hand, last_bid) -> probs``.

    ``probs`` has one entry per action at the node: the legal raises in rank order, then the call
    (absent at the root). ``last_bid`` is ``(quantity, face)`` or None.
    """
    F = tree.rules.faces
    out = []
    for i in (0, 1):
        s = np.zeros((tree.n_edges, len(tree.hands[i])))
        cache: dict[tuple[int, int], np.ndarray] = {}
        for m in range(tree.n_nodes):
            if bin(m).count("1") % 2 != i:
                continue
            t = int(tree.top[m])
            e0, e1 = int(tree.off[m]), int(tree.off[m + 1])
            for h, hand in enumerate(tree.hands[i]):
                key = (t, h)  # the policies we evaluate look only at the last bid
                if key not in cache:
                    last = None if t < 0 else (t // F + 1, t % F + 1)
                    p = np.asarray(policy(i, hand, last), dtype=float)
                    require(p.shape == (e1 - e0,), "policy returned the wrong number of action probabilities")
                    cache[key] = p
                s[e0:e1, h] = cache[key]
        out.append(s)
    return out[0], out[1]


def profile_from_distribution(
    tree: Tree, dist: Callable[[PlayerView], dict[Bid | None, float]], rules: LiarsRules | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Both seats play the policy ``dist(view) -> {bid or None (call): probability}``.

    ``rules`` is the multi-round rule set the policy was made for (default: two players with the
    larger dice count); its faces and wild option must match the duel.
    """
    d = tree.rules
    lr = rules or LiarsRules(players=2, dice=max(d.dice), faces=d.faces, wild=d.wild)
    require(
        lr.players == 2 and lr.faces == d.faces and lr.wild == d.wild and lr.dice >= max(d.dice),
        f"a policy for {lr.players} players x {lr.dice} dice x {lr.faces} faces (wild {lr.wild}) cannot play "
        f"the duel {d.dice[0]} v {d.dice[1]} with {d.faces} faces (wild {d.wild})",
    )
    F = d.faces

    def policy(i: int, hand: tuple[int, ...], last: tuple[int, int] | None) -> np.ndarray:
        top = -1 if last is None else (last[0] - 1) * F + last[1] - 1
        k = d.n_bids - 1 - top
        probs = np.zeros(k + (last is not None))
        view = PlayerView(lr, i, hand, d.dice, None if last is None else Bid(*last), ())
        for bid, p in dist(view).items():
            if bid is None:
                require(last is not None, "the policy called before any bid")
                probs[k] += p
            else:
                r = bid.rank(F)
                require(top < r < d.n_bids, f"the policy made an illegal bid {bid}")
                probs[r - top - 1] += p
        require(abs(probs.sum() - 1.0) < 1e-9, "the policy's probabilities do not sum to 1")
        return probs

    return policy_profile(tree, policy)


def policy_exploitability(
    rules: DuelRules, dist: Callable[[PlayerView], dict[Bid | None, float]], policy_rules: LiarsRules | None = None
) -> dict[str, float]:
    """Exact exploitability of a policy that plays both seats: value, BR_0, BR_1, (BR_0 + BR_1) / 2."""
    tree = build_tree(rules)
    s0, s1 = profile_from_distribution(tree, dist, policy_rules)
    return evaluate_profile(tree, s0, s1)


def solve_lp(rules: DuelRules | None = None) -> float:
    """Value for player 0 by the sequence-form linear program (Koller, Megiddo, von Stengel), HiGHS.

    max_{x, z} z_root  s.t.  E x = e, x >= 0,  F^T z - A^T x <= 0. Practical up to about 14 bids.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, hstack

    rules = rules or DuelRules()
    tree = build_tree(rules)
    n = rules.n_bids
    H = (len(tree.hands[0]), len(tree.hands[1]))
    # sequence numbering per player: 0 is the empty sequence; (edge, hand) for edges at own nodes
    seq = [np.full(tree.n_edges, -1, dtype=np.int64), np.full(tree.n_edges, -1, dtype=np.int64)]
    n_edges_own = [0, 0]
    for m in range(tree.n_nodes):
        p = bin(m).count("1") % 2
        for e in range(int(tree.off[m]), int(tree.off[m + 1])):
            seq[p][e] = n_edges_own[p]
            n_edges_own[p] += 1
    n_seq = [1 + n_edges_own[i] * H[i] for i in (0, 1)]

    def sid(i: int, e: int, h: int) -> int:
        return 1 + int(seq[i][e]) * H[i] + h

    def parent_seq(i: int, m: int, h: int) -> int:
        # player i's previous move on the path to m: at the grandparent, the second-highest bid
        bits = [b for b in range(n) if m >> b & 1]
        if len(bits) < 2:
            return 0
        g = m & ~(1 << bits[-1]) & ~(1 << bits[-2])
        return sid(i, tree.edge(g, bits[-2]), h)

    n_rows = [1, 1]
    mats = []
    for i in (0, 1):
        rows, cols, vals = [0], [0], [1.0]
        for m in range(tree.n_nodes):
            if bin(m).count("1") % 2 != i:
                continue
            for h in range(H[i]):
                r = n_rows[i]
                n_rows[i] += 1
                for e in range(int(tree.off[m]), int(tree.off[m + 1])):
                    rows.append(r)
                    cols.append(sid(i, e, h))
                    vals.append(1.0)
                rows.append(r)
                cols.append(parent_seq(i, m, h))
                vals.append(-1.0)
        mats.append(coo_matrix((vals, (rows, cols)), shape=(n_rows[i], n_seq[i])).tocsr())
    Emat, Fmat = mats
    ar, ac, av = [], [], []
    for m in range(1, tree.n_nodes):
        p = bin(m).count("1") % 2  # the caller
        b = int(tree.top[m])
        parent = m & ~(1 << b)
        sign = 1.0 if (1 - p) == 0 else -1.0
        e_call = tree.edge(m, None)
        e_bid = tree.edge(parent, b)
        for h0 in range(H[0]):
            for h1 in range(H[1]):
                w = tree.W[b, h0, h1] * sign
                if w == 0.0:
                    continue
                if p == 0:
                    s0, s1 = sid(0, e_call, h0), sid(1, e_bid, h1)
                else:
                    s0, s1 = sid(0, e_bid, h0), sid(1, e_call, h1)
                ar.append(s0)
                ac.append(s1)
                av.append(w)
    A = coo_matrix((av, (ar, ac)), shape=(n_seq[0], n_seq[1])).tocsr()
    nx, nz = n_seq[0], n_rows[1]
    c = np.zeros(nx + nz)
    c[nx] = -1.0  # maximise z_root (row 0 of F y = f is y_empty = 1)
    A_ub = hstack([-A.T, Fmat.T]).tocsr()
    b_ub = np.zeros(n_seq[1])
    A_eq = hstack([Emat, coo_matrix((n_rows[0], nz))]).tocsr()
    b_eq = np.zeros(n_rows[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * nx + [(None, None)] * nz
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    require(res.status == 0, f"the linear program did not solve: {res.message}")
    return float(-res.fun)
