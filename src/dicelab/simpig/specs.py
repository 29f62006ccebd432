"""Simultaneous-Pig strategy specs, parsed into :class:`~dicelab.simpig.strategies.SimPigStrategy`.

This module sits above the algorithms: ``br:SPEC``, ``equilibrium``, ``svima`` and ``cyclic:N``
need the solvers of :mod:`dicelab.simpig.solver` and :mod:`dicelab.simpig.equilibrium`, which
themselves take strategy objects only.

Spec grammar
------------
``hold:N``
    Hold at ``N`` (or at ``goal - own`` when fewer points are needed). ``1 <= N <= goal``.
``hold:goal``
    Hold at ``goal - own``: try to win in this very turn.
``pw:K1<T1,K2<T2,...,KLAST`` (the ``pw:`` prefix may be left out)
    Piecewise in the *leading opponent's* score ``j`` (for two players: the opponent's score):
    hold at ``K1`` while ``j < T1``, at ``K2`` while ``j < T2``, ..., then at ``KLAST``; each ``K``
    may be ``goal``. The paper's example is ``pw:25<40,30<60,goal``. Thresholds must increase.
``mix:P1*SPEC1+P2*SPEC2+...``
    At every turn, independently, play ``SPECi`` with probability ``Pi`` (decimals, fractions
    like ``1/3`` or ``2.5e-1``, each from 1e-9 to 1; they must sum to 1). At most 32 parts; the
    parts must not themselves be ``mix:``.
``table:PATH``
    A two-player strategy table saved by ``dicelab simpig best-response --out`` or
    ``dicelab simpig equilibrium --out`` (a :mod:`dicelab.core.store` table of kind ``simpig-strategy``).
``br:SPEC``
    The exact two-player best response to ``SPEC``.
``equilibrium`` (alias ``optimal``)
    The exact two-player mixed equilibrium (Shapley's method); solved once per goal and cached.
``svima`` / ``svima-b``
    Player A's (the follower's) / player B's (the leader's) policy from SVIMA (Algorithm 0.2).
``cyclic:1`` / ``cyclic:2``
    The two alternating policies of symmetric self-play value iteration.

Numbers in specs have at most six digits and ``br:``/``mix:`` nest at most eight levels deep
(:mod:`dicelab.core.specs`).

``hold:`` and ``pw:`` strategies (and mixtures of them) work for any number of players; the others
are two-player tables.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import check_depth, check_spec, parse_whole, shorten
from dicelab.simpig.equilibrium import solve_equilibrium
from dicelab.simpig.solver import best_response, selfplay, svima
from dicelab.simpig.strategies import (
    SimPigStrategy,
    check_goal,
    hold_strategy,
    load_strategy,
    table_strategy,
)

#: Most parts of one ``mix:`` and the smallest probability of a part.
MAX_MIX = 32
MIN_WEIGHT = Fraction(1, 10**9)
SPEC_HELP = (
    "hold:N, hold:goal, pw:K<T,...,K, mix:P*SPEC+..., table:PATH, br:SPEC, "
    "equilibrium, svima, svima-b, cyclic:1, cyclic:2"
)
#: The spec forms that name a two-player table (besides ``table:`` and ``br:``).
NAMED_TABLES = ("equilibrium", "optimal", "svima", "svima-b", "cyclic:1", "cyclic:2")


def parse_strategy(spec: str, goal: int = 100, players: int = 2) -> SimPigStrategy:
    """Parse a strategy spec (see the module docstring) for a game to ``goal`` with ``players``."""
    s = check_spec(spec, f"use one of: {SPEC_HELP}")
    require(s != "", f"empty strategy; use one of: {SPEC_HELP}")
    return _parse(s, goal, players, 0)


def as_strategy(s: SimPigStrategy | str, goal: int, players: int) -> SimPigStrategy:
    """A strategy object as it is (checked against ``goal``), or a spec parsed."""
    if isinstance(s, SimPigStrategy):
        return check_goal(s, goal)
    return parse_strategy(s, goal, players)


def _parse_target(text: str, goal: int) -> int | None:
    if text.strip() == "goal":
        return None
    return parse_whole(text, "hold-at target", 1, goal)


_WEIGHT = re.compile(
    r"(?P<num>[0-9]{1,9}(?:\.[0-9]{0,12})?|\.[0-9]{1,12})(?:[eE](?P<exp>[-+]?[0-9]{1,2}))?"
    r"|(?P<p>[0-9]{1,9})/(?P<q>[0-9]{1,9})"
)


def _parse_prob(text: str) -> Fraction:
    t = text.strip()
    m = _WEIGHT.fullmatch(t)
    require(
        m is not None,
        f"mixture probability must be a number like 0.5, 1/3 or 2.5e-1, got {shorten(text)}",
    )
    assert m is not None
    if m.group("q") is not None:
        require(int(m.group("q")) != 0, f"mixture probability {shorten(text)} divides by zero")
        p = Fraction(int(m.group("p")), int(m.group("q")))
    else:
        require(
            m.group("exp") is None or abs(int(m.group("exp"))) <= 20,
            f"mixture probability {shorten(text)}: the exponent must be from -20 to 20",
        )
        p = Fraction(t)
    require(
        MIN_WEIGHT <= p <= 1,
        f"mixture probabilities must be from {float(MIN_WEIGHT):g} to 1, got {shorten(text)}",
    )
    return p


def _parse(s: str, goal: int, players: int, depth: int) -> SimPigStrategy:
    check_depth(depth, s)
    require(s != "", f"empty strategy; use one of: {SPEC_HELP}")
    if s.startswith("hold:"):
        arg = s[5:]
        if arg.strip() == "goal":
            return hold_strategy(None, goal, s)
        return hold_strategy(parse_whole(arg, "N in hold:N", 1, goal), goal, s)
    if s.startswith("pw:") or ("<" in s and not s.startswith(("mix:", "table:", "br:"))):
        return _parse_piecewise(s, goal)
    if s.startswith("mix:"):
        return _parse_mixture(s, goal, players, depth)
    # Two-player tables from here on.
    require(
        players == 2 or not _is_table_spec(s),
        f"strategy {shorten(s)} is defined for two players only",
    )
    if s.startswith("table:"):
        return load_strategy(s[6:], goal)
    if s.startswith("br:"):
        opp = _parse(s[3:].strip(), goal, 2, depth + 1)
        res = best_response([opp], goal=goal)
        return _pure_table(s, goal, res.policy[:goal, :goal])
    if s in ("equilibrium", "optimal"):
        eq = solve_equilibrium(goal, progress=False, use_cache=True)
        return table_strategy(s, goal, eq.weights, eq.targets)
    if s in ("svima", "svima-b"):
        r = svima(goal)
        return _pure_table(s, goal, r.policy_a if s == "svima" else r.policy_b)
    if s in ("cyclic:1", "cyclic:2"):
        r = selfplay(goal)
        return _pure_table(s, goal, r.policy_1 if s == "cyclic:1" else r.policy_2)
    raise DicelabError(f"unknown strategy {shorten(s)}; use one of: {SPEC_HELP}")


def _pure_table(spec: str, goal: int, policy: np.ndarray) -> SimPigStrategy:
    return table_strategy(spec, goal, np.ones((1, goal, goal)), policy[None].astype(np.int64))


def _parse_piecewise(s: str, goal: int) -> SimPigStrategy:
    body = s[3:] if s.startswith("pw:") else s
    pieces = [p.strip() for p in body.split(",")]
    require(
        2 <= len(pieces) <= goal + 1,
        f"piecewise strategy needs 2 to {goal + 1} pieces like 25<40,goal; got {shorten(s)}",
    )
    parsed = []
    last_thr = -1
    for n, piece in enumerate(pieces):
        m = re.fullmatch(r"(\w+)\s*<\s*([0-9]+)", piece)
        if n < len(pieces) - 1:
            require(
                m is not None,
                f"piecewise piece must look like K<T, got {shorten(piece)} in {shorten(s)}",
            )
            assert m is not None
            thr = parse_whole(m.group(2), "a piecewise threshold", 1, goal)
            require(
                last_thr < thr,
                f"piecewise thresholds must increase within 1..{goal}; got {shorten(s)}",
            )
            last_thr = thr
            parsed.append((_parse_target(m.group(1), goal), thr))
        else:
            require(
                m is None,
                f"the last piecewise piece is a bare target (K or goal), got {shorten(piece)}",
            )
            parsed.append((_parse_target(piece, goal), None))
    return SimPigStrategy(s, goal, False, True, False, ("pw", tuple(parsed)))


def _parse_mixture(s: str, goal: int, players: int, depth: int) -> SimPigStrategy:
    terms = s[4:].split("+")
    require(
        len(terms) <= MAX_MIX,
        f"a mixture has at most {MAX_MIX} parts, got {len(terms)} in {shorten(s)}",
    )
    parts = []
    for term in terms:
        require("*" in term, f"mixture terms look like P*SPEC, got {shorten(term)} in {shorten(s)}")
        p_text, sub = term.split("*", 1)
        require(not sub.strip().startswith("mix:"), "mixtures cannot be nested")
        parts.append((_parse_prob(p_text), _parse(sub.strip(), goal, players, depth + 1)))
    total = sum(p for p, _ in parts)
    require(
        total == 1, f"mixture probabilities must sum to 1, got {float(total):g} in {shorten(s)}"
    )
    fparts = tuple((float(p), sub) for p, sub in parts)
    return SimPigStrategy(
        s,
        goal,
        all(sub.state_independent for _, sub in parts),
        all(sub.symmetric for _, sub in parts),
        any(sub.two_player_only for _, sub in parts),
        ("mix", fparts),
    )


def _is_table_spec(s: str) -> bool:
    return s.startswith(("table:", "br:")) or s in NAMED_TABLES
