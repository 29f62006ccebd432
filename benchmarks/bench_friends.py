"""Games between people (issue 22): how long a move takes to reach the other person, with 200
two-person games at once, beside the textbook fallback (the other page polling the game).

A real ``dicelab serve`` process (SQLite in WAL mode, the lab's default; ``--db postgresql`` or
``--db both`` adds a throwaway PostgreSQL server from ``tests/web/pg.py``, reached over its Unix
socket) and one client process driving 200 games of Pig to 100 between two people, every game
live at once:

* **Push** (what the pages do): each of the 400 seats holds its event stream open
  (``GET /api/events/{id}``, Server-Sent Events); the person to move thinks a while (uniform
  ``THINK_S``) and posts the move; the latency is from the moment the move request is sent to the
  moment the OTHER person's stream delivers the update carrying that move.
* **Polling** (the fallback, the baseline): no streams; each waiting person reads the game every
  ``POLL_S`` second (``GET /api/games/{id}``, its phase random); the latency is from the move's
  request to the first read that shows it.

Both run ``RUN_S`` seconds after a warm-up; reported: p50 / p95 / max of the latency, the move
round trip, the moves made, and the ratio of the two p95s. The machine is shared: the load average
is printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_web import RawClient, free_port, wait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "web"))
import pg  # noqa: E402  (tests/web/pg.py: a throwaway PostgreSQL server)

GAMES = 200
THINK_S = (0.5, 1.5)
POLL_S = 1.0
WARMUP_S = 5.0
RUN_S = 30.0


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
            await reader.readexactly(2)
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data:"):
                        yield time.perf_counter(), json.loads(line[5:])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def create_games(client: RawClient) -> list[dict]:
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

    for first in range(0, GAMES, 20):
        await asyncio.gather(*(one() for _ in range(20)))
    return games


def policy(st: dict) -> str:
    return "roll" if st.get("turn_total", 0) < 20 else "hold"


async def run(port: int, mode: str) -> dict:
    """One scenario, ``push`` or ``poll``: the figures."""
    client = RawClient(port, max_connections=2000)
    games = await create_games(client)
    sent: dict[tuple[str, int], float] = {}  # (game, seq of the move) -> when its request was sent
    latency: list[float] = []
    round_trip: list[float] = []
    moves = 0
    t_start = time.perf_counter()
    measuring = lambda: time.perf_counter() - t_start >= WARMUP_S  # noqa: E731
    stop = asyncio.Event()
    streams: list[Stream] = []

    async def move(g: dict, seat: int, st: dict) -> dict | None:
        nonlocal moves
        await asyncio.sleep(random.uniform(*THINK_S))
        if stop.is_set():
            return None
        t0 = time.perf_counter()
        sent[(g["id"], st["version"])] = t0
        code, _, body = await client.request("POST", f"/api/games/{g['id']}/moves",
                                             {"action": policy(st), "expected_move": st["version"]},
                                             {"X-Game-Token": g["tokens"][seat]})
        if code != 200:
            return None
        if measuring():
            round_trip.append(time.perf_counter() - t0)
            moves += 1
        return json.loads(body)["state"]

    def seen(g: dict, seat: int, t: float, st: dict, records: list[dict]) -> None:
        for r in records:  # another seat's move reached this seat (its own stream's copy does not count)
            if r["player"] == seat:
                continue
            t0 = sent.pop((g["id"], r["seq"]), None)
            if t0 is not None and measuring():
                latency.append(t - t0)

    async def person_push(g: dict, seat: int) -> None:
        s = Stream(port, g["id"], g["tokens"][seat])
        streams.append(s)
        moving = False
        async for t, u in s.updates():
            st = u["state"]
            seen(g, seat, t, st, u["events"])
            if st["status"] != "playing" or stop.is_set():
                return
            if st["legal_actions"] and not moving:
                moving = True
                while st is not None and st["legal_actions"] and st["status"] == "playing":
                    st = await move(g, seat, st)
                moving = False

    async def person_poll(g: dict, seat: int) -> None:
        h = {"X-Game-Token": g["tokens"][seat]}
        await asyncio.sleep(random.uniform(0, POLL_S))
        last = -1
        while not stop.is_set():
            code, _, body = await client.request("GET", f"/api/games/{g['id']}", None, h)
            t = time.perf_counter()
            if code == 200:
                st = json.loads(body)
                new = [m for m in st.get("moves", []) if m["seq"] > last]
                seen(g, seat, t, st, new)
                last = st["version"] - 1
                if st["status"] != "playing":
                    return
                while st is not None and st["legal_actions"] and st["status"] == "playing":
                    st = await move(g, seat, st)
                    if st is not None:
                        last = st["version"] - 1
            await asyncio.sleep(POLL_S)

    person = person_push if mode == "push" else person_poll
    tasks = [asyncio.create_task(person(g, s)) for g in games for s in (0, 1)]
    await asyncio.sleep(WARMUP_S + RUN_S)
    stop.set()
    for s in streams:
        s.close()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    client.close()
    return {"latency": np.array(latency), "round_trip": np.array(round_trip), "moves": moves}


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
    ap.add_argument("--run-s", type=float, default=RUN_S)
    ap.add_argument("--games", type=int, default=GAMES, help="two-person games at once (the target: 200)")
    args = ap.parse_args()
    globals()["RUN_S"] = args.run_s
    globals()["GAMES"] = args.games
    random.seed(22)
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    print(f"== games between people: {GAMES} two-person games of Pig at once, think {THINK_S[0]}-{THINK_S[1]} s, "
          f"{RUN_S:.0f} s measured after {WARMUP_S:.0f} s; load average before: {os.getloadavg()[0]:.1f}")
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
                        out[mode] = asyncio.run(run(port, mode))
                    finally:
                        proc.terminate()
                        proc.wait(10)
                load = os.getloadavg()[0]
                print(f"-- {kind} (load average {load:.1f})")
                print(line("move reaches the other: stream", out["push"]["latency"]))
                print(line(f"move reaches the other: poll {POLL_S:.0f} s", out["poll"]["latency"]))
                print(line("move round trip (stream run)", out["push"]["round_trip"]))
                print(f"{'moves measured':<34} stream {out['push']['moves']}  poll {out['poll']['moves']}")
                if len(out["push"]["latency"]) and len(out["poll"]["latency"]):
                    p_push = np.percentile(out["push"]["latency"], 95)
                    p_poll = np.percentile(out["poll"]["latency"], 95)
                    print(f"{'p95 ratio (poll / stream)':<34} {p_poll / p_push:.1f}x")
                else:  # a starved run (the machine far busier than its cores): no ratio to give
                    print(f"{'p95 ratio (poll / stream)':<34} (no moves measured in one of the runs)")
            finally:
                if cluster is not None:
                    cluster.stop()


if __name__ == "__main__":
    main()
