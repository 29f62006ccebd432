"""dicelab's games as standard reinforcement-learning environments.

Importing this package registers the Gymnasium environments (single agent against fixed dicelab
strategies)::

    import gymnasium as gym
    import dicelab.envs  # registers dicelab/Pig-v0, ...
    env = gym.make("dicelab/Pig-v0", goal=30, opponent="hold:20")

and :func:`make_aec` / :func:`make_parallel` build the PettingZoo environments by the same names::

    from dicelab.envs import make_aec
    env = make_aec("dicelab/Pig-v0", variant="two-dice")

Every observation is a dict with ``"observation"`` and ``"action_mask"``; seeding is
``reset(seed=...)``. See :mod:`dicelab.envs.base` for the shared conventions.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium

from dicelab.core.errors import DicelabError

# registered name -> (module, Gymnasium class, PettingZoo factory, kind of PettingZoo environment)
ENVIRONMENTS: dict[str, tuple[str, str, str, str]] = {
    "dicelab/Pig-v0": ("dicelab.envs.pig", "PigEnv", "env", "aec"),
    "dicelab/SuperSix-v0": ("dicelab.envs.supersix", "SuperSixEnv", "env", "aec"),
    "dicelab/LiarsDice-v0": ("dicelab.envs.liars", "LiarsDiceEnv", "env", "aec"),
    "dicelab/SimPig-v0": ("dicelab.envs.simpig", "SimPigEnv", "env", "parallel"),
}


def register_all() -> None:
    """Register every dicelab environment with Gymnasium (idempotent)."""
    for name, (module, cls, _, _) in ENVIRONMENTS.items():
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point=f"{module}:{cls}")


def _factory(name: str, kind: str) -> Any:
    if name not in ENVIRONMENTS:
        raise DicelabError(f"unknown environment {name!r}; choose one of {', '.join(ENVIRONMENTS)}")
    module, _, factory, env_kind = ENVIRONMENTS[name]
    if env_kind != kind:
        other = "make_parallel" if env_kind == "parallel" else "make_aec"
        raise DicelabError(f"{name} is a PettingZoo {env_kind} environment; use {other}")
    return getattr(importlib.import_module(module), factory)


def make_aec(name: str, **kwargs: Any) -> Any:
    """The PettingZoo AEC environment registered as ``name`` (e.g. ``"dicelab/Pig-v0"``)."""
    return _factory(name, "aec")(**kwargs)


def make_parallel(name: str, **kwargs: Any) -> Any:
    """The PettingZoo Parallel environment registered as ``name`` (e.g. ``"dicelab/SimPig-v0"``)."""
    return _factory(name, "parallel")(**kwargs)


register_all()
