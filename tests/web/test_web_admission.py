"""The admission limit's two signals (dicelab.web.limits.Admission), on a bare asyncio loop.

Laws: a request is shed only when the loop is really behind; the first request a loop sees is
never shed, however long the process paused while the timer was being set up (a CI run shed the
first request of a fresh app after a 1.7 s pause of the process in that spot)."""
from __future__ import annotations

import asyncio
import time

from dicelab.web.limits import SHED_HEADER, Admission


async def _ok(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"server-timing", b"app;dur=1")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _status(adm: Admission) -> int:
    sent: list[dict] = []

    async def send(msg: dict) -> None:
        sent.append(msg)

    await adm({"type": "http", "path": "/api/games"}, None, send)
    return sent[0]["status"]


class PausedOnce(Admission):
    """A process pause (another thread holding the GIL, the scheduler) right after the first timer is set."""

    paused = False

    def _beat(self) -> None:
        super()._beat()
        if not self.paused:
            self.paused = True
            time.sleep(0.5)


def test_the_first_request_is_admitted_after_a_pause_while_the_timer_is_set_up():
    async def run() -> int:
        return await _status(PausedOnce(_ok, max_lag=0.1))

    assert asyncio.run(run()) == 200


def test_a_loop_that_keeps_up_admits_and_a_blocked_loop_sheds():
    async def run() -> tuple[int, int, int]:
        # max_lag wide enough that a busy test machine's own pauses cannot shed the on-time request
        adm = Admission(_ok, max_lag=0.25, tick=0.005)
        first = await _status(adm)
        await asyncio.sleep(0.05)  # the timer runs on time
        on_time = await _status(adm)
        time.sleep(1.0)  # the loop blocked for 4 x max_lag: the request that comes next would have waited
        blocked = await _status(adm)
        return first, on_time, blocked

    assert asyncio.run(run()) == (200, 200, 503)


def test_one_short_late_timer_is_not_enough_to_shed():
    # behind by between max_lag and 2 x max_lag once, after timers that ran on time: admitted (CoDel)
    async def run() -> int:
        adm = Admission(_ok, max_lag=1.0, tick=0.005)  # 1.3 s late: 0.7 s of slack for a busy machine
        await _status(adm)
        await asyncio.sleep(0.05)
        time.sleep(1.3)
        return await _status(adm)

    assert asyncio.run(run()) == 200


def _gated() -> tuple[asyncio.Event, object]:
    """An app that answers once the event is set (requests stay in it until then)."""
    gate = asyncio.Event()

    async def slow(scope, receive, send) -> None:
        await gate.wait()
        await _ok(scope, receive, send)

    return gate, slow


def test_too_many_requests_at_once_are_shed():
    async def run() -> list[int]:
        gate, slow = _gated()
        adm = Admission(slow, limit=2)
        tasks = [asyncio.create_task(_status(adm)) for _ in range(3)]
        await asyncio.sleep(0.01)
        gate.set()
        return sorted(await asyncio.gather(*tasks))

    assert asyncio.run(run()) == [200, 200, 503]


def test_a_shed_answer_says_when_to_retry_and_that_nothing_was_done():
    # the mark lets a client (the lab's pages) send the same request again; an admitted answer has none
    async def run() -> list[dict]:
        gate, slow = _gated()
        adm = Admission(slow, limit=1, retry_after=3)
        sent: list[list[dict]] = [[], []]

        async def one(i: int) -> None:
            async def send(msg: dict) -> None:
                sent[i].append(msg)
            await adm({"type": "http", "path": "/api/games"}, None, send)

        first = asyncio.create_task(one(0))
        await asyncio.sleep(0.01)
        await one(1)  # the limit is full: shed at once, before the app runs
        gate.set()
        await first
        return [dict(s[0]["headers"]) | {"status": s[0]["status"]} for s in sent]

    admitted, shed = asyncio.run(run())
    assert admitted["status"] == 200 and SHED_HEADER.encode() not in admitted
    assert shed["status"] == 503 and shed[SHED_HEADER.encode()] == b"1" and shed[b"retry-after"] == b"3"
