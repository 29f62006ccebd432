"""Result types the games' verbs share, so that one word means one number in every game.

``evaluate(a, b, rules)`` of a two-seat game returns a :class:`HeadToHead` (or a subclass with
more fields), and ``best_response(strategy, rules)`` a :class:`BestResponse`: the responding
strategy, as an object the game's verbs accept, and its :class:`HeadToHead` against the fixed one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class HeadToHead:
    """Strategy A against strategy B in a two-seat game, exactly.

    ``a_first`` is P(A wins | A moves first), ``a_second`` P(A wins | B moves first), and
    :attr:`mean` A's chance when a coin decides who starts.

    >>> h = HeadToHead(a="always:6", b="always:5", a_first=0.52, a_second=0.46)
    >>> round(h.mean, 2)
    0.49
    """

    a: str
    b: str
    a_first: float
    a_second: float

    @property
    def mean(self) -> float:
        """A's win probability when the first move is decided by a coin."""
        return (self.a_first + self.a_second) / 2

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "a_first": self.a_first, "a_second": self.a_second,
                "mean": self.mean}


@dataclass(frozen=True, kw_only=True)
class BestResponse:
    """The exact best response to the fixed strategy ``against``: ``strategy`` (an object the
    game's verbs accept) and ``result``, its :class:`HeadToHead` against ``against``."""

    against: str
    strategy: Any
    result: HeadToHead

    @property
    def value(self) -> float:
        """The best response's win probability, a coin deciding who starts."""
        return self.result.mean

    def to_dict(self) -> dict[str, Any]:
        return {"against": self.against, "strategy": getattr(self.strategy, "name", str(self.strategy)),
                "value": self.value, "a_first": self.result.a_first, "a_second": self.result.a_second}
