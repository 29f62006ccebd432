"""Figures for the optimal Pig solution: Neller & Presser's roll/hold boundary and win heatmaps."""

from __future__ import annotations

from pathlib import Path

import dicelab.core.plotting  # noqa: F401  (the Agg backend, unless a notebook already shows figures)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from dicelab.pig.solver import PigSolution  # noqa: E402


def _title(sol: PigSolution) -> str:
    r = sol.rules
    die = "coin" if r.variant == "piglet" else f"d{r.sides}"
    return f"{r.variant} Pig to {r.goal} ({die})"


def boundary(sol: PigSolution, out: str | Path) -> Path:
    """The 3-D roll/hold boundary: for each (i, j), the turn total at which optimal play holds.

    Below the surface the optimal player rolls; on and above it, it holds (Neller & Presser 2004,
    Figure 2). Where optimal play never holds short of the goal the surface meets ``goal - i``.
    """
    g = sol.goal
    h = sol.hold_thresholds().astype(float)
    I, J = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    fig = plt.figure(figsize=(8, 6.5))
    ax = fig.add_subplot(projection="3d")
    ax.plot_surface(I, J, h, cmap="viridis", linewidth=0, antialiased=True, rstride=1, cstride=1)
    ax.set_xlabel("player score i")
    ax.set_ylabel("opponent score j")
    ax.set_zlabel("turn total k at which to hold")
    ax.set_title(f"Roll/hold boundary, {_title(sol)}")
    ax.view_init(elev=25, azim=-125)
    return _save(fig, out)


def heatmap(sol: PigSolution, out: str | Path) -> Path:
    """P(i, j, 0): the mover's win probability at the start of a turn, for every score pair."""
    g = sol.goal
    fig, ax = plt.subplots(figsize=(7, 6))
    im = ax.imshow(sol.p[:, :, 0], origin="lower", cmap="RdBu_r", vmin=0, vmax=1,
                   extent=(-0.5, g - 0.5, -0.5, g - 0.5))
    ax.contour(np.arange(g), np.arange(g), sol.p[:, :, 0], levels=[0.5], colors="k", linewidths=0.8)
    ax.set_xlabel("opponent score j")
    ax.set_ylabel("player score i")
    ax.set_title(f"P(win) at the start of a turn, {_title(sol)}")
    fig.colorbar(im, ax=ax, label="P(mover wins)")
    return _save(fig, out)


def _save(fig: plt.Figure, out: str | Path) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
