"""Pig's Play (dicelab.pig.play): the coach against hand-solved and published values and the
Bellman law, bots against their published policies, bots that read only the observation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicelab import pig
from dicelab.core.errors import DicelabError
from dicelab.core.registry import get

PLAY = pig.PLAY


class ObservationOnly:
    """A state that offers a bot only what the seat may see (no engine, no seed)."""

    def __init__(self, state):
        self._s = state
        self.rules = state.rules
        self.is_over = state.is_over

    def observe(self, seat):
        return self._s.observe(seat)

    def to_move(self):
        return self._s.to_move()

    def legal_actions(self, seat=None):
        return self._s.legal_actions(seat)


def at(rules, i, j, k, seat=0):
    """A state with seat ``seat`` to move at own score i, opponent j, turn total k."""
    s = pig.new_game(rules, seed=0)
    s.engine.scores = [i, j] if seat == 0 else [j, i]
    s.engine.turn_total = k
    s.engine.to_move = seat
    return s


def values(coach):
    return {v["action"]: v["value"] for v in coach["values"]}


def test_registered_and_bots_listed_strongest_first():
    assert get("pig").play is PLAY
    bots = PLAY.bots(pig.PigRules())
    assert bots[0].spec == "optimal" and all(b.name and b.description for b in bots)
    for b in bots:
        PLAY.bot(b.spec, pig.PigRules(goal=30))  # every offered bot is accepted


def test_coach_hand_solved_goal_2():
    # goal 2, one die: rolling at (0, 0, 0) wins with 5/6 at once, else the opponent is at (0, 0, 0):
    # P = 5/6 + 1/6 (1 - P) -> P(roll) = 6/7, and holding gives the opponent that position: 1/7
    c = PLAY.coach(at(pig.PigRules(goal=2), 0, 0, 0), 0)
    v = values(c)
    assert v["roll"] == pytest.approx(float(Fraction(6, 7)), abs=1e-12)
    assert v["hold"] == pytest.approx(float(Fraction(1, 7)), abs=1e-12)
    assert c["best"] == "roll" and c["kind"] == "win probability"


def test_coach_at_100_is_neller_presser_and_seat_1_sees_its_own_side():
    rules = pig.PigRules()
    c0 = PLAY.coach(pig.new_game(rules, seed=3), 0)
    assert max(values(c0).values()) == pytest.approx(0.5306, abs=5e-5)  # Neller & Presser (2004)
    # the same position from seat 1's chair: own 30, opponent 50, turn total 12
    c1 = PLAY.coach(at(rules, 30, 50, 12, seat=1), 1)
    assert c1["position"] == [30, 50, 12]
    # Bellman: holding at (i, j, k) hands the opponent (j, i + k, 0), who then wins with max(...)
    opp = PLAY.coach(at(rules, 50, 42, 0), 0)
    assert values(c1)["hold"] == pytest.approx(1 - max(values(opp).values()), abs=1e-9)
    assert PLAY.coach(at(rules, 30, 50, 12, seat=1), 0) is None  # not seat 0's turn


def test_hold_bot_follows_its_rule_and_optimal_bot_follows_the_coach():
    rules = pig.PigRules(goal=100)
    hold20 = PLAY.bot("hold:20", rules)
    optimal = PLAY.bot("optimal", rules)
    for i, j, k in [(0, 0, 0), (0, 0, 19), (0, 0, 20), (60, 90, 25), (90, 10, 9)]:
        s = ObservationOnly(at(rules, i, j, k))
        assert hold20.act(s, 0) == ("roll" if k < 20 and i + k < 100 else "hold")
        best = PLAY.coach(at(rules, i, j, k), 0)
        v = values(best)
        if abs(v["roll"] - v["hold"]) > 1e-12:
            assert optimal.act(s, 0) == best["best"]


def test_bad_specs_get_one_line_naming_the_allowed():
    rules = pig.PigRules(goal=30)
    for spec, word in [("genius", "allowed"), ("file:/etc/passwd", "allowed"), ("hold:0", "hold:N"),
                       ("hold:31", "goal"), ("best-response:" * 3 + "hold:5", "nested"), (7, "short string; allowed")]:
        with pytest.raises(DicelabError, match=word) as e:
            PLAY.bot(spec, rules)
        assert "\n" not in str(e.value)


def test_build_hooks_round_trip_through_bytes():
    rules = pig.PigRules(goal=12, sides=4)
    specs = ["best-response:hold:5", "optimal"]
    data = PLAY.export(specs, rules)
    assert data.startswith(b"PK")  # npz (zip), never a pickle
    from dicelab.pig import play as mod

    before = {s: PLAY.bot(s, rules).table.copy() for s in specs}
    sol_before = mod.solution(rules).p.copy()

    mod._tables.clear()
    mod._solutions.clear()
    assert not PLAY.ready(specs, rules)
    PLAY.install(specs, rules, data)
    assert PLAY.ready(specs, rules)
    for s in specs:
        assert (PLAY.bot(s, rules).table == before[s]).all()
    assert (mod.solution(rules).p == sol_before).all()
    assert not PLAY.heavy(["hold:5"], pig.PigRules(goal=12, sides=4))
    assert PLAY.heavy(["best-response:best-response:hold:20"], pig.PigRules(goal=100, sides=12, variant="two-dice"))
    # issue 23: estimated light, but 31-68 s to build (in a thread of the server, holding its GIL)
    assert PLAY.heavy(["best-response:best-response:hold:20"], pig.PigRules(goal=43, sides=7))
