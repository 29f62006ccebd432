"""Train a Stable-Baselines3 agent (PPO or DQN) on a dicelab environment and save it, for
``dicelab grade`` (``pip install 'dicelab[rl]'`` first).

The agent sees the environment's observation vector (one-hot encoded by SB3) and plays against the
game's strongest bot, in a seat drawn at random each game. Run::

    .venv/bin/python examples/train_sb3.py --out ppo.zip                       # PPO, Piglet to 10
    .venv/bin/python examples/train_sb3.py --algo DQN --rule goal=100 --steps 200000 --out dqn.zip
    .venv/bin/dicelab grade dicelab/Pig-v0 --policy ppo.zip --rule goal=10 --rule variant=piglet
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import dicelab.envs  # noqa: F401  (registers the environments)


class VectorObservation(gym.ObservationWrapper):
    """The observation vector alone (the action mask is left out; an illegal move loses the game)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, obs: dict) -> object:
        return obs["observation"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="dicelab/Pig-v0")
    parser.add_argument("--rule", action="append", default=None, help="KEY=VALUE, e.g. goal=10 (repeatable)")
    parser.add_argument("--algo", default="PPO", choices=["PPO", "DQN"])
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="where to save the model (.zip)")
    args = parser.parse_args(argv)
    rules = {}
    for r in args.rule if args.rule is not None else ["goal=10", "variant=piglet"]:
        key, _, value = r.partition("=")
        rules[key] = int(value) if value.isdigit() else value

    import torch
    from stable_baselines3 import DQN, PPO

    torch.set_num_threads(1)
    env = VectorObservation(gym.make(args.env, seat=None, **rules))
    kwargs = {"n_steps": 1024, "batch_size": 256, "ent_coef": 0.01} if args.algo == "PPO" else \
        {"learning_starts": 1_000, "exploration_fraction": 0.3, "target_update_interval": 1_000}
    model = {"PPO": PPO, "DQN": DQN}[args.algo]("MlpPolicy", env, seed=args.seed, device="cpu",
                                                 policy_kwargs={"net_arch": [64, 64]}, **kwargs)
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    model.save(args.out)
    print(f"trained {args.algo} for {args.steps:,} steps in {time.perf_counter() - t0:.0f} s; saved {args.out}")


if __name__ == "__main__":
    main()
