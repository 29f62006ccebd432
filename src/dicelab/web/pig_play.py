"""Sequential Pig in the web lab: one human against one bot, dice rolled on the server.

The live game is a row of ``games``; a move loads it, replays the state into the engine
(:class:`dicelab.pig.rules.PigGame`), applies the human's action, lets the bot play while it is
the bot's turn, records every move and every finished turn, and commits the lot in ONE transaction
before answering. Each move's dice come from ``numpy.random.default_rng([seed, seq])``: the seed
is drawn from the operating system's entropy at creation and kept secret until the game is over,
so a finished game can be replayed exactly and nobody can predict the dice of a live one.

A move names the ``expected_move`` (the game's ``version``, the number of moves made so far): a
move sent for an older position (a double click, a second tab) is refused with 409 and changes
nothing. The version bump is a compare-and-set (``UPDATE games ... WHERE id = :id AND version =
:version_read``) and ``(game_id, seq)`` is unique in ``moves``, so two racing requests can never
both succeed, on SQLite or PostgreSQL. The move check and the commit are shared with the other
games (:mod:`dicelab.web.gamecore`).

The hot path (load, move, bot reply, commit) uses SQLAlchemy Core statements on a plain record of
the game rather than the ORM's unit of work: one SELECT, one UPDATE and one or two multi-row
INSERTs per request.

The coach's numbers come from the exact solution: for the state ``(i, j, k)`` before a move,
``p_roll`` and ``p_hold`` are the mover's win probabilities if they roll (or hold) now and both
players play optimally afterwards; the probability a move *gave away* is
``max(p_roll, p_hold) - p_chosen``.
"""

from __future__ import annotations

import hmac
import secrets
import time
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core.errors import DicelabError, require
from dicelab.pig.rules import PigGame, PigRules
import dicelab.web.bots as bots
from dicelab.web.db import utcnow
from dicelab.web.gamecore import (
    GAMES,
    Conflict,
    Created,
    Forbidden,
    LiveGame,
    NotFound,
    check_move,
    commit_pending,
    hash_token,
    insert_game,
    moves_of,
    public_seed,
    thinking_ms,
    write_rows,
)

WEB_MAX_GOAL = 100
WEB_MAX_SIDES = 12
RISK_PREFERENCES = ("averse", "loving", "neutral")
MAX_BOT_MOVES = 10_000


def make_rules(variant: str, goal: int, sides: int | None) -> PigRules:
    rules = PigRules(goal=goal, sides=sides, variant=variant)
    require(
        2 <= rules.goal <= WEB_MAX_GOAL,
        f"the web lab plays goals from 2 to {WEB_MAX_GOAL}, got {rules.goal}",
    )
    require(rules.sides <= WEB_MAX_SIDES, f"the web lab plays dice with 2 to {WEB_MAX_SIDES} sides, got {rules.sides}")
    return rules


def rules_of(g: Any) -> PigRules:
    return PigRules(goal=g.goal, sides=g.sides, variant=g.variant)


def create_game(
    db: Session,
    *,
    variant: str,
    goal: int,
    sides: int | None,
    opponent: str,
    human_first: bool | None,
    coach: bool,
    questionnaire: dict[str, Any] | None,
) -> Created:
    """Create a game (and play the bot's first turn when the bot starts); commit; return it."""
    rules = make_rules(variant, goal, sides)
    spec = bots.parse_opponent(opponent, rules)
    if human_first is None:
        human_first = secrets.randbelow(2) == 0
    token = secrets.token_urlsafe(24)
    q = questionnaire or {}
    if q:
        rp = q.get("risk_preference")
        require(rp in RISK_PREFERENCES, f"risk_preference must be one of {', '.join(RISK_PREFERENCES)}, got {rp!r}")
        for key in ("q2", "q3"):
            require(q.get(key) in ("a", "b"), f"{key} must be 'a' or 'b', got {q.get(key)!r}")
    now = utcnow()
    g = LiveGame(
        id=secrets.token_urlsafe(16),
        token_hash=hash_token(token),
        game="pig",
        variant=rules.variant,
        goal=rules.goal,
        sides=rules.sides,
        opponent=spec,
        human_seat=0 if human_first else 1,
        coach=bool(coach),
        seed=secrets.randbits(62),
        status="playing",
        score0=0,
        score1=0,
        turn_total=0,
        turn_rolls=0,
        turn_start_score=0,
        to_move=0,
        turn_no=1,
        version=0,
        winner=None,
        participant=(q.get("participant") or None),
        risk_preference=q.get("risk_preference"),
        q2=q.get("q2"),
        q3=q.get("q3"),
        created_at=now,
        updated_at=now,
        finished_at=None,
        players=2,
        scores_json=None,
        result_json=None,
    )
    g._moves, g._turns = [], []
    events = _play_bot(g, rules)
    g.updated_at = utcnow()
    insert_game(db, g)
    write_rows(db, g)
    db.commit()
    return Created(g, token, events)


def load_game(db: Session, game_id: str, token: str | None) -> LiveGame:
    """The game ``game_id`` if ``token`` opens it: 404 for an unknown id, 403 for a wrong token."""
    if not game_id or len(game_id) > 40:
        raise NotFound("no such game")
    row = db.execute(select(GAMES).where(GAMES.c.id == game_id)).mappings().first()
    if row is None:
        raise NotFound("no such game")
    g = LiveGame(**row)
    g._moves, g._turns = [], []
    if not token or not hmac.compare_digest(hash_token(token), g.token_hash):
        raise Forbidden("this game belongs to another player: send its X-Game-Token header")
    return g


def _engine(g: LiveGame, rules: PigRules, seq: int) -> PigGame:
    eng = PigGame(rules, np.random.default_rng([g.seed, seq]), first=g.to_move)
    eng.scores = [g.score0, g.score1]
    eng.turn_total = g.turn_total
    eng.winner = g.winner
    return eng


def _coach_values(rules: PigRules, state: tuple[int, int, int]) -> tuple[float, float] | None:
    try:
        return bots.solution(rules).values(*state)
    except (ImportError, DicelabError):
        return None


def _apply(g: LiveGame, rules: PigRules, action: str, actor: str, think_ms: int | None) -> dict[str, Any]:
    """Apply one action for the mover; record the move (and the turn if it ended)."""
    seq = g.version
    eng = _engine(g, rules, seq)
    mover = g.to_move
    state = eng.state
    vals = _coach_values(rules, state)
    faces: tuple[int, ...] | None = None
    if action == "roll":
        faces = eng.roll()
        result = eng.history[-1]["result"]
    else:
        eng.hold()
        result = "hold"
    g.turn_rolls += 1 if action == "roll" else 0
    p_roll = p_hold = p_lost = None
    optimal = None
    if vals is not None:
        p_roll, p_hold = vals
        best = max(p_roll, p_hold)
        optimal = "roll" if p_roll >= p_hold else "hold"
        p_lost = max(0.0, best - (p_roll if action == "roll" else p_hold))
    g._moves.append(
        dict(
            game_id=g.id,
            seq=seq,
            turn_no=g.turn_no,
            player=mover,
            actor=actor,
            action=action,
            i=state[0],
            j=state[1],
            k=state[2],
            faces=",".join(map(str, faces)) if faces is not None else None,
            result=result,
            optimal_action=optimal,
            p_roll=p_roll,
            p_hold=p_hold,
            p_lost=p_lost,
            think_ms=think_ms,
            created_at=utcnow(),
        )
    )
    turn_over = result in ("hold", "bust", "reset", "win")
    if turn_over:
        score_after = eng.scores[mover]
        g._turns.append(
            dict(
                game_id=g.id,
                turn_no=g.turn_no,
                player=mover,
                actor=actor,
                n_rolls=g.turn_rolls,
                banked=score_after - g.turn_start_score if result != "reset" else 0,
                score_before=g.turn_start_score,
                score_after=score_after,
                opponent_score=eng.scores[1 - mover],
                ended=result,
            )
        )
    g.score0, g.score1 = eng.scores
    g.turn_total = eng.turn_total
    g.to_move = eng.to_move
    g.version = seq + 1
    if turn_over:
        g.turn_no += 1
        g.turn_rolls = 0
        g.turn_start_score = eng.scores[eng.to_move]
    if eng.winner is not None:
        g.winner = eng.winner
        g.status = "finished"
        g.finished_at = utcnow()
    return {
        "seq": seq,
        "player": mover,
        "actor": actor,
        "action": action,
        "state": list(state),
        "faces": list(faces) if faces is not None else None,
        "result": result,
        "scores": [g.score0, g.score1],
        "turn_total": g.turn_total,
        "p_roll": p_roll,
        "p_hold": p_hold,
        "optimal": optimal,
        "p_lost": p_lost,
    }


def _play_bot(g: LiveGame, rules: PigRules) -> list[dict[str, Any]]:
    """Let the bot move while it is the bot's turn and the game is open."""
    events: list[dict[str, Any]] = []
    if g.status != "playing" or g.to_move == g.human_seat:
        return events
    pol = bots.policy(g.opponent, rules)
    for _ in range(MAX_BOT_MOVES):
        if g.status != "playing" or g.to_move == g.human_seat:
            break
        i, j = (g.score0, g.score1) if g.to_move == 0 else (g.score1, g.score0)
        events.append(_apply(g, rules, pol(i, j, g.turn_total), "bot", None))
    return events


def make_move(db: Session, g: LiveGame, action: str, expected_move: int) -> tuple[list[dict[str, Any]], float]:
    """The human's ``action`` at version ``expected_move``, then the bot's reply; commit.

    Returns the events and the seconds the bot's reply took (for the load test's p95).
    """
    check_move(g, expected_move,
               f"the game is over (winner: seat {g.winner}); finished games cannot change")
    if g.to_move != g.human_seat:  # only reachable after a crash mid-reply: let the bot finish
        raise Conflict("it is the bot's turn; reload the game")
    rules = rules_of(g)
    read_version = g.version
    events = [_apply(g, rules, action, "human", thinking_ms(g))]
    t0 = time.perf_counter()
    events += _play_bot(g, rules)
    bot_seconds = time.perf_counter() - t0
    commit_pending(db, g, read_version)
    return events, bot_seconds


def coach_view(g: LiveGame) -> dict[str, Any] | None:
    """Win probabilities of roll and hold for the human at the current state (None when over)."""
    if g.status != "playing" or g.to_move != g.human_seat:
        return None
    rules = rules_of(g)
    i, j = (g.score0, g.score1) if g.human_seat == 0 else (g.score1, g.score0)
    vals = _coach_values(rules, (i, j, g.turn_total))
    if vals is None:
        return None
    p_roll, p_hold = vals
    return {"state": [i, j, g.turn_total], "p_roll": p_roll, "p_hold": p_hold,
            "best": "roll" if p_roll >= p_hold else "hold"}


def summary(db: Session, g: LiveGame) -> dict[str, Any]:
    """Total win probability the human gave away, and the worst decision."""
    human = [m for m in moves_of(db, g) if m.actor == "human" and m.p_lost is not None]
    worst = max(human, key=lambda m: m.p_lost, default=None)
    return {
        "decisions": len(human),
        "optimal_decisions": sum(1 for m in human if m.action == m.optimal_action),
        "total_lost": float(sum(m.p_lost for m in human)),
        "worst": None
        if worst is None or worst.p_lost <= 0
        else {"seq": worst.seq, "state": [worst.i, worst.j, worst.k], "action": worst.action,
              "optimal": worst.optimal_action, "p_lost": worst.p_lost},
    }


def public_state(db: Session, g: LiveGame, with_moves: bool = True) -> dict[str, Any]:
    """What the player may see: never the token or (while playing) the dice seed."""
    out: dict[str, Any] = {
        "id": g.id,
        "game": g.game,
        "rules": {"variant": g.variant, "goal": g.goal, "sides": g.sides},
        "opponent": g.opponent,
        "human_seat": g.human_seat,
        "coach": g.coach,
        "status": g.status,
        "scores": [g.score0, g.score1],
        "turn_total": g.turn_total,
        "to_move": g.to_move,
        "turn_no": g.turn_no,
        "version": g.version,
        "winner": g.winner,
        "study": g.risk_preference is not None,
    }
    if public_seed(g) is not None:
        out["seed"] = public_seed(g)
    if g.coach:
        out["coach_view"] = coach_view(g)
        if g.status == "finished":
            out["summary"] = summary(db, g)
    if with_moves:
        out["moves"] = [
            {"seq": m.seq, "turn_no": m.turn_no, "player": m.player, "actor": m.actor,
             "action": m.action, "state": [m.i, m.j, m.k],
             "faces": [int(x) for x in m.faces.split(",")] if m.faces else None,
             "result": m.result,
             **({"optimal": m.optimal_action, "p_lost": m.p_lost} if g.coach else {})}
            for m in moves_of(db, g)
        ]
    return out
