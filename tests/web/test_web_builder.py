"""The background builder and its worker process under failure (issue 21, item 3): a worker that
dies is replaced, the item it was building is tried again on the new one (a few times, then failed
with a plain reason on /api/ready), and an item that fails for a reason of its own fails alone.

Real worker processes (:class:`dicelab.web.limits.HeavyPool`), killed with SIGKILL as the kernel's
out-of-memory killer would, or ended by the task itself (``os._exit``)."""

from __future__ import annotations

import asyncio
import os
import signal
import time

from dicelab.web import ahead
from dicelab.web.limits import HeavyPool


async def _until(check, limit: float = 10.0) -> None:
    end = time.monotonic() + limit
    while not check():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.02)


def test_a_worker_that_died_while_idle_is_replaced_by_the_next_task():
    async def go() -> None:
        pool = HeavyPool(name="the test pool")
        try:
            pid = await pool.run("os", "getpid")
            os.kill(pid, signal.SIGKILL)  # between two tasks, as the out-of-memory killer may
            await _until(lambda: pool._pool is not None and pool._pool._broken)  # the pool saw it
            for _ in range(3):  # every later task runs, on one new worker
                assert await pool.run("os", "getpid") not in (pid, None)
        finally:
            pool.close()

    asyncio.run(go())


# what each test item makes the worker do
CALLS = {"slow": ("time", "sleep", 1.0), "crash": ("os", "_exit", 3), "bad": ("json", "loads", "{"),
         "quick": ("os", "getpid")}


def test_the_builder_retries_what_a_dead_worker_left_and_fails_only_the_broken_items(monkeypatch):
    async def build(self: ahead.Readiness, item: ahead.Item) -> None:
        module, name, *args = CALLS[item.title]
        await self.pool.run(module, name, *args)

    monkeypatch.setattr(ahead.Readiness, "_build", build)

    async def go() -> tuple[dict, list[tuple[str, int]]]:
        pool = HeavyPool(name="the background builder")
        ready = ahead.Readiness(pool, prepare=None)  # type: ignore[arg-type]
        ready.pending = [ahead.Item("pig", "ahead", title, {}) for title in ("slow", "crash", "bad", "quick")]
        task = asyncio.get_running_loop().create_task(ready.run())
        try:
            # the worker is killed while it builds the first item, with three more queued behind it
            await _until(lambda: ready.now is not None and ready.now.title == "slow" and pool._pool is not None
                         and bool(pool._pool._processes))
            await asyncio.sleep(0.3)
            for pid in list(pool._pool._processes):
                os.kill(pid, signal.SIGKILL)
            await _until(lambda: not ready.pending and ready.now is None, limit=60)
            return ready.progress(), [(it.title, it.tries) for it in ready.done]
        finally:
            task.cancel()
            pool.close()

    p, done = asyncio.run(go())
    reasons = {f["title"]: f["reason"] for f in p["failures"]}
    assert done == [("slow", 1), ("quick", 0)], done  # "slow" built again on a new worker
    assert p["done"] == p["total"] == 4 and p["failed"] == 2, p
    assert set(reasons) == {"crash", "bad"}, p
    assert f"stopped {ahead.TRIES} times" in reasons["crash"] and "out of memory" in reasons["crash"]
    assert reasons["bad"].startswith("JSONDecodeError"), reasons["bad"]  # its own error, at its first try


def test_the_plan_readies_every_bot_a_player_can_pick(client):
    """Every bot of every setup form (its levels and its "More bots"), not only the levels: each
    makes a first move in the server's process before a game needs it, and a game with build
    hooks builds them all ahead (SVIMA took 1.35 s inside a first start when only the levels were)."""
    listed = client.get("/api/opponents").json()
    ready = ahead.Readiness(HeavyPool(), prepare=None)  # type: ignore[arg-type]
    ready.plan()
    try:
        for game, bots in listed["opponents"].items():
            if not bots:
                continue
            pickable = {b["spec"] for b in bots} | {lv["spec"] for lv in listed["levels"][game]}
            warm = [it for it in ready.pending if it.game == game and it.kind == "warm"]
            assert len(warm) == 1 and set(warm[0].specs) == pickable, (game, warm)
            for it in ready.pending:
                if it.game == game and it.kind == "prepare" and it.params == warm[0].params:
                    assert set(it.specs) == pickable, (game, it.specs)
        kinds = [it.kind for it in ready.pending]
        assert kinds.index("warm") > max(i for i, it in enumerate(ready.pending) if it.kind == "ahead" and
                                         it.title.endswith("the learning agent"))  # built before it is warmed
    finally:
        ready.stop()
