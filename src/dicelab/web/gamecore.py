"""What every game of the web lab shares: the tables, the live-game record and the move commit.

A live game is a ``games`` row held as attributes (:data:`LiveGame`). A move is checked against
the game's ``version`` (:func:`check_move`), applied in memory, and committed by
:func:`commit_move` in ONE transaction: a compare-and-set ``UPDATE games ... WHERE id = :id AND
version = :version_read`` plus the new ``moves``/``turns`` rows (``(game_id, seq)`` is unique), so
of two racing requests at most one succeeds and the other is answered 409, on SQLite or PostgreSQL.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Table, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dicelab.core.errors import DicelabError
from dicelab.web.db import Game, Move, Turn, utcnow

GAMES = Game.__table__
MOVES = Move.__table__
TURNS = Turn.__table__
LiveGame = SimpleNamespace  # a games row as attributes, plus the pending move and turn rows
FIXED_COLUMNS = ("id", "token_hash", "seed", "created_at")  # set at creation, never by a move
STALE = "stale move: the game changed meanwhile; reload the game"


class Conflict(DicelabError):
    """The move does not fit the game's current position (stale or finished): HTTP 409."""


class NotFound(DicelabError):
    """No game with this id, or the token does not open it: HTTP 404."""


class Forbidden(DicelabError):
    """The game exists but the token is wrong (or the researcher key is): HTTP 403."""


class Unauthorized(DicelabError):
    """A researcher-only address was asked without the researcher key: HTTP 401."""


@dataclass
class Created:
    game: LiveGame
    token: str
    events: list[dict[str, Any]]


def public_seed(g: LiveGame) -> int | None:
    """The game's secret dice seed, for every reader, once the game is over; None while it is live
    (the seed would tell every hidden hand and every future die)."""
    return g.seed if g.status == "finished" else None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def importable(module: str) -> bool:
    """True when ``module`` imports (a game's page is offered only when its engine does)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def insert_game(db: Session, g: LiveGame) -> None:
    """INSERT the new game ``g`` (every column of ``games``); the caller commits."""
    db.execute(insert(GAMES).values(**{c.name: getattr(g, c.name) for c in GAMES.columns}))


def write_rows(db: Session, g: LiveGame) -> None:
    """INSERT the pending ``g._moves`` and ``g._turns`` rows and clear them; the caller commits."""
    if g._moves:
        db.execute(insert(MOVES), g._moves)
    if g._turns:
        db.execute(insert(TURNS), g._turns)
    g._moves, g._turns = [], []


def moves_of(db: Session, g: LiveGame) -> list[Move]:
    """The game's ``moves`` rows, in order."""
    return list(db.scalars(select(Move).where(Move.game_id == g.id).order_by(Move.seq)))


def move_values(g: LiveGame) -> dict[str, Any]:
    """The columns of ``g`` a move may change: all but :data:`FIXED_COLUMNS`."""
    return {c.name: getattr(g, c.name) for c in GAMES.columns if c.name not in FIXED_COLUMNS}


def thinking_ms(g: LiveGame) -> int:
    """Milliseconds since the game last changed: how long the human thought about this move."""
    return max(0, int((utcnow() - g.updated_at).total_seconds() * 1000))


def check_move(g: LiveGame, expected_move: int,
               finished: str = "the game is over; finished games cannot change") -> None:
    """409 (:class:`Conflict`) unless ``g`` is still playing and at version ``expected_move``."""
    if g.status != "playing":
        raise Conflict(finished)
    if expected_move != g.version:
        raise Conflict(f"stale move: expected_move is {expected_move} but the game is at move "
                       f"{g.version}; reload the game")


def commit_move(db: Session, game_id: str, read_version: int, values: dict[str, Any],
                rows: Iterable[tuple[Table, list[dict[str, Any]]]]) -> None:
    """Set ``values`` on game ``game_id`` if it is still at ``read_version``, insert ``rows``
    (``(table, rows)`` pairs; empty lists are skipped) and commit; otherwise roll back and raise
    :class:`Conflict`."""
    try:
        res = db.execute(update(GAMES).where(GAMES.c.id == game_id, GAMES.c.version == read_version)
                         .values(**values))
        if res.rowcount != 1:
            raise Conflict(STALE)
        for table, new in rows:
            if new:
                db.execute(insert(table), new)
        db.commit()
    except IntegrityError as exc:  # a concurrent move on the same game won
        db.rollback()
        raise Conflict(STALE) from exc
    except Conflict:
        db.rollback()
        raise


def commit_pending(db: Session, g: LiveGame, read_version: int) -> None:
    """Stamp ``g.updated_at`` and :func:`commit_move` the game's changed columns and its pending
    ``g._moves``/``g._turns`` rows (cleared once committed)."""
    g.updated_at = utcnow()
    commit_move(db, g.id, read_version, move_values(g), [(MOVES, g._moves), (TURNS, g._turns)])
    g._moves, g._turns = [], []
