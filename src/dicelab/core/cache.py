"""Bounded in-memory caches: an LRU mapping with a memory budget, shared by every part of dicelab
that keeps solved tables in memory (the games' play modules, the web lab).

* :class:`BudgetLRU` keeps values up to a byte budget (least recently used out first); concurrent
  first requests for one key wait for a single build.
* :func:`bounded_cache` makes one and registers it by name, so :func:`cache_stats` reports every
  cache (the web lab's ``/healthz``) and a worker process can shrink them all
  (``DICELAB_WEB_CACHE_MIB`` scales the total budget).
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
MiB = 1024 * 1024


def nbytes_of(obj: Any, _seen: set[int] | None = None, _depth: int = 0) -> int:
    """An estimate of the memory ``obj`` holds: numpy buffers plus containers and attributes."""
    seen = set() if _seen is None else _seen
    if id(obj) in seen or _depth > 6:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):  # a view holds its whole base array: count the base once
        root = obj
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root is not obj and id(root) in seen:
            return 0
        seen.add(id(root))
        return int(root.nbytes)
    size = sys.getsizeof(obj, 64)
    if isinstance(obj, (str, bytes, bytearray, int, float, bool, type(None))):
        return size
    if isinstance(obj, dict):
        items: Any = [*obj.keys(), *obj.values()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = obj
    else:
        items = list(getattr(obj, "__dict__", {}).values())
        items += [getattr(obj, s) for s in getattr(type(obj), "__slots__", ()) if hasattr(obj, s)]
    return size + sum(nbytes_of(x, seen, _depth + 1) for x in items)


class BudgetLRU(Generic[K, V]):
    """A thread-safe LRU mapping bounded by ``budget`` bytes (as :func:`nbytes_of` counts them).

    The newest entry is always kept, even when it alone is over budget (the request that built it
    needs it); older entries leave first.
    """

    def __init__(self, name: str, budget_bytes: int, sizeof: Callable[[Any], int] = nbytes_of) -> None:
        self.name, self.budget, self.sizeof = name, budget_bytes, sizeof
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._guard = threading.RLock()
        self._building: dict[K, threading.Lock] = {}

    def __contains__(self, key: object) -> bool:
        with self._guard:
            return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def get(self, key: K) -> V | None:
        with self._guard:
            hit = self._data.get(key)
            if hit is None:
                return None
            self._data.move_to_end(key)
            return hit[0]

    def put(self, key: K, value: V) -> None:
        size = self.sizeof(value)
        with self._guard:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._data[key] = (value, size)
            self._bytes += size
            while self._bytes > self.budget and len(self._data) > 1:
                _, (_, freed) = self._data.popitem(last=False)
                self._bytes -= freed

    def discard(self, key: K) -> None:
        with self._guard:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]

    def clear(self) -> None:
        with self._guard:
            self._data.clear()
            self._bytes = 0

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The cached value, or ``build()`` run once however many threads ask at the same time."""
        value = self.get(key)
        if value is not None:
            return value
        with self._guard:
            lock = self._building.setdefault(key, threading.Lock())
        try:
            with lock:
                value = self.get(key)
                if value is None:
                    value = build()
                    self.put(key, value)
        finally:
            with self._guard:
                self._building.pop(key, None)
        return value

    def stats(self) -> dict[str, Any]:
        return {"entries": len(self._data), "bytes": self._bytes, "budget_bytes": self.budget}


CACHES: dict[str, BudgetLRU] = {}


def bounded_cache(name: str, budget_mib: float) -> BudgetLRU:
    """A :class:`BudgetLRU` registered under ``name`` (``DICELAB_WEB_CACHE_MIB`` scales the budget:
    it is the total over all caches, shared out in proportion to their default budgets)."""
    cache: BudgetLRU = BudgetLRU(name, int(budget_mib * MiB * _cache_scale()))
    CACHES[name] = cache
    return cache


DEFAULT_TOTAL_MIB = 2400.0  # the sum of every game's cache budgets (tests/core/test_cache_budget.py checks it)


def _cache_scale() -> float:
    from dicelab.core import env

    total = env.get("DICELAB_WEB_CACHE_MIB")  # a whole number from 1, or a one-line error
    return 1.0 if total is None else total / DEFAULT_TOTAL_MIB


def cache_stats() -> dict[str, dict[str, Any]]:
    return {name: c.stats() for name, c in CACHES.items()}
