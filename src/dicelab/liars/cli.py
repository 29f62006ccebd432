"""`dicelab liars`: Liar's Dice: engine, bots, Q-learning and equilibria."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from dicelab.core.cli_backends import (
    AddressOption,
    BackendOption,
    StoreOption,
    WorkersOption,
    backend_kwargs,
)
from dicelab.core.cli import (
    JsonOption,
    check_count,
    check_out_file,
    check_out_plot,
    check_seed,
    emit,
    parse_int_list,
)
from dicelab.core.errors import DicelabError, require
from dicelab.core.specs import shorten

if TYPE_CHECKING:
    from dicelab.liars.qlearning import QAgent
    from dicelab.liars.rules import LiarsRules

app = typer.Typer(help="Liar's Dice: engine, bots, Q-learning and equilibria.", no_args_is_help=True)

PlayersOption = typer.Option(4, "--players", help="Players (2 to 8).")
DiceOption = typer.Option(6, "--dice", help="Dice per player at the start.")
FacesOption = typer.Option(6, "--faces", help="Faces per die.")
WildOption = typer.Option("none", "--wild", help="Wild face: none, ones or highest.")
SeedOption = typer.Option(0, "--seed", help="Seed of the random source (same seed, same result).")


MAX_GAMES = 100_000_000  # training or evaluation games
LBR_ROUNDS = 4000  # a seat: LBR looks ahead at every decision (about 0.35 ms a round at 3 v 3)
LEARNED_ROUNDS = 500_000  # a seat: responder.ROUNDS (not imported here: the CLI starts without numba)
MAX_ITERATIONS = 10_000_000  # CFR iterations


def _names(text: str, what: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    require(
        1 <= len(names) <= 16,
        f"{what} must be a comma-separated list such as random,random,random; got {shorten(text)}",
    )
    return names


def _load_agent(path: str) -> QAgent:
    """A saved Q table, with every way a file can be damaged reported in one line."""
    from dicelab.liars.qlearning import QAgent

    require(path.strip() != "", "--agent needs a Q-table file or a bot name")
    try:
        return QAgent.load(path)
    except DicelabError:
        raise
    except (ValueError, KeyError, TypeError, EOFError) as exc:  # damaged JSON or arrays
        raise DicelabError(f"cannot read the Q table {shorten(path)}: {exc}") from None


@app.command("train")
def train_cmd(
    players: int = PlayersOption,
    dice: int = DiceOption,
    faces: int = FacesOption,
    wild: str = WildOption,
    games: int = typer.Option(5000, "--games", help="Training games."),
    seed: int = SeedOption,
    opponents: str = typer.Option("", "--opponents", help="Bots in seats 2.. (default: all random)."),
    design: str = typer.Option("seed", "--design", help="State design: seed or extended."),
    out: Path = typer.Option(..., "--out", help="Where to write the Q table (.npz + .json)."),
    plot: Path | None = typer.Option(None, "--plot", help="Write the learning curve to this PNG."),
    sweep: str | None = typer.Option(
        None, "--sweep", help="Train a grid, e.g. 'seed=0..9;alpha=0.05,0.1' (keys: seed alpha gamma "
        "epsilon bluff design games); --out gets the best agent."
    ),
    eval_games: int = typer.Option(2000, "--eval-games", help="With --sweep: evaluation games per setting."),
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Train the seed-004 Q-learning agent (seat 1) against bots and save its Q table."""
    from dicelab.liars.qlearning import train
    from dicelab.liars.rules import LiarsRules

    rules = LiarsRules(players, dice, faces, wild)
    check_count(games, "--games", 1, MAX_GAMES)
    check_count(eval_games, "--eval-games", 1, MAX_GAMES)
    check_seed(seed)
    check_out_file(out, "--out")
    check_out_plot(plot, "--plot")
    opp = _names(opponents, "--opponents") if opponents else ["random"] * (players - 1)
    scale = backend_kwargs(backend, address, workers, store)
    if sweep is not None:  # a sweep over seeds and hyperparameters, on any backend
        from dicelab.liars.jobs import run_liars_sweep

        require(plot is None, "--plot draws one training run; it does not combine with --sweep")
        data = run_liars_sweep(rules, sweep, games, seed, opp, design, eval_games, str(out),
                               progress=not json_out, **(scale or {"backend": "local"}))
        emit(data, json_out, title="Q-learning sweep")
        return
    require(scale is None, "--backend, --address, --workers and --store apply to --sweep runs")
    res = train(rules, games=games, seed=seed, opponents=opp, design=design, progress=not json_out)
    path = res.agent.save(str(out))
    data = {
        "games": res.games,
        "seconds": res.seconds,
        "final_win_rate": res.final_win_rate(min(1000, res.games)),
        "training_win_rate": res.win_rate,
        "rules": rules.to_dict(),
        "design": design,
        "opponents": opp,
        "out": path,
    }
    if plot is not None:
        from dicelab.liars.plots import plot_learning_curve

        data["plot"] = plot_learning_curve(res.winners, plot, n_players=players)
    emit(data, json_out, title="Q-learning")


@app.command("eval")
def eval_cmd(
    agent: str = typer.Option(..., "--agent", help="A Q-table file, or the bot random / probabilistic."),
    opponents: str = typer.Option("random,random,random", "--opponents", help="Bots in seats 2.. ."),
    games: int = typer.Option(4000, "--games", help="Evaluation games."),
    seed: int = typer.Option(1, "--seed", help="Seed of the random source."),
    dice: int = typer.Option(6, "--dice", help="Dice per player (bots only; an agent brings its rules)."),
    faces: int = FacesOption,
    wild: str = WildOption,
    json_out: bool = JsonOption,
) -> None:
    """Win rate of seat 1 (an agent or a bot) against the opponents, with a 95% Wilson interval.

    ``--agent scout`` is the multi-player bot (it sits in every seat in turn); a duel policy file
    (from ``liars solve --out``) plays single rounds of its duel against one opponent, in both seats."""
    from dicelab.liars.qlearning import BOTS, evaluate
    from dicelab.liars.rules import LiarsRules

    opp = _names(opponents, "--opponents")
    check_count(games, "--games", 1, MAX_GAMES)
    check_seed(seed)
    if agent == "scout":
        _eval_scout(opp, games, seed, dice, faces, wild, json_out)
        return
    if _is_duel_policy(agent):
        _eval_duel(agent, opp, games, seed, json_out)
        return
    if agent in BOTS:
        rules = LiarsRules(len(opp) + 1, dice, faces, wild)
        who: QAgent | str = agent
    else:
        who = _load_agent(agent)
        rules = who.rules
    res = evaluate(who, opp, games=games, seed=seed, rules=rules, progress=not json_out)
    data = {**res.to_dict(), "agent": agent, "opponents": opp, "rules": rules.to_dict()}
    emit(data, json_out, title="evaluation")


EXACT_METHODS_HELP = "exact solver: dcfr, cfr+, cfr+2, pcfr+, pdcfr+; scalable: abstract, mccfr, lcfr"


def _solve_scalable(d: tuple[int, ...], faces: int, wild: str, iterations: int | None, target: float | None,
                    method: str | None, out: Path, window: int | None, samples: int | None, seed: int,
                    resume: Path | None, json_out: bool, rows: int | None = None, longest: int | None = None,
                    first_face: bool = False, older_faces: int = 0) -> None:
    from dicelab.liars.duel import Duel, DuelPolicy, train_duel
    from dicelab.liars.grading import MAX_EXACT_BIDS, exact_grade

    duel = Duel(d, faces, wild)
    check_out_file(out, "--out")
    check_seed(seed)
    if window is not None:
        check_count(window, "--window", 1, 12)
    if samples is not None:
        check_count(samples, "--samples", 1, 10_000)
    n_it = 1000 if iterations is None else iterations
    check_count(n_it, "--iterations", 1, MAX_ITERATIONS)
    gradable = duel.n_bids <= MAX_EXACT_BIDS
    if target is not None:
        require(target > 0, f"--target must be positive, got {target}")
        require(gradable, f"--target needs exact grading, which handles at most {MAX_EXACT_BIDS} bids "
                f"({d[0]} v {d[1]} x {faces} faces has {duel.n_bids}); grade larger policies with LBR")
    if longest is not None:
        require(rows is not None, "--longest applies with --rows (the memory that grows)")
    check_count(older_faces, "--older-faces", 0, 2)
    require(not ((first_face or older_faces) and (rows is not None or resume is not None)),
            "--first-face and --older-faces train a window from scratch: drop --rows and --resume (a resumed "
            "policy keeps its memory)")
    require(not (first_face and older_faces), "choose --first-face or --older-faces, not both")
    if rows is not None:
        check_count(rows, "--rows", 100, 100_000_000)
        require(resume is None and target is None, "--rows trains its context tree from scratch: drop --resume "
                "and --target")
        base = 2 if window is None else window
        require(base < duel.n_bids, f"--rows lets memory grow beyond the window, which already holds all "
                f"{duel.n_bids} bids")
        top = min(base + 4, duel.n_bids) if longest is None else longest
        check_count(top, "--longest", base + 1, min(12, duel.n_bids))
    old = None
    if resume is not None:
        old = _load_duel_policy(str(resume))
    checks: list[dict[str, float]] = []

    def stop(policy: DuelPolicy, t: int) -> bool:
        g = exact_grade(policy)
        checks.append({"iterations": t, "exploitability": g["exploitability"]})
        return target is not None and g["exploitability"] < target

    every = 0 if target is None else max(50, (n_it // 20) // 50 * 50)
    if rows is not None:
        from dicelab.liars.contexts import train_contexts

        pol = train_contexts(duel, max_rows=rows, window=base, longest=top, iterations=n_it, method=method,
                             seed=seed, samples=samples, progress=not json_out)
    else:
        pol = train_duel(duel, iterations=n_it, seed=seed, window=window, method=method, resume=old,
                         progress=not json_out, callback=stop if target is not None else None, check_every=every,
                         samples=samples, first_face=first_face, older_faces=older_faces)
    path = pol.save(str(out))
    data: dict[str, object] = {"duel": duel.to_dict(), "method": pol.meta["method"], "window": pol.window,
                               "rows": sum(pol.dag.rows), "memory": pol.dag.memory,
                               "remembers": pol.memory_label,
                               "samples": pol.meta["samples"], "iterations": pol.meta["iterations"],
                               "seed": seed, "seconds": pol.meta["seconds"], "out": path,
                               "payoff_range": 2.0}
    if gradable:
        g = exact_grade(pol)
        data.update({"value": g["value"], "best_response_0": g["br0"], "best_response_1": g["br1"],
                     "exploitability": g["exploitability"], "grading": "exact"})
    if target is not None:
        data["target"] = target
        data["target_met"] = bool(data["exploitability"] < target)
        data["checks"] = checks
    emit(data, json_out, title=f"{pol.meta['method']} duel policy")


def _load_duel_policy(path: str):  # -> DuelPolicy
    from dicelab.liars.duel import DuelPolicy

    require(path.strip() != "", "--policy needs a policy file")
    return DuelPolicy.load(path)


def _is_duel_policy(path: str) -> bool:
    import json as _json

    from dicelab.core.store import table_paths

    js = table_paths(path)[1]
    try:
        return js.is_file() and _json.loads(js.read_bytes()).get("kind") == "liars-duel-policy"
    except (OSError, ValueError, AttributeError):
        return False


def _opponent_policy(name: str, rules: LiarsRules):  # -> Policy
    from dicelab.liars.multi import ScoutBot
    from dicelab.liars.qlearning import BOTS
    from dicelab.liars.strategies import bot

    if name == "scout":
        return ScoutBot()
    if name in BOTS:
        return bot(name)
    qa = _load_agent(name)
    from dicelab.liars.qlearning import check_rules

    check_rules(rules, qa.rules)
    return qa


def _eval_scout(opp: list[str], games: int, seed: int, dice: int, faces: int, wild: str, json_out: bool) -> None:
    from dicelab.liars.multi import ScoutBot, win_share
    from dicelab.liars.rules import LiarsRules

    rules = LiarsRules(len(opp) + 1, dice, faces, wild)
    res = win_share(ScoutBot(), [_opponent_policy(o, rules) for o in opp], rules, games=games, seed=seed)
    emit({**res, "agent": "scout", "opponents": opp, "rules": rules.to_dict(), "seats": "rotating"}, json_out,
         title="evaluation")


def _eval_duel(path: str, opp: list[str], games: int, seed: int, json_out: bool) -> None:
    from dicelab.liars.lbr import bot_policy, head_to_head, table_policy
    from dicelab.liars.qlearning import BOTS

    pol = _load_duel_policy(path)
    require(len(opp) == 1, f"a duel policy plays one opponent; got {len(opp)} in --opponents")
    o = opp[0]
    if o in BOTS:
        other = bot_policy(pol.duel, o)
    elif _is_duel_policy(o):
        other = _load_duel_policy(o)
    else:
        qa = _load_agent(o)
        require(qa.rules.players == 2, f"the Q agent was trained for {qa.rules.players} players; a duel needs 2")
        other = table_policy(pol.duel, qa.action_distribution, qa.rules, name="q")
    rounds = max(1, games // 2)
    res = head_to_head(pol, other, rounds=rounds, seed=seed)
    emit({**res, "agent": path, "opponents": opp, "duel": pol.duel.to_dict(), "seats": "both"}, json_out,
         title="duel evaluation")


@app.command("solve")
def solve_cmd(
    dice: str = typer.Option("1,1", "--dice", help="Dice of the first and second player, such as 1,1 or 5,5."),
    faces: int = FacesOption,
    wild: str = typer.Option("highest", "--wild", help="Wild face: none, ones or highest (OpenSpiel)."),
    iterations: int | None = typer.Option(None, "--iterations",
                                          help="Most iterations (exact: 20000; scalable: 1000)."),
    target: float | None = typer.Option(None, "--target", help="Stop once the exact exploitability is below "
                                        "this (exact solver default 1e-5)."),
    method: str | None = typer.Option(None, "--method", help=EXACT_METHODS_HELP + ". Default: dcfr without "
                                      "--out, else abstract up to 3 dice a seat and mccfr above."),
    out: Path | None = typer.Option(None, "--out", help="Train the scalable policy and write it here "
                                    "(.npz + .json)."),
    window: int | None = typer.Option(None, "--window", help="Scalable: bids remembered (default: as many as "
                                      "fit)."),
    samples: int | None = typer.Option(None, "--samples", help="mccfr/lcfr: opponent hands drawn per update."),
    seed: int = SeedOption,
    resume: Path | None = typer.Option(None, "--resume", help="Scalable: continue training from this file."),
    rows: int | None = typer.Option(None, "--rows", help="Scalable: start from --window bids (default 2) and "
                                    "remember more where it pays, up to this many table rows (a context tree)."),
    longest: int | None = typer.Option(None, "--longest", help="With --rows: the most bids a node may remember "
                                       "(default: the window + 4)."),
    first_face: bool = typer.Option(False, "--first-face", help="Scalable: every node also remembers the face "
                                    "of the round's first bid."),
    older_faces: int = typer.Option(0, "--older-faces", help="Scalable: every node also remembers the faces "
                                    "(not the quantities) of this many bids before the window (0 to 2)."),
    json_out: bool = JsonOption,
) -> None:
    """Equilibrium of the two-player single-round game. Without --out: the exact solver (Discounted CFR
    on the full public tree, up to 18 bids). With --out: the scalable solver (CFR on the last bids,
    any size up to 5 v 5), saved as a policy, graded exactly where the tree allows (26 bids)."""
    from dicelab.liars.cfr import METHODS, OPENSPIEL_VALUE_1V1_6_HIGHEST, DuelRules, solve
    from dicelab.liars.duel import SAMPLED_METHODS

    d = tuple(parse_int_list(dice, "--dice"))
    if method is not None:
        require(method in METHODS or method in SAMPLED_METHODS,
                f"unknown method {shorten(method)}; choose one of {', '.join([*METHODS, *SAMPLED_METHODS])}")
    if out is not None or resume is not None or (method is not None and method in SAMPLED_METHODS):
        require(out is not None, "the scalable solver needs --out FILE for the policy")
        require(method is None or method in SAMPLED_METHODS,
                f"--out writes a scalable policy: choose --method {', '.join(SAMPLED_METHODS)}")
        _solve_scalable(d, faces, wild, iterations, target, method, out, window, samples, seed, resume, json_out,
                        rows, longest, first_face, older_faces)
        return
    require(window is None and samples is None and rows is None and longest is None and not first_face
            and not older_faces, "--window, --samples, --rows, --longest, --first-face and --older-faces apply to "
            "the scalable solver (--out)")
    rules = DuelRules(d, faces, wild)
    n_it = 20000 if iterations is None else iterations
    check_count(n_it, "--iterations", 1, MAX_ITERATIONS)
    sol = solve(rules, iterations=n_it, target=1e-5 if target is None else target, progress=not json_out,
                method=method or "dcfr")
    data = sol.to_dict()
    data["payoff_range"] = 2.0
    if rules.dice == (1, 1) and faces == 6 and wild == "highest":
        data["openspiel_value"] = OPENSPIEL_VALUE_1V1_6_HIGHEST
    emit(data, json_out, title=f"{method or 'dcfr'} equilibrium")


@app.command("grade")
def grade_cmd(
    policy: str = typer.Option(..., "--policy", help="A duel policy file, or the bot random / probabilistic."),
    dice: str | None = typer.Option(None, "--dice", help="Dice of the two players (a policy file brings its own)."),
    faces: int = FacesOption,
    wild: str = typer.Option("highest", "--wild", help="Wild face (bots only)."),
    method: str = typer.Option("auto", "--method", help="auto (exact up to 26 bids, else LBR), exact, lbr, or "
                               "learned (a learned responder: a tighter lower bound than LBR)."),
    rounds: int | None = typer.Option(None, "--rounds", help="LBR / learned: rounds played in each seat (default: "
                                      f"{LBR_ROUNDS:,} for LBR; {LEARNED_ROUNDS:,} for the learned responder, whose "
                                      "rounds cost little beside learning it)."),
    seed: int = typer.Option(1, "--seed", help="LBR / learned: seed of the rounds."),
    window: int | None = typer.Option(None, "--window", help="learned: bids the responder remembers (default: "
                                      "as many as fit in about 1 GB, at least the policy's; for a context tree, "
                                      "its window plus the bids added to every node; all bids: perfect recall)."),
    json_out: bool = JsonOption,
) -> None:
    """Exploitability of a duel policy: exact (best responses on the full public tree) where it fits,
    else a lower bound with a 95% interval, by local best response (LBR) or by a learned responder
    (best response on a window abstraction, played with the exact posterior)."""
    from dicelab.liars.duel import Duel
    from dicelab.liars.grading import MAX_EXACT_BIDS, exact_grade
    from dicelab.liars.lbr import bot_policy, lbr

    require(method in ("auto", "exact", "lbr", "learned"),
            f"--method must be auto, exact, lbr or learned, got {shorten(method)}")
    if rounds is None:
        rounds = LEARNED_ROUNDS if method == "learned" else LBR_ROUNDS
    check_count(rounds, "--rounds", 2, MAX_GAMES)
    check_seed(seed)
    if window is not None:
        require(method == "learned", "--window applies to --method learned")
        check_count(window, "--window", 1, 60)
    if policy in ("random", "probabilistic"):
        require(dice is not None, "give --dice D1,D2 for a bot")
        duel = Duel(tuple(parse_int_list(dice or "", "--dice")), faces, wild)
        pol = bot_policy(duel, policy)
    else:
        pol = _load_duel_policy(policy)
        duel = pol.duel
        if dice is not None:
            d = tuple(parse_int_list(dice, "--dice"))
            require(d == duel.dice, f"the policy plays {duel.dice[0]} v {duel.dice[1]} dice, not {d[0]} v {d[1]}")
    if method == "learned":
        from dicelab.liars.responder import learned_br

        if window is not None:
            require(window >= pol.window, f"--window must be at least the policy's window ({pol.window})")
            require(window <= duel.n_bids, f"--window is at most the number of bids ({duel.n_bids})")
        res = learned_br(pol, rounds=rounds, seed=seed, window=window, progress=not json_out)
        emit({**res, "policy": policy, "duel": duel.to_dict(), "payoff_range": 2.0}, json_out,
             title="learned responder: lower bound on the exploitability")
        return
    use_exact = method == "exact" or (method == "auto" and duel.n_bids <= MAX_EXACT_BIDS)
    res = exact_grade(pol) if use_exact else lbr(pol, rounds=rounds, seed=seed)
    emit({**res, "policy": policy, "duel": duel.to_dict(), "payoff_range": 2.0}, json_out,
         title="exploitability" if use_exact else "LBR lower bound on the exploitability")


@app.command("exploit")
def exploit_cmd(
    agent: str = typer.Option(..., "--agent", help="A Q-table file (2 players), or random / probabilistic."),
    dice: str = typer.Option("1,1", "--dice", help="Dice of the two players in the duel."),
    faces: int = FacesOption,
    wild: str = typer.Option("highest", "--wild", help="Wild face (bots only; an agent brings its rules)."),
    json_out: bool = JsonOption,
) -> None:
    """Exact exploitability of a policy playing both seats of the single-round duel."""
    from dicelab.liars.cfr import DuelRules, policy_exploitability
    from dicelab.liars.qlearning import BOTS
    from dicelab.liars.strategies import action_distribution

    d = tuple(parse_int_list(dice, "--dice"))
    if agent in BOTS:
        rules = DuelRules(d, faces, wild)
        res = policy_exploitability(rules, lambda v: action_distribution(agent, v))
    else:
        qa = _load_agent(agent)
        require(qa.rules.players == 2, f"the agent was trained for {qa.rules.players} players; the duel needs 2")
        rules = DuelRules(d, qa.rules.faces, qa.rules.wild)
        res = policy_exploitability(rules, qa.action_distribution, qa.rules)
    emit({**res, "agent": agent, "rules": rules.to_dict(), "payoff_range": 2.0}, json_out, title="exploitability")


@app.command("train-all")
def train_all_cmd(
    faces: int = FacesOption,
    wild: str = typer.Option("ones", "--wild", help="Wild face: none, ones or highest; several with commas "
                             "(ones,none: both rules the lab offers, in one job)."),
    max_dice: int = typer.Option(5, "--max-dice", help="Train every duel up to this many dice a seat (1 to 5)."),
    backend: str | None = BackendOption,
    address: str | None = AddressOption,
    workers: int | None = WorkersOption,
    store: Path | None = StoreOption,
    json_out: bool = JsonOption,
) -> None:
    """Train the duel policy of every size up to --max-dice v --max-dice ahead of time, into the cache
    the scout bot and the coach read (seed 0, one recipe per size). Sizes already cached are skipped;
    run it again to resume (a size cut short resumes from its last 50 iterations)."""
    from dicelab.liars.duel import Duel
    from dicelab.liars.library import train_all

    wilds = [w.strip() for w in wild.split(",")]
    for w in wilds:
        Duel((1, 1), faces, w)  # one-line errors for bad faces or wild
    require(1 <= max_dice <= 5, f"--max-dice must be from 1 to 5, got {max_dice}")
    scale = backend_kwargs(backend, address, workers, store)
    import time as _time

    t0 = _time.perf_counter()
    rows = train_all(max_dice, faces, wilds, progress=not json_out, backend=scale,
                     say=None if json_out else (lambda t: print(t, file=sys.stderr, flush=True)))
    seconds = _time.perf_counter() - t0
    trained = sum(not r["cached"] for r in rows)

    def render(console: Any) -> None:
        from dicelab.core.cli import rows_table

        console.print(rows_table([{"size": f"{r['dice'][0]} v {r['dice'][1]}", "wild": r["wild"],
                                   "method": r["method"],
                                   "bids remembered": (f"{r['window']} to {r['tree_longest']}" if r.get("tree_longest")
                                                       else str(r["window"])),
                                   "seconds": "cached" if r["cached"] else f"{r['seconds']:.1f}"} for r in rows],
                                 title=f"duel policies, {faces} faces"))
        console.print(f"{trained} trained, {len(rows) - trained} already cached, in {seconds:.0f} s")

    emit({"faces": faces, "wild": wild, "max_dice": max_dice, "sizes": rows, "trained": trained,
          "seconds": seconds}, json_out, render=render)


@app.command("play")
def play_cmd(
    players: int = typer.Option(3, "--players", help="Players, you included (2 to 8)."),
    dice: int = typer.Option(3, "--dice", help="Dice per player."),
    faces: int = FacesOption,
    wild: str = WildOption,
    bots: str = typer.Option("scout", "--bots", help="Bot kind(s) (scout, probabilistic, random), one or one "
                             "per other seat. scout plays trained duel policies in two-player rounds where "
                             "they are available (see train-all)."),
    agent: Path | None = typer.Option(None, "--agent", help="A trained Q table to play the other seats."),
    seat: int = typer.Option(1, "--seat", help="Your seat, 1 = opens the first round."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the dice (default: fresh)."),
    json_out: bool = typer.Option(False, "--json", help="Print the game record as one JSON object at the end."),
) -> None:
    """Play in the terminal against bots: type a bid such as 3x5 (three fives), or 'call'."""
    import numpy as np

    from dicelab.liars.play import view_of
    from dicelab.liars.rules import Bid, LiarsRules
    from dicelab.liars.state import new_game
    from dicelab.liars.strategies import bot

    rules = LiarsRules(players, dice, faces, wild)
    require(1 <= seat <= players, f"--seat must be from 1 to {players}, got {seat}")
    check_seed(seed)
    me = seat - 1
    if agent is not None:
        qa = _load_agent(str(agent))
        from dicelab.liars.qlearning import check_rules

        check_rules(rules, qa.rules)
        others = [qa] * (players - 1)
    else:
        kinds = _names(bots, "--bots")
        require(len(kinds) in (1, players - 1), f"--bots needs 1 or {players - 1} names, got {len(kinds)}")
        kinds = kinds * (players - 1) if len(kinds) == 1 else kinds
        from dicelab.liars.multi import ScoutBot
        from dicelab.liars.play import policy_lookup

        allowed = ("scout", "probabilistic", "random")
        for k in kinds:
            require(k in allowed, f"unknown bot {shorten(k)} in --bots; allowed: {', '.join(allowed)}")
        others = [ScoutBot(duel_policies=policy_lookup(rules)) if k == "scout" else bot(k) for k in kinds]
    policies = {p: others[i] for i, p in enumerate(q for q in range(players) if q != me)}
    out = sys.stderr if json_out else sys.stdout

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    def name(p: int) -> str:
        return "you" if p == me else f"player {p + 1}"

    # the game runs through the one state interface: the human sees observe(me) and the public
    # events; each bot decides on its own seat's view only (dicelab.liars.play.view_of)
    state = new_game(rules, seed if seed is not None else int(np.random.SeedSequence().entropy % 2**62))
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0] if seed is not None else None)
    say(f"Liar's Dice: {players} players x {dice} dice, {faces} faces, wild {wild}. You are player {seat}.")
    shown_round = -1
    while not state.is_over:
        view = state.observe(me)
        if shown_round != len(view["rounds"]):
            shown_round = len(view["rounds"])
            counts = ", ".join(f"{name(p)} {n}" for p, n in enumerate(view["dice_counts"]) if n > 0)
            say(f"-- round {shown_round + 1}: dice {counts}")
            if view["dice_counts"][me] > 0:
                say(f"   your dice: {' '.join(str(x) for x in view['hand'])}")
        p = state.to_move()[0]
        if p == me:
            can_call = "call" in state.legal_actions()
            prompt = "your bid (QxF, e.g. 2x5)" + (" or 'call'" if can_call else "") + ": "
            print(prompt, end="", file=out, flush=True)
            line = sys.stdin.readline()
            if line == "":
                raise DicelabError("input ended before the game did")
            text = line.strip().lower()
            if text in ("q", "quit", "exit"):
                say("you left the game")
                raise typer.Exit(1)
            try:
                if text in ("call", "liar", "c"):
                    action: Any = "call"
                else:
                    b = Bid.parse(text)
                    action = {"bid": [b.quantity, b.face]}
                    if action not in state.legal_actions():
                        above = f", above {Bid(*view['bid'])}" if view["bid"] else ""
                        raise DicelabError(f"bid {b} is not allowed now: at most {sum(view['dice_counts'])} dice "
                                           f"of a face from 1 to {faces}{above}" + (", or call" if can_call else ""))
                events = state.apply(action)
            except DicelabError as exc:
                say(f"error: {exc}")
                continue
        else:
            move = policies[p](view_of(state, p), rng)
            events = state.apply("call" if move is None else {"bid": [move.quantity, move.face]})
            if move is not None:
                say(f"   {name(p)} bids {move}")
        for e in events:
            if e.get("action") == "call":
                bid = Bid(*e["bid"])
                shown = "; ".join(f"{name(i)}: {' '.join(map(str, h))}" for i, h in enumerate(e["hands"]) if h)
                say(f"   {name(e['seat'])} calls {bid}. Dice: {shown}")
                loser = e["loser"]
                say(f"   {e['matched']} dice count for {bid}: {name(loser)} lose{'' if loser == me else 's'} a die")
    winner = state.returns().index(1.0)
    say(f"== {'you win' if winner == me else name(winner) + ' wins'}!")
    if json_out:
        emit({**state.record().to_dict(), "you": seat}, True)
