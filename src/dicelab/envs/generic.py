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

import dataclasses
import json
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils import wrappers

from dicelab.core import registry
from dicelab.core.errors import DicelabError, require
from dicelab.core.game import GameState
from dicelab.envs.base import (
    Policy,
    TurnBasedAEC,
    TurnCore,
    VersusStrategyEnv,
    check_render_mode,
    live_game,
    render_ansi,
)

MAX_SEED = 2**62


def _key(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def has_env(game: registry.GameEntry) -> bool:
    """Whether ``game``'s Play offers what an environment needs (see the module docstring)."""
    play = game.play
    return play is not None and all(hasattr(play, f) for f in ("actions", "observation_nvec", "encode"))


def env_id(game: registry.GameEntry) -> str:
    """The Gymnasium / PettingZoo name: ``dicelab/<Title>-v0`` with the title's words run together
    (``Liar's Dice`` -> ``dicelab/LiarsDice-v0``); ``extra["env_id"]`` overrides."""
    words = "".join(c for c in game.title if c.isalnum() or c == " ").split()
    return game.extra.get("env_id") or "dicelab/" + "".join(w[0].upper() + w[1:] for w in words) + "-v0"


def simultaneous(game: registry.GameEntry) -> bool:
    """Whether every seat moves at once in ``game`` (a PettingZoo Parallel environment)."""
    state = game.new_game(game.rules(), 0)
    return len(state.to_move()) > 1


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


def seat_player(game: registry.GameEntry, opponent: Any, rules: Any) -> Any:
    """A seated bot: ``opponent`` is one of the game's bot specs (``play.bot``) or any object with
    ``act(state, seat)`` (a :class:`~dicelab.core.registry.Player`)."""
    if isinstance(opponent, str):
        return game.play.bot(opponent, rules)
    if callable(getattr(opponent, "act", None)):
        return opponent
    raise DicelabError(f"an opponent is a {game.title} bot spec or an object with act(state, seat), "
                       f"got {type(opponent).__name__}")


def act(player: Any, state: GameState, seat: int, rng: np.random.Generator) -> Any:
    """``player``'s action; a randomised bot (one with an ``rng``) draws from the environment's
    generator, so that ``reset(seed=...)`` replays its choices too."""
    if hasattr(player, "rng") and player.rng is not rng:
        if dataclasses.is_dataclass(player) and player.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            player = dataclasses.replace(player, rng=rng)  # a frozen bot (Hog's tables): a copy with our generator
        else:
            player.rng = rng
    return player.act(state, seat)


def bot_policy(game: registry.GameEntry, opponent: Any, rules: Any) -> Policy:
    """The bot ``opponent`` (:func:`seat_player`) as an environment policy; it sees only what its
    seat may see."""
    player = seat_player(game, opponent, rules)

    def policy(core: TurnCore, seat: int, rng: np.random.Generator) -> int:
        assert isinstance(core, StateCore)
        return core.action_index(act(player, core._s(), core.seat_of(seat), rng))

    return policy


def opponent_list(game: registry.GameEntry, opponents: Any, rules: Any, seats: int) -> list[Any]:
    """One opponent for every other seat: one given for all, or a list with one per seat;
    default: the game's first offered bot."""
    if opponents is None:
        opponents = game.play.bots(rules)[0].spec
    if isinstance(opponents, str) or callable(getattr(opponents, "act", None)):
        return [opponents] * (seats - 1)
    return list(opponents)


def _rules(game: registry.GameEntry, params: dict[str, Any]) -> Any:
    return game.rules(**params)


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

    def __init__(self, game: str, opponents: Any = None, seat: int | None = 0, first: int = 0,
                 max_moves: int = 10_000, render_mode: str | None = None, **rule_params: Any) -> None:
        entry = registry.get(game)
        self.rules = _rules(entry, rule_params)
        core = StateCore(entry, self.rules)
        others = opponent_list(entry, opponents, self.rules, core.n_players)
        super().__init__(core, [bot_policy(entry, o, self.rules) for o in others], seat, first, max_moves,
                         render_mode)


# ----------------------------------------------------------------------------- simultaneous games
def _parallel_spaces(core: StateCore) -> tuple[spaces.Dict, spaces.Discrete]:
    obs = spaces.Dict({"observation": core.observation_space(),
                       "action_mask": spaces.Box(low=0, high=1, shape=(core.n_actions,), dtype=np.int8)})
    return obs, spaces.Discrete(core.n_actions)


class SimultaneousCore(StateCore):
    """A registered game in which every seat moves at once (each move: one action per seat)."""

    def mask(self, seat: int) -> np.ndarray:
        out = np.zeros(self.n_actions, dtype=np.int8)
        for a in self._s().legal_actions(seat):
            out[self._index[_key(a)]] = 1
        return out

    def apply_all(self, actions: dict[int, int]) -> list[dict[str, Any]]:
        return self._s().apply({str(p): self.actions[a] for p, a in sorted(actions.items())})

    def shares(self) -> tuple[float, ...]:
        return self._s().returns()


class parallel_env(ParallelEnv):
    """PettingZoo Parallel environment of a registered simultaneous game:
    ``parallel_env("simpig", goal=30, players=3)``. Each step takes one action per live agent; the
    reward at the end is each player's return (its share of the win), so a policy's expected
    return is its win probability."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "dicelab", "is_parallelizable": True}

    def __init__(self, game: str, max_moves: int = 10_000, render_mode: str | None = None,
                 **rule_params: Any) -> None:
        check_render_mode(render_mode)
        require(max_moves >= 1, f"max_moves must be at least 1, got {max_moves}")
        entry = registry.get(game)
        self.rules = _rules(entry, rule_params)
        self.core = SimultaneousCore(entry, self.rules)
        self.metadata = {**self.metadata, "name": f"dicelab_{entry.name}_v0"}
        self.max_moves, self.render_mode = max_moves, render_mode
        self.possible_agents = [f"player_{p}" for p in range(self.core.n_players)]
        self.agents: list[str] = []
        self._obs_space, self._act_space = _parallel_spaces(self.core)
        self._rng = np.random.default_rng()
        self._moves = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def _obs(self, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self.core.observe(seat), "action_mask": self.core.mask(seat)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._act_space.seed(int(self._rng.integers(2**31)))
        self.core.reset(self._rng, 0)
        self._moves = 0
        self.agents = self.possible_agents[:]
        return ({a: self._obs(p) for p, a in enumerate(self.agents)}, {a: {} for a in self.agents})

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        require(set(actions) == set(self.agents),
                f"a step needs one action for every live agent: {', '.join(self.agents)}")
        chosen: dict[int, int] = {}
        for agent, a in actions.items():
            p = self.possible_agents.index(agent)
            if not (isinstance(a, (int, np.integer)) and 0 <= int(a) < self.core.n_actions
                    and self.core.mask(p)[int(a)]):
                raise DicelabError(f"action {a!r} of {agent} is not legal now; see its action_mask")
            chosen[p] = int(a)
        self.core.apply_all(chosen)
        self._moves += 1
        over = self.core._s().is_over
        truncated = not over and self._moves >= self.max_moves
        shares = self.core.shares()
        rewards = {a: float(shares[p]) if over else 0.0 for p, a in enumerate(self.possible_agents)}
        obs = {a: self._obs(p) for p, a in enumerate(self.possible_agents)}
        terms = dict.fromkeys(self.possible_agents, over)
        truncs = dict.fromkeys(self.possible_agents, truncated)
        infos: dict[str, dict] = {a: {} for a in self.possible_agents}
        if over or truncated:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        return render_ansi(self.render_mode, self.core.describe)

    def close(self) -> None:
        """Nothing to release."""


class SimultaneousGameEnv(gymnasium.Env):
    """Gymnasium environment of a registered simultaneous game: the learner is seat 0 (or ``seat``)
    and the game's bots (``opponents``: one spec or Player for all, or one per seat) choose at the
    same time. The reward at the end is the learner's return (its share of the win)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(self, game: str, opponents: Any = None, seat: int = 0, max_moves: int = 10_000,
                 render_mode: str | None = None, **rule_params: Any) -> None:
        check_render_mode(render_mode)
        entry = registry.get(game)
        self.rules = _rules(entry, rule_params)
        self.core = SimultaneousCore(entry, self.rules)
        n = self.core.n_players
        require(0 <= seat < n, f"seat must be from 0 to {n - 1}")
        others = opponent_list(entry, opponents, self.rules, n)
        require(len(others) == n - 1, f"need one opponent per other seat ({n - 1}), got {len(others)}")
        self.players = [seat_player(entry, o, self.rules) for o in others]
        self.seat, self.max_moves, self.render_mode = seat, max_moves, render_mode
        self.observation_space, self.action_space = _parallel_spaces(self.core)
        self._moves, self._done = 0, False

    def _obs(self) -> dict[str, np.ndarray]:
        return {"observation": self.core.observe(self.seat), "action_mask": self.core.mask(self.seat)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(int(self.np_random.integers(2**31)))
        self.core.reset(self.np_random, 0)
        self._moves, self._done = 0, False
        return self._obs(), {"seat": self.seat}

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        if self._done:
            raise DicelabError("the game is over; call reset()")
        a = int(action)
        require(0 <= a < self.core.n_actions, f"action must be an integer from 0 to {self.core.n_actions - 1}, got {a}")
        if not self.core.mask(self.seat)[a]:  # PettingZoo's convention: an illegal move forfeits
            self._done = True
            return self._obs(), -1.0, True, False, {"seat": self.seat, "illegal_action": True}
        state = self.core._s()
        chosen = {self.seat: a}
        others = [p for p in range(self.core.n_players) if p != self.seat]
        for p, player in zip(others, self.players):
            chosen[p] = self.core.action_index(act(player, state, p, self.np_random))
        self.core.apply_all(chosen)
        self._moves += 1
        over = state.is_over
        truncated = not over and self._moves >= self.max_moves
        self._done = over or truncated
        reward = float(self.core.shares()[self.seat]) if over else 0.0
        return self._obs(), reward, over, truncated, {"seat": self.seat, "moves": self._moves}

    def render(self) -> str | None:
        return render_ansi(self.render_mode, self.core.describe)
