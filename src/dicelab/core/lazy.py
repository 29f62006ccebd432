"""The lazy public API of a game package: one home for what every game's ``__init__`` needs.

A game package lists its public names as ``name -> (module, attribute)`` and loads each only on
first use, so importing the package (as the registry does to read ``GAME``) stays light::

    _PUBLIC = {"solve": ("dicelab.hog.solver", "solve"), ...}
    __getattr__, __dir__, __all__ = lazy_api(__name__, _PUBLIC, "GAME")

>>> getattr_, dir_, all_ = lazy_api("json", {"loads2": ("json", "loads")}, "dumps")
>>> all_
['dumps', 'loads2']
>>> getattr_("loads2")('[1]')
[1]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_api(module: str, public: Mapping[str, tuple[str, str]],
             *eager: str) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for the package ``module``: ``public`` names are
    imported on first use and then kept in the package's namespace; ``eager`` names (such as
    ``GAME``) are defined in the package itself and only listed."""
    names = sorted([*public, *eager])

    def __getattr__(name: str) -> Any:
        if name not in public:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, attr = public[name]
        value = getattr(import_module(where), attr)
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__, names
