"""dicelab's games as standard reinforcement-learning environments.

Importing this package registers the Gymnasium environments (single agent against fixed dicelab
strategies)::

    import gymnasium as gym
    import dicelab.envs  # registers dicelab/Pig-v0, ...
    env = gym.make("dicelab/Pig-v0", goal=30, opponents="hold:20")

and :func:`make_aec` / :func:`make_parallel` build the PettingZoo environments by the same names::

    from dicelab.envs import make_aec
    env = make_aec("dicelab/Pig-v0", variant="two-dice")

Every observation is a dict with ``"observation"`` and ``"action_mask"``; seeding is
``reset(seed=...)``. See :mod:`dicelab.envs.base` for the shared conventions.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import gymnasium

import dicelab.envs.generic as generic
from dicelab.core import registry
from dicelab.core.errors import DicelabError


def _environments() -> dict[str, tuple[str, str, str, str, dict[str, Any]]]:
    """The environment of every registered game whose Play has the environment form
    (:mod:`dicelab.envs.generic`): AEC + Gymnasium for turn-based games, Parallel + Gymnasium for
    games where every seat moves at once."""
    out = {}
    for game in registry.games():
        if generic.has_env(game):
            kind = ("SimultaneousGameEnv", "parallel_env", "parallel") if generic.simultaneous(game) \
                else ("GameEnv", "env", "aec")
            out[generic.env_id(game)] = ("dicelab.envs.generic", *kind, {"game": game.name})
    return out


#: registered name -> (module, Gymnasium class, PettingZoo factory, kind, fixed keyword arguments)
ENVIRONMENTS = _environments()


def register_all() -> None:
    """Register every dicelab environment with Gymnasium (idempotent)."""
    for name, (module, cls, _, _, fixed) in ENVIRONMENTS.items():
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point=f"{module}:{cls}", kwargs=dict(fixed))


def _factory(name: str, kind: str) -> Any:
    if name not in ENVIRONMENTS:
        raise DicelabError(f"unknown environment {name!r}; choose one of {', '.join(ENVIRONMENTS)}")
    module, _, factory, env_kind, fixed = ENVIRONMENTS[name]
    if env_kind != kind:
        other = "make_parallel" if env_kind == "parallel" else "make_aec"
        raise DicelabError(f"{name} is a PettingZoo {env_kind} environment; use {other}")
    return functools.partial(getattr(importlib.import_module(module), factory), **fixed)


def make_aec(name: str, **kwargs: Any) -> Any:
    """The PettingZoo AEC environment registered as ``name`` (e.g. ``"dicelab/Pig-v0"``)."""
    return _factory(name, "aec")(**kwargs)


def make_parallel(name: str, **kwargs: Any) -> Any:
    """The PettingZoo Parallel environment registered as ``name`` (e.g. ``"dicelab/SimPig-v0"``)."""
    return _factory(name, "parallel")(**kwargs)


register_all()
