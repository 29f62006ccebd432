"""Bounded work for the web lab: LRU caches with a memory budget, a worker process for heavy
requests with a queue limit, and an admission limit for game requests.

* :class:`~dicelab.core.cache.BudgetLRU` (in :mod:`dicelab.core.cache`, re-exported here) keeps
  solved tables in memory up to a byte budget.
* :class:`HeavyPool` runs heavy work (the explorer) in ONE separate worker process, so it never
  blocks the event loop nor holds the GIL that game moves need; at most ``queue`` requests wait,
  the next ones get :class:`Busy` (HTTP 503 with ``Retry-After``). The worker starts by
  forkserver, takes one core (numba threads = 1) at a lower priority (nice 10: the event loop
  comes first when the cores are busy) and is replaced every ``tasks_per_child`` tasks, so its
  memory cannot grow without bound. Only plain bytes and numbers cross the process border. A
  worker that died (killed, out of memory, a crash) is replaced by the next task: one that died
  while idle costs nothing, the task it was running gets :class:`WorkerDied` (a :class:`Busy`).
* :class:`Admission` is ASGI middleware: at most ``limit`` game requests in the app at once; the
  next one is answered 503 with ``Retry-After`` at once instead of waiting in a growing queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from dicelab.core.cache import CACHES, BudgetLRU, bounded_cache, cache_stats, nbytes_of

__all__ = ["CACHES", "SHED_HEADER", "Admission", "BudgetLRU", "Busy", "HeavyPool", "WorkerDied", "bounded_cache",
           "cache_stats", "json_bytes", "nbytes_of"]
RETRY_AFTER_S = 2


class Busy(Exception):
    """The server is at its limit for this kind of work: HTTP 503 with ``Retry-After``."""

    def __init__(self, message: str, retry_after: int = RETRY_AFTER_S) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WorkerDied(Busy):
    """The worker process stopped while it ran this task (killed, out of memory, a crash); the
    next task gets a new worker, so the task may be tried again."""


# ------------------------------------------------------------------------------ worker process
WORKER_NICE = 10  # CPU weight 110 against the server's 1024: the workers take what the event loop leaves
WORKER_CACHE_SHARE = 0.25
PRELOAD = ["dicelab.web.explorer", "dicelab.pig.solver", "dicelab.pig.evaluation", "dicelab.pig.tournaments"]


def _worker_init(server_pid: int) -> None:
    """In the worker: a lower CPU priority (game moves in the server come first), a quarter of each
    cache budget, one numba thread, and an end when the server is gone (killed, even with SIGKILL:
    a pool worker would otherwise wait for work forever, and keep the forkserver alive with it)."""
    with contextlib.suppress(OSError):
        os.nice(max(0, WORKER_NICE - os.nice(0)))  # forked by a forkserver started at WORKER_NICE already
    for cache in CACHES.values():  # a worker is replaced every few tasks: a small share of each budget
        cache.budget = int(cache.budget * WORKER_CACHE_SHARE)
    threading.Thread(target=_exit_with, args=(server_pid,), name="dicelab-watch-server", daemon=True).start()
    with contextlib.suppress(Exception):  # numba missing or without a threading layer: one thread anyway
        import numba

        numba.set_num_threads(1)


def _exit_with(pid: int, every: float = 0.5) -> None:
    while True:
        time.sleep(every)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # pragma: no cover - the pid was reused by another user's process
            os._exit(0)


def _call(module: str, name: str, args: tuple) -> bytes:
    """Run ``module.name(*args)`` in the worker; the answer is bytes (JSON or PNG) or an error."""
    import importlib

    return getattr(importlib.import_module(module), name)(*args)


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICE)  # this thread only


# Submits run in this one thread at the workers' priority: the forkserver it starts (which imports
# PRELOAD for seconds) and so every worker begin below the event loop's priority.
_SUBMITTER = ThreadPoolExecutor(1, thread_name_prefix="dicelab-submit", initializer=_lower_priority)


class HeavyPool:
    """One worker process for heavy requests, at most ``running + queue`` admitted at once."""

    def __init__(self, workers: int = 1, queue: int = 3, tasks_per_child: int = 25,
                 retry_after: int = RETRY_AFTER_S, name: str = "the explorer") -> None:
        self.workers, self.queue, self.tasks_per_child, self.name = workers, queue, tasks_per_child, name
        self.retry_after = retry_after
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()  # one pool, though the first submits may come from two threads
        self._admitted = 0
        self._running: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def admitted(self) -> int:
        return self._admitted

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(PRELOAD)
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_worker_init,
                                                 initargs=(os.getpid(),), max_tasks_per_child=self.tasks_per_child)
            return self._pool

    def _submit(self, *args: Any) -> Any:
        """Submit to the worker. Called in a thread: the first submit starts the forkserver and waits
        for it to import :data:`PRELOAD` and fork the worker (seconds on a busy machine: in the event
        loop it froze every request, issue 23's slow first minute), and a submit after
        ``tasks_per_child`` tasks forks a new worker."""
        try:
            return self._executor().submit(_call, *args)
        except BrokenProcessPool:  # the worker died while idle: this task never ran, a new worker runs it
            self.close()
            return self._executor().submit(_call, *args)

    async def run(self, module: str, name: str, *args: Any) -> bytes:
        """``module.name(*args)`` in the worker; :class:`Busy` at once when the queue is full."""
        if self._admitted >= self.workers + self.queue:
            raise Busy(f"{self.name} is busy ({self._admitted} requests running or waiting); retry in "
                       f"{self.retry_after} s", self.retry_after)
        loop = asyncio.get_running_loop()
        if self._running is None or self._loop is not loop:  # one pool may serve several apps (tests)
            self._loop, self._running = loop, asyncio.Semaphore(self.workers)
        self._admitted += 1
        try:
            async with self._running:
                try:
                    fut = await loop.run_in_executor(_SUBMITTER, self._submit, module, name, args)
                    return await asyncio.wrap_future(fut)
                except BrokenProcessPool as exc:
                    self.close()
                    raise WorkerDied(f"{self.name}'s worker stopped (out of memory?); retry", self.retry_after) from exc
        finally:
            self._admitted -= 1

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def json_bytes(obj: Any) -> bytes:
    """``obj`` as compact JSON bytes (what a worker sends back for a JSON answer)."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()


# ------------------------------------------------------------------------------ admission
SHED_HEADER = "x-dicelab-shed"  # on a request the admission limit turned away before any work: safe to retry


async def send_503(send: Any, detail: str, retry_after: int) -> None:
    """Answer 503 with ``Retry-After`` and :data:`SHED_HEADER`: nothing of the request was done, so a
    client (the lab's pages: static/common.js, ``send``) may send it again as is."""
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(retry_after).encode()), (SHED_HEADER.encode(), b"1")]})
    await send({"type": "http.response.body", "body": body})


class Admission:
    """ASGI middleware: admit a game request (path under ``prefix``) only while the server keeps up.

    Two signals, either one sheds the request with 503 and ``Retry-After`` at once (a few tenths of
    a millisecond, no database work):

    * ``limit`` game requests already in the app (requests that wait for a thread or a lock);
    * the event loop is behind by more than ``max_lag`` seconds. A game move runs in the event loop
      without yielding (1 to 3 ms), so under overload requests queue as ready tasks and unread
      socket data, where no counter sees them. A timer re-arms itself every ``tick`` seconds; when
      it has not run for ``tick + max_lag``, the loop is busy with a backlog and this request would
      wait about that long: it is told to retry instead, so the backlog drains instead of growing.
      As in CoDel, one late timer is not enough (the process may just have waited for a core):
      the timer before must have been late by over half of ``max_lag`` too, unless the loop is
      behind by over twice ``max_lag``.

    An admitted request's ``Server-Timing`` header gets ``lag;dur=`` (ms): the loop's backlog when
    the request was admitted, the server's own view of its queueing time.
    """

    def __init__(self, app: Any, prefix: str = "/api/games", limit: int = 48, max_lag: float = 0.1,
                 tick: float = 0.005, retry_after: int = 1) -> None:
        self.app, self.prefix, self.limit, self.retry_after = app, prefix, limit, retry_after
        self.max_lag, self.tick = max_lag, tick
        self.in_flight = 0
        self.shed = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_tick = 0.0
        self._behind = False  # the last timer ran late by over max_lag / 2

    def _beat(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            now = loop.time()
            self._behind = now - self._last_tick - self.tick > self.max_lag / 2
            self._last_tick = now
            loop.call_later(self.tick, self._beat)

    def lag(self) -> float:
        """How far the event loop is behind its timer, in seconds (0 when it keeps up)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # first request, or a new loop (tests make several): no timer has
            self._loop, self._last_tick = loop, loop.time()  # run yet, so nothing is known to be late;
            self._beat()  # measuring here would count any pause of the process since the line above
            return 0.0
        return max(0.0, loop.time() - self._last_tick - self.tick)

    def overloaded(self) -> float | None:
        """The loop's lag when it is overloaded (see the class docstring), else None."""
        lag = self.lag()
        return lag if lag > 2 * self.max_lag or (lag > self.max_lag and self._behind) else None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        lag = self.overloaded()
        if self.in_flight >= self.limit or lag is not None:
            self.shed += 1
            why = f"{lag * 1000:.0f} ms behind" if lag is not None else f"{self.in_flight} game requests at once"
            await send_503(send, f"the server is at its limit ({why}); retry in {self.retry_after} s",
                           self.retry_after)
            return
        waited = f", lag;dur={self.lag() * 1000:.3f}".encode()  # the loop's backlog this request met

        async def with_lag(msg: dict) -> None:
            if msg["type"] == "http.response.start":
                headers = [(k, v + waited) if k == b"server-timing" else (k, v) for k, v in msg.get("headers", [])]
                msg = {**msg, "headers": headers}
            await send(msg)

        self.in_flight += 1
        try:
            await self.app(scope, receive, with_lag)
        finally:
            self.in_flight -= 1
