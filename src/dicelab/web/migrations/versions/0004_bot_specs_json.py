"""The bot specs of a game's bot seats as a JSON list (issue 23, item 1): ``games.opponent`` held
them joined by commas and was split on commas, so a spec with a comma in it (simultaneous Pig's
``pw:25<40,30<60,goal``) came back as several specs and its game could not be played; and its 80
characters could not hold three bots' specs of up to 80 each. The column becomes ``Text`` holding
``json.dumps([spec, ...])``, one spec per bot seat in seat order.

Existing rows are carried over: a joined value that splits into one piece per bot seat is what it
was; one that splits into a multiple of that (every bot seat was given the same spec with commas
in it) is cut into that many equal groups of pieces; anything else keeps its pieces, as before.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def split_joined(joined: str | None, players: int | None) -> list[str]:
    """The bot specs of a row written before this migration (``joined`` with commas)."""
    if not joined:
        return []
    parts = joined.split(",")
    seats = max(1, (players or 2) - 1)
    if len(parts) != seats and len(parts) % seats == 0:
        k = len(parts) // seats
        groups = [",".join(parts[i * k:(i + 1) * k]) for i in range(seats)]
        if len(set(groups)) == 1:  # the same spec at every bot seat
            return groups
    return parts


def upgrade() -> None:
    with op.batch_alter_table("games") as b:
        b.alter_column("opponent", type_=sa.Text, existing_type=sa.String(80), existing_nullable=False)
    conn = op.get_bind()
    games = sa.table("games", sa.column("id"), sa.column("opponent"), sa.column("players"))
    for g in conn.execute(sa.select(games)).fetchall():
        conn.execute(sa.update(games).where(games.c.id == g.id)
                     .values(opponent=json.dumps(split_joined(g.opponent, g.players))))


def downgrade() -> None:
    conn = op.get_bind()
    games = sa.table("games", sa.column("id"), sa.column("opponent"))
    for g in conn.execute(sa.select(games)).fetchall():
        conn.execute(sa.update(games).where(games.c.id == g.id)
                     .values(opponent=",".join(json.loads(g.opponent or "[]"))[:80]))
    with op.batch_alter_table("games") as b:
        b.alter_column("opponent", type_=sa.String(80), existing_type=sa.Text, existing_nullable=False)
