"""The machinery shared by every dicelab environment: one game *core*, two ecosystem faces.

A :class:`TurnCore` holds the rules and the live state of a turn-based game and knows whose turn
it is, which actions are legal, what each player sees and who has won. From one core dicelab
builds

* a PettingZoo AEC environment (:class:`TurnBasedAEC`): every player is an agent, the agent to
  move is ``agent_selection`` (in Pig the same agent moves again and again until it holds or
  busts), rewards are paid when the game ends;
* a Gymnasium single-agent environment (:class:`VersusStrategyEnv`): the learner is one seat, the
  other seats are played by fixed dicelab strategies inside ``step``.

Conventions, as in PettingZoo's classic games: actions are ``Discrete(n)``; the observation is a
``Dict`` with ``"observation"`` (what the player may see) and ``"action_mask"`` (``int8``, 1 for a
legal action, all zeros when it is not the player's turn); the winner gets +1 and every other
player -1 (a shared win splits: each winner gets ``2/m - 1``); randomness comes from one
``numpy`` generator seeded by ``reset(seed=...)``. A game that runs past ``max_moves`` decisions
(Pig strategies that always hold at 0 never end) is *truncated* with zero reward.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from dicelab.core.errors import DicelabError, require

Policy = Callable[["TurnCore", int, np.random.Generator], int]
"""A fixed strategy for a seat: ``policy(core, player, rng) -> action``."""

GameT = TypeVar("GameT")


def check_render_mode(render_mode: str | None) -> None:
    """Refuse a render mode other than ``None`` and ``"ansi"``."""
    require(
        render_mode in (None, "ansi"),
        f"render_mode must be None or 'ansi', got {render_mode!r}",
    )


def render_ansi(render_mode: str | None, describe: Callable[[], str]) -> str | None:
    """What ``render()`` returns: ``describe()``; without a render mode, a warning and ``None``."""
    if render_mode is None:
        gymnasium.logger.warn("render() needs render_mode='ansi'")
        return None
    return describe()


def live_game(game: GameT | None) -> GameT:
    """A core's game, or the error for an environment used before ``reset``."""
    if game is None:
        raise DicelabError("the environment must be reset before it is used")
    return game


class TurnCore(ABC):
    """Rules plus live state of one turn-based game; subclasses define one game each."""

    n_players: int
    n_actions: int

    @abstractmethod
    def observation_space(self) -> spaces.Space:
        """The space of :meth:`observe` (the ``"observation"`` part)."""

    @abstractmethod
    def reset(self, rng: np.random.Generator, first: int = 0) -> None:
        """Start a new game with ``first`` to move."""

    @abstractmethod
    def to_move(self) -> int:
        """The player who decides next."""

    @abstractmethod
    def legal_actions(self) -> np.ndarray:
        """Mask (``int8``, length ``n_actions``) of the mover's legal actions."""

    @abstractmethod
    def observe(self, player: int) -> np.ndarray:
        """What ``player`` sees now (never another player's hidden information)."""

    @abstractmethod
    def apply(self, action: int) -> None:
        """Play ``action`` for the mover; chance events that follow are resolved at once."""

    @abstractmethod
    def winners(self) -> list[int] | None:
        """The winners once the game is over, else ``None``."""

    def describe(self) -> str:
        """A short text picture of the state, for ``render_mode="ansi"``."""
        return repr(self)

    def payoffs(self) -> list[float]:
        """+1 for a sole winner and -1 for everyone else; ``m`` winners get ``2/m - 1`` each."""
        w = self.winners()
        require(w is not None, "the game is not over")
        assert w is not None
        share = 2.0 / len(w) - 1.0
        return [share if p in w else -1.0 for p in range(self.n_players)]

    def mask_for(self, player: int) -> np.ndarray:
        if self.winners() is None and player == self.to_move():
            return self.legal_actions()
        return np.zeros(self.n_actions, dtype=np.int8)


def _dict_space(core: TurnCore) -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": core.observation_space(),
            "action_mask": spaces.Box(low=0, high=1, shape=(core.n_actions,), dtype=np.int8),
        }
    )


class TurnBasedAEC(AECEnv):
    """A PettingZoo AEC environment around a :class:`TurnCore`.

    ``first``: the seat that moves first (``None``: drawn at random at every reset).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "dicelab",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        core: TurnCore,
        name: str,
        first: int | None = 0,
        max_moves: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_render_mode(render_mode)
        require(
            first is None or 0 <= first < core.n_players,
            f"first must be a seat from 0 to {core.n_players - 1}",
        )
        require(max_moves >= 1, f"max_moves must be at least 1, got {max_moves}")
        self.metadata = {**self.metadata, "name": name}
        self.core = core
        self.first = first
        self.max_moves = max_moves
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(core.n_players)]
        self.agents = self.possible_agents[:]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        obs_space = _dict_space(core)
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(core.n_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._moves = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._index[agent]
        return {"observation": self.core.observe(p), "action_mask": self.core.mask_for(p)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for a in self.possible_agents:
                self._act_spaces[a].seed(int(self._rng.integers(2**31)))
        first = (
            self.first if self.first is not None else int(self._rng.integers(self.core.n_players))
        )
        self.core.reset(self._rng, first)
        self._moves = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.core.to_move()]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < self.core.n_actions:
            raise DicelabError(
                f"action must be an integer from 0 to {self.core.n_actions - 1}, got {action!r}"
            )
        if not self.core.legal_actions()[int(action)]:
            raise DicelabError(
                f"action {int(action)} is not legal now; see the observation's action_mask"
            )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.core.apply(int(action))
        self._moves += 1
        if self.core.winners() is not None:
            for a, r in zip(self.possible_agents, self.core.payoffs()):
                self.rewards[a] = r
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._moves >= self.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        if self.core.winners() is None and not any(self.truncations.values()):
            self.agent_selection = self.possible_agents[self.core.to_move()]
        else:  # every agent is done: visit them in turn for their final (dead) step
            self.agent_selection = self._next_live(agent)
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def _next_live(self, agent: str) -> str:
        i = self.agents.index(agent)
        return self.agents[(i + 1) % len(self.agents)]

    def render(self) -> str | None:
        return render_ansi(self.render_mode, self.core.describe)

    def close(self) -> None:
        """Nothing to release."""


class VersusStrategyEnv(gymnasium.Env):
    """A Gymnasium environment: the learner plays seat ``seat`` against fixed dicelab strategies.

    ``opponents[q]`` plays the q-th other seat; their moves happen inside :meth:`step` (and
    :meth:`reset`, when an opponent moves first) with the environment's own random generator, so
    ``reset(seed=s)`` fixes everything. ``seat=None`` draws the learner's seat at every reset.
    The reward is the learner's payoff when the game ends, 0 before. An action outside the
    ``action_mask`` forfeits the game (reward -1, ``terminated``, ``info["illegal_action"]``), the
    convention of PettingZoo's ``TerminateIllegalWrapper``; an action outside the action space is
    an error. When the other seats decide the game before the learner's first move (a Pig
    opponent who moves first can win in its first turn), ``reset`` returns the final position with
    an all-zero ``action_mask`` and the next ``step``, whatever its action, ends the episode with
    the learner's payoff.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        core: TurnCore,
        opponents: Sequence[Policy],
        seat: int | None = 0,
        first: int = 0,
        max_moves: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        check_render_mode(render_mode)
        require(
            len(opponents) == core.n_players - 1,
            f"need one opponent strategy per other seat ({core.n_players - 1}), got {len(opponents)}",
        )
        require(
            seat is None or 0 <= seat < core.n_players,
            f"seat must be from 0 to {core.n_players - 1}",
        )
        require(0 <= first < core.n_players, f"first must be a seat from 0 to {core.n_players - 1}")
        self.core = core
        self.opponents = list(opponents)
        self.seat_choice = seat
        self.first = first
        self.max_moves = max_moves
        self.render_mode = render_mode
        self.observation_space = _dict_space(core)
        self.action_space = spaces.Discrete(core.n_actions)
        self.seat = 0 if seat is None else seat
        self._moves = 0
        self._forfeited = self._reported = False

    def _obs(self) -> dict[str, np.ndarray]:
        return {
            "observation": self.core.observe(self.seat),
            "action_mask": self.core.mask_for(self.seat),
        }

    def _play_others(self) -> None:
        rng = self.np_random
        while (
            self.core.winners() is None
            and self.core.to_move() != self.seat
            and self._moves < self.max_moves
        ):
            p = self.core.to_move()
            q = p if p < self.seat else p - 1
            action = int(self.opponents[q](self.core, p, rng))
            if not self.core.legal_actions()[action]:
                raise DicelabError(f"the strategy of seat {p} chose an illegal action {action}")
            self.core.apply(action)
            self._moves += 1

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "moves": self._moves}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(int(self.np_random.integers(2**31)))
        if self.seat_choice is None:
            self.seat = int(self.np_random.integers(self.core.n_players))
        self._moves = 0
        self._forfeited = self._reported = False
        self.core.reset(self.np_random, self.first)
        self._play_others()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        a = int(action)
        if self._forfeited or self._reported:
            raise DicelabError("the game is over; call reset()")
        if self.core.winners() is not None:  # decided by the others before the learner's first move
            self._reported = True
            return self._obs(), float(self.core.payoffs()[self.seat]), True, False, self._info()
        if not 0 <= a < self.core.n_actions:
            raise DicelabError(
                f"action must be an integer from 0 to {self.core.n_actions - 1}, got {a}"
            )
        if not self.core.legal_actions()[a]:
            # PettingZoo's TerminateIllegalWrapper convention: an illegal move forfeits the game
            self._forfeited = True
            info = {**self._info(), "illegal_action": True}
            return self._obs(), -1.0, True, False, info
        self.core.apply(a)
        self._moves += 1
        self._play_others()
        done = self.core.winners() is not None
        reward = self.core.payoffs()[self.seat] if done else 0.0
        truncated = not done and self._moves >= self.max_moves
        self._reported = done or truncated
        return self._obs(), float(reward), done, truncated, self._info()

    def render(self) -> str | None:
        return render_ansi(self.render_mode, self.core.describe)
