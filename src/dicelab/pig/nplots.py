"""Figures of n-player Pig: each seat's chance to win by its place in the order of play, and the
optimal hold boundary as the leader's and the trailer's scores change."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _save(fig: Any, out: str | Path) -> Path:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def seats_by_position(rows: Sequence[dict[str, Any]], out: str | Path) -> Path:
    """Grouped bars: for each number of players, every seat's chance to win under optimal play
    (seat 1 moves first), with the fair share ``1 / players`` marked. ``rows``: dicts with
    ``players``, ``goal`` and ``win_probabilities``."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(len(r["win_probabilities"]) for r in rows)
    for x, r in enumerate(rows):
        wins = r["win_probabilities"]
        n = len(wins)
        xs = x - 0.4 + width * (np.arange(n) + 0.5)
        ax.bar(xs, wins, width * 0.9, color=plt.cm.viridis(np.linspace(0.1, 0.9, n)))
        ax.hlines(1 / n, x - 0.42, x + 0.42, colors="black", linestyles="dashed", linewidth=1)
        for s, (xx, w) in enumerate(zip(xs, wins, strict=True)):
            ax.text(xx, w + 0.005, f"{s + 1}", ha="center", fontsize=7)
    ax.set_xticks(range(len(rows)), [f"{r['players']} players\n(goal {r['goal']})" for r in rows])
    ax.set_ylabel("chance to win under optimal play")
    ax.set_title("Each seat's chance by its place in the order (seat 1 first; dashes: fair share)")
    return _save(fig, out)


def hold_boundary(sol: Any, out: str | Path, own: Sequence[int] | None = None) -> Path:
    """For three players: the turn total at which optimal play holds, as a heatmap over the next
    player's and the last player's banked scores, one panel per own score (the mover's)."""
    g, n = sol.goal, sol.players
    if n != 3:
        from dicelab.core.errors import DicelabError

        raise DicelabError(f"the hold-boundary plot is drawn for three players, got {n}")
    own = list(own) if own is not None else [0, g // 4, g // 2, (3 * g) // 4]
    fig, axes = plt.subplots(1, len(own), figsize=(4.2 * len(own), 4.2), squeeze=False)
    for ax, i in zip(axes[0], own, strict=True):
        h = np.zeros((g, g))
        for a in range(g):
            for b in range(g):
                h[a, b] = sol.hold_threshold((i, a, b))
        im = ax.imshow(h, origin="lower", cmap="viridis", vmin=0, vmax=g - i)
        ax.set_title(f"own score {i}")
        ax.set_xlabel("last player's score")
        ax.set_ylabel("next player's score")
        fig.colorbar(im, ax=ax, shrink=0.8, label="hold at turn total")
    fig.suptitle(f"Optimal hold boundary, three players, goal {g}")
    return _save(fig, out)
