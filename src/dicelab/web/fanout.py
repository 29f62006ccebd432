"""The event streams' fan-out (issue 22): a change of a game wakes its streams in this process, and a
move's new version is read and rebuilt once, by the request that made it, for all its streams.

* **One snapshot per version.** The move's request already holds the game after its commit: the
  row, the rebuilt state and the move rows it stored. It hands them to the :class:`Hub`
  (:meth:`Hub.publish`) as a :class:`Snapshot`; each woken stream builds its own seat's update
  from that snapshot (:func:`view_of`: the same :func:`~dicelab.web.service.public_state` and
  :func:`~dicelab.web.service.record_of` as a read from the database), with no database read and
  no second rebuild of the state. Before, every stream of the game re-read the game (two queries
  and the moves since its last update) and rebuilt the state: about three reads and three builds
  per move of a two-person game, the largest share of the server's time under load.
* **Hidden information.** A snapshot holds everything (every hand, every secret choice, the seed):
  it is never sent, never serialized and never cached as an answer. What a stream sends is built
  for its own seat, from a copy of the row whose reader is that seat, by the very functions every
  other read path uses; no seat's view is ever built once and given to another.
* **The database stays the truth.** A snapshot is only a shortcut for the stream that a local
  notification woke; everything else reads the database as before: a stream's first update, its
  look every :data:`~dicelab.web.people.HEARTBEAT_S` seconds (or at an idle seat's deadline), and
  any wake the snapshot cannot answer exactly: it is older than what the stream sent, lacks move
  rows the stream has not had, an idle seat is due to be handed over (a write), a finished game's
  coach summary is asked for, or the change was not a move (a seat joined, a seat was handed over, a
  rematch: :meth:`Hub.notify` drops the snapshot). A publish is refused if any other change of the
  game was noted in this process while the move was being made (with database work in worker
  threads two requests can interleave), so a snapshot is never staler than a change already
  announced.
* **Several processes.** Each ``dicelab serve`` process has its own hub. A move made by another
  process (another server on the same PostgreSQL database) wakes no stream here: this process's
  streams learn of it from the database at their next look, at most
  :data:`~dicelab.web.people.HEARTBEAT_S` seconds later, and a snapshot published here afterwards
  starts at its own move's rows, so a stream that missed the other process's rows reads them from
  the database.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from dicelab.web.db import utcnow
from dicelab.web.gamecore import LiveGame
from dicelab.web.people import idle_seats, next_look, signature
from dicelab.web.service import Live, public_state, record_of

KEEP_ROWS = 64  # a snapshot keeps at most this many of the game's latest move rows
KEEP_GAMES = 4096  # the games whose last change the hub remembers (the oldest forgotten first)


@dataclass(frozen=True)
class Snapshot:
    """A game as committed by a move of this process: ``g`` (the row after the commit, with its
    ``people``: every seat's secrets), ``live`` (its rebuilt state) and ``rows`` (the stored move
    rows with seq ``first`` .. ``g.version - 1``). Never sent: see :func:`view_of`."""

    g: LiveGame
    live: Live
    rows: tuple[Any, ...]
    first: int


def view_of(snap: Snapshot, seat: int, since: int, seen: tuple | None) -> dict[str, Any] | None:
    """The update a stream of ``seat`` sends after a move, built from ``snap`` alone, exactly as
    :func:`dicelab.web.people.stream_update` would build it from the database (the records from seq
    ``since`` on, the state for ``seat``, the signature and when to look again); None when the
    snapshot cannot answer it exactly (see the module docstring): the stream reads the database."""
    if seen is None or int(snap.g.stamp) <= int(seen[1]) or not snap.first <= since <= int(snap.g.version):
        return None
    if snap.g.coach and snap.g.status == "finished":  # the coach's summary reads every move: the database
        return None
    g = LiveGame(**vars(snap.g))  # this seat's copy: the reader is this seat, and only this seat
    g.viewer = seat
    to_move = snap.live.state.to_move()
    if idle_seats(g, to_move, utcnow())[0]:  # a seat to hand over: a write, done by the database path
        return None
    return {"events": [record_of(m, seat) for m in snap.rows if m.seq >= since],
            "state": public_state(None, g, with_moves=False, live=snap.live),  # type: ignore[arg-type]
            "sig": signature(g), "next": next_look(g, to_move), "handed": False}


class Hub:
    """Wakes the event streams of a game when it changed, in this server process, and keeps the
    last move's :class:`Snapshot` of each followed game (see the module docstring). Used from the
    event loop only."""

    def __init__(self) -> None:
        self._waiting: dict[str, set[asyncio.Future]] = {}
        # game -> (the clock at its last change, the snapshot of that change or None)
        self._last: OrderedDict[str, tuple[int, Snapshot | None]] = OrderedDict()
        self._clock = 0
        self._forgot = 0  # the clock when the hub last forgot a game's last change
        self.shared = 0  # stream updates built from a snapshot (for the tests and the benchmark)

    def clock(self) -> int:
        """Now, in the hub's count of changes: take it before a move reads the game, give it to
        :meth:`publish`."""
        return self._clock

    def subscribe(self, game_id: str) -> asyncio.Future:
        """A future resolved at the next change of ``game_id`` (take it before reading the game,
        so that no change between the read and the wait is missed)."""
        fut = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(game_id, set()).add(fut)
        return fut

    def unsubscribe(self, game_id: str, fut: asyncio.Future) -> None:
        waiting = self._waiting.get(game_id)
        if waiting is not None:
            waiting.discard(fut)
            if not waiting:
                del self._waiting[game_id]
                self._note(game_id, None)  # nobody follows it here: keep no snapshot

    def _note(self, game_id: str, snap: Snapshot | None) -> None:
        self._clock += 1
        self._last[game_id] = (self._clock, snap)
        self._last.move_to_end(game_id)
        while len(self._last) > KEEP_GAMES:
            self._last.popitem(last=False)
            self._forgot = self._clock

    def notify(self, game_id: str, snap: Snapshot | None = None) -> None:
        """``game_id`` changed: note it (with the change's snapshot, or none: the streams read the
        database) and wake its streams."""
        self._note(game_id, snap)
        for fut in self._waiting.pop(game_id, ()):
            if not fut.done():
                fut.set_result(None)

    def publish(self, game_id: str, g: LiveGame, live: Live, rows: list[dict[str, Any]], read_version: int,
                since: int) -> None:
        """A move committed ``g`` (read at ``read_version``, hub clock ``since`` taken before the
        read; ``rows``: the move rows it stored): wake the game's streams with its snapshot, or
        without one when the game is not followed here or another change was noted meanwhile."""
        clock, prev = self._last.get(game_id, (self._forgot, None))
        snap = None
        followed = game_id in self._waiting or prev is not None  # (its streams may be between two waits)
        if followed and clock <= since and self._forgot <= since:
            new = tuple(SimpleNamespace(**r) for r in rows)
            if prev is not None and int(prev.g.version) == read_version:  # the rows follow on
                kept = (prev.rows + new)[-KEEP_ROWS:]
            else:
                kept = new
            first = kept[0].seq if kept else int(g.version)
            snap = Snapshot(LiveGame(**vars(g)), live, kept, first)
        self.notify(game_id, snap)

    def latest(self, game_id: str) -> Snapshot | None:
        """The snapshot of the game's last change noted here, if it was a move of this process."""
        return self._last.get(game_id, (0, None))[1]

    @property
    def streams(self) -> int:
        return sum(len(w) for w in self._waiting.values())
