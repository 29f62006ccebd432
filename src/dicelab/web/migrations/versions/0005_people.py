"""Games between people (issue 22): a ``seats`` table with one row per seat a person plays (its
secret token's hash, the bot it is handed to when idle, a secret simultaneous choice waiting for
the others), and on ``games`` the write counter every change bumps (``stamp``: the compare-and-set
key of moves, choices and hand-overs), the creator's idle limit (``idle_s``) and the rematch
(``rematch_id``). Games against bots keep no ``seats`` rows: nothing to carry over.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as b:
        b.add_column(sa.Column("stamp", sa.Integer, nullable=False, server_default="0"))
        b.add_column(sa.Column("idle_s", sa.Integer, nullable=True))
        b.add_column(sa.Column("rematch_id", sa.String(40), nullable=True))
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("bot", sa.String(200), nullable=False),
        sa.Column("joined_at", sa.DateTime, nullable=True),
        sa.Column("handed_at", sa.DateTime, nullable=True),
        sa.Column("pending_json", sa.Text, nullable=True),
        sa.Column("pending_at", sa.DateTime, nullable=True),
        sa.UniqueConstraint("game_id", "seat", name="uq_seats_game_seat"),
    )


def downgrade() -> None:
    op.drop_table("seats")
    with op.batch_alter_table("games") as b:
        b.drop_column("rematch_id")
        b.drop_column("idle_s")
        b.drop_column("stamp")
