"""Environments for any registered game, driven through the one state interface
(:mod:`dicelab.core.game`) and the game's :class:`~dicelab.core.registry.Play`.

A game's Play makes it an environment by offering three more functions:

``actions(rules) -> list``
    every action the game may ever allow, in a fixed order: action ``i`` of the ``Discrete``
    space is ``actions(rules)[i]`` (the action mask marks those legal now);
``observation_nvec(rules) -> list[int]``
    the sizes of the ``MultiDiscrete`` observation;
``encode(state, seat) -> list[int]``
    what ``seat`` sees now, in that form (built from ``state.observe(seat)``: never another seat's
    hidden information).

Bots for the Gymnasium environments' other seats are the game's own (``play.bot(spec, rules)``).
Each game state draws its chance from its own generator, seeded from the environment's
``reset(seed=...)``, so a seed replays an episode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import wrappers

from dicelab.core import registry
from dicelab.core.errors import DicelabError, require
from dicelab.core.game import GameState
from dicelab.envs.base import Policy, TurnBasedAEC, TurnCore, VersusStrategyEnv, live_game

MAX_SEED = 2**62


def _key(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def has_env(game: registry.GameEntry) -> bool:
    """Whether ``game``'s Play offers what an environment needs (see the module docstring)."""
    play = game.play
    return play is not None and all(hasattr(play, f) for f in ("actions", "observation_nvec", "encode"))


def env_id(game: registry.GameEntry) -> str:
    """The Gymnasium / PettingZoo name: ``dicelab/<Title>-v0`` (``extra["env_id"]`` overrides)."""
    return game.extra.get("env_id") or "dicelab/" + "".join(c for c in game.title.title() if c.isalnum()) + "-v0"


class StateCore(TurnCore):
    """A turn-based registered game behind :class:`TurnCore`."""

    def __init__(self, game: registry.GameEntry, rules: Any) -> None:
        require(has_env(game), f"{game.title} has no environment form")
        self.game_entry, self.rules, self.play = game, rules, game.play
        self.actions = list(self.play.actions(rules))
        self._index = {_key(a): i for i, a in enumerate(self.actions)}
        self.n_actions = len(self.actions)
        self.n_players = int(getattr(rules, "players", 2))
        self.nvec = np.asarray(self.play.observation_nvec(rules), dtype=np.int64)
        self.state: GameState | None = None
        self.offset = 0

    def observation_space(self) -> spaces.Space:
        return spaces.MultiDiscrete(self.nvec, dtype=np.int64)

    def reset(self, rng: np.random.Generator, first: int = 0) -> None:
        # a game state starts with its seat 0: environment seat p plays the state's seat
        # (p - first) mod n, so that environment seat ``first`` moves first
        self.offset = first
        self.state = self.game_entry.new_game(self.rules, int(rng.integers(MAX_SEED)))

    def _s(self) -> GameState:
        return live_game(self.state)

    def seat_of(self, player: int) -> int:
        """The game state's seat of environment seat ``player``."""
        return (player - self.offset) % self.n_players

    def player_of(self, seat: int) -> int:
        """The environment seat of the game state's ``seat``."""
        return (seat + self.offset) % self.n_players

    def to_move(self) -> int:
        return self.player_of(self._s().to_move()[0])

    def legal_actions(self) -> np.ndarray:
        mask = np.zeros(self.n_actions, dtype=np.int8)
        for a in self._s().legal_actions():
            mask[self._index[_key(a)]] = 1
        return mask

    def observe(self, player: int) -> np.ndarray:
        return np.asarray(self.play.encode(self._s(), self.seat_of(player)), dtype=np.int64)

    def apply(self, action: int) -> None:
        self._s().apply(self.actions[action])

    def winners(self) -> list[int] | None:
        s = self._s()
        if not s.is_over:
            return None
        r = s.returns()
        return sorted(self.player_of(q) for q, x in enumerate(r) if x > 0 and x == max(r))

    def action_index(self, action: Any) -> int:
        """The ``Discrete`` index of a game action."""
        return self._index[_key(action)]

    def describe(self) -> str:
        s = self._s()
        return json.dumps(s.observe(s.to_move()[0] if not s.is_over else 0))


def bot_policy(game: registry.GameEntry, spec: str, rules: Any) -> Policy:
    """The game's bot ``spec`` as an environment policy (it sees only what its seat may see)."""
    player = game.play.bot(spec, rules)

    def policy(core: TurnCore, seat: int, rng: np.random.Generator) -> int:
        assert isinstance(core, StateCore)
        return core.action_index(player.act(core._s(), core.seat_of(seat)))

    return policy


def _rules(game: registry.GameEntry, params: dict[str, Any]) -> Any:
    return game.make_rules(**params)


class raw_env(TurnBasedAEC):
    """PettingZoo AEC environment of any registered turn-based game:
    ``raw_env("hog", goal=50, first=0)``; rule parameters as in the registry."""

    def __init__(self, game: str, first: int | None = 0, max_moves: int = 10_000,
                 render_mode: str | None = None, **rule_params: Any) -> None:
        entry = registry.get(game)
        self.rules = _rules(entry, rule_params)
        super().__init__(StateCore(entry, self.rules), f"dicelab_{entry.name}_v0", first, max_moves, render_mode)


def env(game: str, **kwargs: Any) -> Any:
    """The AEC environment of ``game`` with PettingZoo's usual wrappers."""
    return wrappers.OrderEnforcingWrapper(wrappers.TerminateIllegalWrapper(raw_env(game, **kwargs), illegal_reward=-1))


class GameEnv(VersusStrategyEnv):
    """Gymnasium environment of any registered turn-based game: the learner in ``seat`` against the
    game's bots (``opponents``: one spec for every other seat, or one per seat; default: the
    game's first offered bot)."""

    def __init__(self, game: str, opponents: str | Sequence[str] | None = None, seat: int | None = 0,
                 first: int = 0, max_moves: int = 10_000, render_mode: str | None = None,
                 **rule_params: Any) -> None:
        entry = registry.get(game)
        self.rules = _rules(entry, rule_params)
        core = StateCore(entry, self.rules)
        if opponents is None:
            opponents = entry.play.bots(self.rules)[0].spec
        specs = [opponents] * (core.n_players - 1) if isinstance(opponents, str) else list(opponents)
        if not all(isinstance(s, str) for s in specs):
            raise DicelabError("opponents must be bot specs (text), one for all other seats or one per seat")
        super().__init__(core, [bot_policy(entry, s, self.rules) for s in specs], seat, first, max_moves,
                         render_mode)
