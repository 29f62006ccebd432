"""Seed 001 (Höhle, optimal strategy for Super Six by value iteration), recomputed beside the values
the blog printed (its Results table and the start player's chance), through this package's verbs.
``dicelab reproduce 001`` runs it (:mod:`dicelab.core.reproduce`).
"""

from __future__ import annotations

from dicelab.core.reproduce import Check, Context, Figure, Reproduction, Section
from dicelab.supersix.plots import edge_plot, strategy_chart
from dicelab.supersix.rules import SuperSixRules
from dicelab.supersix.solver import solve_two_cached

TITLE = "Höhle, Optimal strategy for Super Six by value iteration (blog post with Python code)"
SOURCE = "seed `001_6a3856e406a8541b.txt`"

#: The blog's Results table (section "Results"): i j k l, strategy (TRUE = throw), prob.
RESULTS = [
    (5, 1, 1, 1, True, "0.4512917"), (5, 1, 1, 0, False, "0.5487083"),
    (4, 2, 1, 1, True, "0.3185117"), (4, 2, 1, 0, False, "0.3415501"),
    (4, 1, 2, 1, True, "0.6584499"), (4, 1, 2, 0, False, "0.6814883"),
    (4, 1, 1, 1, True, "0.5242297"), (4, 1, 1, 0, True, "0.5242297"),
    (3, 3, 1, 1, True, "0.2362578"), (3, 3, 1, 0, True, "0.2362578"),
    (3, 2, 2, 1, True, "0.5123251"), (3, 2, 2, 0, True, "0.5123251"),
    (3, 2, 1, 1, True, "0.3613104"), (3, 2, 1, 0, True, "0.3613104"),
    (3, 1, 3, 1, True, "0.7904670"), (3, 1, 3, 0, True, "0.7904670"),
    (3, 1, 2, 1, True, "0.7136555"), (3, 1, 2, 0, True, "0.7136555"),
    (3, 1, 1, 1, True, "0.6125487"), (3, 1, 1, 0, True, "0.6125487"),
]
#: "Probability to Win as Start-Player": the four states after round 1 and their probabilities.
ROUND_TWO = [((0, 3, 3, 1), 1 / 36), ((1, 3, 3, 1), 10 / 36), ((2, 3, 3, 1), 20 / 36), ((0, 3, 5, 1), 5 / 36)]
START = "0.602"


def results_table(ctx: Context) -> Section:
    """The Results table: every position with at least three sticks in the lid, at most 7 in play."""
    sol = solve_two_cached(SuperSixRules(sticks=4))
    checks = []
    for i, j, k, forced, throw, prob in RESULTS:
        where = "Results table"
        checks.append(Check(f"P(win) at {i}/{j}/{k}/{forced}", where, prob, sol.win_probability(i, j, k, forced)))
        if not forced:
            act = sol.action(i, j, k, forced)
            checks.append(Check(f"decision at {i}/{j}/{k}/0", where, "throw" if throw else "stop", act))
    fig = strategy_chart(sol, ctx.figure("strategy.png"), max_total=7)
    text = ("dicelab solves two-player Super Six exactly by layered policy iteration (`dicelab supersix table`); "
            "the blog runs value iteration to 1e-10.")
    return Section("The Results table", text, checks,
                   [Figure(fig.name, "Optimal decision and win probability at every position with at most 7 "
                                     "sticks in play (the blog's figure)")])


def start_player(ctx: Context) -> Section:
    """The start player's chance with four sticks each, and how it falls with more sticks."""
    sol = solve_two_cached(SuperSixRules(sticks=4))
    by_round_two = sum(p * sol.win_probability(*s) for s, p in ROUND_TWO)
    checks = [Check("start player's win probability, 4 sticks each", "'Probability to Win as Start-Player'", START,
                    sol.start_player_win()),
              Check("the same from the blog's four round-two states", "'Probability to Win as Start-Player'", START,
                    by_round_two)]
    top = 10 if ctx.quick else 30
    fig = edge_plot(ctx.figure("edge.png"), top)
    return Section("The start player's edge", "Round 1 (one throw each) is handled apart, as in the blog.", checks,
                   [Figure(fig.name, f"The start player's win probability with 1 to {top} sticks each")])


REPRODUCTIONS = (Reproduction("001", TITLE, SOURCE, (results_table, start_player)),)

__all__ = ["REPRODUCTIONS", "RESULTS"]
