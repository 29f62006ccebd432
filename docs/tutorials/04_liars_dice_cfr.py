# %% [markdown]
# # 4. Liar's Dice, CFR and exploitability
#
# In Liar's Dice each player sees only their own dice. Players raise a bid ("at least two fives on
# the table") or call the last bid a lie. Hidden information means bluffing pays, and the right way
# to play is a *randomised* strategy. This tutorial solves a one-round duel (one die each) with
# counterfactual regret minimisation (CFR) and measures strategies by their **exploitability**: how
# much a perfect opponent who knows your strategy gains against it.

# %%
# %matplotlib inline
import os

import matplotlib.pyplot as plt

from dicelab import liars

QUICK = os.environ.get("DICELAB_TUTORIAL_QUICK") == "1"

# %% [markdown]
# ## The duel OpenSpiel knows
#
# One die each, six faces, the highest face wild: OpenSpiel gives the first bidder the value -7/258
# (about -0.0271: the second player has a small edge).

# %%
duel = liars.DuelRules(dice=(1, 1), faces=6, wild="highest")
sol = liars.solve(duel, target=1e-3 if QUICK else 1e-5)
print(f"value {sol.value:.5f} (OpenSpiel {-7 / 258:.5f}), exploitability {sol.exploitability:.1e}")
assert abs(sol.value - (-7 / 258)) < 1e-3

# %% [markdown]
# ## How CFR converges
#
# CFR plays the game against itself many times and, at every decision, shifts probability towards
# the moves it regrets not having played. Its average strategy approaches an equilibrium; the
# exploitability measures how far it still is.

# %%
iters = [25, 50, 100, 200] if QUICK else [25, 50, 100, 200, 400, 800, 1600]
gaps = [liars.solve(duel, iterations=n, target=1e-12, check_every=n).exploitability for n in iters]
plt.loglog(iters, gaps, "o-")
plt.xlabel("CFR iterations")
plt.ylabel("exploitability (payoff +-1 per round)")
plt.show()

# %% [markdown]
# ## How exploitable are simple bots?
#
# dicelab's `random` bot raises or calls at random; `probabilistic` raises with the probability that
# the standing bid is true. Both are easy prey for a best response. Exploitability is exact here: the
# whole game tree is walked.

# %%
rules = liars.LiarsRules(players=2, dice=1, faces=6, wild="none")
plain = liars.DuelRules(dice=(1, 1), faces=6, wild="none")
for name in ("random", "probabilistic"):
    g = liars.exploitability(plain, lambda view, n=name: liars.action_distribution(n, view), rules)
    print(f"{name:>13}: exploitability {g['exploitability']:.3f}")
eq = liars.solve(plain, target=1e-3)
print(f"{'CFR':>13}: exploitability {eq.exploitability:.4f}")

# %% [markdown]
# ## What to remember
#
# * With hidden dice, a deterministic strategy is predictable and a perfect opponent punishes it.
# * Exploitability is a *worst case*: the gain of the best counter-strategy, not of a typical player.
# * At an equilibrium every move it mixes is worth the same; a coach should explain what differs
#   between them (the chance the standing bid holds, what each move risks) rather than name a winner.
