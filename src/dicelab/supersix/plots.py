"""Super Six figures: seed 001's strategy chart and the start player's edge against the stick count.

* :func:`strategy_chart` — one box per non-forced position ``i/j/k/0``, rows by lid count ``i``,
  labelled ``j/k`` and the mover's win probability (two decimals), coloured by the optimal
  decision (throw again or stop), as in seed 001's figure.
* :func:`edge_plot` — P(start player wins) under optimal play, round 1 as in seed 001, for
  S = 1..max sticks each.
"""

from __future__ import annotations

from pathlib import Path

# isort: off
import dicelab.core.plotting  # noqa: F401  (sets the Agg backend before pyplot loads)
import matplotlib.pyplot as plt
from matplotlib.patches import Patch
# isort: on

from dicelab.core.errors import require
from dicelab.supersix.rules import PITS, SuperSixRules
from dicelab.supersix.solver import SuperSixSolution, solve_two_cached


def strategy_chart(sol: SuperSixSolution, out: str | Path, max_total: int | None = None) -> Path:
    """Draw the optimal decision at every non-forced position with at most ``max_total`` sticks.

    ``max_total`` defaults to 7, the range of seed 001's chart (its ``optimal_strategy(7)``), capped
    at the solution's ``2 * sticks``.
    """
    n = min(max_total or 7, sol.max_total)
    rows: dict[int, list[tuple[int, int, float, bool]]] = {}
    for i in range(PITS + 1):
        for j in range(n, 0, -1):
            for k in range(n, 0, -1):
                if i + j + k <= n:
                    rows.setdefault(i, []).append(
                        (j, k, float(sol.free[i, j, k]), bool(sol.throw[i, j, k]))
                    )
    width = max(len(v) for v in rows.values())
    fig, ax = plt.subplots(figsize=(max(8.0, 0.9 * width), 4.5))
    for i, cells in rows.items():
        for x, (j, k, p, throw) in enumerate(cells):
            ax.add_patch(plt.Rectangle((x, i - 0.4), 0.92, 0.8,
                                       color="#4c9a2a" if throw else "#c8553d", alpha=0.85))
            ax.text(x + 0.46, i, f"{j}/{k}\n{p:.2f}", ha="center", va="center", fontsize=7,
                    color="white")
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(-0.7, PITS + 0.7)
    ax.set_xticks([])
    ax.set_yticks(range(PITS + 1))
    ax.set_ylabel("sticks in the lid (i)")
    ax.set_title(f"Super Six, optimal play at i/j/k/0 (label: j/k and P(win)), up to {n} sticks")
    ax.legend(handles=[Patch(color="#4c9a2a", label="throw again"),
                       Patch(color="#c8553d", label="stop")], loc="upper right", fontsize=8)
    fig.tight_layout()
    path = Path(out)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def start_player_edges(max_sticks: int = 30) -> list[float]:
    """P(start player wins) for S = 1..max_sticks (two players, optimal play)."""
    require(1 <= max_sticks <= 60, f"max sticks must be from 1 to 60, got {max_sticks}")
    return [solve_two_cached(SuperSixRules(sticks=s)).start_player_win()
            for s in range(1, max_sticks + 1)]


def edge_plot(out: str | Path, max_sticks: int = 30) -> Path:
    """Plot the start player's win probability against the sticks per player."""
    edges = start_player_edges(max_sticks)
    xs = list(range(1, max_sticks + 1))
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(xs, edges, "o-", ms=4)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("sticks per player (S)")
    ax.set_ylabel("P(start player wins)")
    ax.set_title("Super Six: the start player's edge under optimal play")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(out)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
