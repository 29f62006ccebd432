"""Web lab benchmark: a Pig move over HTTP beside a bare FastAPI request, then 200 games at once.

1. Sequential, one client: the median wall time of a move request (the human's move recorded, the
   optimal bot's whole reply computed and recorded, both committed to SQLite in WAL mode, the JSON
   answer) beside the baseline, a bare FastAPI endpoint answering a constant JSON object from an
   identical uvicorn process (the floor of the HTTP stack); plus the server's CPU time per move.
2. The load test's scenario (tests/web/test_web_load.py): 200 simulated players, each a whole game
   of Pig to 20 against the optimal bot, all live at once; p50/p95 of the server's answer time
   (Server-Timing), of the bot's share and of the client's round trip.
"""

from __future__ import annotations

import asyncio
import importlib.util
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


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="dicelab-bench-web-"))
    port, bare_port = free_port(), free_port()
    lab = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db",
                            f"sqlite:///{tmp / 'bench.sqlite'}", "--no-warm"], stderr=subprocess.DEVNULL)
    bare = subprocess.Popen([sys.executable, "-c", BARE, str(bare_port)], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait(url + "/healthz", lab)
        wait(f"http://127.0.0.1:{bare_port}/docs", bare)
        with httpx.Client(base_url=url) as c:
            times: list[float] = []
            c0 = cpu_seconds(lab.pid)
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
            cpu = (cpu_seconds(lab.pid) - c0) / n
        with httpx.Client(base_url=f"http://127.0.0.1:{bare_port}") as c:
            base = []
            for _ in range(400):
                t0 = time.perf_counter()
                c.post("/api/games/x/moves", json={"action": "roll", "expected_move": 0})
                base.append(time.perf_counter() - t0)
        report("Pig move over HTTP (median of 400)", statistics.median(times[20:]), statistics.median(base[20:]),
               "bare FastAPI")
        print(f"{'server CPU per move (game creations included)':<48} dicelab {cpu * 1e3:10.2f} ms", flush=True)

        spec = importlib.util.spec_from_file_location("load", ROOT / "tests/web/test_web_load.py")
        load = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(load)  # type: ignore[union-attr]
        rtt: list[float] = []
        bot: list[float] = []
        app: list[float] = []

        async def run() -> list[int]:
            limits = httpx.Limits(max_connections=load.CONNECTIONS, max_keepalive_connections=load.CONNECTIONS)
            async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30.0) as client:
                return await asyncio.gather(*(load.play(client, random.Random(s), rtt, bot, app)
                                              for s in range(load.GAMES)))

        t0 = time.perf_counter()
        moves = asyncio.run(run())
        wall = time.perf_counter() - t0
        pct = lambda xs, q: float(np.percentile(xs, q)) * 1e3  # noqa: E731
        print(f"200 games at once: {sum(moves)} moves in {wall:.1f} s; server answer p50 {pct(app, 50):.2f} ms "
              f"p95 {pct(app, 95):.2f} ms; bot p95 {pct(bot, 95):.3f} ms; client round trip p50 "
              f"{pct(rtt, 50):.1f} ms p95 {pct(rtt, 95):.1f} ms; load average {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for p in (lab, bare):
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    main()
