"""A live Super Six game through the one state interface (:class:`dicelab.core.game.GameState`).

Actions ``"throw"`` and ``"stop"`` for the seat to move; a forced throw (round 1, and the first
throw of every later turn) has ``legal_actions() == ["throw"]``. Each throw is the engine's step
primitive (:meth:`dicelab.supersix.rules.SuperSixGame.throw`) with its generator
``numpy.random.default_rng(seed)``, so the same seed and actions replay the game (the JSON form).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.game import Action
from dicelab.supersix.rules import PITS, SuperSixGame, SuperSixRules


def _never(lid: int, own: int, others: tuple[int, ...]) -> bool:
    return False  # the engine's strategies are unused: the state is stepped from outside


class SuperSixState:
    """Any number of seats; seat 0 throws first and round 1 is one forced throw each."""

    def __init__(self, rules: SuperSixRules, seed: int) -> None:
        require(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0,
                f"seed must be a whole number >= 0, got {seed!r}")
        self.rules = rules
        self.seed = seed
        self.engine = SuperSixGame(rules, [_never] * rules.players, np.random.default_rng(seed),
                                   record=True)
        self.pits = [False] * PITS
        self.counts = [rules.sticks] * rules.players
        self.mover = 0
        self.forced = True
        self.opening = True
        self.winner: int | None = None
        self.history: list[str] = []
        self.last: dict[str, Any] | None = None

    @property
    def lid(self) -> int:
        return sum(self.pits)

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else (self.mover,)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if self.is_over or (seat is not None and seat != self.mover):
            return []
        return ["throw"] if self.forced else ["throw", "stop"]

    def _next_turn(self) -> None:
        self.mover = (self.mover + 1) % self.rules.players
        self.forced = True

    def apply(self, action: Action) -> list[dict[str, Any]]:
        require(not self.is_over, "the game is over; no more moves are allowed")
        legal = self.legal_actions()
        if not isinstance(action, str) or action not in legal:
            why = " (this throw is forced)" if self.forced and action == "stop" else ""
            raise DicelabError(f"illegal Super Six action {str(action)[:60]!r}{why}; legal: "
                               + " or ".join(repr(a) for a in legal))
        seat = self.mover
        self.history.append(action)
        if action == "stop":
            self._next_turn()
            return [{"seat": seat, "action": "stop"}]
        won, over = self.engine.throw(seat, self.pits, self.counts)
        move = self.engine.moves[-1]
        event: dict[str, Any] = {"seat": seat, "action": "throw", "die": move.die, "lid": self.lid,
                                 "counts": list(self.counts), "turn_over": over}
        self.last = {"seat": seat, "die": move.die}
        events = [event]
        if won:
            self.winner = seat
            events.append({"winner": seat})
        elif self.opening:  # round 1: one throw each, then seat 0 starts round 2 (forced)
            if seat == self.rules.players - 1:
                self.opening = False
            self._next_turn()
        elif over:
            self._next_turn()
        else:
            self.forced = False
        return events

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def returns(self) -> tuple[float, ...]:
        return tuple(1.0 if s == self.winner else 0.0 for s in range(self.rules.players))

    def observe(self, seat: int) -> dict[str, Any]:
        n = self.rules.players
        require(isinstance(seat, int) and 0 <= seat < n, f"seat must be from 0 to {n - 1}, got {seat!r}")
        return {"seat": seat, "pits": list(self.pits), "lid": self.lid, "counts": list(self.counts),
                "to_move": list(self.to_move()), "forced": self.forced, "opening": self.opening,
                "last": self.last, "winner": self.winner}

    def to_json(self) -> dict[str, Any]:
        return {"game": "supersix", "rules": self.rules.to_dict(), "seed": self.seed,
                "history": list(self.history)}


def new_game(rules: SuperSixRules | None = None, seed: int = 0) -> SuperSixState:
    """A new game under ``rules``; ``seed`` fixes every throw.

    >>> s = new_game(SuperSixRules(sticks=4), seed=1)
    >>> s.to_move(), s.legal_actions()
    ((0,), ['throw'])
    """
    return SuperSixState(rules or SuperSixRules(), seed)


def state_from_json(data: dict[str, Any]) -> SuperSixState:
    """Rebuild a state from :meth:`SuperSixState.to_json` by replaying its actions."""
    try:
        require(data.get("game", "supersix") == "supersix",
                f"not a stored Super Six game: game is {data.get('game')!r}")
        state = SuperSixState(SuperSixRules(**data["rules"]), data["seed"])
        history = list(data["history"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise DicelabError(f"not a stored Super Six game: {str(exc)[:80]}") from None
    for action in history:
        state.apply(action)
    return state
