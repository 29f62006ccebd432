"""Load: 200 games at once against one server over loopback, bot replies at p95 under 50 ms.

Each of 200 simulated players plays a whole game of Pig to 30 against the optimal bot through
the JSON API (httpx, one shared connection pool). Like people at screens, the players arrive over
the first two seconds and think 1 to 3 s before each decision, so all 200 games are live at once
and the server takes about 100 moves a second. Bounded: every game must finish within its move budget and the whole run within
`DEADLINE` seconds. Measured per move request: the round trip seen by the client (the human's move
committed, the bot's whole reply computed and committed, the answer received) and the bot's
reply time inside the server (``Server-Timing: bot``). Both p95 must stay under 50 ms.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time

import httpx
import numpy as np
import pytest

GAMES = 200
GOAL = 30
DEADLINE = 120.0
MAX_MOVES = 200
P95_LIMIT_MS = 50.0


async def play(client: httpx.AsyncClient, rng: random.Random, rtt: list[float], bot: list[float]) -> int:
    await asyncio.sleep(rng.uniform(0.0, 2.0))
    r = await client.post("/api/games", json={"goal": GOAL, "opponent": "optimal", "human_first": None})
    assert r.status_code == 201, r.text
    j = r.json()
    gid, h, st = j["id"], {"X-Game-Token": j["token"]}, j["state"]
    moves = 0
    while st["status"] == "playing":
        assert moves < MAX_MOVES
        await asyncio.sleep(rng.uniform(1.0, 3.0))
        action = "roll" if st["turn_total"] < rng.choice((6, 10, 15)) else "hold"
        t0 = time.perf_counter()
        r = await client.post(f"/api/games/{gid}/moves", json={"action": action, "expected_move": st["version"]},
                              headers=h)
        rtt.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.text
        bot.append(float(r.headers["server-timing"].split("dur=")[1]) / 1000)
        st = r.json()["state"]
        moves += 1
    return moves


def test_200_concurrent_games(server_factory, tmp_path):
    server = server_factory()
    server.start()
    httpx.post(server.url + "/api/games", json={"goal": GOAL, "opponent": "optimal"})  # solve once
    rtt: list[float] = []
    bot: list[float] = []

    async def main() -> list[int]:
        limits = httpx.Limits(max_connections=GAMES, max_keepalive_connections=GAMES)
        async with httpx.AsyncClient(base_url=server.url, limits=limits, timeout=30.0) as client:
            rngs = [random.Random(seed) for seed in range(GAMES)]
            return await asyncio.wait_for(asyncio.gather(*(play(client, r, rtt, bot) for r in rngs)), DEADLINE)

    t0 = time.perf_counter()
    moves = asyncio.run(main())
    wall = time.perf_counter() - t0
    p95_rtt = float(np.percentile(rtt, 95)) * 1000
    p95_bot = float(np.percentile(bot, 95)) * 1000
    report = {"games": GAMES, "moves": int(sum(moves)), "wall_s": round(wall, 2),
              "moves_per_s": round(sum(moves) / wall, 1),
              "rtt_ms": {"p50": round(float(np.percentile(rtt, 50)) * 1000, 2), "p95": round(p95_rtt, 2),
                         "max": round(max(rtt) * 1000, 2)},
              "bot_ms": {"p50": round(float(np.percentile(bot, 50)) * 1000, 3), "p95": round(p95_bot, 3)}}
    print("load:", json.dumps(report))
    if os.environ.get("DICELAB_LOAD_REPORT"):
        with open(os.environ["DICELAB_LOAD_REPORT"], "a") as f:
            f.write(json.dumps(report) + "\n")
    assert len(moves) == GAMES
    assert p95_bot < P95_LIMIT_MS, report
    assert p95_rtt < P95_LIMIT_MS, report
    with httpx.Client(base_url=server.url) as c:
        assert c.get("/healthz").status_code == 200
