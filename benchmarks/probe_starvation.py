"""Starvation probe (issue 23 item 3): the round trip of a cheap move while other clients flood the
routes outside the game's own (health checks, static files, the explorer, new games whose bots
must be built).

A fresh ``dicelab serve --no-warm`` per flood (SQLite in a temporary folder); two players make
cheap moves (Pig to 20 against hold:10, 50 ms between moves) for ``--seconds`` while a separate
client process runs the flood: four loops that never wait (a 429 or 503 is asked again at once,
as an attacker would; niced, as :data:`FLOOD_NICE` says). Prints one JSON line per flood: moves, round-trip and server-time
percentiles (ms), the answers' codes, the server's memory, the load average.

    python benchmarks/probe_starvation.py                       # every flood, 8 s each (about 90 s)
    python benchmarks/probe_starvation.py --floods none,mixed --seconds 5

Floods: ``none``, ``healthz``, ``static``, ``page`` (the start page), ``explorer`` (evaluations of
ever new strategies), ``create`` (public games against best-response:best-response:hold:20 at odd
goals and sides: every one a new bot to build), ``mixed`` (one loop each of healthz, static,
explorer, create). ``flood URL KINDS SECONDS`` runs only the flooding client (the test suite's
starvation test uses it) and prints its counts as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np

# The flooding clients would be other machines; on one (2-core) machine they run at a lower
# priority, so that what is measured is how the server shares itself, not how the cores are shared.
FLOOD_NICE = 5
FLOODS = ["none", "healthz", "static", "page", "explorer", "create", "mixed"]
STATIC = ["play.js", "lab.css", "common.js", "pig.js"]


def kinds_of(flood: str) -> list[str]:
    """The four flooding loops of a flood."""
    if flood == "none":
        return []
    if flood == "mixed":
        return ["healthz", "static", "explorer", "create"]
    return [flood] * 4


async def one_loop(c: httpx.AsyncClient, kind: str, k: int, stop: float, codes: Counter, build_s: list) -> None:
    i = 0
    while time.monotonic() < stop:
        i += 1
        t0 = time.perf_counter()
        codes[f"{kind} sent"] += 1
        try:
            if kind == "healthz":
                r = await c.get("/healthz")
            elif kind == "static":
                r = await c.get("/static/" + STATIC[i % len(STATIC)], headers={"accept-encoding": "gzip"})
            elif kind == "page":
                r = await c.get("/")
            elif kind == "explorer":
                r = await c.get("/api/explorer/evaluate", params={"a": "hold:20", "b": f"hold:{10 + (k * 100 + i) % 40}",
                                                                 "goal": 30 + (k * 7 + i) % 60})
            elif kind == "create":
                r = await c.post("/api/games", json={"goal": 21 + 2 * ((k * 1000 + i) % 35), "sides": 6 + i % 5,
                                                     "opponent": "best-response:best-response:hold:20",
                                                     "human_first": True})
                if r.status_code == 201:
                    build_s.append(round(time.perf_counter() - t0, 2))
            else:
                raise SystemExit(f"unknown flood {kind!r}; floods: {', '.join(FLOODS)}")
        except httpx.TimeoutException:
            codes[f"{kind} timeout"] += 1
            continue
        codes[f"{kind} {r.status_code}"] += 1


async def flood(url: str, kinds: list[str], seconds: float) -> dict:
    """Run the loops ``kinds`` (one client connection each) for ``seconds``; their answers' codes
    (a request still waiting at the end is counted as ``kind open``)."""
    codes: Counter = Counter()
    build_s: list[float] = []
    clients = [httpx.AsyncClient(base_url=url, timeout=30.0) for _ in kinds]
    print("started", flush=True)
    stop = time.monotonic() + seconds
    try:
        loops = [asyncio.create_task(one_loop(c, kind, k, stop, codes, build_s))
                 for k, (c, kind) in enumerate(zip(clients, kinds, strict=True))]
        _, still = await asyncio.wait(loops, timeout=seconds)
        for kind, task in zip(kinds, loops, strict=True):
            if task in still:
                task.cancel()
                codes[f"{kind} open"] += 1
        await asyncio.gather(*loops, return_exceptions=True)
    finally:
        for c in clients:
            await c.aclose()
    return {"codes": dict(codes), "create_s": build_s}


def start_flood(url: str, kinds: list[str], seconds: float) -> subprocess.Popen | None:
    """The flooding client in its own process (so that it does not share the players' GIL)."""
    if not kinds:
        return None
    proc = subprocess.Popen([sys.executable, __file__, "flood", url, ",".join(kinds), str(seconds)],
                            stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(FLOOD_NICE))
    assert proc.stdout is not None and proc.stdout.readline().strip() == "started"  # its loops begin now
    return proc


def flood_result(proc: subprocess.Popen | None) -> dict:
    if proc is None:
        return {"codes": {}, "create_s": []}
    out, _ = proc.communicate(timeout=60)
    return json.loads(out.strip().splitlines()[-1])


async def mover(c: httpx.AsyncClient, stop: float, rtt: list, app: list, codes: Counter) -> None:
    """Games of Pig to 20 against hold:10: roll below 8, else hold; 50 ms between moves."""
    while time.monotonic() < stop:
        r = await c.post("/api/games", json={"goal": 20, "opponent": "hold:10", "human_first": True})
        if r.status_code != 201:
            codes[f"create {r.status_code}"] += 1
            await asyncio.sleep(0.2)
            continue
        j = r.json()
        h, st = {"X-Game-Token": j["token"]}, j["state"]
        while st["status"] == "playing" and time.monotonic() < stop:
            await asyncio.sleep(0.05)
            t0 = time.perf_counter()
            r = await c.post(f"/api/games/{j['id']}/moves", headers=h,
                             json={"action": "roll" if st["turn_total"] < 8 else "hold", "expected_move": st["version"]})
            dt = time.perf_counter() - t0
            codes[str(r.status_code)] += 1
            if r.status_code != 200:
                await asyncio.sleep(0.2)
                continue
            rtt.append(dt)
            timing = dict(p.strip().split(";dur=") for p in r.headers["server-timing"].split(","))
            app.append(float(timing["app"]) / 1000)
            st = r.json()["state"]


def ms(xs: list[float], q: float) -> float | None:
    return round(float(np.percentile(xs, q)) * 1000, 1) if xs else None


async def moves_while(url: str, seconds: float, players: int = 2) -> dict:
    """``players`` players moving for ``seconds``: their moves' round trip and server time."""
    rtt: list[float] = []
    app: list[float] = []
    codes: Counter = Counter()
    stop = time.monotonic() + seconds
    clients = [httpx.AsyncClient(base_url=url, timeout=30.0) for _ in range(players)]
    try:
        await asyncio.gather(*(mover(c, stop, rtt, app, codes) for c in clients))
    finally:
        for c in clients:
            await c.aclose()
    return {"moves": len(rtt), "rtt_p50": ms(rtt, 50), "rtt_p95": ms(rtt, 95), "rtt_max": ms(rtt, 100),
            "server_p95": ms(app, 95), "move_codes": dict(codes)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(folder: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1", DICELAB_ADMIN_KEY="k" * 20)
    proc = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db",
                             f"sqlite:///{folder}/probe.sqlite", "--no-warm"],
                            stdout=open(f"{folder}/server.log", "ab"), stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    httpx.post(url + "/api/games", json={"goal": 20, "opponent": "hold:10"}, timeout=60)  # its tables, once
    return proc, url


def probe(flood_name: str, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        proc, url = serve(folder)
        try:
            rss0 = int(Path(f"/proc/{proc.pid}/status").read_text().split("VmRSS:")[1].split()[0]) // 1024
            flooder = start_flood(url, kinds_of(flood_name), seconds)
            out = asyncio.run(moves_while(url, seconds))
            flooded = flood_result(flooder)
            rss = int(Path(f"/proc/{proc.pid}/status").read_text().split("VmRSS:")[1].split()[0]) // 1024
        finally:
            proc.terminate()
            proc.wait(10)
    return {"flood": flood_name, **out, **flooded, "rss_mb": [rss0, rss], "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "flood":
        url, kinds, seconds = sys.argv[2], sys.argv[3].split(","), float(sys.argv[4])
        print(json.dumps(asyncio.run(flood(url, kinds, seconds))))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--floods", default=",".join(FLOODS), help="comma-separated: " + ", ".join(FLOODS))
    ap.add_argument("--seconds", type=float, default=8.0)
    a = ap.parse_args()
    for name in a.floods.split(","):
        print(json.dumps(probe(name, a.seconds)), flush=True)


if __name__ == "__main__":
    main()
