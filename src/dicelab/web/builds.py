"""Building new bots' tables for the web lab, limited and shared like the explorer's work (issue 23:
a flood of new games whose bots must be built must not slow the games in play).

:class:`BotBuilds` (one per app) builds what a game's bots and coach need before the game's quick
work runs in the event loop, through the Play's optional build hooks
(:class:`dicelab.core.registry.Prepares`):

* a heavy build runs in the bot builder's worker process (:data:`BOT_BUILDS`, off the server's
  GIL, one at a time, at most 16 waiting); only its result is put into this process's caches, in a
  thread;
* a light one runs in one thread of this process (the games' solvers release the GIL);
* requests for the same build (game, bots, rules) share it: nothing is built twice;
* at most :data:`MAX_PENDING` different builds wait at once, at most :data:`PER_CLIENT` of them
  for one client address; the next request is told to retry (:class:`~dicelab.web.limits.Busy`:
  503 with ``Retry-After``), so one client's flood of ever new bots cannot fill the queue;
* what was built stays in the games' bounded caches (:func:`dicelab.core.cache.bounded_cache`) and
  their disk caches, as the explorer's results do.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import anyio

from dicelab.core import registry
import dicelab.web.service as service
from dicelab.web.limits import Busy, HeavyPool

__all__ = ["BOT_BUILDS", "MAX_PENDING", "PER_CLIENT", "BotBuilds"]
# heavy bot builds (two-dice Pig solves, best responses on big dice): one worker process for all
BOT_BUILDS = HeavyPool(queue=16, name="the bot builder")
MAX_PENDING = 8  # different builds waiting at once
PER_CLIENT = 2  # of them for one client address


class BotBuilds:
    """The bot builds of one app (see the module docstring)."""

    def __init__(self, pool: HeavyPool = BOT_BUILDS, pending: int = MAX_PENDING, per_client: int = PER_CLIENT) -> None:
        self.pool, self.most, self.per_client = pool, pending, per_client
        self.pending: dict[tuple[str, ...], asyncio.Future] = {}
        self.by_client: Counter[str] = Counter()
        self.thread = anyio.CapacityLimiter(2)  # light builds (and installs) at once

    async def prepare(self, entry: registry.GameEntry, specs: list[str], params: dict[str, Any],
                      client: str | None = None) -> None:
        """Build what the bots ``specs`` and the coach need under the rules ``params``; at once when
        nothing is missing. ``client``: the address that asked (None: the lab itself)."""
        need = await anyio.to_thread.run_sync(service.needs, entry, specs, params)
        if need is None:
            return
        key = (entry.name, *specs, json.dumps(params, sort_keys=True))
        shared = self.pending.get(key)
        if shared is not None:
            await asyncio.shield(shared)
            return
        retry = self.pool.retry_after
        if len(self.pending) >= self.most:
            raise Busy(f"the bot builder is busy ({len(self.pending)} new bots being built); retry in {retry} s", retry)
        if client is not None and self.by_client[client] >= self.per_client:
            raise Busy(f"{self.by_client[client]} new bots are being built for you already; retry in {retry} s "
                       "(or choose a bot of the game's list)", retry)
        done: asyncio.Future = asyncio.get_running_loop().create_future()
        self.pending[key] = done
        if client is not None:
            self.by_client[client] += 1
        try:
            await self._build(entry, specs, params, *need)
            done.set_result(None)
        except BaseException as exc:
            done.set_exception(exc)
            done.exception()  # retrieved here: only the requests waiting on it see it
            raise
        finally:
            self.pending.pop(key, None)
            if client is not None:
                self.by_client[client] -= 1
                if self.by_client[client] <= 0:
                    del self.by_client[client]

    async def _build(self, entry: registry.GameEntry, specs: list[str], params: dict[str, Any], rules: Any,
                     heavy: bool) -> None:
        play: Any = entry.play
        if heavy:
            data = await self.pool.run("dicelab.core.registry", "export_in_worker", entry.name, list(specs), params)
            await anyio.to_thread.run_sync(play.install, specs, rules, data, limiter=self.thread)
        else:
            await anyio.to_thread.run_sync(play.prepare, specs, rules, limiter=self.thread)
