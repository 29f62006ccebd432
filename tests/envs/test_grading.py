"""Exact grades of learned policies (dicelab.grade): against the strategy lab's numbers, slow
references written here, and laws (the performance-difference identity, optimal play loses nothing),
and the observation enumeration against what the environments really show."""

from __future__ import annotations

from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

import dicelab
import dicelab.envs  # noqa: F401  (registers the environments)
from dicelab import hog, liars, pig, simpig, supersix
from dicelab.core.errors import DicelabError


def hold_at(n: int):
    """A hold-at-n policy over the Pig environment's observations: [own, opponent, turn total, mine]."""

    def policy(obs):
        own, _, turn, _ = obs["observation"]
        return int(turn < n and own + turn < 10**6)  # 1 rolls, 0 holds

    return policy


# ---------------------------------------------------------------------------------------------- Pig


def slow_pig_value(rules: pig.PigRules, roll_a, roll_b, a_first: bool) -> float:
    """P(A wins) by plain value iteration over every state of both players (the textbook method)."""
    g = rules.goal
    o = rules.outcomes
    states = [(x, y, k) for x in range(g) for y in range(g) for k in range(g - x)]
    va = {s: 0.0 for s in states}  # A to move at (x, y, k): P(A wins)
    vb = {s: 0.0 for s in states}  # B to move at (y, x, k) from B's side: P(A wins)
    for _ in range(20_000):
        delta = 0.0
        for table, v, other, mine in ((roll_a, va, vb, True), (roll_b, vb, va, False)):
            for x, y, k in states:
                if table(x, y, k):
                    new = o.bust * other[(y, x, 0)]
                    for d, q in zip(o.add_points.tolist(), o.add_probs.tolist()):
                        new += q * ((1.0 if mine else 0.0) if x + k + d >= g else v[(x, y, k + d)])
                else:
                    new = other[(y, x + k, 0)]
                delta = max(delta, abs(new - v[(x, y, k)]))
                v[(x, y, k)] = new
        if delta < 1e-14:
            break
    return va[(0, 0, 0)] if a_first else vb[(0, 0, 0)]


@pytest.mark.parametrize("n", [2, 4])
def test_pig_hold_at_n_against_the_lab_and_a_slow_reference(n):
    rules = pig.PigRules(goal=10, variant="piglet")
    g = dicelab.grade("dicelab/Pig-v0", hold_at(n), goal=10, variant="piglet")
    e = pig.evaluate(f"hold:{n}", "optimal", rules)  # the strategy lab
    assert g["win_first"] == pytest.approx(e.a_first, abs=1e-12)
    assert g["win_second"] == pytest.approx(e.a_second, abs=1e-12)
    sol = pig.solve(rules)
    opt = lambda x, y, k: bool(sol.roll[x, y, k])  # noqa: E731
    mine = lambda x, y, k: k < n  # noqa: E731
    assert g["win_first"] == pytest.approx(slow_pig_value(rules, mine, opt, True), abs=1e-10)
    assert g["win_second"] == pytest.approx(slow_pig_value(rules, mine, opt, False), abs=1e-10)
    # law: the expected loss per game is the optimal value minus the policy's (performance difference)
    for seat in ("first", "second"):
        assert g[seat]["identity_gap"] < 1e-12
        assert g[seat]["lost_per_game"] > 0
    assert 0 < g["mean_loss"] <= g["worst_loss"] <= 1


def test_pig_hold_at_20_to_100_is_the_lab_number():
    # a table file, so that 505,000 observations are not 505,000 Python calls
    g = dicelab.grade("dicelab/Pig-v0", hold_at(20))
    e = pig.evaluate("hold:20", "optimal")
    assert (g["win_first"], g["win_second"]) == pytest.approx((e.a_first, e.a_second), abs=1e-12)
    assert g["optimal_first"] == pytest.approx(0.5305927, abs=1e-7)  # Neller & Presser
    assert g["first"]["identity_gap"] < 1e-12 and g["second"]["identity_gap"] < 1e-12


def test_pig_visits_against_a_dense_reference():
    """The block algorithm's expected visits equal (I - Q)^-1 of the whole chain, built here."""
    from dicelab.pig.policy_grade import visits

    rules = pig.PigRules(goal=8)
    g, o = rules.goal, rules.outcomes
    rng = np.random.default_rng(3)
    ta = rng.random((g, g, g)) < 0.7
    tb = pig.solve(rules).roll
    states = [(w, x, y, k) for w in (0, 1) for x in range(g) for y in range(g) for k in range(g - (x if w == 0 else y))]
    idx = {s: n for n, s in enumerate(states)}  # (0, x, y, k): A to move; (1, x, y, k): B to move, its total k
    Q = np.zeros((len(states), len(states)))
    for (w, x, y, k), s in idx.items():
        me, other = (x, y) if w == 0 else (y, x)
        roll = (ta if w == 0 else tb)[me, other, k]
        if roll:
            Q[s, idx[(1 - w, x, y, 0)]] += o.bust
            for d, q in zip(o.add_points.tolist(), o.add_probs.tolist()):
                if me + k + d < g:
                    Q[s, idx[(w, x, y, k + d)]] += q
        else:
            nx, ny = (x + k, y) if w == 0 else (x, y + k)
            Q[s, idx[(1 - w, nx, ny, 0)]] += 1.0
    for first in (True, False):
        start = np.zeros(len(states))
        start[idx[(0 if first else 1, 0, 0, 0)]] = 1.0
        dense = np.linalg.solve((np.eye(len(states)) - Q).T, start)
        va, _, _ = visits(ta, tb, rules, first)
        for (w, x, y, k), s in idx.items():
            if w == 0:
                assert va[x, y, k] == pytest.approx(dense[s], abs=1e-10)


def test_optimal_play_loses_nothing():
    rules = pig.PigRules(goal=12)
    sol = pig.solve(rules)
    g = dicelab.grade("dicelab/Pig-v0", lambda o: int(sol.roll[tuple(o["observation"][:3])]), goal=12)
    assert g["win_first"] == pytest.approx(sol.p[0, 0, 0], abs=1e-12)
    assert g["mean_loss"] == pytest.approx(0.0, abs=1e-12) and g["worst_loss"] == pytest.approx(0.0, abs=1e-12)


def test_table_files_grade_as_the_callable(tmp_path):
    from dicelab.pig.policy_grade import observations

    rules = pig.PigRules(goal=10, variant="piglet")
    obs, _ = observations(rules)
    act = (obs[:, 2] < 3).astype(int)
    np.savez(tmp_path / "t.npz", observations=obs, actions=act)
    np.savetxt(tmp_path / "t.csv", np.c_[obs, act], fmt="%d", delimiter=",", header="own,opp,turn,mine,action",
               comments="")
    ref = dicelab.grade("dicelab/Pig-v0", hold_at(3), goal=10, variant="piglet")
    for f in ("t.npz", "t.csv"):
        got = dicelab.grade("dicelab/Pig-v0", tmp_path / f, goal=10, variant="piglet")
        assert got["win_first"] == ref["win_first"] and got["mean_loss"] == ref["mean_loss"]
    with pytest.raises(DicelabError, match="no action for observation"):
        dicelab.grade("dicelab/Pig-v0", tmp_path / "t.npz", goal=11, variant="piglet")


def test_bad_policies_get_one_line():
    with pytest.raises(DicelabError, match="legal actions"):
        dicelab.grade("dicelab/Hog-v0", lambda o: 99, goal=10)
    with pytest.raises(DicelabError, match="action index"):
        dicelab.grade("dicelab/Pig-v0", lambda o: "roll", goal=5)
    with pytest.raises(DicelabError, match="unknown environment"):
        dicelab.grade("dicelab/Chess-v0", lambda o: 0)
    with pytest.raises(DicelabError, match="two-dice"):
        dicelab.grade("dicelab/Pig-v0", hold_at(20), variant="two-dice", goal=20)


# ------------------------------------------------------------------------------ Hog, Super Six, SimPig


def test_hog_always_n_against_the_solver():
    rules = hog.HogRules(goal=30)
    g = dicelab.grade("dicelab/Hog-v0", lambda o: 3, goal=30)  # action 3 rolls 4 dice
    e = hog.evaluate("always:4", "optimal", rules)
    assert (g["win_first"], g["win_second"]) == pytest.approx((e.a_first, e.a_second), abs=1e-12)
    assert g["first"]["identity_gap"] < 1e-12 and g["second"]["identity_gap"] < 1e-12
    opt = hog.solve(rules)
    best = dicelab.grade("dicelab/Hog-v0", lambda o: int(opt.dice[o["observation"][0], o["observation"][1]]) - 1,
                         goal=30)
    assert best["mean_loss"] == pytest.approx(0.0, abs=1e-12)
    assert best["win_first"] == pytest.approx(opt.W[0, 0], abs=1e-12)


def test_supersix_against_the_solver():
    rules = supersix.SuperSixRules(sticks=3)
    g = dicelab.grade("dicelab/SuperSix-v0", lambda o: int(o["observation"][0] < 3), sticks=3)
    e = supersix.evaluate("stop-at:3", "optimal", rules)
    assert (g["win_first"], g["win_second"]) == pytest.approx((e.a_first, e.a_second), abs=1e-12)
    for seat in ("first", "second"):
        assert g[seat]["identity_gap"] < 1e-12
        assert g[seat]["win"] == pytest.approx(g[f"win_{seat}"], abs=1e-12)  # the chain's own absorption


def test_simpig_against_the_equilibrium():
    g = dicelab.grade("dicelab/SimPig-v0", lambda o: min(5, 19 - int(o["observation"][0])), goal=20)
    ref = simpig.evaluate("hold:6", "equilibrium", simpig.SimPigRules(goal=20))[0, 0]
    assert g["win_first"] == pytest.approx(ref, abs=1e-12)
    assert g["first"]["win"] == pytest.approx(ref, abs=1e-12)  # the chain's absorption, another pass
    assert g["first"]["identity_gap"] < 1e-12  # loss per game = 1/2 - the policy's share
    assert g["win"] < 0.5 and g["worst_loss"] > 0


# ---------------------------------------------------------------------------------------- Liar's Dice


def raise_by_one(obs):
    """Always the lowest legal raise; call only when no raise is left: known to be fully exploitable."""
    legal = np.flatnonzero(obs["action_mask"])
    bids = legal[legal > 0]
    return int(bids[0]) if len(bids) else 0


def brute_exploitability(faces: int, act) -> float:
    """(BR_0 + BR_1) / 2 for a deterministic policy ``act(seat, hand, last)`` in the 1 v 1 round, by
    enumerating the best responder's information sets (slow, plain Python)."""
    n = 2 * faces

    def holds(q, f, h0, h1):
        return (h0 == f) + (h1 == f) >= q

    def br(seat):
        total = Fraction(0)
        for mine in range(1, faces + 1):
            def value(hist, posterior):  # posterior: opponent hand -> weight; br to move or not
                mover = len(hist) % 2
                last = hist[-1] if hist else -1
                if mover == seat:  # the responder: best action against the weighted opponent hands
                    options = []
                    if hist:
                        q, f = last // faces + 1, last % faces + 1
                        options.append(sum(w * (1 if not holds(q, f, mine, o) else -1) for o, w in posterior.items()))
                    for r in range(last + 1, n):
                        options.append(value(hist + (r,), posterior))
                    return max(options)
                out = Fraction(0)
                for o, w in posterior.items():
                    a = act(mover, o, last)
                    if a == "call":
                        q, f = last // faces + 1, last % faces + 1
                        out += w * (1 if holds(q, f, mine, o) else -1)
                    else:
                        out += value(hist + (a,), {o: w})
                return out

            total += Fraction(1, faces) * value((), {o: Fraction(1, faces) for o in range(1, faces + 1)})
        return total

    return float((br(0) + br(1)) / 2)


def test_liars_exploitable_policy_three_ways():
    faces = 3

    def act(seat, hand, last):
        return "call" if last == 2 * faces - 1 else last + 1

    g = dicelab.grade("dicelab/LiarsDice-v0", raise_by_one, players=2, dice=1, faces=faces)
    assert g["method"] == "exact"
    ref = brute_exploitability(faces, act)
    assert g["exploitability"] == pytest.approx(ref, abs=1e-12)
    # and the exact solver's evaluator (another tree) on the same policy
    def dist(view):
        t = -1 if view.current_bid is None else view.current_bid.rank(faces)
        a = act(view.player, view.hand[0], t)
        return {None: 1.0} if a == "call" else {liars.Bid.from_rank(a, faces): 1.0}

    rules = liars.DuelRules(dice=(1, 1), faces=faces, wild="none")
    other = liars.exploitability(rules, dist, liars.LiarsRules(players=2, dice=1, faces=faces))
    assert g["exploitability"] == pytest.approx(other["exploitability"], abs=1e-12)


def test_liars_two_dice_grades_every_duel_size():
    g = dicelab.grade("dicelab/LiarsDice-v0", raise_by_one, players=2, dice=2, faces=3)
    assert [d["dice"] for d in g["duels"]] == [[2, 2], [2, 1], [1, 2], [1, 1]]
    assert all(d["method"] == "exact" and 0 < d["exploitability"] <= 1 + 1e-12 for d in g["duels"])


# ------------------------------------------------------------------- the observation enumeration


@pytest.mark.parametrize(("env_id", "params"), [
    ("dicelab/Pig-v0", {"goal": 12}),
    ("dicelab/Pig-v0", {"goal": 10, "variant": "piglet"}),
    ("dicelab/Hog-v0", {"goal": 20}),
    ("dicelab/SuperSix-v0", {"sticks": 3}),
    ("dicelab/LiarsDice-v0", {"players": 2, "dice": 2, "faces": 3}),
    ("dicelab/SimPig-v0", {"goal": 12}),
])
def test_every_observation_the_environment_shows_is_graded(env_id, params):
    """Play the environment at random; every decision it shows the learner (two or more legal
    actions) must be one the grade asked the policy about, with the same mask."""
    asked: dict[tuple, tuple] = {}
    rng = np.random.default_rng(0)

    def spy(obs):
        asked[tuple(obs["observation"].tolist())] = tuple(obs["action_mask"].tolist())
        legal = np.flatnonzero(obs["action_mask"])
        return int(rng.choice(legal))

    dicelab.grade(env_id, spy, **params)
    opponents = {"dicelab/Pig-v0": "hold:3", "dicelab/Hog-v0": "always:3", "dicelab/SuperSix-v0": "always",
                 "dicelab/LiarsDice-v0": "random", "dicelab/SimPig-v0": "hold:4"}[env_id]
    env = gym.make(env_id, opponents=opponents, **params)
    seen = 0
    for episode in range(40):
        obs, _ = env.reset(seed=episode)
        for _ in range(400):
            mask = obs["action_mask"]
            if mask.sum() > 1:
                key = tuple(obs["observation"].tolist())
                assert key in asked, f"{env_id}: observation {key} was never graded"
                assert asked[key] == tuple(mask.tolist()), f"{env_id}: mask differs at {key}"
                seen += 1
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if term or trunc:
                break
    assert seen > 20


def test_liars_beyond_the_exact_tree_is_graded_by_lbr(monkeypatch):
    """Where the tree is too large for the exact grade, local best response takes over: forced here on
    the 1 v 1 round (the exact limit set to 0 bids). Against a policy that names its own face once and
    calls anything higher, LBR must find the gain the brute-force best response finds, within its own
    95% interval, and never claim more (LBR is a lower bound)."""
    import dicelab.liars.policy_grade as pg

    faces = 3

    def own_face(obs):  # bid "one <my face>" while that is a raise, else call
        o = obs["observation"]
        mine = int(np.argmax(o[:faces]))  # the rank of "one <my face>"
        q, f = int(o[faces + 2]), int(o[faces + 3])
        last = -1 if q == 0 else (q - 1) * faces + (f - 1)
        return mine + 1 if last < mine else 0

    exact = brute_exploitability(faces, lambda seat, hand, last: hand - 1 if last < hand - 1 else "call")
    assert 0.05 < exact < 0.95  # neither safe nor hopeless: the estimate has something to find
    monkeypatch.setattr(pg, "MAX_EXACT_BIDS", 0)
    g = dicelab.grade("dicelab/LiarsDice-v0", own_face, players=2, dice=1, faces=faces)
    assert g["method"].startswith("local best response")
    ci = g["duels"][0]["ci"]
    assert 0 < ci < 0.05
    assert g["exploitability"] <= exact + 2.5 * ci  # a lower bound
    assert abs(g["exploitability"] - exact) <= 2.5 * ci  # one step of look-ahead suffices here
    monkeypatch.setattr(pg, "MAX_EXACT_BIDS", 26)  # and the exact grade of the same policy is the brute force's
    assert dicelab.grade("dicelab/LiarsDice-v0", own_face, players=2, dice=1, faces=faces)["exploitability"] == \
        pytest.approx(exact, abs=1e-12)
