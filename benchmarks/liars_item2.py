"""Where issue 26's item 2 stands: the library's duel policies graded against its bar (research, not in
`make bench`).

For each duel size given, loads the library's policy (from the cache ``DICELAB_CACHE_DIR``: run
``dicelab liars train-all`` first), trains the policy the issue was filed against (window 2, 300
iterations, seed 0: the abstract method at 3 v 3, sampled mccfr with 16 hands elsewhere), and prints one
JSON object per size:

- the learned responder's bound (seed 1, ``--rounds`` a seat; memory: a context tree refined by two
  bids, or by one where one already takes over 2 GiB of values (4 v 4), a window policy as many as fit
  in about 1 GB) with its 95% half-width, split move by move;
- LBR (seed 1, ``--lbr-rounds`` a seat);
- the policy's win share head to head against the filed one (seed 3, ``--h2h-rounds`` a seat; 95%
  Wilson interval).

Item 2's bar: both bounds under 0.02 or their interval holding 0, and a win head to head.

    DICELAB_CACHE_DIR=cache python benchmarks/liars_item2.py --wild ones --sizes 3v3 3v4 4v3
"""

from __future__ import annotations

import argparse
import json
import time

from dicelab.liars import library
from dicelab.liars.duel import Duel, DuelPolicy, train_duel
from dicelab.liars.lbr import head_to_head, lbr
from dicelab.liars.responder import ROUNDS, learned_br, refinement_size


def filed(duel: Duel) -> DuelPolicy:
    """The recipe the issue was filed on."""
    if duel.dice == (3, 3):
        return train_duel(duel, iterations=300, seed=0, window=2, method="abstract")
    return train_duel(duel, iterations=300, seed=0, window=2, method="mccfr", samples=16)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wild", default="ones", choices=["none", "ones"])
    ap.add_argument("--sizes", nargs="+", default=["3v3", "3v4", "4v3", "4v4"])
    ap.add_argument("--rounds", type=int, default=2 * ROUNDS)
    ap.add_argument("--lbr-rounds", type=int, default=200_000)
    ap.add_argument("--h2h-rounds", type=int, default=1_000_000)
    args = ap.parse_args()
    for size in args.sizes:
        duel = Duel(tuple(int(x) for x in size.split("v")), 6, args.wild)
        pol = library.policy(duel)
        if pol is None:
            print(json.dumps({"dice": duel.dice, "wild": args.wild, "error": "not trained: run train-all"}))
            continue
        window = None  # a window policy: as much as fits in about 1 GB
        if pol.dag.contexts is not None:  # a tree: two more bids, one where one already takes over 2 GiB
            nodes, _ = refinement_size(pol.dag)  # 3 v 4 ones wild 1.5 GiB; 4 v 4 2.3 (two: 5 times)
            pairs = len(duel.hands(0)[0]) * len(duel.hands(1)[0])
            window = pol.window + (1 if nodes / 2 * pairs * 4 > 2 * 2**30 else 2)
        t = time.perf_counter()
        r = learned_br(pol, rounds=args.rounds, seed=1, window=window)
        learned_s = time.perf_counter() - t
        b = lbr(pol, rounds=args.lbr_rounds, seed=1)
        h = head_to_head(pol, filed(duel), rounds=args.h2h_rounds, seed=3)
        print(json.dumps({
            "dice": duel.dice, "wild": args.wild, "rows": int(sum(pol.dag.rows)), "memory": r["memory"],
            "learned": r["exploitability_lower"], "learned_ci": r["exploitability_lower_ci"],
            "learned_seconds": round(learned_s), "by_move": r.get("gain_by_move"),
            "lbr": b["exploitability_lower"], "lbr_ci": b["exploitability_lower_ci"],
            "head_to_head": h["win_rate"], "h2h_low": h["ci_low"], "h2h_high": h["ci_high"]}), flush=True)


if __name__ == "__main__":
    main()
