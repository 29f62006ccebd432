"""The strategy explorer: look at optimal Pig, compare strategies, run a small tournament.

* **Boundary and heatmaps** (Neller & Presser): for every score pair (i, j) the turn total at
  which optimal play holds (the height of their roll/hold boundary surface), and the mover's win
  probability P(i, j, k) for a chosen turn total k; both for any variant, goal and die.
* **Evaluate two strategies**: exact head-to-head win probabilities
  (:mod:`dicelab.pig.evaluation`, issue 3).
* **Tournament**: an exact round robin over a few strategies (:mod:`dicelab.pig.tournaments`).
* **Simultaneous Pig best-response curve** (seed 000, Figure 1; :mod:`dicelab.simpig`, issue 4).

Tools whose engine has not landed are listed as coming. Every result is also served as JSON.

Every request is checked up front in the server (:func:`check_job`: rule-set size, strategy
nesting, a work estimate for evaluations and tournaments) and computed by :func:`job` in the web
lab's explorer worker process (:class:`dicelab.web.limits.HeavyPool`), which answers bytes.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from dicelab import pig, simpig
from dicelab.core.errors import DicelabError, require

PigRules = Any  # a dicelab.pig.PigRules

MAX_TOURNAMENT = 12
MAX_WORK = 2.5e9  # of :func:`dicelab.pig.work_units`: about 3 s of one core on the project machine


class Coming(DicelabError):
    """The tool's engine is not installed yet: HTTP 501."""


def tools() -> list[dict[str, Any]]:
    return [
        {"key": "boundary", "name": "Roll/hold boundary and win-probability heatmaps", "ready": True},
        {"key": "evaluate", "name": "Evaluate two strategies (exact)", "ready": True},
        {"key": "tournament", "name": "Round-robin tournament (exact)", "ready": True},
        {"key": "simpig", "name": "Simultaneous Pig: best response against hold:N", "ready": True},
    ]


def pig_tables(rules: PigRules) -> dict[str, Any]:
    """Hold thresholds (goal x goal) and P(i, j, 0), the numbers behind the boundary plots."""
    sol = pig.play_solution(rules)
    return {
        "rules": rules.to_dict(),
        "p_first_player": float(sol.p[0, 0, 0]),
        "hold_threshold": sol.hold_thresholds().tolist(),
        "p_turn_start": np.round(sol.p[:, :, 0], 6).tolist(),
    }


def _title(rules: PigRules) -> str:
    die = "coin" if rules.variant == "piglet" else f"d{rules.sides}"
    return f"{rules.variant} Pig to {rules.goal} ({die})"


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _check_plot(rules: PigRules, kind: str, k: int) -> None:
    require(kind in ("boundary", "winprob"), f"unknown plot pig-{kind}; choose pig-boundary or pig-winprob")
    require(0 <= k < rules.goal, f"turn total k must be from 0 to {rules.goal - 1}, got {k}")


def pig_plot(rules: PigRules, kind: str, k: int = 0) -> bytes:
    """``boundary``: hold threshold over (i, j); ``winprob``: P(i, j, k) over (i, j)."""
    _check_plot(rules, kind, k)
    from matplotlib.figure import Figure

    import dicelab.core.plotting  # noqa: F401  (Agg backend)

    sol = pig.play_solution(rules)
    g = rules.goal
    fig = Figure(figsize=(6.4, 5.2), dpi=90)
    ax = fig.subplots()
    if kind == "boundary":
        h = sol.hold_thresholds().astype(float)
        im = ax.imshow(h, origin="lower", cmap="viridis", extent=(-0.5, g - 0.5, -0.5, g - 0.5))
        ax.set_title(f"Turn total at which optimal play holds, {_title(rules)}", fontsize=9)
        fig.colorbar(im, ax=ax, label="hold at turn total k")
    else:
        p = sol.p[:, :, k].copy()
        p[np.arange(g) + k >= g, :] = np.nan  # i + k >= goal: a win, not a state
        im = ax.imshow(p, origin="lower", cmap="RdBu_r", vmin=0, vmax=1, extent=(-0.5, g - 0.5, -0.5, g - 0.5))
        ax.set_title(f"P(mover wins) at turn total {k}, {_title(rules)}", fontsize=9)
        fig.colorbar(im, ax=ax, label="P(win)")
    ax.set_xlabel("opponent score j")
    ax.set_ylabel("player score i")
    fig.tight_layout()
    return _png(fig)


def _jsonable(x: Any) -> Any:
    from dicelab.core.cli import to_jsonable

    if hasattr(x, "__dataclass_fields__") and not hasattr(x, "to_dict"):
        return {k: _jsonable(getattr(x, k)) for k in x.__dataclass_fields__ if not k.startswith("_")}
    return to_jsonable(x)


def evaluate_specs(rules: PigRules, a: str, b: str) -> tuple[str, str]:
    """The two specs checked and normalised, and the evaluation's work within :data:`MAX_WORK`."""
    sa, sb = pig.parse_bot(a, rules), pig.parse_bot(b, rules)
    check_work(rules, 1, [sa, sb])
    return sa, sb


def evaluate(rules: PigRules, a: str, b: str) -> dict[str, Any]:
    """Exact head-to-head of two strategies (specs as in the bot list)."""
    mod = pig
    sa, sb = evaluate_specs(rules, a, b)
    res = mod.evaluate(sa, sb, rules)
    return {"rules": rules.to_dict(), "a": sa, "b": sb, "result": _jsonable(res)}


def evaluate_plot(res: dict[str, Any]) -> bytes:
    """Bars of A's and B's win probabilities when A starts, when B starts and overall."""
    from matplotlib.figure import Figure

    import dicelab.core.plotting  # noqa: F401

    r = res["result"]
    groups = ["A moves first", "B moves first", "first move alternating"]
    a = [r["a_first"], 1.0 - r["b_first"] - r["stalemate_b_first"], r["a_overall"]]
    b = [1.0 - r["a_first"] - r["stalemate_a_first"], r["b_first"], r["b_overall"]]
    fig = Figure(figsize=(7, 3.8), dpi=90)
    ax = fig.subplots()
    x = np.arange(3)
    ax.bar(x - 0.2, a, 0.4, label=f"A = {res['a']}")
    ax.bar(x + 0.2, b, 0.4, label=f"B = {res['b']}")
    for xi, (va, vb) in enumerate(zip(a, b, strict=True)):
        ax.text(xi - 0.2, va + 0.01, f"{va:.4f}", ha="center", fontsize=8)
        ax.text(xi + 0.2, vb + 0.01, f"{vb:.4f}", ha="center", fontsize=8)
    ax.set_xticks(x, groups)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("P(win), exact")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)


def tournament_specs(rules: PigRules, specs: str) -> list[str]:
    """The comma-separated ``specs`` checked and normalised (2 to 12, distinct, within the work limit)."""
    names = [s for s in (x.strip() for x in specs.split(",")) if s]
    require(2 <= len(names) <= MAX_TOURNAMENT,
            f"a web tournament takes 2 to {MAX_TOURNAMENT} comma-separated strategies, got {len(names)}")
    names = [pig.parse_bot(s, rules) for s in names]
    require(len(set(names)) == len(names), f"a tournament's strategies must differ, got {', '.join(names)}")
    check_work(rules, len(names) * (len(names) - 1) // 2, names)
    return names


def tournament(rules: PigRules, specs: str) -> dict[str, Any]:
    """An exact round robin over up to 12 comma-separated strategy specs."""
    mod = pig
    names = tournament_specs(rules, specs)
    res = mod.tournament(names, rules, progress=False)
    return {"rules": rules.to_dict(), "strategies": names, "result": _jsonable(res)}


def tournament_plot(res: dict[str, Any]) -> bytes:
    """The win-matrix heatmap of :func:`tournament`'s result."""
    from matplotlib.figure import Figure

    import dicelab.core.plotting  # noqa: F401

    names = res["result"]["strategies"]
    m = np.array(res["result"]["matrix"], dtype=float)
    fig = Figure(figsize=(6, 5), dpi=90)
    ax = fig.subplots()
    im = ax.imshow(m, cmap="RdBu_r", vmin=0, vmax=1)
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for (r, c), v in np.ndenumerate(m):
        if np.isfinite(v):
            ax.text(c, r, f"{v:.3f}", ha="center", va="center", fontsize=7)
    ax.set_title("P(row beats column), first move alternating", fontsize=9)
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    return _png(fig)


SIMPIG_MAX_GOAL = 100


def check_work(rules: PigRules, evaluations: int, specs: list[str]) -> None:
    """Refuse (422) a request whose estimated work is over :data:`MAX_WORK`."""
    work = pig.work_units(rules, evaluations, specs)
    require(work <= MAX_WORK,
            f"too much work for one web request ({work:.2g} state visits, limit {MAX_WORK:.2g}): use fewer "
            "strategies, less best-response nesting, a smaller goal or die, or the command line")


def _check_simpig(lo: int, hi: int, goal: int) -> None:
    require(2 <= goal <= SIMPIG_MAX_GOAL, f"goal must be from 2 to {SIMPIG_MAX_GOAL}, got {goal}")
    require(1 <= lo <= hi <= goal and hi - lo <= 100,
            f"need 1 <= from <= to <= goal ({goal}) and at most 101 values, got {lo}..{hi}")


def simpig_curve(lo: int, hi: int, goal: int) -> dict[str, Any]:
    """Simultaneous Pig: the exact best response's win probability against hold:N, N = lo..hi
    (seed 000, Figure 1 / Table S1: 0.5231 against hold:25, local minima at 16, 20, 25, 33)."""
    mod = simpig
    _check_simpig(lo, hi, goal)
    rows = mod.sweep_hold(list(range(lo, hi + 1)), mod.SimPigRules(goal=goal))
    return {"goal": goal, "rows": rows, "local_minima": mod.local_minima(rows)}


def simpig_plot(res: dict[str, Any]) -> bytes:
    from matplotlib.figure import Figure

    import dicelab.core.plotting  # noqa: F401

    ns = [r["n"] for r in res["rows"]]
    ps = [r["win_probability"] for r in res["rows"]]
    fig = Figure(figsize=(7, 4), dpi=90)
    ax = fig.subplots()
    ax.plot(ns, ps, marker="o", ms=3)
    for n in res["local_minima"]:
        ax.axvline(n, color="gray", lw=0.6, ls=":")
    ax.set_xlabel("opponent holds at N")
    ax.set_ylabel("best response's win probability")
    ax.set_title(f"Simultaneous Pig to {res['goal']}: best response against hold:N "
                 f"(local minima {res['local_minima']})", fontsize=9)
    fig.tight_layout()
    return _png(fig)


# ------------------------------------------------------------------------------ jobs
TOOLS = ("pig-tables", "pig-plot", "evaluate", "tournament", "simpig-curve")


def _rules(params: dict[str, Any]) -> PigRules:
    """Pig's rules through its registry entry (the web lab's bounds: goal up to 100, dice up to 12 sides)."""
    return pig.GAME.make_rules(variant=params["variant"], goal=params["goal"], sides=params["sides"])


def check_job(tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """Check a request in the server before any work starts (422 on bad or absurd input); the
    normalised parameters for :func:`job`."""
    require(tool in TOOLS, f"unknown explorer tool {tool!r}; choose one of {', '.join(TOOLS)}")
    out = dict(params)
    if tool == "simpig-curve":
        _check_simpig(params["lo"], params["hi"], params["goal"])
        return out
    rules = _rules(params)
    if tool == "pig-plot":
        _check_plot(rules, params["kind"], params["k"])
    elif tool == "evaluate":
        out["a"], out["b"] = evaluate_specs(rules, params["a"], params["b"])
    elif tool == "tournament":
        out["specs"] = ",".join(tournament_specs(rules, params["specs"]))
    return out


def job(tool: str, params: dict[str, Any]) -> bytes:
    """Run a checked explorer request (in the worker process): PNG bytes when ``params["plot"]``
    (always for ``pig-plot``), else JSON bytes."""
    from dicelab.web.limits import json_bytes

    if tool == "simpig-curve":
        res = simpig_curve(params["lo"], params["hi"], params["goal"])
        return simpig_plot(res) if params.get("plot") else json_bytes(res)
    rules = _rules(params)
    if tool == "pig-tables":
        return json_bytes(pig_tables(rules))
    if tool == "pig-plot":
        return pig_plot(rules, params["kind"], params["k"])
    if tool == "evaluate":
        res = evaluate(rules, params["a"], params["b"])
        return evaluate_plot(res) if params.get("plot") else json_bytes(res)
    require(tool == "tournament", f"unknown explorer tool {tool!r}")
    res = tournament(rules, params["specs"])
    return tournament_plot(res) if params.get("plot") else json_bytes(res)
