"""The registry of games: every front end (the CLI, the web lab, the environments) loops over it.

A game registers once, as an entry point in the group ``dicelab.games`` of the package metadata
(``pyproject.toml``)::

    [project.entry-points."dicelab.games"]
    hog = "dicelab.hog:GAME"

``GAME`` is a :class:`GameEntry`: the game's name, title, the rule parameters a front end may set,
and *names* of things in the game package's public API (its ``__init__``), loaded only when used,
so listing the games imports nothing heavy. Adding a game is one package and one line there.

>>> [g.name for g in games()]
['hog', 'liars', 'pig', 'simpig', 'supersix']
>>> get("pig").title
'Pig'
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any, Protocol

from dicelab.core.errors import DicelabError
from dicelab.core.game import Action, GameState

GROUP = "dicelab.games"


@dataclass(frozen=True)
class Param:
    """One rule parameter a front end may set: a whole number in ``lo..hi``, or one of ``choices``."""

    name: str
    default: Any
    help: str
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] | None = None

    def check(self, value: Any) -> Any:
        """``value`` if allowed, else a one-line :class:`DicelabError` that says what is."""
        if value is None and self.default is None:  # "the rules' own default"
            return value
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise DicelabError(f"{self.name} must be one of {', '.join(self.choices)}, got {str(value)[:40]!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise DicelabError(f"{self.name} must be a whole number, got {str(value)[:40]!r}")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise DicelabError(f"{self.name} must be from {self.lo} to {self.hi}, got {value}")
        return value


@dataclass(frozen=True)
class Bot:
    """A named opponent: ``spec`` is what the game's ``play.bot`` parses; ``name`` and
    ``description`` are for people ("Optimal", "plays to maximise its chance to win")."""

    spec: str
    name: str
    description: str


class Player(Protocol):
    """A bot seated in a game: chooses an action for ``seat`` in ``state``."""

    def act(self, state: GameState, seat: int) -> Action: ...


class Play(Protocol):
    """What a game offers for interactive play (the web lab, terminal games, environments)."""

    def bots(self, rules: Any) -> list[Bot]:
        """The opponents to offer under ``rules``, strongest first."""
        ...

    def bot(self, spec: str, rules: Any) -> Player:
        """The bot ``spec`` names (a one-line DicelabError naming the allowed specs otherwise).
        A game whose bots draw at random also takes a keyword ``seed`` (default 0) for them, so a
        front end that stores a game's seed replays its bots' choices too."""
        ...

    def coach(self, state: GameState, seat: int) -> dict[str, Any] | None:
        """What each legal action of ``seat`` is worth now (win probability or value), from only
        what ``seat`` may see; None where the game has no coach for this position. The answer is
        ``{"kind": ..., "values": [{"action": ..., "value": ...}, ...], "best": action or None}``
        (optionally ``"position"``: up to three whole numbers naming the position). A game whose
        values depend on the opponent also takes a keyword ``against`` (a bot spec; simultaneous
        Pig), which the web lab fills with the first bot's spec."""
        ...


class Advises(Protocol):
    """An optional hook of a :class:`Play`: a sentence of advice in plain words on a decision that
    gave something away (the web lab's review shows it). A Play without it gets one made from its
    coach's values."""

    def advice(self, state: GameState, seat: int, action: Action) -> str | None:
        """Why ``action`` of ``seat`` in ``state`` (before it is applied) was not the best, e.g.
        "Optimal play holds at 21 here; you rolled at 27 with 40 banked and the opponent on 80";
        None when there is nothing to say."""
        ...


class Prepares(Protocol):
    """Optional hooks of a :class:`Play` whose bots or coach need tables built first (solves,
    best responses, trained agents). A front end that serves many requests (the web lab) uses them
    so that no request waits for a build inside its event loop: it calls :meth:`ready` first, builds
    in a thread with :meth:`prepare`, or, when :meth:`heavy`, in a worker process with
    :func:`export_in_worker` (bytes back, no pickle) and :meth:`install`. A Play without these hooks
    builds on first use. ``specs`` are the bot specs seated in one game."""

    def ready(self, specs: list[str], rules: Any) -> bool:
        """True when the bots ``specs`` and the coach need no build under ``rules``."""
        ...

    def heavy(self, specs: list[str], rules: Any) -> bool:
        """True when building what is missing should run in a worker process."""
        ...

    def prepare(self, specs: list[str], rules: Any) -> None:
        """Build what the bots ``specs`` and the coach need, in this process."""
        ...

    def export(self, specs: list[str], rules: Any) -> bytes:
        """Build as :meth:`prepare` does and return the result as bytes for :meth:`install`."""
        ...

    def install(self, specs: list[str], rules: Any, data: bytes) -> None:
        """Put what :meth:`export` returned into this process's caches."""
        ...


class BuildsAhead(Protocol):
    """Optional hooks of a :class:`Play` whose tables take long to build and whose bots have a
    fallback (Liar's Dice: trained duel policies; until one is ready the bot plays by simpler
    rules). A server (the web lab) calls :meth:`defer`, then builds every item of :meth:`ahead` in
    the background, one at a time in a worker process (:func:`build_ahead_in_worker`, bytes back)
    and :meth:`take_ahead` in its own; a request never builds them. ``params`` are plain JSON."""

    def defer(self, on: bool = True) -> None:
        """From now on never build on demand what :meth:`ahead` lists: play the fallback instead
        (``on=False``: build on demand again, when the server stops)."""
        ...

    def ahead(self) -> list[dict[str, Any]]:
        """What to build, most likely needed first: ``{"title": "for people", "params": {...}}``."""
        ...

    def has_ahead(self, params: dict[str, Any]) -> bool:
        """Whether the item ``params`` is ready in this process."""
        ...

    def build_ahead(self, params: dict[str, Any]) -> bytes:
        """Build the item (in a worker process) and return it as bytes for :meth:`take_ahead`."""
        ...

    def take_ahead(self, params: dict[str, Any], data: bytes) -> None:
        """Put what :meth:`build_ahead` returned into this process."""
        ...

    def wants(self, specs: list[str], rules: Any) -> list[dict[str, Any]]:
        """The ``params`` of the items a game of the bots ``specs`` under ``rules`` uses, not ready
        yet (a server builds them next)."""
        ...

    def notice(self, specs: list[str], rules: Any) -> str | None:
        """A sentence for the game's page while such a game plays a fallback, else None."""
        ...


def build_ahead_in_worker(game: str, params: dict[str, Any]) -> bytes:
    """In a worker process: ``get(game).play.build_ahead(params)``."""
    play: Any = get(game).play
    return play.build_ahead(params)


class Grades(Protocol):
    """An optional hook of a :class:`Play` with the environment form: the exact grade of a learned
    policy (``dicelab.grade``, :mod:`dicelab.envs.grading`). The game enumerates every decision a
    seat can face, as the observations its ``encode`` gives (no simulation), asks the policy for all
    of them at once, and grades the decision table with its own exact evaluators."""

    def grade(self, rules: Any, decide: Any, progress: bool = False) -> dict[str, Any]:
        """``decide(observations, masks) -> actions``: ``observations`` an int64 array with one
        encoded observation per row, ``masks`` the legal actions of each row (int8, one column per
        action of ``actions(rules)``), the answer one action index per row. Returns the grade as
        plain JSON values: for a race to a goal ``kind`` ``"win"`` with ``win_first``,
        ``win_second``, ``optimal_first``, ``optimal_second``, ``mean_loss``, ``worst_loss``,
        ``worst_state``; for a game of hidden information ``kind`` ``"exploitability"``."""
        ...


def export_in_worker(game: str, specs: list[str], params: dict[str, Any]) -> bytes:
    """In a worker process: ``get(game).play.export(specs, rules)`` with the rules made from
    ``params`` (plain names and numbers cross the process border, the answer is bytes)."""
    entry = get(game)
    play: Any = entry.play
    return play.export(list(specs), entry.make_rules(**params))


@dataclass(frozen=True)
class GameEntry:
    """One game as front ends see it. The ``*_name`` fields name attributes of the game package's
    public API (``import_module(module)``), loaded on first use."""

    name: str
    title: str
    about: str
    module: str
    params: tuple[Param, ...] = ()
    players: tuple[int, int] = (2, 2)
    rules_name: str = "make_rules"  # callable(**params) -> rules, validating
    new_game_name: str = "new_game"  # callable(rules, seed) -> GameState
    state_from_json_name: str = "state_from_json"
    cli_name: str | None = "cli_app"  # a typer.Typer: the game's command group
    play_name: str | None = None  # a :class:`Play`
    # a tuple of :class:`dicelab.core.reproduce.Reproduction`: the source documents it recomputes
    reproductions_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    popularity: int = 0  # how widely the game is played: front ends list the most played first

    def load(self, attr: str) -> Any:
        """The game package's public ``attr``."""
        return getattr(import_module(self.module), attr)

    def make_rules(self, **params: Any) -> Any:
        """Rules from keyword parameters within the bounds of :attr:`params` (what interactive
        front ends such as the web lab allow; unknown names are refused with the allowed ones),
        then the game's own validation."""
        known = {p.name: p for p in self.params}
        for key, value in params.items():
            if key not in known:
                raise DicelabError(f"{self.title} has no rule {key!r}; allowed: {', '.join(known) or 'none'}")
            known[key].check(value)
        return self.load(self.rules_name)(**params)

    def rules(self, **params: Any) -> Any:
        """Rules from keyword parameters with the game's own validation only (the library's
        limits, wider than an interactive front end's): for the environments and scripts."""
        cls = self.load(self.rules_name)
        fields = getattr(cls, "__dataclass_fields__", {})
        unknown = [k for k in params if k not in fields]
        if unknown:
            raise DicelabError(f"{self.title} has no rule {unknown[0]!r}; allowed: {', '.join(fields)}")
        return cls(**params)

    def new_game(self, rules: Any, seed: int) -> GameState:
        return self.load(self.new_game_name)(rules, seed)

    def state_from_json(self, data: dict[str, Any]) -> GameState:
        return self.load(self.state_from_json_name)(data)

    def cli(self) -> Any:
        """The game's command group (a ``typer.Typer``), or None."""
        return None if self.cli_name is None else self.load(self.cli_name)

    @property
    def play(self) -> Play | None:
        return None if self.play_name is None else self.load(self.play_name)


_lock = threading.Lock()
_games: dict[str, GameEntry] | None = None


def register(entry: GameEntry) -> GameEntry:
    """Add ``entry`` (for games outside the package metadata, e.g. in tests); returns it."""
    with _lock:
        found = _load()
        if entry.name in found and found[entry.name] != entry:
            raise DicelabError(f"a game named {entry.name!r} is registered already")
        found[entry.name] = entry
    return entry


def unregister(name: str) -> None:
    """Remove the game ``name`` (tests that registered one)."""
    with _lock:
        _load().pop(name, None)


def _load() -> dict[str, GameEntry]:
    global _games
    if _games is None:
        found: dict[str, GameEntry] = {}
        for ep in entry_points(group=GROUP):
            entry = ep.load()
            if not isinstance(entry, GameEntry) or entry.name != ep.name:
                raise RuntimeError(f"entry point {ep.name} = {ep.value} is not a GameEntry named {ep.name!r}")
            found[entry.name] = entry
        _games = found
    return _games


def games() -> list[GameEntry]:
    """Every registered game, by name."""
    with _lock:
        return [g for _, g in sorted(_load().items())]


def get(name: str) -> GameEntry:
    """The game ``name``, or a one-line error that lists the games."""
    with _lock:
        found = _load()
    if name not in found:
        raise DicelabError(f"unknown game {str(name)[:40]!r}; games: {', '.join(sorted(found))}")
    return found[name]
