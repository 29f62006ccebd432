"""Train a tabular Q-learning agent on the Gymnasium Pig environment, then grade it exactly.

The agent never sees the rules: it plays ``dicelab/Pig-v0`` against dicelab's exact ``optimal``
player, one seat drawn at random per game, and learns action values ``Q[i, j, k, a]`` for every
state (own score ``i``, opponent score ``j``, turn total ``k``) with one-step Q-learning
(reward +1 / -1 at the end of the game, no discount, epsilon-greedy exploration). Its greedy
policy is a decision table, which dicelab's exact evaluator (:func:`dicelab.pig.evaluation.evaluate`)
plays against ``optimal`` with no sampling: the result is the learned policy's true win
probability, moving first, second and overall (first move alternating). Against ``optimal`` no
policy can do better than 0.5 overall, so ``0.5 - overall`` is exactly what the agent has left to
learn.

The default game is Piglet (a coin: heads adds 1, tails busts) to 10, where optimal play is
subtle and an untrained always-rolling agent wins under 2% of games against it. In standard Pig
up to goal 35 the optimal policy is to roll at every state (the exact solver and a plain value
iteration agree: rolling beats holding by at least 0.098 everywhere at goal 30), so a learner
there only has to learn to keep rolling; from goal 40 on it has to learn when to hold.

Run::

    .venv/bin/python examples/train_tabular_pig.py                      # Piglet to 10
    .venv/bin/python examples/train_tabular_pig.py --variant standard --goal 50 --episodes 200000
    .venv/bin/python examples/train_tabular_pig.py --episodes 2000 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import dicelab.envs  # noqa: F401  (registers dicelab/Pig-v0)
from dicelab.pig.rules import PigRules
from dicelab.pig.solver import solve
from dicelab.pig import evaluate

HOLD, ROLL = 0, 1


def train(
    goal: int = 10,
    episodes: int = 20_000,
    seed: int = 0,
    alpha: float = 0.1,
    epsilon: float = 0.1,
    variant: str = "piglet",
    opponent: str = "optimal",
) -> np.ndarray:
    """Q-learning on ``dicelab/Pig-v0``; returns ``Q`` with shape ``(goal, goal, goal, 2)``.

    Unvisited states keep a small preference for rolling (holding at 0 forever would stall).
    """
    env = gym.make(
        "dicelab/Pig-v0", goal=goal, variant=variant, opponents=opponent, seat=None
    ).unwrapped
    rng = np.random.default_rng(seed)
    q = np.zeros((goal, goal, goal, 2))
    q[..., ROLL] = 1e-6
    visits = np.zeros((goal, goal, goal, 2))
    obs, _ = env.reset(seed=seed)
    for episode in range(episodes):
        if episode:
            obs, _ = env.reset()
        if not obs["action_mask"].any():  # the opponent moved first and won in its first turn
            env.step(HOLD)
            continue
        i, j, k, _ = obs["observation"].tolist()
        done = False
        while not done:
            a = (
                int(rng.integers(2))
                if rng.random() < epsilon
                else int(q[i, j, k, ROLL] > q[i, j, k, HOLD])
            )
            obs, reward, terminated, truncated, _ = env.step(a)
            done = terminated or truncated
            if terminated:
                target = reward
            else:
                i2, j2, k2, _ = obs["observation"].tolist()
                target = q[i2, j2, k2].max()
            visits[i, j, k, a] += 1
            step = max(
                alpha, 1.0 / visits[i, j, k, a]
            )  # sample averages first, then a constant step
            q[i, j, k, a] += step * (target - q[i, j, k, a])
            if not done:
                i, j, k = i2, j2, k2
    return q


def grade(q: np.ndarray, rules: PigRules) -> dict[str, Any]:
    """Exact win probabilities of the greedy policy of ``q`` against ``optimal``."""
    learned = q[..., ROLL] > q[..., HOLD]
    e = evaluate(learned, "optimal", rules)
    opt = solve(rules)
    g = rules.goal
    states = np.array([[[i + k < g for k in range(g)] for _ in range(g)] for i in range(g)])
    agree = float(np.mean(learned[states] == np.asarray(opt.roll)[:g, :g, :g][states]))
    return {
        "a_first": e.a_first,
        "a_second": e.a_second,
        "a_overall": e.a_overall,
        "stalemate": e.stalemate_overall,
        "gap_to_optimal": 0.5 - e.a_overall,
        "optimal_first_mover": float(opt.win_probability(0, 0, 0)),
        "agreement_with_optimal": agree,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=10)
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--variant", default="piglet", choices=["standard", "piglet", "two-dice"])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    rules = PigRules(goal=args.goal, variant=args.variant)
    t0 = time.perf_counter()
    q = train(args.goal, args.episodes, args.seed, args.alpha, args.epsilon, args.variant)
    seconds = time.perf_counter() - t0
    untrained = grade(np.zeros_like(q) + np.array([0.0, 1e-6]), rules)  # always roll
    result = {
        "goal": args.goal,
        "variant": args.variant,
        "episodes": args.episodes,
        "train_seconds": seconds,
        "learned": grade(q, rules),
        "always_roll": untrained,
    }
    if args.json:
        print(json.dumps(result))
    else:
        L = result["learned"]
        print(
            f"trained {args.episodes} games in {seconds:.1f} s (goal {args.goal}, {args.variant})"
        )
        print(
            f"exact vs optimal: first {L['a_first']:.4f}, second {L['a_second']:.4f}, "
            f"overall {L['a_overall']:.4f} (gap to optimal play {L['gap_to_optimal']:.4f})"
        )
        print(
            f"always rolling would get {untrained['a_overall']:.4f} overall; the learned policy agrees "
            f"with optimal play at {100 * L['agreement_with_optimal']:.1f}% of states"
        )
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
