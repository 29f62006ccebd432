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
from dicelab.pig.cli import GoalOption, SidesOption, VariantOption, app, make_rules
from dicelab.core.errors import require
from dicelab.core.progress import progress_bar

MAX_PAIRS = 1000

SPEC_HELP = (
    "Strategy: optimal, hold:N, keep-pace, turtle, roll-to-win, roll-and-wait, "
    "best-response:SPEC or file:PATH (.csv or .npz)."
)


@app.command("eval")
def eval_cmd(
    a: str = typer.Argument(..., help=SPEC_HELP),
    b: str = typer.Argument(..., help=SPEC_HELP),
    goal: int = GoalOption,
    sides: int | None = SidesOption,
    variant: str = VariantOption,
    json_out: bool = JsonOption,
) -> None:
    """Exact win probabilities of A against B (and the chance the game never ends)."""
    from dicelab.pig.evaluation import evaluate
    from dicelab.pig.specs import parse_strategy

    rules = make_rules(goal, sides, variant)
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


@app.command("best-response")
def best_response_cmd(
    b: str = typer.Argument(..., help=SPEC_HELP),
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
    """The exact best response A to strategy B, and how A fares against B."""
    from dicelab.pig.evaluation import best_response, iterated_best_response
    from dicelab.pig.specs import parse_strategy
    from dicelab.pig.strategies import save_strategy

    rules = make_rules(goal, sides, variant)
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
    a: str = typer.Argument(..., help=SPEC_HELP),
    b: str = typer.Argument(..., help=SPEC_HELP),
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
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Monte Carlo of A against B, with a Wilson interval and the exact value beside it."""
    from dicelab.pig.simulation import simulate
    from dicelab.pig.specs import parse_strategy

    rules = make_rules(goal, sides, variant)
    require(
        0.0 < confidence < 1.0, f"--confidence must lie strictly between 0 and 1, got {confidence}"
    )
    check_seed(seed)
    check_out_file(records, "--records", (".parquet",))
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
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Round robin: win matrix, ranking and every non-transitive 3-cycle."""
    from dicelab.pig.tournaments import tournament

    rules = make_rules(goal, sides, variant)
    check_seed(seed)
    check_out_plot(plot, "--plot")
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
