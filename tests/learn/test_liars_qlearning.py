"""Q-learning for Liar's Dice (seed 004): rewards, state, learning, storage and the 95% claim."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from dicelab.errors import DicelabError
from dicelab.games.liars import LiarsRules, play_game
from dicelab.learn import liars_kernel as K
from dicelab.learn.qlearning import QAgent, binomial_tails, evaluate, learning_curve, n_states, train
from dicelab.sim.stats import wilson_interval
from dicelab.strategies.liars import bot


@pytest.fixture(scope="module")
def trained():
    """The seed's experiment at its own size: 5,000 games against three random bots."""
    return train(LiarsRules(), games=5000, seed=3)


def test_reward_matrix_is_the_seeds():
    # seed 004: -1 for losing a die, +1 when another player loses one, +-10 for the game
    assert K._reward(24, 6, 23, 5) == -1.0
    assert K._reward(24, 6, 23, 6) == 1.0
    assert K._reward(8, 1, 7, 0) == -10.0
    assert K._reward(4, 3, 3, 3) == 10.0
    assert K._reward(10, 4, 10, 4) == 0.0


def test_state_space_size():
    # (total 0..24) x (own 0..6) x 21 buckets; the seed's table has 2,772 valid rows of these
    assert n_states(LiarsRules()) == 25 * 7 * 21 >= 2772
    assert n_states(LiarsRules(), "extended") == 25 * 7 * 21 * 6


def test_binomial_tails():
    t = binomial_tails(LiarsRules(wild="ones"))
    for n, x in [(0, 0), (5, 1), (18, 4), (18, 19), (23, 7)]:
        assert t[0, n, x] == pytest.approx(1.0 if x <= 0 else stats.binom.sf(x - 1, n, 1 / 6), abs=1e-12)
        assert t[1, n, x] == pytest.approx(1.0 if x <= 0 else stats.binom.sf(x - 1, n, 2 / 6), abs=1e-12)


def test_trained_agent_beats_three_random_bots(trained):
    res = evaluate(trained.agent, ["random"] * 3, games=2000, seed=7)
    assert res.ci_low > 0.5  # the claim: a 95% interval above 50%
    lo, hi = wilson_interval(res.wins, res.games)
    assert (res.ci_low, res.ci_high) == (lo, hi)
    base = evaluate("random", ["random"] * 3, games=2000, seed=7)
    assert base.ci_high < res.ci_low  # learning is what made the difference
    assert 0.2 < base.win_rate < 0.35  # a random seat 0 is about 1 in 4
    # the learning curve rises: the last 1,000 training games beat the first 1,000
    w = trained.winners == 0
    assert w[-1000:].mean() > w[:1000].mean()


def test_compiled_loop_agrees_with_the_python_engine(trained):
    """The numba kernel and the Python engine + bots are two implementations of the same game."""
    rules = LiarsRules()
    agent = trained.agent
    n = 300
    wins = sum(
        play_game(rules, [agent, bot("random"), bot("random"), bot("random")], seed=1000 + g).winner == 0
        for g in range(n)
    )
    fast = evaluate(agent, ["random"] * 3, games=4000, seed=8)
    lo, hi = wilson_interval(wins, n, 0.999)
    assert lo <= fast.win_rate <= hi
    wins_p = sum(
        play_game(rules, [bot("probabilistic")] + [bot("random")] * 3, seed=5000 + g).winner == 0 for g in range(n)
    )
    fast_p = evaluate("probabilistic", ["random"] * 3, games=4000, seed=9)
    lo, hi = wilson_interval(wins_p, n, 0.999)
    assert lo <= fast_p.win_rate <= hi


def test_training_is_reproducible():
    r = LiarsRules(players=3, dice=2)
    a = train(r, games=300, seed=5)
    b = train(r, games=300, seed=5)
    c = train(r, games=300, seed=6)
    assert np.array_equal(a.agent.q, b.agent.q) and np.array_equal(a.winners, b.winners)
    assert not np.array_equal(a.agent.q, c.agent.q)
    # the untouched rows are exactly the never-visited states; terminal (own = 0) rows stay 0
    own0 = [((t * 3 + 0) * 21 + b) for t in range(7) for b in range(21)]
    assert np.all(a.agent.q[own0] == 0.0)


def test_extended_design_and_seed_pairing_train():
    r = LiarsRules(players=3, dice=2)
    ext = train(r, games=500, seed=1, design="extended")
    assert ext.agent.q.shape == (n_states(r, "extended"), 3) and np.any(ext.agent.q != 0)
    sp = train(r, games=500, seed=1, pairing="seed")
    assert np.any(sp.agent.q != 0)
    with pytest.raises(DicelabError):
        train(r, games=10, design="bigger")
    with pytest.raises(DicelabError):
        train(r, games=10, pairing="later")
    with pytest.raises(DicelabError, match="need 2 opponents"):
        train(r, games=10, opponents=["random"])
    with pytest.raises(DicelabError, match="unknown opponent"):
        train(r, games=10, opponents=["random", "smart"])


def test_save_and_load(tmp_path, trained):
    path = trained.agent.save(str(tmp_path / "agent"))
    back = QAgent.load(path)
    assert np.array_equal(back.q, trained.agent.q) and back.rules == trained.agent.rules
    assert back.games_trained == 5000 and back.design == "seed"
    meta = json.loads((tmp_path / "agent.json").read_text())
    assert meta["kind"] == "liars-q-table"
    q = trained.agent.q.copy()
    q[0, 0] += 1.0
    np.savez_compressed(tmp_path / "agent.npz", q=q)
    with pytest.raises(DicelabError, match="checksum"):
        QAgent.load(path)


def test_agent_plays_only_its_own_rules(trained):
    with pytest.raises(DicelabError, match="trained for 4 players"):
        evaluate(trained.agent, ["random"] * 2, games=10, rules=LiarsRules(players=3))


def test_learning_curve_and_plot(tmp_path, trained):
    from dicelab.plots.liars import plot_learning_curve, plot_policy

    c = learning_curve(trained.winners, window=500)
    assert c["cumulative"][-1] == pytest.approx(trained.win_rate)
    assert len(c["moving"]) == 5000 - 500 + 1
    p = plot_learning_curve(trained.winners, tmp_path / "curve.png")
    q = plot_policy(trained.agent, tmp_path / "policy.png")
    for f in (p, q):
        with open(f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_seed_reproduction_over_several_seeds():
    """Seed 004's experiment, 5 training seeds x 10,000 evaluation games (see BENCHMARKS.md).

    The seed reports about 65%; we get about 91% (a fixed always-raise policy already gets 62.5%).
    """
    wins = n = 0
    for s in range(5):
        agent = train(LiarsRules(), games=5000, seed=s).agent
        r = evaluate(agent, ["random"] * 3, games=10_000, seed=10_000 + s)
        wins, n = wins + r.wins, n + r.games
    lo, hi = wilson_interval(wins, n)
    assert lo > 0.65  # at least the seed's figure, with 95% confidence


@pytest.mark.parametrize("design", ["seed", "extended"])
@pytest.mark.parametrize("wild", ["none", "ones", "highest"])
def test_compiled_state_index_matches_the_python_one(design, wild):
    from dicelab.games.liars import Bid, LiarsGame

    rules = LiarsRules(players=3, dice=4, wild=wild)
    agent = QAgent.new(rules, design)
    tails = binomial_tails(rules)
    rb = 6 if design == "extended" else 1
    rng = np.random.default_rng(0)
    for trial in range(60):
        g = LiarsGame(rules, seed=trial)
        g.dice_counts = [int(x) for x in rng.integers(1, 5, size=3)]
        g.hands = tuple(tuple(sorted(int(x) for x in rng.integers(1, 7, size=n))) for n in g.dice_counts)
        if trial % 5:
            g.current_bid = Bid(int(rng.integers(1, sum(g.dice_counts) + 1)), int(rng.integers(1, 7)))
        view = g.view(0)
        hc = np.zeros((3, 7), np.int64)
        for p, h in enumerate(g.hands):
            for f in range(1, 7):
                hc[p, f] = rules.count(h, f)
        counts = np.array(g.dice_counts, np.int64)
        q, f = (0, 0) if g.current_bid is None else (g.current_bid.quantity, g.current_bid.face)
        s = K._agent_state(hc, counts, q, f, int(counts.sum()), rules.wild_face, tails, 4, 6, rb, 0)
        assert s == agent.state_index(view)
