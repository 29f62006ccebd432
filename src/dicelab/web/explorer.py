"""The strategy explorer: look at optimal Pig, compare strategies, run a small tournament.

* **Boundary and heatmaps** (Neller & Presser): for every score pair (i, j) the turn total at
  which optimal play holds (the height of their roll/hold boundary surface), and the mover's win
  probability P(i, j, k) for a chosen turn total k; both for any variant, goal and die.
* **One state** (:func:`pig_state`): the exact values of rolling and holding at (i, j, k).
* **Evaluate two strategies**: exact head-to-head win probabilities
  (:mod:`dicelab.pig.evaluation`, issue 3).
* **Tournament**: an exact round robin over a few strategies (:mod:`dicelab.pig.tournaments`).
* **Simultaneous Pig best-response curve** (seed 000, Figure 1; :mod:`dicelab.simpig`, issue 4).

Every answer is JSON, with the strategies' names for people (the bots' names from Pig's
:class:`~dicelab.core.registry.Play`); the page draws its tables and SVG plots from it. PNG plots
of the same numbers are served for scripts.

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


def bots(rules: PigRules | None = None) -> list[dict[str, str]]:
    """Pig's bots (its registry :class:`~dicelab.core.registry.Play`) for the explorer's forms:
    spec (sent to the API), name and one-line description (shown to people)."""
    rules = rules or pig.PigRules()
    return [{"spec": b.spec, "name": b.name, "description": b.description} for b in pig.PLAY.bots(rules)]


def strategy_name(spec: str, rules: PigRules | None = None) -> str:
    """A checked strategy spec in plain words: the bot's name where Pig offers it as a bot
    ("Hold at 20"), else built the same way ("Hold at 17", "Best response to turtle")."""
    named = {b["spec"]: b["name"] for b in bots(rules)}
    if spec in named:
        return named[spec]
    if spec.startswith("hold:"):
        return f"Hold at {spec[len('hold:'):]}"
    if spec.startswith("best-response:"):
        inner = strategy_name(spec[len("best-response:"):], rules)
        return "Best response to " + inner[:1].lower() + inner[1:]
    return spec.replace("-", " ").capitalize()


def tools() -> list[dict[str, Any]]:
    """The explorer's tools for its page; the strategy tools carry the bots to choose from."""
    choices = bots()
    return [
        {"key": "boundary", "name": "Roll/hold boundary and win-probability heatmaps", "ready": True},
        {"key": "evaluate", "name": "Two strategies head to head (exact)", "ready": True, "bots": choices},
        {"key": "tournament", "name": "Round-robin tournament (exact)", "ready": True, "bots": choices},
        {"key": "simpig", "name": "Simultaneous Pig: the best reply to a player who holds at N", "ready": True},
    ]


def _title(rules: PigRules) -> str:
    """The rules in words: "Pig to 100 with one six-sided die"."""
    if rules.variant == "piglet":
        return f"Piglet (a coin) to {rules.goal}"
    dice = "two" if rules.variant == "two-dice" else "one"
    return f"Pig to {rules.goal} with {dice} {rules.sides}-sided {'dice' if dice == 'two' else 'die'}"


def _check_k(rules: PigRules, k: int) -> None:
    require(0 <= k < rules.goal, f"The turn total must be from 0 to {rules.goal - 1}; you asked for {k}.")


def pig_tables(rules: PigRules, k: int = 0) -> dict[str, Any]:
    """Hold thresholds (goal x goal), P(i, j, 0) and P(i, j, k) (None where i + k reaches the goal:
    a win, not a state), the numbers behind the boundary plots."""
    _check_k(rules, k)
    sol = pig.play_solution(rules)
    g = rules.goal
    pk = np.round(sol.p[:, :, k], 6).astype(object)
    pk[np.arange(g) + k >= g, :] = None
    return {
        "rules": rules.to_dict(),
        "title": _title(rules),
        "p_first_player": float(sol.p[0, 0, 0]),
        "hold_threshold": sol.hold_thresholds().tolist(),
        "p_turn_start": np.round(sol.p[:, :, 0], 6).tolist(),
        "k": k,
        "p_turn_total": pk.tolist(),
        "bots": fitting_bots(rules),
    }


def _check_state(rules: PigRules, i: int, j: int, k: int) -> None:
    g = rules.goal
    require(0 <= i < g, f"Your score must be from 0 to {g - 1} (a score of {g} has won); you asked for {i}.")
    require(0 <= j < g, f"The opponent's score must be from 0 to {g - 1}; you asked for {j}.")
    require(0 <= k < g - i, f"With your score at {i} the turn total must be from 0 to {g - 1 - i} "
                            f"({g - i} more would reach the goal and win); you asked for {k}.")


def pig_state(rules: PigRules, i: int, j: int, k: int) -> dict[str, Any]:
    """One state (i, j, k) of optimal play: the mover's exact chance to win if they roll or hold
    now (both then playing optimally), the better action and the turn total at which optimal play
    holds at these scores."""
    _check_state(rules, i, j, k)
    sol = pig.play_solution(rules)
    p_roll, p_hold = sol.values(i, j, k)
    return {"rules": rules.to_dict(), "title": _title(rules), "state": [i, j, k], "p_roll": p_roll,
            "p_hold": p_hold, "best": sol.action(i, j, k), "p_win": float(sol.p[i, j, k]),
            "hold_at": int(sol.hold_threshold(i, j))}


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _check_plot(rules: PigRules, kind: str, k: int) -> None:
    require(kind in ("boundary", "winprob"), "There are two plots of optimal Pig: pig-boundary and pig-winprob.")
    _check_k(rules, k)


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
        fig.colorbar(im, ax=ax, label="chance to win")
    ax.set_xlabel("opponent score j")
    ax.set_ylabel("player score i")
    fig.tight_layout()
    return _png(fig)


def _jsonable(x: Any) -> Any:
    from dicelab.core.cli import to_jsonable

    if hasattr(x, "__dataclass_fields__") and not hasattr(x, "to_dict"):
        return {k: _jsonable(getattr(x, k)) for k in x.__dataclass_fields__ if not k.startswith("_")}
    return to_jsonable(x)


def _spec(spec: str, rules: PigRules) -> str:
    """``spec`` checked and normalised; refused with the bots' names, not the spec grammar."""
    try:
        return pig.parse_bot(spec, rules)
    except DicelabError as exc:
        try:  # a strategy of standard Pig that these rules cannot take (hold at 25 with goal 20)
            pig.parse_bot(spec, pig.PigRules())
        except DicelabError:
            pass
        else:
            raise DicelabError(
                f"{strategy_name(spec)} cannot play {_title(rules)}; choose another strategy.") from exc
        choices = ", ".join(b["name"] for b in fitting_bots(rules))
        raise DicelabError(f"That is not a strategy the explorer knows; choose one of: {choices}.") from exc


def fitting_bots(rules: PigRules) -> list[dict[str, str]]:
    """The bots that can play ``rules`` (a bot that holds at 25 cannot play to 20)."""
    out = []
    for b in bots(rules):
        try:
            pig.parse_bot(b["spec"], rules)
        except DicelabError:
            continue
        out.append(b)
    return out


def evaluate_specs(rules: PigRules, a: str, b: str) -> tuple[str, str]:
    """The two specs checked and normalised, and the evaluation's work within :data:`MAX_WORK`."""
    sa, sb = _spec(a, rules), _spec(b, rules)
    check_work(rules, 1, [sa, sb])
    return sa, sb


def evaluate(rules: PigRules, a: str, b: str) -> dict[str, Any]:
    """Exact head-to-head of two strategies (specs as in the bot list), with their names."""
    mod = pig
    sa, sb = evaluate_specs(rules, a, b)
    res = mod.evaluate(sa, sb, rules)
    return {"rules": rules.to_dict(), "title": _title(rules), "a": sa, "b": sb,
            "names": {"a": strategy_name(sa, rules), "b": strategy_name(sb, rules)}, "result": _jsonable(res)}


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
    ax.bar(x - 0.2, a, 0.4, label=f"A: {res['names']['a']}")
    ax.bar(x + 0.2, b, 0.4, label=f"B: {res['names']['b']}")
    for xi, (va, vb) in enumerate(zip(a, b, strict=True)):
        ax.text(xi - 0.2, va + 0.01, f"{va:.4f}", ha="center", fontsize=8)
        ax.text(xi + 0.2, vb + 0.01, f"{vb:.4f}", ha="center", fontsize=8)
    ax.set_xticks(x, groups)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("chance to win (exact)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)


def tournament_specs(rules: PigRules, specs: str) -> list[str]:
    """The comma-separated ``specs`` checked and normalised (2 to 12, distinct, within the work limit)."""
    names = [s for s in (x.strip() for x in specs.split(",")) if s]
    require(2 <= len(names) <= MAX_TOURNAMENT,
            f"A tournament here takes 2 to {MAX_TOURNAMENT} strategies; you chose {len(names)}.")
    names = [_spec(s, rules) for s in names]
    require(len(set(names)) == len(names), "Each strategy may play in a tournament once; one was chosen twice.")
    check_work(rules, len(names) * (len(names) - 1) // 2, names)
    return names


def tournament(rules: PigRules, specs: str) -> dict[str, Any]:
    """An exact round robin over up to 12 comma-separated strategy specs; ``names`` gives each
    strategy's name for people, ``ranking`` the library's ranking with those names (an exact
    tournament's win rates have no sampling interval: ``interval`` is None)."""
    mod = pig
    names = tournament_specs(rules, specs)
    res = mod.tournament(names, rules, progress=False)
    out = _jsonable(res)
    plain = {s: strategy_name(s, rules) for s in names}
    ranking = [{**r, "name": plain[r["strategy"]], "interval": None} for r in out["ranking"]]
    return {"rules": rules.to_dict(), "title": _title(rules), "strategies": names, "names": plain,
            "ranking": ranking, "exact": out["mode"] == "exact", "result": out}


def tournament_plot(res: dict[str, Any]) -> bytes:
    """The win-matrix heatmap of :func:`tournament`'s result."""
    from matplotlib.figure import Figure

    import dicelab.core.plotting  # noqa: F401

    names = [res["names"][s] for s in res["result"]["strategies"]]
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
            f"That is too much work for one web request (about {work:.2g} state visits; the limit is "
            f"{MAX_WORK:.2g}): choose fewer strategies, fewer best responses, a smaller goal or die, "
            "or use the command line.")


def _check_simpig(lo: int, hi: int, goal: int) -> None:
    require(2 <= goal <= SIMPIG_MAX_GOAL, f"The goal must be from 2 to {SIMPIG_MAX_GOAL}; you asked for {goal}.")
    require(1 <= lo <= hi <= goal,
            f"N runs from a first value of at least 1 up to a last value no higher than the goal ({goal}); "
            f"you asked for {lo} to {hi}.")


def simpig_curve(lo: int, hi: int, goal: int) -> dict[str, Any]:
    """Simultaneous Pig: the exact best response's win probability against hold:N, N = lo..hi
    (seed 000, Figure 1 / Table S1: 0.5231 against hold:25, local minima at 16, 20, 25, 33)."""
    mod = simpig
    _check_simpig(lo, hi, goal)
    rows = mod.sweep_hold(list(range(lo, hi + 1)), mod.SimPigRules(goal=goal))
    rows = [{**r, "name": f"Holds at {r['n']}"} for r in rows]
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
TOOLS = ("pig-tables", "pig-state", "pig-plot", "evaluate", "tournament", "simpig-curve")


def _rules(params: dict[str, Any]) -> PigRules:
    """Pig's rules through its registry entry (the web lab's bounds: goal up to 100, dice up to 12
    sides); a refusal as a sentence ("Variant must be one of standard, piglet, two-dice, got 'x'.")."""
    try:
        return pig.GAME.make_rules(variant=params["variant"], goal=params["goal"], sides=params["sides"])
    except DicelabError as exc:
        text = str(exc).strip()
        raise DicelabError(text[:1].upper() + text[1:].rstrip(".") + ".") from exc


def check_job(tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """Check a request in the server before any work starts (422 on bad or absurd input); the
    normalised parameters for :func:`job`."""
    require(tool in TOOLS, f"Unknown explorer tool {tool!r}; choose one of {', '.join(TOOLS)}.")
    out = dict(params)
    if tool == "simpig-curve":
        _check_simpig(params["lo"], params["hi"], params["goal"])
        return out
    rules = _rules(params)
    if tool == "pig-tables":
        _check_k(rules, params.get("k", 0))
    elif tool == "pig-state":
        _check_state(rules, params["i"], params["j"], params["k"])
    elif tool == "pig-plot":
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
        return json_bytes(pig_tables(rules, params.get("k", 0)))
    if tool == "pig-state":
        return json_bytes(pig_state(rules, params["i"], params["j"], params["k"]))
    if tool == "pig-plot":
        return pig_plot(rules, params["kind"], params["k"])
    if tool == "evaluate":
        res = evaluate(rules, params["a"], params["b"])
        return evaluate_plot(res) if params.get("plot") else json_bytes(res)
    require(tool == "tournament", f"unknown explorer tool {tool!r}")
    res = tournament(rules, params["specs"])
    return tournament_plot(res) if params.get("plot") else json_bytes(res)
