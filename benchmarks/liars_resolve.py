"""Re-solving a duel policy at every decision, graded exactly (issue 26, item 2; research, not in `make bench`).

Trains the library's kind of window policy (the abstract method, seed 0), then builds the nested
re-solved profile on the full tree (:func:`dicelab.liars.resolve.resolve_profile`, at most 18 bids)
and prints one JSON object per variant: the exact exploitability of the policy and of its
re-solved profile, and the wall time. With ``--cost`` it times single re-solves instead, at a few
points of a round of a bigger duel (1 v 1 to 5 v 5, 6 faces), which is what a bot would pay per
decision.

    python benchmarks/liars_resolve.py --dice 3,2 --faces 3 --wild none --variants full:200 2:200
    python benchmarks/liars_resolve.py --cost --dice 3,3 --faces 6 --window 2 --depth 2 --iterations 100
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from dicelab.liars.duel import Duel, build_dag, train_duel
from dicelab.liars.grading import grade_with_tree
from dicelab.liars.resolve import resolve_profile, solve_subgame, sub_dag


def grade(args: argparse.Namespace) -> None:
    duel = Duel(args.dice, args.faces, args.wild)
    t0 = time.perf_counter()
    pol = train_duel(duel, iterations=args.train, window=args.window, method="abstract", seed=0)
    base = grade_with_tree(pol)
    head = {"duel": f"{args.dice[0]}v{args.dice[1]}", "faces": args.faces, "wild": args.wild, "window": args.window,
            "train_iterations": args.train, "train_seconds": round(time.perf_counter() - t0, 2),
            "policy_exploitability": round(base["exploitability"], 5)}
    tree = None
    for v in args.variants:
        depth_s, its_s = v.split(":")
        depth = None if depth_s == "full" else int(depth_s)
        r = resolve_profile(pol, iterations=int(its_s), depth=depth, floor=args.floor, safe=not args.unsafe, tree=tree)
        tree = r["tree"]
        print(json.dumps({**head, "depth": depth_s, "iterations": int(its_s), "floor": args.floor,
                          "safe": not args.unsafe, "exploitability": round(r["exploitability"], 5),
                          "br0": round(r["br0"], 5), "br1": round(r["br1"], 5), "value": round(r["value"], 5),
                          "solves": r["solves"], "seconds": round(r["seconds"], 1)}), flush=True)


def cost(args: argparse.Namespace) -> None:
    duel = Duel(args.dice, args.faces, args.wild)
    n = duel.n_bids
    dag = build_dag(n, args.window)
    _, p0, c0 = duel.hands(0)
    _, p1, c1 = duel.hands(1)
    step = max(1, n // 12)
    for k in (0, 1, 2, 4, 6, 8):
        hist = [step // 2 + step * j for j in range(k)]
        if hist and hist[-1] >= n - 1:
            break
        root = dag.node_of(k % 2, hist)
        sub = sub_dag(dag, root, args.depth)
        front = np.zeros((len(sub.frontier), len(p0), len(p1))) if args.depth else None
        cfv = np.zeros(len(p1) if k % 2 == 0 else len(p0)) if k else None
        solve_subgame(sub, args.faces, (c0, c1), (p0, p1), 2, cfv=cfv, frontier=front)  # compile
        t0 = time.perf_counter()
        solve_subgame(sub, args.faces, (c0, c1), (p0, p1), args.iterations, cfv=cfv, frontier=front)
        print(json.dumps({"duel": f"{args.dice[0]}v{args.dice[1]}", "faces": args.faces, "window": args.window,
                          "depth": args.depth, "bids_made": k, "nodes": len(sub.top),
                          "frontier": len(sub.frontier), "iterations": args.iterations,
                          "seconds": round(time.perf_counter() - t0, 3)}), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dice", type=lambda s: tuple(int(x) for x in s.split(",")), default=(2, 2))
    ap.add_argument("--faces", type=int, default=3)
    ap.add_argument("--wild", default="none")
    ap.add_argument("--window", type=int, default=2)
    ap.add_argument("--train", type=int, default=300, help="iterations of the policy's training")
    ap.add_argument("--variants", nargs="*", default=["full:200", "2:200"], help="depth:iterations ('full' = no limit)")
    ap.add_argument("--floor", type=float, default=0.1)
    ap.add_argument("--unsafe", action="store_true", help="trust the ranges alone (no constraints)")
    ap.add_argument("--cost", action="store_true", help="time single re-solves instead")
    ap.add_argument("--depth", type=int, default=None)
    ap.add_argument("--iterations", type=int, default=100)
    args = ap.parse_args(argv)
    (cost if args.cost else grade)(args)


if __name__ == "__main__":
    sys.exit(main())
