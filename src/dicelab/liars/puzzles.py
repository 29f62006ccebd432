"""Liar's Dice puzzles (:mod:`dicelab.core.puzzles`): duel positions where the near-equilibrium
policy plays one move with probability at least :data:`SURE`, that move is worth clearly more
than any other, and a natural rule of thumb plays something else.

Positions come from rounds of the last two players (1 v 1, 1 v 2 and 2 v 1 dice, six faces, no
wild ones: the duels of :mod:`dicelab.liars.library` that train in seconds) with both seats
following the duel policy. The value of a move is the chance to win the round when both seats
follow the policy afterwards, the opponent's hand weighed by its bids
(:func:`dicelab.liars.advice.advise`); with one die each the round decides the game, so it is the
win probability. The rules of thumb (with ``n`` hidden dice, each showing a face 1 in 6):

* *bid what you see*: bid the most likely count of the face you hold most (your own count plus
  the most likely count among the hidden dice), or, when that is not a raise, the smallest raise
  of that face; never call;
* *call above the expected count*: call when the bid claims more of its face than expected (your
  own count plus ``n / 6``), otherwise bid what you see.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import floor
from typing import Any

import numpy as np

from dicelab.core.puzzles import Candidate, Move, Thumb
from dicelab.liars.rules import Bid

SETTINGS = ({"dice": [1, 1], "faces": 6, "wild": "none"}, {"dice": [1, 2], "faces": 6, "wild": "none"},
            {"dice": [2, 1], "faces": 6, "wild": "none"})
SURE = 0.9  # the policy's probability of its move at a puzzle position, at least
EMIT = 2
NAMES = {1: ("one", "ones"), 2: ("two", "twos"), 3: ("three", "threes"), 4: ("four", "fours"),
         5: ("five", "fives"), 6: ("six", "sixes")}


def bid_text(b: Bid) -> str:
    """``2 fives``, ``1 six``."""
    one, many = NAMES.get(b.face, (str(b.face), f"{b.face}s"))
    return f"{b.quantity} {one if b.quantity == 1 else many}"


def action_of(b: Bid | None) -> Any:
    """The state's action for a bid, or ``"call"``."""
    return "call" if b is None else {"bid": [b.quantity, b.face]}


def _count(hand: tuple[int, ...], face: int) -> int:
    return sum(1 for x in hand if x == face)


def see_bid(hand: tuple[int, ...], hidden: int, faces: int, current: Bid | None) -> Bid:
    """*Bid what you see*: the most likely count of the face held most (highest face among ties),
    or the smallest raise of that face when that is no raise."""
    face = max(range(1, faces + 1), key=lambda f: (_count(hand, f), f))
    likely = _count(hand, face) + floor((hidden + 1) / faces)  # the mode of Binomial(hidden, 1/faces)
    b = Bid(max(likely, 1), face)
    if current is not None and not b.beats(current):
        q = current.quantity + (0 if face > current.face else 1)
        b = Bid(q, face)
    return b


def expected_call(hand: tuple[int, ...], hidden: int, faces: int, current: Bid | None) -> Bid | None:
    """*Call above the expected count*: None (call) when ``current`` claims more of its face than
    the own count plus ``hidden / faces``, else :func:`see_bid`."""
    if current is not None and current.quantity > _count(hand, current.face) + hidden / faces:
        return None
    return see_bid(hand, hidden, faces, current)


class LiarsPuzzles:
    """Liar's Dice's :class:`~dicelab.core.puzzles.PuzzleSource`."""

    def settings(self) -> list[dict[str, Any]]:
        return [{**s, "dice": list(s["dice"])} for s in SETTINGS]

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[Candidate]:
        from dicelab.liars.duel import Duel
        from dicelab.liars.library import policy

        duel = Duel(tuple(setting["dice"]), int(setting["faces"]), str(setting["wild"]))
        pol = policy(duel)
        if pol is None:  # pragma: no cover - the settings are sizes that train in seconds
            return
        hands = [duel.hands(s) for s in (0, 1)]
        while True:  # rounds between two policy players
            dealt = [hands[s][0][int(rng.choice(len(hands[s][1]), p=hands[s][1] / hands[s][1].sum()))] for s in (0, 1)]
            history: list[Bid] = []
            while True:
                seat = len(history) % 2
                probs = pol.action_probabilities(seat, dealt[seat], history)
                top = max(probs, key=lambda a: probs[a])
                if probs[top] >= SURE and rng.integers(0, EMIT) == 0:
                    c = self._candidate(pol, seat, tuple(dealt[seat]), list(history), top)
                    if c is not None:
                        yield c
                keys = list(probs)
                pick = keys[int(rng.choice(len(keys), p=np.array([probs[k] for k in keys]) / sum(probs.values())))]
                if pick is None:
                    break
                history.append(pick)

    def _candidate(self, pol: Any, seat: int, hand: tuple[int, ...], history: list[Bid],
                   top: Bid | None) -> Candidate | None:
        from dicelab.liars.advice import advise

        d = pol.duel
        a = advise(pol, seat, hand, history)
        win = a["win"]
        if max(win, key=lambda b: win[b]) != top:
            return None  # the policy's near-sure move is not the best by its own values: no puzzle
        hidden = d.dice[1 - seat]
        current = history[-1] if history else None
        moves = [Move(action_of(b), "Call" if b is None else f"Bid {bid_text(b)}", float(v)) for b, v in win.items()]
        moves.sort(key=lambda m: (m.action != "call", m.action if m.action == "call" else m.action["bid"]))
        thumbs = [Thumb("Bid what you see", action_of(see_bid(hand, hidden, d.faces, current))),
                  Thumb("Call above the expected count", action_of(expected_call(hand, hidden, d.faces, current)))]
        who = {seat: "You", 1 - seat: "Opponent"}
        said = [f"{who[n % 2]}: {bid_text(b)}" for n, b in enumerate(history)]
        board: list[dict[str, Any]] = [
            {"type": "dice", "label": "Your dice", "faces": sorted(hand), "hidden": 0, "coin": False},
            {"type": "dice", "label": "The opponent's dice (hidden)", "faces": [], "hidden": hidden, "coin": False},
            {"type": "list", "label": "Bids this round", "items": said or ["None yet: you open the round."]},
            {"type": "facts", "items": [{"label": "Dice on the table", "value": str(sum(d.dice))},
                                        {"label": "Wild ones", "value": "no"}]},
        ]
        mine = f"your {'die shows' if len(hand) == 1 else 'dice show'} {', '.join(str(x) for x in sorted(hand))}"
        last = f"the opponent's bid is {bid_text(current)}" if current is not None else "you open the round"
        question = (f"Liar's Dice, the last two players: {mine}, the opponent has {hidden} hidden "
                    f"{'die' if hidden == 1 else 'dice'}, and {last}. What do you do?")
        one_each = max(d.dice) == 1
        return Candidate(
            game="liars", setting=f"Liar's Dice, {len(hand)} v {hidden} dice",
            rules={"dice": list(d.dice), "faces": d.faces, "wild": d.wild},
            position={"seat": seat, "hand": sorted(hand), "bids": [[b.quantity, b.face] for b in history]},
            question=question, board=board, kind="win probability" if one_each else "chance to win the round",
            moves=moves, thumbs=thumbs,
            why=lambda best, second, wrong: why(hand, hidden, current, a, best, second, wrong),
            details=(f"duel {d.dice[0]} v {d.dice[1]} dice, {d.faces} faces, wild {d.wild}, seat {seat}; the "
                     f"near-equilibrium duel policy ({pol.memory_label}) plays {best_label(top)} with probability "
                     f"{a['policy'][top]:.3f}; values: both seats follow the policy afterwards, the opponent's hand "
                     f"weighed by its bids ({a['posterior']})"))


def best_label(b: Bid | None) -> str:
    return "call" if b is None else f"bid {b.quantity}x{b.face}"


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def why(hand: tuple[int, ...], hidden: int, current: Bid | None, advice: dict[str, Any], best: Move,
        second: Move, wrong: list[Thumb]) -> str:
    """One plain sentence on why ``best`` is right."""
    odds = f"({_pct(best.value)} against {_pct(second.value)} for {second.label.lower()})"
    if best.action == "call":
        assert current is not None
        own = _count(hand, current.face)
        holds = 1.0 - advice["win"][None]
        need = (f"{bid_text(current)} needs {current.quantity - own} of them among the opponent's {hidden} hidden "
                f"{'die' if hidden == 1 else 'dice'} (you hold {own})")
        if holds > 0.5:
            return (f"{need}; by how the opponent bid it is {_pct(holds)} likely to hold, but every raise you could "
                    f"make is even less likely, so call and hope {odds}.")
        return f"{need}; weighed by how the opponent bid, that is only {_pct(holds)} likely, so call {odds}."
    q, f = best.action["bid"]
    b = Bid(q, f)
    own = _count(hand, f)
    if q <= own:
        return (f"You hold {own} of the {NAMES[f][1]} yourself, so {bid_text(b)} cannot be a lie: bid it and make "
                f"the opponent decide {odds}.")
    if current is not None and any(t.action == "call" for t in wrong):
        holds = 1.0 - advice["win"][None]
        return (f"Calling loses too often here: {bid_text(current)} holds {_pct(holds)} of the time given the "
                f"opponent's bids, so raise to {bid_text(b)} instead {odds}.")
    return (f"{bid_text(b)} claims {q - own} more than you hold, but it is the bid that leaves the opponent the "
            f"hardest choice {odds}.")


SOURCE = LiarsPuzzles()
