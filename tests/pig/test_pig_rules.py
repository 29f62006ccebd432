"""Pig rules: outcome distributions are probability laws; validation is strict; the engine plays."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigGame, PigRules


@pytest.mark.parametrize("variant,sides", [("standard", 2), ("standard", 6), ("standard", 10),
                                           ("piglet", 2), ("two-dice", 3), ("two-dice", 6)])
def test_outcomes_are_a_distribution(variant, sides):
    o = PigRules(goal=10, sides=sides, variant=variant).outcomes
    assert sum(p for _, p in o.exact_add) + o.exact_bust + o.exact_reset == 1
    assert o.add_probs.sum() + o.bust + o.reset == pytest.approx(1.0, abs=1e-15)
    assert all(d >= 1 for d, _ in o.exact_add)


def test_two_dice_counts():
    o = PigRules(variant="two-dice").outcomes
    # 36 equally likely pairs: 25 without a 1, 10 with exactly one 1, 1 double one
    assert o.exact_bust == Fraction(10, 36) and o.exact_reset == Fraction(1, 36)
    assert dict(o.exact_add)[12] == Fraction(1, 36) and dict(o.exact_add)[7] == Fraction(4, 36)


def test_standard_d6():
    o = PigRules().outcomes
    assert [d for d, _ in o.exact_add] == [2, 3, 4, 5, 6]
    assert o.exact_bust == Fraction(1, 6) and o.exact_reset == 0


@pytest.mark.parametrize("kwargs,fragment", [
    ({"variant": "big"}, "unknown variant"),
    ({"goal": 0}, "goal must be"),
    ({"goal": 10**6}, "goal must be"),
    ({"sides": 1}, "sides must be"),
    ({"variant": "piglet", "sides": 6}, "coin"),
])
def test_bad_rules(kwargs, fragment):
    with pytest.raises(DicelabError, match=fragment):
        PigRules(**kwargs)


def test_state_checks():
    r = PigRules(goal=10)
    r.check_state(9, 9, 0)
    for bad in [(10, 0, 0), (0, 10, 0), (5, 0, 5), (-1, 0, 0), (0, 0, -1)]:
        with pytest.raises(DicelabError):
            r.check_state(*bad)
    assert len(list(r.states())) == r.n_states == 10 * 10 * 11 // 2


class ScriptedRng:
    """Stands in for numpy's Generator: returns scripted die faces in order."""

    def __init__(self, faces):
        self.faces = list(faces)

    def integers(self, low, high):
        face = self.faces.pop(0)
        assert low <= face < high
        return face


def test_engine_turns_bust_hold_and_win():
    g = PigGame(PigRules(goal=10), ScriptedRng([4, 5, 1, 6, 6]))
    g.roll(); g.roll()
    assert g.state == (0, 0, 9)
    g.hold()
    assert g.scores == [9, 0] and g.to_move == 1
    g.roll()  # a 1: player 1 loses the (empty) turn
    assert g.to_move == 0 and g.scores == [9, 0]
    g.roll()  # 6: 9 + 6 >= 10 wins at once, no hold needed
    assert g.winner == 0 and g.scores[0] == 15
    with pytest.raises(DicelabError, match="over"):
        g.roll()


def test_engine_two_dice_reset():
    g = PigGame(PigRules(goal=50, variant="two-dice"), ScriptedRng([3, 4, 1, 1]))
    g.scores = [30, 0]
    g.roll()
    assert g.turn_total == 7
    g.roll()  # double ones: banked score back to 0
    assert g.scores == [0, 0] and g.to_move == 1 and g.turn_total == 0


def test_engine_replays_with_a_seed():
    def play(seed):
        g = PigGame(PigRules(goal=30), np.random.default_rng(seed))
        while g.winner is None:
            g.roll() if g.turn_total < 12 else g.hold()
        return g.history

    assert play(7) == play(7)
    assert play(7) != play(8)  # and the seed is what decides the game
