"""Start-up probe (issue 23: "the first minute after start-up as good as the rest"): two players
make cheap moves (Pig to 20 against hold:10, 50 ms apart) against a fresh ``dicelab serve`` (with
its background builder, as people start it) from the first moment it answers; prints, per 5 s
window, the moves' round-trip p95 and max, the 503s, and how far the background builder is.

    DICELAB_CACHE_DIR=$(mktemp -d) python benchmarks/probe_startup.py 60    # a cold cache, 60 s
    python benchmarks/probe_startup.py 60 --no-warm                         # without the builder
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import numpy as np


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def run(url: str, seconds: float) -> dict[int, dict]:
    win: dict[int, dict] = {}
    t0 = time.monotonic()

    def slot() -> dict:
        return win.setdefault(int((time.monotonic() - t0) // 5), {"rtt": [], "codes": []})

    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        async def player() -> None:
            while time.monotonic() - t0 < seconds:
                r = await c.post("/api/games", json={"goal": 20, "opponent": "hold:10", "human_first": True})
                if r.status_code != 201:
                    slot()["codes"].append(r.status_code)
                    await asyncio.sleep(0.5)
                    continue
                j = r.json()
                st = j["state"]
                while st["status"] == "playing" and time.monotonic() - t0 < seconds:
                    await asyncio.sleep(0.05)
                    t1 = time.perf_counter()
                    r = await c.post(f"/api/games/{j['id']}/moves", headers={"X-Game-Token": j["token"]},
                                     json={"action": "roll" if st["turn_total"] < 8 else "hold",
                                           "expected_move": st["version"]})
                    if r.status_code != 200:
                        slot()["codes"].append(r.status_code)
                        await asyncio.sleep(0.5)
                        continue
                    slot()["rtt"].append(time.perf_counter() - t1)
                    st = r.json()["state"]

        async def ready() -> None:
            while time.monotonic() - t0 < seconds:
                j = (await c.get("/api/ready")).json()
                slot()["ready"] = f"{j.get('done')}/{j.get('total')} {j.get('now') or ''}"
                await asyncio.sleep(1)

        await asyncio.gather(player(), player(), ready())
    return win


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    port = free_port()
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PYTHONUNBUFFERED="1", DICELAB_ADMIN_KEY="k" * 20)
        t_start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db",
                                 f"sqlite:///{d}/s.sqlite", *sys.argv[2:]],
                                stdout=open(f"{d}/log", "wb"), stderr=subprocess.STDOUT, env=env)
        url = f"http://127.0.0.1:{port}"
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        print(f"answers after {time.monotonic() - t_start:.1f} s (load {os.getloadavg()[0]:.1f})", flush=True)
        try:
            win = asyncio.run(run(url, seconds))
        finally:
            proc.terminate()
            proc.wait(10)
    for w in sorted(win):
        e, x = win[w], win[w]["rtt"]
        print(f"{5 * w:3d}-{5 * w + 5:3d} s: {len(x):3d} moves, p95 {1000 * np.percentile(x, 95) if x else 0:6.1f} ms, "
              f"max {1000 * max(x) if x else 0:6.1f} ms, 503s {e['codes'].count(503)}, builder {e.get('ready')}")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
