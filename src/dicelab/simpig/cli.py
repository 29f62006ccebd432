"""`dicelab simpig`: Simultaneous Pig for 2 to n players (Zhu & Ma 2023).

Strategy specs (OPP, SPEC): hold:N, hold:goal, pw:25<40,30<60,goal, mix:0.5*hold:20+0.5*hold:30,
table:FILE, br:SPEC, equilibrium, svima, svima-b, cyclic:1, cyclic:2
(see :mod:`dicelab.simpig.specs`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import typer
from rich.console import Console

from dicelab.core.cli import JsonOption, check_out_file, check_out_plot, emit, rows_table
from dicelab.core.cli_backends import (
    AddressOption,
    BackendOption,
    StoreOption,
    WorkersOption,
    backend_kwargs,
)
from dicelab.core.errors import require
from dicelab.core.progress import progress_bar
from dicelab.core.specs import parse_whole, shorten

app = typer.Typer(help="Simultaneous Pig for 2 to n players (Zhu & Ma 2023).", no_args_is_help=True)

GoalOption = typer.Option(100, "--goal", help="Points needed to win.")


def _at_goal(goal: int, n: int) -> int:
    """``n`` (a hold-at value meant for goal 100) scaled to ``goal``: at least 1."""
    return max(1, (n * goal + 50) // 100)


def _default_range(goal: int, lo: int, hi: int) -> str:
    """The range ``hold:LO..HI`` of goal 100, scaled to ``goal``."""
    return f"hold:{_at_goal(goal, lo)}..{_at_goal(goal, hi)}"


MAX_SURFACE = 40  # values of N in a surface3 plot (N (N + 1) / 2 three-player best responses)


def _range_spec(text: str, goal: int) -> list[int]:
    """``hold:10..40`` (or ``10..40``, or ``10,15,20``) -> the list of N, each from 1 to goal."""
    body = text[5:] if text.startswith("hold:") else text
    if ".." in body:
        lo_text, _, hi_text = body.partition("..")
        lo = parse_whole(lo_text, f"LO of the range {shorten(text)}", 1, goal)
        hi = parse_whole(hi_text, f"HI of the range {shorten(text)}", lo, goal)
        return list(range(lo, hi + 1))
    items = body.split(",")
    require(
        len(items) <= goal,
        f"an opponent list holds at most {goal} values (the goal), got {len(items)}",
    )
    return [parse_whole(x, "a hold-at value of the opponent range", 1, goal) for x in items]


@app.command("dist")
def dist_cmd(
    k: int = typer.Argument(..., help="Hold-at target."),
    goal: int = GoalOption,
    json_out: bool = JsonOption,
) -> None:
    """The exact distribution of the turn total X_k when holding at k (Table 2)."""
    from dicelab.simpig.rules import SimPigRules, turn_total_distribution, turn_total_fractions

    rules = SimPigRules(goal=goal)
    require(1 <= k <= rules.goal, f"k must be from 1 to the goal ({rules.goal}), got {k}")
    d = turn_total_distribution(k)
    f = turn_total_fractions(k)
    data = {
        "k": k,
        "distribution": {str(t): p for t, p in d.items()},
        "fractions": {str(t): str(p) for t, p in f.items()},
    }

    def render(console: Console) -> None:
        console.print(
            rows_table(
                [{"total": t, "probability": p, "exact": str(f[t])} for t, p in d.items()],
                title=f"X_{k}",
            )
        )

    emit(data, json_out, render)


@app.command("best-response")
def best_response_cmd(
    opponents: list[str] = typer.Argument(..., help="One strategy spec per opponent."),
    goal: int = GoalOption,
    out: Path | None = typer.Option(
        None, "--out", help="Save the best response table (OUT.npz + OUT.json)."
    ),
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Exact best response to independent opponents (Algorithms 0.1 and 0.3).

    With ``--backend`` (3 or more players) the table is solved layer by layer on the workers and
    kept on disk in ``--store`` (zarr), so it need not fit in memory.
    """
    from dicelab.core.store import save_table
    from dicelab.simpig import best_response, parse_strategy
    from dicelab.simpig.rules import SimPigRules
    from dicelab.simpig.solver import check_size
    from dicelab.simpig.strategies import save_strategy

    rules = SimPigRules(goal=goal, players=len(opponents) + 1)
    check_out_file(out, "--out")
    scale = backend_kwargs(backend, address, workers, store)
    if scale is not None:
        from dicelab.simpig.sharded import sharded_report

        require(rules.players >= 3, "--backend shards 3 or more players; two players solve in memory")
        require(out is None, "a sharded best response stays in its --store folder; --out is for in-memory solves")
        strats = [parse_strategy(o, rules) for o in opponents]
        emit(sharded_report(strats, goal, progress=not json_out, **scale), json_out)
        return
    if rules.players > 2:
        check_size(
            rules.players, goal, symmetric=True
        )  # the lenient bound; the solver checks again
    t0 = time.perf_counter()
    with progress_bar("best response", total=1, enabled=rules.players >= 3 and goal >= 40) as bar:
        res = best_response(list(opponents), rules)
        bar.advance()
    data = {
        "players": res.players,
        "opponents": res.opponents,
        "goal": goal,
        "win_probability": res.win_probability,
        "seconds": time.perf_counter() - t0,
    }
    if out is not None:
        g = goal
        if res.players == 2:
            k = res.policy[:g, :g].astype(np.int64)
            data["out"] = str(
                save_strategy(out, np.ones((1, g, g)), k[None], g, "br:" + res.opponents[0])
            )
        else:
            data["out"] = str(
                save_table(
                    out,
                    "simpig-best-response",
                    {"value": res.value, "policy": res.policy.astype(np.int16)},
                    {"goal": g, "players": res.players, "opponents": res.opponents},
                )
            )
    emit(data, json_out)


@app.command("sweep")
def sweep_cmd(
    opponent: str | None = typer.Option(
        None,
        "--opponent",
        help="Range of hold:N, e.g. hold:10..40 (the default at goal 100; scaled to the goal).",
    ),
    goal: int = GoalOption,
    json_out: bool = JsonOption,
) -> None:
    """Best-response win probability against hold:N over a range of N (Figure 1 / Table S1)."""
    from dicelab.simpig import sweep_hold
    from dicelab.simpig.rules import SimPigRules
    from dicelab.simpig.solver import local_minima

    rules = SimPigRules(goal=goal)
    ns = _range_spec(opponent or _default_range(goal, 10, 40), goal)
    rows = sweep_hold(ns, rules)
    data = {"goal": goal, "rows": rows, "local_minima": local_minima(rows)}

    def render(console: Console) -> None:
        console.print(rows_table(rows, title=f"best response vs hold:N, goal {goal}"))
        console.print(f"local minima at N = {data['local_minima']}")

    emit(data, json_out, render)


@app.command("selfplay")
def selfplay_cmd(
    goal: int = GoalOption,
    out: Path | None = typer.Option(
        None, "--out", help="Save the two cyclic policies as OUT-1 and OUT-2 tables."
    ),
    json_out: bool = JsonOption,
) -> None:
    """Symmetric self-play value iteration: the policy cycle it falls into (paper, Table 3)."""
    from dicelab.simpig import selfplay
    from dicelab.simpig.rules import SimPigRules
    from dicelab.simpig.strategies import save_strategy

    SimPigRules(goal=goal)
    check_out_file(out, "--out")
    with progress_bar("self-play", total=1, enabled=goal >= 60) as bar:
        r = selfplay(SimPigRules(goal=goal))
        bar.advance()
    data = r.to_dict()
    data["mixed_equilibrium"] = {"cyclic:1": 0.5, "cyclic:2": 0.5} if r.cycle_length == 2 else None
    if out is not None:
        data["out"] = [
            str(
                save_strategy(
                    f"{out}-{n}", np.ones((1, goal, goal)), p[None], goal, f"cyclic:{n}", val
                )
            )
            for n, p, val in ((1, r.policy_1, r.value_1), (2, r.policy_2, r.value_2))
        ]
    emit(data, json_out)


@app.command("svima")
def svima_cmd(
    goal: int = GoalOption,
    out: Path | None = typer.Option(
        None, "--out", help="Save A's and B's policies as OUT-a and OUT-b tables."
    ),
    json_out: bool = JsonOption,
) -> None:
    """Stackelberg value iteration (SVIMA, Algorithm 0.2): where A's and B's policies differ."""
    from dicelab.simpig.rules import SimPigRules
    from dicelab.simpig.solver import svima
    from dicelab.simpig.strategies import save_strategy

    SimPigRules(goal=goal)
    check_out_file(out, "--out")
    r = svima(goal)
    data = r.to_dict()
    if out is not None:
        data["out"] = [
            str(save_strategy(f"{out}-{n}", np.ones((1, goal, goal)), p[None], goal, src))
            for n, p, src in (("a", r.policy_a, "svima"), ("b", r.policy_b, "svima-b"))
        ]
    emit(data, json_out)


@app.command("equilibrium")
def equilibrium_cmd(
    goal: int = GoalOption,
    out: Path | None = typer.Option(
        None, "--out", help="Save the values and mixed strategies (OUT.npz + OUT.json)."
    ),
    at: str | None = typer.Option(
        None, "--at", help="Also report the value and mixed strategy at state I,J."
    ),
    json_out: bool = JsonOption,
) -> None:
    """The exact mixed equilibrium of two-player simultaneous Pig (Shapley, an LP per state)."""
    from dicelab.core.cli import parse_int_list
    from dicelab.simpig.equilibrium import solve_equilibrium
    from dicelab.simpig.rules import SimPigRules
    from dicelab.simpig.strategies import save_strategy

    SimPigRules(goal=goal)
    check_out_file(out, "--out")
    state = None
    if at is not None:
        state = parse_int_list(at, "--at")
        require(
            len(state) == 2 and all(0 <= x < goal for x in state),
            f"--at must be two scores I,J from 0 to {goal - 1}, got {at!r}",
        )
    eq = solve_equilibrium(goal, progress=True)
    data: dict[str, object] = {
        "goal": goal,
        "value": eq.start_value,
        "seconds": eq.seconds,
        "mixed_states": eq.mixed_states,
        "linear_programs": eq.linear_programs,
        "strategy_at_start": {str(k): w for k, w in eq.support(0, 0).items()},
    }
    if state is not None:
        i, j = state
        data["state"] = [i, j]
        data["value_at"] = float(eq.value[i, j])
        data["strategy_at"] = {str(k): w for k, w in eq.support(i, j).items()}
        data["opponent_strategy_at"] = {str(k): w for k, w in eq.support(j, i).items()}
    if out is not None:
        data["out"] = str(save_strategy(out, eq.weights, eq.targets, goal, "equilibrium", eq.value))
    emit(data, json_out)


@app.command("exploitability")
def exploitability_cmd(
    spec: str = typer.Argument(..., help="Strategy spec."),
    goal: int = GoalOption,
    json_out: bool = JsonOption,
) -> None:
    """How much an exact best response gains against SPEC (over the game value 1/2)."""
    from dicelab.simpig import SimPigRules, exploitability

    emit({"strategy": spec, "goal": goal, "exploitability": exploitability(spec, SimPigRules(goal=goal))}, json_out)


@app.command("many")
def many_cmd(
    players: int = typer.Option(..., "--players", help="Number of players (2 to 100000)."),
    strategy: str = typer.Option(
        ..., "--strategy", help="Your state-independent strategy (hold:N or a mix: of them)."
    ),
    others: str = typer.Option(
        ..., "--others", help="Everybody else's strategy (state-independent)."
    ),
    goal: int = GoalOption,
    json_out: bool = JsonOption,
) -> None:
    """Exact win share of one player against N-1 identical others (turns-to-goal distributions)."""
    from dicelab.simpig import (
        SimPigRules,
        best_response_vs_goal_holders,
        many_player_win,
        parse_strategy,
    )

    rules = SimPigRules(goal=goal, players=players)
    w = many_player_win(strategy, others, rules)
    data: dict[str, object] = {
        "players": players,
        "goal": goal,
        "strategy": strategy,
        "others": others,
        "win_probability": w,
        "fair_share": 1.0 / players,
    }
    o = parse_strategy(others, rules)
    if o.parts and o.parts[0] == "hold" and (o.parts[1] is None or o.parts[1] == goal):
        gh = best_response_vs_goal_holders(players, goal)
        data["best_response_win_probability"] = gh.best_value
        data["others_in_equilibrium"] = gh.is_equilibrium
    emit(data, json_out)


def _plot_range(opponent: str | None, goal: int, lo: int, hi: int) -> str:
    if opponent is not None and (".." in opponent or "," in opponent):
        return opponent
    return _default_range(goal, lo, hi)


@app.command("plot")
def plot_cmd(
    kind: str = typer.Option(..., "--kind", help="br-curve, contour, slices or surface3."),
    out: Path = typer.Option(..., "--out", help="Image file (.png, .pdf or .svg)."),
    goal: int = GoalOption,
    opponent: str | None = typer.Option(
        None,
        "--opponent",
        help="Opponent for contour/slices (default hold:25 at goal 100); range for "
        "br-curve/surface3 (default hold:10..40 / hold:20..30). Defaults scale with the goal.",
    ),
    strategy: str | None = typer.Option(
        None,
        "--strategy",
        help="contour/slices: draw this strategy's own targets (e.g. svima, svima-b, "
        "equilibrium: its most likely target) instead of the best response to --opponent.",
    ),
    json_out: bool = JsonOption,
) -> None:
    """Draw Figure 1 (br-curve), 2 (contour), 3 (slices) or 5 (surface3, three players)."""
    from dicelab.simpig import best_response, parse_strategy, plots, sweep_hold
    from dicelab.simpig.rules import SimPigRules

    require(kind in plots.KINDS, f"--kind must be one of {', '.join(plots.KINDS)}, got {kind!r}")
    rules = SimPigRules(goal=goal)
    check_out_plot(out, "--out")
    if kind == "br-curve":
        ns = _range_spec(_plot_range(opponent, goal, 10, 40), goal)
        path = plots.br_curve(sweep_hold(ns, rules), out)
    elif kind in ("contour", "slices"):
        if strategy is None:
            opponent = opponent or f"hold:{_at_goal(goal, 25)}"
            pol = best_response(opponent, rules).policy[:goal, :goal]
            title = f"best response to {opponent}"
        else:
            w, k = parse_strategy(strategy, rules).target_table()
            pol = np.take_along_axis(k, np.argmax(w, axis=0)[None], axis=0)[0]
            title = f"{strategy} (most likely target)" if w.shape[0] > 1 else strategy
        if kind == "contour":
            path = plots.policy_contour(pol, out, title)
        else:
            slices = sorted({min(goal - 1, _at_goal(goal, j)) for j in (25, 50, 75, 90)} | {0})
            path = plots.policy_slices(pol, slices, out, title)
    else:
        ns = _range_spec(_plot_range(opponent, goal, 20, 30), goal)
        require(
            len(ns) <= MAX_SURFACE,
            f"surface3 takes at most {MAX_SURFACE} values of N, got {len(ns)}",
        )
        table = np.zeros((len(ns), len(ns)))
        with progress_bar("3-player best responses", total=len(ns) * (len(ns) + 1) // 2) as bar:
            for a, n1 in enumerate(ns):
                for b in range(a, len(ns)):
                    w = best_response([f"hold:{n1}", f"hold:{ns[b]}"], rules).win_probability
                    table[a, b] = table[b, a] = w
                    bar.advance()
        path = plots.surface3(ns, table, out)
    emit({"kind": kind, "out": str(path)}, json_out, lambda c: c.print(f"wrote {path}"))
