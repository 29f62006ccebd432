"""The findings of issue 25 (Pig for three and more players), as printed in docs/methods/pig.md.

Not a benchmark (``make bench`` does not run it): ``python benchmarks/pig_nplayer_findings.py``
(minutes on a quiet core; ``--full`` adds four players at goal 100, 2.4 GB). Writes
``pig_nplayer_findings.json`` (``--out``) and the figures in ``docs/img/`` (``--img``).

* the first player's advantage for 2 to 6 players, at the goals that solve in seconds;
* the best single hold-at-N for three players at goal 100 and four at goals 30, 50 and 100: the
  symmetric equilibria among hold-at-N strategies (N is its own best reply among every hold:M
  against a field of hold:N, averaged over the seat, exactly, as a race of independent turn
  counts), or the cycle the best replies go round where there is none;
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

from dicelab.pig.nevaluation import (best_response_n, evaluate_profile, hold_turns_tail,
                                     race_wins, table_memory)
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


def hold_equilibria(rules: PigRules) -> dict:
    """Every hold:M (1 .. goal) against every field of hold:N, averaged over the M player's seat,
    exactly and in seconds (:func:`dicelab.pig.nevaluation.hold_race`: a hold-at-N player's turns
    do not look at the others, so the game is a race). Returns each field's best reply, the
    symmetric equilibria (N its own best reply among all M) and the walk of best replies from
    hold:20 (or goal / 2) until it repeats."""
    n, g = rules.players, rules.goal
    tails = {h: hold_turns_tail(h, rules) for h in range(1, g + 1)}
    M = np.zeros((g + 1, g + 1))
    for f in range(1, g + 1):
        for m in range(1, g + 1):
            M[m, f] = np.mean([race_wins([tails[f]] * s + [tails[m]] + [tails[f]] * (n - 1 - s))[s]
                               for s in range(n)])
    reply = {f: int(np.argmax(M[1:, f]) + 1) for f in range(1, g + 1)}
    walk = [min(20, g // 2)]
    while reply[walk[-1]] not in walk:
        walk.append(reply[walk[-1]])
    walk.append(reply[walk[-1]])
    cells = {f: {m: float(M[m, f]) for m in range(max(1, f - 3), min(g, f + 3) + 1)}
             for f in set(walk)}
    for f in set(walk):
        cells[f][reply[f]] = float(M[reply[f], f])
    return {"equilibria": [f for f in range(1, g + 1) if reply[f] == f], "walk": walk,
            "best_reply": reply, "cells": cells}


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
    ap.add_argument("--holds", default="3:100,4:30,4:50,4:100",
                    help="players:goal of the best hold-at-N searches")
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
    """The best hold-at-N (symmetric equilibria among every hold:M) and, where the four-seat
    evaluation fits in 1 GB, what optimal play gains over it."""
    for n, g in holds:
        rules = PigRules(goal=g, players=n)
        eq = hold_equilibria(rules)
        row: dict = {"players": n, "goal": g, **{k: v for k, v in eq.items() if k != "best_reply"}}
        print(row, flush=True)
        if eq["equilibria"] and table_memory(rules, n) <= 1_000_000_000:
            nstar = eq["equilibria"][0]
            vs_opt = {v: seat_average(f"hold:{v}", "optimal", rules)
                      for v in sorted({nstar - 1, nstar, min(nstar + 1, g), 20} & set(range(1, g + 1)))}
            row.update({
                "n_star": nstar, "hold_vs_optimal_field": vs_opt,
                "optimal_in_hold_field": seat_average("optimal", f"hold:{nstar}", rules),
                "best_response_in_hold_field": br_average(f"hold:{nstar}", rules),
            })
            print({k: row[k] for k in ("n_star", "hold_vs_optimal_field", "optimal_in_hold_field",
                                       "best_response_in_hold_field")}, flush=True)
        out[f"hold_{n}_{g}"] = row

if __name__ == "__main__":
    main()
