"""Round-robin tournaments: the non-transitive triple, transitive hold:N, laws and plots."""

from __future__ import annotations

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigRules
from dicelab.pig.lab_plots import against_holds, plot_against_holds, plot_win_matrix
from dicelab.pig.tournaments import find_cycles, tournament
from dicelab.pig import evaluate


def test_named_strategies_have_the_seed_non_transitive_cycle():
    """Seed 002, 3.3.6: turtle beats roll to win, roll to win beats roll and wait, roll and wait
    beats turtle."""
    names = ["optimal", "keep-pace", "turtle", "roll-to-win", "roll-and-wait", "hold:25"]
    t = tournament(names, PigRules(), progress=False)
    assert ["turtle", "roll-to-win", "roll-and-wait"] in t.cycles
    assert not t.transitive
    assert t.ranking[0]["strategy"] == "optimal"
    m = t.matrix
    i = {n: k for k, n in enumerate(t.strategies)}
    assert m[i["turtle"], i["roll-to-win"]] > 0.5
    assert m[i["roll-to-win"], i["roll-and-wait"]] > 0.5
    assert m[i["roll-and-wait"], i["turtle"]] > 0.5
    # every listed cycle really is one
    for a, b, c in t.cycles:
        assert m[i[a], i[b]] > 0.5 and m[i[b], i[c]] > 0.5 and m[i[c], i[a]] > 0.5


def test_matrix_laws_and_agreement_with_evaluate():
    rules = PigRules(goal=30)
    t = tournament(["hold:0", "hold:5..9", "keep-pace"], rules, progress=False)
    m, stall = t.matrix, t.stalemate
    # the rules: hold:0 never rolls, so it never wins and stalls against itself only
    only_self = np.zeros_like(stall)
    only_self[0, 0] = 1.0
    assert np.all(m[0] == 0.0) and np.array_equal(stall, only_self)
    assert np.allclose(np.diag(m)[1:], 0.5, atol=1e-13)
    # every pairing ends in a win for one side or a stalemate
    assert np.allclose(m + m.T + stall, 1.0, atol=1e-13)
    e = evaluate("hold:7", "keep-pace", rules)
    i = t.strategies.index("hold:7")
    j = t.strategies.index("keep-pace")
    assert m[i, j] == pytest.approx(e.a_overall, abs=1e-15)
    assert t.first[i, j] == pytest.approx(e.a_first, abs=1e-15)
    assert t.pairs == 21


def test_hold_strategies_are_transitive_and_hold_25_wins():
    """Seed 002, 3.3.5: hold-at strategies are transitive and hold at 25 wins the tournament."""
    t = tournament(["hold:16..32"], PigRules(), progress=False)
    assert t.transitive and t.cycles == []
    assert t.ranking[0]["strategy"] == "hold:25"
    assert t.ranking[0]["beats"] == 16


def test_figure_18_hold_25_beats_every_hold_n():
    """Seed 002, Figure 18: hold at 25's general probability lies above 1/2 against every other
    hold:N (N = 1..100), and equals 1/2 against itself; against hold:30 it is 0.546416."""
    d = against_holds("hold:25", PigRules(), 100)
    p = np.array(d["a_overall"])
    assert p[24] == pytest.approx(0.5, abs=1e-13)
    assert (np.delete(p, 24) > 0.5).all()
    assert p[29] == pytest.approx(0.546416, abs=5e-7)


def test_simulated_tournament_is_close_to_exact():
    rules = PigRules(goal=20)
    specs = ["turtle", "hold:10", "roll-to-win"]
    ex = tournament(specs, rules, progress=False)
    sim = tournament(specs, rules, simulate=40_000, seed=1, progress=False)
    assert sim.mode == "simulated" and sim.games == 40_000
    assert np.allclose(sim.matrix, ex.matrix, atol=0.015)
    again = tournament(specs, rules, simulate=40_000, seed=1, progress=False)
    assert np.array_equal(again.matrix, sim.matrix)


def test_find_cycles_rock_paper_scissors():
    m = np.full((4, 4), 0.5)
    beats = [(0, 1), (1, 2), (2, 0), (3, 0), (3, 1), (3, 2)]
    for a, b in beats:
        m[a, b], m[b, a] = 0.7, 0.3
    assert find_cycles(m) == [(0, 1, 2)]
    m[3, 2], m[2, 3] = 0.3, 0.7  # now 2 > 3 as well: 1 > 2 > 3 > 1 is a second cycle
    assert sorted(find_cycles(m)) == [(0, 1, 2), (1, 2, 3)]


def test_variants_and_plots(tmp_path):
    for variant, goal in (("piglet", 8), ("two-dice", 30)):
        t = tournament(
            ["hold:2..4", "optimal"], PigRules(goal=goal, variant=variant), progress=False
        )
        assert t.ranking[0]["strategy"] == "optimal"
        out = plot_win_matrix(t, tmp_path / f"{variant}.png")
        assert out.stat().st_size > 1000
    d = against_holds("keep-pace", PigRules(goal=30), 20)
    assert len(d["a_overall"]) == 20
    assert plot_against_holds(d, tmp_path / "vs.png").stat().st_size > 1000


def test_bad_tournaments():
    for specs in (["hold:3"], ["hold:3", "hold:3"], ["hold:1..500"], ["nonsense", "hold:2"]):
        with pytest.raises(DicelabError):
            tournament(specs, PigRules(goal=10), progress=False)
