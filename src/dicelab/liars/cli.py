"""`dicelab liars`: Liar's Dice: engine, bots, Q-learning and equilibria."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

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

app = typer.Typer(help="Liar's Dice: engine, bots, Q-learning and equilibria.", no_args_is_help=True)

PlayersOption = typer.Option(4, "--players", help="Players (2 to 8).")
DiceOption = typer.Option(6, "--dice", help="Dice per player at the start.")
FacesOption = typer.Option(6, "--faces", help="Faces per die.")
WildOption = typer.Option("none", "--wild", help="Wild face: none, ones or highest.")
SeedOption = typer.Option(0, "--seed", help="Seed of the random source (same seed, same result).")


MAX_GAMES = 100_000_000  # training or evaluation games
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
    """Win rate of seat 1 (an agent or a bot) against the opponents, with a 95% Wilson interval."""
    from dicelab.liars.qlearning import BOTS, evaluate
    from dicelab.liars.rules import LiarsRules

    opp = _names(opponents, "--opponents")
    check_count(games, "--games", 1, MAX_GAMES)
    check_seed(seed)
    if agent in BOTS:
        rules = LiarsRules(len(opp) + 1, dice, faces, wild)
        who: QAgent | str = agent
    else:
        who = _load_agent(agent)
        rules = who.rules
    res = evaluate(who, opp, games=games, seed=seed, rules=rules, progress=not json_out)
    data = {**res.to_dict(), "agent": agent, "opponents": opp, "rules": rules.to_dict()}
    emit(data, json_out, title="evaluation")


@app.command("solve")
def solve_cmd(
    dice: str = typer.Option("1,1", "--dice", help="Dice of the first and second player, such as 1,1 or 2,1."),
    faces: int = FacesOption,
    wild: str = typer.Option("highest", "--wild", help="Wild face: none, ones or highest (OpenSpiel)."),
    iterations: int = typer.Option(20000, "--iterations", help="Most iterations."),
    target: float = typer.Option(1e-5, "--target", help="Stop once the exploitability is below this."),
    method: str = typer.Option(
        "dcfr", "--method", help="dcfr (Discounted CFR), cfr+, cfr+2, pcfr+ or pdcfr+."
    ),
    json_out: bool = JsonOption,
) -> None:
    """Equilibrium of the two-player single-round game (Discounted CFR by default): the first
    bidder's value and the exact exploitability of the average strategy."""
    from dicelab.liars.cfr import OPENSPIEL_VALUE_1V1_6_HIGHEST, DuelRules, solve

    d = parse_int_list(dice, "--dice")
    rules = DuelRules(tuple(d), faces, wild)
    check_count(iterations, "--iterations", 1, MAX_ITERATIONS)
    sol = solve(rules, iterations=iterations, target=target, progress=not json_out, method=method)
    data = sol.to_dict()
    data["payoff_range"] = 2.0
    if rules.dice == (1, 1) and faces == 6 and wild == "highest":
        data["openspiel_value"] = OPENSPIEL_VALUE_1V1_6_HIGHEST
    emit(data, json_out, title=f"{method} equilibrium")


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


@app.command("play")
def play_cmd(
    players: int = typer.Option(3, "--players", help="Players, you included (2 to 8)."),
    dice: int = typer.Option(3, "--dice", help="Dice per player."),
    faces: int = FacesOption,
    wild: str = WildOption,
    bots: str = typer.Option("probabilistic", "--bots", help="Bot kind(s), one or one per other seat."),
    agent: Path | None = typer.Option(None, "--agent", help="A trained Q table to play the other seats."),
    seat: int = typer.Option(1, "--seat", help="Your seat, 1 = opens the first round."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the dice (default: fresh)."),
    json_out: bool = typer.Option(False, "--json", help="Print the game record as one JSON object at the end."),
) -> None:
    """Play in the terminal against bots: type a bid such as 3x5 (three fives), or 'call'."""
    import numpy as np

    from dicelab.liars.rules import Bid, LiarsGame, LiarsRules
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
        others = [bot(k) for k in kinds]
    policies = {p: others[i] for i, p in enumerate(q for q in range(players) if q != me)}
    out = sys.stderr if json_out else sys.stdout

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    def name(p: int) -> str:
        return "you" if p == me else f"player {p + 1}"

    game = LiarsGame(rules, seed)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0] if seed is not None else None)
    say(f"Liar's Dice: {players} players x {dice} dice, {faces} faces, wild {wild}. You are player {seat}.")
    shown_round = -1
    while not game.is_over:
        if shown_round != len(game.record.rounds):
            shown_round = len(game.record.rounds)
            counts = ", ".join(f"{name(p)} {n}" for p, n in enumerate(game.dice_counts) if n > 0)
            say(f"-- round {shown_round + 1}: dice {counts}")
            if game.dice_counts[me] > 0:
                say(f"   your dice: {' '.join(str(x) for x in game.hands[me])}")
        p = game.to_move
        if p == me:
            prompt = "your bid (QxF, e.g. 2x5)" + (" or 'call'" if game.can_call() else "") + ": "
            print(prompt, end="", file=out, flush=True)
            line = sys.stdin.readline()
            if line == "":
                raise DicelabError("input ended before the game did")
            text = line.strip().lower()
            if text in ("q", "quit", "exit"):
                say("you left the game")
                raise typer.Exit(1)
            try:
                move = None if text in ("call", "liar", "c") else Bid.parse(text)
                rec = game.apply(move, p)
            except DicelabError as exc:
                say(f"error: {exc}")
                continue
        else:
            move = policies[p](game.view(p), rng)
            rec = game.apply(move, p)
            if move is not None:
                say(f"   {name(p)} bids {move}")
        if move is None and rec is not None:
            shown = "; ".join(f"{name(i)}: {' '.join(map(str, h))}" for i, h in enumerate(rec.hands) if h)
            say(f"   {name(rec.caller)} calls {rec.bid}. Dice: {shown}")
            say(f"   {rec.matched} dice count for {rec.bid}: {name(rec.loser)} lose{'' if rec.loser == me else 's'} a die")
    say(f"== {'you win' if game.winner == me else name(game.winner or 0) + ' wins'}!")
    if json_out:
        emit({**game.record.to_dict(), "you": seat}, True)
