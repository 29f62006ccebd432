# %% [markdown]
# # 2. Is my strategy any good? Exact answers and simulated ones
#
# To compare two strategies you can *simulate* many games and count wins, or ask dicelab for the
# *exact* probability. This tutorial does both and shows how many games a simulation needs before
# its answer can be trusted. The numbers are those of the University of Exeter group project on Pig
# (2017, seed 002 of dicelab's sources).

# %%
# %matplotlib inline
import os

import matplotlib.pyplot as plt
import numpy as np

from dicelab import pig
from dicelab.core.stats import sample_size

QUICK = os.environ.get("DICELAB_TUTORIAL_QUICK") == "1"
rules = pig.PigRules()

# %% [markdown]
# ## The exact answer
#
# "Hold at 20" against "hold at 21": the project's Figure 17 prints 0.5426 for hold at 20 moving
# first and 0.5258 for hold at 21 moving first.

# %%
e = pig.evaluate("hold:20", "hold:21", rules)
print(f"hold:20 first {e.a_first:.4f}, hold:21 first {e.b_first:.4f}, hold:20 overall {e.a_overall:.4f}")
assert (round(e.a_first, 4), round(e.b_first, 4)) == (0.5426, 0.5258)  # Figure 17

# %% [markdown]
# Overall (first move alternating) hold:20 wins 50.84%: better than hold:21, but only just.

# %% [markdown]
# ## The simulated answer
#
# A simulation of n games gives an estimate with a confidence interval (Wilson's). With a few
# hundred games the interval is far too wide to tell these two strategies apart:

# %%
for games in (300, 3_000, 30_000) if QUICK else (300, 3_000, 30_000, 300_000):
    r = pig.simulate("hold:20", "hold:21", rules, games=games, seed=1)
    print(f"{games:>7,} games: {r.a_overall:.4f}  95% interval [{r.ci_low:.4f}, {r.ci_high:.4f}]"
          f"  exact value inside: {r.ci_low <= e.a_overall <= r.ci_high}")

# %% [markdown]
# ## How many games do you need?
#
# For an interval of half-width m at 95%, the normal approximation needs about 1.96^2 / (4 m^2)
# games. The project asked for +-0.025 and got 1,537; telling hold:20 from hold:21 (a difference of
# 0.0084) needs far more.

# %%
print(sample_size(0.025), "games for +-0.025")
assert sample_size(0.025) == 1537  # seed 002, section 3.3.1
print(sample_size(abs(e.a_overall - 0.5)), "games to resolve hold:20 against hold:21")

# %% [markdown]
# ## Watching an estimate settle
#
# Each line is one run of games between hold:25 and itself; the estimate wanders and slowly
# settles towards the exact 1/2 (the project's Figure 15).

# %%
from dicelab.pig.simulation import fair_test_convergence  # noqa: E402

d = fair_test_convergence("hold:25", None, rules, 2000 if QUICK else 4000, 10 if QUICK else 30, 0)
n = np.arange(1, len(d["exact"]) + 1)
plt.fill_between(n, d["q025"], d["q975"], alpha=0.3, label="middle 95% of the runs")
plt.plot(n, d["exact"], "k", label="exact")
plt.axhline(0.475, ls=":", c="grey")
plt.axhline(0.525, ls=":", c="grey", label="+-0.025")
plt.xscale("log")
plt.xlabel("games played")
plt.ylabel("estimated win rate")
plt.legend()
plt.show()

# %% [markdown]
# ## A strategy of your own
#
# Any Python function `f(my_score, opponent_score, turn_total) -> roll?` is a strategy. Here: hold
# at 20, but roll on when the opponent is close to winning.

# %%
def mine(i, j, k):
    return k < 20 or (j >= 85 and i + k < 100)

e = pig.evaluate(mine, "hold:20", rules)
print(f"against hold:20 it wins {e.a_overall:.4f} overall (exact)")
print(f"against optimal: {pig.evaluate(mine, 'optimal', rules).a_overall:.4f}")
