"""Strategies for simultaneous Pig, written as short text specs.

A strategy tells a player which hold-at target ``k`` to pick at the start of a turn, from its own
score and the other players' scores; it may randomise (a *mixed* strategy). Targets are always
clipped to the legal range ``1 .. goal - own score``.

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
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import check_depth, check_spec, parse_whole, shorten

STRATEGY_KIND = "simpig-strategy"
#: Most parts of one ``mix:`` and the smallest probability of a part.
MAX_MIX = 32
MIN_WEIGHT = Fraction(1, 10**9)
SPEC_HELP = (
    "hold:N, hold:goal, pw:K<T,...,K, mix:P*SPEC+..., table:PATH, br:SPEC, "
    "equilibrium, svima, svima-b, cyclic:1, cyclic:2"
)

Component = tuple[np.ndarray | float, np.ndarray]


@dataclass(frozen=True)
class SimPigStrategy:
    """A parsed strategy. Use :func:`parse_strategy` to build one.

    ``mixture(own, others)`` returns the components ``[(weight, k), ...]``: at a state the player
    plays target ``k`` with probability ``weight`` (arrays broadcast over the states given).
    """

    spec: str
    goal: int
    state_independent: bool = False  # the target depends on the own score only
    symmetric: bool = True  # depends on the other players' scores only through their multiset
    two_player_only: bool = False
    parts: tuple = field(default=(), repr=False)
    table: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def mixture(self, own: np.ndarray, others: list[np.ndarray]) -> list[Component]:
        """The mixed choice at the states ``(own, others)`` (integer arrays that broadcast)."""
        g = self.goal
        kind = self.parts[0] if self.parts else "table"
        own = np.asarray(own)
        cap = np.maximum(g - own, 1)
        if kind == "hold":
            n = self.parts[1]
            return [(1.0, np.minimum(n, cap) if n is not None else cap)]
        if kind == "pw":
            lead = others[0]
            for o in others[1:]:
                lead = np.maximum(lead, o)
            k = np.full(np.broadcast(own, lead).shape, 0, dtype=np.int64)
            done = np.zeros(k.shape, dtype=bool)
            for target, thr in self.parts[1]:
                t = cap if target is None else np.minimum(target, cap)
                sel = ~done & (lead < thr) if thr is not None else ~done
                k = np.where(sel, t, k)
                done |= sel
            return [(1.0, k)]
        if kind == "mix":
            out: list[Component] = []
            for p, sub in self.parts[1]:
                for w, k in sub.mixture(own, others):
                    out.append((w * p, k))
            return out
        require(len(others) == 1, f"strategy {self.spec!r} is a two-player table")
        weights, targets = self.table  # type: ignore[misc]
        require(
            weights.shape[1] == g, f"strategy {self.spec!r} is for goal {weights.shape[1]}, not {g}"
        )
        o = np.minimum(own, g - 1)
        j = np.minimum(others[0], g - 1)
        return [(weights[c][o, j], np.minimum(targets[c][o, j], cap)) for c in range(len(weights))]

    def target_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Two-player arrays ``weights[c, own, opp]`` and ``targets[c, own, opp]``."""
        g = self.goal
        own, opp = np.indices((g, g))
        comps = self.mixture(own, [opp])
        w = np.stack([np.broadcast_to(np.asarray(c[0], dtype=float), (g, g)) for c in comps])
        k = np.stack([np.broadcast_to(np.asarray(c[1], dtype=np.int64), (g, g)) for c in comps])
        return w, k


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


def parse_strategy(spec: str, goal: int = 100, players: int = 2) -> SimPigStrategy:
    """Parse a strategy spec (see the module docstring) for a game to ``goal`` with ``players``."""
    s = check_spec(spec, f"use one of: {SPEC_HELP}")
    require(s != "", f"empty strategy; use one of: {SPEC_HELP}")
    return _parse(s, goal, players, 0)


def _parse(s: str, goal: int, players: int, depth: int) -> SimPigStrategy:
    check_depth(depth, s)
    require(s != "", f"empty strategy; use one of: {SPEC_HELP}")
    if s.startswith("hold:"):
        arg = s[5:]
        if arg.strip() == "goal":
            return SimPigStrategy(s, goal, True, True, False, ("hold", None))
        return SimPigStrategy(
            s, goal, True, True, False, ("hold", parse_whole(arg, "N in hold:N", 1, goal))
        )
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
        from dicelab.simpig.solver import best_response

        opp = _parse(s[3:].strip(), goal, 2, depth + 1)
        res = best_response([opp], goal=goal)
        k = res.policy[:goal, :goal].astype(np.int64)
        return _table(s, goal, np.ones((1, goal, goal)), k[None])
    if s in ("equilibrium", "optimal"):
        from dicelab.simpig.equilibrium import solve_equilibrium

        eq = solve_equilibrium(goal, progress=False, use_cache=True)
        return _table(s, goal, eq.weights, eq.targets)
    if s in ("svima", "svima-b"):
        from dicelab.simpig.solver import svima

        r = svima(goal)
        k = r.policy_a if s == "svima" else r.policy_b
        return _table(s, goal, np.ones((1, goal, goal)), k[None].astype(np.int64))
    if s in ("cyclic:1", "cyclic:2"):
        from dicelab.simpig.solver import selfplay

        r = selfplay(goal)
        k = r.policy_1 if s == "cyclic:1" else r.policy_2
        return _table(s, goal, np.ones((1, goal, goal)), k[None].astype(np.int64))
    raise DicelabError(f"unknown strategy {shorten(s)}; use one of: {SPEC_HELP}")


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
    return s.startswith(("table:", "br:")) or s in (
        "equilibrium",
        "optimal",
        "svima",
        "svima-b",
        "cyclic:1",
        "cyclic:2",
    )


def _table(spec: str, goal: int, weights: np.ndarray, targets: np.ndarray) -> SimPigStrategy:
    return SimPigStrategy(
        spec,
        goal,
        False,
        True,
        True,
        (),
        (np.asarray(weights, float), np.asarray(targets, np.int64)),
    )


def save_strategy(
    path: str | Path,
    weights: np.ndarray,
    targets: np.ndarray,
    goal: int,
    source: str,
    value: np.ndarray | None = None,
) -> Path:
    """Save a two-player strategy table (``weights[c, own, opp]``, ``targets[c, own, opp]``),
    optionally with the win-probability table ``value[own, opp]`` it was solved with."""
    from dicelab.core.store import save_table

    arrays = {"weights": np.asarray(weights, np.float64), "targets": np.asarray(targets, np.int16)}
    if value is not None:
        arrays["value"] = np.asarray(value, np.float64)
    return save_table(path, STRATEGY_KIND, arrays, {"goal": goal, "players": 2, "source": source})


def load_strategy(path: str, goal: int) -> SimPigStrategy:
    """Load a table written by :func:`save_strategy` and check it fits ``goal``."""
    from dicelab.core.store import load_table

    where = shorten(path)
    require(path.strip() != "", "table: needs the path of a saved strategy table")
    try:
        arrays, meta = load_table(path, STRATEGY_KIND)
    except DicelabError:
        raise
    except (ValueError, EOFError, KeyError) as exc:  # a damaged or non-UTF-8 JSON or zip
        raise DicelabError(f"cannot read strategy table {where}: {exc}") from None
    w, k = arrays.get("weights"), arrays.get("targets")
    require(w is not None and k is not None, f"{where} lacks the weights/targets arrays")
    assert w is not None and k is not None
    require(
        isinstance(meta, dict)
        and meta.get("goal") == goal
        and w.ndim == 3
        and w.shape[1:] == (goal, goal)
        and k.shape == w.shape
        and 1 <= w.shape[0] <= goal,
        f"{where} holds a strategy for goal {meta.get('goal') if isinstance(meta, dict) else '?'}"
        f" with arrays of shape {w.shape}, not one for goal {goal}",
    )
    require(
        np.issubdtype(w.dtype, np.floating) and np.issubdtype(k.dtype, np.integer),
        f"{where}: weights must be floating point and targets whole numbers",
    )
    require(
        bool(np.all(w >= 0)) and np.allclose(w.sum(axis=0), 1.0),
        f"{where}: weights must be non-negative and sum to 1 at every state",
    )
    own = np.arange(goal)[:, None]
    ok = (k >= 1) & (k <= goal - own[None]) | (w == 0)
    require(bool(np.all(ok)), f"{where}: every target must be from 1 to goal - own score")
    return _table(f"table:{path}", goal, w, k.astype(np.int64))
