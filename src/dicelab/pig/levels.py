"""Pig's levels of strength (:mod:`dicelab.core.levels`): a ladder of real Pig strategies, some
with a little noise, and their exact strength against optimal play, the noise included.

A noisy bot is a *mixed* policy: at ``(i, j, k)`` it rolls with probability ``q[i, j, k]``:

* ``slip:E:SPEC`` plays the strategy ``SPEC`` but at each decision after its first roll of a turn
  takes the other action with probability ``E`` (a player who now and then stops too early or
  pushes on once too often);
* ``soft:T`` weighs the exact win probabilities of rolling and holding, ``P_roll`` and ``P_hold``
  (the solution's), and rolls with probability ``1 / (1 + exp(-(P_roll - P_hold) / T))``: a player
  who is almost never wrong where the choice matters and guesses where it barely does.

Nobody holds a turn total of 0: every policy here rolls at ``k = 0``.

Two fixed policies make the game a Markov chain, solved here exactly: banked-score pairs from the
highest sum down; within one pair ``(i, j)`` the mover's values at every turn total are affine in
the one unknown value of the opponent's turn from ``(j, i, 0)`` (what a 1 or a hold at 0 leads
to), and the two openings ``(i, j, 0)`` and ``(j, i, 0)`` solve a 2 x 2 system. Two-dice Pig's
double one (the banked score reset to 0) points to a lower sum: those values come from the last
pass, and passes repeat until nothing changes by more than ``1e-14``.

>>> from dicelab.pig.rules import PigRules
>>> r = PigRules(goal=100)
>>> round(evaluate_mixed(roll_probabilities("hold:20", r), roll_probabilities("hold:21", r), r).a_first, 4)
0.5426
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.core.levels import Level
from dicelab.core.results import HeadToHead
from dicelab.pig.rules import PigRules

TOL = 1e-14
MAX_PASSES = 500
NOISY = re.compile(r"slip:(0?\.\d{1,3}):(.+)|soft:(0?\.\d{1,4})")

# the ladder: (name, spec, details); weakest first. Chosen so that the measured strengths are well
# apart at the lab's default rules (docs/methods/levels.md).
LADDER = (
    ("Beginner", "slip:0.2:hold:10", "holds at 10, and one decision in five goes the other way"),
    ("Casual", "slip:0.1:hold:15", "holds at 15, and one decision in ten goes the other way"),
    ("Club", "slip:0.05:hold:20", "holds at 20 (the classic rule), one decision in twenty the other way"),
    ("Strong", "soft:0.01", "weighs the exact chances of rolling and holding, and guesses when they are "
                            "within about a point"),
    ("Perfect", "optimal", "optimal play (Neller & Presser's exact solution)"),
)


def is_noisy(spec: str) -> bool:
    """Whether ``spec`` names a mixed (noisy) policy."""
    return NOISY.fullmatch(spec) is not None


def parse_noisy(spec: str) -> tuple[str, float, str | None]:
    """``("slip", E, SPEC)`` or ``("soft", T, None)``; a one-line error for anything else."""
    m = NOISY.fullmatch(spec)
    if m is None:
        raise DicelabError(f"a noisy Pig bot is slip:E:SPEC (E from 0.001 to 0.5) or soft:T (T from 0.0001 to 0.9), "
                           f"got {spec[:80]!r}")
    if m.group(3) is not None:
        t = float(m.group(3))
        require(0 < t < 1, f"soft:T needs 0 < T < 1, got {m.group(3)}")
        return "soft", t, None
    e = float(m.group(1))
    require(0 < e <= 0.5, f"slip:E:SPEC needs 0 < E <= 0.5, got {m.group(1)}")
    require(not is_noisy(m.group(2)), "slip:E:SPEC takes a plain strategy, not another noisy one")
    return "slip", e, m.group(2)


def normalise_spec(spec: Any, rules: PigRules, simple: tuple[str, ...], allowed: str,
                   more: Any = None) -> str:
    """A lab bot spec checked for ``rules`` and normalised, or a one-line error naming ``allowed``:
    a name in ``simple``, ``hold:N``, the noise ``slip:E:SPEC`` / ``soft:T`` around any spec this
    accepts, and what ``more(s, again)`` accepts (it returns None for what it does not know;
    ``again`` normalises an inner spec). The two- and n-player labs share it
    (:func:`dicelab.pig.play.parse_spec`, :func:`dicelab.pig.nplay.parse_spec`).

    >>> normalise_spec(" Slip:0.10:HOLD:15 ", PigRules(goal=20), ("optimal",), "optimal, hold:N")
    'slip:0.1:hold:15'
    """
    require(isinstance(spec, str) and len(spec) <= 80, f"a strategy is a short string; allowed: {allowed}")

    def again(inner: str) -> str:
        return normalise_spec(inner, rules, simple, allowed, more)

    s = spec.strip().lower()
    if s in simple:
        return s
    if s.startswith(("slip:", "soft:")):
        kind, x, inner = parse_noisy(s)
        return f"soft:{x:g}" if inner is None else f"slip:{x:g}:{again(inner)}"
    m = re.fullmatch(r"hold:(\d{1,4})", s)
    if m:
        n = int(m.group(1))
        require(1 <= n <= rules.goal, f"hold:N needs 1 <= N <= goal ({rules.goal}), got {n}")
        return f"hold:{n}"
    out = None if more is None else more(s, again)
    if out is not None:
        return out
    where = f" for {rules.players} players" if rules.players > 2 else ""
    raise DicelabError(f"unknown strategy {spec[:80]!r}{where}; allowed: {allowed}")


def action_values(sol: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(P_roll, P_hold)`` at every ``(i, j, k)`` with ``i + k < goal`` from an exact solution (0
    elsewhere), vectorised :meth:`~dicelab.pig.solver.PigSolution.values`."""
    rules = sol.rules
    g = rules.goal
    o = rules.outcomes
    p = sol.p
    i, j, k = np.indices((g, g, g))
    live = i + k < g
    roll = o.bust * (1.0 - p[j, i, 0]) + o.reset * (1.0 - p[j, 0, 0])
    for d, q in zip(o.add_points.tolist(), o.add_probs.tolist(), strict=True):
        kk = k + d
        inside = (i + kk < g) & live
        roll = roll + np.where(inside, q * p[i, j, np.minimum(kk, g - 1)], q)
    hold = np.where(live, 1.0 - p[j, np.minimum(i + k, g - 1), 0], 0.0)
    return np.where(live, roll, 0.0), hold


def roll_probabilities(spec: str, rules: PigRules, base: np.ndarray | None = None, sol: Any = None) -> np.ndarray:
    """``q[i, j, k]``: the probability that the bot ``spec`` rolls at ``(i, j, k)`` (float64).
    ``base`` is the plain strategy's decision table and ``sol`` the exact solution when the
    caller has them (else they are built: :func:`dicelab.pig.specs.compile_table`,
    :func:`dicelab.pig.solver.solve_cached`)."""
    from dicelab.pig.solver import solve_cached
    from dicelab.pig.specs import compile_table

    if not is_noisy(spec):
        q = (base if base is not None else compile_table(spec, rules)).astype(np.float64)
    else:
        kind, x, inner = parse_noisy(spec)
        if kind == "slip":
            t = (base if base is not None else compile_table(str(inner), rules)).astype(np.float64)
            q = t * (1.0 - x) + (1.0 - t) * x
        else:
            r, h = action_values(sol if sol is not None else solve_cached(rules))
            q = 1.0 / (1.0 + np.exp(-np.clip((r - h) / x, -700, 700)))
    q = np.ascontiguousarray(q)
    q[:, :, 0] = 1.0
    return q


@njit(cache=True, nogil=True)
def _block(q, opp, i, j, g, adds, probs, bust, reset, reset_val, a, b):
    """The mover's values at (i, j, k), k = g - i - 1 .. 0, as a[k] + b[k] * Z, where Z is the
    mover's chance once the opponent's turn starts from (j, i, 0) (1 - its value there)."""
    nd = adds.shape[0]
    for k in range(g - i - 1, -1, -1):
        ra = reset * reset_val
        rb = bust
        if i == 0:  # a reset at 0 banked leads to the same opening as a bust
            rb += reset
            ra = 0.0
        for m in range(nd):
            kk = k + adds[m]
            if i + kk >= g:
                ra += probs[m]
            else:
                ra += probs[m] * a[kk]
                rb += probs[m] * b[kk]
        if k == 0:
            ha, hb = 0.0, 1.0
        else:
            ha, hb = 1.0 - opp[j, i + k, 0], 0.0
        p = q[i, j, k]
        a[k] = p * ra + (1.0 - p) * ha
        b[k] = p * rb + (1.0 - p) * hb


@njit(cache=True, nogil=True)
def _evaluate(qa, qb, adds, probs, bust, reset, tol, max_passes, WA, WB):
    """Fill WA (A to move) and WB (B to move): the mover's chance to win at (own, other's, turn)."""
    g = qa.shape[0]
    a1 = np.zeros(g + 64)
    b1 = np.zeros(g + 64)
    a2 = np.zeros(g + 64)
    b2 = np.zeros(g + 64)
    passes = 0
    for it in range(max_passes):
        passes = it + 1
        change = 0.0
        for s in range(2 * g - 2, -1, -1):
            for i in range(max(0, s - g + 1), min(g - 1, s) + 1):
                j = s - i
                # A at (i, j) and B at (j, i): X = WA[i, j, 0], Y = WB[j, i, 0]
                _block(qa, WB, i, j, g, adds, probs, bust, reset, 1.0 - WB[j, 0, 0], a1, b1)
                _block(qb, WA, j, i, g, adds, probs, bust, reset, 1.0 - WA[i, 0, 0], a2, b2)
                # X = a1 + b1 (1 - Y), Y = a2 + b2 (1 - X)
                den = 1.0 - b1[0] * b2[0]
                x = (a1[0] + b1[0] - b1[0] * (a2[0] + b2[0])) / den
                y = a2[0] + b2[0] * (1.0 - x)
                for k in range(g - i):
                    v = a1[k] + b1[k] * (1.0 - y)
                    change = max(change, abs(v - WA[i, j, k]))
                    WA[i, j, k] = v
                for k in range(g - j):
                    v = a2[k] + b2[k] * (1.0 - x)
                    change = max(change, abs(v - WB[j, i, k]))
                    WB[j, i, k] = v
        if reset == 0.0 or change < tol:
            break
    return passes


def evaluate_mixed(qa: np.ndarray, qb: np.ndarray, rules: PigRules, names: tuple[str, str] = ("a", "b")
                   ) -> HeadToHead:
    """Exact win probabilities of the mixed policy ``qa`` (roll probabilities, as
    :func:`roll_probabilities` gives) against ``qb``; both roll at ``k = 0``, so no game stalls."""
    g = rules.goal
    require(qa.shape == qb.shape == (g, g, g), f"roll-probability tables must be {g} x {g} x {g}")
    require(bool(np.all(qa[:, :, 0] == 1.0) and np.all(qb[:, :, 0] == 1.0)), "both policies must roll at k = 0")
    o = rules.outcomes
    WA = np.zeros((g, g, g))
    WB = np.zeros((g, g, g))
    _evaluate(np.ascontiguousarray(qa, dtype=np.float64), np.ascontiguousarray(qb, dtype=np.float64),
              np.ascontiguousarray(o.add_points, dtype=np.int64), np.ascontiguousarray(o.add_probs, dtype=np.float64),
              float(o.bust), float(o.reset), TOL, MAX_PASSES, WA, WB)
    return HeadToHead(a=names[0], b=names[1], a_first=float(WA[0, 0, 0]), a_second=1.0 - float(WB[0, 0, 0]))


def levels(rules: PigRules) -> list[Level]:
    """The ladder, weakest first (:data:`LADDER`); a ``hold:N`` above the goal is held at the goal."""
    out = []
    for name, spec, details in LADDER:
        out.append(Level(name, _fit(spec, rules), details))
    return out


def _fit(spec: str, rules: PigRules) -> str:
    m = re.search(r"hold:(\d+)", spec)
    if m and int(m.group(1)) > rules.goal:
        return spec.replace(m.group(0), f"hold:{rules.goal}")
    return spec


def measure(rules: PigRules, progress: bool = False) -> dict[str, Any]:
    """Every level's exact chance to win against the strongest (optimal), seats averaged."""
    ladder = levels(rules)
    top = roll_probabilities(ladder[-1].spec, rules)
    strengths, firsts, seconds = [], [], []
    for lv in ladder:
        h = evaluate_mixed(roll_probabilities(lv.spec, rules), top, rules, (lv.spec, ladder[-1].spec))
        strengths.append(h.mean)
        firsts.append(h.a_first)
        seconds.append(h.a_second)
    return {"strengths": strengths, "intervals": None, "exact": True,
            "method": "exact evaluation of each level's mixed policy against optimal play (dicelab.pig.levels)",
            "first": firsts, "second": seconds}
