"""Levels of strength (issue 21, item 1): every exact ladder is strictly ordered by its exact
strength, and the evaluators that measure the noisy levels agree with independent references.

References: each game's own exact evaluator of fixed strategies (``pig.evaluate``,
``hog.evaluate``: other code, other algorithms) and, for the noisy (mixed) policies, a slow value
iteration written here in plain Python on small goals, where every state is visited until nothing
changes. Laws: the same policy in both seats gives the seats' chances summing to 1; optimal play
against itself is worth 1/2.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicelab.cli.main import main
from dicelab.core import levels as core_levels
from dicelab.core.registry import get
from dicelab.hog import HogRules
from dicelab.hog import evaluate as hog_evaluate
from dicelab.hog import parse_strategy as hog_strategy
from dicelab.hog import levels as hog_levels
from dicelab.pig import PigRules, parse_strategy
from dicelab.pig import evaluate as pig_evaluate
from dicelab.pig import levels as pig_levels


# ------------------------------------------------------------------------------ slow references
def pig_reference(qa: np.ndarray, qb: np.ndarray, rules: PigRules, tol: float = 1e-13) -> tuple[float, float]:
    """(P(A wins | A first), P(A wins | B first)) by plain value iteration over every state."""
    g = rules.goal
    o = rules.outcomes
    adds = o.add_points.tolist()
    probs = o.add_probs.tolist()
    W = [np.zeros((g, g, g)), np.zeros((g, g, g))]  # W[m][own, other, k]: the mover m's chance
    q = (qa, qb)
    for _ in range(100_000):
        change = 0.0
        for m in (0, 1):
            opp = W[1 - m]
            for i in range(g):
                for j in range(g):
                    for k in range(g - i - 1, -1, -1):
                        roll = o.bust * (1 - opp[j, i, 0]) + o.reset * (1 - opp[j, 0, 0])
                        for d, p in zip(adds, probs):
                            roll += p if i + k + d >= g else p * W[m][i, j, k + d]
                        hold = 1 - opp[j, i + k, 0]
                        v = q[m][i, j, k] * roll + (1 - q[m][i, j, k]) * hold
                        change = max(change, abs(v - W[m][i, j, k]))
                        W[m][i, j, k] = v
        if change < tol:
            break
    return float(W[0][0, 0, 0]), 1.0 - float(W[1][0, 0, 0])


def hog_reference(pa: np.ndarray, pb: np.ndarray, rules: HogRules, tol: float = 1e-13) -> tuple[float, float]:
    """The same for Hog: U[m][i, j], the mover m's chance at its score i against j."""
    g, P = rules.goal, rules.outcome_table()
    U = [np.zeros((g, g)), np.zeros((g, g))]
    p = (pa, pb)
    for _ in range(100_000):
        change = 0.0
        for m in (0, 1):
            opp = U[1 - m]
            for i in range(g):
                for j in range(g):
                    v = 0.0
                    for n in range(1, rules.max_dice + 1):
                        w = p[m][i, j, n - 1]
                        if w == 0:
                            continue
                        val = P[n, 0] * (1 - opp[j, i])
                        for s in range(1, P.shape[1]):
                            if P[n, s] > 0:
                                val += P[n, s] * (1.0 if i + s >= g else 1 - opp[j, i + s])
                        v += w * val
                    change = max(change, abs(v - U[m][i, j]))
                    U[m][i, j] = v
        if change < tol:
            break
    return float(U[0][0, 0]), 1.0 - float(U[1][0, 0])


# ------------------------------------------------------------------------------ Pig
@pytest.mark.parametrize("variant,goal", [("standard", 9), ("piglet", 7), ("two-dice", 10)])
def test_pig_mixed_evaluation_equals_a_slow_value_iteration(variant, goal):
    rules = PigRules(goal=goal, variant=variant)
    rng = np.random.default_rng(7)
    qa = rng.random((goal, goal, goal))
    qb = pig_levels.roll_probabilities("slip:0.2:hold:4", rules)
    qa[:, :, 0] = 1.0
    h = pig_levels.evaluate_mixed(qa, qb, rules)
    ref = pig_reference(qa, qb, rules)
    assert h.a_first == pytest.approx(ref[0], abs=1e-11)
    assert h.a_second == pytest.approx(ref[1], abs=1e-11)


@pytest.mark.parametrize("a,b", [("hold:20", "optimal"), ("keep-pace", "hold:25"), ("turtle", "hold:15")])
def test_pig_mixed_evaluation_of_fixed_strategies_equals_pig_evaluate(a, b):
    rules = PigRules(goal=100)
    h = pig_levels.evaluate_mixed(pig_levels.roll_probabilities(a, rules), pig_levels.roll_probabilities(b, rules),
                                  rules)
    e = pig_evaluate(parse_strategy(a), parse_strategy(b), rules)
    assert h.a_first == pytest.approx(e.a_first, abs=1e-10)
    assert h.a_second == pytest.approx(e.a_second, abs=1e-10)


def test_pig_ladder_is_strictly_ordered_by_exact_strength():
    rules = PigRules(goal=100)
    ladder = pig_levels.levels(rules)
    top = pig_levels.roll_probabilities(ladder[-1].spec, rules)
    mine = [pig_levels.evaluate_mixed(pig_levels.roll_probabilities(lv.spec, rules), top, rules).mean for lv in ladder]
    assert all(a < b for a, b in zip(mine, mine[1:])), mine
    assert mine[-1] == pytest.approx(0.5, abs=1e-12)  # optimal against itself, seats averaged
    assert len(ladder) in range(4, 7) and ladder[len(ladder) // 2].name not in (ladder[0].name, ladder[-1].name)
    measured = get("pig").play.measure(rules)["strengths"]
    assert measured == pytest.approx(mine, abs=1e-12)


def test_a_noisy_pig_bot_draws_from_its_seed_at_its_roll_probability():
    from dicelab.pig.play import PLAY
    from dicelab.pig.state import new_game

    rules = PigRules(goal=100)
    for seed in range(100):  # a game whose first roll is not a 1: seat 0 to move with a turn total
        state = new_game(rules, seed)
        state.apply("roll")
        if state.to_move() == (0,) and state.observe(0)["turn_total"] > 0:
            break
    q = pig_levels.roll_probabilities("slip:0.2:hold:10", rules)
    i, j, k = 0, 0, state.observe(0)["turn_total"]
    a = [PLAY.bot("slip:0.2:hold:10", rules, seed=5).act(state, 0) for _ in range(20)]
    b = [PLAY.bot("slip:0.2:hold:10", rules, seed=5).act(state, 0) for _ in range(20)]
    assert a == b  # the same seed, the same choice
    bot = PLAY.bot("slip:0.2:hold:10", rules, seed=11)
    n = 4000
    rolls = sum(bot.act(state, 0) == "roll" for _ in range(n))
    p = q[i, j, k]
    assert abs(rolls / n - p) < 4 * np.sqrt(p * (1 - p) / n)


# ------------------------------------------------------------------------------ Hog
def test_hog_mixed_evaluation_equals_a_slow_value_iteration():
    rules = HogRules(goal=15, max_dice=4)
    rng = np.random.default_rng(3)
    pa = rng.random((15, 15, 4))
    pa /= pa.sum(axis=2, keepdims=True)
    pb = hog_levels.policy("slip:0.4:always:2", rules)
    h = hog_levels.evaluate_mixed(pa, pb, rules)
    ref = hog_reference(pa, pb, rules)
    assert h.a_first == pytest.approx(ref[0], abs=1e-11)
    assert h.a_second == pytest.approx(ref[1], abs=1e-11)


@pytest.mark.parametrize("a,b", [("always:5", "optimal"), ("always:2", "always:6")])
def test_hog_mixed_evaluation_of_fixed_strategies_equals_hog_evaluate(a, b):
    rules = HogRules()
    h = hog_levels.evaluate_mixed(hog_levels.policy(a, rules), hog_levels.policy(b, rules), rules)
    e = hog_evaluate(hog_strategy(a), hog_strategy(b), rules)
    assert h.a_first == pytest.approx(e.a_first, abs=1e-10)
    assert h.a_second == pytest.approx(e.a_second, abs=1e-10)


def test_hog_soft_policy_weighs_the_coachs_values():
    from dicelab.hog.play import PLAY, action_values, solution

    rules = HogRules()
    p = hog_levels.policy("soft:0.003", rules)
    v = action_values(solution(rules), 40, 55)  # the coach's numbers at one position
    want = np.exp((v - v.max()) / 0.003)
    assert p[40, 55] == pytest.approx(want / want.sum(), abs=1e-12)
    assert PLAY.bot("Soft:0.0030", rules, seed=1).spec == "soft:0.003"


def test_hog_ladder_is_strictly_ordered_by_exact_strength():
    rules = HogRules()
    ladder = hog_levels.levels(rules)
    top = hog_levels.policy(ladder[-1].spec, rules)
    mine = [hog_levels.evaluate_mixed(hog_levels.policy(lv.spec, rules), top, rules).mean for lv in ladder]
    assert all(a < b for a, b in zip(mine, mine[1:])), mine
    assert mine[-1] == pytest.approx(0.5, abs=1e-12)
    for lv, s in zip(ladder, mine):  # the plain levels also by hog.evaluate
        if not hog_levels.is_noisy(lv.spec):
            assert hog_evaluate(hog_strategy(lv.spec), hog_strategy("optimal"), rules).mean == pytest.approx(s, abs=1e-10)


# ------------------------------------------------------------------------------ Super Six, simultaneous Pig
def test_supersix_ladder_is_strictly_ordered_by_exact_strength():
    from dicelab.supersix import SuperSixRules
    from dicelab.supersix import evaluate as ss_evaluate
    from dicelab.supersix.levels import levels

    rules = SuperSixRules()
    ladder = levels(rules)
    s = [ss_evaluate(lv.spec, "optimal", rules).mean for lv in ladder]
    assert all(a < b for a, b in zip(s, s[1:])), s
    assert s[-1] == pytest.approx(0.5, abs=1e-12)


def test_simpig_ladder_is_strictly_ordered_by_exact_strength():
    from dicelab.simpig import SimPigRules
    from dicelab.simpig import evaluate as sp_evaluate
    from dicelab.simpig.levels import levels

    rules = SimPigRules(goal=100)
    ladder = levels(rules)
    s = [float(sp_evaluate(lv.spec, "equilibrium", rules)[0, 0]) for lv in ladder]
    assert all(a < b for a, b in zip(s, s[1:])), s
    assert s[-1] == pytest.approx(0.5, abs=1e-9)


# ------------------------------------------------------------------------------ the command and the cache
def run(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_levels_command_prints_one_object_with_the_ladder(cache_dir, capsys):
    core_levels._memory.clear()  # an earlier test's ladder in memory would skip this cache folder
    code, out, err = run(["supersix", "levels", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert [lv["name"] for lv in data["levels"]][-1] == "Perfect"
    assert all(isinstance(lv["strength"], float) for lv in data["levels"])
    assert data["details"]["exact"] is True and data["details"]["method"]
    core_levels.check_order(data)
    # measured once: the disk cache answers known() without measuring again
    core_levels._memory.clear()
    again = core_levels.known("supersix", get("supersix").play, get("supersix").make_rules())
    assert again == data


def test_levels_command_refuses_bad_rules_in_one_line(capsys):
    code, out, err = run(["pig", "levels", "--rule", "goal=1000", "--json"], capsys)
    assert code == 2 and out == ""
    assert "goal" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(["pig", "levels", "--rule", "goal"], capsys)
    assert code == 2 and "NAME=VALUE" in err
    code, out, err = run(["hog", "levels", "--rule", "colour=red"], capsys)
    assert code == 2 and "allowed" in err


@pytest.mark.parametrize("name", ["pig", "hog", "supersix", "simpig", "liars"])
def test_every_level_plays_the_smallest_goal_a_form_allows(name):
    # a level is offered under any rules the setup form accepts: each one must build a bot there
    # (the simultaneous Pig form once refused its own default level at goal 20: hold:25 > goal)
    from dicelab.core.registry import games

    entry = next(g for g in games() if g.name == name)
    ranked = core_levels.ranks(entry.play)
    if ranked is None:
        pytest.skip(f"{name} has no levels")
    goal = next((p for p in entry.params if p.name == "goal"), None)
    goals = [goal.lo, goal.lo + 1, 20, goal.default] if goal is not None and goal.lo is not None else [None]
    for g in goals:
        params = {p.name: p.default for p in entry.params if p.default is not None}
        if g is not None:
            params["goal"] = g
        rules = entry.make_rules(**params)
        ladder = ranked.levels(rules)
        assert len(ladder) >= 4
        for lv in ladder:
            entry.play.bot(lv.spec, rules)  # raises on a spec these rules cannot take
