"""Super Six, the stick-and-lid dice game (seed 001; Jehn, arXiv 2109.10700).

The equipment is a lid with five pits numbered 1 to 5 and a hole marked 6, one die, and sticks.
Every player starts with ``sticks`` sticks (4 by default). A throw of the die does this:

* **6**: the thrower puts one of their sticks into the hole; it leaves the game.
* **1 to 5 on an empty pit**: the thrower puts one of their sticks into that pit.
* **1 to 5 on a filled pit**: the thrower takes that stick; their turn ends at once.

In round 1 every player throws exactly once, in seat order. After that a player's turn starts
with a *forced* throw; after every throw that does not end the turn the player may throw again or
stop. The first player with no sticks left wins, at once.

With ``lid`` sticks in the pits, a throw is a 6 with probability 1/6, hits an empty pit with
probability (5 - lid)/6 and a filled one with probability lid/6 — which pit does not matter, so a
position is fully described by the lid count, the stick counts in turn order starting with the
mover, and whether the next throw is forced. Seed 001 writes two-player positions as
``i/j/k/l``: lid count, mover's sticks, opponent's sticks, forced flag.

This module is pure rules: :class:`SuperSixRules`, state validation, the round-1 outcome
distribution and a game engine (:class:`SuperSixGame`) for any number of players with pluggable
strategies. A *strategy* is any callable ``decide(lid, own, others) -> bool`` answering "throw
again?" for a non-forced position, where ``others`` holds the other players' stick counts in turn
order (the next player first).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dicelab.core.errors import require

PITS = 5
"""Pits in the lid, numbered 1 to 5; a 6 goes into the hole."""
MAX_STICKS = 60
MAX_PLAYERS = 10
MAX_GAMES = 10_000_000  # simulated games in one call

Decide = Callable[[int, int, tuple[int, ...]], bool]
"""A strategy: ``decide(lid, own, others) -> True`` to throw again, ``False`` to stop."""


@dataclass(frozen=True)
class SuperSixRules:
    """The rules of one Super Six game: sticks per player and number of players.

    >>> SuperSixRules().sticks, SuperSixRules().players
    (4, 2)
    >>> SuperSixRules(sticks=0)
    Traceback (most recent call last):
    ...
    dicelab.core.errors.DicelabError: sticks must be a whole number from 1 to 60, got 0
    """

    sticks: int = 4
    players: int = 2

    def __post_init__(self) -> None:
        require(
            isinstance(self.sticks, int) and not isinstance(self.sticks, bool)
            and 1 <= self.sticks <= MAX_STICKS,
            f"sticks must be a whole number from 1 to {MAX_STICKS}, got {self.sticks}",
        )
        require(
            isinstance(self.players, int) and not isinstance(self.players, bool)
            and 2 <= self.players <= MAX_PLAYERS,
            f"players must be a whole number from 2 to {MAX_PLAYERS}, got {self.players}",
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def total(self) -> int:
        """Sticks in play at the start: ``players * sticks`` (the lid total never exceeds it)."""
        return self.players * self.sticks

    def check_state(self, lid: int, counts: Sequence[int], forced: bool | int = False) -> None:
        """Raise a one-line :class:`DicelabError` unless this is a position of the game.

        ``counts`` holds every player's sticks in turn order, the mover first. A position has
        0 to 5 sticks in the lid, every player holds at least one stick (a player with none has
        already won), and no more sticks are in play than the game started with.
        """
        require(
            len(counts) == self.players,
            f"a position lists {self.players} stick counts (one per player), got {len(counts)}",
        )
        require(
            isinstance(lid, (int, np.integer)) and 0 <= lid <= PITS,
            f"lid count must be from 0 to {PITS} (the lid has {PITS} pits), got {lid}",
        )
        for n, c in enumerate(counts):
            require(
                isinstance(c, (int, np.integer)) and c >= 0,
                f"stick counts must be non-negative whole numbers, got {c} for player {n + 1}",
            )
        for n, c in enumerate(counts):
            require(c >= 1, f"player {n + 1} has no sticks left: the game is already over")
        total = int(lid) + sum(int(c) for c in counts)
        require(
            total <= self.total,
            f"lid plus sticks must be at most {self.total} ({self.players} x {self.sticks} sticks), "
            f"got {total}",
        )
        require(forced in (0, 1, True, False), f"forced must be 0 or 1, got {forced}")

    def throw_probabilities(self, lid: int) -> tuple[Fraction, Fraction, Fraction]:
        """(P(six), P(empty pit), P(filled pit)) for one throw with ``lid`` sticks in the pits."""
        return Fraction(1, 6), Fraction(PITS - lid, 6), Fraction(lid, 6)

    def opening(self) -> list[tuple[Fraction, int, tuple[int, ...], int | None]]:
        """The outcomes of round 1, where every player throws exactly once in seat order.

        Returns ``(probability, lid, counts, winner)`` tuples: ``counts`` in seat order (seat 0
        first, who then starts round 2 with a forced throw), ``winner`` the seat that ran out of
        sticks during round 1 (only possible with one stick each) or ``None``. With 4 sticks and 2
        players this is seed 001's list: 0/3/3 (1/36), 1/3/3 (10/36), 2/3/3 (20/36), 0/3/5 (5/36).
        """
        dist: dict[tuple[int, tuple[int, ...], int | None], Fraction] = {
            (0, (self.sticks,) * self.players, None): Fraction(1)
        }
        for seat in range(self.players):
            nxt: dict[tuple[int, tuple[int, ...], int | None], Fraction] = {}
            for (lid, counts, winner), p in dist.items():
                if winner is not None:
                    nxt[(lid, counts, winner)] = nxt.get((lid, counts, winner), Fraction(0)) + p
                    continue
                six, empty, filled = self.throw_probabilities(lid)
                for q, dlid, dc in ((six, 0, -1), (empty, 1, -1), (filled, -1, 1)):
                    if q == 0:
                        continue
                    c = list(counts)
                    c[seat] += dc
                    key = (lid + dlid, tuple(c), seat if c[seat] == 0 else None)
                    nxt[key] = nxt.get(key, Fraction(0)) + p * q
            dist = nxt
        return [(p, lid, counts, w) for (lid, counts, w), p in sorted(dist.items(), key=str)]


@dataclass(frozen=True)
class Move:
    """One throw in a game record: who threw, the die, and the position after it."""

    player: int
    die: int
    lid: int
    counts: tuple[int, ...]
    turn_over: bool


class SuperSixGame:
    """A Super Six game for any number of players, each seat played by a strategy.

    ``strategies[n]`` decides for seat ``n``. Randomness comes only from ``rng`` (a numpy
    ``Generator``), so a seeded generator replays the same game. The pits are tracked one by one
    (which pits are filled) although only their number matters for play.
    """

    def __init__(
        self,
        rules: SuperSixRules,
        strategies: Sequence[Decide],
        rng: np.random.Generator,
        record: bool = False,
    ) -> None:
        require(
            len(strategies) == rules.players,
            f"give one strategy per player ({rules.players}), got {len(strategies)}",
        )
        self.rules = rules
        self.strategies = list(strategies)
        self.rng = rng
        self.record = record
        self.moves: list[Move] = []
        self._buf = np.empty(0, dtype=np.int64)
        self._pos = 0

    def die(self) -> int:
        """The next die from ``rng`` (drawn 256 at a time, in order)."""
        if self._pos >= self._buf.size:
            self._buf = self.rng.integers(1, 7, size=256)
            self._pos = 0
        d = int(self._buf[self._pos])
        self._pos += 1
        return d

    def throw(self, seat: int, pits: list[bool], counts: list[int]) -> tuple[bool, bool]:
        """One throw by ``seat``, the step primitive: updates ``pits`` and ``counts`` in place and
        returns (seat has won, turn is over). The die is the next one from the game's generator
        (:meth:`die`), so stepping a game throw by throw draws the same dice as :meth:`play`."""
        d = self.die()
        turn_over = False
        if d == 6:
            counts[seat] -= 1
        elif not pits[d - 1]:
            pits[d - 1] = True
            counts[seat] -= 1
        else:
            pits[d - 1] = False
            counts[seat] += 1
            turn_over = True
        if self.record:
            self.moves.append(Move(seat, d, sum(pits), tuple(counts), turn_over))
        return counts[seat] == 0, turn_over

    def play(self, max_turns: int = 1_000_000) -> int:
        """Play one game to the end and return the winning seat (seat 0 throws first)."""
        n = self.rules.players
        counts = [self.rules.sticks] * n
        pits = [False] * PITS
        for seat in range(n):  # round 1: one throw each
            won, _ = self.throw(seat, pits, counts)
            if won:
                return seat
        seat = 0
        for _ in range(max_turns):
            while True:  # the first throw of a turn is forced
                won, over = self.throw(seat, pits, counts)
                if won:
                    return seat
                if over:
                    break
                others = tuple(counts[(seat + m) % n] for m in range(1, n))
                if not self.strategies[seat](sum(pits), counts[seat], others):
                    break
            seat = (seat + 1) % n
        raise RuntimeError("game did not end")  # pragma: no cover - probability zero
