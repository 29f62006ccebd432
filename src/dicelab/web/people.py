"""Games between people (issue 22): invite links, an idle seat handed to a bot, rematches and what
each seat's event stream sends. Nothing here knows a game's rules: it builds on the one game service
(:mod:`dicelab.web.service`) and the ``seats`` table (:mod:`dicelab.web.db`).

* **Seats and links.** Each seat a person plays has its own secret token (stored hashed); its invite
  link is ``/play/<game>#seat=<game id>.<token>``: the part after ``#`` never reaches a server (nor its
  logs, nor a Referer), and the page keeps the token in the browser, as for the creator's seat.
* **Idle seats.** The creator may choose a time limit (``idle_s``). A person who is to move (and
  has not made a secret choice) for longer than that, counted from the last change of the
  position, loses the seat to the bot chosen for it. Who does it: **the next request by another
  seat** of the same game: a read of the game, or that seat's open event stream, which wakes when
  the limit passes (:func:`stream_update` says when to look again). It is a write like a move: a
  compare-and-set on the game's ``version`` and ``stamp`` (:func:`dicelab.web.gamecore.commit_move`),
  so when the idle person moves at the same moment exactly one of the two wins; the loser is
  answered 409 (the move) or simply finds nothing to hand over on its next look.
* **Rematch.** Once a game is over, any of its people can ask for the rematch; the first ask
  creates it (the same rules, people and bots, every seat moved one place on, so another seat
  starts), the others find it: ``rematch_id`` is set by a compare-and-set, so two people pressing
  at once make one game. Each person's seat in the rematch opens with the same token as before:
  a new link (a new game id) for the same person, and nothing new to send.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from dicelab.core.errors import DicelabError
from dicelab.web.db import utcnow
from dicelab.web.gamecore import GAMES, MOVES, SEATS, TURNS, Conflict, LiveGame, commit_move
from dicelab.web.service import (
    Mover,
    create_seats,
    entry_of,
    game_specs,
    joint_of,
    load_row,
    open_live,
    pending_of,
    persons,
    public_state,
    record_of,
    seat_row,
    viewer,
)

HEARTBEAT_S = 15.0  # an event stream's keep-alive, and its look at the database when nothing woke it
IDLE_CHOICES = (60, 300, 3600)  # the setup form's offers; the API takes any MIN_IDLE_S .. MAX_IDLE_S
MIN_IDLE_S, MAX_IDLE_S = 5, 7 * 24 * 3600


def invites(g: LiveGame) -> list[dict[str, Any]]:
    """The other people's seat links of a new game (for its creator's answer only)."""
    return [{"seat": s, "token": t, "link": f"/play/{g.game}#seat={g.id}.{t}"} for s, t in getattr(g, "invites", [])]


def signature(g: LiveGame) -> tuple:
    """What a seat's view of ``g`` can change with: a stream sends an update when it changes."""
    people = tuple((p.joined_at is not None, p.handed_at is not None, p.pending_json is not None)
                   for p in getattr(g, "people", None) or [])
    return g.version, g.stamp, g.status, g.rematch_id, people


def mark_joined(db: Session, g: LiveGame) -> bool:
    """Note that the reader's seat link was opened (the others' pages say so); once per seat.
    Whether it was noted now (the others' streams are to be woken)."""
    p = seat_row(g, viewer(g))
    if p is None or p.joined_at is not None:
        return False
    p.joined_at = utcnow()
    res = db.execute(update(SEATS).where(SEATS.c.game_id == g.id, SEATS.c.seat == p.seat, SEATS.c.joined_at.is_(None))
                     .values(joined_at=p.joined_at))
    db.commit()
    return res.rowcount == 1


def idle_seats(g: LiveGame, to_move: tuple[int, ...], now: datetime) -> tuple[list[int], float | None]:
    """The seats to hand over now (people other than the reader, to move, without a secret choice,
    idle past the limit) and, when none is yet, the seconds until the first could be."""
    if not g.idle_s or g.status != "playing" or not getattr(g, "people", None):
        return [], None
    pending = pending_of(g)
    waiting = [s for s in to_move if s in persons(g) and s != viewer(g) and s not in pending]
    if not waiting:
        return [], None
    left = g.idle_s - (now - g.updated_at).total_seconds()
    return (waiting, None) if left <= 0 else ([], left)


def hand_over(db: Session, g: LiveGame) -> list[dict[str, Any]] | None:
    """Hand every seat idle past the creator's limit to its bot and let the bots play on (see the
    module docstring); commit. The new move records, or None when no seat was idle."""
    if not g.idle_s or g.status != "playing" or not getattr(g, "people", None):
        return None
    live = open_live(g)
    now = utcnow()
    idle, _ = idle_seats(g, live.state.to_move(), now)
    if not idle:
        return None
    read_version, read_stamp = g.version, g.stamp
    for s in idle:
        seat_row(g, s).handed_at = now
    pending = pending_of(g)
    mover = Mover(live)
    to_move = live.state.to_move()
    moved = False
    if not any(s in mover.persons and s not in pending for s in to_move):
        chosen = {s: p["action"] for s, p in pending.items()}
        acts = joint_of(live, chosen)
        mover.hinted |= {s for s, p in pending.items() if p.get("hinted")}
        mover.apply(acts, {s: ("human" if s in chosen else "bot") for s in acts},
                    {s: p.get("think") for s, p in pending.items()})
        moved = True
    else:
        pending = {}
    mover.bots()
    mover.finish()
    if moved or mover.moves:
        g.updated_at = now
    g.stamp += 1
    values = {c.name: getattr(g, c.name) for c in GAMES.columns if c.name not in ("id", "token_hash", "seed",
                                                                                   "created_at")}
    seats = [(s, {"handed_at": now}) for s in idle] + [(s, {"pending_json": None, "pending_at": None})
                                                         for s in pending]
    commit_move(db, g.id, read_version, values, [(MOVES, mover.moves), (TURNS, mover.turns)], read_stamp,
                seats=seats)
    for s in pending:
        seat_row(g, s).pending_json = None
    return mover.events


def next_look(g: LiveGame, to_move: tuple[int, ...]) -> float:
    """Seconds until a seat's stream should look at the game again: the next idle deadline of
    another person's seat, else the heartbeat."""
    _, left = idle_seats(g, to_move, utcnow())
    return HEARTBEAT_S if left is None else max(0.05, min(HEARTBEAT_S, left + 0.05))


def stream_update(db: Session, g: LiveGame, after: int, seen: tuple | None) -> dict[str, Any] | None:
    """What the reader's event stream sends now: the move records from seq ``after`` on and the
    state for the reader's seat, with the view's ``signature`` (None when it equals ``seen``: nothing
    new) and ``next`` (when to look again). Hands an idle seat over first (the other seat's
    request: see the module docstring)."""
    handed = hand_over(db, g) is not None
    if handed:
        g = load_row(db, g.id, viewer(g))
    sig = signature(g)
    if sig == seen:
        return {"sig": sig, "next": HEARTBEAT_S if not g.idle_s else next_look(g, open_live(g).state.to_move())}
    live = open_live(g, prepare=False)
    rows = db.execute(select(MOVES).where(MOVES.c.game_id == g.id, MOVES.c.seq >= after).order_by(MOVES.c.seq))
    seat = viewer(g)
    return {"events": [record_of(m, seat) for m in rows], "state": public_state(db, g, with_moves=False, live=live),
            "sig": sig, "next": next_look(g, live.state.to_move()), "handed": handed}


def rematch(db: Session, g: LiveGame) -> LiveGame:
    """The rematch of a finished game between people, for the reader (see the module docstring):
    created by the first ask, found by the others; its row with ``viewer`` set to the reader's
    seat in it."""
    if not getattr(g, "people", None):
        raise Conflict("a rematch against bots is a new game: press Rematch on the game's page")
    if g.status == "playing":
        raise Conflict("the game is still being played; a rematch can start once it is over")
    n = int(g.players)
    shift = {s: (s + 1) % n for s in range(n)}
    mine = shift[viewer(g)]
    if g.rematch_id:
        return load_row(db, g.rematch_id, mine)
    entry = entry_of(g)
    people = {shift[p.seat]: p for p in g.people}
    specs = iter(game_specs(g))
    old_bots = {s: next(specs) for s in range(n) if s not in {p.seat for p in g.people}}
    new_specs = [old_bots[s] for s in sorted(old_bots, key=lambda s: shift[s])]
    try:
        new = create_seats(db, entry, json.loads(g.rules_json or "{}"), new_specs, coach=bool(g.coach),
                           creator=(shift[g.human_seat], g.token_hash),
                           others=[(s, p.token_hash) for s, p in sorted(people.items()) if s != shift[g.human_seat]],
                           idle_s=g.idle_s, idle_bot=g.people[0].bot, joined=mine, commit=False)
        res = db.execute(update(GAMES).where(GAMES.c.id == g.id, GAMES.c.rematch_id.is_(None))
                         .values(rematch_id=new.id, stamp=GAMES.c.stamp + 1))
        if res.rowcount != 1:
            raise Conflict("another player started the rematch meanwhile")
        db.commit()
    except (Conflict, DicelabError):
        db.rollback()
        row = db.execute(select(GAMES.c.rematch_id).where(GAMES.c.id == g.id)).first()
        if row is None or row[0] is None:
            raise
        return load_row(db, row[0], mine)
    return load_row(db, new.id, mine)

