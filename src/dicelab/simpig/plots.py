"""Figures for simultaneous Pig (the paper's Figures 1-5), drawn with matplotlib's Agg backend."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import dicelab.core.plotting  # noqa: F401  (selects the Agg backend)
from dicelab.core.errors import require

KINDS = ("br-curve", "contour", "slices", "surface3")


def _save(fig, out: str | Path) -> Path:
    import matplotlib.pyplot as plt

    p = Path(out)
    require(
        p.suffix.lower() in (".png", ".pdf", ".svg"),
        f"plot file must end in .png, .pdf or .svg, got {p.name!r}",
    )
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return p


def br_curve(rows: list[dict[str, float]], out: str | Path) -> Path:
    """Figure 1: best-response win probability against ``hold:N`` as a function of ``N``."""
    import matplotlib.pyplot as plt

    ns = [r["n"] for r in rows]
    ws = [r["win_probability"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(ns, ws, "o-")
    ax.set_xlabel("opponent holds at N")
    ax.set_ylabel("best response's win probability")
    ax.grid(alpha=0.3)
    return _save(fig, out)


def policy_contour(policy: np.ndarray, out: str | Path, title: str) -> Path:
    """Figure 2 / 4: the target ``k`` over own score ``i`` (x) and opponent score ``j`` (y)."""
    import matplotlib.pyplot as plt

    g = policy.shape[0]
    fig, ax = plt.subplots(figsize=(6, 5))
    cs = ax.contourf(np.arange(g), np.arange(g), policy.T, levels=20, cmap="viridis")
    fig.colorbar(cs, ax=ax, label="hold at k")
    ax.set_xlabel("own score i")
    ax.set_ylabel("opponent score j")
    ax.set_title(title)
    return _save(fig, out)


def policy_slices(policy: np.ndarray, opp_scores: list[int], out: str | Path, title: str) -> Path:
    """Figure 3: the target against own score for a few fixed opponent scores."""
    import matplotlib.pyplot as plt

    g = policy.shape[0]
    fig, ax = plt.subplots(figsize=(7, 4))
    for j in opp_scores:
        ax.step(np.arange(g), policy[:, j], where="post", label=f"opponent at {j}")
    ax.set_xlabel("own score i")
    ax.set_ylabel("hold at k")
    ax.set_title(title)
    ax.legend()
    return _save(fig, out)


def surface3(ns: list[int], table: np.ndarray, out: str | Path) -> Path:
    """Figure 5: 3-player best-response win probability over the two opponents' ``hold:N``."""
    import matplotlib.pyplot as plt

    x, y = np.meshgrid(ns, ns, indexing="ij")
    fig = plt.figure(figsize=(7, 5))
    ax = fig.add_subplot(projection="3d")
    ax.plot_surface(x, y, table, cmap="viridis")
    ax.set_xlabel("B1 holds at")
    ax.set_ylabel("B2 holds at")
    ax.set_zlabel("A's win probability")
    return _save(fig, out)
