"""Liar's Dice in the web lab (seed 004): you and 1 to 3 bots, every hand rolled on the server.

Each round everyone rolls in secret; starting with the last round's loser, players raise the bid
(a higher quantity, or the same quantity with a higher face) or call the last bid a lie. On a call
all dice are shown: if at least ``quantity`` dice show ``face`` the caller loses a die, otherwise
the bidder does. The last player with dice wins.

The game is :class:`dicelab.liars.rules.LiarsGame`, dealt from the game's secret seed; the server
stores only the seed and the list of actions (one ``moves`` row each) and rebuilds the position by
replaying them, so the stored record *is* the game. The page sees the player's own hand, the dice
counts and the bids; the other hands only once a round has been called. :func:`hand_visible` is
the one rule of who may see a hand: the game read, the move answer and the study export all use it.

Bots (:mod:`dicelab.liars.strategies`, :mod:`dicelab.liars.qlearning`): ``random`` (always
bluffs: calls or raises at random), ``probabilistic`` (raises with probability P(bid holds | own
dice), else calls) and ``agent``, seed 004's Q-learning agent, trained on first use for the
table's size (5,000 games against three random bots, seed 0, as in the seed).

Coach: the chance that the current bid holds given your own dice (the number seed 004's agent and
probabilistic bot decide on), and for each bid you make, the chance it holds; Liar's Dice has no
exact multi-round solution here, so the coach gives no "win probability lost".

In ``moves``: ``i``/``j`` = the bid's quantity and face (0/0 for a call), ``k`` = dice on the table,
``faces`` = the mover's own hand, ``turn_no`` = the round; ``p_roll``/``p_hold`` = the chance the
mover's bid / the bid before it holds given the mover's hand (so they too are hand columns).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core.errors import DicelabError, require
from dicelab.web.db import utcnow
from dicelab.web.gamecore import (
    MOVES,
    Conflict,
    Created,
    LiveGame,
    check_move,
    commit_pending,
    hash_token,
    importable,
    insert_game,
    moves_of,  # noqa: F401  (liars_play.moves_of, as before)
    public_seed,
    thinking_ms,
)
from dicelab.web.limits import bounded_cache

BOTS = [{"spec": "probabilistic", "label": "Probabilistic"}, {"spec": "random", "label": "Random (always bluffs)"},
        {"spec": "agent", "label": "Q-learning agent (seed 004)"}]
MAX_PLAYERS = 4
MAX_DICE = 6
HUMAN_SEAT = 0
HAND_COLUMNS = ("faces", "p_roll", "p_hold")  # what a moves row tells about its mover's hand
_agents = bounded_cache("liars agents", 64)


def available() -> bool:
    return importable("dicelab.liars")


def rules_of(g: Any) -> Any:
    from dicelab.liars.rules import LiarsRules

    return LiarsRules(players=g.players, dice=g.goal, faces=g.sides, wild=g.variant)


def agent(rules: Any) -> Any:
    from dicelab.liars.qlearning import cached_agent

    return _agents.get_or_build(rules, lambda: cached_agent(rules, games=5000, seed=0))


def is_ready(g: Any) -> bool:
    return "agent" not in g.opponent.split(",") or rules_of(g) in _agents


def prepare(g: Any) -> None:
    if "agent" in g.opponent.split(","):
        agent(rules_of(g))


def _policy(spec: str, rules: Any) -> Any:
    if spec == "agent":
        return agent(rules)
    from dicelab.liars.strategies import bot

    return bot(spec)


def check_specs(specs: list[str], players: int) -> list[str]:
    if len(specs) == 1:
        specs = specs * (players - 1)
    require(len(specs) == players - 1, f"give one bot, or one per bot seat ({players - 1}), got {len(specs)}")
    out = []
    for s in specs:
        s = s.strip().lower()
        require(s in ("random", "probabilistic", "agent"),
                f"unknown Liar's Dice bot {s!r}; allowed: random, probabilistic, agent")
        out.append(s)
    return out


def hand_visible(seat: int, reader: int | None, round_called: bool) -> bool:
    """Whether ``reader`` may see the hand of ``seat`` (and any number computed from it): their own
    hand, and every hand of a round that has been called (a game ends on a call, so a finished game
    shows all). ``reader`` None is the researcher, who holds no seat and sees no live hand."""
    return round_called or seat == reader


def public_moves(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One game's ``moves`` rows as the researcher may see them: the :data:`HAND_COLUMNS` of a
    round that nobody has called yet are blanked."""
    called = {r["turn_no"] for r in rows if r["action"] == "call"}
    return [r if hand_visible(r["player"], None, r["turn_no"] in called) else {**r, **dict.fromkeys(HAND_COLUMNS)}
            for r in rows]


def _replay(db: Session, g: Any) -> Any:
    from dicelab.liars.rules import Bid, LiarsGame

    game = LiarsGame(rules_of(g), g.seed)
    for m in db.execute(select(MOVES.c.player, MOVES.c.action, MOVES.c.i, MOVES.c.j)
                        .where(MOVES.c.game_id == g.id).order_by(MOVES.c.seq)):
        game.apply(Bid(m.i, m.j) if m.action == "bid" else None, m.player)
    return game


def _act(game: Any, g: LiveGame, bid: Any, actor: str, think_ms: int | None, rounds: list) -> dict[str, Any]:
    p = game.to_move
    view = game.view(p)
    hand = ",".join(map(str, game.hands[p]))
    holds_before = view.prob_bid_holds() if game.current_bid is not None else None
    holds_mine = view.prob_bid_holds(bid) if bid is not None else None
    rnd = len(game.record.rounds) + 1
    dice = game.dice_on_table
    rec = game.apply(bid, p)
    shown = hand_visible(p, HUMAN_SEAT, False)  # the answer goes to the human while the round is live
    result = "bid"
    if rec is not None:
        result = "caller lost" if rec.loser == rec.caller else "bidder lost"
        rounds.append(rec.to_dict())
    g._moves.append(dict(
        game_id=g.id, seq=g.version, turn_no=rnd, player=p, actor=actor, action="bid" if bid is not None else "call",
        i=bid.quantity if bid is not None else 0, j=bid.face if bid is not None else 0, k=dice, faces=hand,
        result=result, optimal_action=None, p_roll=holds_mine, p_hold=holds_before, p_lost=None,
        think_ms=think_ms, created_at=utcnow()))
    g.version += 1
    return {"seq": g.version - 1, "player": p, "actor": actor,
            "bid": [bid.quantity, bid.face] if bid is not None else None, "result": result,
            "p_current_holds": holds_before if shown else None, "p_my_bid_holds": holds_mine if shown else None}


def _play_bots(game: Any, g: LiveGame, rounds: list) -> list[dict[str, Any]]:
    rules = rules_of(g)
    specs = g.opponent.split(",")
    events = []
    for _ in range(100_000):
        if game.is_over or game.to_move == 0:
            break
        p = game.to_move
        pol = _policy(specs[p - 1], rules)
        bid = pol(game.view(p), np.random.default_rng([g.seed, g.version, 1]))
        events.append(_act(game, g, bid, "bot", None, rounds))
    return events


def _finish(game: Any, g: LiveGame) -> None:
    g.score0 = game.dice_counts[0]
    g.score1 = sum(game.dice_counts[1:])
    g.turn_no = len(game.record.rounds) + 1
    g.to_move = game.to_move
    if game.is_over:
        g.status, g.winner, g.finished_at = "finished", game.winner, utcnow()


def create_game(db: Session, *, players: int, dice: int, wild: str, opponents: list[str],
                questionnaire: dict[str, Any] | None) -> tuple[Created, list[dict[str, Any]]]:
    from dicelab.liars.rules import LiarsGame, LiarsRules

    require(2 <= players <= MAX_PLAYERS, f"Liar's Dice in the web lab takes 2 to {MAX_PLAYERS} players, got {players}")
    require(1 <= dice <= MAX_DICE, f"the web lab plays 1 to {MAX_DICE} dice each, got {dice}")
    require(wild in ("none", "ones"), f"wild must be none or ones, got {wild!r}")
    specs = check_specs(opponents, players)
    token = secrets.token_urlsafe(24)
    q = questionnaire or {}
    now = utcnow()
    g = LiveGame(
        id=secrets.token_urlsafe(16), token_hash=hash_token(token), game="liars", variant=wild, goal=dice, sides=6,
        opponent=",".join(specs), human_seat=0, coach=True, seed=secrets.randbits(62), status="playing",
        score0=dice, score1=dice * (players - 1), turn_total=0, turn_rolls=0, turn_start_score=0, to_move=0,
        turn_no=1, version=0, winner=None, participant=q.get("participant") or None,
        risk_preference=q.get("risk_preference"), q2=q.get("q2"), q3=q.get("q3"), created_at=now,
        updated_at=now, finished_at=None, players=players, scores_json=None, result_json=None)
    g._moves = []
    LiarsRules(players=players, dice=dice, wild=wild)  # validates
    game = LiarsGame(rules_of(g), g.seed)
    _finish(game, g)
    insert_game(db, g)
    db.commit()
    return Created(g, token, []), []


def make_move(db: Session, g: LiveGame, action: str, quantity: int | None, face: int | None,
              expected_move: int) -> tuple[list[dict[str, Any]], float, list]:
    from dicelab.liars.rules import Bid

    check_move(g, expected_move)
    game = _replay(db, g)
    if game.dice_counts[0] == 0:
        raise Conflict("you are out of dice; the bots finish the game")
    if action == "bid":
        require(quantity is not None and face is not None, "a bid needs a quantity and a face")
        bid = Bid(quantity, face)
    else:
        require(quantity is None and face is None, "a call takes no quantity or face")
        require(game.current_bid is not None, "nobody has bid this round: make the opening bid")
        bid = None
    g._moves, g._turns = [], []
    read_version = g.version
    rounds: list = []
    think = thinking_ms(g)
    try:
        events = [_act(game, g, bid, "human", think, rounds)]
    except DicelabError:
        g.version = read_version
        raise
    t0 = time.perf_counter()
    events += _play_bots(game, g, rounds)
    if game.dice_counts[0] == 0:  # out: the bots play the game to its end
        while not game.is_over:
            p = game.to_move
            pol = _policy(g.opponent.split(",")[p - 1], rules_of(g))
            events.append(_act(game, g, pol(game.view(p), np.random.default_rng([g.seed, g.version, 1])), "bot",
                               None, rounds))
    bot_seconds = time.perf_counter() - t0
    _finish(game, g)
    commit_pending(db, g, read_version)
    return events, bot_seconds, rounds


def public_state(db: Session, g: Any, with_moves: bool = True) -> dict[str, Any]:
    game = _replay(db, g)
    view = game.view(0)
    out: dict[str, Any] = {
        "id": g.id, "game": "liars", "rules": {"players": g.players, "dice": g.goal, "faces": g.sides, "wild": g.variant},
        "opponents": g.opponent.split(","), "human_seat": 0, "status": g.status, "version": g.version,
        "round": len(game.record.rounds) + 1, "to_move": game.to_move, "dice_counts": list(game.dice_counts),
        "hand": list(game.hands[HUMAN_SEAT]) if game.dice_counts[HUMAN_SEAT] > 0 and not game.is_over
        and hand_visible(HUMAN_SEAT, HUMAN_SEAT, False) else [],
        "current_bid": [game.current_bid.quantity, game.current_bid.face] if game.current_bid else None,
        "bidder": game.bidder, "this_round": [a.to_dict() for a in game._actions] if not game.is_over else [],
        "last_round": game.record.rounds[-1].to_dict() if game.record.rounds else None,
        "winner": game.winner,
        "coach_view": {"p_current_holds": view.prob_bid_holds()} if game.current_bid and game.dice_counts[0] else None,
    }
    if public_seed(g) is not None:
        out["seed"] = public_seed(g)
    if with_moves:
        out["rounds_played"] = len(game.record.rounds)
    return out
