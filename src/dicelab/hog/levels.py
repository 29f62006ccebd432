"""Hog's levels of strength (:mod:`dicelab.core.levels`): real Hog strategies, some with a little
noise, and their exact strength against optimal play, the noise included.

A noisy bot is a *mixed* policy ``p[i, j, n]`` (the chance of rolling ``n`` dice at scores
``(i, j)``):

* ``slip:E:SPEC`` rolls what the strategy ``SPEC`` says, but with probability ``E`` one die more
  or one fewer (each half of it, kept within 1 .. max_dice);
* ``soft:T`` weighs the exact win probability ``v_n`` of rolling each number of dice (the
  coach's) and rolls ``n`` with probability proportional to ``exp(v_n / T)``.

Evaluation is exact as in :mod:`dicelab.hog.solver`: score pairs by layers of ``i + j``, highest
first; a turn that scores 0 swaps ``(i, j)`` for ``(j, i)``, so each state is coupled only with
its mirror, and the two values solve a 2 x 2 system.

>>> from dicelab.hog.rules import HogRules
>>> r = HogRules(goal=100)
>>> h = evaluate_mixed(policy("always:5", r), policy("always:5", r), r)
>>> round(h.a_first + h.a_second, 12)   # the same policy in both seats: the seats' chances sum to 1
1.0
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.jit import njit
from dicelab.core.levels import Level
from dicelab.core.results import HeadToHead
from dicelab.hog.rules import HogRules

NOISY = re.compile(r"slip:(0?\.\d{1,3}):(.+)|soft:(0?\.\d{1,4})")

LADDER = (
    ("Beginner", "slip:0.3:always:2", "rolls two dice a turn, and now and then one more or one fewer"),
    ("Casual", "slip:0.3:always:3", "rolls three dice a turn, and now and then one more or one fewer"),
    ("Club", "always:5", "rolls five dice every turn"),
    ("Strong", "soft:0.003", "weighs the exact chance to win with each number of dice, and guesses among "
                            "choices within about a point"),
    ("Perfect", "optimal", "optimal play (the exact solution)"),
)


def is_noisy(spec: str) -> bool:
    return NOISY.fullmatch(spec) is not None


def parse_noisy(spec: str) -> tuple[str, float, str | None]:
    """``("slip", E, SPEC)`` or ``("soft", T, None)``; a one-line error for anything else."""
    m = NOISY.fullmatch(spec)
    if m is None:
        raise DicelabError(f"a noisy Hog bot is slip:E:SPEC (E from 0.001 to 0.999) or soft:T (T from 0.0001 to "
                           f"0.9999), got {spec[:80]!r}")
    if m.group(3) is not None:
        t = float(m.group(3))
        require(t > 0, f"soft:T needs T > 0, got {m.group(3)}")
        return "soft", t, None
    e = float(m.group(1))
    require(e > 0, f"slip:E:SPEC needs E > 0, got {m.group(1)}")
    require(not is_noisy(m.group(2)), "slip:E:SPEC takes a plain strategy, not another noisy one")
    return "slip", e, m.group(2)


def all_values(rules: HogRules, sol: Any = None) -> np.ndarray:
    """``v[i, j, n - 1]``: the exact win probability of rolling ``n`` dice at ``(i, j)``, both then
    playing optimally (the coach's numbers, :func:`dicelab.hog.play.action_values`, everywhere)."""
    from dicelab.hog.solver import solve

    sol = sol if sol is not None else solve(rules)
    g = rules.goal
    P = rules.outcome_table()
    W = sol.W
    i, j, o = np.indices((g, g, P.shape[1]))
    reach = i + o
    after = np.where(reach >= g, 1.0, 1.0 - W[j, np.minimum(reach, g - 1)])
    return np.einsum("no,ijo->ijn", P[1:], after)


def policy(spec: str, rules: HogRules, table: np.ndarray | None = None, sol: Any = None) -> np.ndarray:
    """``p[i, j, n - 1]``: the chance that the bot ``spec`` rolls ``n`` dice at ``(i, j)``.
    ``table`` is the plain strategy's dice table (``[i, j] -> n``) and ``sol`` the exact solution
    when the caller has them."""
    from dicelab.hog.specs import parse_strategy

    g, D = rules.goal, rules.max_dice
    kind, x, inner = parse_noisy(spec) if is_noisy(spec) else ("plain", 0.0, spec)
    if kind == "soft":
        v = all_values(rules, sol)
        z = (v - v.max(axis=2, keepdims=True)) / x
        p = np.exp(z)
        return p / p.sum(axis=2, keepdims=True)
    t = table if table is not None else parse_strategy(str(inner)).table(rules)
    t = np.asarray(t)[:g, :g].astype(np.int64)
    p = np.zeros((g, g, D))
    ii, jj = np.indices((g, g))
    p[ii, jj, t - 1] += 1.0 - x
    p[ii, jj, np.maximum(t - 2, 0)] += x / 2
    p[ii, jj, np.minimum(t, D - 1)] += x / 2
    return p


@njit(cache=True, nogil=True)
def _evaluate(pa, pb, P, goal, U, V):  # pragma: no cover - numba
    """U[i, j]: A's chance to win with A to move at (i, j); V[j, i]: B's with B to move at (j, i)."""
    D = P.shape[0] - 1
    width = P.shape[1]
    for s in range(2 * (goal - 1), -1, -1):
        for i in range(max(0, s - goal + 1), min(s, goal - 1) + 1):
            j = s - i
            # A at (i, j): U = a1 + b1 (1 - Y) with Y = V[j, i]; B at (j, i): Y = a2 + b2 (1 - U)
            a1 = 0.0
            b1 = 0.0
            a2 = 0.0
            b2 = 0.0
            for n in range(1, D + 1):
                wa = pa[i, j, n - 1]
                wb = pb[j, i, n - 1]
                b1 += wa * P[n, 0]
                b2 += wb * P[n, 0]
                for o in range(1, width):
                    pr = P[n, o]
                    if pr == 0.0:
                        continue
                    if wa > 0.0:
                        a1 += wa * pr * (1.0 if i + o >= goal else 1.0 - V[j, i + o])
                    if wb > 0.0:
                        a2 += wb * pr * (1.0 if j + o >= goal else 1.0 - U[i, j + o])
            x = (a1 + b1 - b1 * (a2 + b2)) / (1.0 - b1 * b2)
            U[i, j] = x
            V[j, i] = a2 + b2 * (1.0 - x)


def evaluate_mixed(pa: np.ndarray, pb: np.ndarray, rules: HogRules, names: tuple[str, str] = ("a", "b")
                   ) -> HeadToHead:
    """Exact win probabilities of the mixed policy ``pa`` against ``pb`` (as :func:`policy` gives)."""
    g, D = rules.goal, rules.max_dice
    require(pa.shape == pb.shape == (g, g, D), f"policies must be {g} x {g} x {D}")
    U = np.zeros((g, g))
    V = np.zeros((g, g))
    _evaluate(np.ascontiguousarray(pa, dtype=np.float64), np.ascontiguousarray(pb, dtype=np.float64),
              np.ascontiguousarray(rules.outcome_table(), dtype=np.float64), g, U, V)
    return HeadToHead(a=names[0], b=names[1], a_first=float(U[0, 0]), a_second=1.0 - float(V[0, 0]))


def levels(rules: HogRules) -> list[Level]:
    """The ladder, weakest first (:data:`LADDER`); a dice count over the rules' most is capped."""
    out = []
    for name, spec, details in LADDER:
        m = re.search(r"always:(\d+)", spec)
        if m and int(m.group(1)) > rules.max_dice:
            spec = spec.replace(m.group(0), f"always:{rules.max_dice}")
        out.append(Level(name, spec, details))
    return out


def measure(rules: HogRules, progress: bool = False) -> dict[str, Any]:
    """Every level's exact chance to win against the strongest (optimal), seats averaged."""
    ladder = levels(rules)
    top = policy(ladder[-1].spec, rules)
    h = [evaluate_mixed(policy(lv.spec, rules), top, rules, (lv.spec, ladder[-1].spec)) for lv in ladder]
    return {"strengths": [x.mean for x in h], "intervals": None, "exact": True,
            "method": "exact evaluation of each level's mixed policy against optimal play (dicelab.hog.levels)",
            "first": [x.a_first for x in h], "second": [x.a_second for x in h]}
