"""Liar's Dice: rules as data, bid legality, and a replayable game engine.

The game (seed 004 and issue 6). ``players`` players (2 to 8) start with ``dice`` dice each, every
die with ``faces`` faces. Each *round* everybody rolls in secret. Starting with the player who lost
the last round (round 1: player 0, "player 1" in the seed), players in turn either

* **raise** the bid ``(quantity, face)``: "there are at least ``quantity`` dice showing ``face`` on
  the table". A raise is a higher quantity with any face, or the same quantity with a higher face
  (OpenSpiel's ``reset-face`` order: bids are ranked ``(quantity - 1) * faces + (face - 1)``);
  the quantity may not exceed the number of dice on the table; or
* **call** the last bid a lie (not allowed before the first bid of a round).

On a call all dice are shown. If at least ``quantity`` dice match ``face`` the caller loses a die,
otherwise the bidder does. A player with no dice is out; the last player with dice wins.

Wild faces (``LiarsRules.wild``):

``"none"``
    a die matches only its own face;
``"ones"``
    a die showing 1 matches every face (a bid on 1s counts only the 1s);
``"highest"``
    a die showing ``faces`` matches every face, as in OpenSpiel's ``liars_dice``.

Every game is driven by a seeded :class:`numpy.random.Generator`, and :class:`GameRecord` keeps
the seed, every hand and every action, so :func:`replay` can re-run and check any game.
An illegal action is a :class:`~dicelab.core.errors.DicelabError`; nothing is ever silently fixed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from dicelab.core.errors import DicelabError, require

WILDS: tuple[str, ...] = ("none", "ones", "highest")
MAX_PLAYERS = 8
MAX_DICE = 20
MAX_FACES = 20


@dataclass(frozen=True, order=True)
class Bid:
    """A claim "at least ``quantity`` dice show ``face``". Ordered as raises are: quantity, then face."""

    quantity: int
    face: int

    def __post_init__(self) -> None:
        require(
            isinstance(self.quantity, (int, np.integer)) and self.quantity >= 1,
            f"a bid's quantity must be a whole number of at least 1, got {self.quantity}",
        )
        require(
            isinstance(self.face, (int, np.integer)) and self.face >= 1,
            f"a bid's face must be a whole number of at least 1, got {self.face}",
        )
        object.__setattr__(self, "quantity", int(self.quantity))
        object.__setattr__(self, "face", int(self.face))

    def beats(self, other: Bid | None) -> bool:
        """True if this bid is a legal raise over ``other`` (any bid beats no bid)."""
        if other is None:
            return True
        return (self.quantity, self.face) > (other.quantity, other.face)

    def rank(self, faces: int) -> int:
        """OpenSpiel's bid index: ``(quantity - 1) * faces + (face - 1)``."""
        return (self.quantity - 1) * faces + (self.face - 1)

    @classmethod
    def from_rank(cls, rank: int, faces: int) -> Bid:
        return cls(rank // faces + 1, rank % faces + 1)

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Parse ``"3x5"``, ``"3 5"`` or ``"3,5"`` (three fives)."""
        m = re.fullmatch(r"\s*([0-9]{1,4})\s*[xX, ]\s*([0-9]{1,4})\s*", text)
        if not m:
            raise DicelabError(
                f"a bid is QUANTITYxFACE such as 3x5 (three fives), got {text[:40]!r}"
            )
        return cls(int(m.group(1)), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"


@dataclass(frozen=True)
class LiarsRules:
    """The rules of a Liar's Dice game.

    >>> LiarsRules().players, LiarsRules().dice, LiarsRules().faces, LiarsRules().wild
    (4, 6, 6, 'none')
    >>> LiarsRules(wild="highest").wild_face
    6
    """

    players: int = 4
    dice: int = 6
    faces: int = 6
    wild: str = "none"

    def __post_init__(self) -> None:
        require(
            isinstance(self.players, (int, np.integer)) and 2 <= self.players <= MAX_PLAYERS,
            f"players must be a whole number from 2 to {MAX_PLAYERS}, got {self.players}",
        )
        require(
            isinstance(self.dice, (int, np.integer)) and 1 <= self.dice <= MAX_DICE,
            f"dice per player must be a whole number from 1 to {MAX_DICE}, got {self.dice}",
        )
        require(
            isinstance(self.faces, (int, np.integer)) and 2 <= self.faces <= MAX_FACES,
            f"faces must be a whole number from 2 to {MAX_FACES}, got {self.faces}",
        )
        require(self.wild in WILDS, f"unknown wild option {self.wild!r}; choose one of {', '.join(WILDS)}")
        for name in ("players", "dice", "faces"):
            object.__setattr__(self, name, int(getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def total_dice(self) -> int:
        """Dice on the table at the start of the game."""
        return self.players * self.dice

    @property
    def wild_face(self) -> int:
        """The wild face (0 when nothing is wild)."""
        return {"none": 0, "ones": 1, "highest": self.faces}[self.wild]

    @property
    def wild_code(self) -> int:
        """0 none, 1 ones, 2 highest (for the compiled kernels)."""
        return WILDS.index(self.wild)

    def matches(self, die: int, face: int) -> bool:
        """Whether a die showing ``die`` counts toward a bid on ``face``."""
        return die == face or (die == self.wild_face and self.wild_face != 0)

    def count(self, dice: Sequence[int], face: int) -> int:
        """How many of ``dice`` count toward a bid on ``face`` (wild dice included)."""
        return sum(1 for d in dice if self.matches(int(d), face))

    def match_probability(self, face: int) -> float:
        """Chance that one unseen die counts toward a bid on ``face``."""
        if self.wild_face == 0 or face == self.wild_face:
            return 1.0 / self.faces
        return 2.0 / self.faces

    def prob_at_least(self, needed: int, unseen: int, face: int) -> float:
        """P(X >= needed) for X ~ Binomial(unseen, match_probability(face)) (1 when needed <= 0)."""
        if needed <= 0:
            return 1.0
        if needed > unseen:
            return 0.0
        p = self.match_probability(face)
        return float(sum(math.comb(unseen, k) * p**k * (1 - p) ** (unseen - k) for k in range(needed, unseen + 1)))

    def check_bid(self, bid: Bid, previous: Bid | None, dice_on_table: int) -> None:
        """Raise a one-line :class:`DicelabError` unless ``bid`` is a legal raise over ``previous``."""
        require(
            1 <= bid.face <= self.faces,
            f"bid {bid}: face must be from 1 to {self.faces}, got {bid.face}",
        )
        require(
            bid.quantity <= dice_on_table,
            f"bid {bid}: quantity must be at most the {dice_on_table} dice on the table, got {bid.quantity}",
        )
        if previous is not None and not bid.beats(previous):
            raise DicelabError(
                f"bid {bid} does not raise {previous}: bid a higher quantity, or the same quantity "
                "with a higher face"
            )

    def max_bid(self, dice_on_table: int) -> Bid:
        return Bid(dice_on_table, self.faces)


@dataclass(frozen=True)
class Action:
    """One move: ``bid`` is None for a call."""

    player: int
    bid: Bid | None

    @property
    def is_call(self) -> bool:
        return self.bid is None

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "bid": None if self.bid is None else [self.bid.quantity, self.bid.face]}


@dataclass(frozen=True)
class RoundRecord:
    """Everything that happened in one round."""

    hands: tuple[tuple[int, ...], ...]  # sorted hand of every player (empty when out)
    actions: tuple[Action, ...]
    bid: Bid  # the bid that was called
    bidder: int
    caller: int
    matched: int  # dice matching the called bid
    loser: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "actions": [a.to_dict() for a in self.actions],
            "bid": [self.bid.quantity, self.bid.face],
            "bidder": self.bidder,
            "caller": self.caller,
            "matched": self.matched,
            "loser": self.loser,
        }


@dataclass
class GameRecord:
    """A full game: the rules, the seed of the dice, every round; enough for :func:`replay`."""

    rules: LiarsRules
    seed: int | None
    rounds: list[RoundRecord] = field(default_factory=list)
    winner: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "rounds": [r.to_dict() for r in self.rounds],
            "winner": self.winner,
        }


class LiarsGame:
    """A game in progress. Call :meth:`bid` or :meth:`call` for the player to move.

    The dice come from ``numpy.random.default_rng(seed)``: each round rolls, in player order, the
    dice of every player still in, so the same seed and the same actions give the same game.
    """

    def __init__(self, rules: LiarsRules, seed: int | None = None) -> None:
        self.rules = rules
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self.dice_counts: list[int] = [rules.dice] * rules.players
        self.record = GameRecord(rules, seed)
        self.hands: tuple[tuple[int, ...], ...] = ()
        self.current_bid: Bid | None = None
        self.bidder: int | None = None
        self.to_move = 0
        self._actions: list[Action] = []
        self._start_round(0)

    # -- state ---------------------------------------------------------------------------------
    @property
    def dice_on_table(self) -> int:
        return sum(self.dice_counts)

    @property
    def active(self) -> list[int]:
        return [p for p, n in enumerate(self.dice_counts) if n > 0]

    @property
    def is_over(self) -> bool:
        return len(self.active) <= 1

    @property
    def winner(self) -> int | None:
        return self.active[0] if self.is_over else None

    def next_player(self, p: int) -> int:
        """The next player after ``p`` (clockwise) who still has dice."""
        n = self.rules.players
        for k in range(1, n + 1):
            q = (p + k) % n
            if self.dice_counts[q] > 0:
                return q
        raise DicelabError("no player has dice left")

    def can_call(self) -> bool:
        return self.current_bid is not None and not self.is_over

    def legal_bids(self) -> list[Bid]:
        """Every legal raise, lowest first."""
        out = []
        for q in range(1, self.dice_on_table + 1):
            for f in range(1, self.rules.faces + 1):
                b = Bid(q, f)
                if b.beats(self.current_bid):
                    out.append(b)
        return out

    # -- moves ---------------------------------------------------------------------------------
    def _start_round(self, starter: int) -> None:
        hands = []
        for n in self.dice_counts:
            roll = self._rng.integers(1, self.rules.faces + 1, size=n) if n > 0 else np.zeros(0, np.int64)
            hands.append(tuple(sorted(int(x) for x in roll)))
        self.hands = tuple(hands)
        self.current_bid = None
        self.bidder = None
        self.to_move = starter
        self._actions = []

    def _check_turn(self, player: int | None) -> None:
        require(not self.is_over, "the game is over; no more moves")
        if player is not None and player != self.to_move:
            raise DicelabError(f"it is player {self.to_move}'s turn, not player {player}'s")

    def bid(self, bid: Bid, player: int | None = None) -> None:
        """The player to move raises to ``bid`` (a :class:`DicelabError` if it is not a legal raise)."""
        self._check_turn(player)
        self.rules.check_bid(bid, self.current_bid, self.dice_on_table)
        self._actions.append(Action(self.to_move, bid))
        self.current_bid = bid
        self.bidder = self.to_move
        self.to_move = self.next_player(self.to_move)

    def call(self, player: int | None = None) -> RoundRecord:
        """The player to move calls the last bid a lie; the round is scored and the next one dealt."""
        self._check_turn(player)
        if self.current_bid is None or self.bidder is None:
            raise DicelabError("cannot call before anybody has bid this round; make the opening bid")
        caller = self.to_move
        bid = self.current_bid
        self._actions.append(Action(caller, None))
        matched = sum(self.rules.count(h, bid.face) for h in self.hands)
        loser = caller if matched >= bid.quantity else self.bidder
        rec = RoundRecord(self.hands, tuple(self._actions), bid, self.bidder, caller, matched, loser)
        self.record.rounds.append(rec)
        self.dice_counts[loser] -= 1
        if self.is_over:
            self.record.winner = self.winner
            self.current_bid = None
            self._actions = []
            return rec
        starter = loser if self.dice_counts[loser] > 0 else self.next_player(loser)
        self._start_round(starter)
        return rec

    def apply(self, bid: Bid | None, player: int | None = None) -> RoundRecord | None:
        """Apply an action: a :class:`Bid`, or None for a call."""
        if bid is None:
            return self.call(player)
        self.bid(bid, player)
        return None

    def view(self, player: int) -> PlayerView:
        """What ``player`` can see: own hand, everybody's dice counts, the bids so far this round."""
        return PlayerView(
            rules=self.rules,
            player=player,
            hand=self.hands[player],
            dice_counts=tuple(self.dice_counts),
            current_bid=self.current_bid,
            history=tuple(self._actions),
        )


@dataclass(frozen=True)
class PlayerView:
    """The information a player has when deciding."""

    rules: LiarsRules
    player: int
    hand: tuple[int, ...]
    dice_counts: tuple[int, ...]
    current_bid: Bid | None
    history: tuple[Action, ...]

    @property
    def dice_on_table(self) -> int:
        return sum(self.dice_counts)

    def prob_bid_holds(self, bid: Bid | None = None) -> float:
        """P(X >= x): the chance ``bid`` (default: the current bid) holds, given this hand."""
        b = self.current_bid if bid is None else bid
        if b is None:
            return 1.0
        own = len(self.hand)
        needed = b.quantity - self.rules.count(self.hand, b.face)
        return self.rules.prob_at_least(needed, self.dice_on_table - own, b.face)


# A policy maps what a player sees (and a random source) to a bid, or None for a call.
Policy = Callable[[PlayerView, np.random.Generator], Bid | None]


def play_game(
    rules: LiarsRules,
    policies: Sequence[Policy],
    seed: int | None = None,
    max_actions: int = 1_000_000,
) -> GameRecord:
    """Play a full game with one policy per seat. Dice use ``seed``; policies use a stream spawned from it.

    An illegal move by a policy is a :class:`DicelabError` naming the player.
    """
    require(
        len(policies) == rules.players,
        f"need one policy per player ({rules.players}), got {len(policies)}",
    )
    game = LiarsGame(rules, seed)
    policy_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0] if seed is not None else None)
    for _ in range(max_actions):
        if game.is_over:
            return game.record
        p = game.to_move
        action = policies[p](game.view(p), policy_rng)
        try:
            game.apply(action, p)
        except DicelabError as exc:
            raise DicelabError(f"player {p} made an illegal move: {exc}") from None
    raise DicelabError(f"the game did not end within {max_actions} actions")


def replay(record: GameRecord) -> LiarsGame:
    """Re-run a recorded game from its seed and actions, checking every hand and outcome.

    Raises :class:`DicelabError` if the record does not match what its seed and actions give.
    """
    game = LiarsGame(record.rules, record.seed)
    for i, rnd in enumerate(record.rounds):
        if game.hands != rnd.hands:
            raise DicelabError(f"round {i + 1}: the seed deals different hands than the record holds")
        out = None
        for a in rnd.actions:
            out = game.apply(a.bid, a.player)
        if out is None or out.loser != rnd.loser or out.matched != rnd.matched:
            raise DicelabError(f"round {i + 1}: replaying the actions gives a different outcome")
    if game.winner != record.winner:
        raise DicelabError("replaying the record gives a different winner")
    return game
