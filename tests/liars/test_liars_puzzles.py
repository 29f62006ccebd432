"""Liar's Dice puzzles: the shipped puzzles' values re-derived by brute force over the real bid tree
(every rising bid sequence from the position, both seats drawing from the duel policy's
``action_probabilities``, the opponent's hand weighed by Bayes on its bids), where the puzzles came
from the one backward pass over the policy's abstract DAG (:func:`dicelab.liars.advice.advise`).
Also checked: the policy plays the best move with probability at least 0.9 there, and the rules of
thumb are what they say."""

from __future__ import annotations

from functools import lru_cache
from math import floor

import pytest

from dicelab.core import puzzles as pz
from dicelab.liars.duel import Duel
from dicelab.liars.library import policy
from dicelab.liars.rules import Bid

MAX_LEFT = 8  # bids above the current one, at most: 2^8 sequences per opponent hand


def count(hand, face: int) -> int:
    return sum(1 for x in hand if x == face)


def brute_values(pol, seat: int, hand: tuple[int, ...], history: list[Bid]) -> dict:
    d = pol.duel
    hands, probs, _ = d.hands(1 - seat)
    weight = []
    for g, p in zip(hands, probs, strict=True):  # Bayes on the opponent's bids
        w = float(p)
        for n, b in enumerate(history):
            if n % 2 != seat:
                w *= pol.action_probabilities(1 - seat, g, history[:n]).get(b, 0.0)
        weight.append(w)
    total = sum(weight)
    n_bids = sum(d.dice) * d.faces

    @lru_cache(maxsize=None)
    def payoff(h: tuple[Bid, ...], g: tuple[int, ...]) -> float:
        """Seat's expected payoff (+1 / -1) after the bids h, the opponent holding g."""
        mover = len(h) % 2
        mover_hand = hand if mover == seat else g
        out = 0.0
        for a, pr in pol.action_probabilities(mover, mover_hand, list(h)).items():
            out += pr * outcome(h, a, mover, g)
        return out

    def outcome(h: tuple[Bid, ...], a: Bid | None, mover: int, g: tuple[int, ...]) -> float:
        if a is None:  # mover calls: the last bidder wins when the bid holds
            b = h[-1]
            holds = count(hand, b.face) + count(g, b.face) >= b.quantity
            bidder = 1 - mover
            return 1.0 if holds == (bidder == seat) else -1.0
        return payoff(h + (a,), g)

    values = {}
    top = history[-1].rank(d.faces) if history else -1
    actions: list[Bid | None] = ([None] if history else []) + [Bid.from_rank(r, d.faces) for r in range(top + 1, n_bids)]
    for a in actions:
        v = sum(w * outcome(tuple(history), a, seat, g) for g, w in zip(hands, weight, strict=True)) / total
        values[a] = (1.0 + v) / 2.0
    return values


def see_bid(hand, hidden, faces, current):
    face = max(range(1, faces + 1), key=lambda f: (count(hand, f), f))
    b = Bid(max(count(hand, face) + floor((hidden + 1) / faces), 1), face)
    if current is not None and not b.beats(current):
        b = Bid(current.quantity + (0 if face > current.face else 1), face)
    return b


def as_action(b):
    return "call" if b is None else {"bid": [b.quantity, b.face]}


def test_shipped_liars_puzzles_agree_with_brute_force_over_the_bid_tree():
    shipped = [p for p in pz.load()["puzzles"] if p["game"] == "liars"]
    assert len(shipped) >= 20
    assert {tuple(p["rules"]["dice"]) for p in shipped} == {(1, 1), (1, 2), (2, 1)}
    checked = 0
    for p in shipped:
        r = p["rules"]
        duel = Duel(tuple(r["dice"]), r["faces"], r["wild"])
        seat, hand = p["position"]["seat"], tuple(p["position"]["hand"])
        history = [Bid(q, f) for q, f in p["position"]["bids"]]
        n_bids = sum(duel.dice) * duel.faces
        top = history[-1].rank(duel.faces) if history else -1
        pol = policy(duel)
        probs = pol.action_probabilities(seat, hand, history)
        best_prob = max(probs.values())
        assert best_prob >= 0.9 and as_action(max(probs, key=probs.get)) == p["best"], p["id"]
        hidden = duel.dice[1 - seat]
        current = history[-1] if history else None
        see = see_bid(hand, hidden, duel.faces, current)
        call = None if current is not None and current.quantity > count(hand, current.face) + hidden / duel.faces else see
        assert [t["action"] for t in p["thumbs"]] == [as_action(see), as_action(call)]
        if n_bids - 1 - top > MAX_LEFT:
            continue
        brute = brute_values(pol, seat, hand, history)
        stored = {("call" if m["action"] == "call" else tuple(m["action"]["bid"])): m["value"] for m in p["moves"]}
        assert len(stored) == len(brute)
        for a, v in brute.items():
            key = "call" if a is None else (a.quantity, a.face)
            assert stored[key] == pytest.approx(v, abs=1e-6), (p["id"], key)
        checked += 1
    assert checked >= 8


def test_shipped_liars_whys_count_right():
    """The sentence's facts: the dice you hold of the bid's face, the ones still needed among the
    opponent's hidden dice, and the chance the bid holds, which is the chance a call loses (the
    caller wins the round exactly when the bid does not hold)."""
    import re

    words = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6,
             "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    for p in (p for p in pz.load()["puzzles"] if p["game"] == "liars"):
        hand, why = p["position"]["hand"], p["why"]
        hidden = p["rules"]["dice"][1 - p["position"]["seat"]]
        call = next((m["value"] for m in p["moves"] if m["action"] == "call"), None)
        if m := re.match(r"(\d+) (\w+) needs (\d+) of them among the opponent's (\d+) hidden dic?e? ?\(you hold (\d+)\)",
                         why.replace("die (", "dice (")):
            q, face = int(m.group(1)), words[m.group(2)]
            own = count(hand, face)
            assert (int(m.group(3)), int(m.group(4)), int(m.group(5))) == (q - own, hidden, own), why
        if m := re.match(r"You hold (\d+) of the (\w+) yourself, so (\d+) (\w+) cannot be a lie", why):
            own = count(hand, words[m.group(2)])
            assert int(m.group(1)) == own >= int(m.group(3)), why
        if m := re.search(r"(\d+\.\d)% likely|holds (\d+\.\d)% of the time", why):
            assert call is not None and float(m.group(1) or m.group(2)) == pytest.approx(100 * (1 - call), abs=0.051), why
