"""Liar's Dice's shared verbs for the duel: ``evaluate`` against a brute-force game-tree walk
written here (every deal, every action of the bots' exact distributions), and ``simulate`` against
``evaluate`` with a Wilson interval."""

from __future__ import annotations

import itertools

import pytest

from dicelab import liars
from dicelab.core.errors import DicelabError
from dicelab.liars.cfr import DuelRules
from dicelab.liars.rules import Bid, LiarsRules, PlayerView
from dicelab.liars.strategies import action_distribution
from scipy.stats import binomtest


def brute_value(a: str, b: str, rules: DuelRules) -> float:
    """P(the opener, playing bot ``a``, wins) against bot ``b``, by walking every deal and action."""
    F, wild = rules.faces, rules.wild_face
    lr = LiarsRules(players=2, dice=max(rules.dice), faces=F, wild=rules.wild)
    names = (a, b)

    def holds(bid: Bid, hands) -> bool:
        n = sum(1 for h in hands for d in h if d == bid.face or (wild and d == wild and bid.face != wild))
        return n >= bid.quantity

    def walk(hands, seat: int, bid: Bid | None, history) -> float:
        view = PlayerView(lr, seat, hands[seat], rules.dice, bid, history)
        total = 0.0
        for act, p in action_distribution(names[seat], view).items():
            if act is None:  # a call: the caller wins if the bid does not hold
                caller_wins = not holds(bid, hands)
                opener_wins = caller_wins if seat == 0 else not caller_wins
                total += p * float(opener_wins)
            else:
                total += p * walk(hands, 1 - seat, act, history)
        return total

    deals = [tuple(itertools.product(range(1, F + 1), repeat=n)) for n in rules.dice]
    values = [walk((tuple(sorted(h0)), tuple(sorted(h1))), 0, None, ()) for h0 in deals[0] for h1 in deals[1]]
    return sum(values) / len(values)


@pytest.mark.parametrize("wild", ["none", "highest", "ones"])
def test_evaluate_matches_a_brute_force_walk(wild):
    rules = DuelRules((1, 1), 3, wild)
    h = liars.evaluate("probabilistic", "random", rules)
    assert h.a_first == pytest.approx(brute_value("probabilistic", "random", rules), abs=1e-12)
    assert h.a_second == pytest.approx(1 - brute_value("random", "probabilistic", rules), abs=1e-12)


def test_a_policy_against_itself_wins_as_often_as_it_loses_over_both_seats():
    # zero sum: with the same policy in both seats, A opening wins what A second loses
    rules = DuelRules((1, 1), 4, "highest")
    h = liars.evaluate("random", "random", rules)
    assert h.a_first + h.a_second == pytest.approx(1.0, abs=1e-12)
    assert h.mean == pytest.approx(0.5, abs=1e-12)


def test_simulate_agrees_with_evaluate():
    rules = DuelRules((1, 1), 6, "highest")
    exact = liars.evaluate("probabilistic", "random", rules)
    sim = liars.simulate("probabilistic", "random", rules, games=20_000, seed=3)
    for seat, want in ((0, exact.a_first), (1, exact.a_second)):
        assert binomtest(sim[f"wins_seat{seat}"], sim["rounds_per_seat"], want).pvalue > 1e-4
    again = liars.simulate("probabilistic", "random", rules, games=20_000, seed=3)
    assert again == sim  # same seed, same games


def test_bad_strategies_are_one_line_errors():
    with pytest.raises(DicelabError, match="duel policy or one of random, probabilistic"):
        liars.evaluate("genius", "random", DuelRules((1, 1), 6, "highest"))
    with pytest.raises(DicelabError, match="at most 18"):
        liars.evaluate("random", "random", liars.Duel((3, 3), 6, "ones"))
