"""One state interface for every game (as OpenSpiel's): what front ends, environments and generic
algorithms drive, so that none of them re-implements a rule.

A game module offers ``new_game(rules, seed) -> GameState``. A state says who moves
(:meth:`GameState.to_move`: one seat, or every seat that chooses at once in a simultaneous move),
which actions are legal, applies one action (chance is resolved inside :meth:`GameState.apply`
from the state's own seeded generator, so a seed replays a whole game), tells when the game is
over and what each seat gets, shows each seat only what it may see (:meth:`GameState.observe`),
and round-trips through JSON for storage (:meth:`GameState.to_json`, ``state_from_json``).

Actions are JSON values: a string (``"roll"``, ``"hold"``, ``"call"``), or a small dict
(``{"bid": [3, 5]}``, ``{"target": 22}``, ``{"dice": 4}``); a simultaneous move is a dict from seat
(as a string) to that seat's action. An illegal action raises
:class:`~dicelab.core.errors.DicelabError` with one line that names the legal ones.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Action = Any  # a JSON value: str, int or a small dict


@runtime_checkable
class GameState(Protocol):
    """The state of one game in progress; every game implements it."""

    def to_move(self) -> tuple[int, ...]:
        """The seats to act now: one seat, or several for a simultaneous move; empty when over."""
        ...

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The actions ``seat`` (default: the one seat to move) may take now."""
        ...

    def apply(self, action: Action) -> list[dict[str, Any]]:
        """Play ``action`` (chance included) and return the public events it caused, in order."""
        ...

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        ...

    def returns(self) -> tuple[float, ...]:
        """Each seat's payoff once the game is over (1 for a win, 0 for a loss, shares for ties)."""
        ...

    def observe(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see now, as JSON: never another seat's hidden information."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The whole state (rules, seed, history), enough to rebuild it exactly."""
        ...
