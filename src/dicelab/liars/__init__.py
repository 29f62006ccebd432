"""Liar's Dice in dicelab: play it, learn it, and solve the small cases exactly.

Liar's Dice hides information: you see your own dice only, and every bid ("at least 4 fives on
the table") may be a bluff. That makes it the game where dicelab learns from play (seed 004,
Oehm's Q-learning agent) and then measures what was learned against an exact equilibrium.

Play and replay::

    from dicelab import liars
    rules = liars.LiarsRules(players=4, dice=6)            # 4 players x 6 dice, no wilds
    record = liars.play_game(rules, [liars.bot("random")] * 4, seed=7)
    liars.replay(record)                                 # re-deals from the seed, checks every move

Learn (the seed's experiment: 5,000 games against three random bots, then evaluate)::

    result = liars.train(rules, games=5000, seed=0)
    liars.evaluate_agent(result.agent, ["random"] * 3, games=4000)   # win rate + 95% Wilson interval

Solve (two players, one round, payoff +-1; OpenSpiel's ``liars_dice``: -7/258 for the first
bidder):

>>> from dicelab import liars
>>> sol = liars.solve(liars.DuelRules(dice=(1, 1), faces=6, wild="highest"))
>>> round(sol.value, 4), round(-7 / 258, 4), sol.exploitability < 1e-4
(-0.0271, -0.0271, True)

and how exploitable a learned or hand-made policy is::

    liars.exploitability(liars.DuelRules(), agent.action_distribution, agent.rules)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicelab.core.lazy import lazy_api
from dicelab.core.registry import GameEntry, Param

if TYPE_CHECKING:
    from dicelab.liars.api import evaluate, simulate
    from dicelab.liars.cfr import (
        OPENSPIEL_VALUE_1V1_6_HIGHEST,
        DuelRules,
        Solution,
        policy_exploitability,
        solve,
        solve_lp,
    )
    from dicelab.liars.cfr import policy_exploitability as exploitability
    from dicelab.liars.duel import Duel, DuelPolicy, train_duel
    from dicelab.liars.grading import exact_grade
    from dicelab.liars.lbr import head_to_head, lbr, table_policy
    from dicelab.liars.library import train_all as train_duels
    from dicelab.liars.multi import ScoutBot, win_share
    from dicelab.liars.qlearning import (
        EvalResult,
        QAgent,
        TrainResult,
        learning_curve,
        train,
    )
    from dicelab.liars.qlearning import evaluate as evaluate_agent
    from dicelab.liars.resolve import resolve_profile
    from dicelab.liars.responder import learned_br
    from dicelab.liars.rules import (
        Bid,
        GameRecord,
        LiarsGame,
        LiarsRules,
        PlayerView,
        play_game,
        replay,
    )
    from dicelab.liars.state import new_game, state_from_json
    from dicelab.liars.strategies import action_distribution, bot, probabilistic_bot, random_bot

#: public name -> (module, attribute); loaded on first use
_PUBLIC: dict[str, tuple[str, str]] = {
    "PUZZLES": ("dicelab.liars.puzzles", "SOURCE"),
    "PLAY": ("dicelab.liars.play", "PLAY"),
    "REPRODUCTIONS": ("dicelab.liars.reproduce", "REPRODUCTIONS"),
    "cli_app": ("dicelab.liars.cli", "app"),
    "Bid": ("dicelab.liars.rules", "Bid"),
    "DuelRules": ("dicelab.liars.cfr", "DuelRules"),
    "EvalResult": ("dicelab.liars.qlearning", "EvalResult"),
    "GameRecord": ("dicelab.liars.rules", "GameRecord"),
    "LiarsGame": ("dicelab.liars.rules", "LiarsGame"),
    "LiarsRules": ("dicelab.liars.rules", "LiarsRules"),
    "OPENSPIEL_VALUE_1V1_6_HIGHEST": ("dicelab.liars.cfr", "OPENSPIEL_VALUE_1V1_6_HIGHEST"),
    "PlayerView": ("dicelab.liars.rules", "PlayerView"),
    "QAgent": ("dicelab.liars.qlearning", "QAgent"),
    "Solution": ("dicelab.liars.cfr", "Solution"),
    "TrainResult": ("dicelab.liars.qlearning", "TrainResult"),
    "action_distribution": ("dicelab.liars.strategies", "action_distribution"),
    "bot": ("dicelab.liars.strategies", "bot"),
    "evaluate": ("dicelab.liars.api", "evaluate"),
    "evaluate_agent": ("dicelab.liars.qlearning", "evaluate"),
    "simulate": ("dicelab.liars.api", "simulate"),
    "exploitability": ("dicelab.liars.cfr", "policy_exploitability"),
    "learning_curve": ("dicelab.liars.qlearning", "learning_curve"),
    "play_game": ("dicelab.liars.rules", "play_game"),
    "policy_exploitability": ("dicelab.liars.cfr", "policy_exploitability"),
    "probabilistic_bot": ("dicelab.liars.strategies", "probabilistic_bot"),
    "random_bot": ("dicelab.liars.strategies", "random_bot"),
    "replay": ("dicelab.liars.rules", "replay"),
    "solve": ("dicelab.liars.cfr", "solve"),
    "solve_lp": ("dicelab.liars.cfr", "solve_lp"),
    "train": ("dicelab.liars.qlearning", "train"),
    "new_game": ("dicelab.liars.state", "new_game"),
    "Duel": ("dicelab.liars.duel", "Duel"),
    "DuelPolicy": ("dicelab.liars.duel", "DuelPolicy"),
    "train_duel": ("dicelab.liars.duel", "train_duel"),
    "exact_grade": ("dicelab.liars.grading", "exact_grade"),
    "lbr": ("dicelab.liars.lbr", "lbr"),
    "learned_br": ("dicelab.liars.responder", "learned_br"),
    "resolve_profile": ("dicelab.liars.resolve", "resolve_profile"),
    "head_to_head": ("dicelab.liars.lbr", "head_to_head"),
    "table_policy": ("dicelab.liars.lbr", "table_policy"),
    "ScoutBot": ("dicelab.liars.multi", "ScoutBot"),
    "train_duels": ("dicelab.liars.library", "train_all"),
    "win_share": ("dicelab.liars.multi", "win_share"),
    "state_from_json": ("dicelab.liars.state", "state_from_json"),
}

#: this game in the registry (:mod:`dicelab.core.registry`): entry point ``liars = "dicelab.liars:GAME"``
GAME = GameEntry(
    name="liars", title="Liar's Dice", module=__name__, rules_name="LiarsRules", cli_name="cli_app", play_name="PLAY",
    reproductions_name="REPRODUCTIONS",
    about="Bid on the hidden dice or call the last bid a lie; lose a die for every lost round.",
    players=(2, 4),
    params=(
        Param("players", 2, "players, you included", lo=2, hi=4),
        Param("dice", 3, "dice each", lo=1, hi=6),
        Param("faces", 6, "faces of each die", lo=2, hi=6),
        Param("wild", "none", "ones count as any face, or not", choices=("none", "ones")),
    ),
    popularity=40,
)
__getattr__, __dir__, __all__ = lazy_api(__name__, _PUBLIC, "GAME")
