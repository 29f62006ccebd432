"""Web lab benchmark: a Pig move over HTTP beside a bare FastAPI request, then 200 games at once,
on SQLite and on PostgreSQL side by side.

``--db sqlite``, ``--db postgresql``, ``--db both`` (the default) or ``--db all``: which databases.
SQLite is a new file in WAL mode (``synchronous=NORMAL``, the lab's default); PostgreSQL is a
throwaway server started from Debian's binaries by ``tests/web/pg.py`` with its durable defaults
(``fsync=on``, ``synchronous_commit=on``: every commit waits for its WAL flush), reached over its
Unix socket; ``postgresql-async`` is the same server with ``synchronous_commit=off`` (a commit does
not wait for the flush: like SQLite's NORMAL, a crash of the database's machine may lose the last
moves), to show what the flush costs; ``all`` runs the three. ``--saturation`` runs only part 3;
``--no-saturation`` skips it. Parts 1 and 2 end with a table of both databases side by side.

1. Sequential, one client: the median wall time of a move request (the human's move recorded, the
   optimal bot's whole reply computed and recorded, both committed to the database, the JSON
   answer) beside the baseline, a bare FastAPI endpoint answering a constant JSON object from an
   identical uvicorn process (the floor of the HTTP stack); plus the server's CPU time per move.
2. The load test's scenario (tests/web/test_web_load.py): 200 simulated players, each a whole game
   of Pig to 20 against the optimal bot, all live at once; p50/p95 of the server's answer time
   (Server-Timing), of the bot's share, of the client's round trip and of the queueing time
   (round trip - server time).
3. Saturation, open loop: moves arrive at a fixed rate (each on its own schedule, whether or not
   earlier ones have been answered; a pool of live games, up to 1,000 keep-alive connections, a
   small raw HTTP/1.1 client so that the client is not the bottleneck), stepped up for
   ``STEP_S`` seconds a step until the server sheds more than ``STOP_SHED`` of them. Per step: the
   answered rate, the share of 503s, the round trip, server time and queueing time of the answered
   moves. Reported: the first rate with 503s (>= 1 %) and the p95 round trip of the step below it.
   Bounded: at most ``len(RATES)`` steps, every request has a 10 s timeout, loopback only.
4. Game starts and first reviews (issue 21, item 3; ``--starts`` runs only this part, SQLite):
   the lab started as ``dicelab serve`` starts it (its background builder on, the user's cache),
   the time until the builder reports every opponent ready, then ``STARTS`` game starts of every
   game at its default level (the setup form's) and at its strongest, one after another, twice:
   while the builder still works (if it does) and after; p50/p95 of the client's round trip and of
   the server's time (Server-Timing), beside the bare FastAPI endpoint; then one whole game of
   every game played through the API and the time of its first review.
"""

from __future__ import annotations

import asyncio
import collections
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "web"))
import pg  # noqa: E402  (tests/web/pg.py: a throwaway PostgreSQL server)
BARE = """
from fastapi import FastAPI
import uvicorn, sys
app = FastAPI()
@app.post("/api/games/{gid}/moves")
def move(gid: str) -> dict:
    return {"ok": True, "events": [], "state": {"version": 0}}
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(url: str, proc: subprocess.Popen) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError("server exited")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def cpu_seconds(pid: int) -> float:
    f = open(f"/proc/{pid}/stat").read().split()
    return (int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK")


RATES = (50, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1000)
STEP_S = 4.0
STOP_SHED = 0.2
CLIENT_LAG_MS = 50.0  # beyond it the client, not the server, limits the step: stop
GAMES_POOL = 600
REQUEST_TIMEOUT = 10.0


class RawClient:
    """Keep-alive HTTP/1.1 over loopback with as little client CPU as possible (no httpx)."""

    def __init__(self, port: int, max_connections: int = 1000) -> None:
        self.port, self.max = port, max_connections
        self.idle: collections.deque[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = collections.deque()
        self.opened = 0
        self.connect_s: list[float] = []  # how long each new connection took to open

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bool]:
        if self.idle:  # oldest first: every warm connection is used often, none idles into the timeout
            return *self.idle.popleft(), True
        if self.opened >= self.max:
            raise RuntimeError("out of client connections")
        t0 = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.connect_s.append(time.perf_counter() - t0)
        self.opened += 1
        return reader, writer, False

    async def request(self, method: str, path: str, body: dict | None = None,
                      headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(data)}",
                "Content-Type: application/json"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
        message = ("\r\n".join(head) + "\r\n\r\n").encode() + data
        while True:  # an idle keep-alive connection may have been closed by the server (after 5 s)
            reader, writer, reused = await self._connection()
            try:
                writer.write(message)
                raw = await reader.readuntil(b"\r\n\r\n")
                break
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()
                self.opened -= 1
                if not reused:  # a fresh connection failed: a real error
                    raise
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        hdrs = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        payload = await reader.readexactly(int(hdrs.get("content-length", "0")))
        if hdrs.get("connection", "").lower() == "close":
            writer.close()
            self.opened -= 1
        else:
            self.idle.append((reader, writer))
        return status, hdrs, payload

    async def warm(self, n: int) -> None:
        """Open ``n`` keep-alive connections before a step, as players' browsers hold theirs."""
        async def one() -> None:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            self.opened += 1
            self.idle.append((reader, writer))

        await asyncio.gather(*(one() for _ in range(n)))

    def close(self) -> None:
        """Close the idle connections."""
        for _, w in self.idle:
            w.close()
        self.opened -= len(self.idle)
        self.idle.clear()


def warm_connections(rate: float) -> int:
    """Warm connections for a step: enough for half a second of arrivals (16 to 256)."""
    return int(min(256, max(16, rate // 2)))


def timings(hdrs: dict[str, str]) -> tuple[float, float]:
    """(server time, event-loop backlog at admission) in seconds, from ``Server-Timing``."""
    timing = dict(part.strip().split(";dur=") for part in hdrs["server-timing"].split(","))
    return float(timing["app"]) / 1000, float(timing.get("lag", 0.0)) / 1000


async def client_lag(samples: list[float], stop: asyncio.Event) -> None:
    """The client's own event-loop lag every 10 ms: when it grows, the client, not the server, is
    the bottleneck and the step's round trips are not the server's."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t0 = loop.time()
        await asyncio.sleep(0.01)
        samples.append(loop.time() - t0 - 0.01)


async def saturation(port: int) -> list[dict]:
    """The open-loop steps (see the module docstring); one dict of figures per step."""
    client = RawClient(port)
    games: list[dict] = []

    async def new_game() -> None:
        for _ in range(50):
            st, _, body = await client.request("POST", "/api/games", {"goal": 100, "opponent": "optimal",
                                                                      "human_first": True})
            if st == 201:
                j = json.loads(body)
                games.append({"id": j["id"], "h": {"X-Game-Token": j["token"]}, "st": j["state"]})
                return
            await asyncio.sleep(0.2)

    for first in range(0, GAMES_POOL, 20):
        await asyncio.gather(*(new_game() for _ in range(first, min(GAMES_POOL, first + 20))))
    steps: list[dict] = []
    background: set[asyncio.Task] = set()
    for rate in RATES:
        ok: list[tuple[float, float, float]] = []
        counts = {"ok": 0, "shed": 0, "other": 0, "no_game": 0}

        async def one_move() -> None:
            if not games:
                counts["no_game"] += 1
                return
            g = games.pop()
            st = g["st"]
            body = {"action": "roll" if st["turn_total"] < 20 else "hold", "expected_move": st["version"]}
            t0 = time.perf_counter()
            try:
                code, hdrs, payload = await asyncio.wait_for(
                    client.request("POST", f"/api/games/{g['id']}/moves", body, g["h"]), REQUEST_TIMEOUT)
            except (TimeoutError, OSError, asyncio.IncompleteReadError):
                counts["other"] += 1
                return
            rtt = time.perf_counter() - t0
            if code == 200:
                counts["ok"] += 1
                ok.append((rtt, *timings(hdrs)))
                g["st"] = json.loads(payload)["state"]
            elif code == 503:
                counts["shed"] += 1
            else:
                counts["other"] += 1
                if counts["other"] <= 3:
                    print(f"  unexpected answer {code}: {payload[:200]!r}", flush=True)
            if g["st"]["status"] == "playing":
                games.append(g)
            else:
                task = asyncio.ensure_future(new_game())
                background.add(task)
                task.add_done_callback(background.discard)

        client.close()  # no connection left idle past the server's keep-alive timeout
        await asyncio.sleep(1.0)
        await client.warm(warm_connections(rate))
        client.connect_s = []
        loop = asyncio.get_running_loop()
        n = int(rate * STEP_S)
        tasks: list[asyncio.Task] = []
        lags: list[float] = []
        stop = asyncio.Event()
        lag_task = asyncio.ensure_future(client_lag(lags, stop))
        t0 = loop.time()
        while len(tasks) < n:
            due = min(n, int((loop.time() - t0) * rate) + 1)
            tasks += [asyncio.ensure_future(one_move()) for _ in range(due - len(tasks))]
            await asyncio.sleep(0.001)
        sent_s = loop.time() - t0
        await asyncio.gather(*tasks)
        wall = loop.time() - t0
        stop.set()
        await lag_task
        await asyncio.gather(*background)
        rtt = [r for r, _, _ in ok]
        queue = [max(0.0, r - a) for r, a, _ in ok]
        pct = lambda xs, q: round(float(np.percentile(xs, q)) * 1e3, 2) if xs else None  # noqa: E731
        step = {"offered_per_s": rate, "sent_per_s": round(n / sent_s, 1), "answered_ok_per_s": round(counts["ok"] / wall, 1),
                **counts, "shed_share": round(counts["shed"] / max(1, n), 4),
                "rtt_ms_p50": pct(rtt, 50), "rtt_ms_p95": pct(rtt, 95), "server_ms_p95": pct([a for _, a, _ in ok], 95),
                "queue_ms_p50": pct(queue, 50), "queue_ms_p95": pct(queue, 95),
                "server_lag_ms_p95": pct([g for _, _, g in ok], 95), "client_lag_ms_p95": pct(lags, 95),
                "connections": client.opened, "new_connections_in_step": len(client.connect_s),
                "connect_ms_p95": pct(client.connect_s, 95),
                "load_average": round(os.getloadavg()[0], 1)}
        steps.append(step)
        print("  step:", json.dumps(step), flush=True)
        if step["shed_share"] > STOP_SHED or step["other"] > n // 10 or step["no_game"] > n // 10 \
                or (step["client_lag_ms_p95"] or 0) > CLIENT_LAG_MS:
            break
    client.close()
    return steps


def saturation_summary(steps: list[dict]) -> str:
    first = next((i for i, s in enumerate(steps) if s["shed_share"] >= 0.01), None)
    if first is None:
        return f"no 503s up to {steps[-1]['offered_per_s']} moves/s offered"
    below = steps[first - 1] if first > 0 else None
    text = f"503s begin at {steps[first]['offered_per_s']} moves/s offered ({steps[first]['shed_share']:.1%} shed)"
    if below is not None:
        text += (f"; below it, at {below['offered_per_s']} moves/s: round trip p50 {below['rtt_ms_p50']} ms "
                 f"p95 {below['rtt_ms_p95']} ms, queueing p95 {below['queue_ms_p95']} ms, "
                 f"server p95 {below['server_ms_p95']} ms")
    worst = max((s["rtt_ms_p95"] or 0.0) for s in steps)
    return text + f"; worst answered-move p95 round trip over all steps {worst} ms"


def sequential(url: str, bare_url: str, lab_pid: int) -> dict[str, float]:
    """Part 1: one client, a move at a time, beside the bare FastAPI endpoint."""
    with httpx.Client(base_url=url) as c:
        times: list[float] = []
        c0 = cpu_seconds(lab_pid)
        n = 0
        while n < 400:
            j = c.post("/api/games", json={"goal": 30, "opponent": "optimal", "human_first": True}).json()
            h, st = {"X-Game-Token": j["token"]}, j["state"]
            while st["status"] == "playing" and n < 400:
                body = {"action": "roll" if st["turn_total"] < 8 else "hold", "expected_move": st["version"]}
                t0 = time.perf_counter()
                st = c.post(f"/api/games/{j['id']}/moves", json=body, headers=h).json()["state"]
                times.append(time.perf_counter() - t0)
                n += 1
        cpu = (cpu_seconds(lab_pid) - c0) / n
    with httpx.Client(base_url=bare_url) as c:
        base = []
        for _ in range(400):
            t0 = time.perf_counter()
            c.post("/api/games/x/moves", json={"action": "roll", "expected_move": 0})
            base.append(time.perf_counter() - t0)
    report("Pig move over HTTP (median of 400)", statistics.median(times[20:]), statistics.median(base[20:]),
           "bare FastAPI")
    print(f"{'server CPU per move (game creations included)':<48} dicelab {cpu * 1e3:10.2f} ms", flush=True)
    return {"move_ms": statistics.median(times[20:]) * 1e3, "bare_ms": statistics.median(base[20:]) * 1e3,
            "cpu_ms": cpu * 1e3}


def two_hundred_games(url: str) -> dict[str, float]:
    """Part 2: the load test's scenario."""
    spec = importlib.util.spec_from_file_location("load", ROOT / "tests/web/test_web_load.py")
    load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load)  # type: ignore[union-attr]
    rtt: list[float] = []
    bot: list[float] = []
    app: list[float] = []
    lag: list[float] = []

    async def run() -> list[int]:
        limits = httpx.Limits(max_connections=load.CONNECTIONS, max_keepalive_connections=load.CONNECTIONS)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30.0) as client:
            return await asyncio.gather(*(load.play(client, random.Random(s), rtt, bot, app, None, lag)
                                          for s in range(load.GAMES)))

    t0 = time.perf_counter()
    moves = asyncio.run(run())
    wall = time.perf_counter() - t0
    pct = lambda xs, q: float(np.percentile(xs, q)) * 1e3  # noqa: E731
    queue = [max(0.0, r - a) for r, a in zip(rtt, app, strict=True)]
    print(f"200 games at once: {sum(moves)} moves in {wall:.1f} s; server answer p50 {pct(app, 50):.2f} ms "
          f"p95 {pct(app, 95):.2f} ms; bot p95 {pct(bot, 95):.3f} ms; client round trip p50 "
          f"{pct(rtt, 50):.1f} ms p95 {pct(rtt, 95):.1f} ms; queueing (round trip - server) p50 "
          f"{pct(queue, 50):.1f} ms p95 {pct(queue, 95):.1f} ms (of which the server's event-loop backlog p95 "
          f"{pct(lag, 95):.1f} ms; the rest is the client's pool of 20 connections and waiting for a core); "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    return {"moves": sum(moves), "wall_s": wall, "server_p50": pct(app, 50), "server_p95": pct(app, 95),
            "client_p50": pct(rtt, 50), "client_p95": pct(rtt, 95), "queue_p95": pct(queue, 95),
            "load": os.getloadavg()[0]}


def lab_on(db: str, tmp: Path) -> tuple[str, pg.Cluster | None]:
    """The database URL for ``db`` ("sqlite" or "postgresql") and the server started for it."""
    if db == "sqlite":
        return f"sqlite:///{tmp / 'bench.sqlite'}", None
    why = pg.unavailable()
    if why is not None:
        raise SystemExit(f"error: cannot benchmark on PostgreSQL: {why}")
    settings = ("synchronous_commit=off",) if db == "postgresql-async" else ()
    cluster = pg.Cluster(durable=True, settings=settings).start()
    return cluster.socket_url(cluster.new_database("bench")), cluster


def side_by_side(results: dict[str, dict[str, dict[str, float]]]) -> None:
    """Parts 1 and 2 of every database in one table."""
    rows = [("Pig move over HTTP, median (ms)", "seq", "move_ms"), ("server CPU per move (ms)", "seq", "cpu_ms"),
            ("200 games: server answer p50 (ms)", "load", "server_p50"),
            ("200 games: server answer p95 (ms)", "load", "server_p95"),
            ("200 games: client round trip p50 (ms)", "load", "client_p50"),
            ("200 games: client round trip p95 (ms)", "load", "client_p95"),
            ("200 games: queueing p95 (ms)", "load", "queue_p95"), ("200 games: moves", "load", "moves"),
            ("200 games: load average", "load", "load")]
    dbs = list(results)
    print("\nside by side:", flush=True)
    print(f"{'':<40}" + "".join(f"{d:>18}" for d in dbs))
    for label, part, key in rows:
        print(f"{label:<40}" + "".join(f"{results[d][part][key]:>18.2f}" for d in dbs), flush=True)


STARTS = 40  # game starts per game and level
READY_WAIT_S = 900  # at most this long for the background builder (a cold cache trains ~100 policies)


def _play_out(c: httpx.Client, game: str, opponent: str) -> tuple[str, dict[str, str]]:
    """One whole game of ``game`` against ``opponent`` with a simple policy; (id, token header)."""
    j = c.post("/api/games", json={"game": game, "opponent": opponent, "coach": True}).json()
    h, st = {"X-Game-Token": j["token"]}, j["state"]
    for n in range(5000):
        if st["status"] != "playing":
            break
        legal = st["legal_actions"]
        if "roll" in legal:
            a = "roll" if st.get("turn_total", 0) < 20 else "hold"
        elif "throw" in legal:
            a = "throw" if n % 2 == 0 or "stop" not in legal else "stop"
        elif legal and isinstance(legal[0], dict) and "target" in legal[0]:
            a = {"target": min(20, len(legal))}
        elif legal and isinstance(legal[0], dict) and "dice" in legal[0]:
            a = {"dice": 5}
        else:  # Liar's Dice: the lowest raise twice, then call
            raises = [x for x in legal if isinstance(x, dict)]
            a = "call" if "call" in legal and (n % 3 == 2 or not raises) else raises[0]
        st = c.post(f"/api/games/{j['id']}/moves", json={"action": a, "expected_move": st["version"]},
                    headers=h).json()["state"]
    return j["id"], h


def starts(bare_url: str, tmp: Path) -> None:
    """Part 4 (see the module docstring)."""
    port = free_port()
    db_url = f"sqlite:///{tmp / 'starts.sqlite'}"
    t_start = time.perf_counter()
    lab_log = tmp / "lab.log"  # the lab's warnings (a background item that could not be built)
    lab = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db", db_url],
                           stderr=lab_log.open("ab"))
    url = f"http://127.0.0.1:{port}"
    pct = lambda xs, q: float(np.percentile(xs, q))  # noqa: E731
    try:
        wait(url + "/healthz", lab)
        with httpx.Client(base_url=url, timeout=120) as c:
            levels = c.get("/api/opponents").json()["levels"]
            choice = {g: [next(lv["spec"] for lv in ls if lv["default"]), ls[-1]["spec"]] for g, ls in levels.items()}

            def run(label: str) -> None:
                for game, specs in choice.items():
                    for spec in specs:
                        rtt, app, shed = [], [], 0
                        for _ in range(STARTS):
                            t0 = time.perf_counter()
                            r = c.post("/api/games", json={"game": game, "opponent": spec})
                            if r.status_code == 503:  # shed by the admission control (a busy machine)
                                shed += 1
                                continue
                            rtt.append((time.perf_counter() - t0) * 1e3)
                            app.append(timings(dict(r.headers))[0] * 1e3)
                            assert r.status_code == 201, r.text
                        print(f"game start {label}: {game:<9} {spec[:34]:<34} round trip p50 {pct(rtt, 50):7.1f} ms "
                              f"p95 {pct(rtt, 95):7.1f} ms; server p95 {pct(app, 95):7.1f} ms; {shed} shed (503); "
                              f"load average {os.getloadavg()[0]:.1f}", flush=True)

            first = c.get("/api/ready").json()
            if not first["ready"]:
                run(f"while the builder works ({first['done']} of {first['total']} ready)")
            while time.perf_counter() - t_start < READY_WAIT_S and not c.get("/api/ready").json()["ready"]:
                time.sleep(1)
            p = c.get("/api/ready").json()
            print(f"background builder: {p['done']} of {p['total']} ready ({p['failed']} failed) "
                  f"{time.perf_counter() - t_start:.0f} s after the lab started; load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
            failed = [ln for ln in lab_log.read_text(errors="replace").splitlines() if "could not build" in ln]
            if failed:
                print(f"{len(failed)} items failed; the first: {failed[0][:300]} (all in {lab_log})", flush=True)
            run("after the builder")
            with httpx.Client(base_url=bare_url) as b:
                base = []
                for _ in range(200):
                    t0 = time.perf_counter()
                    b.post("/api/games/x/moves", json={})
                    base.append((time.perf_counter() - t0) * 1e3)
            print(f"bare FastAPI request: p50 {pct(base, 50):.2f} ms p95 {pct(base, 95):.2f} ms", flush=True)
            for game, specs in choice.items():
                gid, h = _play_out(c, game, specs[0])
                t0 = time.perf_counter()
                r = c.get(f"/api/games/{gid}/review", headers=h)
                first_ms = (time.perf_counter() - t0) * 1e3
                moves = len(r.json().get("steps", []))
                t0 = time.perf_counter()
                c.get(f"/api/games/{gid}/review", headers=h)
                again_ms = (time.perf_counter() - t0) * 1e3
                print(f"first review: {game:<9} {moves:4d} moves, {r.status_code}, {first_ms:7.1f} ms "
                      f"(again {again_ms:.1f} ms); load average {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        lab.terminate()
        lab.wait(10)


def main() -> None:
    """Parts 1 to 4 on each database of ``--db`` (default both; part 4 on SQLite); ``--saturation``
    only part 3, ``--starts`` only part 4, ``--no-saturation`` parts 1, 2 and 4."""
    args = sys.argv[1:]
    if "--starts" in args:
        tmp = Path(tempfile.mkdtemp(prefix="dicelab-bench-web-"))
        bare_port = free_port()
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(bare_port)], stderr=subprocess.DEVNULL)
        try:
            wait(f"http://127.0.0.1:{bare_port}/docs", bare)
            starts(f"http://127.0.0.1:{bare_port}", tmp)
        finally:
            bare.terminate()
            bare.wait(10)
        return
    only_saturation = "--saturation" in args
    no_saturation = "--no-saturation" in args
    choice = args[args.index("--db") + 1] if "--db" in args and args.index("--db") + 1 < len(args) else "both"
    sets = {"both": ["sqlite", "postgresql"], "all": ["sqlite", "postgresql", "postgresql-async"]}
    if choice not in ("sqlite", "postgresql", "postgresql-async", *sets):
        raise SystemExit(f"error: --db must be sqlite, postgresql, postgresql-async, both or all, got {choice!r}")
    dbs = sets.get(choice, [choice])
    tmp = Path(tempfile.mkdtemp(prefix="dicelab-bench-web-"))
    bare_port = free_port()
    bare = subprocess.Popen([sys.executable, "-c", BARE, str(bare_port)], stderr=subprocess.DEVNULL)
    results: dict[str, dict[str, dict[str, float]]] = {}
    try:
        wait(f"http://127.0.0.1:{bare_port}/docs", bare)
        for db in dbs:
            print(f"-- database: {db}", flush=True)
            db_url, cluster = lab_on(db, tmp)
            port = free_port()
            lab = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db", db_url,
                                    "--no-warm"], stderr=subprocess.DEVNULL)
            url = f"http://127.0.0.1:{port}"
            try:
                wait(url + "/healthz", lab)
                if not only_saturation:
                    results[db] = {"seq": sequential(url, f"http://127.0.0.1:{bare_port}", lab.pid),
                                   "load": two_hundred_games(url)}
                if not no_saturation:
                    print("saturation, open loop (moves of Pig to 100 against the optimal bot at a fixed arrival "
                          "rate):", flush=True)
                    steps = asyncio.run(saturation(port))
                    print("saturation:", saturation_summary(steps), flush=True)
            finally:
                lab.terminate()
                lab.wait(10)
                if cluster is not None:
                    cluster.stop()
        if results:
            side_by_side(results)
        if not only_saturation:
            print("-- game starts and first reviews (SQLite)", flush=True)
            starts(f"http://127.0.0.1:{bare_port}", tmp)
    finally:
        bare.terminate()
        bare.wait(10)


if __name__ == "__main__":
    main()
