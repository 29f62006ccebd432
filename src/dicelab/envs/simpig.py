"""Simultaneous Pig (Zhu & Ma 2023) as a PettingZoo Parallel environment and a Gymnasium one.

Every turn all players pick a hold-at target at once, then each rolls until the turn total
reaches the target or a 1 comes up (:class:`dicelab.simpig.rules.SimPigGame` plays the turn). A
turn is one simultaneous move, so the natural PettingZoo form is the Parallel API.

Actions (``Discrete(goal)``): action ``a`` holds at ``k = a + 1``; the ``action_mask`` allows
``1 <= k <= goal - own score``. Observation (``MultiDiscrete``): ``[own score, the other players'
scores in seat order after own]``. When the game ends each player's reward is its share of the
win (``1/m`` for each of ``m`` players at or above the goal, 0 for the others), so the expected
return of a policy is exactly its win probability, the quantity the paper and
:mod:`dicelab.simpig.solver` compute.

The Gymnasium environment ``dicelab/SimPig-v0`` seats the learner at seat 0 against fixed
strategy specs of :mod:`dicelab.simpig.specs` (``"hold:25"``, ``"pw:25<40,30<60,goal"``,
``"mix:..."``, two-player tables such as ``"equilibrium"``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from dicelab.core.errors import DicelabError, require
from dicelab.envs.base import check_render_mode, render_ansi
from dicelab.simpig.rules import SIDES, SimPigGame, SimPigRules

Chooser = Callable[[int, list[int], np.random.Generator], int]


def _obs_space(rules: SimPigRules) -> spaces.Dict:
    top = rules.goal + SIDES  # a final score is at most goal - 1 + (k + 5) - k ... < goal + 6
    return spaces.Dict(
        {
            "observation": spaces.MultiDiscrete(
                np.full(rules.players, top, dtype=np.int64), dtype=np.int64
            ),
            "action_mask": spaces.Box(low=0, high=1, shape=(rules.goal,), dtype=np.int8),
        }
    )


def _observe(
    rules: SimPigRules, scores: list[int], player: int, done: bool
) -> dict[str, np.ndarray]:
    n = rules.players
    obs = np.array([scores[(player + m) % n] for m in range(n)], dtype=np.int64)
    mask = np.zeros(rules.goal, dtype=np.int8)
    if not done:
        mask[: rules.goal - scores[player]] = 1
    return {"observation": obs, "action_mask": mask}


def _describe(game: SimPigGame | None) -> str:
    assert game is not None
    return f"turn {game.turns}: scores {game.scores}"


def simpig_policy(spec: str, rules: SimPigRules) -> Chooser:
    """A fixed simultaneous-Pig strategy: ``choose(own, others, rng) -> target k`` (mixed ones sample)."""
    from dicelab.simpig import parse_strategy

    strategy = parse_strategy(spec, rules.goal, rules.players)

    def choose(own: int, others: list[int], rng: np.random.Generator) -> int:
        comps = strategy.mixture(np.asarray(own), [np.asarray(o) for o in others])
        if len(comps) == 1:
            return int(comps[0][1])
        w = np.array([float(c[0]) for c in comps])
        c = int(rng.choice(len(comps), p=w / w.sum()))
        return int(comps[c][1])

    return choose


class parallel_env(ParallelEnv):
    """PettingZoo Parallel simultaneous Pig: ``parallel_env(goal=100, players=2)``."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "dicelab_simpig_v0"}

    def __init__(
        self,
        goal: int = 100,
        players: int = 2,
        max_turns: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        check_render_mode(render_mode)
        require(players <= 64, f"the environment seats at most 64 players, got {players}")
        require(max_turns >= 1, f"max_turns must be at least 1, got {max_turns}")
        self.rules = SimPigRules(goal=goal, players=players)
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents: list[str] = []
        space = _obs_space(self.rules)
        self._obs_spaces = {a: space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(goal) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game: SimPigGame | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def _all_obs(self, done: bool) -> dict[str, dict[str, np.ndarray]]:
        assert self.game is not None
        return {
            a: _observe(self.rules, self.game.scores, p, done)
            for p, a in enumerate(self.possible_agents)
        }

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for a in self.possible_agents:
                self._act_spaces[a].seed(int(self._rng.integers(2**31)))
        self.game = SimPigGame(self.rules)
        self.agents = self.possible_agents[:]
        return self._all_obs(False), {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        if self.game is None or not self.agents:
            raise DicelabError("the game is over (or not started); call reset()")
        missing = [a for a in self.agents if a not in actions]
        require(not missing, f"every player moves at once; no action for {', '.join(missing)}")
        targets = []
        for p, a in enumerate(self.possible_agents):
            k = int(actions[a]) + 1
            cap = self.rules.goal - self.game.scores[p]
            require(
                1 <= k <= cap, f"{a}: action {k - 1} (hold at {k}) is not legal; targets 1 to {cap}"
            )
            targets.append(k)
        self.game.play_turn(targets, self._rng)
        done = self.game.result is not None
        truncated = not done and self.game.turns >= self.max_turns
        rewards = {
            a: (float(self.game.result[p]) if done else 0.0)
            for p, a in enumerate(self.possible_agents)
        }  # type: ignore[index]
        obs = self._all_obs(done or truncated)
        terms = {a: done for a in self.agents}
        truncs = {a: truncated for a in self.agents}
        infos: dict[str, dict] = {a: {"turns": self.game.turns} for a in self.agents}
        if done or truncated:
            self.agents = []
        if self.render_mode == "ansi":
            self.render()
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        return render_ansi(self.render_mode, lambda: _describe(self.game))

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> parallel_env:
    """The Parallel simultaneous-Pig environment."""
    return parallel_env(**kwargs)


class SimPigEnv(gymnasium.Env):
    """Gymnasium simultaneous Pig: the learner at seat 0 against fixed strategies of the others.

    ``opponents``: one strategy spec for every other seat, or one for all of them (default
    ``hold:25``, or ``hold:goal`` below goal 25). The reward at
    the end is the learner's share of the win, so the mean return estimates its win probability.
    An action outside the mask forfeits the game (reward 0, ``info["illegal_action"]``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        goal: int = 100,
        players: int = 2,
        opponents: str | Sequence[str] | None = None,
        max_turns: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        check_render_mode(render_mode)
        self.rules = SimPigRules(goal=goal, players=players)
        opponents = f"hold:{min(25, goal)}" if opponents is None else opponents
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        require(
            len(specs) == players - 1,
            f"need one opponent strategy per other seat ({players - 1}), got {len(specs)}",
        )
        self.others = [simpig_policy(s, self.rules) for s in specs]
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.observation_space = _obs_space(self.rules)
        self.action_space = spaces.Discrete(goal)
        self.game: SimPigGame | None = None
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(int(self.np_random.integers(2**31)))
        self.game = SimPigGame(self.rules)
        self._over = False
        return _observe(self.rules, self.game.scores, 0, False), {"turns": 0}

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        g = self.game
        if g is None or self._over:
            raise DicelabError("the game is over (or not started); call reset()")
        k = int(action) + 1
        require(
            1 <= k <= self.rules.goal,
            f"action must be an integer from 0 to {self.rules.goal - 1}, got {action}",
        )
        if k > self.rules.goal - g.scores[0]:
            self._over = True
            return (
                _observe(self.rules, g.scores, 0, True),
                0.0,
                True,
                False,
                {"turns": g.turns, "illegal_action": True},
            )
        n = self.rules.players
        targets = [k]
        for p in range(1, n):
            others = [g.scores[(p + m) % n] for m in range(1, n)]
            targets.append(self.others[p - 1](g.scores[p], others, self.np_random))
        g.play_turn(targets, self.np_random)
        done = g.result is not None
        truncated = not done and g.turns >= self.max_turns
        self._over = done or truncated
        reward = float(g.result[0]) if done else 0.0  # type: ignore[index]
        return (
            _observe(self.rules, g.scores, 0, self._over),
            reward,
            done,
            truncated,
            {"turns": g.turns},
        )

    def render(self) -> str | None:
        return render_ansi(self.render_mode, lambda: _describe(self.game))
