"""Seed 004 (Oehm, Q-learning with Liar's Dice, a blog post in R), recomputed beside the values it
printed, through this package's verbs. ``dicelab reproduce 004`` runs it (:mod:`dicelab.core.reproduce`).
"""

from __future__ import annotations

import itertools

import numpy as np

from dicelab.core.reproduce import Check, Context, Figure, Reproduction, Section
from dicelab.core.stats import wilson_interval
from dicelab.liars.qlearning import QAgent, evaluate, n_states, train
from dicelab.liars.rules import LiarsRules

TITLE = "Oehm, Q-learning example with Liar's Dice in R (blog post, 2018)"
SOURCE = "seed `004_1fcd2dbe66bc2d47.txt`"

#: What the blog printed ("The simulation" and "Bot got brains"): 4 players x 6 dice, the agent in
#: seat 1 against three random bots, 5,000 training games.
STATES = 2772  # "## [1] 2772    3": dim(gs) for generate.game.states(4, 6)
WINNERS = (3288, 434, 496, 782)  # "table of winners" over the 5,000 training games
TRAINING_SHARE = "65.8%"  # 3288 / 5000
AFTER = (65, 100)  # "another 100 games with the trained agent": 65 wins


def state_space(ctx: Context) -> Section:
    """The compact state: dice on the table, own dice, probability bucket."""
    rules = LiarsRules()  # 4 players x 6 dice
    seed_rows = len({(sum(d), d[0]) for d in itertools.product(range(7), repeat=4) if sum(d) > 0}) * 21
    why = ("The blog's table keeps each (total dice, own dice) pair that four players with 0 to 6 dice can "
           "make, times 21 buckets; rebuilt from its R code it has 2,772 rows (the row above). dicelab indexes "
           "the full grid (total 0..24) x (own 0..6) x 21 buckets for a simple formula; the 903 extra rows (no "
           "dice at all, more own dice than on the table, the others holding more than 18) never occur "
           "(tests/liars/test_liars_qlearning.py checks that every state the agent visits is one of the blog's).")
    checks = [Check("states of the blog's table, rebuilt", "'State space': dim(gs)", STATES, seed_rows),
              Check("rows of dicelab's Q table", "'State space': dim(gs)", STATES, n_states(rules), why=why)]
    return Section("The state space", "", checks)


def training(ctx: Context) -> Section:
    """5,000 training games against three random bots, then the greedy agent evaluated."""
    from dicelab.liars.plots import plot_learning_curve

    rules = LiarsRules()
    games = 1000 if ctx.quick else 5000
    evals = 1000 if ctx.quick else 10_000
    reduced = f"{games:,} training games" if ctx.quick else None
    res = train(rules, games=games, seed=0)
    share = res.win_rate
    after = evaluate(res.agent, ["random"] * 3, games=evals, seed=1)
    counts = np.bincount(res.winners, minlength=4)
    raise_only = QAgent.new(rules)
    raise_only.q[:, 1] = 1.0  # always raise (the blog's raise rule), never call
    base = evaluate(raise_only, ["random"] * 3, games=evals, seed=2)
    untrained = evaluate(QAgent.new(rules), ["random"] * 3, games=evals, seed=3)
    lo, hi = wilson_interval(*AFTER)
    why = (f"dicelab's agent, built as the blog describes (state = dice on the table, own dice, one of 20 "
           f"probability buckets; call or raise; +-10 for the game, +-1 for a round; alpha 0.1, gamma 0.9; bluffs "
           f"half the time), wins {after.win_rate:.1%} [{after.ci_low:.1%}, {after.ci_high:.1%}] of {evals:,} games "
           f"after training; the blog's 65 of 100 has the 95% interval [{lo:.1%}, {hi:.1%}], far from it. Evidence "
           f"that the blog's agent learned less: a fixed policy that always raises by the blog's rule already wins "
           f"{base.win_rate:.1%}, and the untrained agent (call or raise at random) {untrained.win_rate:.1%}; 65% "
           f"is what an agent that learned to raise but not when to call gets. The blog's full R code is not in "
           f"the text, so the gap cannot be traced further (BENCHMARKS.md: five training seeds, 90.8%).")
    checks = [Check("agent's share of the 5,000 training games", "'table of winners': 3288 / 5000", TRAINING_SHARE,
                    share, why=why, reduced=reduced),
              Check("agent's wins in games after training", "'Bot got brains': 65 of 100", "65%", after.win_rate,
                    why="See (1).", reduced=reduced)]
    for seat in range(1, 4):
        checks.append(Check(f"training games won by random bot {seat + 1}", "'table of winners'", WINNERS[seat],
                            int(counts[seat]), why="See (1): a stronger agent leaves the bots fewer games.",
                            reduced=reduced))
    path = plot_learning_curve(res.winners, ctx.figure("learning-curve.png"), n_players=4,
                               start=min(1000, games // 5))
    from pathlib import Path

    text = (f"Training: {games:,} games, seed 0, {res.seconds:.1f} s (numba). The blog plots the cumulative share "
            "of agent wins from game 1,000 on; so does the figure.")
    return Section("Training against three random bots", text, checks,
                   [Figure(Path(path).name, "Share of training games won by the Q-learning agent (the blog's figure)")])


REPRODUCTIONS = (Reproduction("004", TITLE, SOURCE, (state_space, training)),)

__all__ = ["REPRODUCTIONS"]
