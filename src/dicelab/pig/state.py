"""A live Pig game through the one state interface (:class:`dicelab.core.game.GameState`).

Actions ``"roll"`` and ``"hold"`` for the seat to move; the dice come from the engine
(:class:`dicelab.pig.rules.PigGame`) driven by ``numpy.random.default_rng(seed)``, so a seed and
the list of actions replay a whole game, which is what the JSON form stores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.game import Action
from dicelab.pig.rules import PigGame, PigRules

ACTIONS = ("roll", "hold")


class PigState:
    """``rules.players`` seats (two unless the rules say more); seat 0 moves first. ``history`` holds every action, so a seed replays the game."""

    def __init__(self, rules: PigRules, seed: int) -> None:
        require(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0,
                f"seed must be a whole number >= 0, got {seed!r}")
        self.rules = rules
        self.seed = seed
        self.engine = PigGame(rules, np.random.default_rng(seed))
        self.history: list[str] = []
        self.last: dict[str, Any] | None = None

    @property
    def scores(self) -> list[int]:
        return list(self.engine.scores)

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else (self.engine.to_move,)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if self.is_over or (seat is not None and seat != self.engine.to_move):
            return []
        if self.rules.players > 2 and self.engine.turn_total == 0:
            return ["roll"]  # with three or more players a turn total of 0 must roll
        return list(ACTIONS)

    def apply(self, action: Action) -> list[dict[str, Any]]:
        require(not self.is_over, "the game is over; no more moves are allowed")
        legal = self.legal_actions()
        if not isinstance(action, str) or action not in legal:
            raise DicelabError(f"illegal Pig action {str(action)[:60]!r}; legal: {' or '.join(map(repr, legal))}")
        g = self.engine
        seat = g.to_move
        if action == "roll":
            g.roll()
            rec = g.history[-1]
            event: dict[str, Any] = {"seat": seat, "action": "roll", "faces": list(rec["faces"]),
                                     "result": rec["result"]}
            self.last = {"seat": seat, "faces": list(rec["faces"]), "result": rec["result"]}
        else:
            g.hold()
            event = {"seat": seat, "action": "hold"}
        event.update(scores=list(g.scores), turn_total=g.turn_total)
        self.history.append(action)
        events = [event]
        if g.winner is not None:
            events.append({"winner": g.winner})
        return events

    @property
    def is_over(self) -> bool:
        return self.engine.winner is not None

    def returns(self) -> tuple[float, ...]:
        w = self.engine.winner
        return tuple(1.0 if s == w else 0.0 for s in range(self.rules.players))

    def observe(self, seat: int) -> dict[str, Any]:
        n = self.rules.players
        require(isinstance(seat, int) and 0 <= seat < n, f"seat must be from 0 to {n - 1}, got {seat!r}")
        g = self.engine
        return {"seat": seat, "scores": list(g.scores), "turn_total": g.turn_total,
                "turn_rolls": [list(f) for f in g.turn_rolls], "last": self.last,
                "to_move": list(self.to_move()), "goal": self.rules.goal, "winner": g.winner}

    def to_json(self) -> dict[str, Any]:
        return {"game": "pig", "rules": self.rules.to_dict(), "seed": self.seed,
                "history": list(self.history)}


def new_game(rules: PigRules | None = None, seed: int = 0) -> PigState:
    """A new game under ``rules``; ``seed`` fixes every roll.

    >>> s = new_game(PigRules(goal=20), seed=1)
    >>> s.to_move(), s.legal_actions()
    ((0,), ['roll', 'hold'])
    """
    return PigState(rules or PigRules(), seed)


def state_from_json(data: dict[str, Any]) -> PigState:
    """Rebuild a state from :meth:`PigState.to_json` by replaying its actions."""
    try:
        require(data.get("game", "pig") == "pig", f"not a stored Pig game: game is {data.get('game')!r}")
        state = PigState(PigRules(**data["rules"]), data["seed"])
        history = list(data["history"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise DicelabError(f"not a stored Pig game: {str(exc)[:80]}") from None
    for action in history:
        state.apply(action)
    return state
