"""Simultaneous Pig in the web lab (seed 000): you and 1 to 3 bots pick hold-at targets at once.

At the start of every turn each player picks a target ``k`` (1 <= k <= goal - own score) without
seeing the others' choice; the server then rolls every player's die until their turn total
reaches ``k`` or a 1 comes up, banks all turn totals together, and ends the game when someone
reaches the goal (players there share the win equally). The human's target is checked on the
server; the bots draw theirs from their (possibly mixed) strategy with the game's secret seed.

Bots (:mod:`dicelab.simpig.specs`): ``br:hold:25`` (the exact best response to hold at 25),
``svima`` (Stackelberg value iteration, Algorithm 0.2), ``equilibrium`` (the exact mixed
equilibrium), ``hold:N`` and the paper's piecewise rule ``pw:25<40,30<60,goal``. The first three
are two-player tables; with three or four players they answer to the *leading* opponent's score.

Coach (two players): for every legal target ``k`` the exact value of playing ``k`` now and then
the best response to the bot afterwards,
``Q(k) = sum_x sum_y P(X_k = x) P(Y = y) V*(i + x, j + y)``, where ``Y`` is the bot's turn total
under its mixed choice and ``V*`` the best response's value table (its all-bust self-loop term is
``V*(i, j)`` itself); the target the human picked gave away ``max_k Q(k) - Q(k_picked)``.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core.errors import require
from dicelab.web.db import Move, utcnow
from dicelab.web.gamecore import (
    MOVES,
    TURNS,
    Created,
    LiveGame,
    check_move,
    commit_move,
    hash_token,
    importable,
    insert_game,
    moves_of,
    public_seed,
    thinking_ms,
)
from dicelab.web.limits import bounded_cache

WEB_MAX_GOAL = 100
BOTS = [
    {"spec": "br:hold:25", "label": "Best response to hold at 25", "two_player": True},
    {"spec": "svima", "label": "SVIMA (Stackelberg value iteration)", "two_player": True},
    {"spec": "equilibrium", "label": "Exact mixed equilibrium", "two_player": True},
    {"spec": "hold:25", "label": "Hold at 25", "two_player": False},
    {"spec": "pw:25<40,30<60,goal", "label": "Piecewise 25/30/goal (the paper's example)", "two_player": False},
]
_SPEC = re.compile(r"^(br:)?(hold:(\d{1,3}|goal)|pw:[0-9a-z<,]{1,60}|equilibrium|optimal|svima|svima-b)$")
_strategies = bounded_cache("simpig strategies", 32)
_br = bounded_cache("simpig best responses", 64)


def available() -> bool:
    return importable("dicelab.simpig")


def check_spec(spec: str, goal: int, players: int) -> str:
    """A bot spec the web accepts (never ``table:PATH``: no file reads on a client's behalf)."""
    s = spec.strip().lower()
    require(_SPEC.match(s) is not None,
            f"unknown simultaneous-Pig bot {spec!r}; allowed: br:hold:N, svima, equilibrium, hold:N, pw:K<T,...,K")
    strat = strategy(s, goal)
    require(not (strat.two_player_only and players > 2) or s in {b["spec"] for b in BOTS},
            f"bot {spec!r} is a two-player table")
    return s


def strategy(spec: str, goal: int) -> Any:
    from dicelab.simpig import parse_strategy

    return _strategies.get_or_build((spec, goal), lambda: parse_strategy(spec, goal, 2))


def best_response(spec: str, goal: int) -> Any:
    """The exact two-player best response to the bot ``spec`` (the coach's value table)."""
    from dicelab.simpig import best_response as solve_br

    return _br.get_or_build((spec, goal), lambda: solve_br([strategy(spec, goal)], goal))


def prepare(specs: list[str], goal: int, players: int) -> None:
    for s in specs:
        strategy(s, goal)
    if players == 2:
        best_response(specs[0], goal)


def is_ready(specs: list[str], goal: int, players: int) -> bool:
    return all((s, goal) in _strategies for s in specs) and (players != 2 or (specs[0], goal) in _br)


def _mixture(spec: str, goal: int, own: int, others: list[int]) -> list[tuple[float, int]]:
    lead = max(others)
    comps = strategy(spec, goal).mixture(np.array([own]), [np.array([lead])])
    out = [(float(np.asarray(w).ravel()[0]), int(np.asarray(k).ravel()[0])) for w, k in comps]
    return [(w, k) for w, k in out if w > 0]


def _turn_dist(k: int, goal: int) -> list[tuple[int, float]]:
    from dicelab.simpig.rules import turn_total_table

    p0, pk = turn_total_table(goal)
    return [(0, float(p0[k]))] + [(k + r, float(pk[k, r])) for r in range(6) if pk[k, r] > 0]


def coach_values(spec: str, goal: int, i: int, j: int) -> dict[str, Any]:
    """Q(k) for every legal target at (i, j) against bot ``spec`` (two players), best first."""
    br = best_response(spec, goal)
    v = br.value
    opp: dict[int, float] = {}
    for w, kb in _mixture(spec, goal, j, [i]):
        for y, p in _turn_dist(kb, goal):
            opp[y] = opp.get(y, 0.0) + w * p
    q = []
    for k in range(1, goal - i + 1):
        total = 0.0
        for x, px in _turn_dist(k, goal):
            a = min(i + x, goal)
            for y, py in opp.items():
                total += px * py * v[a, min(j + y, goal)]
        q.append(total)
    best = int(np.argmax(q)) + 1
    return {"state": [i, j], "q": q, "best": best, "p_best": q[best - 1], "p_now": float(v[i, j])}


def _roll(k: int, rng: np.random.Generator) -> list[int]:
    faces = []
    total = 0
    while total < k:
        f = int(rng.integers(1, 7))
        faces.append(f)
        if f == 1:
            return faces
        total += f
    return faces


def create_game(db: Session, *, goal: int, players: int, opponents: list[str], coach: bool,
                questionnaire: dict[str, Any] | None) -> Created:
    require(2 <= goal <= WEB_MAX_GOAL, f"the web lab plays goals from 2 to {WEB_MAX_GOAL}, got {goal}")
    require(2 <= players <= 4, f"simultaneous Pig in the web lab takes 2 to 4 players, got {players}")
    if len(opponents) == 1:
        opponents = opponents * (players - 1)
    require(len(opponents) == players - 1, f"give one bot, or one per bot seat ({players - 1}), got {len(opponents)}")
    specs = [check_spec(s, goal, players) for s in opponents]
    token = secrets.token_urlsafe(24)
    q = questionnaire or {}
    now = utcnow()
    g = LiveGame(
        id=secrets.token_urlsafe(16), token_hash=hash_token(token), game="simpig", variant="simultaneous",
        goal=goal, sides=6, opponent=",".join(specs), human_seat=0, coach=bool(coach) and players == 2,
        seed=secrets.randbits(62), status="playing", score0=0, score1=0, turn_total=0, turn_rolls=0,
        turn_start_score=0, to_move=0, turn_no=1, version=0, winner=None,
        participant=q.get("participant") or None, risk_preference=q.get("risk_preference"),
        q2=q.get("q2"), q3=q.get("q3"), created_at=now, updated_at=now, finished_at=None,
        players=players, scores_json=json.dumps([0] * players), result_json=None,
    )
    insert_game(db, g)
    db.commit()
    return Created(g, token, [])


def scores(g: Any) -> list[int]:
    return json.loads(g.scores_json)


def make_move(db: Session, g: LiveGame, k: int | None, expected_move: int) -> tuple[list[dict[str, Any]], float]:
    """The human's target ``k`` for this turn; the bots pick theirs; everybody rolls; commit."""
    check_move(g, expected_move)
    sc = scores(g)
    require(isinstance(k, int) and 1 <= k <= g.goal - sc[0],
            f"the target k must be a whole number from 1 to {g.goal - sc[0]} (goal {g.goal}, your score {sc[0]}), got {k}")
    specs = g.opponent.split(",")
    rng = np.random.default_rng([g.seed, g.version])
    t0 = time.perf_counter()
    targets = [k]
    for seat, spec in enumerate(specs, start=1):
        comps = _mixture(spec, g.goal, sc[seat], [s for n, s in enumerate(sc) if n != seat])
        ws = np.array([w for w, _ in comps])
        pick = int(rng.choice(len(comps), p=ws / ws.sum())) if len(comps) > 1 else 0
        targets.append(comps[pick][1])
    bot_seconds = time.perf_counter() - t0
    coach = coach_values(specs[0], g.goal, sc[0], sc[1]) if g.players == 2 else None
    rolls = [_roll(t, rng) for t in targets]
    totals = [0 if r[-1] == 1 else sum(r) for r in rolls]
    new = [s + t for s, t in zip(sc, totals, strict=True)]
    from dicelab.simpig.rules import SimPigRules

    result = SimPigRules(goal=g.goal, players=g.players).payoff(new)
    events, move_rows, turn_rows = [], [], []
    seq = g.version
    for seat in range(g.players):
        lead = max(s for n, s in enumerate(sc) if n != seat)
        outcome = "bust" if totals[seat] == 0 else ("win" if new[seat] >= g.goal else "hold")
        p_lost = p_best = p_chosen = None
        if seat == 0 and coach is not None:
            p_best = coach["p_best"]
            p_chosen = coach["q"][k - 1]
            p_lost = max(0.0, p_best - p_chosen)
        move_rows.append(dict(
            game_id=g.id, seq=seq, turn_no=g.turn_no, player=seat, actor="human" if seat == 0 else "bot",
            action="target", i=sc[seat], j=lead, k=targets[seat], faces=",".join(map(str, rolls[seat]))[:400],
            result=outcome, optimal_action=str(coach["best"]) if seat == 0 and coach else None,
            p_roll=p_chosen, p_hold=p_best, p_lost=p_lost,
            think_ms=thinking_ms(g) if seat == 0 else None,
            created_at=utcnow()))
        turn_rows.append(dict(
            game_id=g.id, turn_no=g.turn_no, player=seat, actor="human" if seat == 0 else "bot",
            n_rolls=len(rolls[seat]), banked=totals[seat], score_before=sc[seat], score_after=new[seat],
            opponent_score=lead, ended=outcome))
        events.append({"seq": seq, "player": seat, "actor": move_rows[-1]["actor"], "target": targets[seat],
                       "faces": rolls[seat], "turn_total": totals[seat], "score": new[seat], "result": outcome,
                       "p_lost": p_lost, "best": coach["best"] if seat == 0 and coach else None})
        seq += 1
    values: dict[str, Any] = {"scores_json": json.dumps(new), "score0": new[0], "score1": new[1],
                              "version": seq, "turn_no": g.turn_no + 1, "updated_at": utcnow()}
    if result is not None:
        values.update(status="finished", result_json=json.dumps(result), finished_at=utcnow(),
                      winner=0 if result[0] > 0 else int(np.argmax(result)))
    commit_move(db, g.id, g.version, values, [(MOVES, move_rows), (TURNS, turn_rows)])
    for key, val in values.items():
        setattr(g, key, val)
    return events, bot_seconds


def summary(db: Session, g: Any) -> dict[str, Any]:
    human = list(db.scalars(select(Move).where(Move.game_id == g.id, Move.actor == "human").order_by(Move.seq)))
    rated = [m for m in human if m.p_lost is not None]
    worst = max(rated, key=lambda m: m.p_lost, default=None)
    return {"decisions": len(human), "optimal_decisions": sum(1 for m in rated if m.p_lost <= 1e-12),
            "total_lost": float(sum(m.p_lost for m in rated)),
            "worst": None if worst is None or worst.p_lost <= 0 else
            {"seq": worst.seq, "state": [worst.i, worst.j], "target": worst.k, "best": worst.optimal_action,
             "p_lost": worst.p_lost}}


def public_state(db: Session, g: Any, with_moves: bool = True) -> dict[str, Any]:
    sc = scores(g)
    out: dict[str, Any] = {
        "id": g.id, "game": "simpig", "rules": {"goal": g.goal, "players": g.players},
        "opponents": g.opponent.split(","), "human_seat": 0, "coach": g.coach, "status": g.status,
        "scores": sc, "turn_no": g.turn_no, "version": g.version, "result": json.loads(g.result_json) if g.result_json else None,
        "targets": [1, g.goal - sc[0]] if g.status == "playing" else None,
    }
    if public_seed(g) is not None:
        out["seed"] = public_seed(g)
    if g.coach and g.status == "playing":
        c = coach_values(g.opponent.split(",")[0], g.goal, sc[0], sc[1])
        out["coach_view"] = {"best": c["best"], "p_best": c["p_best"], "q": c["q"]}
    if g.coach and g.status == "finished":
        out["summary"] = summary(db, g)
    if with_moves:
        out["moves"] = [{"seq": m.seq, "turn_no": m.turn_no, "player": m.player, "target": m.k,
                         "faces": [int(x) for x in m.faces.split(",")] if m.faces else [], "result": m.result}
                        for m in moves_of(db, g)]
    return out

