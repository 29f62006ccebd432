"""A live Liar's Dice game through the one state interface (:class:`dicelab.core.game.GameState`).

Actions ``{"bid": [quantity, face]}`` and ``"call"`` for the seat to move, on the engine
(:class:`dicelab.liars.rules.LiarsGame`), whose dice come from ``numpy.random.default_rng(seed)``:
the seed and the actions replay a game (the JSON form). :meth:`LiarsState.observe` shows a seat
its own hand only; other hands are shown for rounds already called, never for the live one.
"""

from __future__ import annotations

from typing import Any

from dicelab.core.errors import DicelabError, require
from dicelab.core.game import Action
from dicelab.liars.rules import Bid, GameRecord, LiarsGame, LiarsRules


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class LiarsState:
    """``rules.players`` seats; seat 0 opens round 1, the loser of a round opens the next."""

    def __init__(self, rules: LiarsRules, seed: int) -> None:
        require(_is_int(seed) and seed >= 0, f"seed must be a whole number >= 0, got {seed!r}")
        self.rules = rules
        self.seed = seed
        self.engine = LiarsGame(rules, seed)
        self.history: list[Action] = []

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else (self.engine.to_move,)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        g = self.engine
        if self.is_over or (seat is not None and seat != g.to_move):
            return []
        bids: list[Action] = [{"bid": [b.quantity, b.face]} for b in g.legal_bids()]
        return bids + (["call"] if g.can_call() else [])

    def _bid(self, action: Action) -> Bid | None:
        """The :class:`Bid` an action names (None for a call), or a one-line error."""
        g = self.engine
        if action == "call":
            if not g.can_call():
                raise DicelabError("illegal Liar's Dice action 'call': nobody has bid this round; "
                                   "legal: an opening bid {\"bid\": [quantity, face]}")
            return None
        qf = action.get("bid") if isinstance(action, dict) and len(action) == 1 else None
        if isinstance(qf, (list, tuple)) and len(qf) == 2 and all(_is_int(x) for x in qf):
            bid = Bid(int(qf[0]), int(qf[1])) if min(qf) >= 1 else None
            if bid is not None and bid.face <= self.rules.faces and bid.quantity <= g.dice_on_table \
                    and bid.beats(g.current_bid):
                return bid
        over = f" raising {g.current_bid}" if g.current_bid is not None else ""
        raise DicelabError(
            f"illegal Liar's Dice action {str(action)[:60]!r}; legal: {{\"bid\": [quantity, face]}}"
            f"{over} with quantity at most {g.dice_on_table} and face 1 to {self.rules.faces}"
            + (", or 'call'" if g.can_call() else "")
        )

    def apply(self, action: Action) -> list[dict[str, Any]]:
        require(not self.is_over, "the game is over; no more moves are allowed")
        bid = self._bid(action)
        g = self.engine
        seat = g.to_move
        rec = g.apply(bid, seat)
        self.history.append("call" if bid is None else {"bid": [bid.quantity, bid.face]})
        if rec is None:
            assert bid is not None
            return [{"seat": seat, "bid": [bid.quantity, bid.face]}]
        events: list[dict[str, Any]] = [{
            "seat": seat, "action": "call", "bid": [rec.bid.quantity, rec.bid.face],
            "bidder": rec.bidder, "matched": rec.matched, "loser": rec.loser,
            "hands": [list(h) for h in rec.hands],
        }]
        if g.is_over:
            events.append({"winner": g.winner})
        else:
            events.append({"round": len(g.record.rounds) + 1, "starter": g.to_move,
                           "dice_counts": list(g.dice_counts)})
        return events

    @property
    def is_over(self) -> bool:
        return self.engine.is_over

    def record(self) -> GameRecord:
        """The finished game's whole record (every round's hands): public only once it is over."""
        require(self.is_over, "the game's record is shown only once the game is over")
        return self.engine.record

    def returns(self) -> tuple[float, ...]:
        w = self.engine.winner
        return tuple(1.0 if s == w else 0.0 for s in range(self.rules.players))

    def observe(self, seat: int) -> dict[str, Any]:
        n = self.rules.players
        require(_is_int(seat) and 0 <= seat < n, f"seat must be from 0 to {n - 1}, got {seat!r}")
        g = self.engine
        bid = g.current_bid
        return {
            "seat": seat,
            "hand": [] if self.is_over else list(g.hands[seat]),
            "dice_counts": list(g.dice_counts),
            "to_move": list(self.to_move()),
            "bid": None if bid is None else [bid.quantity, bid.face],
            "bidder": g.bidder,
            "actions": [a.to_dict() for a in g.view(seat).history] if not self.is_over else [],
            "rounds": [r.to_dict() for r in g.record.rounds],  # called rounds: hands shown
            "winner": g.winner,
        }

    def to_json(self) -> dict[str, Any]:
        return {"game": "liars", "rules": self.rules.to_dict(), "seed": self.seed,
                "history": list(self.history)}


def new_game(rules: LiarsRules | None = None, seed: int = 0) -> LiarsState:
    """A new game under ``rules``; ``seed`` fixes every hand.

    >>> s = new_game(LiarsRules(players=2, dice=1, faces=6), seed=1)
    >>> s.to_move(), len(s.legal_actions()), len(s.observe(0)["hand"])
    ((0,), 12, 1)
    """
    return LiarsState(rules or LiarsRules(), seed)


def state_from_json(data: dict[str, Any]) -> LiarsState:
    """Rebuild a state from :meth:`LiarsState.to_json` by replaying its actions."""
    try:
        require(data.get("game", "liars") == "liars",
                f"not a stored Liar's Dice game: game is {data.get('game')!r}")
        state = LiarsState(LiarsRules(**data["rules"]), data["seed"])
        history = list(data["history"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise DicelabError(f"not a stored Liar's Dice game: {str(exc)[:80]}") from None
    for action in history:
        state.apply(action)
    return state
