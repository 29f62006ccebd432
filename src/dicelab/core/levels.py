"""Levels of strength: every game's bots as a ladder named for players (Beginner ... Perfect), each
level with its *measured* strength.

A game offers levels through the optional hook :class:`Ranks` of its
:class:`~dicelab.core.registry.Play`: :meth:`Ranks.levels` names the ladder (weakest first, cheap:
nothing is built) and :meth:`Ranks.measure` measures it. A level's **strength** is its chance to
win against the ladder's strongest level, the two seats averaged (a coin decides who starts):
exact where the game allows (an exact evaluation of the two policies, the level's noise
included), else from games played, with a 95 % interval. The strongest level's own strength is
1/2 by definition in a symmetric game.

:func:`ladder` measures through the disk cache (:func:`dicelab.core.store.cached`, kind
``levels``, keyed by the game, its rules and the ladder's specs), so a front end that serves
requests measures ahead (the web lab at start, in a worker process) and reads with
:func:`known`, which never measures. ``dicelab <game> levels --json`` prints a ladder
(:func:`dicelab.core.cli.add_levels_command`).

>>> Level("Club", "hold:20", "holds at 20").to_dict()["strength"] is None
True
"""

from __future__ import annotations

import dataclasses
import json
import threading
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from dicelab.core.errors import DicelabError, require

KIND = "levels"
LADDER_FORMAT = 1


@dataclass(frozen=True)
class Level:
    """One level: ``name`` for people ("Casual"), ``spec`` for the game's ``Play.bot``, ``details``
    the algorithm in words (a details line), and, once measured, ``strength`` (its chance to win
    against the strongest level, seats averaged) with its 95 % ``interval`` where it was measured
    by play rather than exactly."""

    name: str
    spec: str
    details: str
    strength: float | None = None
    interval: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "details": self.details, "strength": self.strength,
                "interval": None if self.interval is None else list(self.interval)}


class Ranks(Protocol):
    """The optional hook of a :class:`~dicelab.core.registry.Play` that offers levels."""

    def levels(self, rules: Any) -> list[Level]:
        """The ladder under ``rules``, weakest first, strongest last, without strengths (cheap)."""
        ...

    def measure(self, rules: Any, progress: bool = False) -> dict[str, Any]:
        """Measure :meth:`levels`: ``{"strengths": [...], "intervals": [[lo, hi], ...] or None,
        "exact": bool, "method": "how, in a sentence"}``, one strength per level in ladder order.
        A game may also offer ``measured(rules)``: a measurement shipped with it (cheap), or None."""
        ...


def ranks(play: Any) -> Ranks | None:
    """``play`` if it offers levels, else None."""
    return play if play is not None and hasattr(play, "levels") and hasattr(play, "measure") else None


def rules_params(rules: Any) -> dict[str, Any]:
    """The rule values of ``rules`` (a dataclass) as plain JSON."""
    return json.loads(json.dumps(dataclasses.asdict(rules), default=str))


def _key(game: str, rules: Any, specs: list[str]) -> dict[str, Any]:
    return {"game": game, "rules": rules_params(rules), "specs": specs, "format": LADDER_FORMAT}


def _answer(game: str, rules: Any, levels: list[Level], measured: dict[str, Any]) -> dict[str, Any]:
    strengths = measured["strengths"]
    intervals = measured.get("intervals") or [None] * len(levels)
    require(len(strengths) == len(levels) == len(intervals), "internal: one strength per level")
    out = [dataclasses.replace(lv, strength=float(s), interval=None if iv is None else (float(iv[0]), float(iv[1])))
           for lv, s, iv in zip(levels, strengths, intervals, strict=True)]
    return {"game": game, "rules": rules_params(rules), "levels": [lv.to_dict() for lv in out],
            "details": {"strength": "the level's chance to win against the strongest level, the two seats averaged",
                        "exact": bool(measured.get("exact")), "method": str(measured.get("method", "")),
                        **{k: v for k, v in measured.items() if k not in ("strengths", "intervals", "exact", "method")}}}


_memory: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def _memo_key(key: dict[str, Any]) -> str:
    return json.dumps(key, sort_keys=True)


def _from_arrays(key: dict[str, Any]) -> Any:
    def build(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> dict[str, Any]:
        answer = meta["answer"]
        require(answer["game"] == key["game"] and [lv["spec"] for lv in answer["levels"]] == key["specs"],
                "the entry holds another ladder")
        require(np.allclose(arrays["strength"], [lv["strength"] for lv in answer["levels"]]), "strengths differ")
        return answer

    return build


def _to_arrays(answer: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    return {"strength": np.array([lv["strength"] for lv in answer["levels"]], dtype=np.float64)}, {"answer": answer}


def ladder(game: str, play: Any, rules: Any, progress: bool = False) -> dict[str, Any]:
    """The measured ladder of ``game`` under ``rules``: from memory, the disk cache, or measured now
    (slow: seconds to minutes). One JSON object: ``game``, ``rules``, ``levels`` (each ``name``,
    ``spec``, ``details``, ``strength``, ``interval``) and ``details`` (the method)."""
    from dicelab.core.store import cached

    r = ranks(play)
    if r is None:
        raise DicelabError(f"{game} offers no levels")
    levels = r.levels(rules)
    key = _key(game, rules, [lv.spec for lv in levels])
    mk = _memo_key(key)
    with _lock:
        hit = _memory.get(mk)
    if hit is not None:
        return hit
    answer = cached(KIND, key, lambda: _answer(game, rules, levels, r.measure(rules, progress=progress)),
                    _to_arrays, _from_arrays(key))
    with _lock:
        _memory[mk] = answer
    return answer


def known(game: str, play: Any, rules: Any) -> dict[str, Any] | None:
    """The ladder if measured already (in memory, or on disk: read and verified, never measured),
    else None. What a request may call."""
    from dicelab.core.store import cache_dir, cache_key, table_paths

    r = ranks(play)
    if r is None:
        return None
    key = _key(game, rules, [lv.spec for lv in r.levels(rules)])
    mk = _memo_key(key)
    with _lock:
        hit = _memory.get(mk)
    if hit is not None:
        return hit
    shipped = getattr(play, "measured", None)
    found = shipped(rules) if shipped is not None else None
    if found is not None:  # measured ahead and shipped with the game
        answer = _answer(game, rules, r.levels(rules), found)
        with _lock:
            _memory[mk] = answer
        return answer
    try:
        npz, js = table_paths(cache_dir() / cache_key(KIND, key))
        if not (npz.is_file() and js.is_file()):
            return None
    except OSError:
        return None
    return ladder(game, play, rules)  # on disk: read (a damaged entry is measured again)


def install(answer: dict[str, Any], play: Any, rules: Any) -> None:
    """Keep a ladder measured elsewhere (a worker process) in this process's memory."""
    r = ranks(play)
    if r is None:
        return
    key = _key(answer["game"], rules, [lv.spec for lv in r.levels(rules)])
    require([lv["spec"] for lv in answer["levels"]] == key["specs"], "the answer holds another ladder")
    with _lock:
        _memory[_memo_key(key)] = answer


def measure_in_worker(game: str, params: dict[str, Any]) -> bytes:
    """In a worker process: :func:`ladder` of ``game`` with the rules made from ``params``, as JSON bytes."""
    from dicelab.core import registry

    entry = registry.get(game)
    return json.dumps(ladder(game, entry.play, entry.make_rules(**params))).encode()


def check_order(answer: dict[str, Any]) -> None:
    """Raise unless the ladder's strengths rise strictly from the weakest level to the strongest."""
    s = [lv["strength"] for lv in answer["levels"]]
    require(all(a < b for a, b in zip(s, s[1:])), f"the levels are not strictly ordered by strength: {s}")
