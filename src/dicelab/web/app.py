"""The FastAPI application: pages, the JSON API, exports, the analysis page and the explorer.

``create_app(db_url)`` builds a self-contained app (its own engine, migrations run at start-up), so
tests can make as many as they like, each on its own temporary database.

Every registered game (:mod:`dicelab.core.registry`) is served by one game service
(:mod:`dicelab.web.service`); nothing here names a game. The JSON API (described at
``/openapi.json``)::

    POST /api/games                 create a game -> {id, token, state, events}: {"game": NAME,
                                    "rules": {...} (or the rule parameters flat), "opponent": SPEC};
                                    with "people": N > 1 a game between people, whose answer's
                                    "invites" give each other person's seat link (and "idle_s": the
                                    seconds before an idle person's seat goes to a bot)
    GET  /api/games/{id}            read it        (header X-Game-Token)
    POST /api/games/{id}/moves      make a move    (header X-Game-Token; body {"action": ACTION,
                                    "expected_move": VERSION}: one of the state's legal_actions,
                                    or the flat form {"action": NAME, "k" | "quantity"+"face" | "dice"})
    GET  /api/games/{id}/hint       the coach's view for your seat now, coach on or off (header
                                    X-Game-Token); your next move is recorded as hinted
    GET  /api/games/{id}/review     the game replayed with the coach at every decision: positions,
                                    moves, the human's chance to win, labels, advice (header
                                    X-Game-Token; positions and numbers once the game is over)
    GET  /api/games/shared/{share_id}
                                    the same review, read-only, without the token (the state's
                                    share_id; a live game shows only its public events)
    POST /api/games/{id}/rematch    a finished game between people: its rematch, the same people
                                    (the first to ask creates it; header X-Game-Token)
    GET  /api/events/{id}           Server-Sent Events for your seat (header X-Game-Token): the
                                    state and every move as it happens (games between people)
    GET  /api/opponents             every game's bots; GET /api/games/rules: every game's rules
    GET  /healthz                   {"status": "ok"}

Pages: ``/play/{game}``, ``/review/{id}`` (the review, with the token this browser keeps),
``/share/{share_id}`` (the read-only review), ``/games`` ("My games": the games this browser
played, from its local storage), ``/about``, ``/explorer``, ``/analysis``.

Answers: 201/200 on success; 404 for an unknown game, 403 for a wrong token, 409 for a stale move
or a move in a finished game, 413 for a body over 16 KiB, 422 for malformed JSON or bad values, 400
for JSON nested too deeply to parse. The study's data (``/export/*``, ``/api/analysis``,
``/analysis``, ``/analysis/plot/*``) need the researcher key (header ``X-Admin-Key``): 401 without
it, 403 for a wrong one. Every answer carries a Content-Security-Policy and no-framing headers; a
request whose Host names neither this machine nor an allowed name (``dicelab serve --allow-host``)
gets 400 (DNS rebinding), and so does one with two Host headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from sqlalchemy.orm import Session

from dicelab import __version__
from dicelab.core import levels as core_levels
from dicelab.core import registry
from dicelab.core.errors import DicelabError, require
import dicelab.web.explorer as explorer
import dicelab.web.fanout as fanout
import dicelab.web.messages as messages
import dicelab.web.people as people_mod
import dicelab.web.puzzles as puzzles
import dicelab.web.review as review
import dicelab.web.service as service
import dicelab.web.study as study
from dicelab.web.db import (
    DB_ERRORS,
    DISK_FULL_RETRY_S,
    MIN_FREE_BYTES,
    QUICK_CHECK_EVERY_S,
    damage_of,
    default_db_url,
    final_checkpoint,
    free_bytes,
    full_of,
    health_read,
    make_sessionmaker,
    open_database,
    runs_locally,
    sqlite_damage,
    start_checkpoints,
    start_quick_checks,
    unavailable_of,
)
from dicelab.web.gamecore import Conflict, Forbidden, NotFound, Stale, Unauthorized
from dicelab.web.ahead import Readiness
from dicelab.web.builds import BotBuilds
from dicelab.web.front import FrontDoor
from dicelab.web.limits import Admission, Busy, HeavyPool, cache_stats

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
log = logging.getLogger("dicelab.web")
T = TypeVar("T")
DB_THREADS = 16
MOVE_TRIES = 3  # a move that lost only to another seat's secret choice or a hand-over is read again
MAX_STREAMS = 4000  # open event streams (two per game between two people)


class Questionnaire(BaseModel):
    """Seed 002's tracker-form questions (section 2.4): stated risk preference and two gambles."""

    model_config = ConfigDict(extra="forbid")
    risk_preference: Literal["averse", "loving", "neutral"] = Field(
        description="Q1: which are you: risk averse, risk loving or risk neutral")
    q2: Literal["a", "b"] = Field(description="Q2: (a) a guaranteed £10 or (b) a 50/50 gamble for £20 or £0")
    q3: Literal["a", "b"] = Field(
        description="Q3: (a) a guaranteed £1 million or (b) a 50/50 gamble for £2 million or £0")
    participant: str | None = Field(None, max_length=80, description="optional label, e.g. a class code")
    consent: bool = Field(False, strict=True, description=(
        "true: the participant read the consent text and agrees; without it nothing is recorded (422)"))


def study_answers(q: Questionnaire | None) -> dict[str, Any] | None:
    """The questionnaire answers to record with a new game, or None; 422 without consent."""
    if q is None:
        return None
    require(q.consent, 'the questionnaire needs "consent": true (the participant agreed to the consent text); '
                       "nothing was recorded")
    return q.model_dump(exclude={"consent"})


MAX_RULE_NUMBER = 10**9  # no rule goes near it; bigger numbers are refused before any check echoes them
RuleValue = Annotated[StrictInt, Field(ge=-MAX_RULE_NUMBER, le=MAX_RULE_NUMBER)] | \
    Annotated[StrictStr, Field(max_length=40)] | None


class NewGame(BaseModel):
    """A new game against bots. The rules are the game's parameters (``GET /api/games/rules``
    lists them): in ``rules``, or flat beside ``game`` as before (``{"game": "pig", "goal": 100}``)."""

    model_config = ConfigDict(extra="allow")
    game: str = Field("pig", max_length=40, description="a registered game: pig, simpig, supersix, liars, hog, ...")
    rules: dict[Annotated[str, Field(max_length=40)], RuleValue] | None = Field(
        None, max_length=12, description="the game's rule parameters, e.g. {\"goal\": 100}")
    opponent: str | None = Field(None, max_length=80, description=(
        "the bot for every bot seat (default: the game's first, strongest bot); /api/opponents lists them"))
    opponents: list[Annotated[str, Field(max_length=80)]] | None = Field(
        None, max_length=3, description="one bot spec per bot seat (games of 3 or 4 players)")
    human_first: bool | None = Field(True, description="true: you take seat 0; false: the last seat; null: a coin")
    coach: bool = False
    questionnaire: Questionnaire | None = None
    people: int = Field(1, ge=1, le=4, strict=True, description=(
        "the seats people play, yours included: more than 1 invites friends (the answer's invites give "
        "each other person's seat link); the bots play the rest"))
    idle_s: int | None = Field(None, ge=people_mod.MIN_IDLE_S, le=people_mod.MAX_IDLE_S, strict=True, description=(
        "a game between people: seconds after which a person's seat, idle on its turn, is handed to a bot "
        "(null: never)"))
    idle_bot: str | None = Field(None, max_length=80, description=(
        "the bot that takes an idle seat over (default: the game's first bot)"))

    def rule_values(self) -> dict[str, Any]:
        """``rules`` and the flat rule fields together (a field given both ways is refused)."""
        flat = dict(self.model_extra or {})
        for key, value in flat.items():
            ok = value is None or (isinstance(value, int) and not isinstance(value, bool)
                                   and abs(value) <= MAX_RULE_NUMBER) or (isinstance(value, str) and len(value) <= 40)
            shown = str(value)[:40] if not isinstance(value, int) or abs(value) <= MAX_RULE_NUMBER else "a huge number"
            require(ok, f"rule {str(key)[:40]!r} must be a whole number or a short name, got {shown!r}")
        both = set(flat) & set(self.rules or {})
        require(not both, f"give {', '.join(sorted(both))} once: in rules or beside game, not both")
        return {**flat, **(self.rules or {})}


class MoveIn(BaseModel):
    """A move: ``action`` is the game's own action (``"roll"``, ``{"dice": 4}``, ``{"bid": [3, 5]}``),
    or a name with its fields as before (``{"action": "target", "k": 25}``, ``{"action": "bid",
    "quantity": 3, "face": 5}``)."""

    model_config = ConfigDict(extra="forbid")
    action: str | dict[Annotated[str, Field(max_length=20)], int | list[int] | str] = Field(
        description="one of the legal actions the game state lists (legal_actions)")
    k: int | None = Field(None, ge=1, le=1000, description="flat form: {NAME: k}, e.g. a simultaneous-Pig target")
    quantity: int | None = Field(None, ge=1, le=100, description="flat form: a Liar's Dice bid's quantity")
    face: int | None = Field(None, ge=1, le=20, description="flat form: a Liar's Dice bid's face")
    dice: int | None = Field(None, ge=1, le=100, description="flat form: {NAME: dice}")
    expected_move: int = Field(ge=0, le=10**9, description="the game's version you are answering")
    hint: bool = Field(False, strict=True, description=(
        "true: you saw a hint (GET /api/games/{id}/hint) before this move; the move is recorded as hinted "
        "(a hint fetched from the server at this version counts even without the flag)"))


class PuzzleAnswer(BaseModel):
    """Your answer to a puzzle: one of its choices' actions, as the question lists them."""

    model_config = ConfigDict(extra="forbid")
    action: str | dict[Annotated[str, Field(max_length=20)], int | list[int] | str] = Field(
        description="the action of one of the puzzle's choices (GET /api/puzzles/{id} lists them)")


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``limit`` bytes with 413, declared or streamed."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await _send_413(send)
                    return
        seen = 0
        refused = False

        async def limited_receive() -> dict:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    # answer 413 ourselves; the app sees a disconnected client and stops reading
                    refused = True
                    await _send_413(send)
                    return {"type": "http.disconnect"}
            return msg

        t0 = time.perf_counter()

        async def guarded_send(msg: dict) -> None:
            if refused:
                return
            if msg["type"] == "http.response.start":  # the server's own time, for the load test
                dur = (time.perf_counter() - t0) * 1000
                msg = {**msg, "headers": [*msg.get("headers", []), (b"server-timing", f"app;dur={dur:.3f}".encode())]}
            await send(msg)

        await self.app(scope, limited_receive, guarded_send)


async def _send_413(send: Any) -> None:
    await _send_detail(send, 413, f"request body too large (limit {MAX_BODY} bytes)")


async def _send_detail(send: Any, status: int, detail: str) -> None:
    """Answer ``status`` with ``{"detail": detail}`` straight from a middleware."""
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


SECURITY_HEADERS = [
    # scripts, styles and everything else only from the lab itself (no inline script); plots that
    # the analysis page fetches with the researcher key are shown from blob: URLs
    (b"content-security-policy", b"default-src 'self'; img-src 'self' blob:; object-src 'none'; "
                                 b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders:
    """ASGI middleware: the :data:`SECURITY_HEADERS` on every HTTP answer."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(msg: dict) -> None:
            if msg["type"] == "http.response.start":
                msg = {**msg, "headers": [*msg.get("headers", []), *SECURITY_HEADERS]}
            await send(msg)

        await self.app(scope, receive, with_headers)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address, without port) is this machine: localhost, 127.0.0.0/8, ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a Host header without its port: ``[::1]:8000`` -> ``::1``, ``localhost:80`` -> ``localhost``."""
    if header.startswith("[") and "]" in header:
        return header[1:header.index("]")]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::")


def host_allow_list(bind_host: str | None, allow_hosts: list[str] | None = None) -> frozenset[str] | None:
    """The Host names the lab answers when it listens on ``bind_host``: this machine's loopback
    names, the bound address itself, and ``allow_hosts`` (``dicelab serve --allow-host``); None
    (any Host) for the in-process test client (no ``bind_host``) or with ``"*"`` among them.
    Listening on every interface (0.0.0.0, ::) needs ``allow_hosts``: without an explicit list any
    web page could reach the lab through DNS rebinding (a one-line :class:`DicelabError`)."""
    given = [h.lower() for h in (allow_hosts or [])]
    if bind_host is None or "*" in given:
        return None
    bound = host_name(bind_host).lower()
    require(bound not in WILDCARD_HOSTS or given,
            f"listening on every interface ({bind_host}) needs --allow-host with the names or addresses "
            "clients use to reach the lab (e.g. --allow-host lab.example.org; '*' accepts any Host)")
    names = {*LOOPBACK_NAMES, *given}
    if bound not in WILDCARD_HOSTS:
        names.add(bound)
    return frozenset(names)


class HostCheck:
    """ASGI middleware: 400 for a request with two Host headers (a proxy and the app could read
    different ones), and, with an ``allowed`` set, for a Host header that names none of them (with
    any port; every loopback address counts as ``127.0.0.1``). A web page that rebinds its own
    domain to the lab's address (DNS rebinding) still sends its domain as the Host, so it cannot
    reach the lab."""

    def __init__(self, app: Any, allowed: frozenset[str] | None = None) -> None:
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            hosts = [v for k, v in scope.get("headers", []) if k == b"host"]
            if len(hosts) > 1:
                await _send_detail(send, 400, "the request has more than one Host header; send one")
                return
            if self.allowed is not None:
                name = host_name(hosts[0].decode("latin-1") if hosts else "").lower()
                if not (name in self.allowed or ("127.0.0.1" in self.allowed and is_loopback(name))):
                    await _send_detail(send, 400, "the Host header must name this lab: localhost, 127.0.0.1, "
                                                  "[::1], its address, or a name given by dicelab serve --allow-host")
                    return
        await self.app(scope, receive, send)


AdminKey = Annotated[str | None, Header(alias="X-Admin-Key")]


def check_admin_key(expected: str, given: str | None) -> None:
    """401 (:class:`Unauthorized`) without the researcher key, 403 (:class:`Forbidden`) with a wrong one."""
    if not given:
        raise Unauthorized("the study's data need the researcher key: send it in the X-Admin-Key header "
                           "(dicelab serve --admin-key, or the key it prints at start-up)")
    if not secrets.compare_digest(given.encode(), expected.encode()):
        raise Forbidden("wrong researcher key in X-Admin-Key (dicelab serve --admin-key, or the key it prints "
                        "at start-up)")


def researcher(request: Request, x_admin_key: AdminKey = None) -> None:
    """Dependency of the researcher-only routes: :func:`check_admin_key` against the app's key."""
    check_admin_key(request.app.state.admin_key, x_admin_key)


async def run_db(request: Request, fn: Callable[[Session], T], quick: bool = False) -> T:
    """Run ``fn(session)`` with its own session, opened and closed around the call.

    A session never outlives its call and never waits for another thread while holding a
    connection, so the connection pool cannot run dry under load. ``quick`` work (a game read or
    move: a few statements, about a millisecond) runs right in the event loop when the database
    answers without a network (:func:`dicelab.web.db.runs_locally`: SQLite, which takes one writer
    at a time anyway, or a PostgreSQL server on this machine), saving the thread switches and the
    worker threads' fight for the GIL at every round trip (on PostgreSQL under load: server p95
    6-12 ms in the loop against 25-33 ms in threads); on a remote server and for everything else it
    runs in a worker thread, at most ``DB_THREADS`` at once.
    """
    sessions = request.app.state.sessions
    if request.app.state.damaged is not None:  # nothing more is read from or written into it
        raise DatabaseDamaged(request.app.state.damaged)

    def call() -> T:
        with sessions() as db:
            return fn(db)

    if quick and request.app.state.quick_in_loop:
        return call()
    return await anyio.to_thread.run_sync(call, limiter=request.app.state.db_limiter)


class DatabaseDamaged(Exception):
    """The database is known to be damaged: every request that would use it gets 503."""


def mark_damaged(app: FastAPI, detail: str) -> None:
    """Remember database damage met by a request or the background check: ``/healthz`` reports it,
    every database request answers 503 and nothing more is written into the file (no checkpoint,
    also not at shutdown) until a restart."""
    if app.state.damaged is None:
        log.error("%s", detail)
    app.state.damaged = detail


def mark_full(app: FastAPI, detail: str) -> None:
    """Remember a full disk met by a request: ``/healthz`` reports it until there is room again."""
    if app.state.disk_full is None:
        log.error("%s", detail)
    app.state.disk_full = (detail, time.monotonic())


def disk_full(app: FastAPI) -> str | None:
    """The full-disk detail while the disk is still full: on SQLite while less than
    :data:`~dicelab.web.db.MIN_FREE_BYTES` are free beside the file; elsewhere for
    :data:`~dicelab.web.db.DISK_FULL_RETRY_S` seconds after the last request that met it."""
    if app.state.disk_full is None:
        return None
    detail, since = app.state.disk_full
    free = free_bytes(app.state.engine)
    if (free is not None and free >= MIN_FREE_BYTES) or (free is None and time.monotonic() - since > DISK_FULL_RETRY_S):
        app.state.disk_full = None
        log.warning("the disk under the database has room again")
        return None
    return detail


async def run_game_db(request: Request, fn: Callable[[Session], T]) -> T:
    """:func:`run_db` (quick) for work on one game; if the game's tables are not in memory (after a
    restart, or dropped from a full cache), build them off the event loop and run ``fn`` again."""
    for _ in range(3):
        try:
            return await run_db(request, fn, quick=True)
        except service.NotReady as need:
            await request.app.state.builds.prepare(registry.get(need.game), need.specs, need.params,
                                                   request.client.host if request.client else None)
    return await run_db(request, fn, quick=True)


# the background builder's own worker (dicelab.web.ahead): its long builds never delay a request's;
# new bots' builds: dicelab.web.builds (BOT_BUILDS, limited and shared)
AHEAD_BUILDS = HeavyPool(queue=2, name="the background builder")


Token = Annotated[str | None, Header(alias="X-Game-Token", max_length=200)]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key", max_length=80)]
MAX_STARTS_KEPT = 1000  # the game starts remembered by their Idempotency-Key (the oldest go first)
Goal = Annotated[int, Query(ge=2, le=100)]  # the explorer's query parameters
Sides = Annotated[int | None, Query(ge=2, le=12)]
Spec = Annotated[str, Query(max_length=80)]
StudyGame = Annotated[str | None, Query(max_length=16)]  # the analysis's filters
StudyGoal = Annotated[int | None, Query(ge=1, le=10_000)]
Participant = Annotated[str | None, Query(max_length=80)]
PuzzleId = Annotated[str, PathParam(max_length=40)]


def games_listing() -> list[dict[str, Any]]:
    """The start page's cards: every registered game, the most played first (its ``popularity``);
    playable when it offers bots (a Play)."""
    out = []
    for g in sorted(registry.games(), key=lambda g: (-g.popularity, g.title)):
        ready = g.play_name is not None
        out.append({"key": g.name, "name": g.title, "href": f"/play/{g.name}", "about": g.about, "ready": ready,
                    "status": "ready" if ready else "coming"})
    return out


def default_rules(entry: registry.GameEntry) -> Any:
    return entry.make_rules(**service.rule_params(entry, {}))


def opponents_of(entry: registry.GameEntry) -> list[dict[str, Any]]:
    """The bots a game offers under its default rules, for people: spec, name, description."""
    play = entry.play
    if play is None:
        return []
    return [{"spec": b.spec, "name": b.name, "description": b.description, "label": b.name}
            for b in play.bots(default_rules(entry))]


def levels_of(entry: registry.GameEntry) -> list[dict[str, Any]]:
    """A game's levels of strength under its default rules, for people: name, spec, measured
    strength (None until measured: :func:`dicelab.core.levels.known` never measures), the option's
    ``label`` ("Casual: wins 34% against perfect play"), its details line, and which level a
    newcomer starts at (``default``: the middle one)."""
    play = entry.play
    ranked = core_levels.ranks(play)
    if ranked is None:
        return []
    rules = default_rules(entry)
    ladder = ranked.levels(rules)
    try:
        measured = core_levels.known(entry.name, play, rules)
    except DicelabError:
        measured = None
    by_spec = {lv["spec"]: lv for lv in measured["levels"]} if measured else {}
    exact = bool(measured and measured["details"].get("exact"))
    against = "perfect play" if exact else f"the {ladder[-1].name} level"
    out = []
    for n, lv in enumerate(ladder):
        m = by_spec.get(lv.spec, {})
        s, iv = m.get("strength"), m.get("interval")
        if n == len(ladder) - 1:
            label = f"{lv.name}: the strongest" + (" (perfect play)" if exact and lv.name != "Perfect" else "")
        elif s is None:
            label = f"{lv.name}: strength being measured"
        else:
            label = f"{lv.name}: wins {100 * s:.0f}% against {against}"
        how = ("" if s is None or n == len(ladder) - 1 else f"; wins {100 * s:.1f}%" + (
            f" (95% interval {100 * iv[0]:.1f}-{100 * iv[1]:.1f}%)" if iv else " (exact)") + f" against {against}")
        out.append({"name": lv.name, "spec": lv.spec, "strength": s, "interval": iv, "label": label,
                    "details": lv.details, "default": n == len(ladder) // 2,
                    "description": f"{lv.details}{how} · bot {lv.spec}"})
    return out


def level_here(entry: registry.GameEntry, rules: Any, spec: str) -> str:
    """A level chosen on the setup form (its spec under the default rules) as the same level under
    ``rules`` (a hold-at target above a smaller goal comes down to it); any other spec as it is."""
    ranked = core_levels.ranks(entry.play)
    if ranked is None or not isinstance(spec, str):
        return spec
    for a, b in zip(ranked.levels(default_rules(entry)), ranked.levels(rules), strict=False):
        if a.spec == spec:
            return b.spec
    return spec


def rules_listing(entry: registry.GameEntry) -> list[dict[str, Any]]:
    """A game's rule parameters as a form needs them."""
    return [{"name": p.name, "default": p.default, "help": p.help, "lo": p.lo, "hi": p.hi,
             "choices": list(p.choices) if p.choices else None} for p in entry.params]


def create_app(db_url: str | None = None, warm: bool = True, admin_key: str | None = None,
               bind_host: str | None = None, allow_hosts: list[str] | None = None,
               check_every: float = QUICK_CHECK_EVERY_S, puzzle_set: str | Path | None = None) -> FastAPI:
    """The web lab on ``db_url`` (default: SQLite in the user data folder).

    ``warm`` starts the background builder (:mod:`dicelab.web.ahead`): every game's opponents and
    coach under the default rules, the levels' strengths and Liar's Dice's trained policies, most
    likely needed first (from the disk cache when they are there), so no game start waits;
    without it (tests) tables are built when a game first needs them. ``admin_key`` opens the
    study's data (None: a random key nobody knows, so they stay closed). ``bind_host`` is the
    address the server listens on, ``allow_hosts`` the further names clients may use: only Host
    headers naming these are served (:func:`host_allow_list`; None: any Host, as for the in-process
    test client); two Host headers are refused in any case. ``check_every``: seconds between the
    background ``PRAGMA quick_check`` runs on an SQLite file (damage found: 503 and ``/healthz``
    says so; the file is written no more, not even at shutdown). ``puzzle_set`` is the puzzle set
    to serve (None: the one shipped with dicelab).
    """
    allowed = host_allow_list(bind_host, allow_hosts)
    url = db_url or default_db_url()
    engine = open_database(url)  # a damaged SQLite file stops here with one line
    sessions = make_sessionmaker(engine)
    is_sqlite = engine.dialect.name == "sqlite"
    # SQLite allows one writer: serialise writers in-process so no request meets "database is locked";
    # PostgreSQL takes concurrent writers (a move's conditional UPDATE locks its game's row only)
    write_lock: contextlib.AbstractContextManager = threading.Lock() if is_sqlite else contextlib.nullcontext()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        builder = None
        if warm:  # every game's opponents, levels and trained policies, in the background
            app.state.ready.plan()
            builder = asyncio.get_running_loop().create_task(app.state.ready.run())
        damaged = lambda: app.state.damaged is not None  # noqa: E731
        stop_checkpoints = start_checkpoints(engine, paused=damaged)
        stop_checks = start_quick_checks(engine, lambda detail: mark_damaged(app, detail), every=check_every,
                                         paused=damaged)
        yield
        if builder is not None:
            builder.cancel()
            app.state.ready.stop()
        stop_checks()
        stop_checkpoints()
        app.state.heavy.close()
        AHEAD_BUILDS.close()
        if not damaged():  # a damaged file is left exactly as it was found (for a repair or a backup)
            final_checkpoint(engine)
        engine.dispose()

    app = FastAPI(
        title="dicelab web lab",
        version=__version__,
        description="Play jeopardy dice games against exact bots, with a coach and a recorded human-play study.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI loads from a CDN; the lab must work offline
        redoc_url=None,
    )
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.db_limiter = anyio.CapacityLimiter(DB_THREADS)
    app.state.is_sqlite = is_sqlite
    app.state.quick_in_loop = runs_locally(engine.url)
    app.state.db_url = url
    app.state.damaged = None  # the one-line description of damage a request met, for /healthz
    app.state.disk_full = None  # (detail, since) after a request met a full disk
    app.state.last_check = 0.0  # when a database error last made the lab check its file
    free = free_bytes(engine)
    if free is not None and free < MIN_FREE_BYTES:  # it starts (reads work), and says so from the start
        mark_full(app, f"the disk under the database is full ({free:,} bytes free in "
                       f"{Path(str(engine.url.database)).parent}); free some space, then try again")
    app.state.heavy = HeavyPool()  # the explorer's worker process (started at its first request)
    app.state.admin_key = admin_key or secrets.token_urlsafe(24)
    app.state.builds = BotBuilds()  # new bots' tables: limited per client, shared, off the event loop
    app.state.ready = Readiness(AHEAD_BUILDS, app.state.builds.prepare)  # the background builder (warm)
    starts: dict[str, asyncio.Future] = {}  # Idempotency-Key -> the answer of the game it started
    app.state.puzzles = puzzles.PuzzleBook(puzzle_set)
    app.add_middleware(BodyLimit)
    app.add_middleware(Admission)  # game requests over its limit: 503 at once, before any other work
    app.add_middleware(FrontDoor, static=HERE / "static")  # static files and an ok /healthz: nearly free
    app.add_middleware(HostCheck, allowed=allowed)
    app.add_middleware(SecurityHeaders)  # outermost: on every answer, 400 and 413 included
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    @app.exception_handler(DicelabError)
    async def _dicelab_error(_req: Request, exc: DicelabError) -> JSONResponse:
        code = 422
        if isinstance(exc, NotFound):
            code = 404
        elif isinstance(exc, Forbidden):
            code = 403
        elif isinstance(exc, Unauthorized):
            code = 401
        elif isinstance(exc, Conflict):
            code = 409
        elif isinstance(exc, explorer.Coming):
            code = 501
        return JSONResponse({"detail": messages.as_sentence(str(exc))}, status_code=code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_req: Request, exc: RequestValidationError) -> JSONResponse:
        # the default answer echoes the input back, which cannot be encoded when it holds NaN or
        # Infinity (Python's JSON parser accepts them); say where and what, not the value
        errors = [{"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
                  for e in exc.errors()]
        return JSONResponse({"detail": messages.sentences(list(exc.errors())), "errors": errors}, status_code=422)

    @app.exception_handler(Exception)
    async def _unexpected(_req: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse({"detail": "Internal error: the lab logged it; please try again."}, status_code=500)

    async def _db_error(req: Request, exc: Exception) -> JSONResponse:
        full = full_of(exc, req.app.state.engine)
        if full is not None:  # not damage: the lab goes on once there is room again
            mark_full(req.app, full)
            return JSONResponse({"detail": full}, status_code=503, headers={"Retry-After": str(DISK_FULL_RETRY_S)})
        detail = damage_of(exc)
        if detail is None:
            down = unavailable_of(exc)
            if down is not None:  # a database server that does not answer: 503, try again later
                log.warning("%s", down)
                return JSONResponse({"detail": down}, status_code=503, headers={"Retry-After": "5"})
            detail = await check_file(req.app)  # any other database error: is the file sound?
            if detail is None:
                return await _unexpected(req, exc)
        mark_damaged(req.app, detail)
        return JSONResponse({"detail": detail}, status_code=503)

    async def check_file(app: FastAPI) -> str | None:
        """``PRAGMA quick_check`` after an unexplained database error (at most every 5 s)."""
        if time.monotonic() - app.state.last_check < 5:
            return None
        app.state.last_check = time.monotonic()
        return await anyio.to_thread.run_sync(sqlite_damage, app.state.engine)

    @app.exception_handler(DatabaseDamaged)
    async def _damaged(_req: Request, exc: DatabaseDamaged) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503)

    for db_error in DB_ERRORS:
        app.add_exception_handler(db_error, _db_error)

    @app.exception_handler(Busy)
    async def _busy(_req: Request, exc: Busy) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": str(exc.retry_after)})

    # ------------------------------------------------------------------ API
    @app.get("/healthz", tags=["meta"])
    async def healthz(request: Request) -> Any:
        """ok after a real read of the database; 503 ``damaged`` once this, any request or the
        background check met damage; 503 ``disk-full`` while the disk under it is full."""
        if request.app.state.damaged is None:
            try:
                await run_db(request, health_read, quick=True)
            except DB_ERRORS as exc:
                if damage_of(exc) is None or full_of(exc, request.app.state.engine) is not None:
                    raise
                mark_damaged(request.app, damage_of(exc))
        if request.app.state.damaged is not None:
            return JSONResponse({"status": "damaged", "detail": request.app.state.damaged}, status_code=503)
        full = disk_full(request.app)
        if full is not None:
            return JSONResponse({"status": "disk-full", "detail": full}, status_code=503,
                                headers={"Retry-After": str(DISK_FULL_RETRY_S)})
        return {"status": "ok", "version": __version__, "games": [g.name for g in registry.games()],
                "caches": cache_stats(), "explorer_admitted": request.app.state.heavy.admitted}

    @app.get("/api/ready", tags=["meta"])
    def ready() -> dict[str, Any]:
        """How far the background builder is (opponents, levels, trained policies): the start page's block."""
        return app.state.ready.progress()

    @app.post("/api/games", status_code=201, tags=["games"])
    async def new_game(body: NewGame, request: Request, idempotency_key: IdemKey = None) -> dict[str, Any]:
        """Create a game against bots; the answer carries the id and the secret token. The same
        ``Idempotency-Key`` header twice (a double click, a retry) answers the one game it started."""
        if not idempotency_key:
            return await start_game(body, request)
        found = starts.get(idempotency_key)
        if found is not None:
            return await asyncio.shield(found)
        while len(starts) >= MAX_STARTS_KEPT:
            starts.pop(next(iter(starts)))
        fut = starts[idempotency_key] = asyncio.get_running_loop().create_future()
        try:
            out = await start_game(body, request)
        except BaseException as exc:
            starts.pop(idempotency_key, None)
            fut.set_exception(exc if isinstance(exc, Exception) else DicelabError("the game was not started"))
            fut.exception()  # retrieved: nobody may be waiting
            raise
        fut.set_result(out)
        return out

    async def start_game(body: NewGame, request: Request) -> dict[str, Any]:
        q = study_answers(body.questionnaire)
        entry = registry.get(body.game)
        play = service.play_of(entry)
        params = service.rule_params(entry, body.rule_values())
        rules = entry.make_rules(**params)
        players = service.players_of(entry.new_game(rules, 0))
        require(body.people <= players, f"people must be from 1 to {players} (the seats of this game), got {body.people}")
        bot_seats = players - body.people
        specs = [level_here(entry, rules, s) for s in body.opponents or [body.opponent or play.bots(rules)[0].spec]]
        idle_bot = level_here(entry, rules, body.idle_bot) if body.idle_bot else specs[0]  # an idle person's seat
        if len(specs) == 1:
            specs = specs * bot_seats
        require(len(specs) == bot_seats, f"give one bot, or one per bot seat ({bot_seats}), got {len(specs)}")
        needed = [*specs, idle_bot] if body.people > 1 else specs
        await app.state.builds.prepare(entry, needed, params, request.client.host if request.client else None)
        if hasattr(play, "wants"):  # trained policies this game plays without until they are built
            wanted = await anyio.to_thread.run_sync(play.wants, needed, rules)
            if wanted:
                app.state.ready.first(entry.name, wanted)

        def work(db: Session) -> dict[str, Any]:
            checked = service.seat_specs(entry, rules, bot_seats + 1, specs[0], specs) if specs else []
            idle = service.seat_specs(entry, rules, 2, idle_bot, [idle_bot])[0] if body.people > 1 else None
            with write_lock:
                g, token, events = service.create(db, entry, params, checked, human_first=body.human_first,
                                                  coach=body.coach, questionnaire=q, people=body.people,
                                                  idle_s=body.idle_s, idle_bot=idle)
            out = {"id": g.id, "token": token, "events": events, "state": service.public_state(db, g)}
            if body.people > 1:
                out["invites"] = people_mod.invites(g)
            return out

        return await run_game_db(request, work)

    @app.get("/api/games/rules", tags=["meta"])
    def game_rules() -> dict[str, Any]:
        """Every game's rule parameters (name, default, bounds or choices)."""
        return {g.name: rules_listing(g) for g in registry.games()}

    @app.get("/api/games/{game_id}", tags=["games"])
    async def read_game(game_id: str, request: Request, x_game_token: Token = None) -> dict[str, Any]:
        changed = joined = False

        def work(db: Session) -> dict[str, Any]:
            nonlocal changed, joined
            g = service.load(db, game_id, x_game_token)
            if g.people:  # a game between people: the reader joined; an idle seat goes to its bot
                with write_lock:
                    joined = people_mod.mark_joined(db, g)
                    try:
                        changed = people_mod.hand_over(db, g) is not None
                    except Stale:  # a move won meanwhile: nothing to hand over now
                        changed = True
                if changed:
                    g = service.load(db, game_id, x_game_token)
            live = service.open_live(g) if not service.is_legacy(g) else None
            return service.public_state(db, g, live=live)

        out = await run_game_db(request, work)
        if changed or joined:  # the others' pages show the change (a friend arrived: at once)
            hub.notify(game_id)
        return out

    hub = fanout.Hub()
    app.state.hub = hub
    hints: dict[tuple[str, int], int] = {}  # (game id, seat) -> the version at which that seat fetched a hint
    MAX_HINT_MARKS = 10_000

    @app.get("/api/games/{game_id}/hint", tags=["games"])
    async def game_hint(game_id: str, request: Request, x_game_token: Token = None) -> dict[str, Any]:
        """What each of your legal actions is worth now (the coach, from only what your seat may see),
        whether or not the game was started with the coach; your next move is recorded as hinted."""
        seat = 0

        def work(db: Session) -> dict[str, Any]:
            nonlocal seat
            g = service.load(db, game_id, x_game_token)
            seat = service.viewer(g)
            return service.hint(g)

        out = await run_game_db(request, work)
        if len(hints) >= MAX_HINT_MARKS:
            hints.pop(next(iter(hints)))
        hints[(game_id, seat)] = out["version"]
        return out

    @app.post("/api/games/{game_id}/moves", tags=["games"])
    async def move(game_id: str, body: MoveIn, request: Request, response: Response,
                   x_game_token: Token = None) -> dict[str, Any]:
        """The human's action; the bots answer in the same response (their actions are in ``events``)."""
        action = service.parse_action(body.action, {"k": body.k, "quantity": body.quantity, "face": body.face,
                                                    "dice": body.dice})

        done: tuple[Any, ...] = ()

        def work(db: Session) -> dict[str, Any]:
            nonlocal done
            for attempt in range(MOVE_TRIES):
                with write_lock:
                    g = service.load(db, game_id, x_game_token)
                    seat = service.viewer(g)
                    hinted = body.hint or hints.get((game_id, seat)) == body.expected_move
                    read_version = g.version
                    try:
                        live, events, bot_s = service.move(db, g, action, body.expected_move, hinted=hinted)
                    except Stale:  # another seat's secret choice or a hand-over won: read again
                        if attempt == MOVE_TRIES - 1:
                            raise
                        continue
                    hints.pop((game_id, seat), None)
                done = (g, live, live.stored, read_version)
                return {"events": service.seen_by(events, seat), "bot_ms": bot_s * 1000,
                        "state": service.public_state(db, g, with_moves=False, live=live)}
            raise AssertionError("unreachable")  # pragma: no cover

        since = hub.clock()
        out = await run_game_db(request, work)
        hub.publish(game_id, *done, since=since)  # the streams' updates: from this one snapshot
        response.headers["Server-Timing"] = f"bot;dur={out['bot_ms']:.3f}"  # the bots' share
        return out

    @app.post("/api/games/{game_id}/rematch", status_code=201, tags=["games"])
    async def rematch(game_id: str, request: Request, x_game_token: Token = None) -> dict[str, Any]:
        """A finished game between people: its rematch (the same people, rules and bots, every seat one
        place on), created by the first of its people to ask, found by the others; your seat in it opens
        with the same token as in this game."""
        def work(db: Session) -> dict[str, Any]:
            with write_lock:
                g = people_mod.rematch(db, service.load(db, game_id, x_game_token))
            return {"id": g.id, "state": service.public_state(db, g)}

        out = await run_game_db(request, work)
        hub.notify(game_id)
        return out

    @app.get("/api/events/{game_id}", tags=["games"])
    async def game_events(game_id: str, request: Request, after: int = Query(0, ge=0, le=10**9),
                          x_game_token: Token = None) -> Response:
        """Server-Sent Events for your seat (header X-Game-Token): at once and after every change of
        the game, one ``update`` event whose data is ``{"events": [the move records from seq
        after on], "state": the game as your seat sees it}``, as a move's answer; a comment line
        every few seconds keeps the connection open. A game between people's pages follow the
        other people's moves with it."""
        if hub.streams >= MAX_STREAMS:
            raise Busy(f"the server follows {MAX_STREAMS} games already; retry shortly", 5)

        async def look(since: int, seen: tuple | None) -> dict[str, Any] | None:
            joined = False

            def work(db: Session) -> dict[str, Any] | None:
                nonlocal joined
                g = service.load(db, game_id, x_game_token)
                if g.people and (g.idle_s or seen is None):
                    with write_lock:
                        if seen is None:
                            joined = people_mod.mark_joined(db, g)
                        try:
                            return people_mod.stream_update(db, g, since, seen)
                        except Stale:  # a move won the race with the hand-over: look again
                            return people_mod.stream_update(db, service.load(db, game_id, x_game_token), since, seen)
                return people_mod.stream_update(db, g, since, seen)
            out = await run_game_db(request, work)
            if joined:  # the others' streams show the friend arrived, at once
                hub.notify(game_id)
            return out

        fut = hub.subscribe(game_id)
        try:
            first = await look(after, None)  # 403 / 404 answered here, before the stream starts
        except BaseException:
            hub.unsubscribe(game_id, fut)
            raise

        seat = first["state"]["human_seat"]  # the seat this token opened (first: the database's answer)

        async def stream():
            nonlocal fut
            upd: dict[str, Any] | None = first
            since, seen = after, None
            try:
                while True:
                    if upd is not None and "state" in upd:
                        since = max(since, upd["state"]["version"])
                        data = json.dumps({"events": upd["events"], "state": upd["state"]}, separators=(",", ":"))
                        yield f"id: {upd['state']['version']}\nevent: update\ndata: {data}\n\n"
                    else:
                        yield ": ping\n\n"
                    if upd is not None:
                        seen = upd["sig"]
                        if upd.get("handed"):  # this stream handed an idle seat over: wake the others
                            hub.notify(game_id)
                    wait = upd["next"] if upd is not None else people_mod.HEARTBEAT_S
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(fut), wait)
                    woke, old = fut.done(), fut
                    fut = hub.subscribe(game_id)
                    hub.unsubscribe(game_id, old)
                    snap = hub.latest(game_id) if woke else None  # a move of this process: its snapshot
                    upd = None
                    if snap is not None:
                        with contextlib.suppress(service.NotReady):
                            upd = fanout.view_of(snap, seat, since, seen)
                        hub.shared += upd is not None
                    if upd is None:  # the first look, a heartbeat, a deadline, another change: the database
                        try:
                            upd = await look(since, seen)
                        except (NotFound, Forbidden):
                            return
            finally:
                hub.unsubscribe(game_id, fut)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @app.get("/api/games/{game_id}/review", tags=["games"])
    async def game_review(game_id: str, request: Request, x_game_token: Token = None) -> dict[str, Any]:
        """The game replayed with the coach at every decision (header X-Game-Token): the human's
        chance to win at each, the labels of the human's decisions and advice on the worst."""
        def work(db: Session) -> dict[str, Any]:
            return review.review(db, service.load(db, game_id, x_game_token))  # for the reader's seat

        return await run_game_db(request, work)

    @app.get("/api/games/shared/{share_id}", tags=["games"])
    async def shared_review(share_id: str, request: Request) -> dict[str, Any]:
        """The read-only review a share link opens (no token; a live game shows its public events only)."""
        def work(db: Session) -> dict[str, Any]:
            return review.review(db, review.load_shared(db, share_id), shared=True)

        return await run_game_db(request, work)

    @app.get("/api/opponents", tags=["meta"])
    def opponents() -> dict[str, Any]:
        """Every game's bots and levels of strength (under its default rules) and the games list."""
        return {"opponents": {g.name: opponents_of(g) for g in registry.games()},
                "levels": {g.name: levels_of(g) for g in registry.games()}, "games": games_listing()}

    # ------------------------------------------------------------------ puzzles (a stored set)
    @app.get("/api/puzzles", tags=["puzzles"])
    def puzzle_list(request: Request) -> dict[str, Any]:
        """Every puzzle's id, game, setting and rating, and today's puzzle (no answers)."""
        return request.app.state.puzzles.listing()

    @app.get("/api/puzzles/{puzzle_id}", tags=["puzzles"])
    def puzzle_question(puzzle_id: PuzzleId, request: Request) -> dict[str, Any]:
        """A puzzle's position and choices, without the values."""
        return request.app.state.puzzles.question(puzzle_id)

    @app.post("/api/puzzles/{puzzle_id}/answer", tags=["puzzles"])
    def puzzle_answer(puzzle_id: PuzzleId, body: PuzzleAnswer, request: Request) -> dict[str, Any]:
        """Whether your choice was the best, every choice's exact value, the rules of thumb and why."""
        return request.app.state.puzzles.answer(puzzle_id, body.action)

    # ------------------------------------------------------------------ study: export, analysis

    @app.get("/export/{table}.{fmt}", tags=["study"], dependencies=[Depends(researcher)])
    async def export(table: str, fmt: str, request: Request) -> Response:
        """``games``, ``moves`` or ``turns`` as CSV or Parquet (header ``X-Admin-Key``)."""
        data, media, name = await run_db(request, lambda db: study.export(db, table, fmt))
        return Response(data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.get("/api/analysis", tags=["study"], dependencies=[Depends(researcher)])
    async def analysis_json(request: Request, game: StudyGame = None, goal: StudyGoal = None,
                            participant: Participant = None) -> dict[str, Any]:
        """The numbers behind the study's plots for one game and goal (header ``X-Admin-Key``)."""
        return await run_db(request, lambda db: study.analysis(db, game, goal, participant))

    @app.get("/analysis/plot/{name}.png", tags=["study"], dependencies=[Depends(researcher)])
    async def analysis_plot(name: str, request: Request, game: StudyGame = None, goal: StudyGoal = None,
                            participant: Participant = None) -> Response:
        png = await run_db(request, lambda db: study.plot(db, name, game, goal, participant))
        return Response(png, media_type="image/png")

    # ------------------------------------------------------------------ strategy explorer
    # Checked here (422 for bad or absurd input), computed in the explorer's worker process (503
    # with Retry-After when its queue is full); the event loop only waits.
    async def explore(request: Request, tool: str, media: str, **params: Any) -> Response:
        checked = explorer.check_job(tool, params)
        data = await request.app.state.heavy.run("dicelab.web.explorer", "job", tool, checked)
        return Response(data, media_type=media)

    JSON, PNG = "application/json", "image/png"

    @app.get("/api/explorer/pig", tags=["explorer"])
    async def explorer_pig(request: Request, variant: str = "standard", goal: Goal = 100,
                           sides: Sides = None, k: int = Query(0, ge=0, le=99)) -> Response:
        return await explore(request, "pig-tables", JSON, variant=variant, goal=goal, sides=sides, k=k)

    @app.get("/api/explorer/pig/state", tags=["explorer"])
    async def explorer_pig_state(request: Request, i: int = Query(ge=0, le=99), j: int = Query(ge=0, le=99),
                                 k: int = Query(ge=0, le=99), variant: str = "standard", goal: Goal = 100,
                                 sides: Sides = None) -> Response:
        """Optimal Pig at one state (i, j, k): the exact values of rolling and of holding."""
        return await explore(request, "pig-state", JSON, variant=variant, goal=goal, sides=sides, i=i, j=j, k=k)

    @app.get("/explorer/plot/pig-{kind}.png", tags=["explorer"])
    async def explorer_plot(request: Request, kind: str, variant: str = "standard", goal: Goal = 100,
                            sides: Sides = None, k: int = Query(0, ge=0, le=99)) -> Response:
        return await explore(request, "pig-plot", PNG, variant=variant, goal=goal, sides=sides, kind=kind, k=k)

    @app.get("/api/explorer/evaluate", tags=["explorer"])
    async def explorer_evaluate(request: Request, a: Spec, b: Spec, variant: str = "standard", goal: Goal = 100,
                                sides: Sides = None) -> Response:
        return await explore(request, "evaluate", JSON, variant=variant, goal=goal, sides=sides, a=a, b=b)

    @app.get("/explorer/plot/evaluate.png", tags=["explorer"])
    async def explorer_evaluate_plot(request: Request, a: Spec, b: Spec, variant: str = "standard",
                                     goal: Goal = 100, sides: Sides = None) -> Response:
        return await explore(request, "evaluate", PNG, variant=variant, goal=goal, sides=sides, a=a, b=b, plot=True)

    @app.get("/api/explorer/tournament", tags=["explorer"])
    async def explorer_tournament(request: Request, specs: str = Query(..., max_length=400),
                                  variant: str = "standard", goal: Goal = 100, sides: Sides = None) -> Response:
        return await explore(request, "tournament", JSON, variant=variant, goal=goal, sides=sides, specs=specs)

    @app.get("/explorer/plot/tournament.png", tags=["explorer"])
    async def explorer_tournament_plot(request: Request, specs: str = Query(..., max_length=400),
                                       variant: str = "standard", goal: Goal = 100, sides: Sides = None) -> Response:
        return await explore(request, "tournament", PNG, variant=variant, goal=goal, sides=sides, specs=specs,
                             plot=True)

    @app.get("/api/explorer/simpig-curve", tags=["explorer"])
    async def explorer_simpig(request: Request, lo: int = Query(10, ge=1, le=100), hi: int = Query(40, ge=1, le=100),
                              goal: Goal = 100) -> Response:
        return await explore(request, "simpig-curve", JSON, lo=lo, hi=hi, goal=goal)

    @app.get("/explorer/plot/simpig-curve.png", tags=["explorer"])
    async def explorer_simpig_plot(request: Request, lo: int = Query(10, ge=1, le=100),
                                   hi: int = Query(40, ge=1, le=100), goal: Goal = 100) -> Response:
        return await explore(request, "simpig-curve", PNG, lo=lo, hi=hi, goal=goal, plot=True)

    # ------------------------------------------------------------------ pages
    def page(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"version": __version__, **ctx}, status_code=status_code)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        return page(request, "index.html", games=games_listing(), daily=request.app.state.puzzles.daily())

    @app.get("/puzzles", response_class=HTMLResponse, include_in_schema=False)
    def puzzles_page(request: Request) -> HTMLResponse:
        """The puzzles: a list, your rating and streak (this browser's), and a puzzle to solve."""
        book = request.app.state.puzzles
        return page(request, "puzzles.html", puzzle_id="", listing=book.listing())

    @app.get("/puzzles/{puzzle_id}", response_class=HTMLResponse, include_in_schema=False)
    def puzzle_page(request: Request, puzzle_id: str) -> HTMLResponse:
        """One puzzle; its script asks for the question and sends the answer."""
        book = request.app.state.puzzles
        known = puzzle_id[:40] in {p["id"] for p in book.puzzles}
        return page(request, "puzzles.html", status_code=200 if known else 404,
                    puzzle_id=puzzle_id[:40] if known else "", missing=None if known else puzzle_id[:40],
                    listing=book.listing())

    @app.get("/play/{game}", response_class=HTMLResponse, include_in_schema=False)
    def play_page(request: Request, game: str) -> HTMLResponse:
        """A game's own page where it has one (``templates/<game>.html``), else the generic page,
        driven by the state's legal actions and observation; the games list while it offers no bots."""
        try:
            entry = registry.get(game)
        except DicelabError:
            return page(request, "index.html", status_code=404, games=games_listing())
        if entry.play is None:
            return page(request, "index.html", games=games_listing())
        own = f"{entry.name}.html"
        name = own if (HERE / "templates" / own).is_file() else "play.html"
        levels = levels_of(entry)
        return page(request, name, game=entry, bots=opponents_of(entry), opponents=opponents_of(entry),
                    rules=rules_listing(entry), levels=levels, level_specs=[lv["spec"] for lv in levels])

    @app.get("/review/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    def review_page(request: Request, game_id: str) -> HTMLResponse:
        """A game's review; its script reads the game with the token this browser keeps."""
        return page(request, "review.html", game_id=game_id[:40], share_id="")

    @app.get("/share/{share_id}", response_class=HTMLResponse, include_in_schema=False)
    def share_page(request: Request, share_id: str) -> HTMLResponse:
        """The read-only review of a shared game."""
        return page(request, "review.html", game_id="", share_id=share_id[:80])

    @app.get("/games", response_class=HTMLResponse, include_in_schema=False)
    def my_games_page(request: Request) -> HTMLResponse:
        """"My games": the games this browser played (its local storage), each opening at its review."""
        return page(request, "games.html")

    @app.get("/analysis", response_class=HTMLResponse, include_in_schema=False)
    async def analysis_page(request: Request, x_admin_key: AdminKey = None, game: StudyGame = None,
                            goal: StudyGoal = None, participant: Participant = None) -> HTMLResponse:
        """With the key (the page's script sends it) the study's numbers; without, the form asking
        for it (200: a visitor's browser meets a page that asks, not a failed request); a wrong key 403."""
        try:
            check_admin_key(request.app.state.admin_key, x_admin_key)
        except (Unauthorized, Forbidden) as exc:
            return page(request, "analysis.html", status_code=200 if isinstance(exc, Unauthorized) else 403, a=None)
        a = await run_db(request, lambda db: study.analysis(db, game, goal, participant))
        return page(request, "analysis.html", a=a, setting=study.setting(a), answer_label=study.ANSWER_LABEL,
                    pref_label=study.PREF_LABEL)

    @app.get("/about", response_class=HTMLResponse, include_in_schema=False)
    def about_page(request: Request) -> HTMLResponse:
        """What the lab is, how to play with the keyboard, and the papers it rests on."""
        return page(request, "about.html", games=games_listing())

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        """The lab's icon (an SVG die) for browsers that ask for /favicon.ico."""
        return Response((HERE / "static" / "favicon.svg").read_bytes(), media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    @app.get("/explorer", response_class=HTMLResponse, include_in_schema=False)
    def explorer_page(request: Request) -> HTMLResponse:
        return page(request, "explorer.html", tools=explorer.tools())

    return app

