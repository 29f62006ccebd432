"""dicelab beside OpenSpiel (``pip install open_spiel``), same process: skipped when it is absent.

Prints, when OpenSpiel is installed:
* Pig to 50: OpenSpiel's value iteration (``open_spiel.python.algorithms.value_iteration`` on
  its ``pig`` game) beside dicelab's exact solve (warm), with both first-player values. OpenSpiel's
  Pig ends after a turn horizon, so its value is compared with dicelab's turn-limited solve at
  the same horizon as well as with the unlimited one;
* Pig for three players at goal 100 (issue 25, item 6): dicelab's optimal and hold-at-N strategies
  played inside OpenSpiel's own ``pig`` engine (``players=3``), each seat's share of 20,000 games
  with its 95 % Wilson interval beside dicelab's exact chance;
* Liar's Dice, 1 v 1, 6 faces: OpenSpiel's C++ CFR+ (``pyspiel.CFRPlusSolver``) until its
  exploitability is at most 1e-4 (checked every 50 iterations) beside dicelab's CFR+ with the
  same target.

Without OpenSpiel it prints one line saying so and exits 0 (``make bench`` goes on). The figures
in BENCHMARKS.md under "OpenSpiel" were measured this way on a machine with OpenSpiel.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_time, report  # noqa: E402


def main() -> None:
    try:
        import pyspiel
        from open_spiel.python.algorithms import value_iteration
    except ImportError as exc:  # OpenSpiel itself, or what its Python algorithms import (cvxpy)
        print(f"OpenSpiel is not usable here ({exc}; pip install open_spiel cvxpy): skipped")
        return

    from dicelab.pig.rules import PigRules
    from dicelab.pig.solver import solve

    horizon = 1000
    game = pyspiel.load_game("pig", {"winscore": 50, "horizon": horizon, "players": 2})
    t0 = time.perf_counter()
    values = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-12)
    theirs = time.perf_counter() - t0
    v0 = values[str(game.new_initial_state())]
    rules = PigRules(goal=50)
    ours = median_time(lambda: solve(rules), repeat=7)
    print(f"OpenSpiel Pig to 50, first player's value {v0:.10f}; dicelab "
          f"{solve(rules).p[0, 0, 0]:.10f} (unlimited), "
          f"{solve(rules, turn_limit=horizon).p[0, 0, 0]:.10f} (horizon {horizon} turns)")
    report("Pig to 50: solve (warm)", ours, theirs, "OpenSpiel value iteration")

    from dicelab.core.stats import wilson_interval
    from dicelab.pig.nevaluation import evaluate_profile
    from dicelab.pig.openspiel_check import play_in_openspiel

    rules3 = PigRules(goal=100, players=3)
    for profile in (["optimal", "hold:25", "hold:20"], ["hold:25", "optimal", "keep-pace"]):
        games = 20_000
        t0 = time.perf_counter()
        wins = play_in_openspiel(profile, rules3, games, seed=1)
        secs = time.perf_counter() - t0
        exact = evaluate_profile(profile, rules3).wins
        cells = []
        for w, e in zip(wins, exact, strict=True):
            lo, hi = wilson_interval(int(w), games, 0.95)
            cells.append(f"{w / games:.4f} [{lo:.4f}, {hi:.4f}] exact {e:.4f} {'in' if lo <= e <= hi else 'OUT'}")
        print(f"OpenSpiel pig, 3 players, goal 100, {' / '.join(profile)}, {games} games "
              f"({secs:.0f} s): " + "; ".join(cells), flush=True)

    from dicelab.liars.cfr import DuelRules
    from dicelab.liars.cfr import solve as solve_duel  # the duel solver (see bench_liars.py)

    lgame = pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 6})
    solver = pyspiel.CFRPlusSolver(lgame)
    t0 = time.perf_counter()
    its = 0
    while True:
        for _ in range(50):
            solver.evaluate_and_update_policy()
        its += 50
        expl = pyspiel.exploitability(lgame, solver.average_policy())
        if expl <= 1e-4 or its >= 100_000:
            break
    theirs = time.perf_counter() - t0
    t0 = time.perf_counter()
    duel = solve_duel(DuelRules((1, 1), 6, "highest"), target=1e-4, method="cfr+")
    ours = time.perf_counter() - t0
    print(f"OpenSpiel CFR+: {its} iterations, exploitability {expl:.2e}; dicelab CFR+: "
          f"{duel.iterations} iterations")
    report("Liar's Dice 1 v 1, 6 faces, CFR+ to 1e-4", ours, theirs, "OpenSpiel C++ CFR+")


if __name__ == "__main__":
    main()
