"""The web lab's database: games, every move (with the coach's verdict) and every turn.

Everything goes through SQLAlchemy, so any SQLAlchemy URL works (``sqlite:///path``,
``postgresql+psycopg://...``). The default is a SQLite file in the user data folder
(``platformdirs.user_data_dir("dicelab")/weblab.sqlite``).

The schema is owned by Alembic: the migrations ship inside the package
(``dicelab/web/migrations``) and :func:`migrate` runs them programmatically at start-up, so a
database created by an older dicelab is upgraded in place.

SQLite is opened in WAL mode, and a move is committed before the server acknowledges it, so a
killed server (even with SIGKILL) never loses an acknowledged move: in WAL mode a commit has reached
the operating system when it returns. The default ``synchronous=NORMAL`` skips the fsync per
commit, so only an operating-system crash or power cut could lose the last moves; set
``DICELAB_SQLITE_SYNC=FULL`` to fsync every commit as well (about 8 ms more per move on the
project machine's disk).

On PostgreSQL (``pip install 'dicelab[postgres]'``: psycopg 3) nothing here is SQLite's: no PRAGMA,
no WAL thread, no in-process write lock (:func:`dicelab.web.app.create_app`); a move's compare-and-set
``UPDATE ... WHERE version = :read`` (:mod:`dicelab.web.gamecore`) takes the game's row lock under the
default READ COMMITTED isolation, so racing moves on one game wait for each other and all but one
update nothing, while moves on different games commit in parallel. Alembic gets the open connection
(:func:`migrate`), never the URL as text, so any valid URL works, percent-escapes included; the
migrations run in one transaction. Connections wait at most :data:`PG_CONNECT_TIMEOUT_S` seconds
(a URL's ``connect_timeout`` overrides) and are checked before each use, so a restarted server
costs no request; a server that does not answer makes requests 503 (:func:`unavailable_of`). No
message shows a password (:func:`hide_password`).

A damaged SQLite file never reaches the app: :func:`open_database` runs ``PRAGMA quick_check``
before and after the migration and stops with one line (exit 2 from ``dicelab serve``) when the
file is not a database, is truncated or has a damaged page; a 0-byte file is taken as a new
database, and the log says so. Damage that appears later is recognised by :func:`damage_of` (the
app answers 503 and ``/healthz`` reports it).

Tables
------
``games``
    one row per game of any registered game: its name, rule parameters (``rules_json``), the bots
    of the bot seats, the human's seat, the state in the game's own JSON form (``state_json``:
    rules, seed, actions), ``version`` (the number of moves made, the optimistic-concurrency counter
    a client must echo), the questionnaire answers of the human-play study (seed 002, section 2.4)
    and a hash of the per-game secret token (the token itself is never stored).
``moves``
    every seat's action: the action (``action_json``) and the public events it caused
    (``events_json``), the dice it threw, and for the human's decisions the coach's verdict (the
    position ``(i, j, k)`` where the coach gives one, the best action, the value of the action
    taken and of the best, the value given away) and the time the human took.
``seats``
    games between people only: one row per seat a person plays, with the hash of that seat's own
    secret token (its invite link), the bot that takes the seat over if its person stays idle past
    the creator's limit (``games.idle_s``), when the link was first opened and when the seat was
    handed over, and a simultaneous choice (a secret target) waiting until every person has
    chosen. Never exported: it holds the secrets.
``turns``
    one row per finished turn in games whose seats see scores, like seed 002's tracker form:
    number of dice thrown, points banked, scores before and after, the opponent's score.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker
from sqlalchemy.pool import NullPool

from dicelab.core import env
from dicelab.core.errors import DicelabError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
log = logging.getLogger("dicelab.web")
# SQLite result codes (the low byte of an extended code) that mean the file itself is bad
SQLITE_DAMAGE = {10: "I/O error", 11: "damaged", 26: "not a database"}  # IOERR, CORRUPT, NOTADB
SQLITE_FULL = 13
PG_DISK_FULL = "53100"  # PostgreSQL's SQLSTATE disk_full
MIN_FREE_BYTES = 1 << 20  # less free space than this beside an SQLite file: its I/O errors are a full disk
DISK_FULL_RETRY_S = 30
QUICK_CHECK_EVERY_S = 30.0  # a running lab checks its SQLite file this often (PRAGMA quick_check)
SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE = 1006
DB_ERRORS = (DBAPIError, sqlite3.DatabaseError)  # what a request may meet from the database
# The write-ahead log is copied into the database by a background thread every second
# (:func:`start_checkpoints`); a commit checkpoints by itself only past this many pages (about 40
# MB), a fallback when no thread runs. SQLite's default, 1,000 pages, made every few hundred moves
# pay a 25-85 ms checkpoint inside a request, in the event loop.
AUTOCHECKPOINT_PAGES = 10_000
CHECKPOINT_EVERY_S = 1.0
PG_CONNECT_TIMEOUT_S = 10  # an unreachable PostgreSQL host: one line at start-up, not a hang


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(16))
    rules_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # the rule parameters
    state_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # the game's own JSON form
    opponent: Mapped[str] = mapped_column(Text)  # the bot specs of the bot seats: a JSON list (gamecore.specs_json)
    human_seat: Mapped[int] = mapped_column(Integer)
    coach: Mapped[bool] = mapped_column(Boolean, default=False)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(12), default="playing")
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    turn_no: Mapped[int | None] = mapped_column(Integer, nullable=True, default=1)
    turn_rolls: Mapped[int | None] = mapped_column(Integer, nullable=True, default=0)
    turn_start_score: Mapped[int | None] = mapped_column(Integer, nullable=True, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    participant: Mapped[str | None] = mapped_column(String(80), nullable=True)
    risk_preference: Mapped[str | None] = mapped_column(String(16), nullable=True)
    q2: Mapped[str | None] = mapped_column(String(1), nullable=True)
    q3: Mapped[str | None] = mapped_column(String(1), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    players: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    scores_json: Mapped[str | None] = mapped_column(String(200), nullable=True)  # the scores, where seats see some
    result_json: Mapped[str | None] = mapped_column(String(200), nullable=True)  # returns(): each seat's share
    # before migration 0003 every game's position was kept in Pig's columns; kept for old rows
    variant: Mapped[str | None] = mapped_column(String(16), nullable=True)
    goal: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sides: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score0: Mapped[int | None] = mapped_column(Integer, nullable=True)  # seats 0 and 1's scores, where seen
    score1: Mapped[int | None] = mapped_column(Integer, nullable=True)
    turn_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # games between people (migration 0004): every write bumps ``stamp`` (the compare-and-set key of
    # moves, secret choices and hand-overs); ``idle_s``: the creator's limit before an idle person's
    # seat goes to a bot (None: never); ``rematch_id``: the next game of the same people
    stamp: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    idle_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(40), nullable=True)


class Seat(Base):
    """A seat a person plays in a game between people (none for a game against bots)."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_seats_game_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64))  # the seat's secret token, hashed
    bot: Mapped[str] = mapped_column(String(200))  # the bot that takes the seat over when its person is idle
    joined_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # the link was first opened
    handed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # given to the bot (idle)
    pending_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # a secret choice waiting for the others
    pending_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Move(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_moves_game_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    turn_no: Mapped[int] = mapped_column(Integer)
    player: Mapped[int] = mapped_column(Integer)
    actor: Mapped[str] = mapped_column(String(8))
    action: Mapped[str] = mapped_column(String(8))  # the action's name ("roll", "bid", "dice", ...)
    action_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # the action itself
    events_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # the public events it caused
    i: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the coach's position, where it gives one
    j: Mapped[int | None] = mapped_column(Integer, nullable=True)
    k: Mapped[int | None] = mapped_column(Integer, nullable=True)
    faces: Mapped[str | None] = mapped_column(String(400), nullable=True)  # the dice the action threw
    result: Mapped[str] = mapped_column(String(16))
    optimal_action: Mapped[str | None] = mapped_column(String(200), nullable=True)  # JSON: the coach's best
    p_roll: Mapped[float | None] = mapped_column(Float, nullable=True)  # the coach's value of the action taken
    p_hold: Mapped[float | None] = mapped_column(Float, nullable=True)  # ... and of the best action
    p_lost: Mapped[float | None] = mapped_column(Float, nullable=True)
    think_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Turn(Base):
    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("game_id", "turn_no", "player", name="uq_turns_game_turn_player"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    turn_no: Mapped[int] = mapped_column(Integer)
    player: Mapped[int] = mapped_column(Integer)
    actor: Mapped[str] = mapped_column(String(8))
    n_rolls: Mapped[int] = mapped_column(Integer)
    banked: Mapped[int] = mapped_column(Integer)
    score_before: Mapped[int] = mapped_column(Integer)
    score_after: Mapped[int] = mapped_column(Integer)
    opponent_score: Mapped[int] = mapped_column(Integer)
    ended: Mapped[str] = mapped_column(String(8))


def default_db_url() -> str:
    """``sqlite:///`` + the user data folder's ``weblab.sqlite`` (``DICELAB_DB`` overrides)."""
    url = env.get("DICELAB_DB")
    if url:
        return url
    folder = Path(platformdirs.user_data_dir("dicelab"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'weblab.sqlite'}"


def hide_password(url: Any) -> str:
    """``url`` (text or a SQLAlchemy URL) as text with any password, in its user part or in the
    query (``?password=``), replaced by ``***``; also a URL SQLAlchemy cannot parse."""
    try:
        text = make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError, TypeError):  # not a URL SQLAlchemy can parse: mask what looks like a password
        text = re.sub(r"(://[^/?#@]*?:)[^/?#@]*@", r"\1***@", str(url))
    return re.sub(r"((?:^|[?&;\s])password=)[^&;\s]*", r"\1***", text, flags=re.IGNORECASE)


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
LOCAL_LOCK_TIMEOUT_MS = 2000  # a PostgreSQL lock wait in the event loop may stall it this long at most


def runs_locally(url: URL) -> bool:
    """Whether the database answers without a network: SQLite, or a PostgreSQL server reached
    through a Unix socket or a loopback address (the URL's host and ``host``/``hostaddr`` query
    parameters; without any, libpq's ``PGHOST`` or its default, the Unix socket)."""
    if url.get_backend_name() == "sqlite":
        return True
    if url.get_backend_name() != "postgresql":
        return False
    hosts = [url.host] if url.host else []
    for key in ("host", "hostaddr"):
        value = url.query.get(key)
        hosts += list(value) if isinstance(value, tuple) else [value] if value else []
    if not hosts:
        hosts = [h for h in (env.get("PGHOST") or "").split(",") if h]
    return all(h.startswith("/") or h in LOOPBACK_HOSTS for h in ",".join(hosts).split(",") if h)


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, ``synchronous=NORMAL``, foreign keys, a busy timeout;
    PostgreSQL a 10-second connect timeout (unless the URL gives one) and a pool that checks a
    connection before lending it (a restarted server costs no request)."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise DicelabError(
            f"cannot open database {hide_password(url)!r}: not a database URL (give an SQLAlchemy URL such as "
            "sqlite:///lab.sqlite or postgresql+psycopg://user@host/dicelab)") from None
    is_sqlite = parsed.get_backend_name() == "sqlite"
    # at least one connection per database thread of the app (DB_THREADS = 16)
    kwargs: dict = {"pool_size": 16, "max_overflow": 16}
    if is_sqlite:
        path = parsed.database or ""
        if path and path != ":memory:" and not path.startswith("file:"):
            try:
                Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DicelabError(f"cannot create the folder for database {hide_password(url)!r}: "
                                   f"{exc.strerror}") from exc
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    elif parsed.get_backend_name() == "postgresql":
        connect: dict[str, Any] = {}
        if "connect_timeout" not in parsed.query:
            connect["connect_timeout"] = PG_CONNECT_TIMEOUT_S
        if runs_locally(parsed) and "options" not in parsed.query:  # game work runs in the event loop
            connect["options"] = f"-c lock_timeout={LOCAL_LOCK_TIMEOUT_MS}"
        kwargs["connect_args"] = connect
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(parsed, **kwargs)
    except (ArgumentError, ImportError, ValueError, TypeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        hint = ("; for PostgreSQL: pip install 'dicelab[postgres]'" if isinstance(exc, ImportError)
                and parsed.get_backend_name() == "postgresql" else "")
        raise DicelabError(
            f"cannot open database {hide_password(url)!r}: {first} (give an SQLAlchemy URL such as "
            f"sqlite:///lab.sqlite or postgresql+psycopg://user@host/dicelab, with its driver installed{hint})"
        ) from None
    if is_sqlite:
        sync = env.get("DICELAB_SQLITE_SYNC")  # NORMAL, FULL or EXTRA, or a one-line error

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
            cur.close()
            no_checkpoint_on_close(dbapi_conn)

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (run at every start-up; idempotent)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()  # the connection goes in attributes: a URL in the config would be %-interpolated
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    sqlite = engine.dialect.name == "sqlite"
    try:
        with engine.connect() as conn:
            if sqlite:  # a table rebuilt under its children (SQLite's procedure for schema changes):
                conn.exec_driver_sql("PRAGMA foreign_keys=OFF")  # off outside the transaction ...
                conn.commit()
            try:
                with conn.begin():
                    cfg.attributes["connection"] = conn
                    command.upgrade(cfg, "head")
                    if sqlite:  # ... and every reference checked before the commit
                        bad = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                        if bad:
                            raise DicelabError(f"the migration left {len(bad)} rows pointing at no game; "
                                               "nothing was changed")
            finally:
                if sqlite:
                    conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                    conn.commit()
    except DBAPIError as exc:
        raise _open_error(engine, exc) from exc


def _shown(engine: Engine) -> str:
    return hide_password(engine.url)


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__


def _open_error(engine: Engine, exc: BaseException) -> DicelabError:
    full = full_of(exc, engine)
    if full is not None:
        return DicelabError(f"cannot open database {_shown(engine)}: {full}")
    if damage_of(exc) is not None:
        return DicelabError(f"database {_shown(engine)} is damaged or not a database ({_first_line(exc)}); "
                            "restore it from a backup, or move it away to start a new one")
    return DicelabError(f"cannot open database {_shown(engine)}: {_first_line(exc)}")


def damage_of(exc: BaseException) -> str | None:
    """A one-line description when ``exc`` (or what it wraps) says the database file is damaged."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        orig = getattr(e, "orig", None)
        if isinstance(e, sqlite3.DatabaseError) or isinstance(orig, sqlite3.DatabaseError):
            db_exc = e if isinstance(e, sqlite3.DatabaseError) else orig
            code = getattr(db_exc, "sqlite_errorcode", None)
            text = str(db_exc).lower()
            if (code is not None and code & 0xFF in SQLITE_DAMAGE) or "malformed" in text \
                    or "not a database" in text or "disk i/o error" in text:
                return f"the database is damaged: {_first_line(db_exc)}; restore it from a backup and restart the lab"
        e = e.__cause__ or e.__context__
    return None


def _codes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps (``.orig``, causes and contexts), each once."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [getattr(e, "orig", None), e.__cause__, e.__context__]


def free_bytes(engine: Engine) -> int | None:
    """Free bytes (for an unprivileged writer) on the file system of an SQLite file; None otherwise."""
    path = _sqlite_path(engine)
    if path is None:
        return None
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def full_of(exc: BaseException, engine: Engine | None = None) -> str | None:
    """A one-line description when ``exc`` says the disk under the database is full: SQLite's
    "database or disk is full", an OS error ENOSPC or EDQUOT, PostgreSQL's disk_full, or an SQLite
    I/O error while less than :data:`MIN_FREE_BYTES` are free beside the file (SQLite reports a
    failed write of its shared-memory or journal file so). None otherwise."""
    io_error = False
    for e in _codes(exc):
        code = getattr(e, "sqlite_errorcode", None)
        if isinstance(e, sqlite3.Error) and code is not None and code & 0xFF == SQLITE_FULL:
            break
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            break
        if getattr(e, "sqlstate", None) == PG_DISK_FULL or getattr(e, "pgcode", None) == PG_DISK_FULL:
            break
        io_error = io_error or (isinstance(e, sqlite3.Error) and (code is not None and code & 0xFF == 10
                                                                  or "disk i/o error" in str(e).lower()))
    else:
        free = free_bytes(engine) if engine is not None and io_error else None
        if free is None or free >= MIN_FREE_BYTES:
            return None
    where = _sqlite_path(engine) if engine is not None else None
    free = free_bytes(engine) if engine is not None else None
    room = f" ({free:,} bytes free in {where.parent})" if where is not None and free is not None else ""
    return f"the disk under the database is full{room}; free some space, then try again"


def _unpooled(engine: Engine) -> Engine:
    """An engine on the same SQLite file whose connections are new each time (no pool).

    A pooled connection keeps the pages it has read in its own cache, and bytes changed in the file
    behind SQLite's back do not tell it to drop them: a check on such a connection reads the sound
    copies and says ok (found by CI: damage written after the check had cached every page went
    unseen for good). A new connection starts with an empty cache and reads every page from disk."""
    fresh = create_engine(engine.url, poolclass=NullPool, connect_args={"check_same_thread": False, "timeout": 30})
    event.listen(fresh, "connect", lambda dbapi_conn, _record: no_checkpoint_on_close(dbapi_conn))
    return fresh


def sqlite_damage(engine: Engine) -> str | None:
    """``PRAGMA quick_check`` on the SQLite file of ``engine``: a one-line description of the damage
    it finds (or of an error that says the file is damaged), None when the file is sound, when the
    check cannot tell (a full disk, a busy file) and for other databases."""
    if _sqlite_path(engine) is None:
        return None
    fresh = _unpooled(engine)
    try:
        with fresh.connect() as conn:
            rows = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check").fetchall()]
    except DB_ERRORS as exc:
        return None if full_of(exc, engine) is not None else damage_of(exc)
    finally:
        fresh.dispose()
    if rows == ["ok"]:
        return None
    first = rows[0].splitlines()[0] if rows else "no answer"
    return f"the database is damaged: {first}; restore it from a backup and restart the lab"


def no_checkpoint_on_close(dbapi_conn: Any) -> bool:
    """Tell an SQLite connection not to checkpoint when it closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE).

    The last connection to close would otherwise copy the write-ahead log into the database file:
    into a file known to be damaged, too. The lab checkpoints by itself instead (every second while
    it runs, and once at a clean shutdown, never once damage is known: :func:`final_checkpoint`).
    Python 3.12 has ``Connection.setconfig``; on 3.11 the call goes to the same libsqlite3 through
    ctypes, with the connection's ``sqlite3*`` handle (the first field of CPython's connection
    object). Returns whether the setting took."""
    setconfig = getattr(dbapi_conn, "setconfig", None)
    if setconfig is not None:
        try:
            setconfig(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, True)
            return True
        except Exception:  # pragma: no cover - a build without it
            return False
    try:
        import ctypes
        import ctypes.util

        if type(dbapi_conn) is not sqlite3.Connection or sys.implementation.name != "cpython":
            return False
        lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        if lib.sqlite3_libversion_number() != sqlite3.sqlite_version_info[0] * 1_000_000 \
                + sqlite3.sqlite_version_info[1] * 1000 + sqlite3.sqlite_version_info[2]:
            return False  # another libsqlite3 than the one Python's module uses
        handle = ctypes.c_void_p.from_address(id(dbapi_conn) + object.__basicsize__).value
        if not handle:
            return False
        done = ctypes.c_int(-1)
        rc = lib.sqlite3_db_config(ctypes.c_void_p(handle), ctypes.c_int(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE),
                                   ctypes.c_int(1), ctypes.byref(done))
        return rc == 0 and done.value == 1
    except (OSError, AttributeError, ValueError):  # pragma: no cover - no loadable libsqlite3
        return False


def final_checkpoint(engine: Engine) -> None:
    """At a clean shutdown of a sound SQLite database: the write-ahead log into the file (TRUNCATE)."""
    if _sqlite_path(engine) is None:
        return
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except DB_ERRORS as exc:
        log.warning("final WAL checkpoint failed: %s", _first_line(exc))


def unavailable_of(exc: BaseException) -> str | None:
    """A one-line description when ``exc`` says a database server (PostgreSQL) cannot be reached or
    lost the connection (the request did nothing), else None. SQLite's errors are never this."""
    if not isinstance(exc, (OperationalError, InterfaceError)) or isinstance(getattr(exc, "orig", None),
                                                                            sqlite3.Error):
        return None
    return f"the database server is unavailable ({_first_line(exc)}); try again shortly"


def _sqlite_path(engine: Engine) -> Path | None:
    db = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    if not db or db == ":memory:" or db.startswith("file:"):
        return None
    return Path(db).expanduser()


def quick_check(engine: Engine) -> None:
    """``PRAGMA quick_check`` on an SQLite database: a :class:`DicelabError` unless it says ok."""
    try:
        with engine.connect() as conn:
            rows = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check").fetchall()]
    except DBAPIError as exc:
        raise _open_error(engine, exc) from exc
    if rows != ["ok"]:
        more = f" (and {len(rows) - 1} more problems)" if len(rows) > 1 else ""
        first = rows[0].splitlines()[0] if rows else "no answer"
        raise DicelabError(f"database {_shown(engine)} is damaged: {first}{more}; restore it from a backup, "
                           "or move it away to start a new one")


def _truly_empty(path: Path) -> bool:
    """A regular file of 0 bytes that reads as empty too (``/proc/version`` says 0 bytes and is not)."""
    try:
        if not path.is_file() or path.stat().st_size != 0:
            return False
        with path.open("rb") as f:
            return f.read(1) == b""
    except OSError:
        return False


def open_database(url: str) -> Engine:
    """An engine on ``url`` with the schema migrated; an SQLite file is checked before and after."""
    engine = make_engine(url)
    path = _sqlite_path(engine)
    if path is not None:
        if _truly_empty(path):
            log.warning("database file %s is empty (0 bytes): treating it as a new database", path)
        try:
            quick_check(engine)
            migrate(engine)
            quick_check(engine)
        except DicelabError:
            engine.dispose()
            raise
    else:
        migrate(engine)
    return engine


def start_checkpoints(engine: Engine, every: float = CHECKPOINT_EVERY_S,
                      paused: Callable[[], bool] = lambda: False) -> Callable[[], None]:
    """Checkpoint an SQLite WAL every ``every`` seconds in a daemon thread (PASSIVE: it never waits
    for readers or writers; the sqlite3 module lets go of the GIL meanwhile), except while
    ``paused()`` (the file is known to be damaged: nothing more is written into it); returns the
    stopper."""
    if _sqlite_path(engine) is None:
        return lambda: None
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            if paused():
                continue
            try:
                with engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception as exc:  # damage is reported by requests and /healthz; try again later
                log.debug("WAL checkpoint failed: %s", _first_line(exc))

    thread = threading.Thread(target=run, name="dicelab-wal-checkpoint", daemon=True)
    thread.start()

    def halt() -> None:
        stop.set()
        thread.join(timeout=5)

    return halt


def start_quick_checks(engine: Engine, on_damage: Callable[[str], None], every: float = QUICK_CHECK_EVERY_S,
                       paused: Callable[[], bool] = lambda: False) -> Callable[[], None]:
    """Run ``PRAGMA quick_check`` on an SQLite file every ``every`` seconds in a daemon thread
    (:func:`sqlite_damage`, which reads every page: random bytes in a data page that no request
    has read yet are found too) and call ``on_damage(detail)`` when it finds damage; returns the
    stopper. Nothing for other databases (PostgreSQL checks its own pages)."""
    if _sqlite_path(engine) is None:
        return lambda: None
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            if paused():
                continue
            try:
                detail = sqlite_damage(engine)
            except Exception as exc:  # pragma: no cover - the next round tries again
                log.debug("quick_check failed: %s", _first_line(exc))
                continue
            if detail is not None:
                on_damage(detail)

    thread = threading.Thread(target=run, name="dicelab-quick-check", daemon=True)
    thread.start()

    def halt() -> None:
        stop.set()
        thread.join(timeout=30)

    return halt


def health_read(session: Any) -> None:
    """A cheap real read for ``/healthz``: the schema version row and the newest game and move."""
    from sqlalchemy import text

    session.execute(text("SELECT version_num FROM alembic_version")).all()
    for table in ("games", "moves", "turns"):  # whole rows: the table's own pages, not only an index
        session.execute(text(f"SELECT * FROM {table} WHERE id = (SELECT max(id) FROM {table})")).all()


def make_sessionmaker(engine: Engine) -> sessionmaker:
    return sessionmaker(bind=engine, expire_on_commit=False)
