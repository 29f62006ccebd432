"""``dicelab pig`` commands of the strategy lab: eval, best-response, simulate, tournament, vs-hold.

They are added to the same ``pig`` command group as ``solve``, ``query`` and ``plot``. Strategies
are given as specs: ``optimal``, ``hold:25``, ``keep-pace``, ``turtle``, ``roll-to-win``,
``roll-and-wait``, ``best-response:SPEC``, ``file:PATH`` (see :mod:`dicelab.pig.strategies`).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from dicelab.core.cli_backends import (
    AddressOption,
    BackendOption,
    StoreOption,
    WorkersOption,
    backend_kwargs,
)
from dicelab.core.cli import (
    JsonOption,
    check_out_file,
    check_out_plot,
    check_seed,
    emit,
    kv_table,
    rows_table,
)
from dicelab.pig.cli import GoalOption, PlayersOption, SidesOption, VariantOption, app, make_rules
from dicelab.core.errors import require
from dicelab.core.progress import progress_bar

MAX_PAIRS = 1000

SPEC_HELP = (
    "Strategy: optimal, hold:N, keep-pace, turtle, roll-to-win, roll-and-wait, "
    "best-response:SPEC or file:PATH (.csv or .npz)."
)


N_SPEC_HELP = (
    "One strategy per seat, seat 0 first: optimal, hold:N, keep-pace, turtle, roll-to-win or "
    "file:PATH (with two players every two-player strategy)."
)


def _n_specs(specs: list[str], players: int, what: str = "strategy per seat") -> list[str]:
    require(len(specs) == players, f"give one {what} ({players} for {players} players), got {len(specs)}")
    return specs


@app.command("eval")
def eval_cmd(
    specs: list[str] = typer.Argument(..., help=N_SPEC_HELP),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    players: int = PlayersOption,
    json_out: bool = JsonOption,
) -> None:
    """Exact win probabilities: A against B (and the chance the game never ends), or with
    --players N every seat's chance when each plays its strategy."""
    from dicelab.pig.evaluation import evaluate
    from dicelab.pig.specs import parse_strategy

    rules = make_rules(goal, sides, variant, players)
    _n_specs(specs, players)
    if players > 2:
        from dicelab.pig.nevaluation import evaluate_profile

        ev = evaluate_profile(specs, rules)
        data_n = ev.to_dict()

        def render_n(console: Console) -> None:
            console.print(rows_table([{"seat": s, "strategy": name, "P(win)": f"{p:.6f}"}
                                      for s, (name, p) in enumerate(zip(ev.seats, ev.wins, strict=True))],
                                     title=f"{players} players, goal {goal} (seat 0 first)"))

        emit(data_n, json_out, render_n)
        return
    a, b = specs
    sa, sb = parse_strategy(a), parse_strategy(b)
    e = evaluate(sa, sb, rules)
    data = {
        "a": e.a,
        "b": e.b,
        "rules": rules.to_dict(),
        "a_first": e.a_first,
        "b_first": e.b_first,
        "a_overall": e.a_overall,
        "b_overall": e.b_overall,
        "stalemate_a_first": e.stalemate_a_first,
        "stalemate_b_first": e.stalemate_b_first,
        "passes": e.passes,
        "seconds": e.seconds,
    }
    emit(data, json_out, title=f"{e.a} against {e.b}")


app.command("evaluate", help="The same as eval.")(eval_cmd)


@app.command("best-response")
def best_response_cmd(
    others: list[str] = typer.Argument(..., help=SPEC_HELP + " With --players N: the other "
                                       "seats' strategies in seat order (N - 1 of them)."),
    seat: int = typer.Option(0, "--seat", help="With --players N: the seat that responds (0 first)."),
    players: int = PlayersOption,
    out: Path | None = typer.Option(
        None, "--out", help="Save the best response as a table (.csv or .npz)."
    ),
    iterate: bool = typer.Option(
        False, "--iterate", help="Also iterate best responses starting from B."
    ),
    max_iter: int = typer.Option(20, "--max-iter", help="Most iterations with --iterate."),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    json_out: bool = JsonOption,
) -> None:
    """The exact best response A to strategy B, and how A fares against B; with --players N the
    best response of one seat to the others' strategies."""
    from dicelab.pig.evaluation import best_response, iterated_best_response
    from dicelab.pig.specs import parse_strategy
    from dicelab.pig.strategies import save_strategy

    rules = make_rules(goal, sides, variant, players)
    if players > 2:
        from dicelab.pig.nevaluation import best_response_n

        require(0 <= seat < players, f"--seat must be from 0 to {players - 1}, got {seat}")
        _n_specs(others, players - 1, "strategy for each other seat")
        require(not iterate, "--iterate is for two players")
        check_out_file(out, "--out", (".npz",))
        profile: list = list(others)
        profile.insert(seat, None)
        br = best_response_n(profile, seat, rules)
        data_n = br.to_dict()
        if out is not None:
            from dicelab.core.store import save_table

            table = br.table.reshape((rules.goal,) * (players + 1))
            data_n["out"] = str(save_table(out, "pig-strategy", {"roll": table},
                                           {"name": f"best-response@{seat}", "goal": rules.goal,
                                            "rules": rules.to_dict()}))
        emit(data_n, json_out, title=f"best response of seat {seat} to {', '.join(others)}")
        return
    require(len(others) == 1, f"give one strategy to respond to, got {len(others)}")
    b = others[0]
    require(1 <= max_iter <= 1000, f"--max-iter must be from 1 to 1000, got {max_iter}")
    check_out_file(out, "--out", (".csv", ".npz"))
    sb = parse_strategy(b)
    br = best_response(sb, rules)
    e = br.result
    data: dict = {
        "b": sb.name,
        "rules": rules.to_dict(),
        "a_first": e.a_first,
        "b_first": e.b_first,
        "a_overall": e.a_overall,
        "stalemate_a_first": e.stalemate_a_first,
        "stalemate_b_first": e.stalemate_b_first,
        "seconds": br.seconds,
    }
    if out is not None:
        data["out"] = str(save_strategy(out, br.table, f"best-response:{sb.name}", rules))
    steps = None
    if iterate:
        with progress_bar("iterated best response", total=max_iter, enabled=not json_out) as bar:
            it = iterated_best_response(sb, rules, max_iter, on_step=lambda s: bar.advance())
        steps = [s.to_dict() for s in it.steps]
        data.update(
            iterations=steps, converged=it.converged, reached_optimal_at=it.reached_optimal_at
        )

    def render(console: Console) -> None:
        console.print(
            kv_table(
                {k: v for k, v in data.items() if k != "iterations"},
                title=f"best response to {sb.name}",
            )
        )
        if steps:
            console.print(rows_table(steps, title="iterated best response"))

    emit(data, json_out, render)


@app.command("simulate")
def simulate_cmd(
    specs: list[str] = typer.Argument(..., help=N_SPEC_HELP),
    games: int = typer.Option(100_000, "--games", help="Games to play (first move alternating)."),
    seed: int = typer.Option(
        0, "--seed", help="Random seed (same seed, same result on any core count)."
    ),
    records: Path | None = typer.Option(
        None, "--records", help="Write one row per turn to this .parquet file."
    ),
    confidence: float = typer.Option(
        0.95, "--confidence", help="Confidence level of the interval."
    ),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    players: int = PlayersOption,
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Monte Carlo of A against B (or, with --players N, of one strategy per seat), with Wilson
    intervals and the exact values beside them."""
    from dicelab.pig.simulation import simulate
    from dicelab.pig.specs import parse_strategy

    rules = make_rules(goal, sides, variant, players)
    require(
        0.0 < confidence < 1.0, f"--confidence must lie strictly between 0 and 1, got {confidence}"
    )
    check_seed(seed)
    check_out_file(records, "--records", (".parquet",))
    _n_specs(specs, players)
    if players > 2:
        from dicelab.pig.nsimulation import simulate_n

        require(records is None and backend is None and address is None and workers is None
                and store is None, "--records and the backend options are for two players")
        res = simulate_n(specs, rules, games=games, seed=seed, confidence=confidence)
        emit({**res.to_dict(), "rules": rules.to_dict()}, json_out,
             title=f"{players} players: {games} games (seat 0 first)")
        return
    a, b = specs
    sa, sb = parse_strategy(a), parse_strategy(b)
    scale = backend_kwargs(backend, address, workers, store) or {}
    with progress_bar(
        "simulating", total=1, enabled=not scale and (games >= 5_000_000 or records is not None)
    ) as bar:
        r = simulate(
            sa, sb, rules, games=games, seed=seed, records=records, confidence=confidence, **scale
        )
        bar.advance()
    data = r.to_dict()
    data["rules"] = rules.to_dict()
    emit(data, json_out, title=f"{r.a} against {r.b}: {games} games")


@app.command("tournament")
def tournament_cmd(
    specs: list[str] = typer.Argument(..., help="Strategies; ranges like hold:1..100 expand."),
    simulate: int | None = typer.Option(
        None, "--simulate", help="Simulate N games per pair instead of exact values."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the simulated tournament."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write the win-matrix heatmap (.png, .pdf or .svg)."
    ),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    players: int = PlayersOption,
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Round robin: win matrix, ranking and every non-transitive 3-cycle; with --players N (3 or
    more) hold:N strategies only, each against every field of others holding at one M."""
    from dicelab.pig.tournaments import tournament

    rules = make_rules(goal, sides, variant, players)
    check_seed(seed)
    check_out_plot(plot, "--plot")
    if players > 2:
        _hold_tournament_cmd(specs, rules, simulate, plot, backend, json_out)
        return
    scale = backend_kwargs(backend, address, workers, store) or {}
    t = tournament(specs, rules, simulate=simulate, seed=seed, progress=True, **scale)
    data = t.to_dict()
    if plot is not None:
        from dicelab.pig.lab_plots import plot_win_matrix

        data["plot"] = str(plot_win_matrix(t, plot))

    def render(console: Console) -> None:
        console.print(
            rows_table(t.ranking[:25], title=f"ranking ({t.mode}, {len(t.strategies)} strategies)")
        )
        if len(t.strategies) <= 10:
            rows = [
                {"": a, **{b: f"{t.matrix[i, j]:.4f}" for j, b in enumerate(t.strategies)}}
                for i, a in enumerate(t.strategies)
            ]
            console.print(rows_table(rows, title="P(row beats column)"))
        if t.cycles:
            console.print(f"non-transitive 3-cycles ({len(t.cycles)}):")
            for c in t.cycles[:20]:
                console.print("  " + " > ".join(c + [c[0]]))
        else:
            console.print("transitive: no cycle")
        console.print(f"{t.pairs} pairs in {t.seconds:.2f} s")

    emit(data, json_out, render)


def _hold_tournament_cmd(specs: list[str], rules, simulate, plot, backend, json_out: bool) -> None:
    from dicelab.pig.nevaluation import hold_tournament
    from dicelab.pig.specs import expand_specs

    require(simulate is None and plot is None and backend is None,
            "with three or more players the tournament is exact and has no plot or backend options")
    values = []
    for s in expand_specs(specs):
        require(s.lower().startswith("hold:"), f"with three or more players the tournament takes "
                f"hold:N strategies (ranges like hold:15..35), got {s[:40]!r}")
        from dicelab.core.specs import parse_whole

        values.append(parse_whole(s[5:], f"N in {s[:40]}", 1, rules.goal))
    total = len(values) ** 2
    with progress_bar("hold-at-N tournament", total=total, enabled=not json_out and total > 4) as bar:
        t = hold_tournament(values, rules, progress=bar.advance)
    data = t.to_dict()

    def render(console: Console) -> None:
        console.print(rows_table(t.ranking[:25], title=f"mean chance over the fields ({rules.players} players)"))
        console.print(f"best reply to each field: {dict(zip(t.values, t.best_reply, strict=True))}")
        console.print(f"symmetric equilibria among these: {t.equilibria or 'none'}")

    emit(data, json_out, render)


@app.command("vs-hold")
def vs_hold_cmd(
    x: str = typer.Argument(..., help=SPEC_HELP),
    n_max: int | None = typer.Option(
        None, "--max", help="Opponents hold:1 .. hold:MAX (default: the goal, 100)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Write the plot (.png, .pdf or .svg), like seed 002's Figure 18."
    ),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    json_out: bool = JsonOption,
) -> None:
    """Strategy X against every hold:N: exact overall win chances (and a plot)."""
    from dicelab.pig.lab_plots import against_holds, plot_against_holds

    rules = make_rules(goal, sides, variant)
    n_max = rules.goal if n_max is None else n_max
    require(1 <= n_max <= 1000, f"--max must be from 1 to 1000, got {n_max}")
    check_out_plot(out, "--out")
    data = against_holds(x, rules, n_max)
    if out is not None:
        data["out"] = str(plot_against_holds(data, out, rules))
    worst = min(range(n_max), key=lambda i: data["a_overall"][i])
    data["worst"] = {"n": worst + 1, "a_overall": data["a_overall"][worst]}

    def render(console: Console) -> None:
        rows = [
            {"N": n, "a_overall": f"{p:.4f}"}
            for n, p in zip(data["n"], data["a_overall"], strict=True)
        ]
        console.print(
            rows_table(rows[:: max(1, n_max // 25)], title=f"{data['strategy']} against hold:N")
        )
        console.print(f"weakest against hold:{worst + 1}: {data['a_overall'][worst]:.4f}")

    emit(data, json_out, render)


@app.command("fair-test")
def fair_test_cmd(
    pairs: list[str] = typer.Argument(
        None, help="Pairs A,B (e.g. hold:20,hold:21); default: seed 002's Figure 17."
    ),
    games: int = typer.Option(3000, "--games", help="Games per pair (the seed used 3000)."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    confidence: float = typer.Option(
        0.95, "--confidence", help="Confidence level of the intervals."
    ),
    repeats: int = typer.Option(
        1, "--repeats", help="Independent tests per pair (seed 002's Figure 16 used 100)."
    ),
    plot: Path | None = typer.Option(
        None, "--plot", help="With --repeats > 1: write Figure 16's plot (.png, .pdf or .svg)."
    ),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    json_out: bool = JsonOption,
) -> None:
    """Simulated against exact values, pair by pair, like seed 002's Figure 17 (and, with
    --repeats 100, Figure 16: the spread of repeated tests)."""
    from dicelab.pig.simulation import MAX_REPEATS, fair_test

    rules = make_rules(goal, sides, variant)
    require(games >= 2, f"--games must be at least 2, got {games}")
    require(
        1 <= repeats <= MAX_REPEATS, f"--repeats must be from 1 to {MAX_REPEATS}, got {repeats}"
    )
    require(plot is None or repeats > 1, "--plot shows repeated tests: give --repeats 2 or more")
    check_out_plot(plot, "--plot")
    check_seed(seed)
    require(
        len(pairs or ()) <= MAX_PAIRS, f"give at most {MAX_PAIRS} pairs, got {len(pairs or ())}"
    )
    require(
        0.0 < confidence < 1.0, f"--confidence must lie strictly between 0 and 1, got {confidence}"
    )
    parsed = None
    if pairs:
        parsed = []
        for p in pairs:
            parts = p.split(",")
            require(
                len(parts) == 2 and all(parts),
                f"a pair is written A,B (e.g. hold:20,hold:21), got {p!r}",
            )
            parsed.append((parts[0], parts[1]))
    rows = fair_test(parsed, rules, games, seed, confidence, repeats)
    data = {
        "rules": rules.to_dict(),
        "games": games,
        "seed": seed,
        "confidence": confidence,
        "repeats": repeats,
        "rows": rows,
        "inside": sum(r["inside"] for r in rows),
    }
    if plot is not None:
        from dicelab.pig.lab_plots import plot_fair_repeats

        data["plot"] = str(plot_fair_repeats(rows, games, plot))

    def render(console: Console) -> None:
        show = [
            {
                "A v B": f"{r['a']} v {r['b']}",
                "A 1st": f"{r['a_first']:.4f}",
                "B 1st": f"{r['b_first']:.4f}",
                "A all": f"{r['a_overall']:.4f}",
                "sim A 1st": f"{r['sim_a_first']:.4f}",
                "sim B 1st": f"{r['sim_b_first']:.4f}",
                "sim A all": f"{r['sim_a_overall']:.4f}",
                "dev": f"{r['deviation']:.4f}",
                "in CI": "yes" if r["inside"] else "NO",
            }
            for r in rows
        ]
        console.print(
            rows_table(show, title=f"fair test: {games} games per pair, {confidence:.0%} Wilson")
        )
        console.print(f"exact value inside the interval for {data['inside']} of {len(rows)} pairs")
        if repeats > 1:
            console.print(
                rows_table(
                    [
                        {
                            "A v B": f"{r['a']} v {r['b']}",
                            "exact A all": f"{r['a_overall']:.4f}",
                            "mean": f"{r['repeat_mean']:.4f}",
                            "sd": f"{r['repeat_sd']:.4f}",
                            "binomial sd": f"{r['binomial_sd']:.4f}",
                            "range": f"{r['repeat_min']:.4f}-{r['repeat_max']:.4f}",
                            "in CI": f"{r['repeat_inside']}/{repeats}",
                        }
                        for r in rows
                    ],
                    title=f"{repeats} repeated tests of {games} games per pair",
                )
            )
        if plot is not None:
            console.print(f"plot: {data['plot']}")

    emit(data, json_out, render)


@app.command("fair-convergence")
def fair_convergence_cmd(
    a: str = typer.Argument("hold:25", help=SPEC_HELP),
    b: str | None = typer.Argument(None, help="The opponent (default: A itself, as the seed)."),
    max_games: int = typer.Option(4000, "--max-games", help="Games per repeat (the seed: 4000)."),
    repeats: int = typer.Option(100, "--repeats", help="Repeats (the seed: 100)."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write Figure 15's plot (.png, .pdf or .svg)."
    ),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    json_out: bool = JsonOption,
) -> None:
    """Seed 002's Figure 15: the estimated win rate after n = 1..N games, repeated."""
    from dicelab.pig.simulation import MAX_PATH_GAMES, MAX_REPEATS, fair_test_convergence

    rules = make_rules(goal, sides, variant)
    check_seed(seed)
    require(
        1 <= max_games <= MAX_PATH_GAMES,
        f"--max-games must be from 1 to {MAX_PATH_GAMES}, got {max_games}",
    )
    require(
        2 <= repeats <= MAX_REPEATS, f"--repeats must be from 2 to {MAX_REPEATS}, got {repeats}"
    )
    require(
        max_games * repeats <= 10**8,
        f"--max-games x --repeats must be at most 1e8 games, got {max_games * repeats:.1e}",
    )
    check_out_plot(plot, "--plot")
    d = fair_test_convergence(a, b, rules, max_games, repeats, seed)
    # the summary at up to 40 numbers of games (1, 2, 5, 10, 20, 50, ... and the seed's 1537,
    # 3000), not all max_games x repeats estimates
    grid = sorted({n for n in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1537, 2000, 2500,
                               3000, 4000, 5000, 10_000, 20_000, 50_000, 100_000)
                   if n <= max_games} | {max_games})
    data = {
        "a": d["a"],
        "b": d["b"],
        "rules": rules.to_dict(),
        "max_games": max_games,
        "repeats": repeats,
        "seed": seed,
        "band": d["band"],
        "seconds": d["seconds"],
        "rows": [
            {
                "games": n,
                "exact": float(d["exact"][n - 1]),
                "sd": float(d["sd"][n - 1]),
                "binomial_sd": float(d["binomial_sd"][n - 1]),
                "q025": float(d["q025"][n - 1]),
                "median": float(d["median"][n - 1]),
                "q975": float(d["q975"][n - 1]),
                "within_band": float(d["within_band"][n - 1]),
            }
            for n in grid
        ],
    }
    if plot is not None:
        from dicelab.pig.lab_plots import plot_fair_convergence

        data["plot"] = str(plot_fair_convergence(d, plot))

    def render(console: Console) -> None:
        show = [
            {
                "games": str(r["games"]),
                "exact": f"{r['exact']:.4f}",
                "sd": f"{r['sd']:.4f}",
                "binomial sd": f"{r['binomial_sd']:.4f}",
                "2.5%": f"{r['q025']:.4f}",
                "97.5%": f"{r['q975']:.4f}",
                f"within {data['band']}": f"{r['within_band']:.0%}",
            }
            for r in data["rows"]
        ]
        console.print(
            rows_table(show, title=f"{data['a']} v {data['b']}: {repeats} repeats "
                       f"({data['seconds']:.2f} s of play)")
        )
        if plot is not None:
            console.print(f"plot: {data['plot']}")

    emit(data, json_out, render)
