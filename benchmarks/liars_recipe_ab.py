"""A Liar's Dice recipe change measured the way issue 26's item 2 adopts one (research, not in
`make bench`): train, grade, play head to head, pool.

Each step is its own command, so the long ones (training takes one to three hours a size) run one per
core and survive each other; each prints exactly one JSON object.

- ``train A B WILD [--override JSON] --out FILE``: the library's training of the duel A v B (6 faces)
  with ``--override`` merged into its ``TREE_OVERRIDES`` entry (none: the recipe itself), saved to
  ``FILE`` (``.npz`` and JSON, no training state); prints the recipe, the rows and the CPU seconds.
- ``grade FILE [--rounds N] [--seed S] [--window W]``: the learned responder (window 3 by default),
  its bound with the 95% half-width and the exact part (``abstract_lower``).
- ``lbr FILE [--rounds N] [--seed S]``: local best response.
- ``h2h FILE_A FILE_B [--rounds N] [--seed S]``: A's win share with its 95% Wilson interval.
- ``--threshold TAU`` (``grade``, ``h2h``): the policy thresholded first (actions under ``TAU`` dropped).
- ``pool JSON ...``: independent ``grade`` runs of one policy (other seeds) pooled into one bound:
  the mean weighted by rounds, the half-width from the runs' half-widths.

The adoption rule (BENCHMARKS.md, item 2): the head to head does not lose (``ci_high > 0.5``), the
learned bound drops by more than the 95% interval of the difference, and the exact part drops.

    NUMBA_NUM_THREADS=1 python benchmarks/liars_recipe_ab.py train 5 3 none --out t53.npz
    NUMBA_NUM_THREADS=1 python benchmarks/liars_recipe_ab.py train 5 3 none --override '{"rows": 2.0}' --out t53r2.npz
    python benchmarks/liars_recipe_ab.py h2h t53r2.npz t53.npz --rounds 1000000 --seed 5
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any, NoReturn

import numpy as np

from dicelab.core.errors import DicelabError
from dicelab.liars import library
from dicelab.liars.duel import Duel, DuelPolicy
from dicelab.liars.lbr import head_to_head, lbr
from dicelab.liars.responder import learned_br


def with_override(duel: Duel, override: dict[str, Any] | None) -> None:
    """Merge ``override`` into the duel's ``TREE_OVERRIDES`` entry and forget the memoised recipes."""
    if not override:
        return
    unknown = sorted(set(override) - set(library.TREE_OVERRIDE_KEYS))
    if unknown:
        raise DicelabError(f"unknown override keys {unknown}: allowed are {', '.join(library.TREE_OVERRIDE_KEYS)}")
    if not library.recipe(duel).get("tree_rows"):
        raise DicelabError(f"the {duel.dice[0]} v {duel.dice[1]} recipe grows no context tree: an override would change nothing")
    key = (duel.dice, duel.faces, duel.wild)
    library.TREE_OVERRIDES[key] = {**library.TREE_OVERRIDES.get(key, {}), **override}
    library.forget_recipes()


def train(duel: Duel, override: dict[str, Any] | None, out: str) -> dict[str, Any]:
    with_override(duel, override)
    r = library.recipe(duel)
    t = time.process_time()
    pol = library._train(duel)
    cpu = time.process_time() - t
    pol.save(out)
    return {"dice": list(duel.dice), "wild": duel.wild, "override": override or {}, "recipe": r,
            "estimated_seconds": round(library.estimated_seconds(duel)), "cpu_seconds": round(cpu),
            "rows": int(sum(pol.dag.rows)), "memory": pol.dag.memory, "out": out}


def threshold(p: DuelPolicy, tau: float) -> DuelPolicy:
    """Thresholding (Ganzfried, Sandholm and Waugh, 2012): at every node and hand, the actions played
    with probability under ``tau`` dropped and the rest renormalised (a hand whose actions are all under
    ``tau`` keeps its mix)."""
    d = p.dag
    strategy = [p.strategy[0].astype(np.float64), p.strategy[1].astype(np.float64)]
    for m in range(d.n_nodes):
        k = d.n - 1 - int(d.top[m]) + (1 if m else 0)  # raises, then the call (none at the root)
        block = strategy[int(d.mover[m])][d.loc[m]:d.loc[m] + k]
        kept = np.where(block < tau, 0.0, block)
        total = kept.sum(axis=0)
        ok = total > 0
        block[:, ok] = kept[:, ok] / total[ok]
    return DuelPolicy(p.duel, p.dag, (strategy[0].astype(np.float32), strategy[1].astype(np.float32)), dict(p.meta))


def load(path: str, tau: float = 0.0) -> DuelPolicy:
    p = DuelPolicy.load(path)
    return threshold(p, tau) if tau > 0 else p


def grade(pol: DuelPolicy, rounds: int, seed: int, window: int) -> dict[str, Any]:
    r = learned_br(pol, rounds=rounds, seed=seed, window=window)
    return {"rounds": rounds, "seed": seed, "window": window, "memory": r["memory"],
            "learned": r["exploitability_lower"], "learned_ci": r["exploitability_lower_ci"],
            "gain0": r["gain0"], "gain1": r["gain1"], "exact_part": r["abstract_lower"],
            "seconds": round(r["seconds"])}


def pool(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Independent runs of one responder against one policy: the rounds-weighted mean, and the
    half-width of that mean (each run's half-width scaled by its share of the rounds, in quadrature)."""
    keys = ("rounds", "seed", "window", "memory", "learned", "learned_ci", "exact_part")
    if not all(isinstance(r, dict) and all(k in r for k in keys) for r in runs):
        raise ValueError(f"each run must be a grade's JSON object, with {', '.join(keys)}")
    if not runs or len({(r["window"], r["memory"], r["exact_part"]) for r in runs}) != 1:
        raise ValueError("pool needs runs of one responder against one policy (the same window and exact part)")
    if len({r["seed"] for r in runs}) != len(runs):
        raise ValueError("pool needs runs with different seeds")
    total = sum(r["rounds"] for r in runs)
    mean = sum(r["learned"] * r["rounds"] for r in runs) / total
    ci = math.sqrt(sum((r["learned_ci"] * r["rounds"] / total) ** 2 for r in runs))
    return {"rounds": total, "seeds": [r["seed"] for r in runs], "learned": mean, "learned_ci": ci,
            "interval": [mean - ci, mean + ci], "exact_part": runs[0]["exact_part"]}


def json_arg(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not JSON") from None


class Parser(argparse.ArgumentParser):
    """Bad input: one line on stderr (what is wrong and what is allowed), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="liars_recipe_ab.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("a", type=int)
    t.add_argument("b", type=int)
    t.add_argument("wild", choices=["none", "ones", "highest"])
    t.add_argument("--override", type=json_arg, default=None)
    t.add_argument("--out", required=True)
    g = sub.add_parser("grade")
    g.add_argument("file")
    g.add_argument("--rounds", type=int, default=500_000)
    g.add_argument("--seed", type=int, default=4)
    g.add_argument("--window", type=int, default=3)
    g.add_argument("--threshold", type=float, default=0.0, help="grade the policy thresholded at this probability")
    b = sub.add_parser("lbr")
    b.add_argument("file")
    b.add_argument("--rounds", type=int, default=40_000)
    b.add_argument("--seed", type=int, default=1)
    h = sub.add_parser("h2h")
    h.add_argument("file_a")
    h.add_argument("file_b")
    h.add_argument("--rounds", type=int, default=1_000_000)
    h.add_argument("--seed", type=int, default=5)
    h.add_argument("--threshold", type=float, default=0.0, help="A thresholded at this probability")
    p = sub.add_parser("pool")
    p.add_argument("runs", nargs="+", type=json_arg)
    args = ap.parse_args(argv)
    if not 0.0 <= getattr(args, "threshold", 0.0) < 1.0:
        ap.error(f"--threshold must be a probability from 0 to under 1, got {args.threshold}")
    try:
        out = run(ap, args)
    except (OSError, DicelabError) as e:
        ap.error(str(e).splitlines()[0] if str(e) else type(e).__name__)
    print(json.dumps(out), flush=True)
    return 0


def run(ap: Parser, args: argparse.Namespace) -> dict[str, Any]:
    if args.cmd == "train":
        if not (1 <= min(args.a, args.b) and max(args.a, args.b) <= library.MAX_DUEL_DICE):
            ap.error(f"dice must be 1 to {library.MAX_DUEL_DICE} a seat, got {args.a} v {args.b}")
        if args.override is not None and not isinstance(args.override, dict):
            ap.error("--override must be a JSON object, such as '{\"rows\": 2.0}'")
        out = train(Duel((args.a, args.b), 6, args.wild), args.override, args.out)
    elif args.cmd == "grade":
        out = grade(load(args.file, args.threshold), args.rounds, args.seed, args.window)
    elif args.cmd == "lbr":
        r = lbr(DuelPolicy.load(args.file), rounds=args.rounds, seed=args.seed)
        out = {"rounds": args.rounds, "seed": args.seed, "lbr": r["exploitability_lower"],
               "lbr_ci": r["exploitability_lower_ci"]}
    elif args.cmd == "h2h":
        r = head_to_head(load(args.file_a, args.threshold), DuelPolicy.load(args.file_b), rounds=args.rounds, seed=args.seed)
        out = {"rounds_per_seat": args.rounds, "seed": args.seed, "win_rate": r["win_rate"],
               "ci_low": r["ci_low"], "ci_high": r["ci_high"]}
    else:
        try:
            out = pool(args.runs)
        except ValueError as e:
            ap.error(f"pool: {e}")
    return out


if __name__ == "__main__":
    sys.exit(main())
