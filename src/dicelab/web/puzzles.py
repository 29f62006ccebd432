"""The web lab's puzzles: a stored puzzle set (:mod:`dicelab.core.puzzles`), read once and served.

Nothing is computed per request: the set was built ahead (``dicelab puzzles build``; the lab
ships one). A question shows the position and the choices but no values; the answer (``POST``)
gives every move's exact value, the best move, the rules of thumb and the sentence of why. A set
that cannot be read (missing, damaged) is reported once in the log and the lab serves no puzzles,
saying why, instead of failing.
"""

from __future__ import annotations

import logging
import threading
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from dicelab.core import puzzles as pz
from dicelab.core import registry
from dicelab.core.errors import DicelabError, require
from dicelab.web.gamecore import NotFound

log = logging.getLogger("dicelab.web.puzzles")


class PuzzleBook:
    """The puzzles of one set, by id, loaded on first use (thread-safe)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else pz.SHIPPED
        self._lock = threading.Lock()
        self._by_id: dict[str, dict[str, Any]] | None = None
        self.problem: str | None = None  # why no puzzles are served, in one line

    def _load(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            if self._by_id is None:
                try:
                    doc = pz.load(self.path)
                    titles = {g.name: g.title for g in registry.games()}
                    self._by_id = {p["id"]: {**p, "title": titles.get(p["game"], p["game"])} for p in doc["puzzles"]
                                   if p.get("game") in titles}
                except DicelabError as exc:
                    self.problem = f"The puzzle set could not be read: {exc}"
                    log.error("%s", self.problem)
                    self._by_id = {}
            return self._by_id

    @property
    def puzzles(self) -> list[dict[str, Any]]:
        return list(self._load().values())

    def get(self, pid: str) -> dict[str, Any]:
        found = self._load().get(pid)
        if found is None:
            raise NotFound(f"no puzzle {pid[:40]!r}; the puzzles page lists them all")
        return found

    def listing(self) -> dict[str, Any]:
        """Every puzzle's id, game and rating (no answers), and today's puzzle."""
        items = [{"id": p["id"], "game": p["game"], "title": p["title"], "setting": p["setting"],
                  "rating": p["rating"]} for p in self.puzzles]
        day = self.daily()
        return {"puzzles": items, "daily": None if day is None else day["id"], "problem": self.problem}

    def daily(self, day: date | None = None) -> dict[str, Any] | None:
        """Today's puzzle (UTC), the same for everybody, or None without puzzles."""
        return pz.of_the_day(self.puzzles, day or datetime.now(timezone.utc).date())

    def question(self, pid: str) -> dict[str, Any]:
        """What a player sees before answering: the position and the choices, no values."""
        p = self.get(pid)
        return {"id": p["id"], "game": p["game"], "title": p["title"], "setting": p["setting"],
                "question": p["question"], "board": p["board"], "rating": p["rating"], "kind": p["kind"],
                "choices": [{"action": m["action"], "label": m["label"]} for m in p["moves"]]}

    def answer(self, pid: str, action: Any) -> dict[str, Any]:
        """The verdict on ``action``: right or not, every move's value, the rules of thumb, why."""
        p = self.get(pid)
        chosen = next((m for m in p["moves"] if pz.same(m["action"], action)), None)
        labels = ", ".join(m["label"] for m in p["moves"])
        require(chosen is not None, f"that is not one of this puzzle's choices; choose one of: {labels}")
        assert chosen is not None
        best = max(p["moves"], key=lambda m: m["value"])
        return {"id": p["id"], "right": pz.same(chosen["action"], p["best"]), "chosen": chosen["action"],
                "chosen_label": chosen["label"], "best": p["best"], "best_label": p["best_label"],
                "kind": p["kind"], "moves": sorted(p["moves"], key=lambda m: -m["value"]), "margin": p["margin"],
                "lost": best["value"] - chosen["value"], "thumbs": p["thumbs"], "why": p["why"],
                "details": p["details"], "rating": p["rating"], "curve": p.get("extra", {}).get("curve")}

