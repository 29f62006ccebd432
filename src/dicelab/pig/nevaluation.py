"""Strategies of n-player Pig, the exact evaluation of a profile (one strategy per seat), the best
response of one seat to the others, and the hold-at-N tournament.

One kernel does all of it (:func:`dicelab.pig.nkernels.sweep`): the layers of banked scores,
each score tuple's cycle of turns solved in closed form for the seats' choices, greedy choices
where a seat plays optimally for the table being computed. A profile in which every seat plays
the same way is solved mover first (one vector per score tuple); otherwise once per seat to move.

Seat strategies (:func:`seat_strategy`):

``optimal``
    Max-n optimal play (:mod:`dicelab.pig.nsolver`), its mixed choices included.
``hold:N``
    Roll while the turn total is below N (``turtle`` is ``hold:5``, ``roll-to-win`` never holds).
``keep-pace``
    Neller's "keep pace and end race" with the *leader* in the opponent's place: with ``lead`` the
    highest banked score among the others, roll while ``k < floor(21 g / 100 + (lead - own) / 8 +
    1/2)``, and roll to the goal once ``own`` or ``lead`` reaches ``ceil(71 g / 100)``. With two
    players this is exactly the two-player rule.
``file:PATH``
    A decision table: ``.npz`` with a boolean array ``roll`` of shape ``(goal,) * (players + 1)``
    indexed ``[own, next, ..., k]`` (the scores mover first), or CSV with the header
    ``s0,s1,...,k,roll`` (``s0`` the mover's score) and one row per state.
a callable ``f(own, others, k) -> bool``
    ``others`` the tuple of the other players' banked scores in turn order; True rolls.
a numpy array
    A decision table as for ``file:``.

With two players every two-player strategy works as well (``best-response:SPEC`` included).
A turn total of 0 always rolls (the n-player rule): a strategy's hold there is read as a roll.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import check_input_file, check_spec, parse_whole, shorten
import dicelab.pig.nkernels as K
from dicelab.pig.nsolver import (check_size, chunks, dummies, greedy_table, kernel_outcomes,
                                 table_bytes)
from dicelab.pig.rules import PigRules

#: the largest decision table (goal^(players + 1) entries) a strategy may compile to
MAX_TABLE_ENTRIES = 400_000_000
#: most states a callable strategy is called at (one Python call each)
MAX_CALLS = 5_000_000
SPECS = "optimal, hold:N, keep-pace, turtle, roll-to-win, file:PATH"


@dataclass(eq=False)
class SeatStrategy:
    """A strategy compiled for the n-player kernels: ``kind`` (:mod:`dicelab.pig.nkernels`) and
    its data (a hold number, a threshold array or a decision table)."""

    name: str
    kind: int
    param: int = 0
    thresholds: np.ndarray | None = None
    table: np.ndarray | None = None

    def __str__(self) -> str:
        return self.name


# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------


def _others_lead(rules: PigRules) -> np.ndarray:
    """The highest banked score among the others, for every mover-first tuple of the others."""
    n, g = rules.players, rules.goal
    lead = np.zeros((g,) * (n - 1), dtype=np.int64)
    for axis in range(n - 1):
        shape = [1] * (n - 1)
        shape[axis] = g
        lead = np.maximum(lead, np.arange(g).reshape(shape))
    return lead.reshape(-1)


def keep_pace_thresholds(rules: PigRules) -> np.ndarray:
    """keep-pace for n players as thresholds ``thr[idx]`` (roll while ``k < thr``)."""
    g = rules.goal
    own = np.arange(g)[:, None]
    lead = _others_lead(rules)[None, :]
    race = (71 * g + 99) // 100
    pace = (42 * g + 25 * (lead - own) + 100) // 200
    thr = np.where((own >= race) | (lead >= race), g, np.clip(pace, 0, g))
    return np.ascontiguousarray(thr.reshape(-1), dtype=np.int16)


def _check_table(roll: np.ndarray, rules: PigRules, where: str) -> np.ndarray:
    n, g = rules.players, rules.goal
    require(
        roll.shape == (g,) * (n + 1),
        f"{where}: a decision table for {n} players at goal {g} has shape {(g,) * (n + 1)} "
        f"([own, next, ..., turn total]), got {roll.shape}",
    )
    require(roll.dtype == np.bool_ or np.issubdtype(roll.dtype, np.integer),
            f"{where}: the table must be boolean or 0/1, got dtype {roll.dtype}")
    require(bool(np.isin(roll, (0, 1)).all()), f"{where}: the table must hold only 0 and 1")
    return np.ascontiguousarray(roll.reshape(g ** n, g) != 0)


def _table_size(rules: PigRules, what: str) -> None:
    entries = rules.goal ** (rules.players + 1)
    require(
        entries <= MAX_TABLE_ENTRIES,
        f"{what} for {rules.players} players at goal {rules.goal} needs a table of {entries:.2e} "
        f"entries (limit {MAX_TABLE_ENTRIES:.0e}); lower the goal",
    )


def _load_table(path: str, rules: PigRules) -> np.ndarray:
    p = check_input_file(path, "strategy file")
    where = shorten(str(p))
    _table_size(rules, f"strategy file {where}")
    if p.suffix.lower() == ".npz":
        from dicelab.pig.strategies import _read_bare_npz

        if p.with_suffix(".json").exists():
            from dicelab.core.store import load_table

            arrays, _ = load_table(p, "pig-strategy")
        else:
            arrays = _read_bare_npz(p, where)
        require("roll" in arrays and isinstance(arrays["roll"], np.ndarray),
                f"strategy file {where} has no array named 'roll'")
        return _check_table(arrays["roll"], rules, f"strategy file {where}")
    require(p.suffix.lower() == ".csv", f"strategy file {where} must end in .csv or .npz")
    n, g = rules.players, rules.goal
    header = [f"s{r}" for r in range(n)] + ["k", "roll"]
    table = np.zeros((g,) * (n + 1), dtype=np.bool_)
    seen = np.zeros((g,) * (n + 1), dtype=np.bool_)
    try:
        with p.open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            head = [h.strip().lower() for h in next(reader, [])]
            require(head == header, f"strategy CSV {where} must start with the header "
                    f"{','.join(header)}, got {shorten(','.join(head))}")
            for line in reader:
                if not line:
                    continue
                require(len(line) == n + 2, f"strategy CSV {where} must have rows of {n + 2} numbers")
                try:
                    vals = [int(x) for x in line]
                except ValueError:
                    raise DicelabError(f"strategy CSV {where} must hold whole numbers only") from None
                *s, k, r = vals
                require(all(0 <= x < g for x in s) and 0 <= k < g - s[0] and r in (0, 1),
                        f"strategy CSV {where}: every row needs scores from 0 to {g - 1}, "
                        f"0 <= k < goal - s0 and roll 0 or 1, got {line}")
                table[(*s, k)] = r == 1
                seen[(*s, k)] = True
    except UnicodeDecodeError:
        raise DicelabError(f"strategy CSV {where} is not UTF-8 text") from None
    except csv.Error as exc:
        raise DicelabError(f"strategy CSV {where} is not valid CSV: {exc}") from None
    own = np.arange(g).reshape((g,) + (1,) * n)
    k = np.arange(g).reshape((1,) * n + (g,))
    missing = int(((own + k < g) & ~seen).sum())
    require(missing == 0, f"strategy CSV {where} must list every state of {n} players at goal {g} "
            f"({missing} missing)")
    return np.ascontiguousarray(table.reshape(g ** n, g))


def _callable_table(f: Callable[..., Any], rules: PigRules) -> np.ndarray:
    n, g = rules.players, rules.goal
    require(g ** n * (g + 1) // 2 <= MAX_CALLS,
            f"a callable strategy is called once per state, at most {MAX_CALLS:,} states; "
            f"{n} players at goal {g} have {g ** n * (g + 1) // 2:,}: give a table instead")
    out = np.zeros((g ** n, g), dtype=np.bool_)
    for idx, c in enumerate(np.ndindex(*(g,) * n)):
        own, others = c[0], tuple(c[1:])
        row = out[idx]
        for k in range(g - own):
            row[k] = bool(f(own, others, k))
    return out


def seat_strategy(x: Any, rules: PigRules) -> SeatStrategy:
    """Any strategy-like ``x`` (spec, callable, table, two-player strategy object) for one seat."""
    if isinstance(x, SeatStrategy):
        return x
    n, g = rules.players, rules.goal
    if isinstance(x, str):
        s = check_spec(x, SPECS)
        low = s.lower()
        if low in ("optimal", "opt"):
            return SeatStrategy("optimal", K.OPT)
        if low.startswith("hold:"):
            m = parse_whole(s[5:], f"N in {shorten(s)}", 0, 10**6 - 1)
            return SeatStrategy(f"hold:{m}", K.HOLD, param=min(m, g))
        if low == "turtle":
            return SeatStrategy("turtle", K.HOLD, param=5)
        if low == "roll-to-win":
            return SeatStrategy("roll-to-win", K.HOLD, param=g)
        if low == "keep-pace":
            return SeatStrategy("keep-pace", K.THRESH, thresholds=keep_pace_thresholds(rules))
        if low.startswith("file:"):
            require(s[5:] != "", f"bad strategy {shorten(s)}: file: needs a path to a .csv or .npz table")
            return SeatStrategy(f"file:{s[5:]}", K.TABLE, table=_load_table(s[5:], rules))
        if n == 2:
            from dicelab.pig.specs import parse_strategy

            return seat_strategy(parse_strategy(s), rules)
        raise DicelabError(f"unknown strategy {shorten(s)} for {n} players; use {SPECS}")
    if isinstance(x, np.ndarray):
        _table_size(rules, "a decision table")
        return SeatStrategy("table", K.TABLE, table=_check_table(x, rules, "decision table"))
    from dicelab.pig.strategies import PigStrategy

    if isinstance(x, PigStrategy):
        require(n == 2, f"the two-player strategy {x.name} takes (own, opponent, k); for {n} "
                "players give a spec, a callable f(own, others, k) or a table")
        return SeatStrategy(x.name, K.TABLE, table=np.ascontiguousarray(
            x.table(rules).reshape(g * g, g)))
    if callable(x):
        if n == 2:
            table = _callable_table(lambda own, others, k: x(own, others[0], k), rules)
        else:
            table = _callable_table(x, rules)
        return SeatStrategy(getattr(x, "__name__", "callable"), K.TABLE, table=table)
    raise DicelabError(f"cannot use a {type(x).__name__} as a strategy; give a spec ({SPECS}), a "
                       "callable f(own, others, k) -> bool or a decision table")


def profile_of(profile: Sequence[Any], rules: PigRules) -> list[SeatStrategy]:
    """One :class:`SeatStrategy` per seat (seat 0 first)."""
    require(
        not isinstance(profile, str) and len(profile) == rules.players,
        f"give one strategy per seat: {rules.players} for {rules.players} players, got "
        f"{1 if isinstance(profile, str) else len(profile)}",
    )
    return [seat_strategy(x, rules) for x in profile]


def _same(a: SeatStrategy, b: SeatStrategy) -> bool:
    if a is b:
        return True
    if a.kind != b.kind:
        return False
    if a.kind == K.HOLD:
        return a.param == b.param
    if a.kind == K.OPT:
        return True
    return a.name == b.name and a.name in ("keep-pace",)


@dataclass
class _Packed:
    kinds: np.ndarray
    params: np.ndarray
    tables: np.ndarray
    thr: np.ndarray
    wopt: np.ndarray
    mixes: np.ndarray


def _pack(seats: list[SeatStrategy], rules: PigRules, greedy: int | None = None) -> _Packed:
    """The kernels' arrays for the seats (``greedy``: this seat plays a best response)."""
    n = rules.players
    tables, thr, wopt = dummies(n)
    mixes = np.zeros((0, 4))
    tlist: list[np.ndarray] = []
    hlist: list[np.ndarray] = []
    kinds = np.zeros(n, dtype=np.int64)
    params = np.zeros(n, dtype=np.int64)
    for seat, s in enumerate(seats):
        if seat == greedy:
            kinds[seat] = K.GREEDY
            continue
        kinds[seat] = s.kind
        params[seat] = s.param
        if s.kind == K.TABLE:
            assert s.table is not None
            params[seat] = len(tlist)
            tlist.append(s.table)
        elif s.kind == K.THRESH:
            assert s.thresholds is not None
            params[seat] = len(hlist)
            hlist.append(s.thresholds)
        elif s.kind == K.OPT and wopt.shape[2] == 1:
            from dicelab.pig.nsolver import solve_n_cached

            sol = solve_n_cached(rules)
            wopt, mixes = sol.w[None], sol.mixes
    if tlist:
        tables = np.ascontiguousarray(np.stack(tlist))
    if hlist:
        thr = np.ascontiguousarray(np.stack(hlist))
    return _Packed(kinds, params, tables, thr, np.ascontiguousarray(wopt), mixes)


# ---------------------------------------------------------------------------------------------
# evaluation and best response
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfileEvaluation:
    """Every seat's exact chance to win (seat 0 moves first) when each plays its strategy."""

    seats: tuple[str, ...]
    rules: PigRules
    wins: tuple[float, ...]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"seats": list(self.seats), "rules": self.rules.to_dict(),
                "players": self.rules.players, "wins": list(self.wins), "seconds": self.seconds}


def _solve_profile(pk: _Packed, rules: PigRules, P: int) -> tuple[np.ndarray, np.ndarray]:
    n, g = rules.players, rules.goal
    pts, prb, pb = kernel_outcomes(rules)
    W = np.zeros((P, n - 1, g ** n))
    stats, _ = K.sweep(W, n, g, pk.kinds, pk.params, pk.tables, pk.thr, pk.wopt, pk.mixes, pts,
                       prb, pb, chunks(rules))
    return W, stats


def _start(W: np.ndarray, n: int) -> tuple[float, ...]:
    rest = W[0, :, 0]
    return (float(1.0 - rest.sum()), *(float(x) for x in rest))


def evaluate_profile(profile: Sequence[Any], rules: PigRules | None = None) -> ProfileEvaluation:
    """Every seat's exact chance to win when seat ``s`` plays ``profile[s]`` (seat 0 first).

    >>> e = evaluate_profile(["hold:20", "hold:20", "hold:20"], PigRules(goal=30, players=3))
    >>> [round(p, 4) for p in e.wins]
    [0.4451, 0.3217, 0.2333]
    """
    rules = rules or PigRules(players=len(profile))
    seats = profile_of(profile, rules)
    n = rules.players
    symmetric = all(_same(seats[0], s) for s in seats[1:])
    P = 1 if symmetric else n
    check_size(rules, "evaluating", copies=P)
    pk = _pack(seats, rules)
    t0 = time.perf_counter()
    W, _ = _solve_profile(pk, rules, P)
    return ProfileEvaluation(tuple(s.name for s in seats), rules, _start(W, n),
                             time.perf_counter() - t0)


def compile_rows(x: Any, rules: PigRules) -> np.ndarray:
    """The decision table ``(goal^n, goal)`` of a seat strategy (True = roll; mixed choices of
    optimal play shown as their more likely side)."""
    s = seat_strategy(x, rules)
    n, g = rules.players, rules.goal
    _table_size(rules, "a decision table")
    if s.kind == K.TABLE:
        assert s.table is not None
        return s.table
    k = np.arange(g)[None, :]
    own = (np.arange(g ** n) // g ** (n - 1))[:, None]
    valid = own + k < g
    if s.kind == K.HOLD:
        return np.ascontiguousarray(valid & ((k < s.param) | (k == 0)))
    if s.kind == K.THRESH:
        assert s.thresholds is not None
        return np.ascontiguousarray(valid & ((k < s.thresholds[:, None]) | (k == 0)))
    from dicelab.pig.nsolver import solve_n_cached

    return solve_n_cached(rules).decision_table()


@dataclass(frozen=True)
class NBestResponse:
    """The exact best response of ``seat`` to the others' fixed strategies: every seat's chance
    (``wins``, seat 0 first) and the responder's decision ``table`` ``(goal^n, goal)``."""

    seat: int
    against: tuple[str, ...]
    rules: PigRules
    wins: tuple[float, ...]
    table: np.ndarray = field(repr=False)
    seconds: float = 0.0

    @property
    def strategy(self) -> SeatStrategy:
        return SeatStrategy(f"best-response@{self.seat}", K.TABLE, table=self.table)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "against": list(self.against), "rules": self.rules.to_dict(),
                "players": self.rules.players, "wins": list(self.wins),
                "win_probability": self.wins[self.seat], "seconds": self.seconds}


def best_response_n(profile: Sequence[Any], seat: int = 0, rules: PigRules | None = None
                    ) -> NBestResponse:
    """The exact best response of ``seat`` when the other seats play ``profile`` (the entry at
    ``seat`` is ignored; give anything, e.g. ``None``). Ties hold; a turn total of 0 rolls."""
    rules = rules or PigRules(players=len(profile))
    n, g = rules.players, rules.goal
    require(isinstance(seat, int) and 0 <= seat < n, f"seat must be from 0 to {n - 1}, got {seat}")
    require(not isinstance(profile, str) and len(profile) == n,
            f"give one strategy per seat ({n}); the responder's entry is ignored")
    seats = [SeatStrategy("best-response", K.GREEDY) if s == seat else seat_strategy(x, rules)
             for s, x in enumerate(profile)]
    check_size(rules, "a best response", copies=n)
    _table_size(rules, "a best response")
    pk = _pack(seats, rules, greedy=seat)
    t0 = time.perf_counter()
    W, stats = _solve_profile(pk, rules, n)
    pts, prb, pb = kernel_outcomes(rules)
    table = np.zeros((g ** n, g), dtype=np.bool_)
    greedy_table(W, (seat + 1) % n, n, g, pts, prb, pb, table)
    names = tuple(s.name for i, s in enumerate(seats) if i != seat)
    return NBestResponse(seat, names, rules, _start(W, n), table, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------
# the hold-at-N tournament
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HoldTournament:
    """One ``hold:N`` seat against a field of ``hold:M`` seats, averaged over the N player's seat.

    ``matrix[a, b]``: the average chance of ``hold:values[a]`` (over its ``players`` possible
    seats, equally likely) when every other seat holds at ``values[b]`` (a fair share is
    ``1 / players``). ``best_reply[b]``: the N that does best against the field ``b``;
    ``equilibria``: the N that are their own best reply (a symmetric equilibrium among hold-at-N
    strategies); ``ranking``: N by its mean over the fields.
    """

    rules: PigRules
    values: tuple[int, ...]
    matrix: np.ndarray
    seconds: float

    @property
    def best_reply(self) -> list[int]:
        return [self.values[int(i)] for i in np.argmax(self.matrix, axis=0)]

    @property
    def equilibria(self) -> list[int]:
        return [v for b, v in enumerate(self.values) if self.best_reply[b] == v]

    @property
    def ranking(self) -> list[dict[str, Any]]:
        mean = self.matrix.mean(axis=1)
        return [{"n": self.values[i], "mean": float(mean[i])} for i in np.argsort(-mean, kind="stable")]

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "players": self.rules.players,
                "values": list(self.values), "matrix": self.matrix.tolist(),
                "best_reply": self.best_reply, "equilibria": self.equilibria,
                "ranking": self.ranking, "seconds": self.seconds}


def hold_tournament(values: Sequence[int], rules: PigRules | None = None,
                    progress: Callable[[], None] | None = None) -> HoldTournament:
    """Every ``hold:N`` (N in ``values``) against every field of ``hold:M``, exactly."""
    rules = rules or PigRules(players=3)
    n = rules.players
    vals = tuple(int(v) for v in values)
    require(1 <= len(vals) <= 60 and all(1 <= v <= rules.goal for v in vals),
            f"give 1 to 60 hold numbers from 1 to the goal ({rules.goal}), got {list(vals)[:8]}")
    check_size(rules, "a tournament", copies=n)
    t0 = time.perf_counter()
    M = np.zeros((len(vals), len(vals)))
    for b, field_n in enumerate(vals):
        for a, mine in enumerate(vals):
            if mine == field_n:
                e = evaluate_profile([f"hold:{mine}"] * n, rules)
                M[a, b] = float(np.mean(e.wins))
            else:
                total = 0.0
                for seat in range(n):
                    prof = [f"hold:{field_n}"] * n
                    prof[seat] = f"hold:{mine}"
                    total += evaluate_profile(prof, rules).wins[seat]
                M[a, b] = total / n
            if progress is not None:
                progress()
    return HoldTournament(rules, vals, M, time.perf_counter() - t0)


def table_memory(rules: PigRules, profile_kinds: int = 1) -> int:
    """Bytes of the value tables an evaluation needs (1 or ``players`` copies)."""
    return table_bytes(rules) * profile_kinds



def hold_turns_tail(h: int, rules: PigRules, tol: float = 1e-17) -> np.ndarray:
    """``tail[t]``: the chance that a ``hold:h`` player starting from 0 has not reached the goal
    after ``t`` of its turns (its own Markov chain over its banked score; ``tail[0] = 1``),
    followed until under ``tol``."""
    g = rules.goal
    require(1 <= int(h) <= g, f"a hold number goes from 1 to the goal ({g}), got {h}")
    pts, prb, pb = kernel_outcomes(rules)
    A = np.zeros((g, g))  # one turn: banked score before -> after (a 1 or a hold)
    for own in range(g):
        reach = np.zeros(g + int(pts.max()) + 1)
        reach[0] = 1.0
        for k in range(g - own):
            p = reach[k]
            if p == 0.0:
                continue
            if k >= h:
                A[own, own + k] += p
                continue
            A[own, own] += p * pb
            for d, q in zip(pts.tolist(), prb.tolist(), strict=True):
                if own + k + d < g:
                    reach[k + d] += p * q
    dist = np.zeros(g)
    dist[0] = 1.0
    tail = [1.0]
    while tail[-1] > tol:
        require(len(tail) < 1_000_000, f"hold:{h} does not reach the goal {g}")
        dist = dist @ A
        tail.append(float(dist.sum()))
    return np.array(tail)


def race_wins(tails: Sequence[np.ndarray]) -> tuple[float, ...]:
    """Each seat's chance to win a race of independent numbers of turns ``T_m`` (seat 0 first),
    given ``tails[m][t] = P(T_m > t)``: seat ``s`` wins when it finishes in its ``t``-th turn
    while every earlier seat needs more than ``t`` turns and every later seat more than
    ``t - 1``."""
    n = len(tails)
    L = max(len(t) for t in tails) + 1
    S = np.zeros((n, L))
    for m, t in enumerate(tails):
        S[m, : len(t)] = t
    wins = []
    for s in range(n):
        p = S[s, :-1] - S[s, 1:]  # P(T_s = t), t = 1 .. L - 1
        for j in range(n):
            if j != s:
                p = p * (S[j, 1:] if j < s else S[j, :-1])
        wins.append(float(p.sum()))
    return tuple(wins)


def hold_race(holds: Sequence[int], rules: PigRules | None = None,
              tol: float = 1e-17) -> tuple[float, ...]:
    """Each seat's chance from the start when seat ``m`` plays ``hold:holds[m]``, exactly and in
    milliseconds at any goal and number of players.

    A hold-at-N player's turns do not look at the others' scores, so each seat's number of turns
    to reach the goal is independent of the others' (:func:`hold_turns_tail`) and the game is a
    race (:func:`race_wins`). :func:`evaluate_profile` gives the same numbers on the whole state
    space.
    """
    rules = rules or PigRules(players=len(holds))
    hs = [int(h) for h in holds]
    require(len(hs) == rules.players and all(1 <= h <= rules.goal for h in hs),
            f"give one hold number from 1 to the goal ({rules.goal}) per seat "
            f"({rules.players}), got {hs[:8]}")
    tails = {h: hold_turns_tail(h, rules, tol) for h in set(hs)}
    return race_wins([tails[h] for h in hs])
