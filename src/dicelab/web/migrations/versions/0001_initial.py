"""Initial web lab schema: games, moves, turns.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("goal", sa.Integer, nullable=False),
        sa.Column("sides", sa.Integer, nullable=False),
        sa.Column("opponent", sa.String(80), nullable=False),
        sa.Column("human_seat", sa.Integer, nullable=False),
        sa.Column("coach", sa.Boolean, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("score0", sa.Integer, nullable=False),
        sa.Column("score1", sa.Integer, nullable=False),
        sa.Column("turn_total", sa.Integer, nullable=False),
        sa.Column("turn_rolls", sa.Integer, nullable=False),
        sa.Column("turn_start_score", sa.Integer, nullable=False),
        sa.Column("to_move", sa.Integer, nullable=False),
        sa.Column("turn_no", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("participant", sa.String(80), nullable=True),
        sa.Column("risk_preference", sa.String(16), nullable=True),
        sa.Column("q2", sa.String(1), nullable=True),
        sa.Column("q3", sa.String(1), nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("finished_at", sa.DateTime, nullable=True),
    )
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("turn_no", sa.Integer, nullable=False),
        sa.Column("player", sa.Integer, nullable=False),
        sa.Column("actor", sa.String(8), nullable=False),
        sa.Column("action", sa.String(8), nullable=False),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("k", sa.Integer, nullable=False),
        sa.Column("faces", sa.String(16), nullable=True),
        sa.Column("result", sa.String(8), nullable=False),
        sa.Column("optimal_action", sa.String(8), nullable=True),
        sa.Column("p_roll", sa.Float, nullable=True),
        sa.Column("p_hold", sa.Float, nullable=True),
        sa.Column("p_lost", sa.Float, nullable=True),
        sa.Column("think_ms", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_moves_game_seq"),
    )
    op.create_index("ix_moves_game_id", "moves", ["game_id"])
    op.create_table(
        "turns",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("turn_no", sa.Integer, nullable=False),
        sa.Column("player", sa.Integer, nullable=False),
        sa.Column("actor", sa.String(8), nullable=False),
        sa.Column("n_rolls", sa.Integer, nullable=False),
        sa.Column("banked", sa.Integer, nullable=False),
        sa.Column("score_before", sa.Integer, nullable=False),
        sa.Column("score_after", sa.Integer, nullable=False),
        sa.Column("opponent_score", sa.Integer, nullable=False),
        sa.Column("ended", sa.String(8), nullable=False),
        sa.UniqueConstraint("game_id", "turn_no", name="uq_turns_game_turn"),
    )
    op.create_index("ix_turns_game_id", "turns", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_turns_game_id", "turns")
    op.drop_table("turns")
    op.drop_index("ix_moves_game_id", "moves")
    op.drop_table("moves")
    op.drop_table("games")
