"""Puzzles drawn from the exact solutions: the generic part (the games provide the positions).

A puzzle is a position from real play where the exact best move beats every other offered move by
a clear margin and a natural rule of thumb ("hold at 20", "six dice", "bid what you see") gets it
wrong. A game offers puzzles through an optional name of its public API (its lazy ``__init__``,
like ``PLAY``): ``PUZZLES``, a :class:`PuzzleSource` (``"PUZZLES": ("dicelab.pig.puzzles",
"SOURCE")``), which names the rule settings to draw from and yields :class:`Candidate` positions,
each with every offered move's exact value, the rules of thumb's moves, one sentence of why and a
board to draw. A game without that name offers no puzzles (:func:`source_of`). This module does
the rest the same way for every game: it keeps the candidates that qualify (:func:`qualifies`),
rates them (:func:`rating`), gives each a stable id, and stores a set as one JSON document with a
checksum (:func:`save`, :func:`load`, :mod:`dicelab.core.store` conventions; no pickle).

A board is a list of widgets any page can draw without knowing the game:

* ``{"type": "scores", "items": [{"label": "You", "value": 45, "goal": 100, "you": true}, ...]}``
* ``{"type": "dice", "label": "Your dice", "faces": [2, 5], "hidden": 0, "coin": false}``
  (``hidden``: dice shown face down)
* ``{"type": "slots", "label": "The lid", "filled": 3, "of": 5}``
* ``{"type": "facts", "items": [{"label": "This turn", "value": "18"}, ...]}``
* ``{"type": "list", "label": "Bids this round", "items": ["Opponent: 2 fives", ...]}``

The rating of a puzzle (:func:`rating`) grows with the share of the rules of thumb that fail and
shrinks with the margin (a close call is harder): from 1000 (the only rule fails, by 10 points or
more) to 1800 (every rule fails, by the smallest margin kept).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dicelab.core.errors import require

KIND = "dicelab-puzzles"
#: The smallest margin kept: the best move's value minus the second best's (two points of win chance).
MIN_MARGIN = 0.02
#: A best move worth this much (a sure win), or less than LOST_CAUSE, makes no puzzle.
SURE_THING = 0.995
LOST_CAUSE = 0.05
#: Margins at or above this count as the easiest (see :func:`rating`).
EASY_MARGIN = 0.10
#: Candidates examined per puzzle kept, at most, before a setting is given up as exhausted.
TRIES_PER_PUZZLE = 400
#: The largest share of a setting's puzzles one best move may take while others can be found.
MOST_OF_ONE = 0.6
#: The puzzle set shipped with dicelab (built by ``dicelab puzzles build``; README says how).
SHIPPED = Path(__file__).parent / "data" / "puzzles.json"
MAX_COUNT = 2000


@dataclass(frozen=True)
class Move:
    """One offered move: the game's own ``action`` (as its state spells it), a ``label`` for
    people ("Roll", "Six dice", "Bid two fives") and its exact ``value``."""

    action: Any
    label: str
    value: float


@dataclass(frozen=True)
class Thumb:
    """A rule of thumb (``name``, for people: "Hold at 20") and the move it makes here."""

    name: str
    action: Any


@dataclass
class Candidate:
    """A position a game proposes as a puzzle, with everything a page or a test needs.

    ``position`` holds the game's own numbers (enough for the game to rebuild the values),
    ``question`` says the position in plain words, ``board`` is the widget list (module
    docstring), ``kind`` names what ``value`` is ("win probability", "chance to win the round"),
    ``why`` is one plain sentence, ``details`` one technical line (solver, spec strings), and
    ``extra`` any further data the game wants kept; ``extra["curve"]`` (``{"title", "x_label",
    "x0", "y"}``: the value of every move along a range, ``y[n]`` for the move ``x0 + n``) is drawn
    with the answer when there are more moves than the offered ones.
    """

    game: str
    setting: str
    rules: dict[str, Any]
    position: dict[str, Any]
    question: str
    board: list[dict[str, Any]]
    kind: str
    moves: list[Move]
    thumbs: list[Thumb]
    why: Callable[[Move, Move, list[Thumb]], str] | str
    details: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ranked(self) -> list[Move]:
        """The moves, best first."""
        return sorted(self.moves, key=lambda m: -m.value)


class PuzzleSource(Protocol):
    """What a game provides for puzzles (its public ``PUZZLES``, see :func:`source_of`)."""

    def settings(self) -> list[dict[str, Any]]:
        """The rule settings to draw puzzles from (rule parameters, e.g. ``{"variant": "piglet",
        "goal": 10}``); a build shares its count among them."""
        ...

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[Candidate]:
        """Positions as they occur in play between strong bots under ``setting`` (drawn with
        ``rng``), each with its exact values; finite or not."""
        ...


HOOK = "PUZZLES"
"""The optional public name of a game package that holds its :class:`PuzzleSource`."""


def source_of(entry: Any) -> PuzzleSource | None:
    """The puzzle source of a registry entry (its game's public ``PUZZLES``), or None when the
    game offers none."""
    try:
        return entry.load(HOOK)
    except AttributeError:
        return None


def same(a: Any, b: Any) -> bool:
    """Whether two actions are the same move (JSON-equal)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def margin(c: Candidate) -> float:
    """The best move's value minus the second best's (0 with fewer than two moves)."""
    r = c.ranked
    return r[0].value - r[1].value if len(r) > 1 else 0.0


def failed(c: Candidate) -> list[Thumb]:
    """The rules of thumb that do not make the best move."""
    best = c.ranked[0].action
    return [t for t in c.thumbs if not same(t.action, best)]


def qualifies(c: Candidate, min_margin: float = MIN_MARGIN) -> bool:
    """A puzzle: two moves or more, the best ahead of the second by ``min_margin``, at least one
    rule of thumb getting it wrong, and neither a sure thing nor a lost cause (a best move that
    wins at least :data:`SURE_THING` of the time, or less than :data:`LOST_CAUSE`, teaches
    little)."""
    best = c.ranked[0].value
    return (len(c.moves) > 1 and margin(c) >= min_margin and bool(c.thumbs) and bool(failed(c))
            and LOST_CAUSE <= best < SURE_THING)


def rating(share_failed: float, margin_: float, min_margin: float = MIN_MARGIN) -> int:
    """The puzzle's rating: 1000 + 400 x (the share of rules of thumb that fail) + 400 x (how
    close the call is: 1 at the smallest margin kept, ``min_margin``, 0 from
    :data:`EASY_MARGIN` up).

    >>> rating(1.0, 0.02), rating(0.5, 0.06), rating(0.5, 0.30), rating(0.5, 0.01, 0.01)
    (1800, 1400, 1200, 1600)
    """
    close = 1.0 - min(max((margin_ - min_margin) / (EASY_MARGIN - min_margin), 0.0), 1.0)
    return int(round(1000 + 400 * share_failed + 400 * close))


def min_margin_of(source: PuzzleSource) -> float:
    """The smallest margin ``source`` keeps: its ``min_margin`` attribute, else :data:`MIN_MARGIN`."""
    return float(getattr(source, "min_margin", MIN_MARGIN))


def puzzle_id(game: str, rules: dict[str, Any], position: dict[str, Any]) -> str:
    """A short stable id from the game, its rules and the position: ``pig-3f9a1c2e``."""
    blob = json.dumps({"game": game, "rules": rules, "position": position}, sort_keys=True)
    return f"{game}-{hashlib.sha256(blob.encode()).hexdigest()[:8]}"


def to_record(c: Candidate, min_margin: float = MIN_MARGIN) -> dict[str, Any]:
    """The stored form of a qualifying candidate (plain JSON)."""
    ranked = c.ranked
    best, second = ranked[0], ranked[1]
    wrong = failed(c)
    label = {json.dumps(m.action, sort_keys=True): m.label for m in c.moves}
    why = c.why(best, second, wrong) if callable(c.why) else c.why
    require("\n" not in why, "a puzzle's why is one line")
    m = margin(c)
    return {
        "id": puzzle_id(c.game, c.rules, c.position), "game": c.game, "setting": c.setting,
        "rules": c.rules, "position": c.position, "question": c.question, "board": c.board,
        "kind": c.kind,
        "moves": [{"action": x.action, "label": x.label, "value": round(float(x.value), 9)} for x in c.moves],
        "best": best.action, "best_label": best.label, "margin": round(float(m), 9),
        "thumbs": [{"name": t.name, "action": t.action, "label": label.get(json.dumps(t.action, sort_keys=True),
                                                                            str(t.action)),
                    "right": same(t.action, best.action)} for t in c.thumbs],
        "failed": len(wrong), "rating": rating(len(wrong) / len(c.thumbs), m, min_margin),
        "why": why, "details": c.details, **({"extra": c.extra} if c.extra else {}),
    }


def split(count: int, parts: int) -> list[int]:
    """``count`` shared among ``parts`` as evenly as possible, the first parts taking the rest."""
    return [count // parts + (1 if n < count % parts else 0) for n in range(parts)]


def draw(source: PuzzleSource, count: int, seed: int,
         advance: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Up to ``count`` puzzle records from ``source``, shared among its settings (what one leaves
    unfilled goes to the ones after it); each setting's
    positions come from ``numpy.random.default_rng([seed, n])`` (n its place in the list), so the
    same seed gives the same puzzles.

    A setting stops after :data:`TRIES_PER_PUZZLE` candidates a puzzle, or when its positions run
    out. So that the answer is not always the same move, no one best move takes more than
    :data:`MOST_OF_ONE` of a setting's puzzles while others can be found; the rest is filled, in
    the order drawn, from the puzzles held back. ``advance(n)`` is told of every puzzle kept."""
    settings = source.settings()
    low = min_margin_of(source)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()  # a position met under two settings is one puzzle
    for n, setting in enumerate(settings):
        want = split(count - len(out), len(settings) - n)[0]  # a setting that runs short leaves its share to the next
        if want == 0:
            continue
        rng = np.random.default_rng([seed, n])
        cap = max(1, math.ceil(MOST_OF_ONE * want))
        kept: list[dict[str, Any]] = []
        held: list[dict[str, Any]] = []
        per_best: dict[str, int] = {}
        tries = 0
        for c in source.candidates(setting, rng):
            tries += 1
            pid = puzzle_id(c.game, c.rules, c.position)
            if pid not in seen:
                seen.add(pid)
                if qualifies(c, low):
                    rec = to_record(c, low)
                    key = json.dumps(rec["best"], sort_keys=True)
                    if per_best.get(key, 0) < cap:
                        per_best[key] = per_best.get(key, 0) + 1
                        kept.append(rec)
                        if advance is not None:
                            advance(1)
                    else:
                        held.append(rec)
            if len(kept) >= want or tries >= TRIES_PER_PUZZLE * want:
                break
        fill = held[:want - len(kept)]
        if advance is not None and fill:
            advance(len(fill))
        out.extend(kept + fill)
    return out


def build(games: Iterable[Any], count: int, seed: int, progress: bool = False) -> dict[str, Any]:
    """A puzzle set: ``count`` puzzles of each game in ``games`` (registry entries offering
    puzzles), drawn with ``seed``. Returns the document :func:`save` writes."""
    from dicelab.core.progress import progress_bar

    require(isinstance(count, int) and 1 <= count <= MAX_COUNT, f"count must be from 1 to {MAX_COUNT}, got {count}")
    entries = list(games)
    t0 = time.perf_counter()
    puzzles: list[dict[str, Any]] = []
    built: dict[str, dict[str, Any]] = {}
    with progress_bar("building puzzles", total=count * len(entries), enabled=progress) as bar:
        for entry in entries:
            src = source_of(entry)
            require(src is not None, f"{entry.title} offers no puzzles")
            assert src is not None
            t1 = time.perf_counter()
            got = draw(src, count, seed, advance=bar.advance)
            built[entry.name] = {"puzzles": len(got), "seconds": round(time.perf_counter() - t1, 2),
                                 "settings": src.settings(), "min_margin": min_margin_of(src)}
            puzzles.extend(got)
    ids = [p["id"] for p in puzzles]
    require(len(ids) == len(set(ids)), "internal: two puzzles with one id")
    return {"seed": seed, "count": count, "games": built, "seconds": round(time.perf_counter() - t0, 2),
            "puzzles": puzzles}


# ---- storage: one JSON document with a checksum (dicelab.core.store conventions)


def save(path: str | Path, document: dict[str, Any]) -> Path:
    """Write a puzzle set (from :func:`build`) as JSON with its kind, version and checksum."""
    from dicelab.core.store import save_json

    return save_json(path, KIND, document)


def load(path: str | Path = SHIPPED) -> dict[str, Any]:
    """Read a puzzle set, verifying its checksum and shape; any failure is one DicelabError line."""
    from dicelab.core.store import load_json

    doc = load_json(path, KIND)
    puzzles = doc.get("puzzles")
    ok = isinstance(puzzles, list) and all(isinstance(p, dict) and isinstance(p.get("id"), str) for p in puzzles)
    require(ok, f"{path}: the puzzle set has no list of puzzles with ids")
    return doc


def of_the_day(puzzles: list[dict[str, Any]], day: date) -> dict[str, Any] | None:
    """The puzzle of ``day``: the same for everybody on one day, a different one the next
    (days since 2000-01-01 times a large odd step, modulo the count), None without puzzles."""
    if not puzzles:
        return None
    n = (day - date(2000, 1, 1)).days
    return puzzles[(n * 7919) % len(puzzles)]

