"""Liar's Dice in dicelab: play it, learn it, and solve the small cases exactly.

Liar's Dice hides information: you see your own dice only, and every bid ("at least 4 fives on
the table") may be a bluff. That makes it the game where dicelab learns from play (seed 004,
Oehm's Q-learning agent) and then measures what was learned against an exact equilibrium.

Play and replay::

    from dicelab import liars
    rules = liars.LiarsRules(players=4, dice=6)            # 4 players x 6 dice, no wilds
    record = liars.simulate(rules, [liars.bot("random")] * 4, seed=7)
    liars.replay(record)                                 # re-deals from the seed, checks every move

Learn (the seed's experiment: 5,000 games against three random bots, then evaluate)::

    result = liars.train(rules, games=5000, seed=0)
    liars.evaluate(result.agent, ["random"] * 3, games=4000)   # win rate + 95% Wilson interval

Solve (two players, one round, payoff +-1; OpenSpiel's ``liars_dice``)::

    sol = liars.solve(liars.DuelRules(dice=(1, 1), faces=6, wild="highest"))
    sol.value            # -0.02713... = -7/258 for the first bidder
    sol.exploitability   # (BR_0 + BR_1) / 2, computed exactly

and how exploitable a learned or hand-made policy is::

    liars.best_response(liars.DuelRules(), agent.action_distribution, agent.rules)
"""

from __future__ import annotations

from dicelab.games.liars import Bid, GameRecord, LiarsGame, LiarsRules, PlayerView, play_game, replay
from dicelab.learn.qlearning import EvalResult, QAgent, TrainResult, evaluate, learning_curve, train
from dicelab.solvers.liars_cfr import (
    OPENSPIEL_VALUE_1V1_6_HIGHEST,
    DuelRules,
    Solution,
    policy_exploitability,
    solve,
    solve_lp,
)
from dicelab.strategies.liars import action_distribution, bot, probabilistic_bot, random_bot

simulate = play_game
best_response = policy_exploitability

__all__ = [
    "OPENSPIEL_VALUE_1V1_6_HIGHEST",
    "Bid",
    "DuelRules",
    "EvalResult",
    "GameRecord",
    "LiarsGame",
    "LiarsRules",
    "PlayerView",
    "QAgent",
    "Solution",
    "TrainResult",
    "action_distribution",
    "best_response",
    "bot",
    "evaluate",
    "learning_curve",
    "play_game",
    "policy_exploitability",
    "probabilistic_bot",
    "random_bot",
    "replay",
    "simulate",
    "solve",
    "solve_lp",
    "train",
]
