"""The web lab's move commit, token hashing and answer-code exceptions.

A live game is a ``games`` row held as attributes (:data:`LiveGame`). A move is checked against
the game's ``version`` (:mod:`dicelab.web.service`), applied in memory, and committed by
:func:`commit_move` in ONE transaction: a compare-and-set ``UPDATE games ... WHERE id = :id AND
version = :version_read AND stamp = :stamp_read`` plus the new ``moves``/``turns`` rows and seat
changes (``(game_id, seq)`` is unique), so of two racing requests at most one succeeds and the
other is answered 409, on SQLite or PostgreSQL. ``stamp`` counts every write to a game, also those
that make no move (a person's secret simultaneous choice, an idle seat handed to a bot, see
:mod:`dicelab.web.people`); a write that lost only to such a change raises :class:`Stale` and may
be tried again on the fresh row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Table, bindparam, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dicelab.core.errors import DicelabError
from dicelab.web.db import Game, Move, Seat, Turn, utcnow

GAMES = Game.__table__
MOVES = Move.__table__
TURNS = Turn.__table__
SEATS = Seat.__table__
LiveGame = SimpleNamespace  # a games row as attributes
STALE = "stale move: the game changed meanwhile; reload the game"


class Conflict(DicelabError):
    """The move does not fit the game's current position (stale or finished): HTTP 409."""


class Stale(Conflict):
    """The game changed between the read and the compare-and-set: 409, or read again and retry."""


class NotFound(DicelabError):
    """No game with this id, or the token does not open it: HTTP 404."""


class Forbidden(DicelabError):
    """The game exists but the token is wrong (or the researcher key is): HTTP 403."""


class Unauthorized(DicelabError):
    """A researcher-only address was asked without the researcher key: HTTP 401."""


def public_seed(g: LiveGame) -> int | None:
    """The game's secret dice seed, for every reader, once the game is over; None while it is live
    (the seed would tell every hidden hand and every future die)."""
    return g.seed if g.status == "finished" else None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def specs_json(specs: Iterable[str]) -> str:
    """The bot specs of a game's bot seats (in seat order) as stored in ``games.opponent``: a JSON
    list, so that any spec a game's parser accepts (commas included: ``pw:25<40,30<60,goal``)
    comes back as it went in (:func:`stored_specs`)."""
    return json.dumps([str(s) for s in specs])


def stored_specs(g: LiveGame) -> list[str]:
    """The bot specs ``g`` was started with, seat by seat (the inverse of :func:`specs_json`)."""
    specs = json.loads(g.opponent) if g.opponent else []
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        raise DicelabError("this game's stored bots are not a list of bot specs; it cannot be opened")
    return specs


def insert_game(db: Session, g: LiveGame) -> None:
    """INSERT the new game ``g`` (every column of ``games``); the caller commits."""
    db.execute(insert(GAMES).values(**{c.name: getattr(g, c.name) for c in GAMES.columns}))


def thinking_ms(g: LiveGame) -> int:
    """Milliseconds since the game last changed: how long the human thought about this move."""
    return max(0, int((utcnow() - g.updated_at).total_seconds() * 1000))


# the compare-and-set and a seat's change, built once: the columns set are the execution's other
# parameters (building the statement with its values and their cache key anew cost about ten times
# what running it did)
CAS = update(GAMES).where(GAMES.c.id == bindparam("cas_id"), GAMES.c.version == bindparam("cas_version"))
CAS_STAMP = CAS.where(GAMES.c.stamp == bindparam("cas_stamp"))
SEAT_CHANGE = update(SEATS).where(SEATS.c.game_id == bindparam("seat_game"), SEATS.c.seat == bindparam("seat_no"))


def commit_move(db: Session, game_id: str, read_version: int, values: dict[str, Any],
                rows: Iterable[tuple[Table, list[dict[str, Any]]]], read_stamp: int | None = None,
                seats: Iterable[tuple[int, dict[str, Any]]] = ()) -> None:
    """Set ``values`` on game ``game_id`` if it is still at ``read_version`` (and ``read_stamp``;
    ``values`` should bump ``stamp``), insert ``rows`` (``(table, rows)`` pairs; empty lists are
    skipped), set each ``(seat, values)`` of ``seats`` on the game's ``seats`` rows, and commit;
    otherwise roll back and raise :class:`Stale`."""
    try:
        cas = {"cas_id": game_id, "cas_version": read_version}
        if read_stamp is not None:
            cas["cas_stamp"] = read_stamp
        res = db.execute(CAS_STAMP if read_stamp is not None else CAS, {**values, **cas})
        if res.rowcount != 1:
            raise Stale(STALE)
        for table, new in rows:
            if new:
                db.execute(insert(table), new)
        for seat, change in seats:
            db.execute(SEAT_CHANGE, {**change, "seat_game": game_id, "seat_no": seat})
        db.commit()
    except IntegrityError as exc:  # a concurrent move on the same game won
        db.rollback()
        raise Stale(STALE) from exc
    except Conflict:
        db.rollback()
        raise
