"""Bounded work per request (issue 11, item 6), against a real server process over loopback.

* Four heavy explorer requests (exact best responses on two-dice Pig to 100, a different die each:
  0.2 to 0.5 s of CPU apiece on a quiet machine, beside the explorer worker's start) run while live Pig games keep moving: the moves' server-side answer
  time (``Server-Timing: app``) stays under 50 ms at p95, because the explorer works in its own
  process and the event loop only waits for it. While the four are running or queued, further
  explorer requests are refused at once with 503 and ``Retry-After``.
* Absurd explorer input (a tournament whose work estimate is over the limit) is refused with 422
  before any work starts, and the server answers the next request at once.
* A game against a bot whose tables take seconds to build (a best response to a best response on
  two-dice Pig with a d12) is prepared in a worker process: the other games' moves keep their
  speed meanwhile, and the tables that come back are the ones the server would have built.
* Many rule sets: the solution cache stays within its memory budget (the budget is made small with
  ``DICELAB_WEB_CACHE_MIB``), and games whose tables were dropped still play.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from dicelab.core.cache import DEFAULT_TOTAL_MIB
from dicelab.web.limits import SHED_HEADER

# 50 ms on a quiet machine (DICELAB_LOAD_STRICT=1, as bench_web runs it); beside another pytest worker
# on 2 cores the server is descheduled now and then inside a request (50.5 ms seen), so 100 ms there:
# a heavy build on the event loop would hold moves for seconds, far over either.
P95_LIMIT_MS = 50.0 if os.environ.get("DICELAB_LOAD_STRICT") == "1" else 100.0
HEAVY_SIDES = (8, 7, 6, 5)  # a different rule set per request: no cache shares their work
LIVE_GAMES = 4


def server_ms(r: httpx.Response) -> float:
    timing = dict(part.strip().split(";dur=") for part in r.headers["server-timing"].split(","))
    return float(timing["app"])


# The server's admission limit answers 503 with Retry-After when its event loop runs late: on a
# quiet machine that never happens here; beside another pytest worker on 2 cores the server process
# is descheduled now and then, so a few requests may be shed and retried, as a client is told to.
MAX_SHED_SHARE = 0.0 if os.environ.get("DICELAB_LOAD_STRICT") == "1" else 0.1


async def send(client: httpx.AsyncClient, shed: list[int], method: str, url: str, **kw) -> httpx.Response:
    """One request, retried after ``Retry-After`` while the admission limit sheds it (counted)."""
    for _ in range(20):
        r = await client.request(method, url, **kw)
        if r.status_code != 503 or SHED_HEADER not in r.headers:
            shed.append(0)
            return r
        shed.append(1)
        await asyncio.sleep(min(1.0, float(r.headers.get("retry-after", "1"))))
    return r


async def live_game(client: httpx.AsyncClient, rng: random.Random, stop: asyncio.Event, app_ms: list[float],
                    shed: list[int] | None = None) -> None:
    """Pig to 20 against the optimal bot, a move every 100-200 ms, new games until ``stop``."""
    shed = [] if shed is None else shed
    while not stop.is_set():
        r = await send(client, shed, "POST", "/api/games", json={"goal": 20, "opponent": "optimal", "human_first": True})
        assert r.status_code == 201, r.text
        j = r.json()
        h, st = {"X-Game-Token": j["token"]}, j["state"]
        while st["status"] == "playing" and not stop.is_set():
            await asyncio.sleep(rng.uniform(0.1, 0.2))
            body = {"action": "roll" if st["turn_total"] < rng.choice((6, 10, 15)) else "hold",
                    "expected_move": st["version"]}
            r = await send(client, shed, "POST", f"/api/games/{j['id']}/moves", json=body, headers=h)
            assert r.status_code == 200, r.text
            app_ms.append(server_ms(r))
            st = r.json()["state"]


def heavy_params(sides: int) -> dict:
    return {"a": "best-response:hold:40", "b": "hold:20", "variant": "two-dice", "goal": 100, "sides": sides}


def test_moves_keep_their_speed_beside_four_heavy_explorer_requests(server_factory):
    server = server_factory()
    server.start()
    httpx.post(server.url + "/api/games", json={"goal": 20, "opponent": "optimal"}, timeout=60)  # solve once
    app_ms: list[float] = []
    shed: list[int] = []
    report: dict = {}

    async def main() -> tuple[list[httpx.Response], list[httpx.Response]]:
        stop = asyncio.Event()
        async with httpx.AsyncClient(base_url=server.url, timeout=120.0) as client:
            games = [asyncio.create_task(live_game(client, random.Random(s), stop, app_ms, shed))
                     for s in range(LIVE_GAMES)]
            await asyncio.sleep(0.5)
            n_before = len(app_ms)
            heavy = [asyncio.create_task(client.get("/api/explorer/evaluate", params=heavy_params(s)))
                     for s in HEAVY_SIDES]
            for _ in range(100):  # until the four are admitted: one runs (or the worker starts), three wait
                if (await client.get("/healthz")).json()["explorer_admitted"] == len(HEAVY_SIDES):
                    break
                await asyncio.sleep(0.02)
            over = await asyncio.gather(*(client.get("/api/explorer/evaluate", params=heavy_params(s))
                                          for s in (4, 3)))
            t0 = time.perf_counter()
            done = await asyncio.gather(*heavy)
            report["heavy_wall_s"] = round(time.perf_counter() - t0, 2)
            report["moves_during_heavy"] = len(app_ms) - n_before
            stop.set()
            await asyncio.gather(*games)
            return done, over

    done, over = asyncio.run(asyncio.wait_for(main(), 90))
    for r in done:
        assert r.status_code == 200, r.text
        res = r.json()["result"]
        assert 0.5 < res["a_overall"] < 1.0  # the best response beats the strategy it answers
    for r in over:
        assert r.status_code == 503, r.text
        assert int(r.headers["retry-after"]) >= 1 and "busy" in r.json()["detail"]
    p95 = float(np.percentile(app_ms, 95))
    report.update(moves=len(app_ms), server_ms_p50=round(float(np.percentile(app_ms, 50)), 2),
                  server_ms_p95=round(p95, 2), shed=sum(shed), requests=len(shed))
    print("bounded:", json.dumps(report))
    assert report["moves_during_heavy"] >= 20, report  # the games really ran beside the explorer
    assert p95 < P95_LIMIT_MS, report
    assert sum(shed) <= MAX_SHED_SHARE * len(shed), report
    # afterwards the explorer takes requests again
    r = httpx.get(server.url + "/api/explorer/evaluate", params={"a": "hold:20", "b": "hold:21"}, timeout=60)
    assert r.status_code == 200 and abs(r.json()["result"]["a_first"] - 0.5426) < 1e-4  # seed 002, Figure 17


def test_absurd_explorer_work_is_refused_up_front(server_factory):
    server = server_factory()
    server.start()
    specs = ",".join(f"hold:{n}" for n in range(10, 22))  # 66 exact evaluations, about 11 s of CPU
    t0 = time.perf_counter()
    r = httpx.get(server.url + "/api/explorer/tournament", timeout=60,
                  params={"specs": specs, "variant": "two-dice", "goal": 100, "sides": 12})
    took = time.perf_counter() - t0
    assert r.status_code == 422 and "too much work" in r.json()["detail"], r.text
    assert took < 2.0  # refused before any work starts
    assert httpx.get(server.url + "/healthz", timeout=10).json()["explorer_admitted"] == 0


def test_a_heavy_bot_is_built_off_the_event_loop(server_factory):
    server = server_factory()
    server.start()
    httpx.post(server.url + "/api/games", json={"goal": 20, "opponent": "optimal"}, timeout=60)
    app_ms: list[float] = []
    shed: list[int] = []
    heavy = {"goal": 100, "variant": "two-dice", "sides": 12, "opponent": "best-response:best-response:hold:30",
             "human_first": True}

    async def main() -> httpx.Response:
        stop = asyncio.Event()
        async with httpx.AsyncClient(base_url=server.url, timeout=120.0) as client:
            games = [asyncio.create_task(live_game(client, random.Random(s), stop, app_ms, shed))
                     for s in range(LIVE_GAMES)]
            await asyncio.sleep(0.5)
            r = await send(client, [], "POST", "/api/games", json=heavy)
            stop.set()
            await asyncio.gather(*games)
            return r

    r = asyncio.run(asyncio.wait_for(main(), 90))
    assert r.status_code == 201, r.text
    p95 = float(np.percentile(app_ms, 95))
    print("heavy bot:", json.dumps({"moves": len(app_ms), "server_ms_p95": round(p95, 2), "shed": sum(shed)}))
    assert len(app_ms) >= 20 and p95 < P95_LIMIT_MS, (len(app_ms), p95)
    assert sum(shed) <= MAX_SHED_SHARE * len(shed), (sum(shed), len(shed))
    j = r.json()
    m = httpx.post(f"{server.url}/api/games/{j['id']}/moves", headers={"X-Game-Token": j["token"]}, timeout=60,
                   json={"action": "roll", "expected_move": j["state"]["version"]})
    assert m.status_code == 200, m.text


def descendants(pid: int) -> set[int]:
    """Every live (not zombie) process below ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z":
                parents[int(d.name)] = int(fields[1])
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parents.items() if pp == p}
        todo += list(kids - out)
        out |= kids
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_killed_server_leaves_no_worker_behind(server_factory):
    server = server_factory()
    server.start()
    r = httpx.get(server.url + "/api/explorer/evaluate", params={"a": "hold:20", "b": "hold:25", "goal": 40},
                  timeout=60)
    assert r.status_code == 200
    helpers = descendants(server.proc.pid)
    assert helpers, "the explorer worker (and its forkserver) run below the server"
    server.kill()  # SIGKILL: no shutdown code runs in the server
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in helpers):
        time.sleep(0.2)
    assert not [p for p in helpers if alive(p)], "a worker outlived its server"


def test_tables_from_the_worker_are_the_servers_own():
    """The .npz round trip of a worker-built bot (run here in-process) gives back the same arrays."""
    from dicelab import pig
    from dicelab.core.registry import export_in_worker
    from dicelab.pig import play
    from dicelab.pig.solver import solve
    from dicelab.pig.specs import compile_table

    params = {"goal": 25, "sides": 8, "variant": "two-dice"}
    rules = pig.PigRules(**params)
    spec = "best-response:hold:12"
    data = export_in_worker("pig", [spec], params)  # what the bot builder's worker runs
    play._tables.discard((spec, rules))  # forget what the in-process build left, install what came back
    play._solutions.discard(rules)
    assert not pig.PLAY.ready([spec], rules)
    pig.PLAY.install([spec], rules, data)
    assert pig.PLAY.ready([spec], rules)
    assert np.array_equal(play.table(spec, rules), compile_table(spec, rules))
    sol = play.solution(rules)
    assert np.array_equal(sol.p, solve(rules).p) and np.array_equal(sol.roll, solve(rules).roll)


BUDGET_TOTAL_MIB = DEFAULT_TOTAL_MIB / 8  # a whole number (300); the Pig solutions' 128 MiB of 2,400 become 16 MiB
assert BUDGET_TOTAL_MIB == int(BUDGET_TOTAL_MIB)  # the variable takes whole MiB


@pytest.mark.parametrize("goals", [list(range(40, 101, 10))])
def test_caches_stay_within_their_budget(server_factory, monkeypatch, goals):
    monkeypatch.setenv("DICELAB_WEB_CACHE_MIB", str(int(BUDGET_TOTAL_MIB)))
    server = server_factory()
    server.start()
    solution_bytes = {g: g ** 3 * 9 for g in goals}  # P (float64) and the roll table (bool), goal^3 each
    assert sum(solution_bytes.values()) > 16 * 2 ** 20  # together they would not fit
    with httpx.Client(base_url=server.url, timeout=60) as c:
        first = None
        for g in goals:
            r = c.post("/api/games", json={"goal": g, "opponent": "optimal", "human_first": True})
            assert r.status_code == 201, r.text
            first = first or r.json()
            stats = c.get("/healthz").json()["caches"]["pig solutions"]
            assert stats["budget_bytes"] == 16 * 2 ** 20
            assert stats["bytes"] <= stats["budget_bytes"] or stats["entries"] == 1, stats
            assert stats["bytes"] >= solution_bytes[g]  # the newest is counted at its real size
        # the first game's tables were dropped long ago; it still plays (they are built again)
        h = {"X-Game-Token": first["token"]}
        r = c.post(f"/api/games/{first['id']}/moves", json={"action": "roll", "expected_move": 0}, headers=h)
        assert r.status_code == 200, r.text


def test_budget_lru_evicts_least_recently_used_and_builds_once():
    """The cache's rules, checked from outside: least recently used out first, the byte budget kept
    (the newest entry is kept even alone over budget), one build for many concurrent first asks."""
    import threading

    from dicelab.web.limits import BudgetLRU

    kib = np.zeros(1024, dtype=np.uint8)
    c: BudgetLRU = BudgetLRU("test", 3 * 1024)
    for k in range(5):
        c.put(k, kib.copy())
    assert sorted(c._data) == [2, 3, 4] and c.nbytes == 3 * 1024
    c.get(2)  # now 3 is the least recently used
    c.put(5, kib.copy())
    assert sorted(c._data) == [2, 4, 5]
    c.put(6, np.zeros(10 * 1024, dtype=np.uint8))  # over the budget alone: kept, the rest dropped
    assert list(c._data) == [6]

    calls = []
    barrier = threading.Barrier(8)

    def build() -> np.ndarray:
        calls.append(1)
        time.sleep(0.2)
        return kib.copy()

    def ask() -> None:
        barrier.wait()
        c.get_or_build("k", build)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and "k" in c
