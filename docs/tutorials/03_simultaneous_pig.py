# %% [markdown]
# # 3. Simultaneous Pig and its mixed equilibrium
#
# In **simultaneous Pig** (Zhu & Ma, 2023) every player takes the turn at the same time: each one
# secretly picks a target k ("hold at k"), rolls until the turn total reaches k or a 1 wipes it out,
# and then all turn totals are banked together. Whoever reaches 100 wins (a tie shares the win).
#
# Because the choices are secret and simultaneous, the best target depends on what you expect the
# other player to pick, and the other player reasons the same way: this is a game in the sense of
# game theory, and its answer is a *mixed* strategy.

# %%
# %matplotlib inline
import os

import matplotlib.pyplot as plt
import numpy as np

from dicelab import simpig

QUICK = os.environ.get("DICELAB_TUTORIAL_QUICK") == "1"
GOAL = 40 if QUICK else 100  # the paper's numbers are checked at 100
rules = simpig.SimPigRules(goal=GOAL)

# %% [markdown]
# ## One turn: the turn total of "hold at k"
#
# Holding at k ends the turn with 0 (a 1 was rolled) or with k to k + 5 points. dicelab computes the
# distribution exactly. Holding at 100 wins in a single turn only about one time in a hundred.

# %%
x100 = simpig.turn_total_fractions(100)
print(f"P(X_100 = 0) = {float(x100[0]):.4f}")
assert round(float(x100[0]), 4) == 0.9898  # the paper's Table 2
d = simpig.turn_total_distribution(25)
plt.bar([str(t) for t in d], list(d.values()))
plt.xlabel("turn total when holding at 25")
plt.ylabel("probability")
plt.show()

# %% [markdown]
# ## Against a fixed opponent
#
# If the opponent always holds at n, the best reply is an ordinary optimisation problem. The paper's
# Figure 1 draws how much the best reply wins for each n: "hold at 25" is the hardest opponent of
# that kind, and even it loses 52.31% of the time to its best reply.

# %%
ns = list(range(max(2, GOAL // 10), GOAL // 2 + 1, 1 if not QUICK else 2))
rows = simpig.sweep_hold(ns, rules)
plt.plot([r["n"] for r in rows], [r["win_probability"] for r in rows], "o-")
plt.xlabel("the opponent always holds at n")
plt.ylabel("the best reply wins")
plt.show()
br = simpig.best_response(f"hold:{round(GOAL / 4)}", rules)
print(f"best reply to hold at {round(GOAL / 4)}: {br.win_probability:.4f}")
if GOAL == 100:
    assert round(br.win_probability, 4) == 0.5231  # the paper

# %% [markdown]
# ## Both players adapting: self-play cycles
#
# If both players keep switching to their best reply against the other's current strategy, they
# never settle: value iteration falls into a cycle of two policies (the paper's "mixed-strategy
# equilibrium" section finds 141 states that cycle; dicelab, starting from hold at 25, 149).

# %%
sp = simpig.selfplay(rules)
print(f"cycle of length {sp.cycle_length} after {sp.sweeps} sweeps; {sp.cyclic_states} states cycle")

# %% [markdown]
# ## The exact mixed equilibrium
#
# The way out is to let each player randomise at each score pair: solve a small matrix game at every
# state, from the end of the game backwards (Shapley's method). The equilibrium is worth exactly 1/2
# to each player, and no strategy at all can beat it.

# %%
eq = simpig.solve(rules, progress=False)
print(f"value at the start {eq.start_value:.12f}; {eq.mixed_states} states need a mixed choice")
assert abs(eq.start_value - 0.5) < 1e-12
mixed = np.zeros((GOAL, GOAL))
for c in range(eq.weights.shape[0]):
    mixed += (eq.weights[c] > 0).astype(float)
plt.imshow((mixed > 1).T, origin="lower", cmap="Greys")
plt.xlabel("own score")
plt.ylabel("opponent's score")
plt.title("where the equilibrium mixes two targets")
plt.show()

# %% [markdown]
# At (69, 47), where the paper's self-play cycles between 16 and 31, the equilibrium picks exactly
# those two targets, with probabilities that make the opponent indifferent.

# %%
if GOAL == 100:
    sup = eq.support(69, 47)
    print(sup)
    assert sorted(sup) == [16, 31]
    print("hold:25 can be beaten by", round(simpig.exploitability("hold:25"), 4), "over one half")

# %% [markdown]
# ## What to remember
#
# * Against a known, fixed opponent, the best reply is a plain optimisation.
# * When both adapt, pure strategies chase each other in circles.
# * The equilibrium randomises, and at every state where it mixes each of its targets is worth the
#   same: no target is "the best" there; what differs is how much each risks.
