"""Local best response (Lisy and Bowling, 2017) and head-to-head play for duel policies of any size.

Every policy here is a :class:`dicelab.liars.duel.DuelPolicy` table; the seed's bots and Q agents
become one with :func:`table_policy` (they look only at the last bid, so a window of one bid holds
them exactly).

**LBR.** The responder keeps the exact posterior over the opponent's hands (its chance times the
policy's probability of every move the opponent made) and at each of its turns picks the action
with the best value under a one-step look-ahead: a call is valued exactly under the posterior; a
raise ``r`` by what the opponent does next (its policy's call of ``r``, or a raise ``r'`` that the
responder then calls). It is one fixed strategy, so its expected payoff against the policy is a
lower bound on the best response: ``(LBR_0 + LBR_1) / 2`` bounds the exploitability from below.
It is estimated by playing rounds (with a 95% interval), or computed exactly on small games by
walking the whole tree (:func:`lbr_exact`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.jit import njit
from dicelab.core.stats import wilson_interval
from dicelab.liars.duel import Duel, DuelPolicy, build_dag
from dicelab.liars.rules import Bid, LiarsRules, PlayerView

# ------------------------------------------------------------------------------------------------
# policies as tables


def table_policy(duel: Duel, dist: Callable[[PlayerView], dict[Bid | None, float]],
                 rules: LiarsRules | None = None, name: str = "") -> DuelPolicy:
    """A policy that looks only at the last bid (a bot, a Q agent) as a window-1 table.

    ``dist(view) -> {bid or None: probability}``; ``rules`` are the multi-round rules the policy was
    made for (default: two players with the larger dice count).
    """
    lr = rules or LiarsRules(players=2, dice=max(duel.dice), faces=duel.faces, wild=duel.wild)
    require(lr.players == 2 and lr.faces == duel.faces and lr.wild == duel.wild and lr.dice >= max(duel.dice),
            f"a policy for {lr.players} players x {lr.dice} dice x {lr.faces} faces (wild {lr.wild}) cannot play "
            f"the duel {duel.dice[0]} v {duel.dice[1]} with {duel.faces} faces (wild {duel.wild})")
    dag = build_dag(duel.n_bids, 1)
    n, F = dag.n, duel.faces
    s = []
    for i in (0, 1):
        hands = duel.hands(i)[0]
        x = np.zeros((dag.rows[i], len(hands)), dtype=np.float64)
        for m in range(dag.n_nodes):
            if dag.mover[m] != i:
                continue
            t = int(dag.top[m])
            k = n - 1 - t + (1 if m != 0 else 0)
            r0 = int(dag.loc[m])
            last = None if t < 0 else Bid.from_rank(t, F)
            for hi, hand in enumerate(hands):
                view = PlayerView(lr, i, hand, duel.dice, last, ())
                for bid, p in dist(view).items():
                    if bid is None:
                        require(m != 0, "the policy called before any bid")
                        x[r0 + k - 1, hi] += p
                    else:
                        r = bid.rank(F)
                        require(t < r < n, f"the policy made an illegal bid {bid}")
                        x[r0 + r - t - 1, hi] += p
        s.append(x)
    return DuelPolicy(duel, dag, (s[0], s[1]), {"method": "table", "name": name})


def bot_policy(duel: Duel, name: str) -> DuelPolicy:
    """The bot ``random`` or ``probabilistic`` as a table."""
    from dicelab.liars.strategies import action_distribution

    return table_policy(duel, lambda v: action_distribution(name, v), name=name)


# ------------------------------------------------------------------------------------------------
# compiled LBR and play


@njit(cache=True)
def _holds(q, f, cown_f, copp_f):
    return cown_f + copp_f >= q


@njit(cache=True)
def _lbr_choose(n, F, child, m, loc_opp, s_opp, path, d, c_own_h, c_opp, ro):
    """LBR's action (bid rank, or n for the call) at the node after path[0..d-1] (the policy's node
    ``m``, whose ``child[m, b]`` is the node after bid b) for a hand with counts ``c_own_h[f]``, the
    opponent's posterior weights ``ro[g]`` (unnormalised)."""
    t = path[d - 1] if d > 0 else -1
    Hj = c_opp.shape[0]
    best = -1e300
    choice = n
    if d > 0:
        q = t // F + 1
        f = t % F + 1
        v = 0.0
        for g in range(Hj):
            if ro[g] != 0.0:
                v += ro[g] * (-1.0 if _holds(q, f, c_own_h[f], c_opp[g, f]) else 1.0)
        best = v
        choice = n
    for r in range(t + 1, n):
        r0 = loc_opp[child[m, r]]
        k = n - 1 - r + 1
        q = r // F + 1
        f = r % F + 1
        v = 0.0
        for g in range(Hj):
            if ro[g] == 0.0:
                continue
            x = s_opp[r0 + k - 1, g] * (1.0 if _holds(q, f, c_own_h[f], c_opp[g, f]) else -1.0)
            for r2 in range(r + 1, n):
                p = s_opp[r0 + r2 - r - 1, g]
                if p != 0.0:
                    q2 = r2 // F + 1
                    f2 = r2 % F + 1
                    x += p * (-1.0 if _holds(q2, f2, c_own_h[f2], c_opp[g, f2]) else 1.0)
            v += ro[g] * x
        if v > best + 1e-12:
            best = v
            choice = r
    return choice


@njit(cache=True)
def _draw(cum):
    u = np.random.random()
    g = 0
    while g < cum.shape[0] - 1 and cum[g] <= u:
        g += 1
    return g


@njit(cache=True)
def _pick(s, r0, k, h):
    u = np.random.random()
    acc = 0.0
    tot = 0.0
    for j in range(k):
        tot += s[r0 + j, h]
    for j in range(k):
        acc += s[r0 + j, h] / tot
        if u < acc:
            return j
    return k - 1


@njit(cache=True)
def _lbr_rounds(i, rounds, seed, n, F, child, loc, s_opp, c_own, c_opp, cum_own, cum_opp, out, bids):
    """LBR in seat i against the policy (its DAG's ``child``, table s_opp for seat 1 - i); payoffs to
    ``out``, the bids each round took to its call to ``bids``."""
    np.random.seed(seed)
    Hj = c_opp.shape[0]
    path = np.zeros(n + 2, np.int64)
    ro = np.zeros(Hj)
    for k in range(rounds):
        h = _draw(cum_own)
        g = _draw(cum_opp)
        for x in range(Hj):
            ro[x] = cum_opp[x] - (cum_opp[x - 1] if x > 0 else 0.0)
        d = 0
        node = 0  # the policy's node after path[0..d-1]
        while True:
            mover = d % 2
            t = path[d - 1] if d > 0 else -1
            if mover == i:
                a = _lbr_choose(n, F, child, node, loc, s_opp, path, d, c_own[h], c_opp, ro)
            else:
                kk = n - 1 - t + (1 if d > 0 else 0)
                r0 = loc[node]
                j = _pick(s_opp, r0, kk, g)
                for x in range(Hj):
                    ro[x] *= s_opp[r0 + j, x]
                a = n if (d > 0 and j == kk - 1) else t + 1 + j
            if a == n:  # call of bid t by the mover
                q = t // F + 1
                f = t % F + 1
                holds = c_own[h, f] + c_opp[g, f] >= q
                bidder_wins = holds
                i_is_bidder = mover != i
                out[k] = 1.0 if (bidder_wins == i_is_bidder) else -1.0
                bids[k] = d
                break
            path[d] = a
            node = child[node, a]
            d += 1


@njit(cache=True)
def _duel_rounds(rounds, seed, n, F, child_a, loc_a, sa0, sa1, child_b, loc_b, sb0, sb1, c0, c1, cum0, cum1, a_seat,
                 out):
    """Rounds between policy A (in seat ``a_seat``) and B (each walked on its own DAG); out[k] = 1 when A wins."""
    np.random.seed(seed)
    path = np.zeros(n + 2, np.int64)
    for k in range(rounds):
        h0 = _draw(cum0)
        h1 = _draw(cum1)
        d = 0
        ma = 0  # each policy's node after path[0..d-1]
        mb = 0
        while True:
            mover = d % 2
            t = path[d - 1] if d > 0 else -1
            hand = h0 if mover == 0 else h1
            kk = n - 1 - t + (1 if d > 0 else 0)
            if mover == a_seat:
                j = _pick(sa0 if mover == 0 else sa1, loc_a[ma], kk, hand)
            else:
                j = _pick(sb0 if mover == 0 else sb1, loc_b[mb], kk, hand)
            if d > 0 and j == kk - 1:
                q = t // F + 1
                f = t % F + 1
                holds = c0[h0, f] + c1[h1, f] >= q
                bidder = 1 - mover
                winner = bidder if holds else mover
                out[k] = 1.0 if winner == a_seat else 0.0
                break
            path[d] = t + 1 + j
            ma = child_a[ma, t + 1 + j]
            mb = child_b[mb, t + 1 + j]
            d += 1


def _seed(seed: int, *key: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1, np.uint32)[0])


BY_BIDS_CAP = 8  # rounds of this many bids or more are counted together


def gain_by_bids(outs: list[np.ndarray], lengths: list[np.ndarray], cap: int = BY_BIDS_CAP) -> dict[str, Any]:
    """Where a responder's gain comes from: the rounds of each seat split by the bids made before the
    call (``"1"`` .. ``"8+"``). ``rounds_by_bids``: the share of rounds; ``gain_by_bids``: each
    length's part of the bound, the mean over the seats of (payoff sum of those rounds) / rounds, so
    the parts add up to ``(gain0 + gain1) / 2``. It describes the rounds, not where the policy errs
    (the responder decides when a round ends): for that, the learned responder's move-by-move split
    (:func:`dicelab.liars.responder.gain_by_move`)."""
    keys = [str(k) for k in range(1, cap)] + [f"{cap}+"]
    share, gain = np.zeros(cap), np.zeros(cap)
    for out, bids in zip(outs, lengths, strict=True):
        b = np.minimum(np.asarray(bids), cap) - 1  # rounds take at least one bid: the opener cannot call
        share += np.bincount(b, minlength=cap)
        gain += np.bincount(b, weights=out, minlength=cap) / len(out) / len(outs)
    share /= sum(len(o) for o in outs)
    return {"rounds_by_bids": dict(zip(keys, share.tolist(), strict=True)),
            "gain_by_bids": dict(zip(keys, gain.tolist(), strict=True))}


def lbr(policy: DuelPolicy, rounds: int = 4000, seed: int = 0) -> dict[str, Any]:
    """LBR in both seats against ``policy``, by playing ``rounds`` rounds per seat.

    Returns ``lbr0``, ``lbr1`` (mean payoffs, each with a 95% normal interval half-width) and
    ``exploitability_lower`` = (LBR_0 + LBR_1) / 2, a lower bound on the exploitability (in
    expectation; ``..._ci`` gives its 95% half-width), and that bound split by the rounds' length
    (:func:`gain_by_bids`).
    """
    require(isinstance(rounds, int) and rounds >= 2, f"rounds must be at least 2, got {rounds}")
    d = policy.duel
    t0 = time.perf_counter()
    _, p0, c0 = d.hands(0)
    _, p1, c1 = d.hands(1)
    cums = (np.cumsum(p0), np.cumsum(p1))
    cs = (c0, c1)
    dag = policy.dag
    res: dict[str, Any] = {}
    half = []
    outs, lengths = [], []
    for i in (0, 1):
        out = np.zeros(rounds)
        bids = np.zeros(rounds, dtype=np.int64)
        s_opp = np.ascontiguousarray(policy.strategy[1 - i], dtype=np.float64)
        _lbr_rounds(i, rounds, _seed(seed, i), d.n_bids, d.faces, dag.child, dag.loc, s_opp, cs[i], cs[1 - i],
                    cums[i], cums[1 - i], out, bids)
        outs.append(out)
        lengths.append(bids)
        mean = float(out.mean())
        hw = 1.96 * float(out.std(ddof=1)) / math.sqrt(rounds)
        res[f"lbr{i}"] = mean
        res[f"lbr{i}_ci"] = hw
        half.append(hw)
    res["exploitability_lower"] = (res["lbr0"] + res["lbr1"]) / 2.0
    res["exploitability_lower_ci"] = math.sqrt(half[0] ** 2 + half[1] ** 2) / 2.0
    res.update(gain_by_bids(outs, lengths))
    res["rounds"] = rounds
    res["seconds"] = time.perf_counter() - t0
    res["method"] = "lbr"
    return res


def lbr_exact(policy: DuelPolicy) -> dict[str, float]:
    """LBR's exact expected payoff in both seats, walking the whole tree (small games: 2^N nodes x hands)."""
    d = policy.duel
    require(d.n_bids <= 14, "exact LBR walks every bid sequence; use at most 14 bids")
    n, F, dag = d.n_bids, d.faces, policy.dag
    _, p0, c0 = d.hands(0)
    _, p1, c1 = d.hands(1)
    ps, cs = (p0, p1), (c0, c1)
    out = {}
    for i in (0, 1):
        j = 1 - i
        s_opp = np.ascontiguousarray(policy.strategy[j], dtype=np.float64)
        path = np.zeros(n + 2, np.int64)

        def walk(dd: int, node: int, ro: np.ndarray, h: int) -> float:
            mover = dd % 2
            t = int(path[dd - 1]) if dd > 0 else -1
            if mover == i:
                a = _lbr_choose(n, F, dag.child, node, dag.loc, s_opp, path, dd, cs[i][h], cs[j], ro)
                if a == n:
                    q, f = t // F + 1, t % F + 1
                    holds = cs[i][h, f] + cs[j][:, f] >= q
                    return float(np.sum(ro * np.where(holds, -1.0, 1.0)))
                path[dd] = a
                return walk(dd + 1, int(dag.child[node, a]), ro, h)
            r0 = int(dag.loc[node])
            kk = n - 1 - t + (1 if dd > 0 else 0)
            v = 0.0
            if dd > 0:
                q, f = t // F + 1, t % F + 1
                holds = cs[i][h, f] + cs[j][:, f] >= q
                v += float(np.sum(ro * s_opp[r0 + kk - 1] * np.where(holds, 1.0, -1.0)))
            for r in range(t + 1, n):
                r2 = ro * s_opp[r0 + r - t - 1]
                if not np.any(r2):
                    continue
                path[dd] = r
                v += walk(dd + 1, int(dag.child[node, r]), r2, h)
            return v

        out[f"lbr{i}"] = float(sum(ps[i][h] * walk(0, 0, ps[j].copy(), h) for h in range(len(ps[i]))))
    out["exploitability_lower"] = (out["lbr0"] + out["lbr1"]) / 2.0
    return out


def head_to_head(a: DuelPolicy, b: DuelPolicy, rounds: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """``rounds`` rounds with A in seat 0 and as many with A in seat 1: A's win share, 95% Wilson interval."""
    require(a.duel == b.duel, "the two policies play different duels")
    require(isinstance(rounds, int) and rounds >= 1, f"rounds must be at least 1, got {rounds}")
    d = a.duel
    _, p0, c0 = d.hands(0)
    _, p1, c1 = d.hands(1)
    wins = []
    for seat in (0, 1):
        out = np.zeros(rounds)
        _duel_rounds(rounds, _seed(seed, seat), d.n_bids, d.faces, a.dag.child, a.dag.loc,
                     np.ascontiguousarray(a.strategy[0], np.float64), np.ascontiguousarray(a.strategy[1], np.float64),
                     b.dag.child, b.dag.loc,
                     np.ascontiguousarray(b.strategy[0], np.float64), np.ascontiguousarray(b.strategy[1], np.float64),
                     c0, c1, np.cumsum(p0), np.cumsum(p1), seat, out)
        wins.append(int(out.sum()))
    total = sum(wins)
    lo, hi = wilson_interval(total, 2 * rounds)
    return {"win_rate": total / (2 * rounds), "ci_low": lo, "ci_high": hi, "games": 2 * rounds, "wins": total,
            "wins_seat0": wins[0], "wins_seat1": wins[1], "rounds_per_seat": rounds}
