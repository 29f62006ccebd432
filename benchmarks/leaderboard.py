"""The leaderboard of learned agents (issue 24, item 4): tabular Q-learning, DQN and PPO trained on
Piglet, Pig to 100 and a Liar's Dice duel, each graded *exactly* by ``dicelab.grade`` as it trains.

Every agent plays the Gymnasium environment against dicelab's strongest bot (``optimal`` in Pig,
``probabilistic`` in the duel), seat drawn at random each game, for the same budget of its own
decisions (environment steps). Every ``--every`` steps its greedy policy (the legal action with the
largest value or probability) is graded without playing a game: Pig's grade is the exact win
probability against optimal play (both seats averaged) and the win chance lost per decision; the
duel's is the exact exploitability (0 at an equilibrium, payoff +-1 per round). The last grade is
the agent's score.

DQN and PPO come from Stable-Baselines3 on the CPU (``pip install 'dicelab[rl]'``, or
``make leaderboard``, which installs it); they see the observation vector (one-hot encoded by SB3),
not the action mask: an illegal move loses the game, as in the environment. One thread for torch.

    nice -n 10 .venv/bin/python benchmarks/leaderboard.py            # 30-60 minutes on 2 cores
    .venv/bin/python benchmarks/leaderboard.py --quick --out /tmp/lb # a minute: tiny budgets

Writes ``OUT/leaderboard.md`` (the docs page), ``OUT/img/leaderboard-GAME.png`` (the learning
curves) and ``OUT/leaderboard.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import dicelab
import dicelab.envs  # noqa: F401  (registers the environments)

GAMES: dict[str, dict[str, Any]] = {
    "piglet": {"title": "Piglet to 10", "env": "dicelab/Pig-v0", "rules": {"goal": 10, "variant": "piglet"},
               "opponents": "optimal", "steps": 30_000, "every": 3_000},
    "pig100": {"title": "Pig to 100", "env": "dicelab/Pig-v0", "rules": {"goal": 100},
               "opponents": "optimal", "steps": 60_000, "every": 6_000},
    "liars": {"title": "Liar's Dice duel (1 die each, 6 faces, ones wild)", "env": "dicelab/LiarsDice-v0",
              "rules": {"players": 2, "dice": 1, "faces": 6, "wild": "ones"},
              "opponents": "probabilistic", "steps": 30_000, "every": 3_000},
}
QUICK = {"piglet": (3_000, 1_000), "pig100": (3_000, 1_500), "liars": (3_000, 1_000)}
AGENTS = ("Q-learning", "DQN", "PPO")


def make_env(game: dict[str, Any], seed: int) -> Any:
    env = gym.make(game["env"], opponents=game["opponents"], seat=None, **game["rules"])
    env.reset(seed=seed)
    return env


def score(game: dict[str, Any], policy: Any) -> dict[str, Any]:
    """The exact grade, reduced to what the leaderboard shows."""
    g = dicelab.grade(game["env"], policy, **game["rules"])
    r = g.result
    if r["kind"] == "win":
        return {"win": r["win"], "win_first": r["win_first"], "win_second": r["win_second"],
                "optimal": r["optimal"], "mean_loss": r["mean_loss"], "worst_loss": r["worst_loss"],
                "grade_seconds": g.seconds}
    return {"exploitability": r["exploitability"], "method": r["method"], "grade_seconds": g.seconds}


# ------------------------------------------------------------------------------------------------
# tabular Q-learning (epsilon-greedy over the legal actions, constant step, no discount)


def q_learning(game: dict[str, Any], steps: int, every: int, seed: int = 0, alpha: float = 0.1,
               epsilon: float = 0.1) -> tuple[list[dict[str, Any]], Callable[[Any], int]]:
    env = make_env(game, seed).unwrapped
    rng = np.random.default_rng(seed)
    n_actions = env.action_space.n
    q: dict[tuple[int, ...], np.ndarray] = {}

    def row(obs: Any) -> np.ndarray:
        key = tuple(obs["observation"].tolist())
        if key not in q:
            q[key] = np.zeros(n_actions)
        return q[key]

    def policy(obs: Any) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        key = tuple(np.asarray(obs["observation"]).tolist())
        values = q.get(key)
        if values is None:
            return int(legal[-1])  # unseen: the last legal action (Pig: roll; the duel: the highest bid)
        return int(legal[np.argmax(values[legal])])

    curve: list[dict[str, Any]] = []
    t0, c0 = time.perf_counter(), time.process_time()
    done_steps, episode = 0, 0
    while done_steps < steps:
        obs, _ = env.reset(seed=seed * 1_000_003 + episode)
        episode += 1
        if not obs["action_mask"].any():  # the opponent won before the learner moved
            env.step(0)
            continue
        done = False
        while not done and done_steps < steps:
            legal = np.flatnonzero(obs["action_mask"])
            r = row(obs)
            a = int(rng.choice(legal)) if rng.random() < epsilon else int(legal[np.argmax(r[legal])])
            obs2, reward, terminated, truncated, _ = env.step(a)
            done = terminated or truncated
            target = reward
            if not done:
                nxt = row(obs2)
                target = nxt[np.flatnonzero(obs2["action_mask"])].max()
            r[a] += alpha * (target - r[a])
            obs = obs2
            done_steps += 1
            if done_steps % every == 0:
                curve.append({"steps": done_steps, "seconds": time.perf_counter() - t0,
                              "cpu_seconds": time.process_time() - c0, **score(game, policy)})
    return curve, policy


# ------------------------------------------------------------------------------------------------
# Stable-Baselines3


class VectorObservation(gym.ObservationWrapper):
    """The observation vector alone (SB3 one-hot encodes a MultiDiscrete space)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, obs: Any) -> Any:
        return obs["observation"]


def sb3(kind: str, game: dict[str, Any], steps: int, every: int, seed: int = 0
        ) -> tuple[list[dict[str, Any]], Any]:
    import torch
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)
    env = VectorObservation(make_env(game, seed))
    if kind == "DQN":
        model = DQN("MlpPolicy", env, seed=seed, learning_starts=1_000, buffer_size=100_000,
                    exploration_fraction=0.3, exploration_final_eps=0.05, target_update_interval=1_000,
                    policy_kwargs={"net_arch": [64, 64]}, device="cpu", verbose=0)
    else:
        model = PPO("MlpPolicy", env, seed=seed, n_steps=1024, batch_size=256, ent_coef=0.01,
                    policy_kwargs={"net_arch": [64, 64]}, device="cpu", verbose=0)
    curve: list[dict[str, Any]] = []
    t0, c0 = time.perf_counter(), time.process_time()

    class Grade(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % every == 0:
                curve.append({"steps": self.num_timesteps, "seconds": time.perf_counter() - t0,
                              "cpu_seconds": time.process_time() - c0, **score(game, self.model)})
            return True

    model.learn(total_timesteps=steps, callback=Grade())
    return curve, model


# ------------------------------------------------------------------------------------------------
# the page


def plot(name: str, game: dict[str, Any], runs: dict[str, list[dict[str, Any]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    key = "exploitability" if "liars" in name else "win"
    fig, ax = plt.subplots(figsize=(7, 4))
    for agent, curve in runs.items():
        if curve:
            ax.plot([c["steps"] for c in curve], [c[key] for c in curve], "o-", label=agent)
    if key == "win":
        ax.axhline(0.5, color="grey", ls=":", label="optimal play")
        ax.set_ylabel("exact win probability against optimal play")
    else:
        ax.axhline(0.0, color="grey", ls=":", label="an equilibrium")
        ax.set_ylabel("exact exploitability")
    ax.set_xlabel("training steps (the agent's decisions)")
    ax.set_title(game["title"])
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _time(c: dict[str, Any]) -> str:
    """Wall time of training and grading, with the CPU time this process got (the machine is shared)."""
    cpu = c.get("cpu_seconds")
    return f"{c['seconds']:.0f} s" + (f" ({cpu:.0f} s)" if cpu is not None else "")


def page(results: dict[str, Any]) -> str:
    meta = results["meta"]
    lines = ["# Leaderboard: learned agents, graded exactly", "",
             "Tabular Q-learning, DQN and PPO (Stable-Baselines3, CPU) learn each game from scratch in its "
             "Gymnasium environment against dicelab's strongest bot, with the same budget of decisions. "
             "Every few thousand steps the agent's greedy policy is graded by `dicelab.grade`, which plays no "
             "game: it enumerates every decision and evaluates the policy exactly. So each curve below is an "
             "*exact learning curve*, without sampling noise.", "",
             "* **Pig and Piglet**: the exact win probability against optimal play, seats averaged (optimal "
             "play itself: 0.5), and the win chance the policy gives away per decision it meets (mean, and "
             "its worst decision).",
             "* **Liar's Dice duel**: the exact exploitability, what a best response gains against the "
             "policy per round (payoff +-1; 0 at an equilibrium, 1 for a policy a best response always beats).",
             "",
             f"Made by `benchmarks/leaderboard.py` (`make leaderboard`: one process per game) on "
             f"{meta['machine']}, seed 0, under `nice -n 10` while other jobs ran (the load average is given "
             "with each game): wall times are noisy (the CPU time the run got is in brackets), the grades "
             "are exact.", ""]
    for name, game in GAMES.items():
        runs = results["games"].get(name)
        if runs is None:
            lines += [f"## {game['title']}", "", "Not run yet (`make leaderboard`).", ""]
            continue
        lines += [f"## {game['title']}", "",
                  f"Budget: {runs['budget']:,} decisions per agent, graded every {runs['every']:,}; opponent "
                  f"`{game['opponents']}`, seat drawn at random each game. Run {runs['when']} UTC in "
                  f"{runs['minutes']:.0f} minutes (load average {runs['load_start']} at the start, "
                  f"{runs['load_end']} at the end).", ""]
        if runs["budget"] < game["steps"]:
            lines += [f"**A small budget** (`--quick`): the machine was shared while this page was made; the "
                      f"full run (`make leaderboard`) gives each agent {game['steps']:,} decisions. The grades "
                      "are exact for the policies these budgets produce; with more training they change.", ""]
        if "liars" in name:
            lines += ["| agent | exploitability | method | time (CPU) |", "|---|---|---|---|"]
        else:
            lines += ["| agent | win (seats averaged) | moving first | moving second | lost per decision | "
                      "worst decision | time (CPU) |", "|---|---|---|---|---|---|---|"]
        for agent in AGENTS:
            curve = runs["agents"].get(agent)
            if not curve:
                lines.append(f"| {agent} | not run: {runs.get('skipped', {}).get(agent, 'not yet')} |")
                continue
            c = curve[-1]
            if "liars" in name:
                lines.append(f"| {agent} | {c['exploitability']:.4f} | {c['method']} | {_time(c)} |")
            else:
                lines.append(f"| {agent} | {c['win']:.4f} | {c['win_first']:.4f} | {c['win_second']:.4f} | "
                             f"{c['mean_loss']:.2%} | {c['worst_loss']:.1%} | {_time(c)} |")
        lines += ["", f"![{game['title']}: exact learning curves](img/leaderboard-{name}.png)", ""]
    lines += ["## How to grade your own agent", "",
              "```bash",
              "pip install 'dicelab[rl]'   # Stable-Baselines3 and a CPU build of PyTorch",
              "dicelab grade dicelab/Pig-v0 --policy model.zip --rule goal=10 --rule variant=piglet",
              "```", "",
              "or, from Python, `dicelab.grade(\"dicelab/Pig-v0\", policy, goal=10, variant=\"piglet\")` with a "
              "callable, a Stable-Baselines3 model or a table file.", ""]
    return "\n".join(lines)


def _load(out: Path) -> dict[str, Any]:
    path = out / "leaderboard.json"
    return json.loads(path.read_text()) if path.exists() else {"games": {}, "meta": {}}


def _render(out: Path, results: dict[str, Any]) -> None:
    for name, game in GAMES.items():
        if name in results["games"]:
            plot(name, game, results["games"][name]["agents"], out / "img" / f"leaderboard-{name}.png")
    if results["games"]:
        (out / "leaderboard.md").write_text(page(results))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs", help="folder for leaderboard.md, img/ and leaderboard.json")
    parser.add_argument("--quick", action="store_true", help="tiny budgets (a smoke test)")
    parser.add_argument("--games", default=",".join(GAMES), help="which games: " + ",".join(GAMES))
    parser.add_argument("--agents", default=",".join(AGENTS), help="which agents: " + ",".join(AGENTS))
    parser.add_argument("--render", action="store_true", help="only redraw the page and plots from OUT/leaderboard.json")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.render:
        results = _load(out)
        _render(out, results)
        return results
    # one game at a time, saved after every agent, so games can run as separate processes (one per
    # core) and an interrupted run keeps what it finished: the page is drawn once every game is in
    agents = [a for a in AGENTS if a in args.agents.split(",")]
    for name in args.games.split(","):
        game = GAMES[name]
        steps, every = QUICK[name] if args.quick else (game["steps"], game["every"])
        runs: dict[str, Any] = {"budget": steps, "every": every, "agents": {}, "skipped": {},
                                "load_start": round(os.getloadavg()[0], 1), "when": time.strftime("%Y-%m-%d %H:%M")}
        t0 = time.perf_counter()
        for agent in agents:
            print(f"{name}: {agent} ...", flush=True)
            if agent == "Q-learning":
                curve, _ = q_learning(game, steps, every)
            else:
                try:
                    curve, _ = sb3(agent, game, steps, every)
                except ImportError:
                    runs["skipped"][agent] = "pip install 'dicelab[rl]'"
                    continue
            runs["agents"][agent] = curve
            runs["load_end"] = round(os.getloadavg()[0], 1)
            runs["minutes"] = (time.perf_counter() - t0) / 60
            print(f"  {curve[-1]}", flush=True)
            with _lock(out):
                results = _load(out)
                results["games"][name] = runs
                results["meta"] = {"machine": f"{os.cpu_count()} cores, {platform.python_implementation()} "
                                              f"{platform.python_version()}"}
                (out / "leaderboard.json").write_text(json.dumps(results, indent=1))
        with _lock(out):
            results = _load(out)
            _render(out, results)
    return results


def _lock(out: Path) -> Any:
    """An exclusive lock on OUT (games run as parallel processes write the same file)."""
    import contextlib
    import fcntl

    @contextlib.contextmanager
    def held() -> Any:
        with open(out / ".leaderboard.lock", "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            yield

    return held()


if __name__ == "__main__":
    main()
