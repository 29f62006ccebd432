"""A live simultaneous Pig game through the one state interface
(:class:`dicelab.core.game.GameState`).

Every turn is one simultaneous move: :meth:`SimPigState.to_move` is every seat, and
:meth:`SimPigState.apply` takes all their hold-at targets at once,
``{"0": {"target": k0}, "1": {"target": k1}, ...}``. Each seat then rolls toward its target in
seat order, die by die from ``numpy.random.default_rng(seed)`` exactly as the engine
(:meth:`dicelab.simpig.rules.SimPigGame.roll_turn`) does, so a seed and the targets replay a game.
Players at or above the goal after a turn share the win.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.game import Action
from dicelab.simpig.rules import SIDES, SimPigRules


def roll_faces(k: int, rng: np.random.Generator) -> list[int]:
    """The faces one player rolls holding at ``k`` (the same draws as ``SimPigGame.roll_turn``)."""
    faces: list[int] = []
    total = 0
    while total < k:
        face = int(rng.integers(1, SIDES + 1))
        faces.append(face)
        if face == 1:
            break
        total += face
    return faces


class SimPigState:
    """``rules.players`` seats choosing hold-at targets at once; ``history`` holds every turn's targets."""

    def __init__(self, rules: SimPigRules, seed: int) -> None:
        require(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0,
                f"seed must be a whole number >= 0, got {seed!r}")
        self.rules = rules
        self.seed = seed
        self.scores = [0] * rules.players
        self.turns = 0
        self.result: tuple[float, ...] | None = None
        self.history: list[list[int]] = []
        self.last: list[dict[str, Any]] | None = None
        self._rng = np.random.default_rng(seed)

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else tuple(range(self.rules.players))

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if seat is None:
            if self.is_over:
                return []
            raise DicelabError("every seat moves at once in simultaneous Pig: name the seat")
        self._check_seat(seat)
        if self.is_over:
            return []
        return [{"target": k} for k in range(1, self.rules.goal - self.scores[seat] + 1)]

    def _check_seat(self, seat: Any) -> None:
        n = self.rules.players
        ok = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n
        require(ok, f"seat must be from 0 to {n - 1}, got {seat!r}")

    def _targets(self, action: Action) -> list[int]:
        n, goal = self.rules.players, self.rules.goal
        form = (f'legal: {{"0": {{"target": k0}}, ..., "{n - 1}": {{"target": k{n - 1}}}}}, '
                f"one target per seat with 1 <= k <= {goal} - that seat's score")
        keys = [str(p) for p in range(n)]
        if not isinstance(action, dict) or sorted(action) != sorted(keys):
            raise DicelabError(f"illegal simultaneous Pig move {str(action)[:60]!r}; {form}")
        targets = []
        for p, key in enumerate(keys):
            a = action[key]
            k = a.get("target") if isinstance(a, dict) and len(a) == 1 else None
            top = goal - self.scores[p]
            if not (isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= top):
                raise DicelabError(f"illegal action for seat {p}: {str(a)[:40]!r}; legal: "
                                   f'{{"target": k}} with k from 1 to {top} (score {self.scores[p]})')
            targets.append(k)
        return targets

    def apply(self, action: Action) -> list[dict[str, Any]]:
        require(not self.is_over, "the game is over; no more moves are allowed")
        targets = self._targets(action)
        events: list[dict[str, Any]] = []
        for seat, k in enumerate(targets):
            faces = roll_faces(k, self._rng)
            total = 0 if faces[-1] == 1 else sum(faces)
            events.append({"seat": seat, "target": k, "faces": faces, "total": total})
        for e in events:
            self.scores[e["seat"]] += e["total"]
        self.turns += 1
        self.history.append(targets)
        self.last = [dict(e) for e in events]
        events.append({"scores": list(self.scores), "turn": self.turns})
        self.result = self.rules.payoff(self.scores)
        if self.result is not None:
            events.append({"shares": list(self.result)})
        return events

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def returns(self) -> tuple[float, ...]:
        return self.result if self.result is not None else (0.0,) * self.rules.players

    def observe(self, seat: int) -> dict[str, Any]:
        self._check_seat(seat)
        return {"seat": seat, "scores": list(self.scores), "turn": self.turns,
                "goal": self.rules.goal, "to_move": list(self.to_move()), "last": self.last,
                "shares": None if self.result is None else list(self.result)}

    def to_json(self) -> dict[str, Any]:
        return {"game": "simpig", "rules": self.rules.to_dict(), "seed": self.seed,
                "history": [list(t) for t in self.history]}


def new_game(rules: SimPigRules | None = None, seed: int = 0) -> SimPigState:
    """A new game under ``rules``; ``seed`` fixes every roll.

    >>> s = new_game(SimPigRules(goal=20, players=3), seed=1)
    >>> s.to_move(), len(s.legal_actions(2))
    ((0, 1, 2), 20)
    """
    return SimPigState(rules or SimPigRules(), seed)


def state_from_json(data: dict[str, Any]) -> SimPigState:
    """Rebuild a state from :meth:`SimPigState.to_json` by replaying every turn's targets."""
    try:
        require(data.get("game", "simpig") == "simpig",
                f"not a stored simultaneous Pig game: game is {data.get('game')!r}")
        state = SimPigState(SimPigRules(**data["rules"]), data["seed"])
        moves = [{str(p): {"target": k} for p, k in enumerate(t)} for t in data["history"]]
    except (KeyError, TypeError, AttributeError) as exc:
        raise DicelabError(f"not a stored simultaneous Pig game: {str(exc)[:80]}") from None
    for move in moves:
        state.apply(move)
    return state
