# %% [markdown]
# # 1. Solve Pig and read its strategy
#
# **Pig** is a race to 100 points. On your turn you roll one die as often as you like; every roll
# adds to your *turn total*, unless it is a 1, which wipes the turn total out and ends your turn.
# You may *hold* at any time: your turn total is banked and the other player rolls. Every decision
# is "press on or stop".
#
# In this tutorial dicelab solves the game exactly: for every position (your score, the opponent's
# score, your turn total) it finds the probability that you win if both players play perfectly, and
# the move that achieves it. Then we read the strategy off the table.

# %%
# %matplotlib inline
import os

import matplotlib.pyplot as plt
import numpy as np

from dicelab import pig

QUICK = os.environ.get("DICELAB_TUTORIAL_QUICK") == "1"  # the test suite runs a smaller version
rules = pig.PigRules(goal=100)
sol = pig.solve(rules)
print(f"solved {rules.n_states:,} positions in {sol.seconds:.2f} s")

# %% [markdown]
# ## The first player's edge
#
# With perfect play on both sides the player who starts wins a little more than half the games.
# Neller and Presser, who first solved Pig (2004), give **0.5306**; dicelab's table agrees.

# %%
first = sol.win_probability(0, 0, 0)
print(f"the first player wins {first:.7f} of games")
assert round(first, 4) == 0.5306  # Neller & Presser 2004

# %% [markdown]
# ## Reading the strategy
#
# The optimal strategy says, for each pair of banked scores, the turn total at which to stop
# rolling. A popular rule of thumb is "hold at 20". Here is what perfect play does instead:

# %%
for me, opp in [(0, 0), (50, 50), (0, 90), (90, 0), (70, 95)]:
    print(f"you {me:>2}, opponent {opp:>2}: hold at {sol.hold_threshold(me, opp)}")

# %% [markdown]
# Perfect play is bolder when it is behind (0 against 90: keep rolling far past 20) and careful when
# it is ahead. The surface below draws the whole rule: under it you roll, on or above it you hold.

# %%
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from IPython.display import Image  # noqa: E402

from dicelab.pig.plots import boundary  # noqa: E402

Image(filename=boundary(sol, Path(tempfile.mkdtemp()) / "boundary.png"), width=560)

# %% [markdown]
# A flatter view: the turn total at which to hold, against your own score, for a few opponent scores.

# %%
h = sol.hold_thresholds()
for opp in (0, 30, 60, 90):
    plt.step(np.arange(100), h[:, opp], where="post", label=f"opponent at {opp}")
plt.xlabel("your banked score")
plt.ylabel("hold when the turn total reaches")
plt.legend()
plt.show()

# %% [markdown]
# ## How much does "hold at 20" cost?
#
# `pig.evaluate` plays any two strategies against each other *exactly* (no simulation). Against
# perfect play, holding at 20 gives away a few percent:

# %%
for spec in ("hold:20", "hold:25", "keep-pace", "optimal"):
    e = pig.evaluate(spec, "optimal", rules)
    print(f"{spec:>9} against optimal: {e.a_first:.4f} moving first, {e.a_second:.4f} second")

# %% [markdown]
# ## The smallest game: Piglet
#
# Piglet uses a coin: heads adds 1 point, tails loses the turn total. Played to 2 points the
# answer can be worked out by hand: the first player wins 4/7 of the time.

# %%
tiny = pig.solve(pig.PigRules(goal=2, variant="piglet"))
print(tiny.win_probability(0, 0, 0), 4 / 7)
assert abs(tiny.win_probability(0, 0, 0) - 4 / 7) < 1e-12
