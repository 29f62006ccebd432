"""The exact value of a Liar's Dice duel on the full tree (issue 26, item 3): CFR+ without
abstraction, with perfect recall, until the exact exploitability is below the target.

Not a benchmark (``make bench`` does not run it). The ground truth of issue 26 is 2 v 2 with 6
faces, one run per wild rule (each 7 GB and one to two hours of a free core)::

    python benchmarks/liars_full_value.py --dice 2 2 --faces 6 --wild ones --out full_2v2_ones.json \
        --checkpoint full_2v2_ones_state --hours 2

``--checkpoint`` keeps the solver's state (7 GB at 2 v 2 with 6 faces, written every half hour and
at the end); run the same command again and it goes on where it stopped, bit for bit.

Every exact check (value, both best responses, exploitability) is appended to ``--log`` as one JSON
line the moment it is measured, so an interrupted run still leaves its latest bracket of the
game value: the value lies in ``[-BR_1, BR_0]`` whatever the profile. ``--out`` gets one JSON
object at the end.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import numpy as np

from dicelab.liars.duel import Duel
from dicelab.liars.fulltree import solve_full


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dice", type=int, nargs=2, default=(2, 2))
    ap.add_argument("--faces", type=int, default=6)
    ap.add_argument("--wild", default="ones", choices=("none", "ones", "highest"))
    ap.add_argument("--target", type=float, default=1e-4)
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--check-every", type=int, default=50)
    ap.add_argument("--float64", action="store_true", help="store the tables in float64 (twice the memory)")
    ap.add_argument("--log", default=None, help="append each exact check here as a JSON line")
    ap.add_argument("--out", default=None, help="write the result here as one JSON object")
    ap.add_argument("--checkpoint", default=None, help="resume from / save the solver's state here")
    ap.add_argument("--hours", type=float, default=None, help="stop (and save) after this much wall time")
    ap.add_argument("--prune-below", type=float, default=0.0,
                    help="also skip subtrees every opponent hand enters with at most this reach (e.g. 1e-6; "
                         "approximate CFR+, exact checks)")
    a = ap.parse_args(argv)
    duel = Duel(tuple(a.dice), a.faces, a.wild)

    def say(row: dict) -> None:
        line = json.dumps({"duel": f"{a.dice[0]}v{a.dice[1]}", "faces": a.faces, "wild": a.wild,
                           "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **row})
        print(line, file=sys.stderr, flush=True)
        if a.log:
            with open(a.log, "a") as log:  # a line at a time: a run stopped any moment keeps every check
                log.write(line + "\n")

    f = solve_full(duel, target=a.target, iterations=a.iterations, check_every=a.check_every,
                   dtype=np.float64 if a.float64 else np.float32, say=say, checkpoint=a.checkpoint,
                   max_seconds=None if a.hours is None else a.hours * 3600.0, prune_below=a.prune_below)
    out = {**f.to_dict(), "target": a.target, "reached": f.exploitability < a.target, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "cpu_seconds": time.process_time()}
    text = json.dumps(out)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text + "\n")
    print(text)
    return 0 if f.exploitability < a.target else 1


if __name__ == "__main__":
    raise SystemExit(main())
