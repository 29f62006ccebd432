"""Figures for Liar's Dice: the learning curve (seed 004's figure) and the learned call/raise map."""

from __future__ import annotations

import os

import dicelab.core.plotting  # noqa: F401  (the Agg backend, unless a notebook already shows figures)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import dicelab.liars.kernel as K  # noqa: E402
from dicelab.liars.qlearning import DESIGNS, QAgent, learning_curve  # noqa: E402


def plot_learning_curve(
    winners: np.ndarray, path: str | os.PathLike[str], n_players: int = 4, window: int = 500, start: int = 1000
) -> str:
    """Share of agent wins against training games: cumulative from game ``start`` (as in the seed),
    a moving average over ``window`` games, and the 1 / players line of an equal player."""
    c = learning_curve(winners, window)
    fig, ax = plt.subplots(figsize=(7, 4))
    s = min(start, max(0, len(winners) - 1))
    ax.plot(c["games"][s:], c["cumulative"][s:], label="cumulative share of wins (seed 004's figure)")
    if len(c["moving"]):
        ax.plot(c["moving_games"], c["moving"], alpha=0.6, label=f"moving average, {window} games")
    ax.axhline(1.0 / n_players, color="grey", ls=":", label=f"equal player (1/{n_players})")
    ax.set_xlabel("training games")
    ax.set_ylabel("share of games won by the agent")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right")
    ax.set_title("Q-learning for Liar's Dice against bots")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def plot_policy(agent: QAgent, path: str | os.PathLike[str]) -> str:
    """The learned decision, Q(raise) - Q(call), by dice on the table and probability bucket.

    Averaged over the agent's own dice counts among visited states; blank where never visited.
    """
    r = agent.rules
    _, rb = DESIGNS[agent.design]
    T = r.total_dice
    grid = np.full((T, K.N_BUCKETS), np.nan)
    for total in range(2, T + 1):
        for b in range(K.N_BUCKETS):
            diffs = []
            for own in range(1, min(r.dice, total - 1) + 1):
                s = ((total * (r.dice + 1) + own) * K.N_BUCKETS + b) * rb
                rows = agent.q[s : s + rb]
                seen = np.any(rows != 0.0, axis=1)
                if np.any(seen):
                    diffs.extend((rows[seen, 1:].max(axis=1) - rows[seen, 0]).tolist())
            if diffs:
                grid[total - 1, b] = float(np.mean(diffs))
    fig, ax = plt.subplots(figsize=(8, 5))
    finite = grid[np.isfinite(grid)]
    lim = float(np.max(np.abs(finite))) if finite.size else 1.0
    im = ax.imshow(grid, aspect="auto", origin="lower", cmap="coolwarm_r", vmin=-lim, vmax=lim,
                   extent=(-0.5, K.N_BUCKETS - 0.5, 0.5, T + 0.5))
    ax.set_xlabel("probability bucket floor(20 P(bid holds))")
    ax.set_ylabel("dice on the table")
    ax.set_title("learned Q(raise) - Q(call): blue raises, red calls")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
