"""Pig, the jeopardy dice game, and its dice variants.

Two or more players (``players``, 2 to 6) race to a goal (100 by default); seat 0 moves first and
the turn passes to the next seat. On a turn the mover rolls as often as they like,
adding each roll to a *turn total*; they may *hold* at any time, banking the turn total, and the
turn passes. Rolling a 1 (a "pig") loses the turn total and ends the turn. Reaching the goal
(banked score + turn total >= goal) wins at once: nobody needs to hold to win.

Variants (``PigRules.variant``):

``"standard"``
    One die with ``sides`` faces (>= 2). A 1 busts; any other face is added.
``"piglet"``
    A coin (seed 002, section 2.2.3): heads adds 1, tails busts. ``sides`` is ignored and must be 2.
``"two-dice"``
    Two dice with ``sides`` faces. No 1: the sum is added. Exactly one 1: the turn total is lost
    and the turn ends. Two 1s: the mover's *banked* score is reset to 0 and the turn ends.

Holding with a turn total of 0 is legal with two players (a "skip"); two strategies that both
skip can stall the game forever, which :mod:`dicelab.pig.evaluation` reports as its own outcome.
With three or more players a turn total of 0 must roll (a hold there is read as a roll), and
``two-dice`` is for two players only (its reset would undo the layering by banked scores that the
n-player solver relies on).

A state is ``(i, j, k)``: the mover's banked score ``i``, the opponent's banked score ``j`` and the
turn total ``k``, with ``0 <= i, j < goal`` and ``0 <= k < goal - i``.

The rules own the per-roll outcome distribution (:meth:`PigRules.outcomes`), so every solver is
written once for all variants.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any, Literal

import numpy as np

from dicelab.core.errors import DicelabError, require

Variant = Literal["standard", "piglet", "two-dice"]
VARIANTS: tuple[str, ...] = ("standard", "piglet", "two-dice")
MAX_GOAL = 1000
MAX_SIDES = 100
MAX_PLAYERS = 6


@dataclass(frozen=True)
class RollOutcomes:
    """The distribution of one roll, split by what it does to the turn.

    ``add_points[m]`` is added to the turn total with probability ``add_probs[m]``;
    ``bust`` loses the turn total and ends the turn; ``reset`` (two-dice only) also resets the
    mover's banked score to 0. The probabilities sum to 1. ``exact`` holds the same numbers as
    fractions, for the rational reference solver.
    """

    add_points: np.ndarray
    add_probs: np.ndarray
    bust: float
    reset: float
    exact_add: tuple[tuple[int, Fraction], ...]
    exact_bust: Fraction
    exact_reset: Fraction


@dataclass(frozen=True)
class PigRules:
    """The rules of a Pig game: goal, die size, variant and number of players.

    >>> PigRules().goal, PigRules().sides, PigRules().variant, PigRules().players
    (100, 6, 'standard', 2)
    >>> PigRules(goal=2, variant="piglet").sides
    2
    >>> PigRules(players=3).to_dict()
    {'goal': 100, 'sides': 6, 'variant': 'standard', 'players': 3}
    """

    goal: int = 100
    sides: int | None = None  # None: the variant's own die (a coin for piglet, else six sides)
    variant: str = "standard"
    players: int = 2

    def __post_init__(self) -> None:
        if self.sides is None:
            object.__setattr__(self, "sides", 2 if self.variant == "piglet" else 6)
        require(
            self.variant in VARIANTS,
            f"unknown variant {self.variant!r}; choose one of {', '.join(VARIANTS)}",
        )
        require(
            isinstance(self.goal, int) and 1 <= self.goal <= MAX_GOAL,
            f"goal must be a whole number from 1 to {MAX_GOAL}, got {self.goal}",
        )
        require(
            isinstance(self.sides, int) and 2 <= self.sides <= MAX_SIDES,
            f"sides must be a whole number from 2 to {MAX_SIDES}, got {self.sides}",
        )
        if self.variant == "piglet":
            require(self.sides == 2, f"piglet is played with a coin: sides must be 2, got {self.sides}")
        require(
            isinstance(self.players, int) and not isinstance(self.players, bool)
            and 2 <= self.players <= MAX_PLAYERS,
            f"players must be a whole number from 2 to {MAX_PLAYERS}, got {self.players!r}",
        )
        require(
            self.players == 2 or self.variant != "two-dice",
            f"two-dice Pig is for two players (its reset of a banked score to 0 breaks the "
            f"solver's layers); got players={self.players}; use standard or piglet",
        )

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain values (``players`` only when not 2, so two-player records and
        cache keys stay as they were)."""
        d = asdict(self)
        if self.players == 2:
            del d["players"]
        return d

    @cached_property
    def outcomes(self) -> RollOutcomes:
        """The per-roll outcome distribution of this variant."""
        s = self.sides
        add: dict[int, Fraction] = {}
        if self.variant == "standard":
            for face in range(2, s + 1):
                add[face] = Fraction(1, s)
            bust, reset = Fraction(1, s), Fraction(0)
        elif self.variant == "piglet":
            add[1] = Fraction(1, 2)
            bust, reset = Fraction(1, 2), Fraction(0)
        else:  # two-dice
            for a in range(2, s + 1):
                for b in range(2, s + 1):
                    add[a + b] = add.get(a + b, Fraction(0)) + Fraction(1, s * s)
            bust, reset = Fraction(2 * (s - 1), s * s), Fraction(1, s * s)
        exact_add = tuple(sorted(add.items()))
        assert sum(p for _, p in exact_add) + bust + reset == 1
        return RollOutcomes(
            add_points=np.array([d for d, _ in exact_add], dtype=np.int64),
            add_probs=np.array([float(p) for _, p in exact_add], dtype=np.float64),
            bust=float(bust),
            reset=float(reset),
            exact_add=exact_add,
            exact_bust=bust,
            exact_reset=reset,
        )

    @property
    def n_states(self) -> int:
        """Number of non-terminal states counted mover first (own score, the others' in turn
        order, turn total): goal^(players - 1) * goal * (goal + 1) / 2; two players:
        goal * goal * (goal + 1) / 2."""
        g = self.goal
        return g ** (self.players - 1) * g * (g + 1) // 2

    def check_scores(self, scores: Any, k: int = 0) -> tuple[int, ...]:
        """``scores`` (one banked score per player, the mover's first, then in turn order) and the
        turn total ``k`` checked as a non-terminal position; returns the scores as a tuple."""
        n, g = self.players, self.goal
        try:
            c = tuple(int(x) for x in scores)
        except (TypeError, ValueError):
            raise DicelabError(f"scores must be {n} whole numbers, got {str(scores)[:60]}") from None
        require(len(c) == n, f"give {n} banked scores (the mover's first), got {len(c)}")
        require(all(0 <= x < g for x in c), f"banked scores must be from 0 to {g - 1} (goal {g}), got {list(c)}")
        require(
            isinstance(k, int) and 0 <= k < g - c[0],
            f"turn total must be from 0 to {g - 1 - c[0]} when the mover has {c[0]} (reaching the "
            f"goal {g} is a win, not a state), got {k}",
        )
        return c

    def check_state(self, i: int, j: int, k: int) -> None:
        """Raise a one-line :class:`DicelabError` unless (i, j, k) is a non-terminal state."""
        g = self.goal
        require(0 <= i < g, f"own score i must be from 0 to {g - 1} (goal {g}), got {i}")
        require(0 <= j < g, f"opponent score j must be from 0 to {g - 1} (goal {g}), got {j}")
        require(
            0 <= k < g - i,
            f"turn total k must be from 0 to {g - 1 - i} when i = {i} (i + k reaching the goal {g} "
            f"is a win, not a state), got {k}",
        )

    def states(self) -> Iterator[tuple[int, int, int]]:
        """Every non-terminal state, i then j then k ascending."""
        g = self.goal
        for i in range(g):
            for j in range(g):
                for k in range(g - i):
                    yield i, j, k


class PigGame:
    """A live game of Pig, for the web lab and the terminal: scores, turn total and the dice.

    The engine never decides; it applies ``roll()`` and ``hold()`` for the player to move and
    records every roll. ``rng`` is a :class:`numpy.random.Generator` so games can be replayed.
    """

    def __init__(self, rules: PigRules, rng: np.random.Generator, first: int = 0) -> None:
        n = rules.players
        if first not in range(n):
            raise DicelabError(f"first player must be from 0 to {n - 1}, got {first}")
        self.rules = rules
        self.rng = rng
        self.scores = [0] * n
        self.turn_total = 0
        self.to_move = first
        self.winner: int | None = None
        self.turn_rolls: list[tuple[int, ...]] = []
        self.history: list[dict[str, Any]] = []

    @property
    def state(self) -> tuple[int, ...]:
        """(mover's score, the next players' scores in turn order, turn total); with two players
        (mover's score, opponent's score, turn total)."""
        p, n = self.to_move, len(self.scores)
        return (*(self.scores[(p + r) % n] for r in range(n)), self.turn_total)

    def _check_open(self) -> None:
        if self.winner is not None:
            raise DicelabError("the game is over; no more moves are allowed")

    def _end_turn(self) -> None:
        self.turn_total = 0
        self.turn_rolls = []
        self.to_move = (self.to_move + 1) % len(self.scores)

    def roll(self) -> tuple[int, ...]:
        """Roll for the mover; returns the faces (one for standard/piglet, two for two-dice)."""
        self._check_open()
        r, s = self.rules, self.rules.sides
        if r.variant == "piglet":
            faces: tuple[int, ...] = (int(self.rng.integers(0, 2)),)  # 1 = heads, 0 = tails
            gain, bust, reset = faces[0], faces[0] == 0, False
        elif r.variant == "standard":
            faces = (int(self.rng.integers(1, s + 1)),)
            gain, bust, reset = faces[0], faces[0] == 1, False
        else:
            faces = (int(self.rng.integers(1, s + 1)), int(self.rng.integers(1, s + 1)))
            ones = faces.count(1)
            gain, bust, reset = sum(faces), ones == 1, ones == 2
        mover = self.to_move
        event = {"player": mover, "action": "roll", "faces": list(faces), "before": self.state}
        self.turn_rolls.append(faces)
        if reset:
            self.scores[mover] = 0
            event["result"] = "reset"
            self._end_turn()
        elif bust:
            event["result"] = "bust"
            self._end_turn()
        else:
            self.turn_total += gain
            event["result"] = "add"
            if self.scores[mover] + self.turn_total >= r.goal:
                self.scores[mover] += self.turn_total
                self.turn_total = 0
                self.winner = mover
                event["result"] = "win"
        self.history.append(event)
        return faces

    def hold(self) -> None:
        """Bank the turn total and pass the turn."""
        self._check_open()
        if self.turn_total == 0 and len(self.scores) > 2:
            raise DicelabError("with three or more players a turn total of 0 must roll; legal: 'roll'")
        mover = self.to_move
        self.history.append({"player": mover, "action": "hold", "before": self.state})
        self.scores[mover] += self.turn_total
        self._end_turn()
