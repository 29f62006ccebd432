"""Getting the lab ready in the background (issue 21, item 3): no game start and no review waits
for a build.

When the lab starts (``create_app(warm=True)``, what ``dicelab serve`` does) one asyncio task works
through a plan, one item at a time, heavy work in its own worker process (:class:`HeavyPool`,
off the server's GIL), most likely needed first:

1. ``prepare``: every bot a player can pick (the levels and the others) and the coach of every
   game under its default rules (the setup forms' defaults: a newcomer's first game), through the
   Play's build hooks (:class:`dicelab.core.registry.Prepares`); and, after the other steps, the
   further rules a Play names in its optional ``prepare_also()`` (``[{"title", "params"}]``: Pig
   for three and four players);
2. ``ahead`` items a Play marks ``first`` (:class:`dicelab.core.registry.BuildsAhead`: Liar's
   Dice's duel policies of the default table and its learning agent); then ``warm``: each bot a
   player can pick makes one move of a new game in the server's own process, and the coach
   advises there (:func:`warm_up`: what they load lazily is in memory before a game needs it);
3. ``levels``: every ladder's strengths (:mod:`dicelab.core.levels`), so the pages can show them;
4. the other ``ahead`` items (Liar's Dice's duel policies of every other table).

A Play with ``BuildsAhead`` hooks is told to :meth:`~dicelab.core.registry.BuildsAhead.defer`
first: its bots play their fallback until an item is ready, and a game that needs an item not
built yet moves it to the front of the queue (:meth:`Readiness.first`). Built items land in the
disk cache too (:mod:`dicelab.core.store`), so the next start only loads them.
:meth:`Readiness.progress` is what the start page shows (``GET /api/ready``).

An item whose worker process stops under it (killed, out of memory) is tried again on a new worker,
at most :data:`TRIES` times in all, then failed with a plain reason; a worker queue full of game
starts' builds makes the builder wait, not fail; an item that fails for a reason of its own (an
error in the build) fails alone, at once, and the builder goes on with the next.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from dicelab.core import levels as core_levels
from dicelab.core import registry
from dicelab.web.limits import Busy, HeavyPool, WorkerDied

log = logging.getLogger("dicelab.web.ahead")
TRIES = 3  # an item's tries when its worker process stops under it (a crash or out of memory each time)
WAITS = 120  # waits of Busy's retry_after (seconds) for a full worker queue before an item fails


@dataclass
class Item:
    """One thing to build: ``kind`` is ``prepare``, ``ahead`` or ``levels``."""

    game: str
    kind: str
    title: str
    params: dict[str, Any]
    specs: list[str] = field(default_factory=list)
    tries: int = 0  # times its worker process stopped under it
    waits: int = 0  # times a full worker queue made it wait


def pickable(play: Any, rules: Any) -> list[str]:
    """Every bot a player can pick on the setup form under ``rules``: the levels, then the others."""
    ranked = core_levels.ranks(play)
    specs = [lv.spec for lv in ranked.levels(rules)] if ranked else []
    return list(dict.fromkeys(specs + [b.spec for b in play.bots(rules)]))


def warm_up(entry: registry.GameEntry, params: dict[str, Any], specs: list[str]) -> None:
    """(In a thread of the server.) Make each bot of ``specs`` once and ask it for a move of a new
    game, and the coach for its advice there: whatever they load or build lazily (a table from
    disk, a derived policy, numba's dispatch) is in memory before a game start or a first move
    needs it. Raises after trying them all when some failed."""
    from dicelab.web.service import coach_of, make_bot

    play: Any = entry.play
    rules = entry.make_rules(**params)
    failed = []
    for spec in specs:
        try:
            state = entry.new_game(rules, 0)
            seat = state.to_move()[0]
            make_bot(play, spec, rules, 0).act(state, seat)
            coach_of(play, state, seat, [spec])
        except Exception as exc:  # noqa: BLE001 - the others are still warmed
            failed.append(f"{spec}: {type(exc).__name__}: {exc}")
    if failed:
        raise RuntimeError("; ".join(failed))


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class Readiness:
    """The background builder and its progress (one per app)."""

    def __init__(self, pool: HeavyPool, prepare: Callable[[registry.GameEntry, list[str], dict[str, Any]],
                                                          Awaitable[None]]) -> None:
        self.pool, self.prepare = pool, prepare
        self.pending: list[Item] = []
        self.done: list[Item] = []
        self.failed: list[tuple[Item, str]] = []
        self.now: Item | None = None
        self.started = self.finished = 0.0
        self.running = False
        self.deferred: list[Any] = []

    def stop(self) -> None:
        """The server stops: the Plays that deferred to this builder build on demand again."""
        for play in self.deferred:
            play.defer(False)
        self.deferred = []

    # ------------------------------------------------------------------ the plan
    def plan(self) -> None:
        """Fill :attr:`pending` from every registered game (see the module docstring)."""
        from dicelab.web.service import rule_params

        prepare, warm, first, measure, rest = [], [], [], [], []
        for entry in sorted(registry.games(), key=lambda g: (-g.popularity, g.title)):  # as the start page
            play: Any = entry.play
            if play is None:
                continue
            params = rule_params(entry, {})
            rules = entry.make_rules(**params)
            ranked = core_levels.ranks(play)
            if hasattr(play, "ahead") and hasattr(play, "defer"):
                play.defer()
                self.deferred.append(play)
                for it in play.ahead():
                    item = Item(entry.name, "ahead", f"{entry.title}: {it['title']}", dict(it["params"]))
                    (first if it.get("first") else rest).append(item)
            elif hasattr(play, "prepare"):
                prepare.append(Item(entry.name, "prepare", f"{entry.title}: the opponents", params,
                                    pickable(play, rules)))
                for it in getattr(play, "prepare_also", list)():  # more rules (Pig for three or four players)
                    more = rule_params(entry, dict(it["params"]))
                    rules_more = entry.make_rules(**more)
                    specs = [lv.spec for lv in play.levels(rules_more)] if ranked else [play.bots(rules_more)[0].spec]
                    rest.append(Item(entry.name, "prepare", f"{entry.title}: {it['title']}", more, specs))
            warm.append(Item(entry.name, "warm", f"{entry.title}: a first move of every bot", params,
                             pickable(play, rules)))
            if ranked:
                measure.append(Item(entry.name, "levels", f"{entry.title}: measuring the levels", params))
        self.pending = prepare + first + warm + measure + rest

    def first(self, game: str, wanted: list[dict[str, Any]]) -> None:
        """Build the ``ahead`` items ``wanted`` of ``game`` next (a game is playing their fallback)."""
        front = []
        for params in wanted:
            if any(it.game == game and it.kind == "ahead" and _same(it.params, params)
                   for it in ([self.now] if self.now else []) + self.done):
                continue  # being built now, or built already
            found = next((it for it in self.pending if it.game == game and it.kind == "ahead"
                          and _same(it.params, params)), None)
            if found is not None:
                self.pending.remove(found)
            else:
                found = Item(game, "ahead", f"{registry.get(game).title}: for a game in play", dict(params))
            front.append(found)
        self.pending[:0] = front

    # ------------------------------------------------------------------ the work
    async def run(self) -> None:
        """Work through :attr:`pending` until it is empty (then wait for :meth:`first`)."""
        self.running, self.started = True, time.monotonic()
        try:
            while True:
                if not self.pending:
                    if not self.finished:
                        self.finished = time.monotonic()
                        log.info("the lab is ready: %d items in %.1f s", len(self.done), self.finished - self.started)
                    await anyio.sleep(0.5)
                    continue
                item = self.now = self.pending.pop(0)
                try:
                    await self._build(item)
                    self.done.append(item)
                except WorkerDied:  # killed or out of memory: again on a new worker, a few times
                    item.tries += 1
                    if item.tries < TRIES:
                        log.warning("the worker stopped while building %s; trying again on a new worker", item.title)
                        self.pending.insert(0, item)
                    else:
                        self._fail(item, f"its worker process stopped {item.tries} times while building it "
                                         "(out of memory?); restart the lab to try again")
                except Busy as exc:  # the worker's queue is full of game starts' builds: wait for it
                    item.waits += 1
                    if item.waits < WAITS:
                        self.pending.insert(0, item)
                        await anyio.sleep(exc.retry_after)
                    else:
                        self._fail(item, f"the worker stayed busy with game starts for {item.waits} tries")
                except Exception as exc:  # noqa: BLE001 - one failed item must not stop the others
                    self._fail(item, f"{type(exc).__name__}: {exc}")
                finally:
                    self.now = None
        finally:
            self.running = False

    def _fail(self, item: Item, reason: str) -> None:
        log.warning("could not build %s: %s", item.title, reason)
        self.failed.append((item, " ".join(reason.split())[:200]))

    async def _build(self, item: Item) -> None:
        entry = registry.get(item.game)
        play: Any = entry.play
        if item.kind == "prepare":
            await self.prepare(entry, item.specs, item.params)
        elif item.kind == "ahead":
            if await anyio.to_thread.run_sync(play.has_ahead, item.params):
                return
            data = await self.pool.run("dicelab.core.registry", "build_ahead_in_worker", item.game, item.params)
            await anyio.to_thread.run_sync(play.take_ahead, item.params, data)
        elif item.kind == "warm":
            await anyio.to_thread.run_sync(warm_up, entry, item.params, item.specs)
        else:
            rules = entry.make_rules(**item.params)
            if await anyio.to_thread.run_sync(core_levels.known, item.game, play, rules) is not None:
                return
            data = await self.pool.run("dicelab.core.levels", "measure_in_worker", item.game, item.params)
            core_levels.install(json.loads(data), play, rules)

    # ------------------------------------------------------------------ what the start page shows
    def progress(self) -> dict[str, Any]:
        """``{"ready", "done", "total", "now", "games": [{"game", "title", "done", "total"}], "failed",
        "failures": [{"title", "reason"}]}``."""
        every = self.done + [it for it, _ in self.failed] + ([self.now] if self.now else []) + self.pending
        games: dict[str, dict[str, Any]] = {}
        for it in every:
            g = games.setdefault(it.game, {"game": it.game, "title": registry.get(it.game).title, "done": 0, "total": 0})
            g["total"] += 1
        for it in self.done + [it for it, _ in self.failed]:
            games[it.game]["done"] += 1
        busy = bool(self.pending) or self.now is not None
        return {"ready": self.running and not busy, "running": self.running, "done": len(self.done) + len(self.failed),
                "total": len(every), "now": None if self.now is None else self.now.title,
                "games": list(games.values()), "failed": len(self.failed),
                "failures": [{"title": it.title, "reason": why} for it, why in self.failed]}
