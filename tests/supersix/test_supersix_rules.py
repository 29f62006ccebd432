"""Super Six rules, validation, round 1 and the game engine."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.supersix.rules import SuperSixGame, SuperSixRules
from dicelab.supersix.strategies import parse


def test_defaults_and_bad_rules():
    r = SuperSixRules()
    assert (r.sticks, r.players, r.total) == (4, 2, 8)
    for kw in ({"sticks": 0}, {"sticks": -3}, {"players": 1}, {"players": 11}, {"sticks": 2.5}):
        with pytest.raises(DicelabError) as e:
            SuperSixRules(**kw)
        assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("lid", "counts", "needle"),
    [
        (6, (1, 1), "lid count must be from 0 to 5"),
        (-1, (1, 1), "lid count must be from 0 to 5"),
        (2, (-1, 3), "non-negative"),
        (2, (3, -2), "non-negative"),
        (2, (0, 3), "already over"),
        (5, (3, 3), "at most 8"),
        (1, (1, 1, 1), "2 stick counts"),
    ],
)
def test_bad_states_one_line(lid, counts, needle):
    with pytest.raises(DicelabError) as e:
        SuperSixRules().check_state(lid, counts)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_opening_matches_seed_001():
    # Seed 001: 0/3/3 w.p. 1/36, 1/3/3 10/36, 2/3/3 20/36, 0/3/5 5/36.
    got = {(lid, c): p for p, lid, c, w in SuperSixRules().opening() if w is None}
    assert got == {
        (0, (3, 3)): Fraction(1, 36),
        (1, (3, 3)): Fraction(10, 36),
        (2, (3, 3)): Fraction(20, 36),
        (0, (3, 5)): Fraction(5, 36),
    }


@pytest.mark.parametrize("players", [2, 3, 6])
def test_opening_is_a_distribution(players):
    op = SuperSixRules(sticks=3, players=players).opening()
    assert sum(p for p, *_ in op) == 1
    for _, lid, counts, _ in op:  # sticks are conserved apart from those in the hole
        assert lid + sum(counts) <= 3 * players and 0 <= lid <= 5


def test_one_stick_start_player_wins_in_round_one():
    op = SuperSixRules(sticks=1, players=3).opening()
    assert all(w == 0 for _, _, _, w in op) and sum(p for p, *_ in op) == 1


def test_engine_reproducible_and_conserves_sticks():
    rules = SuperSixRules(sticks=4, players=3)
    strat = [parse(s, rules) for s in ("always", "stop-at:3", "stop-at:4")]
    w1 = [SuperSixGame(rules, strat, np.random.default_rng(s)).play() for s in range(50)]
    w2 = [SuperSixGame(rules, strat, np.random.default_rng(s)).play() for s in range(50)]
    assert w1 == w2 and set(w1) <= {0, 1, 2}
    g = SuperSixGame(rules, strat, np.random.default_rng(11), record=True)
    winner = g.play()
    hole = 0
    for mv in g.moves:
        hole += mv.die == 6
        assert mv.lid + sum(mv.counts) + hole == rules.total
        assert 0 <= mv.lid <= 5
    assert g.moves[-1].counts[winner] == 0 and g.moves[-1].player == winner


def test_strategy_specs():
    r = SuperSixRules()
    assert parse("always", r)(5, 1, (1,)) is True
    assert parse("stop-at:4", r)(4, 2, (2,)) is False and parse("stop-at:4", r)(3, 2, (2,))
    for bad in ("stop-at:0", "stop-at:6", "stop-at:x", "sometimes", ""):
        with pytest.raises(DicelabError) as e:
            parse(bad, r)
        assert "\n" not in str(e.value)
    with pytest.raises(DicelabError):
        SuperSixGame(r, [parse("always", r)], np.random.default_rng(0))
