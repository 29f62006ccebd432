"""DICELAB_WEB_CACHE_MIB is the total over all caches: the default total must be the sum of the
default budgets of every cache the registered games create (else the setting over- or undershoots)."""

from __future__ import annotations

import importlib
import pkgutil

from dicelab.core import cache, registry


def test_default_total_is_the_sum_of_the_games_budgets():
    for entry in registry.games():  # every module of every game: wherever a cache is made
        pkg = importlib.import_module(entry.module)
        for m in pkgutil.walk_packages(pkg.__path__, entry.module + "."):
            importlib.import_module(m.name)
    scale = cache._cache_scale()
    total = sum(c.budget for c in cache.CACHES.values()) / cache.MiB / scale
    assert abs(total - cache.DEFAULT_TOTAL_MIB) < 1e-6, (total, sorted(cache.CACHES))
