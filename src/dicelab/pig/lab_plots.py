"""Plots of the Pig strategy lab: the tournament win matrix and "X against every hold:N".

Importing :mod:`dicelab.core.plotting` selects matplotlib's Agg backend, so these work without a display.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import dicelab.core.plotting  # noqa: F401  (sets the Agg backend)
from dicelab.pig.rules import PigRules


def _save(fig: Any, path: str | Path) -> Path:
    """Lay out ``fig``, write it to ``path`` (folders made as needed), close it; the path."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out

def plot_win_matrix(tournament: Any, path: str | Path) -> Path:
    """Heatmap of ``tournament.matrix`` (row strategy's overall chance against the column one)."""
    import matplotlib.pyplot as plt

    names = tournament.strategies
    m = np.asarray(tournament.matrix)
    n = len(names)
    size = min(14.0, 3.0 + 0.25 * n)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    im = ax.imshow(m, cmap="RdBu_r", vmin=0.0, vmax=1.0, interpolation="nearest")
    fig.colorbar(im, ax=ax, label="P(row beats column), first move alternating")
    if n <= 30:
        ax.set_xticks(range(n), names, rotation=90)
        ax.set_yticks(range(n), names)
        if n <= 12:
            for a in range(n):
                for b in range(n):
                    ax.text(b, a, f"{m[a, b]:.3f}", ha="center", va="center", fontsize=7)
    else:
        step = max(1, n // 20)
        ax.set_xticks(range(0, n, step), names[::step], rotation=90)
        ax.set_yticks(range(0, n, step), names[::step])
    r = tournament.rules
    ax.set_title(f"Pig round robin ({tournament.mode}; {r.variant}, goal {r.goal})")
    return _save(fig, path)


def against_holds(x: Any, rules: PigRules | None = None, n_max: int = 100) -> dict[str, Any]:
    """Exact overall chance of strategy ``x`` against every ``hold:N``, N = 1..n_max (seed 002, Fig. 18)."""
    from dicelab.pig.evaluation import evaluate_many, reach_limits
    from dicelab.pig.specs import as_strategy
    from dicelab.pig.strategies import HoldAt

    rules = rules or PigRules()
    sx = as_strategy(x)
    tables = [sx.table(rules)] + [
        HoldAt(f"hold:{n}", n=n).table(rules) for n in range(1, n_max + 1)
    ]
    stack = np.ascontiguousarray(np.stack(tables))
    limits = np.stack([reach_limits(t, rules) for t in stack])
    pairs = np.array([(0, n) for n in range(1, n_max + 1)], dtype=np.int64)
    res = evaluate_many(stack, pairs, rules, limits)
    overall = 0.5 * (res[:, 0] + 1.0 - res[:, 1] - res[:, 3])
    return {
        "strategy": sx.name,
        "n": list(range(1, n_max + 1)),
        "a_first": res[:, 0].tolist(),
        "b_first": res[:, 1].tolist(),
        "a_overall": overall.tolist(),
    }


def plot_against_holds(
    data: dict[str, Any], path: str | Path, rules: PigRules | None = None
) -> Path:
    """Plot :func:`against_holds` output: X's overall chance against hold:N, with the 1/2 line."""
    import matplotlib.pyplot as plt

    rules = rules or PigRules()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(data["n"], data["a_overall"], marker=".", lw=1)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("N of the opponent hold:N")
    ax.set_ylabel(f"P({data['strategy']} wins), first move alternating")
    ax.set_title(f"{data['strategy']} against every hold:N ({rules.variant}, goal {rules.goal})")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def plot_fair_repeats(rows: list[dict[str, Any]], games: int, path: str | Path) -> Path:
    """Seed 002's Figure 16: A's overall rate in each of the repeated fair tests, per pair, with
    the exact value, the seed's +-0.025 band and the binomial law's +-1.96 standard deviations."""
    import matplotlib.pyplot as plt

    n = len(rows)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * n + 2.0), 4.5))
    rng = np.random.default_rng(0)  # horizontal jitter of the points only
    for x, r in enumerate(rows):
        v = np.asarray(r["repeat_overall"])
        ax.scatter(x + rng.uniform(-0.25, 0.25, v.size), v, s=8, alpha=0.6, color="tab:blue")
        p = r["a_overall"]
        ax.hlines(p, x - 0.4, x + 0.4, color="black", lw=1.5, label="exact" if x == 0 else None)
        ax.hlines([p - 0.025, p + 0.025], x - 0.4, x + 0.4, color="tab:orange", lw=1,
                  label="exact +- 0.025 (seed 002)" if x == 0 else None)
        sd = 1.96 * r["binomial_sd"]
        ax.hlines([p - sd, p + sd], x - 0.4, x + 0.4, color="tab:green", lw=1, linestyles="dashed",
                  label="exact +- 1.96 binomial sd" if x == 0 else None)
    ax.set_xticks(range(n), [f"{r['a']} v {r['b']}" for r in rows], rotation=30, ha="right")
    ax.set_ylabel("A's share of the games (first move alternating)")
    ax.set_title(f"{rows[0]['repeats'] if rows else 0} repeated fair tests of {games} games")
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_fair_convergence(data: dict[str, Any], path: str | Path) -> Path:
    """Seed 002's Figure 15: the estimated win rate against the number of games, every repeat
    drawn as a density, with the exact value, the seed's +-0.025 band, the 2.5 / 97.5% quantiles
    of the estimates and the binomial law's +-1.96 standard deviations."""
    import matplotlib.pyplot as plt

    n = np.asarray(data["n"])
    est = np.asarray(data["estimates"])
    exact = np.asarray(data["exact"])
    fig, ax = plt.subplots(figsize=(9, 5))
    xs = np.broadcast_to(n, est.shape).ravel()
    ax.hist2d(xs, est.ravel(), bins=[min(400, n.size), 200], range=[[1, n[-1]], [0.3, 0.7]],
              cmap="YlOrBr", cmin=1)
    ax.plot(n, exact, color="black", lw=1, label="exact")
    band = data["band"]
    ax.plot(n, exact - band, color="tab:blue", lw=1, label=f"exact +- {band}")
    ax.plot(n, exact + band, color="tab:blue", lw=1)
    ax.plot(n, data["q025"], color="tab:red", lw=1, label="2.5% / 97.5% of the estimates")
    ax.plot(n, data["q975"], color="tab:red", lw=1)
    sd = 1.96 * np.asarray(data["binomial_sd"])
    ax.plot(n, exact - sd, color="tab:green", lw=1, ls="--", label="exact +- 1.96 binomial sd")
    ax.plot(n, exact + sd, color="tab:green", lw=1, ls="--")
    ax.set_ylim(0.3, 0.7)
    ax.set_xlabel("games played")
    ax.set_ylabel(f"{data['a']}'s estimated win rate against {data['b']}")
    ax.set_title(f"{data['repeats']} repeats, {data['max_games']} games each (seed {data['seed']})")
    ax.legend(fontsize=8, loc="upper right")
    return _save(fig, path)
