"""Q-learning for Liar's Dice (seed 004): rewards, state, learning, storage and the 95% claim."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy import stats

from dicelab.core.errors import DicelabError
from dicelab.liars.rules import LiarsRules, play_game
from dicelab.liars import kernel as K
from dicelab.liars.qlearning import QAgent, binomial_tails, evaluate, learning_curve, n_states, train
from dicelab.core.stats import wilson_interval
from dicelab.liars.strategies import bot


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


def test_state_space_size(trained):
    """Seed 004 prints ``dim(gs)`` = 2772 for 4 players x 6 dice; dicelab indexes 3,675 rows.

    The seed's ``generate.game.states`` keeps every distinct (total, own) pair of four players
    with 0..6 dice each and total > 0, times the 21 buckets 0..20. dicelab indexes the full grid
    (total 0..24) x (own 0..6) x 21 = 3,675 rows instead, for a simple formula: the 903 extra
    rows (no dice at all, own > total, or the others holding more than their 18 dice) can never
    occur. Both figures are pinned here; every state the agent reaches is one of the seed's rows.
    """
    seed_pairs = {(sum(d), d[0]) for d in itertools.product(range(7), repeat=4) if sum(d) > 0}
    assert len(seed_pairs) * 21 == 2772  # the seed's table, rebuilt from its R code
    assert n_states(LiarsRules()) == 3675, (
        f"dicelab indexes {n_states(LiarsRules())} states, the seed's table 2,772 (+ 903 unreachable)"
    )
    rows = np.flatnonzero(np.any(trained.agent.q != 0, axis=1))  # states that were updated
    visited = set(zip((rows // (7 * 21)).tolist(), (rows // 21 % 7).tolist()))
    assert len(visited) > 90 and visited <= seed_pairs
    assert n_states(LiarsRules(), "extended") == 3675 * 6  # plus 6 buckets for the own raise


def test_binomial_tails():
    t = binomial_tails(LiarsRules(wild="ones"))
    for n, x in [(0, 0), (5, 1), (18, 4), (18, 19), (23, 7)]:
        assert t[0, n, x] == pytest.approx(1.0 if x <= 0 else stats.binom.sf(x - 1, n, 1 / 6), abs=1e-12)
        assert t[1, n, x] == pytest.approx(1.0 if x <= 0 else stats.binom.sf(x - 1, n, 2 / 6), abs=1e-12)


def test_trained_agent_beats_three_random_bots(trained):
    res = evaluate(trained.agent, ["random"] * 3, games=2000, seed=7)
    assert res.ci_low > 0.5  # the claim: a 95% interval above 50%
    ci = stats.binomtest(res.wins, res.games).proportion_ci(0.95, method="wilson")
    assert (res.ci_low, res.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
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
    from dicelab.liars.plots import plot_learning_curve, plot_policy

    c = learning_curve(trained.winners, window=500)
    won = trained.winners == 0
    assert c["cumulative"][-1] == pytest.approx(won.mean(), abs=1e-12)
    assert len(c["moving"]) == 5000 - 500 + 1
    assert c["moving"][0] == pytest.approx(won[:500].mean(), abs=1e-12)
    assert c["moving"][-1] == pytest.approx(won[-500:].mean(), abs=1e-12)
    p = plot_learning_curve(trained.winners, tmp_path / "curve.png")
    q = plot_policy(trained.agent, tmp_path / "policy.png")
    for f in (p, q):
        with open(f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_seed_reproduction_over_several_seeds():
    """Seed 004's experiment, 5 training seeds x 10,000 evaluation games (see BENCHMARKS.md).

    DISAGREEMENT with the seed, pinned: the seed's agent wins 65% (65 of 100 games after 5,000
    training games; 65.8% while training); ours wins 90.8% (45,395 of 50,000). A fixed
    always-raise policy already gets 62.5%, so the seed's agent looks like one that learned to
    raise but not when to call; its R code is not in the seed, so the gap cannot be traced.
    The test fails if our figure moves off 90.8% or if it ever comes close to the seed's.
    """
    measured, seed_rate = 0.908, 0.65
    wins = n = 0
    for s in range(5):
        agent = train(LiarsRules(), games=5000, seed=s).agent
        r = evaluate(agent, ["random"] * 3, games=10_000, seed=10_000 + s)
        wins, n = wins + r.wins, n + r.games
    ci = stats.binomtest(wins, n).proportion_ci(0.95, method="wilson")
    msg = f"ours {wins}/{n} = {wins / n:.4f}, 95% [{ci.low:.4f}, {ci.high:.4f}]; seed 004: {seed_rate}"
    assert ci.low <= measured <= ci.high, msg  # the pinned figure
    assert not ci.low <= seed_rate <= ci.high, msg  # the seed's 65% lies outside our interval
    seed_ci = stats.binomtest(65, 100).proportion_ci(0.95, method="wilson")
    assert not seed_ci.low <= wins / n <= seed_ci.high, msg  # and ours outside the seed's (100 games)


@pytest.mark.parametrize("design", ["seed", "extended"])
@pytest.mark.parametrize("wild", ["none", "ones", "highest"])
def test_compiled_state_index_matches_the_python_one(design, wild):
    from dicelab.liars.rules import Bid, LiarsGame

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
