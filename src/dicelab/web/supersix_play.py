"""Super Six in the web lab (seed 001): you against a bot, every die thrown on the server.

Every player starts with S sticks. Round 1: each player throws once. After that a turn starts with
a forced throw; after any throw that does not end the turn the mover may throw again or stop. A 6
puts one of the thrower's sticks into the hole; 1-5 on an empty pit puts a stick into it; 1-5 on a
filled pit takes that stick back and ends the turn. The first player with no sticks wins.

The live position is the five pits, both stick counts, the mover and the phase (``opening``: round
1; ``forced``: the first throw of a turn; ``free``: throw or stop), kept as JSON in the game row.
Moves are ``throw`` or ``stop``; a stop is only legal in the ``free`` phase.

The coach reads the exact two-player solution (:mod:`dicelab.supersix.solver`):
``values(lid, own, opp) = (P(win | throw), P(win | stop))`` at every free position, and the
probability a decision gave away. In the ``moves`` table a Super Six move stores seed 001's
position ``i/j/k`` = (sticks in the lid, mover's sticks, opponent's sticks) in columns i, j, k.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core.errors import require
from dicelab.web.db import Move, utcnow
from dicelab.web.gamecore import (
    Conflict,
    Created,
    LiveGame,
    check_move,
    commit_pending,
    hash_token,
    importable,
    insert_game,
    moves_of,
    thinking_ms,
    write_rows,
)
from dicelab.web.limits import bounded_cache

MAX_STICKS = 30
BOTS = [{"spec": "optimal", "label": "Optimal (exact)"}, {"spec": "always", "label": "Always throw"},
        {"spec": "stop-at:3", "label": "Stop once 3 pits are filled"}]
_solutions = bounded_cache("supersix solutions", 16)


def available() -> bool:
    return importable("dicelab.supersix")


def check_spec(spec: str) -> str:
    s = spec.strip().lower()
    require(re.fullmatch(r"optimal|always|stop-at:[1-5]", s) is not None,
            f"unknown Super Six bot {spec!r}; allowed: optimal, always, stop-at:N (N = 1..5)")
    return s


def solution(sticks: int) -> Any:
    from dicelab import supersix

    return _solutions.get_or_build(sticks, lambda: supersix.solve(supersix.SuperSixRules(sticks=sticks)))


def is_ready(sticks: int) -> bool:
    return sticks in _solutions


def _bot_throws(spec: str, sticks: int, lid: int, own: int, opp: int) -> bool:
    if spec == "optimal":
        return solution(sticks).action(lid, own, opp) == "throw"
    if spec == "always":
        return True
    return lid < int(spec.split(":")[1])


def _pos(g: Any) -> dict[str, Any]:
    return json.loads(g.scores_json)


def create_game(db: Session, *, sticks: int, opponent: str, human_first: bool | None, coach: bool,
                questionnaire: dict[str, Any] | None) -> Created:
    require(1 <= sticks <= MAX_STICKS, f"the web lab plays 1 to {MAX_STICKS} sticks each, got {sticks}")
    spec = check_spec(opponent)
    if human_first is None:
        human_first = secrets.randbelow(2) == 0
    token = secrets.token_urlsafe(24)
    q = questionnaire or {}
    now = utcnow()
    pos = {"pits": [False] * 5, "counts": [sticks, sticks], "phase": "opening"}
    g = LiveGame(
        id=secrets.token_urlsafe(16), token_hash=hash_token(token), game="supersix", variant="supersix",
        goal=sticks, sides=6, opponent=spec, human_seat=0 if human_first else 1, coach=bool(coach),
        seed=secrets.randbits(62), status="playing", score0=sticks, score1=sticks, turn_total=0, turn_rolls=0,
        turn_start_score=sticks, to_move=0, turn_no=1, version=0, winner=None,
        participant=q.get("participant") or None, risk_preference=q.get("risk_preference"), q2=q.get("q2"),
        q3=q.get("q3"), created_at=now, updated_at=now, finished_at=None, players=2,
        scores_json=json.dumps(pos), result_json=None)
    g._moves, g._turns = [], []
    events = _play_bot(g)
    insert_game(db, g)
    write_rows(db, g)
    db.commit()
    return Created(g, token, events)


def _apply(g: LiveGame, action: str, actor: str, think_ms: int | None) -> dict[str, Any]:
    pos = _pos(g)
    pits, counts, phase = pos["pits"], pos["counts"], pos["phase"]
    m = g.to_move
    lid, own, opp = sum(pits), counts[m], counts[1 - m]
    require(action in ("throw", "stop"), f"in Super Six a move is throw or stop, got {action!r}")
    if action == "stop":
        require(phase == "free", "this throw is forced (round 1, or the first throw of a turn): you must throw")
    vals = None
    if phase == "free":
        vals = solution(g.goal).values(lid, own, opp)
    seq = g.version
    die = None
    turn_over = False
    if action == "throw":
        die = int(np.random.default_rng([g.seed, seq]).integers(1, 7))
        if die == 6:
            counts[m] -= 1
            result = "six"
        elif not pits[die - 1]:
            pits[die - 1] = True
            counts[m] -= 1
            result = "pit"
        else:
            pits[die - 1] = False
            counts[m] += 1
            result = "hit"
            turn_over = True
        g.turn_rolls += 1
        if counts[m] == 0:
            result = "win"
    else:
        result = "stop"
        turn_over = True
    p_roll = p_hold = p_lost = None
    optimal = None
    if vals is not None:
        p_roll, p_hold = vals
        optimal = "throw" if p_roll >= p_hold else "stop"
        p_lost = max(0.0, max(vals) - (p_roll if action == "throw" else p_hold))
    g._moves.append(dict(
        game_id=g.id, seq=seq, turn_no=g.turn_no, player=m, actor=actor, action=action, i=lid, j=own, k=opp,
        faces=str(die) if die is not None else None, result=result, optimal_action=optimal, p_roll=p_roll,
        p_hold=p_hold, p_lost=p_lost, think_ms=think_ms, created_at=utcnow()))
    if phase == "opening":
        turn_over = True
    if result == "win" or turn_over:
        g._turns.append(dict(
            game_id=g.id, turn_no=g.turn_no, player=m, actor=actor, n_rolls=g.turn_rolls,
            banked=g.turn_start_score - counts[m], score_before=g.turn_start_score, score_after=counts[m],
            opponent_score=counts[1 - m], ended=result))
    if result == "win":
        g.status, g.winner, g.finished_at = "finished", m, utcnow()
    elif turn_over:
        if phase == "opening" and m == 1:
            nxt, phase = 0, "forced"
        elif phase == "opening":
            nxt = 1
        else:
            nxt, phase = 1 - m, "forced"
        g.to_move, g.turn_no, g.turn_rolls = nxt, g.turn_no + 1, 0
        g.turn_start_score = counts[nxt]
    else:
        phase = "free"
    g.scores_json = json.dumps({"pits": pits, "counts": counts, "phase": phase})
    g.score0, g.score1 = counts
    g.version = seq + 1
    return {"seq": seq, "player": m, "actor": actor, "action": action, "die": die, "result": result,
            "pits": pits, "counts": counts, "phase": phase, "p_throw": p_roll, "p_stop": p_hold,
            "optimal": optimal, "p_lost": p_lost}


def _play_bot(g: LiveGame) -> list[dict[str, Any]]:
    events = []
    for _ in range(10_000):
        if g.status != "playing" or g.to_move == g.human_seat:
            break
        pos = _pos(g)
        m = g.to_move
        if pos["phase"] == "free":
            action = "throw" if _bot_throws(g.opponent, g.goal, sum(pos["pits"]), pos["counts"][m],
                                            pos["counts"][1 - m]) else "stop"
        else:
            action = "throw"
        events.append(_apply(g, action, "bot", None))
    return events


def make_move(db: Session, g: LiveGame, action: str, expected_move: int) -> tuple[list[dict[str, Any]], float]:
    import time

    check_move(g, expected_move)
    if g.to_move != g.human_seat:
        raise Conflict("it is the bot's turn; reload the game")
    read_version = g.version
    events = [_apply(g, action, "human", thinking_ms(g))]
    t0 = time.perf_counter()
    events += _play_bot(g)
    bot_seconds = time.perf_counter() - t0
    commit_pending(db, g, read_version)
    return events, bot_seconds


def coach_view(g: Any) -> dict[str, Any] | None:
    pos = _pos(g)
    if g.status != "playing" or g.to_move != g.human_seat or pos["phase"] != "free":
        return None
    m = g.human_seat
    lid, own, opp = sum(pos["pits"]), pos["counts"][m], pos["counts"][1 - m]
    p_throw, p_stop = solution(g.goal).values(lid, own, opp)
    return {"state": [lid, own, opp], "p_throw": p_throw, "p_stop": p_stop,
            "best": "throw" if p_throw >= p_stop else "stop"}


def summary(db: Session, g: Any) -> dict[str, Any]:
    rated = [m for m in db.scalars(select(Move).where(Move.game_id == g.id, Move.actor == "human").order_by(Move.seq))
             if m.p_lost is not None]
    worst = max(rated, key=lambda m: m.p_lost, default=None)
    return {"decisions": len(rated), "optimal_decisions": sum(1 for m in rated if m.action == m.optimal_action),
            "total_lost": float(sum(m.p_lost for m in rated)),
            "worst": None if worst is None or worst.p_lost <= 0 else
            {"seq": worst.seq, "state": [worst.i, worst.j, worst.k], "action": worst.action,
             "optimal": worst.optimal_action, "p_lost": worst.p_lost}}


def public_state(db: Session, g: Any, with_moves: bool = True) -> dict[str, Any]:
    pos = _pos(g)
    out: dict[str, Any] = {
        "id": g.id, "game": "supersix", "rules": {"sticks": g.goal, "players": 2}, "opponent": g.opponent,
        "human_seat": g.human_seat, "coach": g.coach, "status": g.status, "pits": pos["pits"],
        "counts": pos["counts"], "phase": pos["phase"], "to_move": g.to_move, "version": g.version,
        "winner": g.winner, "turn_no": g.turn_no,
    }
    if g.status == "finished":
        out["seed"] = g.seed
    if g.coach:
        out["coach_view"] = coach_view(g)
        if g.status == "finished":
            out["summary"] = summary(db, g)
    if with_moves:
        out["moves"] = [{"seq": m.seq, "player": m.player, "actor": m.actor, "action": m.action,
                         "die": int(m.faces) if m.faces else None, "result": m.result}
                        for m in moves_of(db, g)]
    return out
