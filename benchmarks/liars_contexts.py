"""Memory that grows where it pays: context trees against window policies (issue 26, item 2;
research, not in `make bench`).

For one duel, trains the library's kind of window policy (300 iterations, seed 0) at each window
in ``--windows`` and a context tree (:func:`dicelab.liars.contexts.train_contexts`) at each row
budget in ``--budgets``, and prints one JSON object per policy: its rows, the training time, and
its grade: exact (:func:`dicelab.liars.grading.exact_grade`, up to 26 bids) or, with ``--save``,
the policy file for the learned responder and LBR on bigger duels.

    python benchmarks/liars_contexts.py --dice 2,2 --faces 6 --wild ones --windows 2 3 4 5 --budgets 10000 25000
    python benchmarks/liars_contexts.py --dice 3,3 --faces 6 --wild ones --budgets 60000 --save runs/tree
"""

from __future__ import annotations

import argparse
import json
import time

from dicelab.liars.contexts import train_contexts
from dicelab.liars.duel import Duel, default_method, train_duel
from dicelab.liars.grading import MAX_EXACT_BIDS, exact_grade


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dice", type=lambda s: tuple(int(x) for x in s.split(",")), default=(3, 3))
    ap.add_argument("--faces", type=int, default=3)
    ap.add_argument("--wild", default="none")
    ap.add_argument("--method", default=None)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--windows", type=int, nargs="*", default=[])
    ap.add_argument("--budgets", type=int, nargs="*", default=[])
    ap.add_argument("--base", type=int, default=2)
    ap.add_argument("--longest", type=int, default=6)
    ap.add_argument("--grow", type=float, default=1.3)
    ap.add_argument("--save", default=None, help="write each policy here (prefix)")
    args = ap.parse_args()
    duel = Duel(args.dice, args.faces, args.wild)
    method = args.method or default_method(duel)
    head = {"duel": f"{args.dice[0]}v{args.dice[1]}", "faces": args.faces, "wild": args.wild, "bids": duel.n_bids,
            "method": method, "iterations": args.iterations}
    runs = [("window", w) for w in args.windows] + [("tree", b) for b in args.budgets]
    for kind, x in runs:
        t0 = time.perf_counter()
        c0 = time.process_time()
        if kind == "window":
            pol = train_duel(duel, iterations=args.iterations, window=x, method=method, seed=0)
        else:
            pol = train_contexts(duel, max_rows=x, window=args.base, longest=args.longest, grow=args.grow,
                                 iterations=args.iterations, method=method, seed=0)
        row = {**head, "kind": kind, "window": pol.window, "memory": pol.dag.memory, "rows": sum(pol.dag.rows),
               "contexts": 0 if pol.dag.contexts is None else len(pol.dag.contexts),
               "train_seconds": round(time.perf_counter() - t0, 1), "train_cpu": round(time.process_time() - c0, 1)}
        if kind == "tree":
            row["budget"] = x
        if duel.n_bids <= MAX_EXACT_BIDS:
            g = exact_grade(pol)
            row.update({"exploitability": round(g["exploitability"], 5), "value": round(g["value"], 5)})
        if args.save:
            row["saved"] = pol.save(f"{args.save}-{kind}{x}", with_state=False)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
