# %% [markdown]
# # 5. Train a reinforcement-learning agent and grade it exactly
#
# dicelab's games are Gymnasium environments. An agent trained on one usually gets a *win rate*
# against some bots, measured over a few thousand games and uncertain by a percent or two. dicelab
# can do better: because it knows the rules exactly, it grades a policy **without playing a game**:
#
# * its exact win probability against perfect play, moving first and moving second;
# * the win chance it gives away at each decision, averaged over the decisions a game against
#   perfect play really reaches (weighted by how often), and its worst decision.
#
# Here a tabular Q-learning agent learns Piglet (a coin instead of a die: heads adds 1, tails loses
# the turn total) to 10 points, against dicelab's optimal player.

# %%
# %matplotlib inline
import os

import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import dicelab
import dicelab.envs  # noqa: F401  (registers dicelab/Pig-v0 and the others)

QUICK = os.environ.get("DICELAB_TUTORIAL_QUICK") == "1"
GAME = {"goal": 10, "variant": "piglet"}
EPISODES = 400 if QUICK else 20_000
EVERY = 200 if QUICK else 1_000
HOLD, ROLL = 0, 1

# %% [markdown]
# ## The environment
#
# An observation is `[own score, opponent's score, turn total, 1 if it is your move]` plus an
# action mask; action 1 rolls, 0 holds. The opponent seat is played by `optimal`.

# %%
env = gym.make("dicelab/Pig-v0", opponents="optimal", seat=None, **GAME).unwrapped
obs, _ = env.reset(seed=0)
print(obs)

# %% [markdown]
# ## Q-learning, graded as it learns
#
# The agent keeps a value for each (state, action) and updates it after every move. Every few
# thousand games we grade its greedy policy exactly: this is an *exact learning curve*, with no noise
# from sampling games.

# %%
def greedy(q):
    return lambda o: int(q[tuple(o["observation"][:3])][ROLL] > q[tuple(o["observation"][:3])][HOLD])


rng = np.random.default_rng(0)
g = GAME["goal"]
q = np.zeros((g, g, g, 2))
q[..., ROLL] = 1e-6  # a slight preference for rolling where nothing is known yet
alpha, epsilon = 0.1, 0.1
curve = []
for episode in range(1, EPISODES + 1):
    obs, _ = env.reset(seed=episode)
    done = not obs["action_mask"].any()
    while not done:
        s = tuple(obs["observation"][:3])
        a = int(rng.integers(2)) if rng.random() < epsilon else int(q[s][ROLL] > q[s][HOLD])
        obs, reward, terminated, truncated, _ = env.step(a)
        done = terminated or truncated
        target = reward if terminated else q[tuple(obs["observation"][:3])].max()
        q[s][a] += alpha * (target - q[s][a])
    if episode % EVERY == 0:
        grade = dicelab.grade("dicelab/Pig-v0", greedy(q), **GAME)
        curve.append((episode, grade["win"], grade["mean_loss"]))

episodes, wins, losses = zip(*curve)
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].plot(episodes, wins, "o-")
ax[0].axhline(0.5, c="grey", ls=":", label="perfect play")
ax[0].set_xlabel("training games")
ax[0].set_ylabel("exact win probability against optimal")
ax[0].legend()
ax[1].plot(episodes, losses, "o-")
ax[1].set_xlabel("training games")
ax[1].set_ylabel("win chance lost per decision")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## The final grade

# %%
final = dicelab.grade("dicelab/Pig-v0", greedy(q), **GAME)
print("\n".join(final.lines()))

# %% [markdown]
# Two laws hold exactly and make good checks: perfect play gives nothing away, and the win chance a
# policy gives away over a game (the losses at every decision, weighted by how often they are met)
# is exactly the gap between perfect play's win probability and the policy's.

# %%
from dicelab import pig  # noqa: E402

sol = pig.solve(pig.PigRules(**GAME))
perfect = dicelab.grade("dicelab/Pig-v0", lambda o: int(sol.roll[tuple(o["observation"][:3])]), **GAME)
print(f"perfect play: wins {perfect['win_first']:.4f} first, loses {perfect['mean_loss']:.1e} per decision")
assert perfect["mean_loss"] < 1e-12
for seat in ("first", "second"):
    gap = final[f"optimal_{seat}"] - final[f"win_{seat}"]
    print(f"moving {seat}: lost per game {final[seat]['lost_per_game']:.6f} = optimal - policy {gap:.6f}")
    assert abs(final[seat]["lost_per_game"] - gap) < 1e-12

# %% [markdown]
# ## Exact or simulated?
#
# The usual way is to play games. 1,000 games against the optimal bot give an estimate whose 95%
# interval is about +-3 points wide; the exact grade needs no interval.

# %%
from dicelab.core.stats import wilson_interval  # noqa: E402

env = gym.make("dicelab/Pig-v0", opponents="optimal", seat=None, **GAME).unwrapped
policy = greedy(q)
wins = 0
games = 200 if QUICK else 1000
for n in range(games):
    obs, _ = env.reset(seed=10_000 + n)
    reward, done = 0.0, not obs["action_mask"].any()
    if done:
        obs, reward, *_ = env.step(HOLD)
    while not done:
        obs, reward, terminated, truncated, _ = env.step(policy(obs))
        done = terminated or truncated
    wins += reward > 0
lo, hi = wilson_interval(wins, games)
print(f"simulated: {wins / games:.3f}, 95% interval [{lo:.3f}, {hi:.3f}]; exact: {final['win']:.4f}")

# %% [markdown]
# ## Deep RL: Stable-Baselines3
#
# The same grade works for a neural policy. With `pip install 'dicelab[rl]'` (Stable-Baselines3 and
# a CPU build of PyTorch) a PPO or DQN model, or the `.zip` it was saved to, is graded the same way:
# `dicelab.grade("dicelab/Pig-v0", "model.zip", goal=10, variant="piglet")` or, from the shell,
# `dicelab grade dicelab/Pig-v0 --policy model.zip --rule goal=10 --rule variant=piglet`. The model
# plays greedily among the legal actions. The docs' *Leaderboard* page grades Q-learning, DQN and
# PPO this way as they train.

# %%
from importlib.util import find_spec  # noqa: E402

print("Stable-Baselines3 installed:", find_spec("stable_baselines3") is not None)
