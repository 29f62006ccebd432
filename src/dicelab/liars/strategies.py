"""Liar's Dice bots from seed 004 and the post it builds on (Oehm, *Liar's Dice in R*).

Every bot raises the same way (seed 004): **quantity + 1**, with a random face when it bluffs,
else the face it holds most of (wild dice counted; the highest face among ties). Opening a round
is a raise from quantity 0. A raise above the number of dice on the table is impossible, so
then the bot calls.

``random``
    "bluffing 100% of the time and randomly deciding to call or raise at each decision point":
    calls with probability 1/2 (once there is a bid), else raises with a random face.
``probabilistic``
    raises with probability P(X >= x), the chance that the current bid holds given its own dice
    (``PlayerView.prob_bid_holds``), else calls; its raises bluff with probability ``bluff``
    (0.5 by default, the seed agent's setting), else play the numbers.

A bot is a ``Policy`` (:mod:`dicelab.liars.rules`): ``bot(view, rng) -> Bid | None`` (None calls).
The same decision rules run compiled in :mod:`dicelab.liars.kernel`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dicelab.core.errors import require
from dicelab.core.specs import shorten
from dicelab.liars.rules import Bid, PlayerView, Policy

BOT_NAMES: tuple[str, ...] = ("random", "probabilistic")


def best_face(view: PlayerView) -> int:
    """The face the player holds most of (wild dice counted; the highest face among ties)."""
    best = 1
    for f in range(2, view.rules.faces + 1):
        if view.rules.count(view.hand, f) >= view.rules.count(view.hand, best):
            best = f
    return best


def raise_bid(view: PlayerView, rng: np.random.Generator, bluff: float) -> Bid | None:
    """Seed 004's raise: quantity + 1 with a random face (probability ``bluff``) or the face held most of.

    None (a call) when quantity + 1 exceeds the dice on the table.
    """
    q = 0 if view.current_bid is None else view.current_bid.quantity
    if q + 1 > view.dice_on_table:
        return None
    if rng.random() < bluff:
        return Bid(q + 1, int(rng.integers(1, view.rules.faces + 1)))
    return Bid(q + 1, best_face(view))


def raise_distribution(view: PlayerView, bluff: float) -> dict[Bid, float]:
    """The distribution of :func:`raise_bid` (empty when no raise is possible)."""
    q = 0 if view.current_bid is None else view.current_bid.quantity
    if q + 1 > view.dice_on_table:
        return {}
    F = view.rules.faces
    out: dict[Bid, float] = {}
    for f in range(1, F + 1):
        out[Bid(q + 1, f)] = bluff / F
    bf = Bid(q + 1, best_face(view))
    out[bf] += 1.0 - bluff
    return out


def random_bot(view: PlayerView, rng: np.random.Generator) -> Bid | None:
    """Call with probability 1/2, else raise with a random face (quantity + 1)."""
    if view.current_bid is not None and rng.random() < 0.5:
        return None
    return raise_bid(view, rng, 1.0)


def make_probabilistic(bluff: float = 0.5) -> Policy:
    """A bot that raises with probability P(bid holds | own dice), else calls."""
    require(0.0 <= bluff <= 1.0, f"bluff must be a probability from 0 to 1, got {bluff}")

    def probabilistic_bot(view: PlayerView, rng: np.random.Generator) -> Bid | None:
        if view.current_bid is not None and rng.random() >= view.prob_bid_holds():
            return None
        return raise_bid(view, rng, bluff)

    return probabilistic_bot


probabilistic_bot = make_probabilistic()


def _check_name(name: object) -> None:
    require(
        name in BOT_NAMES,
        f"unknown bot {shorten(str(name))}; choose one of {', '.join(BOT_NAMES)}",
    )


def bot(name: str) -> Policy:
    """The bot called ``name`` (``random`` or ``probabilistic``)."""
    _check_name(name)
    return random_bot if name == "random" else probabilistic_bot


def action_distribution(
    name: str, view: PlayerView, bluff: float = 0.5
) -> dict[Bid | None, float]:
    """The exact distribution of a bot's next action (None is the call), for exact evaluation."""
    _check_name(name)
    if name == "random":
        p_call, b = (0.0 if view.current_bid is None else 0.5), 1.0
    else:
        p_call, b = (0.0 if view.current_bid is None else 1.0 - view.prob_bid_holds()), bluff
    raises = raise_distribution(view, b)
    if not raises:
        return {None: 1.0}
    out: dict[Bid | None, float] = {k: (1.0 - p_call) * v for k, v in raises.items()}
    if p_call > 0:
        out[None] = p_call
    return out


ActionDistribution = Callable[[PlayerView], dict[Bid | None, float]]
