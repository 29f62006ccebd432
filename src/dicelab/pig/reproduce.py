"""Seeds 002 (Exeter group project, Pig's strategy lab) and 003 (lecture notes, turn-limited value
iteration), recomputed beside the values they printed (quoted below with their section or figure),
through this package's own verbs. ``dicelab reproduce 002`` / ``003`` run them
(:mod:`dicelab.core.reproduce`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dicelab.core.reproduce import Check, Context, Figure, Reproduction, Section
from dicelab.core.stats import sample_size
from dicelab.pig.api import evaluate, iterated_best_response, linear_system
from dicelab.pig.rules import PigRules

TITLE_002 = "University of Exeter (ECM3735 group 8), Finding the optimal strategy for the dice game Pig (2017)"
SOURCE_002 = "seed `002_ae2721db48b8fb23.txt`"
TITLE_003 = "Lecture notes: solving Pig by value iteration (turn-limited E[x, y, n], pairwise E[x, y])"
SOURCE_003 = "seed `003_f382f0ba51615d45.txt`"

#: Figure 17 (section 3.3.3), "Theoretical" columns: A v B, P(A wins | A first), P(B wins | B first),
#: P(A wins) in general; and the "Practical (under the fair test)" general column.
FIGURE_17 = [
    (20, 21, "0.5426", "0.5258", "0.5084", "0.5081"),
    (15, 20, "0.4784", "0.5933", "0.4426", "0.4417"),
    (1, 80, "0.5049", "0.5078", "0.4986", "0.4982"),
    (1, 5, "0.0236", "0.9860", "0.0188", "0.0186"),
    (80, 85, "0.5568", "0.4541", "0.5514", "0.5520"),
    (45, 55, "0.5544", "0.4740", "0.5402", "0.5415"),
    (1, 100, "0.7393", "0.2682", "0.7356", "0.7359"),
    (36, 52, "0.6354", "0.3969", "0.6193", "0.6190"),
    (5, 21, "0.0788", "0.9401", "0.0694", "0.0696"),
    (13, 31, "0.5006", "0.5559", "0.4724", "0.4731"),
]
NELLER_FIRST = "0.5306"  # INDEX.md: Neller & Presser 2004, the first player's chance under optimal play


# ------------------------------------------------------------------------------------------------
# 002


def equations(ctx: Context) -> Section:
    """Section 2.2.1: the simultaneous equations by hand (the end of a game to 100)."""
    # (97, 99) at goal 100 is (0, 2) at goal 3 with the same die: A needs 3 points, B needs 1.
    rules = PigRules(goal=3)
    states = {s: n for n, s in enumerate(rules.states())}
    n = len(states)

    def solve(a) -> np.ndarray:
        import scipy.sparse.linalg as spla

        m, r, _, _ = linear_system(a, "roll-to-win", rules)
        return spla.spsolve(m.tocsc(), r)

    rolls = solve("roll-to-win")
    banks = solve(lambda i, j, k: not (i == 0 and j == 2 and k == 2))
    both_99 = solve("roll-to-win")[states[(2, 2, 0)]]  # (99, 99) at 100 is (2, 2) at 3
    where = "section 2.2.1"
    checks = [
        Check("P(A wins) at 99-99, A to move, both roll", where, "6/7", str(Fraction(both_99).limit_denominator(1000))),
        Check("P(97, 99, 0), A rolls at (97, 99, 2)", where, "0.8325", rolls[states[(0, 2, 0)]]),
        Check("P(97, 99, 2), A rolls there", where, "0.8565", rolls[states[(0, 2, 2)]]),
        Check("Q(99, 97, 0), B to move", where, "0.8612", 1 - rolls[n + states[(2, 0, 0)]]),
        Check("P(97, 99, 0), A banks at (97, 99, 2)", where, "0.7102", banks[states[(0, 2, 0)]]),
        Check("P(97, 99, 2), A banks there", where, "0.1429", banks[states[(0, 2, 2)]]),
        Check("Q(99, 97, 0), B to move, A banks at (97, 99, 2)", where, "0.8816", 1 - banks[n + states[(2, 0, 0)]]),
    ]
    text = ("Near the end of a game to 100 the win probabilities solve small linear systems; dicelab writes the "
            "whole game as one sparse system (`pig.linear_system`) and solves it. The end of a game to 100 from "
            "(97, 99) is the game to 3 from (0, 2).")
    return Section("Section 2.2.1: the equations by hand", text, checks)


def figure17(ctx: Context) -> Section:
    """Figure 17: exact strategy-against-strategy win probabilities of hold-at pairs."""
    from dicelab.pig.simulation import fair_test

    checks = []
    pairs = [(f"hold:{a}", f"hold:{b}") for a, b, *_ in FIGURE_17]
    games = 300 if ctx.quick else 3000
    sims = fair_test(pairs, PigRules(), games=games, seed=2017)
    where = "Figure 17"
    for (a, b, first, second, general, practical), row in zip(FIGURE_17, sims, strict=True):
        e = evaluate(f"hold:{a}", f"hold:{b}")
        gap = abs(e.a_overall - float(general))
        why = ""
        if gap > 5e-5:
            approx = (float(first) + 1 - float(second)) / 2
            why = (f"The paper's general column is (x + 1 - y) / 2 of its two rounded columns: "
                   f"({first} + 1 - {second}) / 2 = {approx:.5f}; from the exact values it is {e.a_overall:.6f}.")
        checks += [Check(f"hold:{a} v hold:{b}: A first", where, first, e.a_first),
                   Check(f"hold:{a} v hold:{b}: B first", where, second, e.b_first),
                   Check(f"hold:{a} v hold:{b}: A in general", where, general, e.a_overall, why=why)]
    dev = max(r["deviation"] for r in sims)
    inside = sum(r["inside"] for r in sims)
    text = (f"Every value is exact (`dicelab pig eval`). The paper's 'practical' columns are simulations; "
            f"dicelab's fair test (`dicelab pig fair-test`, {games:,} games per pair, seed 2017) deviates from the "
            f"exact general value by at most {dev:.4f} (the paper's condition: below 0.025), and the exact value "
            f"lies inside the 95% Wilson interval for {inside} of the {len(sims)} pairs.")
    return Section("Figure 17: hold at a against hold at b, exact and simulated", text, checks)


def named_strategies(ctx: Context) -> Section:
    """Section 3.3.6: turtle, roll to win, roll and wait (the non-transitive triple), hold 25 v 30,
    the optimal strategy against hold at 25 and against itself."""
    where = "section 3.3.6"
    t = evaluate("turtle", "roll-to-win")
    w = evaluate("roll-to-win", "roll-and-wait")
    r = evaluate("roll-and-wait", "turtle")
    h = evaluate("hold:25", "hold:30")
    o = evaluate("optimal", "hold:25")
    oo = evaluate("optimal", "optimal")
    why_general = ("The paper computed this general value from its simulated columns, (0.8127 + 1 - 0.1949) / 2 "
                   "= 0.8089; from the exact columns it is (0.812840 + 1 - 0.195448) / 2 = "
                   f"{t.a_overall:.4f}.")
    why_rwt = ("The paper describes roll and wait only in words ('gets up to a banked score of 80, before not "
               "rolling and waiting for the opponent to catch up, before then rolling to try to win'). dicelab's "
               "`roll-and-wait` runs up by hold:20 without banking past 80, skips its turns while the opponent is "
               "behind, then rolls to win (`dicelab.pig.strategies.RollAndWait`); it reproduces the paper's exact 1 "
               "against roll to win and the non-transitive triple, but no variant of the run-up or the waiting rule "
               "tried reproduces both 0.710606 and 0.297148: the paper's rule has a detail it does not spell out.")
    why_rw = ("See the two rows above: another roll-and-wait rule. From the paper's own exact columns the general "
              "value would be (0.710606 + 1 - 0.297148) / 2 = 0.7067; its 0.7062 is a simulation.")
    why_opt = ("The paper calls 0.55127 the optimal strategy's chance 'in general', but it is its chance moving "
               f"first (exact {o.a_first:.5f}); in general, first move alternating, it wins {o.a_overall:.5f}, "
               "beside the paper's simulated 0.52136.")
    checks = [
        Check("turtle first against roll to win", where, "0.812840", t.a_first),
        Check("roll to win first against turtle", where, "0.195448", t.b_first),
        Check("turtle against roll to win in general", where, "0.8089", t.a_overall, why=why_general),
        Check("roll to win first against roll and wait", where, "1", w.a_first, tol=1e-12),
        Check("roll and wait first against roll to win", where, "0", w.b_first, tol=1e-12),
        Check("roll and wait first against turtle", where, "0.710606", r.a_first, why=why_rwt),
        Check("turtle first against roll and wait", where, "0.297148", r.b_first, why=why_rwt),
        Check("roll and wait against turtle in general (simulated in the paper)", where, "0.7062", r.a_overall,
              why=why_rw),
        Check("hold:25 first against hold:30", where, "0.573741", h.a_first),
        Check("hold:30 first against hold:25", where, "0.48091", h.b_first),
        Check("hold:25 against hold:30 in general", where, "0.546416", h.a_overall),
        Check("optimal first against hold:25", where, "0.55127", o.a_first),
        Check("hold:25 first against optimal", where, "0.50914", o.b_first),
        Check("optimal against hold:25 in general", where, "0.55127", o.a_overall, why=why_opt),
        Check("optimal against itself, moving first", where, "0.53059", oo.a_first),
        Check("optimal against itself, moving first", "INDEX.md: Neller & Presser 2004", NELLER_FIRST, oo.a_first),
        Check("hold:20 first against hold:21", "section 2.3.4", "0.542626", evaluate("hold:20", "hold:21").a_first),
    ]
    cycle = t.a_overall > 0.5 and w.a_overall > 0.5 and r.a_overall > 0.5
    text = ("Exact values (`dicelab pig eval`). Turtle beats roll to win, roll to win beats roll and wait, roll and "
            f"wait beats turtle: a non-transitive triple, as the paper found ({'confirmed' if cycle else 'NOT confirmed'} "
            "exactly).")
    return Section("Section 3.3.6: named strategies and the non-transitive triple", text, checks)


def figure18_and_tournament(ctx: Context) -> Section:
    """Figure 18 (hold at 25 against every hold at n), the tournament, transitivity."""
    from dicelab.pig.lab_plots import against_holds, plot_against_holds
    from dicelab.pig.tournaments import tournament

    top = 40 if ctx.quick else 100
    data = against_holds("hold:25", PigRules(), top)
    f18 = plot_against_holds(data, ctx.figure("figure18.png"))
    worst = min((p, n) for n, p in zip(data["n"], data["a_overall"], strict=True) if n != 25)
    checks = [Check("hold:25 wins against every other hold:n in general", "Figure 18", "yes",
                    "yes" if worst[0] > 0.5 else f"no (hold:{worst[1]}: {worst[0]:.4f})",
                    reduced="n up to 40" if ctx.quick else None)]
    if ctx.quick:
        checks += [Check("the hold:n tournament's winner", "section 3.3.5", "hold:25", None, reduced="not run"),
                   Check("hold:n strategies are transitive", "section 3.3.5", "yes", None, reduced="not run")]
    else:
        t = tournament([f"hold:{n}" for n in range(1, 101)], PigRules(), progress=False)
        checks += [Check("the hold:n tournament's winner", "section 3.3.5", "hold:25", t.ranking[0]["strategy"]),
                   Check("hold:n strategies are transitive", "section 3.3.5", "yes",
                         "yes" if t.transitive else f"no ({len(t.cycles)} cycles)")]
    text = (f"hold:25's closest match is hold:{worst[1]} ({worst[0]:.4f}). The paper ran the tournament by "
            "simulation (10 tournaments); dicelab plays all 4,950 pairs exactly (`dicelab pig tournament hold:1..100`).")
    return Section("Figure 18, the tournament and transitivity", text, checks,
                   [Figure(f18.name, "hold:25 against every hold:n, first move alternating (paper's Figure 18)")])


def fair_test_size(ctx: Context) -> Section:
    """Sections 3.3.1-3.3.2, Figures 15 and 16: how many games a fair test needs."""
    from dicelab.pig.lab_plots import plot_fair_convergence, plot_fair_repeats
    from dicelab.pig.simulation import fair_test, fair_test_convergence

    n = sample_size(0.025, 0.95)
    conv = fair_test_convergence("hold:25", None, PigRules(), 4000, 10 if ctx.quick else 100, 15)
    f15 = plot_fair_convergence(conv, ctx.figure("figure15.png"))
    # Figure 16: each point is the average of 100 fair tests of 3,000 games, i.e. one run of 300,000
    repeats, games = (10, 30_000) if ctx.quick else (100, 300_000)
    rows = fair_test([("hold:25", "hold:25")], PigRules(), games=games, seed=16, repeats=repeats)
    f16 = plot_fair_repeats(rows, games, ctx.figure("figure16.png"))
    r = rows[0]
    sd = r["binomial_sd"]
    reduced = f"{repeats} points of {games:,} games" if ctx.quick else None
    why = (f"A sample extreme: it changes from run to run. Each of the 100 points is the average of 100 fair "
           f"tests of 3,000 games (300,000 games), whose standard deviation is 0.5 / sqrt(300,000) = {sd:.5f}; the "
           f"lowest and highest of 100 such points fall about 2.5 of them from one half (0.4977 and 0.5023), "
           f"where the paper's (0.4974, 0.5020) and dicelab's lie. Compared to within one standard deviation.")
    checks = [Check("games for +-0.025 at 95% (p = 1/2)", "section 3.3.1", 1537, n),
              Check("lowest of 100 averages of 100 fair tests, a strategy against itself", "section 3.3.2, Figure 16",
                    "0.4974", r["repeat_min"], reduced=reduced, tol=sd, why=why),
              Check("highest of the same 100 averages", "section 3.3.2, Figure 16", "0.5020", r["repeat_max"],
                    reduced=reduced, tol=sd, why=why),
              Check("mean of the 100 averages", "section 3.3.2: 'coincidentally 0.5 exactly'", "0.5", r["repeat_mean"],
                    tol=3 * sd / np.sqrt(repeats), reduced=reduced)]
    text = ("The paper's sample size comes from the normal approximation, 1.96^2 / 4 / 0.025^2 = 1536.6, so 1,537 "
            "games (`dicelab stats sample-size`). Figures 15 and 16 are simulations: dicelab redraws them with its "
            "own random numbers (`dicelab pig fair-convergence`, `dicelab pig fair-test --repeats`), so their "
            "extremes are compared to within the sampling spread, not digit for digit.")
    return Section("Figures 15 and 16: the size of a fair test", text, checks,
                   [Figure(f15.name, "The estimated win rate of hold:25 against itself after n games, 100 runs "
                                     "(paper's Figure 15)"),
                    Figure(f16.name, "100 averages of 100 fair tests of 3,000 games each (paper's Figure 16)")])


def optimum_by_best_response(ctx: Context) -> Section:
    """Section 2.3.5: best response iterated from a simple strategy reaches Neller's optimum."""
    goal = 30 if ctx.quick else 100
    it = iterated_best_response("hold:20", PigRules(goal=goal))
    last = it.steps[-1] if it.steps else None
    where = "section 3.3.6 and the abstract: 'matched T. Neller's optimal'"
    checks = [Check("iterated best response ends at Neller's optimal strategy", where, "yes",
                    "yes" if it.reached_optimal_at is not None else "no",
                    reduced=None if goal == 100 else "goal 30")]
    text = (f"Starting from hold:20 at goal {goal}, each step replaces the strategy by its exact best response; it "
            f"equals the optimal strategy at every state after {it.reached_optimal_at} steps"
            + (f" (then it wins {last.self_play_first:.7f} moving first against itself)." if last else "."))
    return Section("Section 2.3.5: coding for an optimal", text, checks)


def human_study(ctx: Context) -> Section:
    """Sections 2.4 and 3.2: the study of how people play (not reproducible from the text)."""
    checks = [Check("average slope of score per turn, risk neutral", "section 3.2.1", "4.75", None),
              Check("average slope, risk seeking", "section 3.2.1", "4.85", None),
              Check("average slope, risk averse", "section 3.2.1", "4.76", None)]
    for c in checks[:1]:
        c.why = ("Not reproducible: the paper's 15 games are not published. dicelab's web lab runs the same "
                 "study (the tracker form's questions, every turn recorded) and draws these figures from its own "
                 "participants on the analysis page. The same holds for the two other slopes.")
    return Section("Sections 2.4 and 3.2: people playing Pig", "", checks)


# ------------------------------------------------------------------------------------------------
# 003


def turn_limited(ctx: Context) -> Section:
    """E[x, y, n]: the turn-limited game converges to E[x, y] as n grows."""
    from dicelab.pig.solver import solve

    goal = 30 if ctx.quick else 100
    rules = PigRules(goal=goal)
    exact = solve(rules).win_probability(0, 0, 0)
    ns = [10, 20, 40, 80, 160, 320] if not ctx.quick else [5, 10, 20, 40]
    values = [solve(rules, turn_limit=n).win_probability(0, 0, 0) for n in ns]
    import matplotlib.pyplot as plt

    import dicelab.core.plotting  # noqa: F401

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.semilogy(ns, [abs(v - exact) + 1e-17 for v in values], "o-")
    ax.set_xlabel("turn limit n")
    ax.set_ylabel("|E[0, 0, n] - E[0, 0]|")
    ax.set_title(f"The turn-limited game converges (goal {goal})")
    ax.grid(alpha=0.3)
    path = ctx.figure("turn-limit.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    rows = "\n".join(f"| {n} | {v:.10f} | {abs(v - exact):.2e} |" for n, v in zip(ns, values, strict=True))
    text = ("The notes make the game finite with a turn limit n (a draw, worth 1/2, after n turns) and argue "
            "that for n large enough E[x, y, n] is E[x, y]. `pig.solve(rules, turn_limit=n)` computes "
            f"E[x, y, n]; at goal {goal}:\n\n| n | E[0, 0, n] | difference from E[0, 0] |\n|---|---|---|\n{rows}")
    checks = [Check("E[0, 0] (the first player's chance), Neller & Presser", "INDEX.md", NELLER_FIRST,
                    values[-1] if goal == 100 else None, reduced=None if goal == 100 else "goal 30")]
    return Section("E[x, y, n]: the turn-limited game", text, checks,
                   [Figure(path.name, "How far the turn-limited value is from the exact one")])


def pairwise_value_iteration(ctx: Context) -> Section:
    """Pairwise value iteration of E[x, y] and E[y, x], against dicelab's solver."""
    from dicelab.pig.reference import layered_value_iteration
    from dicelab.pig.solver import solve

    goal = 30 if ctx.quick else 100
    rules = PigRules(goal=goal)
    ref_p, _ = layered_value_iteration(rules)
    sol = solve(rules)
    valid = np.arange(goal)[:, None, None] + np.arange(goal)[None, None, :] < goal
    valid = np.broadcast_to(valid, (goal, goal, goal))
    diff = float(np.max(np.abs(ref_p[valid] - sol.p[valid])))
    checks = [Check("largest difference of the notes' layered value iteration from dicelab's solver",
                    "value iteration on each pair of entries", "0", diff, tol=1e-9),
              Check("E[0, 0]", "INDEX.md: Neller & Presser 2004", NELLER_FIRST, float(sol.p[0, 0, 0]),
                    reduced=None if goal == 100 else "goal 30")]
    text = ("The notes' second method: solve E[x, y] and E[y, x] together, pair of score sums by pair, from the "
            "top. `dicelab.pig.reference.layered_value_iteration` is that method in plain numpy; dicelab's solver "
            f"(`pig.solve`) gets the same table (goal {goal}).")
    return Section("Pairwise value iteration of E[x, y] and E[y, x]", text, checks)


REPRODUCTIONS = (
    Reproduction("002", TITLE_002, SOURCE_002, (equations, figure17, named_strategies, figure18_and_tournament,
                                                fair_test_size, optimum_by_best_response, human_study)),
    Reproduction("003", TITLE_003, SOURCE_003, (turn_limited, pairwise_value_iteration)),
)

__all__ = ["FIGURE_17", "REPRODUCTIONS"]
