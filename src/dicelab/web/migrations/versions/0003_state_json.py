"""Game state as JSON per game (issue 12): ``games.state_json`` (the game's own JSON form: rules,
seed and actions) and ``games.rules_json`` (the rule parameters); ``moves.action_json`` and
``moves.events_json`` (the action and the public events it caused); the Pig-shaped columns become
optional. Existing rows are carried over:

* every game gets its rule parameters from the old columns (Pig: variant/goal/sides; simultaneous
  Pig: goal/players; Super Six: sticks in ``goal``; Liar's Dice: dice in ``goal``, faces in
  ``sides``, the wild option in ``variant``), and every move its action as JSON;
* a Liar's Dice game's dice were dealt from its seed by the same engine the state interface uses,
  so its state is its seed and its actions (from ``moves``): live games go on exactly;
* the other games drew each move's dice from ``default_rng([seed, move])``, which the state
  interface (one generator per game) cannot replay: their state keeps the last position as it was
  shown (``{"legacy": ...}``), finished games stay finished and games still being played are
  closed (status ``closed``: readable, kept for the study, no more moves).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

NULLABLE_GAMES = ("variant", "goal", "sides", "score0", "score1", "turn_total", "turn_rolls", "turn_start_score",
                  "to_move", "turn_no")
NULLABLE_MOVES = ("i", "j", "k")


def _pig(g: Any) -> tuple[dict, dict]:
    return ({"variant": g.variant, "goal": g.goal, "sides": g.sides},
            {"scores": [g.score0, g.score1], "turn_total": g.turn_total, "goal": g.goal})


def _simpig(g: Any) -> tuple[dict, dict]:
    scores = json.loads(g.scores_json) if g.scores_json else [g.score0, g.score1]
    return {"goal": g.goal, "players": g.players}, {"scores": scores, "goal": g.goal}


def _supersix(g: Any) -> tuple[dict, dict]:
    pos = json.loads(g.scores_json) if g.scores_json else {}
    return ({"sticks": g.goal, "players": 2},
            {"pits": pos.get("pits"), "counts": pos.get("counts"), "lid": sum(pos.get("pits") or []),
             "forced": pos.get("phase") != "free"})


def _liars(g: Any) -> tuple[dict, dict]:
    return {"players": g.players, "dice": g.goal, "faces": g.sides, "wild": g.variant}, {}


# the old layout of each game's row: (rule parameters, last position shown)
OLD_LAYOUT: dict[str, Callable[[Any], tuple[dict, dict]]] = {
    "pig": _pig, "simpig": _simpig, "supersix": _supersix, "liars": _liars}
REPLAYABLE = {"liars"}  # dealt from the seed by the engine the state interface drives


def _action(m: Any) -> Any:
    """A move row's action as the state interface spells it."""
    actions: dict[str, Callable[[Any], Any]] = {
        "bid": lambda r: {"bid": [r.i, r.j]}, "target": lambda r: {"target": r.k}}
    return actions.get(m.action, lambda r: r.action)(m)


def upgrade() -> None:
    # SQLite rebuilds ``games`` here (to make the Pig-shaped columns optional) while ``moves`` and
    # ``turns`` point at it: :func:`dicelab.web.db.migrate` runs migrations with foreign keys off
    # and checks them all before the commit (SQLite's own procedure for schema changes). On
    # PostgreSQL the batch is plain ALTER TABLE in place: foreign keys stay on and hold, and the
    # whole migration is one transaction (tested in tests/web/test_web_migration.py)
    with op.batch_alter_table("games") as b:
        b.add_column(sa.Column("rules_json", sa.Text, nullable=True))
        b.add_column(sa.Column("state_json", sa.Text, nullable=True))
        for name in NULLABLE_GAMES:
            b.alter_column(name, existing_type=sa.String(16) if name == "variant" else sa.Integer, nullable=True)
    with op.batch_alter_table("moves") as b:
        b.add_column(sa.Column("action_json", sa.Text, nullable=True))
        b.add_column(sa.Column("events_json", sa.Text, nullable=True))
        b.alter_column("optimal_action", type_=sa.String(200), existing_type=sa.String(8), existing_nullable=True)
        b.alter_column("result", type_=sa.String(16), existing_type=sa.String(8), existing_nullable=False)
        for name in NULLABLE_MOVES:
            b.alter_column(name, existing_type=sa.Integer, nullable=True)
    conn = op.get_bind()
    games = sa.table("games", *(sa.column(c) for c in (
        "id", "game", "variant", "goal", "sides", "players", "seed", "status", "score0", "score1", "turn_total",
        "scores_json", "rules_json", "state_json")))
    moves = sa.table("moves", *(sa.column(c) for c in ("id", "game_id", "seq", "player", "action", "i", "j", "k",
                                                         "action_json", "faces")))
    for g in conn.execute(sa.select(games)).fetchall():
        layout = OLD_LAYOUT.get(g.game)
        if layout is None:
            continue
        rules, shown = layout(g)
        rows = conn.execute(sa.select(moves).where(moves.c.game_id == g.id).order_by(moves.c.seq)).fetchall()
        for m in rows:
            values: dict[str, Any] = {"action_json": json.dumps(_action(m))}
            if g.game in REPLAYABLE:  # the mover's hand and numbers from it: derivable from seed and actions
                values.update(faces=None)
            conn.execute(sa.update(moves).where(moves.c.id == m.id).values(**values))
        if g.game in REPLAYABLE:
            state = {"game": g.game, "rules": rules, "seed": g.seed, "history": [_action(m) for m in rows]}
            status = g.status
        else:
            state = {"game": g.game, "legacy": shown}
            status = g.status if g.status == "finished" else "closed"
        conn.execute(sa.update(games).where(games.c.id == g.id)
                     .values(rules_json=json.dumps(rules), state_json=json.dumps(state), status=status))


def downgrade() -> None:
    with op.batch_alter_table("moves") as b:
        b.drop_column("events_json")
        b.drop_column("action_json")
    with op.batch_alter_table("games") as b:
        b.drop_column("state_json")
        b.drop_column("rules_json")
