"""A live Hog game through the one state interface (:class:`dicelab.core.game.GameState`):
actions ``{"dice": n}``, chance drawn from the state's own seeded generator, JSON round trip."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.game import Action
from dicelab.hog.rules import HogRules


class HogState:
    """Two seats; seat 0 moves first. ``history`` holds every action, so a seed replays the game."""

    def __init__(self, rules: HogRules, seed: int) -> None:
        require(isinstance(seed, int) and seed >= 0, f"seed must be a whole number >= 0, got {seed}")
        self.rules = rules
        self.seed = seed
        self.scores = [0, 0]
        self.mover = 0
        self.winner: int | None = None
        self.history: list[int] = []
        self.last: dict[str, Any] | None = None
        self._rng = np.random.default_rng(seed)

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else (self.mover,)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if self.is_over or (seat is not None and seat != self.mover):
            return []
        return [{"dice": n} for n in range(1, self.rules.max_dice + 1)]

    def _dice(self, action: Action) -> int:
        n = action.get("dice") if isinstance(action, dict) and len(action) == 1 else None
        ok = isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= self.rules.max_dice
        if not ok:
            raise DicelabError(
                f"illegal Hog action {str(action)[:60]!r}; legal: {{\"dice\": n}} with n from 1 "
                f"to {self.rules.max_dice}"
            )
        assert isinstance(n, int)
        return n

    def apply(self, action: Action) -> list[dict[str, Any]]:
        require(not self.is_over, "the game is over; no more moves are allowed")
        n = self._dice(action)
        faces = [int(f) for f in self._rng.integers(1, self.rules.sides + 1, size=n)]
        points = 0 if 1 in faces else sum(faces)
        seat = self.mover
        self.scores[seat] += points
        self.history.append(n)
        event: dict[str, Any] = {"seat": seat, "dice": n, "faces": faces, "points": points,
                                 "scores": list(self.scores)}
        self.last = event
        events = [event]
        if self.scores[seat] >= self.rules.goal:
            self.winner = seat
            events.append({"winner": seat})
        else:
            self.mover = 1 - seat
        return events

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def returns(self) -> tuple[float, ...]:
        if self.winner is None:
            return (0.0, 0.0)
        return (1.0, 0.0) if self.winner == 0 else (0.0, 1.0)

    def observe(self, seat: int) -> dict[str, Any]:
        require(seat in (0, 1), f"seat must be 0 or 1, got {seat}")
        return {"seat": seat, "scores": list(self.scores), "to_move": list(self.to_move()),
                "goal": self.rules.goal, "max_dice": self.rules.max_dice,
                "last": self.last, "winner": self.winner}

    def to_json(self) -> dict[str, Any]:
        return {"game": "hog", "rules": self.rules.to_dict(), "seed": self.seed,
                "history": list(self.history)}


def new_game(rules: HogRules | None = None, seed: int = 0) -> HogState:
    """A new game under ``rules``; ``seed`` fixes every roll.

    >>> s = new_game(HogRules(goal=20), seed=1)
    >>> s.to_move(), len(s.legal_actions())
    ((0,), 10)
    """
    return HogState(rules or HogRules(), seed)


def state_from_json(data: dict[str, Any]) -> HogState:
    """Rebuild a state from :meth:`HogState.to_json` by replaying its actions."""
    try:
        rules = HogRules(**data["rules"])
        state = HogState(rules, data["seed"])
        history = list(data["history"])
    except (KeyError, TypeError) as exc:
        raise DicelabError(f"not a stored Hog game: {str(exc)[:80]}") from None
    for n in history:
        state.apply({"dice": n})
    return state
