"""The FastAPI application: pages, the JSON API, exports, the analysis page and the explorer.

``create_app(db_url)`` builds a self-contained app (its own engine, migrations run at start-up), so
tests can make as many as they like, each on its own temporary database.

The JSON API (described at ``/openapi.json``)::

    POST /api/games                 create a game -> {id, token, state, events}
    GET  /api/games/{id}            read it        (header X-Game-Token)
    POST /api/games/{id}/moves      make a move    (header X-Game-Token; body {"action": ...,
                                    "expected_move": VERSION}: roll|hold for Pig, target + k for
                                    simultaneous Pig, throw|stop for Super Six, bid + quantity +
                                    face or call for Liar's Dice)
    GET  /healthz                   {"status": "ok"}

Answers: 201/200 on success; 404 for an unknown game, 403 for a wrong token, 409 for a stale move
or a move in a finished game, 413 for a body over 16 KiB, 422 for malformed JSON or bad values, 400
for JSON nested too deeply to parse. The study's data (``/export/*``, ``/api/analysis``,
``/analysis``, ``/analysis/plot/*``) need the researcher key (header ``X-Admin-Key``): 401 without
it, 403 for a wrong one. Every answer carries a Content-Security-Policy and no-framing headers;
bound to loopback, a request whose Host is not a loopback name gets 400 (DNS rebinding).
"""

from __future__ import annotations

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
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from dicelab import __version__
from dicelab.core.errors import DicelabError, require
from dicelab.pig.rules import PigRules
import dicelab.web.bots as bots
import dicelab.web.explorer as explorer
import dicelab.web.liars_play as liars_play
import dicelab.web.pig_play as pig_play
import dicelab.web.simpig_play as simpig_play
import dicelab.web.study as study
import dicelab.web.supersix_play as supersix_play
from dicelab.web.db import (
    DB_ERRORS,
    damage_of,
    default_db_url,
    health_read,
    make_sessionmaker,
    open_database,
    start_checkpoints,
)
from dicelab.web.gamecore import Forbidden, Unauthorized
from dicelab.web.limits import Admission, Busy, HeavyPool, cache_stats

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
log = logging.getLogger("dicelab.web")
T = TypeVar("T")
DB_THREADS = 16


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


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: Literal["pig", "simpig", "supersix", "liars"] = Field("pig", description="pig, simpig, supersix or liars")
    variant: Literal["standard", "piglet", "two-dice"] = "standard"
    goal: int = Field(100, ge=2, le=pig_play.WEB_MAX_GOAL)
    sides: int | None = Field(None, ge=2, le=pig_play.WEB_MAX_SIDES)
    opponent: str = Field("optimal", max_length=80, description=(
        "pig: optimal, hold:N, keep-pace, turtle, best-response:SPEC; "
        "simpig: br:hold:N, svima, equilibrium, hold:N, pw:K<T,...,K"))
    players: int = Field(2, ge=2, le=4, description="simpig: 2 to 4 players (you and the bots)")
    sticks: int = Field(4, ge=1, le=30, description="supersix: sticks each")
    dice: int = Field(3, ge=1, le=6, description="liars: dice each")
    wild: Literal["none", "ones"] = Field("none", description="liars: ones count as any face, or not")
    opponents: list[Annotated[str, Field(max_length=80)]] | None = Field(
        None, max_length=3, description="simpig: one bot spec per bot seat (default: `opponent` for all)")
    human_first: bool | None = Field(True, description="true: you start; false: the bot starts; null: a coin")
    coach: bool = False
    questionnaire: Questionnaire | None = None


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["roll", "hold", "target", "throw", "stop", "bid", "call"] = Field(
        description="pig: roll or hold; simpig: target; supersix: throw or stop; liars: bid or call")
    k: int | None = Field(None, ge=1, le=1000, description="simpig: your hold-at target for this turn")
    quantity: int | None = Field(None, ge=1, le=100, description="liars: the bid's quantity")
    face: int | None = Field(None, ge=1, le=20, description="liars: the bid's face")
    expected_move: int = Field(ge=0, le=10**9, description="the game's version you are answering")


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


class LoopbackHost:
    """ASGI middleware for a lab bound to loopback: 400 unless the Host header names a loopback
    address (with any port). A web page that rebinds its own domain to 127.0.0.1 (DNS rebinding)
    still sends its domain as the Host, so it cannot reach the lab."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1")
            if not is_loopback(host_name(host)):
                await _send_detail(send, 400, "the Host header must name this machine (localhost, 127.0.0.1 or "
                                              "[::1]) while the lab listens on a loopback address")
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
    connection, so the connection pool cannot run dry under load. ``quick`` work on SQLite (a game
    read or move: a few statements on one local file, about a millisecond, and SQLite takes one
    writer at a time anyway) runs right in the event loop, saving two thread switches per request;
    everything else runs in a worker thread, at most ``DB_THREADS`` at once.
    """
    sessions = request.app.state.sessions

    def call() -> T:
        with sessions() as db:
            return fn(db)

    if quick and request.app.state.is_sqlite:
        return call()
    return await anyio.to_thread.run_sync(call, limiter=request.app.state.db_limiter)


class _NotPrepared(Exception):
    """Raised inside quick work when a game's bot or coach tables are not in memory yet."""

    def __init__(self, spec: str, rules: Any) -> None:
        super().__init__(spec)
        self.spec, self.rules = spec, rules


def check_prepared(g: Any) -> None:
    if g.game == "liars":
        if not liars_play.is_ready(g):
            raise _NotPrepared(g.opponent, g)
        return
    if g.game == "supersix":
        if not supersix_play.is_ready(g.goal):
            raise _NotPrepared(g.opponent, g)
        return
    if g.game == "simpig":
        specs = g.opponent.split(",")
        if not simpig_play.is_ready(specs, g.goal, g.players):
            raise _NotPrepared(g.opponent, g)
        return
    rules = pig_play.rules_of(g)
    if not bots.is_ready(g.opponent, rules):
        raise _NotPrepared(g.opponent, rules)


def state_of(db: Session, g: Any, with_moves: bool = True) -> dict[str, Any]:
    mod = {"simpig": simpig_play, "supersix": supersix_play, "liars": liars_play}.get(g.game, pig_play)
    return mod.public_state(db, g, with_moves=with_moves)


def mark_damaged(app: FastAPI, detail: str) -> None:
    """Remember database damage met by a request: ``/healthz`` reports it until a restart."""
    if app.state.damaged is None:
        log.error("%s", detail)
    app.state.damaged = detail


async def run_game_db(request: Request, fn: Callable[[Session], T]) -> T:
    """:func:`run_db` (quick) for work on one game; if the game's tables are not in memory (after a
    restart, or dropped from a full cache), build them in a worker thread and run ``fn`` again."""
    for _ in range(3):
        try:
            return await run_db(request, fn, quick=True)
        except _NotPrepared as need:
            await prepare_game(need)
    return await run_db(request, fn, quick=True)


async def prepare_game(need: _NotPrepared) -> None:
    """Build the tables a game needs (the bot's, the coach's) in a worker thread."""
    if isinstance(need.rules, PigRules):
        await prepare_bot(need.spec, need.rules)
    elif need.rules.game == "liars":
        await anyio.to_thread.run_sync(liars_play.prepare, need.rules)
    elif need.rules.game == "supersix":
        await anyio.to_thread.run_sync(supersix_play.solution, need.rules.goal)
    else:
        g = need.rules
        await anyio.to_thread.run_sync(simpig_play.prepare, g.opponent.split(","), g.goal, g.players)


# heavy Pig bot builds (two-dice solves, best responses on big dice): one worker process for all
BOT_BUILDS = HeavyPool(queue=16, name="the bot builder")


async def prepare_bot(spec: str, rules: PigRules) -> None:
    """Solve/compile what the bot and the coach need, so quick work never blocks: in a worker
    thread, or when heavy (:func:`bots.needs_worker`) in a worker process, off the server's GIL."""
    if bots.is_ready(spec, rules):
        return
    if bots.needs_worker(spec, rules):
        data = await BOT_BUILDS.run("dicelab.web.bots", "build_bytes", spec, rules.variant, rules.goal, rules.sides)
        bots.install(spec, rules, data)
    else:
        await anyio.to_thread.run_sync(bots.prepare, spec, rules)


Token = Annotated[str | None, Header(alias="X-Game-Token", max_length=200)]
Goal = Annotated[int, Query(ge=2, le=100)]  # the explorer's query parameters
Sides = Annotated[int | None, Query(ge=2, le=12)]
Spec = Annotated[str, Query(max_length=80)]


GAMES = [
    {"key": "pig", "name": "Pig", "href": "/play/pig", "module": "dicelab.pig.rules",
     "about": "Two players race to the goal; roll as often as you dare, a 1 loses the turn."},
    {"key": "simpig", "name": "Simultaneous Pig", "href": "/play/simpig", "module": "dicelab.simpig",
     "about": "Everyone picks a hold-at target at once (seed 000); 2 to 4 players."},
    {"key": "supersix", "name": "Super Six", "href": "/play/supersix", "module": "dicelab.supersix",
     "about": "Put sticks into the lid's pits; the first with no sticks left wins (seed 001)."},
    {"key": "liars", "name": "Liar's Dice", "href": "/play/liars", "module": "dicelab.liars",
     "about": "Bid on the hidden dice or call the last bid a lie (seed 004)."},
]


def games_listing() -> list[dict[str, Any]]:
    out = []
    for g in GAMES:
        ready = g["href"] is not None and bots.module_available(g["module"])
        engine = bots.module_available(g["module"])
        out.append({**g, "ready": ready,
                    "status": "ready" if ready else ("engine landed, page coming" if engine else "coming")})
    return out


def create_app(db_url: str | None = None, warm: bool = True, admin_key: str | None = None,
               bind_host: str | None = None) -> FastAPI:
    """The web lab on ``db_url`` (default: SQLite in the user data folder).

    ``warm`` solves Pig to 100 in a background thread at start-up (from the disk cache when it is
    there), so the first game against the optimal bot starts at once. ``admin_key`` opens the
    study's data (None: a random key nobody knows, so they stay closed). ``bind_host`` is the
    address the server listens on: on a loopback address only loopback Host headers are served
    (None: any Host, as for the in-process test client).
    """
    url = db_url or default_db_url()
    engine = open_database(url)  # a damaged SQLite file stops here with one line
    sessions = make_sessionmaker(engine)
    # SQLite allows one writer: serialise writers in-process so no request meets "database is locked"
    write_lock: contextlib.AbstractContextManager = (
        threading.Lock() if url.startswith("sqlite") else contextlib.nullcontext()
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        if warm:
            threading.Thread(target=_warm, name="dicelab-warm", daemon=True).start()
        stop_checkpoints = start_checkpoints(engine)
        yield
        stop_checkpoints()
        app.state.heavy.close()
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
    app.state.is_sqlite = url.startswith("sqlite")
    app.state.db_url = url
    app.state.damaged = None  # the one-line description of damage a request met, for /healthz
    app.state.heavy = HeavyPool()  # the explorer's worker process (started at its first request)
    app.state.admin_key = admin_key or secrets.token_urlsafe(24)
    app.add_middleware(BodyLimit)
    app.add_middleware(Admission)  # game requests over its limit: 503 at once, before any other work
    if bind_host is not None and is_loopback(host_name(bind_host)):
        app.add_middleware(LoopbackHost)
    app.add_middleware(SecurityHeaders)  # outermost: on every answer, 400 and 413 included
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    @app.exception_handler(DicelabError)
    async def _dicelab_error(_req: Request, exc: DicelabError) -> JSONResponse:
        code = 422
        if isinstance(exc, pig_play.NotFound):
            code = 404
        elif isinstance(exc, pig_play.Forbidden):
            code = 403
        elif isinstance(exc, Unauthorized):
            code = 401
        elif isinstance(exc, pig_play.Conflict):
            code = 409
        elif isinstance(exc, explorer.Coming):
            code = 501
        return JSONResponse({"detail": str(exc)}, status_code=code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_req: Request, exc: RequestValidationError) -> JSONResponse:
        # the default answer echoes the input back, which cannot be encoded when it holds NaN or
        # Infinity (Python's JSON parser accepts them); say where and what, not the value
        detail = [{"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
                  for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(Exception)
    async def _unexpected(_req: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse({"detail": "internal error"}, status_code=500)

    async def _db_error(req: Request, exc: Exception) -> JSONResponse:
        detail = damage_of(exc)
        if detail is None:
            return await _unexpected(req, exc)
        mark_damaged(req.app, detail)
        return JSONResponse({"detail": detail}, status_code=503)

    for db_error in DB_ERRORS:
        app.add_exception_handler(db_error, _db_error)

    @app.exception_handler(Busy)
    async def _busy(_req: Request, exc: Busy) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": str(exc.retry_after)})

    # ------------------------------------------------------------------ API
    @app.get("/healthz", tags=["meta"])
    async def healthz(request: Request) -> Any:
        """ok after a real read of the database; 503 ``damaged`` once this or any request met damage."""
        if request.app.state.damaged is None:
            try:
                await run_db(request, health_read, quick=True)
            except DB_ERRORS as exc:
                if damage_of(exc) is None:
                    raise
                mark_damaged(request.app, damage_of(exc))
        if request.app.state.damaged is not None:
            return JSONResponse({"status": "damaged", "detail": request.app.state.damaged}, status_code=503)
        return {"status": "ok", "version": __version__, "pig_100_solved": bots.solved(PigRules()),
                "caches": cache_stats(), "explorer_admitted": request.app.state.heavy.admitted}

    @app.post("/api/games", status_code=201, tags=["games"])
    async def new_game(body: NewGame, request: Request) -> dict[str, Any]:
        """Create a game against a bot; the answer carries the id and the secret token."""
        q = study_answers(body.questionnaire)
        if body.game == "simpig":
            return await new_simpig(body, q, request)
        if body.game == "supersix":
            return await new_supersix(body, q, request)
        if body.game == "liars":
            return await new_liars(body, q, request)
        rules = pig_play.make_rules(body.variant, body.goal, body.sides)
        await prepare_bot(bots.parse_opponent(body.opponent, rules), rules)

        def work(db: Session) -> dict[str, Any]:
            with write_lock:
                created = pig_play.create_game(
                    db, variant=body.variant, goal=body.goal, sides=body.sides, opponent=body.opponent,
                    human_first=body.human_first, coach=body.coach, questionnaire=q)
            g = created.game
            return {"id": g.id, "token": created.token, "events": created.events,
                    "state": pig_play.public_state(db, g)}

        return await run_db(request, work, quick=True)

    async def new_simpig(body: NewGame, q: dict | None, request: Request) -> dict[str, Any]:
        if not simpig_play.available():
            raise DicelabError("simultaneous Pig is coming: its engine is not installed")
        specs = body.opponents or [body.opponent]
        if len(specs) == 1:
            specs = specs * (body.players - 1)
        checked = await anyio.to_thread.run_sync(
            lambda: [simpig_play.check_spec(s, body.goal, body.players) for s in specs])
        await anyio.to_thread.run_sync(simpig_play.prepare, checked, body.goal, body.players)

        def work(db: Session) -> dict[str, Any]:
            with write_lock:
                created = simpig_play.create_game(db, goal=body.goal, players=body.players, opponents=checked,
                                                  coach=body.coach, questionnaire=q)
            return {"id": created.game.id, "token": created.token, "events": [],
                    "state": simpig_play.public_state(db, created.game)}

        return await run_db(request, work, quick=True)

    async def new_supersix(body: NewGame, q: dict | None, request: Request) -> dict[str, Any]:
        if not supersix_play.available():
            raise DicelabError("Super Six is coming: its engine is not installed")
        spec = supersix_play.check_spec(body.opponent)
        await anyio.to_thread.run_sync(supersix_play.solution, body.sticks)

        def work(db: Session) -> dict[str, Any]:
            with write_lock:
                created = supersix_play.create_game(db, sticks=body.sticks, opponent=spec,
                                                    human_first=body.human_first, coach=body.coach, questionnaire=q)
            return {"id": created.game.id, "token": created.token, "events": created.events,
                    "state": supersix_play.public_state(db, created.game)}

        return await run_db(request, work, quick=True)

    async def new_liars(body: NewGame, q: dict | None, request: Request) -> dict[str, Any]:
        if not liars_play.available():
            raise DicelabError("Liar's Dice is coming: its engine is not installed")
        specs = liars_play.check_specs(body.opponents or [body.opponent], body.players)

        def work(db: Session) -> dict[str, Any]:
            with write_lock:
                created, _ = liars_play.create_game(db, players=body.players, dice=body.dice, wild=body.wild,
                                                    opponents=specs, questionnaire=q)
            return {"id": created.game.id, "token": created.token, "events": [],
                    "state": liars_play.public_state(db, created.game)}

        return await run_db(request, work, quick=True)

    @app.get("/api/games/{game_id}", tags=["games"])
    async def read_game(game_id: str, request: Request, x_game_token: Token = None) -> dict[str, Any]:
        def work(db: Session) -> dict[str, Any]:
            g = pig_play.load_game(db, game_id, x_game_token)
            check_prepared(g)
            return state_of(db, g)

        return await run_game_db(request, work)

    @app.post("/api/games/{game_id}/moves", tags=["games"])
    async def move(game_id: str, body: MoveIn, request: Request, response: Response,
                   x_game_token: Token = None) -> dict[str, Any]:
        """Roll or hold; the bot answers in the same response (its moves are in ``events``)."""

        def work(db: Session) -> dict[str, Any]:
            with write_lock:
                g = pig_play.load_game(db, game_id, x_game_token)
                check_prepared(g)
                rounds: list = []
                if (body.quantity is not None or body.face is not None) and g.game != "liars":
                    raise DicelabError("quantity and face are for Liar's Dice bids only")
                if g.game == "liars":
                    if body.action not in ("bid", "call") or body.k is not None:
                        raise DicelabError("in Liar's Dice a move is bid (with quantity and face) or call")
                    events, bot_s, rounds = liars_play.make_move(db, g, body.action, body.quantity, body.face,
                                                                 body.expected_move)
                elif g.game == "supersix":
                    if body.action not in ("throw", "stop") or body.k is not None:
                        raise DicelabError("in Super Six a move is {\"action\": \"throw\" or \"stop\"}")
                    events, bot_s = supersix_play.make_move(db, g, body.action, body.expected_move)
                elif g.game == "simpig":
                    if body.action != "target":
                        raise DicelabError("in simultaneous Pig a move is {\"action\": \"target\", \"k\": K}")
                    events, bot_s = simpig_play.make_move(db, g, body.k, body.expected_move)
                else:
                    if body.action not in ("roll", "hold") or body.k is not None:
                        raise DicelabError("in Pig a move is {\"action\": \"roll\" or \"hold\"} without k")
                    events, bot_s = pig_play.make_move(db, g, body.action, body.expected_move)
            out = {"events": events, "bot_ms": bot_s * 1000, "state": state_of(db, g, with_moves=False)}
            if g.game == "liars":
                out["rounds"] = rounds  # the rounds called during this request, hands shown
            return out

        out = await run_game_db(request, work)
        response.headers["Server-Timing"] = f"bot;dur={out['bot_ms']:.3f}"  # the bot's share
        return out

    @app.get("/api/opponents", tags=["meta"])
    def opponents() -> dict[str, Any]:
        return {"pig": bots.pig_opponents(), "games": games_listing()}

    # ------------------------------------------------------------------ study: export, analysis

    @app.get("/export/{table}.{fmt}", tags=["study"], dependencies=[Depends(researcher)])
    async def export(table: str, fmt: str, request: Request) -> Response:
        """``games``, ``moves`` or ``turns`` as CSV or Parquet (header ``X-Admin-Key``)."""
        data, media, name = await run_db(request, lambda db: study.export(db, table, fmt))
        return Response(data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.get("/api/analysis", tags=["study"], dependencies=[Depends(researcher)])
    async def analysis_json(request: Request) -> dict[str, Any]:
        """The numbers behind the study's plots (header ``X-Admin-Key``)."""
        return await run_db(request, study.analysis)

    @app.get("/analysis/plot/{name}.png", tags=["study"], dependencies=[Depends(researcher)])
    async def analysis_plot(name: str, request: Request) -> Response:
        return Response(await run_db(request, lambda db: study.plot(db, name)), media_type="image/png")

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
                           sides: Sides = None) -> Response:
        return await explore(request, "pig", JSON, variant=variant, goal=goal, sides=sides)

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
        return await explore(request, "simpig", JSON, lo=lo, hi=hi, goal=goal)

    @app.get("/explorer/plot/simpig-curve.png", tags=["explorer"])
    async def explorer_simpig_plot(request: Request, lo: int = Query(10, ge=1, le=100),
                                   hi: int = Query(40, ge=1, le=100), goal: Goal = 100) -> Response:
        return await explore(request, "simpig", PNG, lo=lo, hi=hi, goal=goal, plot=True)

    # ------------------------------------------------------------------ pages
    def page(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"version": __version__, **ctx}, status_code=status_code)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        return page(request, "index.html", games=games_listing())

    @app.get("/play/pig", response_class=HTMLResponse, include_in_schema=False)
    def play_pig(request: Request) -> HTMLResponse:
        return page(request, "pig.html", opponents=bots.pig_opponents())

    def game_page(request: Request, mod: Any, name: str) -> HTMLResponse:
        """The page ``name`` of the game module ``mod``; the games list while its engine is missing."""
        if not mod.available():
            return page(request, "index.html", games=games_listing())
        return page(request, name, bots=mod.BOTS)

    @app.get("/play/simpig", response_class=HTMLResponse, include_in_schema=False)
    def play_simpig(request: Request) -> HTMLResponse:
        return game_page(request, simpig_play, "simpig.html")

    @app.get("/play/supersix", response_class=HTMLResponse, include_in_schema=False)
    def play_supersix(request: Request) -> HTMLResponse:
        return game_page(request, supersix_play, "supersix.html")

    @app.get("/play/liars", response_class=HTMLResponse, include_in_schema=False)
    def play_liars(request: Request) -> HTMLResponse:
        return game_page(request, liars_play, "liars.html")

    @app.get("/analysis", response_class=HTMLResponse, include_in_schema=False)
    async def analysis_page(request: Request, x_admin_key: AdminKey = None) -> HTMLResponse:
        """With the key (the page's script sends it) the study's numbers; without, the form asking for it."""
        try:
            check_admin_key(request.app.state.admin_key, x_admin_key)
        except (Unauthorized, Forbidden) as exc:
            return page(request, "analysis.html", status_code=401 if isinstance(exc, Unauthorized) else 403, a=None)
        return page(request, "analysis.html", a=await run_db(request, study.analysis))

    @app.get("/explorer", response_class=HTMLResponse, include_in_schema=False)
    def explorer_page(request: Request) -> HTMLResponse:
        return page(request, "explorer.html", tools=explorer.tools())

    return app


def _warm() -> None:
    try:
        bots.solution(PigRules())
    except Exception:  # pragma: no cover - warm-up is best effort; requests solve on demand
        log.exception("warm-up solve failed")
