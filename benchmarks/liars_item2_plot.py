"""The figure of where issue 26's item 2 stands: the learned responder's gain against the library's
Liar's Dice duel policy at every size, with its 95% interval, beside the 0.02 bar (research, not in
`make bench`).

Reads ``docs/data/liars-item2.json`` (every figure quoted from BENCHMARKS.md, where it was measured)
and writes ``docs/img/liars-item2.png``:

    python benchmarks/liars_item2_plot.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data" / "liars-item2.json"
OUT = ROOT / "docs" / "img" / "liars-item2.png"
ORDER = [(3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3), (4, 5), (5, 4), (5, 5)]
RULES = {"none": "Nothing wild", "ones": "Ones wild"}


def met(row: dict[str, Any], bar: float) -> bool:
    """Item 2's bar: the interval stays under ``bar`` (or holds 0)."""
    ci = row["ci"]
    return ci is not None and (row["learned"] + ci < bar or row["learned"] - ci <= 0.0)


def plot(data: dict[str, Any], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bar = data["bar"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, (wild, title) in zip(axes, RULES.items(), strict=True):
        rows = {tuple(r["dice"]): r for r in data["sizes"] if r["wild"] == wild}
        for x, dice in enumerate(ORDER):
            r = rows.get(dice)
            if r is None:
                continue
            ok = met(r, bar)
            colour = "#1a7f37" if ok else "#b35900"  # green / dark orange: both readable on white
            ax.errorbar(x, r["learned"], yerr=r["ci"] if r["ci"] is not None else None, fmt="o" if ok else "s",
                        color=colour, mfc=colour if r["ci"] is not None else "white", capsize=3)
        ax.axhline(bar, color="#333333", linestyle="--", linewidth=1)
        ax.text(-0.4, bar, "the bar, 0.02", va="bottom", ha="left", fontsize=8, color="#333333")
        ax.set_xticks(range(len(ORDER)), [f"{a} v {b}" for a, b in ORDER])
        ax.set_title(title)
        ax.set_xlabel("dice: opener v other")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("what a learned opponent wins a round\n(95% interval; circles are under the bar)")
    axes[0].set_ylim(0, None)
    fig.suptitle("Liar's Dice: how close the lab's policies are to unbeatable, size by size")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    print(plot(json.loads(args.data.read_text()), args.out))


if __name__ == "__main__":
    main()
