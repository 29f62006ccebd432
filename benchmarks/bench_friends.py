"""Games between people (issue 22): how long a move takes to reach the other person, with 200
two-person games at once, beside the textbook fallback (the other page polling the game).

A real ``dicelab serve`` process (SQLite in WAL mode, the lab's default; ``--db postgresql`` or
``--db both`` adds a throwaway PostgreSQL server from ``tests/web/pg.py``, reached over its Unix
socket) and ``--clients`` client processes (2 by default) driving 200 games of Pig to 100 between
two people, every game live at once (each client process plays both seats of its share of the
games):

* **Push** (what the pages do): each of the 400 seats holds its event stream open
  (``GET /api/events/{id}``, Server-Sent Events); the person to move thinks a while (uniform
  ``THINK_S``) and posts the move; the latency is from the moment the move request is sent to the
  moment the OTHER person's stream delivers the update carrying that move. Each stream is read by
  its own task all the time, whatever its person does, and an update is time-stamped as its bytes
  are read (a person who thinks or moves never leaves its stream unread).
* **Polling** (the fallback, the baseline): no streams; each waiting person reads the game every
  ``POLL_S`` second (``GET /api/games/{id}``, its phase random); the latency is from the move's
  request to the first read that shows it.

Both run ``RUN_S`` seconds after a ``WARMUP_S`` warm-up, which starts once every stream is open (400
people opening their links in the same second is another figure); a move the server sheds (503,
its admission control) is sent again after the ``Retry-After`` it gives, its latency counted from
the first send, and the sheds are counted; reported: p50 / p95 / max of the latency, the move
round trip, the moves made, the ratio of the two p95s, the server's CPU share and the clients' own
lag (how late a client's 50 ms timer fires: when it is near the latency, the clients, not the
server, set the figure). The machine is shared: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_web import RawClient, cpu_seconds, free_port, wait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "web"))
import pg  # noqa: E402  (tests/web/pg.py: a throwaway PostgreSQL server)

GAMES = 200
CLIENTS = 2
THINK_S = (0.5, 1.5)
POLL_S = 1.0
WARMUP_S = 5.0
RUN_S = 30.0
LAG_TICK_S = 0.05
OPEN_S = 120.0  # at most this long for every stream to open before the clock starts


class Stream:
    """One seat's event stream over a raw HTTP/1.1 connection (chunked), updates as JSON."""

    def __init__(self, port: int, gid: str, token: str) -> None:
        self.port, self.gid, self.token = port, gid, token
        self.writer: asyncio.StreamWriter | None = None

    async def updates(self):
        reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 22)
        self.writer.write((f"GET /api/events/{self.gid} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           f"X-Game-Token: {self.token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"stream refused: {head[:80]!r}")
        buf = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            if size == 0:
                return
            buf += await reader.readexactly(size)
            t = time.perf_counter()  # the update's bytes are here: its arrival
            await reader.readexactly(2)
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data:"):
                        yield t, json.loads(line[5:])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def create_games(client: RawClient, n: int) -> list[dict]:
    games: list[dict] = []

    async def one() -> None:
        for _ in range(100):
            st, _, body = await client.request("POST", "/api/games", {"game": "pig", "goal": 100, "people": 2})
            if st == 201:
                j = json.loads(body)
                games.append({"id": j["id"], "tokens": [j["token"], j["invites"][0]["token"]], "st": j["state"]})
                return
            await asyncio.sleep(0.2)
        raise RuntimeError("could not create a game")

    for first in range(0, n, 20):
        await asyncio.gather(*(one() for _ in range(min(20, n - first))))
    return games


def policy(st: dict) -> str:
    return "roll" if st.get("turn_total", 0) < 20 else "hold"


async def run(port: int, mode: str, n_games: int, seed: int, barrier) -> dict:
    """One client's share of one scenario, ``push`` or ``poll``: its figures."""
    random.seed(seed)
    client = RawClient(port, max_connections=2000)
    games = await create_games(client, n_games)
    barrier.wait()  # every client's games exist: play them all at once (nothing else runs yet)
    sent: dict[tuple[str, int], float] = {}  # (game, seq of the move) -> when its request was sent
    latency: list[float] = []
    round_trip: list[float] = []
    lag: list[float] = []
    moves = shed = 0
    t_start = float("inf")  # set once every stream is open: the clock starts with all games live
    measuring = lambda: time.perf_counter() - t_start >= WARMUP_S  # noqa: E731
    opened = 0
    all_open = asyncio.Event()
    stop = asyncio.Event()
    streams: list[Stream] = []

    async def move(g: dict, seat: int, st: dict) -> dict | None:
        """Think, then move; a move the server sheds (503) is sent again after the time it asks
        for, as the pages do, its latency still counted from the first press."""
        nonlocal moves, shed
        await asyncio.sleep(random.uniform(*THINK_S))
        t_press = time.perf_counter()
        sent[(g["id"], st["version"])] = t_press
        while not stop.is_set():
            t0 = time.perf_counter()
            code, hdrs, body = await client.request("POST", f"/api/games/{g['id']}/moves",
                                                    {"action": policy(st), "expected_move": st["version"]},
                                                    {"X-Game-Token": g["tokens"][seat]})
            if code == 503:
                shed += measuring()
                await asyncio.sleep(float(hdrs.get("retry-after", "1")))
                continue
            if code != 200:
                raise RuntimeError(f"a move was refused: {code} {body[:200]!r}")
            if measuring():
                round_trip.append(time.perf_counter() - t0)
                moves += 1
            return json.loads(body)["state"]
        return None

    def seen(g: dict, seat: int, t: float, records: list[dict]) -> None:
        for r in records:  # another seat's move reached this seat (its own stream's copy does not count)
            if r["player"] == seat:
                continue
            t0 = sent.pop((g["id"], r["seq"]), None)
            if t0 is not None and measuring():
                latency.append(t - t0)

    async def person_push(g: dict, seat: int) -> None:
        s = Stream(port, g["id"], g["tokens"][seat])
        streams.append(s)
        latest: dict[str, dict | None] = {"st": None}
        fresh = asyncio.Event()

        def newer(st: dict | None) -> None:
            if st is not None and (latest["st"] is None or st["version"] >= latest["st"]["version"]):
                latest["st"] = st

        async def read() -> None:  # the stream, read as it comes, whatever the person does meanwhile
            nonlocal opened
            first = True
            async for t, u in s.updates():
                if first:
                    first, opened = False, opened + 1
                    if opened == 2 * len(games):
                        all_open.set()
                seen(g, seat, t, u["events"])
                newer(u["state"])
                fresh.set()

        reader = asyncio.create_task(read())
        acted = -1  # the version this person last moved at
        try:
            while not stop.is_set():
                await fresh.wait()
                fresh.clear()
                st = latest["st"]
                while st is not None and st["status"] == "playing" and st["legal_actions"] and st["version"] > acted:
                    acted = st["version"]
                    st = await move(g, seat, st)
                    newer(st)
                    st = latest["st"] if st is not None else None
                if latest["st"] is not None and latest["st"]["status"] != "playing":
                    return
        finally:
            reader.cancel()

    async def person_poll(g: dict, seat: int) -> None:
        h = {"X-Game-Token": g["tokens"][seat]}
        await asyncio.sleep(random.uniform(0, POLL_S))
        last = -1
        while not stop.is_set():
            code, _, body = await client.request("GET", f"/api/games/{g['id']}", None, h)
            t = time.perf_counter()
            if code == 200:
                st = json.loads(body)
                seen(g, seat, t, [m for m in st.get("moves", []) if m["seq"] > last])
                last = st["version"] - 1
                if st["status"] != "playing":
                    return
                while st is not None and st["legal_actions"] and st["status"] == "playing":
                    st = await move(g, seat, st)
                    if st is not None:
                        last = st["version"] - 1
            await asyncio.sleep(POLL_S)

    async def probe() -> None:  # the client's own lag: how late a short timer fires
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(LAG_TICK_S)
            if measuring():
                lag.append(time.perf_counter() - t - LAG_TICK_S)

    person = person_push if mode == "push" else person_poll
    tasks = [asyncio.create_task(person(g, s)) for g in games for s in (0, 1)] + [asyncio.create_task(probe())]
    if mode == "push":  # 400 people opening their streams at once is not the figure: wait for all
        try:
            await asyncio.wait_for(all_open.wait(), OPEN_S)
        except TimeoutError:
            raise RuntimeError(f"only {opened} of {2 * len(games)} streams opened in {OPEN_S:.0f} s") from None
    t_start = time.perf_counter()
    await asyncio.sleep(WARMUP_S + RUN_S)
    stop.set()
    for s in streams:
        s.close()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    client.close()
    return {"latency": latency, "round_trip": round_trip, "moves": moves, "shed": shed, "lag": lag}


def client_main(port: int, mode: str, n_games: int, seed: int, barrier, out, settings: dict) -> None:
    """A client process: its share of the games, its figures into ``out``."""
    globals().update(settings)
    try:
        out.put(asyncio.run(run(port, mode, n_games, seed, barrier)))
    except BaseException as e:  # noqa: BLE001  (the parent reports it)
        barrier.abort()
        out.put({"error": f"{type(e).__name__}: {e}"})


def scenario(port: int, mode: str, pid: int) -> dict:
    """One scenario over ``CLIENTS`` processes, the games shared out; the merged figures and the
    server's CPU share over the scenario."""
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(CLIENTS), ctx.Queue()
    share = [GAMES // CLIENTS + (1 if c < GAMES % CLIENTS else 0) for c in range(CLIENTS)]
    settings = {k: globals()[k] for k in ("RUN_S", "WARMUP_S", "THINK_S", "POLL_S")}
    procs = [ctx.Process(target=client_main, args=(port, mode, share[c], 1000 * c + 22, barrier, out, settings))
             for c in range(CLIENTS)]
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    for p in procs:
        p.start()
    parts = [out.get(timeout=WARMUP_S + RUN_S + 300) for _ in procs]
    cpu = (cpu_seconds(pid) - cpu0) / (time.perf_counter() - t0)
    for p in procs:
        p.join(30)
    errors = [p["error"] for p in parts if "error" in p]
    if errors:
        raise RuntimeError("a client failed: " + "; ".join(errors))
    merged = {k: np.array([x for p in parts for x in p[k]]) for k in ("latency", "round_trip", "lag")}
    merged["moves"] = sum(p["moves"] for p in parts)
    merged["shed"] = sum(p["shed"] for p in parts)
    merged["cpu"] = cpu
    return merged


def serve(db_url: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db", db_url,
                             "--no-warm"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait(f"http://127.0.0.1:{port}/healthz", proc)
    return proc, port


def line(name: str, xs: np.ndarray) -> str:
    if not len(xs):
        return f"{name:<34} (none)"
    ms = 1000 * xs
    return (f"{name:<34} p50 {np.percentile(ms, 50):7.1f} ms  p95 {np.percentile(ms, 95):7.1f} ms  "
            f"max {ms.max():7.1f} ms  (n={len(xs)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="sqlite")
    ap.add_argument("--run-s", type=float, default=RUN_S, help="seconds measured per scenario (after a 5 s warm-up)")
    ap.add_argument("--games", type=int, default=GAMES, help="two-person games at once (the target: 200)")
    ap.add_argument("--clients", type=int, default=CLIENTS, help="client processes sharing the games")
    args = ap.parse_args()
    if args.games < 1 or args.clients < 1 or args.run_s <= 0:
        ap.error("--games and --clients take a whole number of at least 1, --run-s a positive number of seconds")
    globals().update(RUN_S=args.run_s, GAMES=args.games, CLIENTS=min(args.clients, args.games))
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    t_all = time.perf_counter()
    print(f"== games between people: {GAMES} two-person games of Pig at once over {CLIENTS} client processes, "
          f"think {THINK_S[0]}-{THINK_S[1]} s, {RUN_S:.0f} s measured after {WARMUP_S:.0f} s; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    for kind in kinds:
        cluster = None
        with tempfile.TemporaryDirectory() as tmp:
            if kind == "sqlite":
                url = f"sqlite:///{tmp}/friends.sqlite"
            else:
                cluster = pg.Cluster()
                cluster.start()
                url = cluster.socket_url(cluster.new_database())
            try:
                out = {}
                for mode in ("push", "poll"):
                    proc, port = serve(url)
                    try:
                        out[mode] = scenario(port, mode, proc.pid)
                    finally:
                        proc.terminate()
                        proc.wait(10)
                load = os.getloadavg()[0]
                print(f"-- {kind} (load average {load:.1f})")
                print(line("move reaches the other: stream", out["push"]["latency"]))
                print(line(f"move reaches the other: poll {POLL_S:.0f} s", out["poll"]["latency"]))
                print(line("move round trip (stream run)", out["push"]["round_trip"]))
                print(f"{'moves measured (shed, sent again)':<34} stream {out['push']['moves']} ({out['push']['shed']})  "
                      f"poll {out['poll']['moves']} ({out['poll']['shed']})")
                print(f"{'server CPU (stream / poll run)':<34} {100 * out['push']['cpu']:.0f} % / "
                      f"{100 * out['poll']['cpu']:.0f} % of a core")
                print(line("client timer lag (stream run)", out["push"]["lag"]))
                if len(out["push"]["latency"]) and len(out["poll"]["latency"]):
                    p_push = np.percentile(out["push"]["latency"], 95)
                    p_poll = np.percentile(out["poll"]["latency"], 95)
                    print(f"{'p95 ratio (poll / stream)':<34} {p_poll / p_push:.1f}x")
                else:  # a starved run (the machine far busier than its cores): no ratio to give
                    print(f"{'p95 ratio (poll / stream)':<34} (no moves measured in one of the runs)")
            finally:
                if cluster is not None:
                    cluster.stop()
    print(f"(whole run {time.perf_counter() - t_all:.0f} s; load average after: {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
