"""The ladders' order checked by play, independently of every evaluator (issue 21, item 1).

The levels' strengths are exact numbers from the games' own evaluators (``dicelab.pig.levels``,
``dicelab.hog.levels``, ``supersix.evaluate``, ``simpig.evaluate``). Here nothing of those is
used: each level's policy (what the bot does at each position: the level's table, noise included)
plays whole games against the strongest level in a plain simulator written in this file from the
rules (dice rolled with numpy, no outcome tables of the package), both seats in turn. Asserted:

* the levels are strictly ordered by their simulated strength: every step up is larger than
  3.5 standard errors of the difference, and the level below the strongest is below 1/2 by more
  than 3.5 standard errors (the strongest level against itself wins 1/2 by symmetry: a law);
* every simulated strength agrees with the level's measured (exact) strength within 4.5 standard
  errors, so a wrong evaluator or a bot that plays other than its measured policy shows here.

Fixed seeds; the sample sizes give each gap of the default ladders at least about 5 standard errors.
Pig, Hog and simultaneous Pig (20,000 to 160,000 games a level) are ``slow`` tests; Super Six and
the turn-total law run in the quick suite.
"""

from __future__ import annotations

import numpy as np
import pytest

from dicelab.core import levels as core_levels
from dicelab.core.registry import get

Z_ORDER = 3.5
Z_AGREE = 4.5


def check(game: str, sims: list[tuple[float, float]]) -> None:
    """``sims``: each level's (simulated strength, standard error) but the strongest's."""
    entry = get(game)
    rules = entry.make_rules()
    measured = core_levels.ladder(game, entry.play, rules)["levels"]
    assert len(sims) == len(measured) - 1
    est = [*sims, (0.5, 0.0)]  # the strongest against itself: 1/2 by symmetry
    for (a, sa), (b, sb) in zip(est, est[1:]):
        assert b - a > Z_ORDER * np.hypot(sa, sb), (game, est)
    for (s, se), lv in zip(sims, measured):
        assert abs(s - lv["strength"]) < Z_AGREE * se + 1e-9, (game, lv["name"], s, se, lv["strength"])


def share(won_a: np.ndarray) -> tuple[float, float]:
    """The mean of seat A's results (1, 1/2 or 0) and its standard error."""
    return float(won_a.mean()), float(won_a.std(ddof=1) / np.sqrt(won_a.size))


# ------------------------------------------------------------------------------ Pig
def simulate_pig(qa: np.ndarray, qb: np.ndarray, goal: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` games of standard Pig, A to move first in half of them; A's results. ``q[i, j, k]``
    is the chance of rolling with own score i, the other's j and turn total k."""
    score = np.zeros((n, 2), dtype=np.int64)  # column 0: A, 1: B
    k = np.zeros(n, dtype=np.int64)
    mover = (np.arange(n) >= n // 2).astype(np.int64)  # A first in the first half
    result = np.full(n, -1.0)
    live = np.arange(n)
    while live.size:
        m = mover[live]
        own, opp, kk = score[live, m], score[live, 1 - m], k[live]
        p = np.where(m == 0, qa[own, opp, kk], qb[own, opp, kk])
        roll = rng.random(live.size) < p
        die = rng.integers(1, 7, live.size)
        bust = roll & (die == 1)
        k[live] = np.where(roll & ~bust, kk + die, 0)
        won = roll & ~bust & (own + kk + die >= goal)
        hold = ~roll
        score[live[hold], m[hold]] += kk[hold]
        switch = bust | hold
        mover[live[switch]] = 1 - m[switch]
        result[live[won]] = np.where(m[won] == 0, 1.0, 0.0)
        live = live[~won]
    return result


@pytest.mark.slow  # 20,000-160,000 games a level: seconds of CPU each (make test-all)
def test_pig_levels_are_ordered_in_play():
    from dicelab.pig.levels import roll_probabilities

    entry = get("pig")
    rules = entry.make_rules()
    assert rules.variant == "standard" and rules.sides == 6
    ladder = entry.play.levels(rules)
    top = roll_probabilities(ladder[-1].spec, rules)
    rng = np.random.default_rng(2101)
    sims = [share(simulate_pig(roll_probabilities(lv.spec, rules), top, rules.goal, 20_000, rng)) for lv in ladder[:-1]]
    check("pig", sims)


# ------------------------------------------------------------------------------ Hog
def simulate_hog(pa: np.ndarray, pb: np.ndarray, goal: int, n: int, rng: np.random.Generator,
                 sides: int = 6) -> np.ndarray:
    """``n`` games of Hog (roll n dice: a 1 among them scores 0, else their sum), A first in half;
    ``p[i, j, n - 1]`` is the chance of rolling n dice at own score i against j."""
    dmax = pa.shape[2]
    ca, cb = np.cumsum(pa, axis=2), np.cumsum(pb, axis=2)
    score = np.zeros((n, 2), dtype=np.int64)
    mover = (np.arange(n) >= n // 2).astype(np.int64)
    result = np.full(n, -1.0)
    live = np.arange(n)
    while live.size:
        m = mover[live]
        own, opp = score[live, m], score[live, 1 - m]
        cdf = np.where((m == 0)[:, None], ca[own, opp], cb[own, opp])
        dice = 1 + np.minimum((rng.random(live.size)[:, None] > cdf).sum(axis=1), dmax - 1)
        rolled = rng.integers(1, sides + 1, (live.size, dmax))
        used = np.arange(dmax)[None, :] < dice[:, None]
        pts = np.where(((rolled == 1) & used).any(axis=1), 0, (rolled * used).sum(axis=1))
        score[live, m] = own + pts
        won = own + pts >= goal
        mover[live] = 1 - m
        result[live[won]] = np.where(m[won] == 0, 1.0, 0.0)
        live = live[~won]
    return result


@pytest.mark.slow  # 20,000-160,000 games a level: seconds of CPU each (make test-all)
def test_hog_levels_are_ordered_in_play():
    from dicelab.hog.levels import policy

    entry = get("hog")
    rules = entry.make_rules()
    ladder = entry.play.levels(rules)
    top = policy(ladder[-1].spec, rules)
    rng = np.random.default_rng(2102)
    sims = [share(simulate_hog(policy(lv.spec, rules), top, rules.goal, 40_000, rng, rules.sides))
            for lv in ladder[:-1]]
    check("hog", sims)


# ------------------------------------------------------------------------------ Super Six
def simulate_supersix(ta: np.ndarray, tb: np.ndarray, sticks: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` two-player games of Super Six from the rules (5 pits and a hole; round 1: one throw
    each; later a forced throw, then throw again while the strategy says so), A first in half;
    ``t[lid, own, opp]`` is 1 where the strategy throws again."""
    st = np.full((n, 2), sticks, dtype=np.int64)
    lid = np.zeros(n, dtype=np.int64)
    first = (np.arange(n) >= n // 2).astype(np.int64)
    mover = first.copy()
    throws_left_r1 = np.full(n, 2)  # round 1: each player throws once
    forced = np.ones(n, dtype=bool)
    result = np.full(n, -1.0)
    live = np.arange(n)
    while live.size:
        m, lv, f = mover[live], lid[live], forced[live]
        own, opp = st[live, m], st[live, 1 - m]
        wants = np.where(m == 0, ta[lv, own, opp], tb[lv, own, opp]).astype(bool)
        throw = f | wants
        stop = ~throw
        die = rng.integers(1, 7, live.size)
        hole = throw & (die == 6)
        filled = throw & (die <= lv)  # which pit does not matter: a 1..5 hits a filled pit with chance lid/6
        empty = throw & ~hole & ~filled
        st[live, m] = own - hole - empty + filled
        lid[live] = lv + empty - filled
        r1 = throws_left_r1[live] > 0
        ends = stop | filled | (throw & r1)
        throws_left_r1[live] -= throw & r1
        won = throw & (st[live, m] == 0)
        mover[live] = np.where(ends, 1 - m, m)
        forced[live] = ends
        result[live[won]] = np.where(m[won] == 0, 1.0, 0.0)
        live = live[~won]
    return result


def test_supersix_levels_are_ordered_in_play():
    from dicelab.supersix.strategies import parse

    entry = get("supersix")
    rules = entry.make_rules()
    assert rules.players == 2
    s = rules.sticks
    ladder = entry.play.levels(rules)

    def table(spec: str) -> np.ndarray:  # the bot's own decide(), asked at every position
        decide = parse(spec, rules).decide
        t = np.zeros((6, 2 * s + 1, 2 * s + 1), dtype=np.int8)  # a player may hold more sticks than at the start
        for lid in range(6):
            for own in range(1, 2 * s + 1):
                for opp in range(1, 2 * s + 1):
                    if lid + own + opp <= 2 * s:  # sticks are in the pits, the hands or the hole
                        t[lid, own, opp] = decide(lid, own, (opp,))
        return t

    top = table(ladder[-1].spec)
    rng = np.random.default_rng(2103)
    sims = [share(simulate_supersix(table(lv.spec), top, s, 40_000, rng)) for lv in ladder[:-1]]
    check("supersix", sims)


# ------------------------------------------------------------------------------ simultaneous Pig
def turn_total_cdf(goal: int) -> np.ndarray:
    """``cdf[t, x]``: P(turn total <= x) when rolling a six-sided die until the total reaches ``t``
    or a 1 comes (then 0), by a plain forward recursion over the running total."""
    cdf = np.zeros((goal + 1, goal + 6))
    for t in range(1, goal + 1):
        at = np.zeros(t + 6)  # at[s]: chance to be at running total s and still rolling
        at[0] = 1.0
        end = np.zeros(t + 6)
        for s in range(t):
            if at[s] == 0:
                continue
            end[0] += at[s] / 6
            for d in range(2, 7):
                (end if s + d >= t else at)[s + d] += at[s] / 6
        cdf[t, : t + 6] = np.cumsum(end)
        cdf[t, t + 6:] = 1.0
    return cdf


def simulate_simpig(sa, sb, goal: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` two-player games of simultaneous Pig; A's share of the win (a tie counts half).
    ``s = (weights[c, own, opp], targets[c, own, opp])``: the mixed choice of a hold-at target."""
    cdf = turn_total_cdf(goal)
    tabs = [(np.cumsum(w, axis=0), t) for w, t in (sa, sb)]
    score = np.zeros((n, 2), dtype=np.int64)
    result = np.full(n, -1.0)
    live = np.arange(n)
    while live.size:
        before = score[live].copy()  # both choose at once, from the scores at the turn's start
        for seat in (0, 1):
            cw, tg = tabs[seat]
            own, opp = before[:, seat], before[:, 1 - seat]
            c = np.minimum((rng.random(live.size)[None, :] > cw[:, own, opp]).sum(axis=0), cw.shape[0] - 1)
            target = np.clip(tg[c, own, opp], 1, goal - own)
            total = (rng.random(live.size)[:, None] > cdf[target]).sum(axis=1)
            score[live, seat] = own + total
        a, b = score[live, 0] >= goal, score[live, 1] >= goal
        done = a | b
        result[live[done]] = np.where(a & b, 0.5, np.where(a, 1.0, 0.0))[done]
        live = live[~done]
    return result


def test_turn_total_law():
    """The recursion above against the published P(X_100 = 0) = 0.9898 (Zhu & Ma, Table 2) and a
    total of 1 in every row."""
    cdf = turn_total_cdf(100)
    assert cdf[100, 0] == pytest.approx(0.9898, abs=5e-5)
    assert np.allclose(cdf[1:, -1], 1.0)


@pytest.mark.slow  # 20,000-160,000 games a level: seconds of CPU each (make test-all)
def test_simpig_levels_are_ordered_in_play():
    from dicelab.simpig.api import parse_strategy

    entry = get("simpig")
    rules = entry.make_rules()
    from dicelab.simpig.rules import SimPigRules

    two = SimPigRules(goal=rules.goal, players=2)
    ladder = entry.play.levels(rules)
    top = parse_strategy(ladder[-1].spec, two).target_table()
    rng = np.random.default_rng(2104)
    sims = [share(simulate_simpig(parse_strategy(lv.spec, two).target_table(), top, two.goal, 160_000, rng))
            for lv in ladder[:-1]]
    check("simpig", sims)
