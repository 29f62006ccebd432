"""Strategies for two-player Pig: one notion, many ways to write one down.

A *strategy* answers, at every state ``(i, j, k)`` (own banked score, opponent's banked score,
turn total), the question "roll again?". Its canonical compiled form is a **decision table**:
a boolean array ``roll`` of shape ``(goal, goal, goal)`` with ``roll[i, j, k]`` True where the
strategy rolls. Entries with ``i + k >= goal`` are False: every strategy, whatever it says, banks
(and so wins) once banked score plus turn total reaches the goal. A table belongs to one goal;
a *strategy* (:class:`PigStrategy`) is a recipe that compiles a table for any rules
(:meth:`PigStrategy.table`).

Ways to give a strategy (:func:`dicelab.pig.specs.as_strategy` accepts all of them,
:func:`dicelab.pig.specs.parse_strategy` the string forms used on the command line; this module
holds the strategy objects and :func:`to_strategy`, which takes everything but spec strings):

``optimal``
    Optimal play (the exact solution of :mod:`dicelab.pig.solver`).
``hold:N``
    Roll while the turn total is below ``N`` (``N >= 0``; ``hold:0`` never rolls).
``keep-pace``
    Neller's "keep pace and end race": if ``i + k >= goal`` hold; else if ``i >= 71`` or
    ``j >= 71`` roll; else roll while ``k < 21 + round((j - i) / 8)``, rounding halves up.
    The constants are for goal 100; for another goal ``g`` they scale with it:
    roll while ``k < floor(21 g / 100 + (j - i) / 8 + 1/2)`` and race once ``i`` or ``j``
    reaches ``ceil(71 g / 100)`` (at ``g = 100`` this is exactly Neller's rule).
``turtle``, ``roll-to-win``, ``roll-and-wait``
    The three non-transitive strategies of seed 002, section 3.3.6; see :class:`Turtle`,
    :class:`RollToWin` and :class:`RollAndWait` for their precise definitions.
``best-response:SPEC``
    The exact best response to the strategy ``SPEC`` (:func:`dicelab.pig.evaluation.best_response`).
``file:PATH``
    A decision table stored as ``.npz`` (written by :func:`save_strategy`, or any ``.npz`` with a
    boolean/0-1 array named ``roll`` of shape ``(goal, goal, goal)``) or as CSV with header
    ``i,j,k,roll`` and one row per state ``0 <= i, j < goal``, ``0 <= k < goal - i``.
a Python callable ``f(my_score, opponent_score, turn_total) -> bool``
    True means roll. It is called once per state when the table is compiled.
a numpy array
    A decision table, used as is (its shape fixes the goal).

Ranges for tournaments: ``hold:1..100`` (or ``hold:5..50:5`` with a step) expands to one
``hold:N`` per value (:func:`dicelab.pig.specs.expand_specs`).

Every malformed spec raises a one-line :class:`~dicelab.core.errors.DicelabError` naming what is
allowed. Limits (:mod:`dicelab.core.specs`): ``N`` has at most six digits, ``best-response:``
nests at most eight deep, and a CSV table has at most 5,000,000 rows for a goal of at most 1000
(its row count is checked before the table is allocated).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import (
    MAX_DIGITS,
    check_input_file,
    shorten,
)
from dicelab.pig.rules import MAX_GOAL, PigRules

KIND = "pig-strategy"
MAX_RANGE = 1000
#: Largest N of ``hold:N`` (any N >= goal means "roll until the goal").
MAX_HOLD = 10**MAX_DIGITS - 1
#: Most rows of a strategy CSV (goal 215 or so; larger tables belong in .npz files).
MAX_CSV_ROWS = 5_000_000

NAMED = (
    "optimal",
    "hold:N",
    "keep-pace",
    "turtle",
    "roll-to-win",
    "roll-and-wait",
    "best-response:SPEC",
    "file:PATH",
)

#: ``turtle`` holds at this turn total (seed 002: "banking on a low score each turn").
TURTLE_HOLD = 5
#: ``roll-and-wait`` rolls in one turn until its banked score would reach this (at goal 100).
RAW_TARGET = 80


def _valid_mask(goal: int) -> np.ndarray:
    """True at the states ``i + k < goal`` (the non-terminal ones), shape (goal, goal, goal)."""
    i = np.arange(goal)[:, None, None]
    k = np.arange(goal)[None, None, :]
    return np.broadcast_to(i + k < goal, (goal, goal, goal))


def _grids(goal: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.arange(goal, dtype=np.int64)
    return g[:, None, None], g[None, :, None], g[None, None, :]


def finish_table(roll: np.ndarray) -> np.ndarray:
    """A C-contiguous boolean copy of ``roll`` that banks at every ``i + k >= goal`` entry."""
    roll = np.asarray(roll)
    require(
        roll.ndim == 3 and roll.shape[0] == roll.shape[1] == roll.shape[2] and roll.shape[0] >= 1,
        f"a decision table must have shape (goal, goal, goal), got {roll.shape}",
    )
    out = np.ascontiguousarray(roll != 0, dtype=np.bool_) & _valid_mask(roll.shape[0])
    return np.ascontiguousarray(out)


@dataclass(eq=False)
class PigStrategy:
    """A strategy for Pig: a recipe for a decision table (see the module docstring).

    Subclasses implement :meth:`_build`; :meth:`table` caches the compiled table per rules.
    ``name`` is how reports and the CLI show the strategy (``hold:25``, ``keep-pace``, ...).
    """

    name: str
    _cache: dict[PigRules, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    def table(self, rules: PigRules) -> np.ndarray:
        """The decision table for ``rules``: bool ``(goal, goal, goal)``, True = roll."""
        t = self._cache.get(rules)
        if t is None:
            t = finish_table(self._build(rules))
            require(
                t.shape[0] == rules.goal,
                f"strategy {self.name} has a table for goal {t.shape[0]}, not goal {rules.goal}",
            )
            t.setflags(write=False)
            self._cache[rules] = t
        return t

    def _build(self, rules: PigRules) -> np.ndarray:  # pragma: no cover - abstract
        raise DicelabError(f"strategy {self.name} cannot build a table")

    def roll(self, rules: PigRules, i: int, j: int, k: int) -> bool:
        """Whether the strategy rolls at state (i, j, k)."""
        rules.check_state(i, j, k)
        return bool(self.table(rules)[i, j, k])

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class HoldAt(PigStrategy):
    """``hold:N``: roll while the turn total is below ``n`` (and below the goal)."""

    n: int = 20

    def _build(self, rules: PigRules) -> np.ndarray:
        _, _, k = _grids(rules.goal)
        return np.broadcast_to(k < self.n, (rules.goal,) * 3)


@dataclass(eq=False)
class KeepPace(PigStrategy):
    """Neller's "keep pace and end race" (exact rule in the module docstring)."""

    def _build(self, rules: PigRules) -> np.ndarray:
        g = rules.goal
        i, j, k = _grids(g)
        race = (71 * g + 99) // 100  # ceil(0.71 g): 71 at goal 100
        # floor(21 g/100 + (j - i)/8 + 1/2) in exact integer arithmetic (floor division)
        pace = (42 * g + 25 * (j - i) + 100) // 200
        return (i >= race) | (j >= race) | (k < pace)


@dataclass(eq=False)
class Turtle(PigStrategy):
    """``turtle`` (seed 002, 3.3.6): "a slow strategy ... banking on a low score each turn".

    Precisely: roll while the turn total is below ``hold`` (5 by default), i.e. ``hold:5``. This
    reproduces the seed's theoretical figures against roll-to-win to all six printed digits:
    turtle moving first wins with probability 0.812840 and roll-to-win moving first with
    0.195448 (no other hold:N comes within 0.01 of them).
    """

    hold: int = TURTLE_HOLD

    def _build(self, rules: PigRules) -> np.ndarray:
        _, _, k = _grids(rules.goal)
        return np.broadcast_to(k < self.hold, (rules.goal,) * 3)


@dataclass(eq=False)
class RollToWin(PigStrategy):
    """``roll-to-win`` (seed 002, 3.3.6): never bank; roll until the turn total wins the game.

    It "only banks once the turn score reaches 100": it rolls at every state, so its banked
    score stays 0 and it wins exactly when one turn's total reaches the goal.
    """

    def _build(self, rules: PigRules) -> np.ndarray:
        return np.ones((rules.goal,) * 3, dtype=np.bool_)


@dataclass(eq=False)
class RollAndWait(PigStrategy):
    """``roll-and-wait`` (seed 002, 3.3.6): reach 80, then wait for the opponent, then race.

    The seed describes it only in words ("gets up to a banked score of 80, before not rolling
    and waiting for the opponent to catch up, before then rolling to try to win"). Precisely,
    at goal 100 (``target = 80``, ``step = 20``; for goal ``g``: ``round(0.8 g)``, ``round(0.2 g)``):

    * while its banked score ``i`` is below ``target``: roll while ``k < step`` and
      ``i + k < target`` (hold:20, never banking past 80 in the run-up);
    * once ``i >= target``, while the opponent's banked score ``j`` is below its own
      (``j < i``), it waits: holds at turn total 0, skipping its turn;
    * once the opponent has caught up (``j >= i``): roll until the goal (roll to win).

    Against roll-to-win, whose banked score never moves, it waits for ever while roll-to-win
    keeps rolling, so roll-to-win wins with probability exactly 1, as the seed reports. Against
    turtle this rule gives 0.797821 (roll-and-wait first) and 0.212753 (turtle first); the seed's
    theoretical figures, 0.710606 and 0.297148, come from a rule it does not spell out (no
    variant of the run-up or of the waiting rule we tried reproduces both). The non-transitive
    triple of the seed holds either way: turtle beats roll-to-win, roll-to-win beats
    roll-and-wait, roll-and-wait beats turtle.
    """

    target: int | None = None
    step: int | None = None

    def _build(self, rules: PigRules) -> np.ndarray:
        g = rules.goal
        t = self.target if self.target is not None else (4 * g + 2) // 5
        n = self.step if self.step is not None else max(1, (g + 2) // 5)
        i, j, k = _grids(g)
        below = (i < t) & (k < n) & (i + k < t)
        race = (i >= t) & (j >= i)
        return below | race


@dataclass(eq=False)
class Optimal(PigStrategy):
    """``optimal``: the optimal policy of :func:`dicelab.pig.solver.solve` (cached on disk)."""

    def _build(self, rules: PigRules) -> np.ndarray:
        return _optimal_table(rules)


@lru_cache(maxsize=8)
def _optimal_table(rules: PigRules) -> np.ndarray:
    """The optimal decision table, kept in memory per rules (the solver caches it on disk)."""
    from dicelab.pig.solver import solve_cached

    return finish_table(solve_cached(rules).roll)


@dataclass(eq=False)
class CallableStrategy(PigStrategy):
    """Any Python callable ``f(my_score, opponent_score, turn_total) -> bool`` (True = roll)."""

    func: Callable[[int, int, int], Any] | None = None

    def _build(self, rules: PigRules) -> np.ndarray:
        assert self.func is not None
        g = rules.goal
        out = np.zeros((g, g, g), dtype=np.bool_)
        f = self.func
        for i in range(g):
            for j in range(g):
                row = out[i, j]
                for k in range(g - i):
                    row[k] = bool(f(i, j, k))
        return out


@dataclass(eq=False)
class TableStrategy(PigStrategy):
    """A fixed decision table (its goal is its shape)."""

    roll_table: np.ndarray | None = None

    def _build(self, rules: PigRules) -> np.ndarray:
        assert self.roll_table is not None
        return self.roll_table


# ---------------------------------------------------------------------------------------------
# table files
# ---------------------------------------------------------------------------------------------


def save_strategy(
    path: str | Path, table: np.ndarray, name: str = "table", rules: PigRules | None = None
) -> Path:
    """Write a decision table: ``.csv`` (``i,j,k,roll`` rows) or ``.npz`` (+ JSON meta, checksum)."""
    from dicelab.core.store import save_table

    table = finish_table(table)
    p = Path(path)
    if p.suffix.lower() == ".csv":
        g = table.shape[0]
        p.parent.mkdir(parents=True, exist_ok=True)
        i, j, k = np.nonzero(_valid_mask(g))
        rows = np.stack([i, j, k, table[i, j, k].astype(np.int64)], axis=1)
        with p.open("w") as fh:
            fh.write("i,j,k,roll\n")
            np.savetxt(fh, rows, fmt="%d", delimiter=",")
        return p
    meta: dict[str, Any] = {"name": name, "goal": int(table.shape[0])}
    if rules is not None:
        meta["rules"] = rules.to_dict()
    return save_table(p, KIND, {"roll": table}, meta)


def load_strategy_table(path: str | Path) -> np.ndarray:
    """Read a decision table from ``.npz`` or CSV (formats in the module docstring)."""
    p = check_input_file(path, "strategy file")
    if p.suffix.lower() == ".csv":
        return _load_csv(p)
    require(p.suffix.lower() == ".npz", f"strategy file {shorten(str(p))} must end in .csv or .npz")
    where = shorten(str(p))
    if p.with_suffix(".json").exists():
        from dicelab.core.store import load_table

        arrays, _ = load_table(p, KIND)
    else:
        arrays = _read_bare_npz(p, where)
    require("roll" in arrays, f"strategy file {where} has no array named 'roll'")
    roll = arrays["roll"]
    require(
        isinstance(roll, np.ndarray),
        f"strategy file {where}: 'roll' is not a numpy array (roll.npy is damaged)",
    )
    require(
        roll.dtype == np.bool_ or np.issubdtype(roll.dtype, np.integer),
        f"strategy file {where}: 'roll' must be boolean or 0/1, got dtype {roll.dtype}",
    )
    require(
        roll.ndim == 3 and 1 <= roll.shape[0] <= MAX_GOAL,
        f"strategy file {where}: 'roll' must have shape (goal, goal, goal) with a goal from 1 to "
        f"{MAX_GOAL}, got {roll.shape}",
    )
    require(
        bool(np.isin(roll, (0, 1)).all()), f"strategy file {where}: 'roll' must hold only 0 and 1"
    )
    return finish_table(roll)


def _read_bare_npz(p: Path, where: str) -> dict[str, Any]:
    """The members of an ``.npz`` with no JSON beside it; any damage is one DicelabError line."""
    try:
        with p.open("rb") as fh:
            head = fh.read(4)
        if head not in (b"PK\x03\x04", b"PK\x05\x06"):  # a zip file (or an empty one)
            what = "it is empty" if not head else "it is not a zip archive"
            raise DicelabError(f"cannot read strategy file {where}: {what}, so not an .npz table")
        with np.load(p, allow_pickle=False) as data:
            return {n: data[n] for n in data.files}
    except DicelabError:
        raise
    except Exception as exc:  # BadZipFile, zlib.error, EOFError, KeyError, ValueError, OSError, ...
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise DicelabError(
            f"cannot read strategy file {where}: not a readable .npz table ({reason})"
        ) from None


def _csv_rows(p: Path) -> np.ndarray:
    """The rows of a strategy CSV as an int64 array (n, 4), at most MAX_CSV_ROWS of them."""
    where = shorten(str(p))
    rows: list[list[int]] = []
    try:
        with p.open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header = [h.strip().lower() for h in next(reader, [])]
            require(
                header == ["i", "j", "k", "roll"],
                f"strategy CSV {where} must start with the header i,j,k,roll, "
                f"got {shorten(','.join(header))}",
            )
            for row in reader:
                if not row:
                    continue
                require(
                    len(row) == 4, f"strategy CSV {where} must have rows of 4 numbers i,j,k,roll"
                )
                require(
                    len(rows) < MAX_CSV_ROWS,
                    f"strategy CSV {where} has more than {MAX_CSV_ROWS:,} rows; "
                    "store large tables as .npz",
                )
                rows.append([_csv_int(x, where) for x in row])
    except UnicodeDecodeError:
        raise DicelabError(f"strategy CSV {where} is not UTF-8 text") from None
    except csv.Error as exc:
        raise DicelabError(f"strategy CSV {where} is not valid CSV: {exc}") from None
    require(len(rows) > 0, f"strategy CSV {where} must have rows of 4 numbers i,j,k,roll")
    return np.array(rows, dtype=np.int64)


def _csv_int(text: str, where: str) -> int:
    t = text.strip()
    require(
        re.fullmatch(r"-?[0-9]{1,9}", t) is not None,
        f"strategy CSV {where} must hold whole numbers only, got {shorten(text, 30)}",
    )
    return int(t)


def _load_csv(p: Path) -> np.ndarray:
    where = shorten(str(p))
    data = _csv_rows(p)
    i, j, k, r = data.T
    require(
        bool((data[:, :3] >= 0).all()), f"strategy CSV {where}: i, j and k must not be negative"
    )
    g = int(i.max()) + 1
    require(
        g <= MAX_GOAL,
        f"strategy CSV {where}: i must be below the goal, at most {MAX_GOAL}, got {g - 1}",
    )
    require(
        bool(((j < g) & (i + k < g)).all()),
        f"strategy CSV {where}: every row needs 0 <= i, j < goal and 0 <= k < goal - i",
    )
    require(bool(np.isin(r, (0, 1)).all()), f"strategy CSV {where}: the roll column must be 0 or 1")
    states = g * g * (g + 1) // 2
    require(  # checked before the (goal, goal, goal) tables are allocated
        len(r) == states,
        f"strategy CSV {where} must list every state of goal {g} exactly once "
        f"({states} rows), got {len(r)} rows",
    )
    table = np.zeros((g, g, g), dtype=np.bool_)
    seen = np.zeros((g, g, g), dtype=np.bool_)
    table[i, j, k] = r == 1
    seen[i, j, k] = True
    missing = int(_valid_mask(g).sum() - seen.sum())
    require(
        missing == 0,
        f"strategy CSV {where} must list every state of goal {g} exactly once "
        f"({missing} missing, {missing} repeated)",
    )
    return table



def to_strategy(x: Any, name: str | None = None) -> PigStrategy:
    """A strategy object, a callable or a decision table as a :class:`PigStrategy`.

    Spec strings are parsed above this module (:func:`dicelab.pig.specs.parse_strategy`), so the
    algorithms that call this take strategy objects only.
    """
    if isinstance(x, PigStrategy):
        return x
    if isinstance(x, np.ndarray):
        return TableStrategy(name or "table", roll_table=finish_table(x))
    if isinstance(x, str):
        raise DicelabError(
            f"the strategy {shorten(x)} is a spec: parse it with dicelab.pig.parse_strategy first"
        )
    if callable(x):
        return CallableStrategy(name or getattr(x, "__name__", "callable"), func=x)
    raise DicelabError(
        f"cannot use a {type(x).__name__} as a strategy; give a spec string, a callable "
        "f(my, opp, turn_total) -> bool or a (goal, goal, goal) table"
    )
