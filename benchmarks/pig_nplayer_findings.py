"""The findings of issue 25 (Pig for three and more players), as printed in docs/methods/pig.md.

Not a benchmark (``make bench`` does not run it): ``python benchmarks/pig_nplayer_findings.py``
(minutes on a quiet core; ``--full`` adds four players at goal 100, 2.4 GB). Writes
``pig_nplayer_findings.json`` (``--out``) and the figures in ``docs/img/`` (``--img``).

* the first player's advantage for 2 to 6 players, at the goals that solve in seconds;
* the best single hold-at-N for three players at goal 100 and four at goal 40: the symmetric
  equilibrium among hold-at-N strategies (N is its own best reply against a field of hold:N,
  averaged over the seat, exactly), found by walking best replies;
* which hold:N does best among optimal players, and what optimal play (and the exact best
  response) gains over the best hold:N in its field;
* how optimal play reacts to an opponent close to the goal (figures: the hold boundary over the
  other players' scores, and the hold threshold as one opponent nears the goal).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from dicelab.pig.nevaluation import best_response_n, evaluate_profile
from dicelab.pig.nplots import hold_boundary, seats_by_position
from dicelab.pig.nsolver import solve_n
from dicelab.pig.rules import PigRules


def seat_average(mine: str, field: str, rules: PigRules) -> float:
    """``mine``'s chance averaged over its seat, every other seat playing ``field``."""
    n = rules.players
    total = 0.0
    for seat in range(n):
        prof = [field] * n
        prof[seat] = mine
        total += evaluate_profile(prof, rules).wins[seat]
    return total / n


def br_average(field: str, rules: PigRules) -> float:
    n = rules.players
    return float(np.mean([best_response_n([field] * n, s, rules).wins[s] for s in range(n)]))


def hold_equilibrium(rules: PigRules, start: int, width: int = 2) -> dict:
    """The symmetric equilibrium among hold-at-N strategies, by walking best replies: against a
    field of hold:N (every other seat), the best hold:M among N - width .. N + width (averaged
    over the M player's seat, :func:`hold_tournament`'s cells, computed only where needed);
    move to it until N is its own best reply."""
    field = start
    seen: dict[tuple[int, int], float] = {}
    path = []
    while True:
        cands = [m for m in range(field - width, field + width + 1) if 1 <= m <= rules.goal]
        for m in cands:
            if (m, field) not in seen:
                seen[(m, field)] = seat_average(f"hold:{m}", f"hold:{field}", rules)
        reply = max(cands, key=lambda m: seen[(m, field)])
        path.append({"field": field, "reply": reply,
                     "cells": {m: seen[(m, field)] for m in cands}})
        print(path[-1], flush=True)
        if reply == field or len(path) > 12:
            return {"n_star": reply, "path": path}
        field = reply


def reaction_plot(sol, out: str) -> None:
    """The hold threshold of a mover on 50 as one opponent (the next or the last to move) nears
    the goal, the other on 50; and as both near it together (three players)."""
    import matplotlib.pyplot as plt

    from dicelab.pig.nplots import _save

    g = sol.goal
    xs = list(range(0, g))
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, f in (("the next player's score (the last player on 50)", lambda x: (50, x, 50)),
                     ("the last player's score (the next player on 50)", lambda x: (50, 50, x)),
                     ("both opponents' score", lambda x: (50, x, x))):
        ax.plot(xs, [sol.hold_threshold(f(x)) for x in xs], label=label)
    ax.set_xlabel("opponent's banked score")
    ax.set_ylabel("turn total at which optimal play holds")
    ax.set_title(f"Own score 50, three players, goal {g}")
    ax.legend(fontsize=8)
    _save(fig, out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--sizes", default="2:100,3:100,4:50,5:30,6:12",
                    help="players:goal of the first player's advantage")
    ap.add_argument("--first-only", action="store_true", help="only the first player's advantage")
    ap.add_argument("--holds", default="3:100:20,4:30:9",
                    help="players:goal:first guess of the best hold-at-N searches")
    ap.add_argument("--no-reaction", action="store_true", help="skip the reaction figures")
    ap.add_argument("--out", default="pig_nplayer_findings.json")
    ap.add_argument("--img", default="docs/img")
    args = ap.parse_args()
    out: dict = {"load": os.getloadavg()}
    t0 = time.perf_counter()
    sizes = [tuple(int(v) for v in x.split(":")) for x in args.sizes.split(",") if x]
    if args.full:
        sizes.append((4, 100))
    out["first_player"] = []
    for n, g in sizes:
        s = solve_n(PigRules(goal=g, players=n))
        w = list(s.start())
        out["first_player"].append({"players": n, "goal": g, "wins": w, "edge": w[0] - 1 / n,
                                    "mixed": int(len(s.mixes)), "seconds": s.seconds})
        print(out["first_player"][-1], flush=True)
    if len(out["first_player"]) >= 2:
        seats_by_position([{"players": r["players"], "goal": r["goal"],
                            "win_probabilities": r["wins"]} for r in out["first_player"][:5]],
                          f"{args.img}/pig-nplayer-seats.png")
    if args.first_only:
        print(json.dumps(out), flush=True)
        return
    holds = [tuple(int(v) for v in x.split(":")) for x in args.holds.split(",") if x]
    if not args.no_reaction:
        reaction(out, args.img)
    hold_search(out, holds)
    out["seconds"] = time.perf_counter() - t0
    out["load_end"] = os.getloadavg()
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1, default=float)
    print("written", args.out, out["seconds"], out["load_end"])


def reaction(out: dict, img: str) -> None:
    """The hold thresholds of optimal play as opponents near the goal, and the figures."""
    sol = solve_n(PigRules(goal=100, players=3))
    react: dict = {}
    near = (0, 50, 70, 80, 85, 90, 95, 98, 99)
    for own in (0, 50, 80):
        react[own] = {
            "last_player_near": {x: sol.hold_threshold((own, 50, x)) for x in near},
            "next_player_near": {x: sol.hold_threshold((own, x, 50)) for x in near},
            "both_near": {x: sol.hold_threshold((own, x, x)) for x in near},
        }
    hold_boundary(sol, f"{img}/pig-nplayer-hold-boundary.png")
    reaction_plot(sol, f"{img}/pig-nplayer-reaction.png")
    two = solve_n(PigRules(goal=100, players=2))
    react["two_players"] = {x: two.hold_threshold((50, x)) for x in near}
    out["reaction"] = react
    print(json.dumps(react), flush=True)


def hold_search(out: dict, holds: list[tuple[int, ...]]) -> None:
    """The best hold-at-N (symmetric equilibrium) and what optimal play gains over it."""
    for n, g, start in holds:
        rules = PigRules(goal=g, players=n)
        eq = hold_equilibrium(rules, start)
        nstar = eq["n_star"]
        vs_opt = {v: seat_average(f"hold:{v}", "optimal", rules)
                  for v in range(max(nstar - 2, 1), nstar + 3)}
        row = {
            "players": n, "goal": g, "equilibrium": eq, "n_star": nstar,
            "hold_vs_optimal_field": vs_opt,
            "best_hold_vs_optimal": max(vs_opt, key=vs_opt.get),
            "optimal_in_hold_field": seat_average("optimal", f"hold:{nstar}", rules),
            "best_response_in_hold_field": br_average(f"hold:{nstar}", rules),
        }
        out[f"hold_{n}"] = row
        print({k: v for k, v in row.items() if k != "equilibrium"}, flush=True)


if __name__ == "__main__":
    main()
