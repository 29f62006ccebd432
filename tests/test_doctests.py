"""The examples in every module's docstrings run as doctests: an example that no longer holds
fails here (most carry a published figure, e.g. Neller & Presser's 0.5306 in dicelab.pig)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dicelab

MODULES = sorted(m.name for m in pkgutil.walk_packages(dicelab.__path__, "dicelab.")
                 if ".migrations" not in m.name)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, report=True, raise_on_error=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (see above)"


def test_the_public_packages_have_examples():
    # the game packages teach by example: each public __init__ shows at least one
    for game in ("pig", "simpig", "supersix", "liars", "hog"):
        found = doctest.DocTestFinder().find(importlib.import_module(f"dicelab.{game}"))
        assert sum(len(t.examples) for t in found) >= 1, game
