"""The `[rl]` extra (Stable-Baselines3, PyTorch's CPU build) and the grades of deep agents.

The slow test installs dicelab with the extra into a fresh virtual environment, trains a tiny PPO agent
there, saves it, and grades the saved zip through the command line: the same grade as the model in
memory. The quick tests run where Stable-Baselines3 happens to be installed (not by `make install`):
a saved model is graded without unpickling anything, and refused with one line when it does not fit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import dicelab
from dicelab.core.errors import DicelabError

ROOT = Path(__file__).resolve().parents[2]
PIGLET = {"goal": 10, "variant": "piglet"}

TRAIN = r'''
import json, sys
import gymnasium as gym
import torch
import dicelab, dicelab.envs
from stable_baselines3 import PPO

class Vector(gym.ObservationWrapper):
    def __init__(self, env):
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]
    def observation(self, obs):
        return obs["observation"]

torch.set_num_threads(1)
env = Vector(gym.make("dicelab/Pig-v0", opponents="optimal", seat=None, goal=10, variant="piglet"))
model = PPO("MlpPolicy", env, seed=0, n_steps=256, batch_size=64, device="cpu")
model.learn(total_timesteps=1024)
model.save(sys.argv[1])
g = dicelab.grade("dicelab/Pig-v0", model, goal=10, variant="piglet")
print(json.dumps({"win": g["win"], "torch": torch.__version__, "cuda": torch.cuda.is_available()}))
'''


@pytest.mark.slow
def test_the_rl_extra_installs_and_trains_a_tiny_agent(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", f"{ROOT}[rl,envs]"], check=True, timeout=3600)
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    zip_path = tmp_path / "ppo.zip"
    run = subprocess.run([str(venv / "bin" / "python"), str(script), str(zip_path)], capture_output=True, text=True,
                         timeout=1800, check=True)
    trained = json.loads(run.stdout.strip().splitlines()[-1])
    assert trained["torch"].startswith("2.13.0") and not trained["cuda"]  # the pinned CPU build
    cli = subprocess.run([str(venv / "bin" / "dicelab"), "grade", "dicelab/Pig-v0", "--policy", str(zip_path),
                          "--rule", "goal=10", "--rule", "variant=piglet", "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    graded = json.loads(cli.stdout)
    assert graded["win"] == pytest.approx(trained["win"], abs=1e-12)
    assert 0.0 <= graded["win"] <= 0.5 + 1e-12  # nobody beats optimal play, seats averaged


@pytest.fixture(scope="module")
def sb3_models(tmp_path_factory):
    reason = "the [rl] extra is not installed (pip install -e '.[rl]'); make install leaves it out"
    sb3 = pytest.importorskip("stable_baselines3", reason=reason)
    gym = pytest.importorskip("gymnasium", reason=reason)
    import dicelab.envs  # noqa: F401

    class Vector(gym.ObservationWrapper):
        def __init__(self, env):
            super().__init__(env)
            self.observation_space = env.observation_space["observation"]

        def observation(self, obs):
            return obs["observation"]

    folder = tmp_path_factory.mktemp("sb3")
    models = {}
    for name, kwargs in (("PPO", {"n_steps": 128, "batch_size": 64}), ("DQN", {"learning_starts": 50})):
        env = Vector(gym.make("dicelab/Pig-v0", opponents="optimal", seat=None, **PIGLET))
        model = getattr(sb3, name)("MlpPolicy", env, seed=0, device="cpu", **kwargs)
        model.learn(300)
        model.save(folder / f"{name}.zip")
        models[name] = (model, folder / f"{name}.zip")
    return models


@pytest.mark.parametrize("name", ["PPO", "DQN"])
def test_a_saved_model_grades_as_the_model_without_unpickling(sb3_models, name, monkeypatch):
    import stable_baselines3.common.save_util as su

    model, path = sb3_models[name]
    ref = dicelab.grade("dicelab/Pig-v0", model, **PIGLET)

    def refuse(*args, **kwargs):
        raise AssertionError("dicelab unpickled part of the model zip")

    monkeypatch.setattr(su.cloudpickle, "loads", refuse)
    got = dicelab.grade("dicelab/Pig-v0", path, **PIGLET)
    assert got["win_first"] == ref["win_first"] and got["mean_loss"] == ref["mean_loss"]
    with pytest.raises(DicelabError, match="trained on observations of sizes"):
        dicelab.grade("dicelab/Pig-v0", path, goal=12, variant="piglet")
