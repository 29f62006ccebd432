"""Liar's Dice as a PettingZoo AEC environment and a Gymnasium environment.

The game is :class:`dicelab.liars.rules.LiarsGame`: every round each player rolls in secret, then
players in turn raise the bid ``(quantity, face)`` or call the last bid a lie; the loser of a call
loses a die, and the last player with dice wins. Dice come from the engine's own generator, seeded
from ``reset(seed=...)``.

Actions (``Discrete(1 + total_dice * faces)``): 0 calls; ``1 + r`` bids the bid of rank ``r``,
where ``r = (quantity - 1) * faces + (face - 1)`` (:meth:`dicelab.liars.rules.Bid.rank`), so a
higher action is a higher bid. ``action_mask`` marks the call (once somebody has bid this round)
and every legal raise.

Observation (``MultiDiscrete``), from the observer's seat, with nothing hidden leaked:
``[own dice per face (faces entries), dice count of every seat starting with own (players
entries), current bid quantity (0: no bid yet), current bid face, bidder's seat relative to own,
my turn]``.

The Gymnasium environment ``dicelab/LiarsDice-v0`` seats the learner at seat 0 against fixed bots:
``"random"`` and ``"probabilistic"`` (seed 004's bots, :mod:`dicelab.liars.strategies`), a
trained Q table (a path or a :class:`~dicelab.liars.qlearning.QAgent`), or any callable
``policy(view, rng) -> Bid | None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import wrappers

from dicelab.core.errors import DicelabError, require
from dicelab.envs.base import Policy, TurnBasedAEC, TurnCore, VersusStrategyEnv, live_game
from dicelab.liars.rules import Bid, LiarsGame, LiarsRules, PlayerView
from dicelab.liars.strategies import BOT_NAMES
from dicelab.liars.strategies import bot as named_bot

CALL = 0


class LiarsCore(TurnCore):
    """Liar's Dice on :class:`~dicelab.liars.rules.LiarsGame`; seat 0 opens round 1."""

    def __init__(self, rules: LiarsRules) -> None:
        self.rules = rules
        self.n_players = rules.players
        self.n_actions = 1 + rules.total_dice * rules.faces
        self.game: LiarsGame | None = None

    def observation_space(self) -> spaces.Space:
        r = self.rules
        nvec = (
            [r.dice + 1] * r.faces
            + [r.dice + 1] * r.players
            + [r.total_dice + 1, r.faces + 1, r.players, 2]
        )
        return spaces.MultiDiscrete(np.array(nvec, dtype=np.int64), dtype=np.int64)

    def reset(self, rng: np.random.Generator, first: int = 0) -> None:
        require(first == 0, "in Liar's Dice seat 0 opens round 1; rotate the seats instead")
        self.game = LiarsGame(self.rules, seed=int(rng.integers(2**63 - 1)))

    def _g(self) -> LiarsGame:
        return live_game(self.game)

    def to_move(self) -> int:
        return self._g().to_move

    def legal_actions(self) -> np.ndarray:
        g, f = self._g(), self.rules.faces
        mask = np.zeros(self.n_actions, dtype=np.int8)
        mask[CALL] = int(g.can_call())
        lowest = 0 if g.current_bid is None else g.current_bid.rank(f) + 1
        mask[1 + lowest : 1 + g.dice_on_table * f] = 1
        return mask

    def observe(self, player: int) -> np.ndarray:
        g, r = self._g(), self.rules
        n = r.players
        hand = np.bincount(np.asarray(g.hands[player], dtype=np.int64), minlength=r.faces + 1)[1:]
        counts = [g.dice_counts[(player + m) % n] for m in range(n)]
        bid = g.current_bid
        q, f = (0, 0) if bid is None else (bid.quantity, bid.face)
        rel = 0 if g.bidder is None else (g.bidder - player) % n
        mine = int(not g.is_over and g.to_move == player)
        return np.array([*hand.tolist(), *counts, q, f, rel, mine], dtype=np.int64)

    def apply(self, action: int) -> None:
        g = self._g()
        if action == CALL:
            g.call()
        else:
            g.bid(Bid.from_rank(action - 1, self.rules.faces))

    def winners(self) -> list[int] | None:
        w = self._g().winner
        return None if w is None else [w]

    def view(self, player: int) -> PlayerView:
        return self._g().view(player)

    def describe(self) -> str:
        g = self._g()
        return f"dice {g.dice_counts}, bid {g.current_bid or '-'}, seat {g.to_move} to move"


def liars_policy(strategy: Any, rules: LiarsRules) -> Policy:
    """A fixed Liar's Dice player as an environment policy.

    ``strategy``: ``"random"``, ``"probabilistic"``, a Q-table path (``.npz``), a trained
    :class:`~dicelab.liars.qlearning.QAgent`, or a callable ``policy(view, rng) -> Bid | None``.
    """
    if isinstance(strategy, str) and strategy in BOT_NAMES:
        bot = named_bot(strategy)
    elif isinstance(strategy, str):
        from dicelab.liars.qlearning import QAgent

        bot = QAgent.load(strategy)
    elif callable(strategy):
        bot = strategy
    else:
        raise DicelabError(
            f"a Liar's Dice opponent is random, probabilistic, a Q-table file or a callable, got {strategy!r}"
        )

    def policy(core: TurnCore, player: int, rng: np.random.Generator) -> int:
        c: LiarsCore = core  # type: ignore[assignment]
        bid = bot(c.view(player), rng)
        return CALL if bid is None else 1 + bid.rank(rules.faces)

    return policy


class raw_env(TurnBasedAEC):
    """PettingZoo AEC Liar's Dice: ``raw_env(players=4, dice=6, faces=6, wild="none")``."""

    def __init__(
        self,
        players: int = 4,
        dice: int = 6,
        faces: int = 6,
        wild: str = "none",
        max_moves: int = 100_000,
        render_mode: str | None = None,
    ) -> None:
        self.rules = LiarsRules(players=players, dice=dice, faces=faces, wild=wild)
        super().__init__(LiarsCore(self.rules), "dicelab_liars_v0", 0, max_moves, render_mode)


def env(**kwargs: Any) -> Any:
    """The AEC Liar's Dice environment (PettingZoo's ``env()`` convention)."""
    return wrappers.OrderEnforcingWrapper(
        wrappers.TerminateIllegalWrapper(raw_env(**kwargs), illegal_reward=-1)
    )


class LiarsDiceEnv(VersusStrategyEnv):
    """Gymnasium Liar's Dice: the learner at ``seat`` (0 by default) against fixed bots.

    ``opponents``: one bot for every other seat, or one for all of them (default ``"random"``).
    """

    def __init__(
        self,
        players: int = 4,
        dice: int = 6,
        faces: int = 6,
        wild: str = "none",
        opponents: Any = "random",
        seat: int | None = 0,
        max_moves: int = 100_000,
        render_mode: str | None = None,
    ) -> None:
        self.rules = LiarsRules(players=players, dice=dice, faces=faces, wild=wild)
        if (
            isinstance(opponents, (str, bytes))
            or callable(opponents)
            or not isinstance(opponents, Sequence)
        ):
            specs = [opponents] * (players - 1)
        else:
            specs = list(opponents)
        policies = [liars_policy(s, self.rules) for s in specs]
        super().__init__(LiarsCore(self.rules), policies, seat, 0, max_moves, render_mode)
