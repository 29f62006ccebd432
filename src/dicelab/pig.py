"""Pig: the classic jeopardy dice game, solved.

Two players take turns rolling a die. Each roll adds to a *turn total*, unless it is a 1, which
wipes the turn total and passes the turn. At any moment the mover may *hold*: bank the turn total
and pass the turn. The first to reach the goal (100) wins. Every decision is "press on or stop".

>>> from dicelab.pig import PigRules, solve
>>> sol = solve(PigRules(goal=100))
>>> round(sol.win_probability(0, 0, 0), 7)      # Neller & Presser: the first player's edge
0.5305927
>>> sol.action(50, 60, 20)
'hold'

The public verbs:

* :func:`solve` — exact optimal play (win probability and action at every state), with the
  turn-limited variant of seed 003; :func:`solve_cached` reuses solved tables on disk.
* :class:`PigRules` — goal, die and variant (``standard``, ``piglet``, ``two-dice``).
* :class:`PigGame` — a live game engine, for play against bots.
"""

from dicelab.games.pig import VARIANTS, PigGame, PigRules
from dicelab.solvers.pig import PigSolution, solve, solve_cached

__all__ = ["VARIANTS", "PigGame", "PigRules", "PigSolution", "solve", "solve_cached"]
