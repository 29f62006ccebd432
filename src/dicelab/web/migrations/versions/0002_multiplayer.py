"""Multi-player games (simultaneous Pig): player count, score list, shares of the win; room for a
whole turn's dice in a move; turns keyed by (game, turn, player).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as b:
        b.add_column(sa.Column("players", sa.Integer, nullable=False, server_default="2"))
        b.add_column(sa.Column("scores_json", sa.String(200), nullable=True))
        b.add_column(sa.Column("result_json", sa.String(200), nullable=True))
    with op.batch_alter_table("moves") as b:
        b.alter_column("faces", type_=sa.String(400), existing_type=sa.String(16), existing_nullable=True)
    with op.batch_alter_table("turns") as b:
        b.drop_constraint("uq_turns_game_turn", type_="unique")
        b.create_unique_constraint("uq_turns_game_turn_player", ["game_id", "turn_no", "player"])


def downgrade() -> None:
    with op.batch_alter_table("turns") as b:
        b.drop_constraint("uq_turns_game_turn_player", type_="unique")
        b.create_unique_constraint("uq_turns_game_turn", ["game_id", "turn_no"])
    with op.batch_alter_table("moves") as b:
        b.alter_column("faces", type_=sa.String(16), existing_type=sa.String(400), existing_nullable=True)
    with op.batch_alter_table("games") as b:
        b.drop_column("result_json")
        b.drop_column("scores_json")
        b.drop_column("players")
