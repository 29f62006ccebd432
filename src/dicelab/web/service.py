"""The one game service of the web lab: every registered game (:mod:`dicelab.core.registry`) is
created, stored, moved and shown through the one state interface (:mod:`dicelab.core.game`) and its
:class:`~dicelab.core.registry.Play`; nothing here knows a game's rules.

A live game is a ``games`` row: the rules' parameters (``rules_json``), the bot spec of every bot
seat (``opponent``, a JSON list: :func:`~dicelab.web.gamecore.specs_json`), the human's seat, the
secret seed, and the state as the game's own JSON (``state_json``: rules, seed and actions, which
replay the game exactly). A move loads the row, rebuilds the state, applies the human's action,
lets the bot seats act until a human seat is to move or the game ends (at most :data:`MAX_BOT_ACTIONS`), and commits the new state, one
``moves`` row per seat's action and one ``turns`` row per finished turn in ONE transaction, with a
compare-and-set on ``version`` (the number of ``moves`` rows; :mod:`dicelab.web.gamecore`): of two
racing requests one wins, the other gets 409.

What leaves the server is what the reader's seat may see: ``observe(seat)``, the public events
of each action and the coach's values for that seat's own decisions, and the game's read-only
share id (:func:`share_id`; the review it opens is :mod:`dicelab.web.review`). A live game's seed
never leaves it (it tells every hidden hand and every future die); a finished game's does.

Games between people (issue 22): several seats are played by people, each opened by its own secret
token (``seats`` rows, :func:`load` finds the seat a token opens: the reader's seat, ``g.viewer``);
the bots act only while no person is to move. In a simultaneous move every person's choice waits,
secret, in its seat's row (``pending_json``) until the last person has chosen; then all are applied
together with the bots' choices. Every answer is written for the reader's seat: ``human_seat`` is
that seat, a record's ``actor`` is ``human`` for its own moves, ``friend`` for another person's and
``bot`` for a bot's, and coach numbers (computed from the mover's hidden information) only for its
own moves (:func:`seen_by`).

The bots' random choices come from the game's seed too (``SeedSequence([seed, version, seat])``),
so a finished game can be replayed exactly from its record.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import Session

from dicelab.core import registry
from dicelab.core.errors import DicelabError, require
from dicelab.core.registry import GameEntry
from dicelab.web.db import utcnow
import dicelab.web.messages as messages
from dicelab.web.gamecore import (
    GAMES,
    SEATS,
    MOVES,
    TURNS,
    Conflict,
    Forbidden,
    LiveGame,
    NotFound,
    commit_move,
    hash_token,
    insert_game,
    public_seed,
    specs_json,
    stored_specs,
    thinking_ms,
)

MAX_BOT_ACTIONS = 10_000  # per request: no game may make a request run unbounded
RISK_PREFERENCES = ("averse", "loving", "neutral")
# a request's flat move form {"action": NAME, <field>: value}: the fields that make NAME a dict action
FLAT_FIELDS = (("k",), ("quantity", "face"), ("dice",))


# ------------------------------------------------------------------------------ rules and bots
def rule_params(entry: GameEntry, given: dict[str, Any]) -> dict[str, Any]:
    """Every rule parameter of ``entry``: ``given`` values over the defaults (None: the rules' own),
    checked by the registry; unknown names are refused with the allowed ones."""
    entry.make_rules(**given)  # one-line errors for unknown names and bad values
    out = {p.name: p.default for p in entry.params}
    out.update(given)
    return {k: v for k, v in out.items() if v is not None}


def rules_of(entry: GameEntry, params: dict[str, Any]) -> Any:
    return entry.make_rules(**params)


def play_of(entry: GameEntry) -> Any:
    play = entry.play
    if play is None:
        raise DicelabError(f"{entry.title} cannot be played in the lab yet: it offers no bots")
    return play


def _accepts(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def bot_seed(seed: int, version: int, seat: int) -> int:
    """The seed of a bot's random choices at ``version``: from the game's secret seed."""
    return int(np.random.SeedSequence([seed, version, seat]).generate_state(1)[0])


def make_bot(play: Any, spec: str, rules: Any, seed: int) -> Any:
    """``play.bot(spec, rules)``, with ``seed`` for games whose bots draw at random."""
    return play.bot(spec, rules, seed=seed) if _accepts(play.bot, "seed") else play.bot(spec, rules)


def coach_of(play: Any, state: Any, seat: int, specs: list[str]) -> dict[str, Any] | None:
    """``play.coach(state, seat)``; a coach that takes ``against`` is told the first bot's spec."""
    try:
        if specs and _accepts(play.coach, "against"):
            return play.coach(state, seat, against=specs[0])
        return play.coach(state, seat)
    except (ImportError, DicelabError):
        return None


def seat_specs(entry: GameEntry, rules: Any, players: int, opponent: str, opponents: list[str] | None) -> list[str]:
    """One checked bot spec per bot seat: ``opponents`` (one per bot seat), or ``opponent`` for all."""
    play = play_of(entry)
    specs = list(opponents) if opponents else [opponent]
    if len(specs) == 1:
        specs = specs * (players - 1)
    require(len(specs) == players - 1, f"give one bot, or one per bot seat ({players - 1}), got {len(specs)}")
    out = []
    for s in specs:
        bot = play.bot(s, rules)  # one-line errors name the allowed bots
        out.append(str(getattr(bot, "spec", s)))
    return out


def players_of(state: Any) -> int:
    """The number of seats (from the state's returns, which every game gives one per seat)."""
    return len(state.returns())


def needs(entry: GameEntry, specs: list[str], params: dict[str, Any]) -> tuple[Any, bool] | None:
    """``(rules, heavy)`` when the game's Play must build tables before the bots ``specs`` and the
    coach can answer at once (its optional ``ready`` hook says no); None when nothing is to build."""
    play = play_of(entry)
    ready = getattr(play, "ready", None)
    if ready is None:
        return None
    rules = rules_of(entry, params)
    if ready(specs, rules):
        return None
    heavy = getattr(play, "heavy", None)
    return rules, bool(heavy is not None and hasattr(play, "export") and heavy(specs, rules))


# ------------------------------------------------------------------------------ the live game
@dataclass
class Live:
    """A loaded game: its row (``g``), registry entry, rules, state, bot specs and play."""

    g: LiveGame
    entry: GameEntry
    rules: Any
    state: Any
    specs: list[str]
    play: Any
    stored: list[dict[str, Any]] = field(default_factory=list)  # the move rows this request committed

    @property
    def seats(self) -> list[str | None]:
        """Per seat: the bot's spec, or None for a person who plays it now."""
        people = {p.seat: p for p in getattr(self.g, "people", None) or []}
        if not people:
            out: list[str | None] = list(self.specs)
            out.insert(self.g.human_seat, None)
            return out
        specs = iter(self.specs)
        return [next(specs) if s not in people else (people[s].bot if people[s].handed_at else None)
                for s in range(int(self.g.players))]


class NotReady(Exception):
    """Raised inside quick work when a game's bot or coach tables are not in memory yet."""

    def __init__(self, game: str, specs: list[str], params: dict[str, Any]) -> None:
        super().__init__(game)
        self.game, self.specs, self.params = game, specs, params


def notice_of(entry: GameEntry, g: LiveGame) -> str | None:
    """The game's own sentence while its bots play a fallback (the optional ``notice`` hook of
    :class:`~dicelab.core.registry.BuildsAhead`), else None."""
    hook = getattr(entry.play, "notice", None)
    if hook is None:
        return None
    try:
        return hook(game_specs(g), rules_of(entry, json.loads(g.rules_json or "{}")))
    except DicelabError:
        return None


def check_ready(entry: GameEntry, specs: list[str], params: dict[str, Any]) -> None:
    if needs(entry, specs, params) is not None:
        raise NotReady(entry.name, specs, params)


def game_specs(g: LiveGame) -> list[str]:
    """The bot specs a stored game was started with, seat by seat."""
    return stored_specs(g)


def load(db: Session, game_id: str, token: str | None) -> LiveGame:
    """The row of ``game_id`` if ``token`` opens one of its seats (``g.viewer``: that seat; ``g.people``:
    the seats people play, None in a game against bots): 404 for an unknown id, 403 for a wrong token."""
    if not game_id or len(game_id) > 40:
        raise NotFound("no such game")
    g = load_row(db, game_id, -1)
    given = hash_token(token) if token else ""
    g.viewer = None
    for p in g.people or []:  # every seat compared, in constant time each
        if hmac.compare_digest(given, p.token_hash):
            g.viewer = p.seat
    if hmac.compare_digest(given, g.token_hash):
        g.viewer = g.human_seat
    if not token or g.viewer is None:
        raise Forbidden("this game belongs to another player: send its X-Game-Token header")
    return g


def viewer(g: LiveGame) -> int:
    """The seat the reader's token opened (:func:`load`); the creator's seat for a row read otherwise."""
    seat = getattr(g, "viewer", None)
    return g.human_seat if seat is None else int(seat)


def persons(g: LiveGame) -> set[int]:
    """The seats people play now (a seat handed to a bot is the bot's)."""
    people = getattr(g, "people", None)
    if not people:
        return {int(g.human_seat)}
    return {int(p.seat) for p in people if p.handed_at is None}


def pending_of(g: LiveGame) -> dict[int, dict[str, Any]]:
    """The secret simultaneous choices waiting for the other people: seat -> {action, think, hinted}."""
    return {int(p.seat): json.loads(p.pending_json) for p in getattr(g, "people", None) or [] if p.pending_json}


def seat_row(g: LiveGame, seat: int) -> Any:
    return next((p for p in getattr(g, "people", None) or [] if p.seat == seat), None)


def share_id(g: LiveGame) -> str:
    """The read-only share id of ``g`` (:mod:`dicelab.web.review`): ``<id>.<HMAC of the id keyed by
    the token's hash>``, unguessable and distinct from the move token, which it does not reveal."""
    mac = hmac.new(str(g.token_hash).encode(), b"dicelab-share:" + str(g.id).encode(), hashlib.sha256).digest()
    return f"{g.id}.{base64.urlsafe_b64encode(mac[:18]).decode()}"


def entry_of(g: LiveGame) -> GameEntry:
    try:
        return registry.get(g.game)
    except DicelabError as exc:
        raise NotFound(f"this game ({str(g.game)[:20]}) is not installed in this lab") from exc


def is_legacy(g: LiveGame) -> bool:
    """A game carried over from a version of the lab whose dice cannot be replayed (migration 0003)."""
    return "legacy" in json.loads(g.state_json or "{}")


def open_live(g: LiveGame, prepare: bool = True) -> Live:
    """The loaded game: state rebuilt from its JSON; :class:`NotReady` when tables are missing."""
    entry = entry_of(g)
    params = json.loads(g.rules_json or "{}")
    specs = game_specs(g)
    if prepare and g.status == "playing":
        check_ready(entry, specs, params)
    state = entry.state_from_json(json.loads(g.state_json))
    return Live(g, entry, rules_of(entry, params), state, specs, play_of(entry))


# ------------------------------------------------------------------------------ moves
def action_name(action: Any) -> str:
    """A short name of an action for the ``moves`` table: the string, or the dict's one key."""
    if isinstance(action, str):
        return action[:8]
    if isinstance(action, dict) and len(action) == 1:
        return str(next(iter(action)))[:8]
    return "move"


def parse_action(action: Any, fields: dict[str, Any]) -> Any:
    """The action of a move body: a JSON action as it is, or the flat form ``{"action": NAME}``
    with ``k`` (``{NAME: k}``), ``quantity`` and ``face`` (``{NAME: [quantity, face]}``) or ``dice``."""
    given = {k: v for k, v in fields.items() if v is not None}
    if not given:
        return action
    require(isinstance(action, str), "give either an action object or a name with its fields, not both")
    for names in FLAT_FIELDS:
        if set(given) == set(names):
            vals = [given[n] for n in names]
            return {action: vals[0] if len(vals) == 1 else vals}
    raise DicelabError(f"the fields {', '.join(sorted(given))} do not go together; a move is "
                       '{"action": NAME} or {"action": NAME, "k": K} or {"action": NAME, "quantity": Q, "face": F}')


def action_text(action: Any) -> str | None:
    """An action as one text cell: a name as it is (``roll``), anything else as JSON."""
    if action is None:
        return None
    return action[:200] if isinstance(action, str) else json.dumps(action)[:200]


def action_of_text(text: str | None) -> Any:
    """The action :func:`action_text` wrote."""
    if text is None or not text.startswith(("{", "[")):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def _dice_of(events: list[dict[str, Any]]) -> str | None:
    faces: list[int] = []
    for e in events:
        if isinstance(e.get("faces"), list):
            faces += [int(x) for x in e["faces"] if isinstance(x, int)]
        elif isinstance(e.get("die"), int):
            faces.append(e["die"])
    return ",".join(map(str, faces))[:400] if faces else None


def _throws(events: list[dict[str, Any]]) -> int:
    return sum(1 for e in events if isinstance(e.get("faces"), list) or isinstance(e.get("die"), int))


def _result(events: list[dict[str, Any]], name: str, seat: int) -> str:
    for e in events:
        if e.get("winner") == seat:
            return "win"
    for e in events:
        if isinstance(e.get("result"), str):
            return e["result"][:8]
    return name[:8]


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal (actions, states), whatever the order of their keys."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _scores(state: Any, seat: int) -> list[int] | None:
    sc = state.observe(seat).get("scores")
    return [int(x) for x in sc] if isinstance(sc, list) and all(isinstance(x, int) for x in sc) else None


def verdict(c: dict[str, Any], action: Any) -> dict[str, Any]:
    """What a coach answer ``c`` says of ``action``: its ``value``, the ``best_value`` (the highest)
    and the ``best`` action, and, where the coach names a best action, ``p_lost`` (best - chosen)."""
    vals = [v for v in c.get("values") or [] if isinstance(v.get("value"), (int, float))]
    chosen = next((float(v["value"]) for v in vals if same_json(v["action"], action)), None)
    best = max((float(v["value"]) for v in vals), default=None)
    out: dict[str, Any] = {"value": chosen, "best_value": best, "best": c.get("best")}
    if c.get("best") is not None and chosen is not None and best is not None:
        out["p_lost"] = max(0.0, best - chosen)
    return out


class Mover:
    """Applies actions to a :class:`Live` game and collects the rows and answer events."""

    def __init__(self, live: Live, hinted: bool = False) -> None:
        self.live = live
        # the people who asked for a hint before this move (recorded with it)
        self.hinted: set[int] = {viewer(live.g)} if hinted else set()
        self.persons = persons(live.g)
        self.moves: list[dict[str, Any]] = []
        self.turns: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.bot_seconds = 0.0

    def _rate(self, seat: int, action: Any) -> dict[str, Any]:
        """The coach's verdict on a person's ``action`` (computed before it is applied)."""
        lv = self.live
        if seat not in self.persons:
            return {}
        c = coach_of(lv.play, lv.state, seat, lv.specs)
        if not c or not c.get("values"):
            return {}
        out = verdict(c, action)
        pos = c.get("position")
        if isinstance(pos, list) and all(isinstance(x, int) for x in pos):
            out["position"] = pos[:3]
        return out

    def apply(self, actions: dict[int, Any], actors: dict[int, str], think: dict[int, int | None]) -> None:
        """Apply one move: ``actions`` maps each seat to move to its action (``think``: the people's
        thinking times)."""
        lv, g = self.live, self.live.g
        seats = sorted(actions)
        rated = {s: self._rate(s, actions[s]) for s in seats}
        before = {s: _scores(lv.state, s) for s in seats}
        joint = actions[seats[0]] if len(seats) == 1 else {str(s): actions[s] for s in seats}
        events = lv.state.apply(joint)
        by_seat = {s: [e for e in events if e.get("seat") == s] for s in seats}
        common = [e for e in events if "seat" not in e]
        for n, s in enumerate(seats):
            own = by_seat[s] + (common if n == len(seats) - 1 else [])
            if s in self.hinted and actors[s] == "human":
                own = [*own, {"seat": s, "hint": True}]  # the study must know: the move followed a hint
            r = rated[s]
            pos = r.get("position", [])
            self.moves.append(dict(
                game_id=g.id, seq=g.version, turn_no=g.turn_no, player=s, actor=actors[s],
                action=action_name(actions[s]), action_json=json.dumps(actions[s]), events_json=json.dumps(own),
                i=pos[0] if len(pos) > 0 else None, j=pos[1] if len(pos) > 1 else None,
                k=pos[2] if len(pos) > 2 else None, faces=_dice_of(own), result=_result(own, action_name(actions[s]), s),
                optimal_action=action_text(r.get("best")),
                p_roll=r.get("value"), p_hold=r.get("best_value"), p_lost=r.get("p_lost"),
                think_ms=think.get(s) if actors[s] == "human" else None, created_at=utcnow()))
            self.events.append({"seq": g.version, "player": s, "actor": actors[s], "action": actions[s],
                                "events": own, "p_lost": r.get("p_lost"), "best": r.get("best"),
                                "value": r.get("value")})
            g.version += 1
            g.turn_rolls = (g.turn_rolls or 0) + _throws(own)
        self._turns(seats, before, actors, events)

    def _turns(self, seats: list[int], before: dict[int, list[int] | None], actors: dict[int, str],
               events: list[dict[str, Any]]) -> None:
        """A ``turns`` row for every seat whose turn ended (games whose seats see ``scores``)."""
        lv, g = self.live, self.live.g
        state = lv.state
        nxt = state.to_move()
        ended = [s for s in seats if state.is_over or s not in nxt or len(seats) > 1]
        if not ended:
            return
        for s in ended:
            after = _scores(state, s)
            if after is None or before[s] is None:
                continue
            start = before[s][s] if len(seats) > 1 else (g.turn_start_score or 0)
            rolls = _throws([e for e in events if e.get("seat") == s]) if len(seats) > 1 else (g.turn_rolls or 0)
            own = [e for e in events if e.get("seat") == s]
            self.turns.append(dict(
                game_id=g.id, turn_no=g.turn_no, player=s, actor=actors[s], n_rolls=rolls,
                banked=after[s] - start, score_before=start, score_after=after[s],
                opponent_score=max(x for n, x in enumerate(after) if n != s),
                ended=_result(own + [e for e in events if "seat" not in e], "turn", s)))
        g.turn_no += 1
        g.turn_rolls = 0
        if nxt and len(nxt) == 1:
            sc = _scores(state, nxt[0])
            g.turn_start_score = sc[nxt[0]] if sc else 0

    def bots(self) -> None:
        """Let the bot seats act until a person is to move or the game is over (bounded)."""
        lv, g = self.live, self.live.g
        t0 = time.perf_counter()
        bots: dict[int, Any] = {}
        seats = lv.seats
        for _ in range(MAX_BOT_ACTIONS):
            to_move = lv.state.to_move()
            if lv.state.is_over or not to_move or self.persons & set(to_move):
                break
            acts = {}
            for s in to_move:
                if s not in bots:
                    bots[s] = make_bot(lv.play, seats[s], lv.rules, bot_seed(g.seed, g.version, s))
                acts[s] = bots[s].act(lv.state, s)
            self.apply(acts, dict.fromkeys(to_move, "bot"), {})
        self.bot_seconds += time.perf_counter() - t0

    def finish(self) -> None:
        lv, g = self.live, self.live.g
        g.state_json = json.dumps(lv.state.to_json())
        sc = _scores(lv.state, g.human_seat)
        if sc is not None and len(sc) >= 2:
            g.score0, g.score1 = sc[0], sc[1]
            g.scores_json = json.dumps(sc)
        if lv.state.is_over:
            ret = [float(x) for x in lv.state.returns()]
            g.status, g.finished_at = "finished", utcnow()
            g.result_json = json.dumps(ret)
            g.winner = int(np.argmax(ret))
        nxt = lv.state.to_move()
        g.to_move = nxt[0] if nxt else None


def joint_of(live: Live, chosen: dict[int, Any]) -> dict[int, Any]:
    """The joint move of the seats to move: the people's ``chosen`` actions, and every bot seat's
    choice (from its own observation) in a simultaneous move."""
    g = live.g
    acts = {}
    seats = live.seats
    for s in live.state.to_move():
        acts[s] = chosen[s] if s in chosen else \
            make_bot(live.play, seats[s], live.rules, bot_seed(g.seed, g.version, s)).act(live.state, s)
    return acts


def check_turn(live: Live, seat: int) -> None:
    """409 unless ``seat`` is a person's and is to move now (and has not chosen yet)."""
    g = live.g
    if seat not in persons(g):
        raise Conflict(f"your seat was handed to a bot after {g.idle_s} seconds without a move; "
                       "you can follow the game, but its moves are the bot's now")
    if seat not in live.state.to_move():
        raise Conflict("it is not your turn (the other players have not finished); reload the game")
    if seat in pending_of(g):
        raise Conflict("you have chosen already; your choice stays secret until the others have chosen")


def check_alone(live: Live, seat: int, action: Any) -> None:
    """Whether ``action`` is legal for ``seat`` in a simultaneous move, tried on a copy of the state
    with the other seats' first legal actions: the game's own one-line refusal, else nothing."""
    trial = live.entry.state_from_json(live.state.to_json())
    acts = {s: action if s == seat else trial.legal_actions(s)[0] for s in trial.to_move()}
    try:
        trial.apply(acts[seat] if len(acts) == 1 else {str(s): a for s, a in acts.items()})
    except DicelabError as exc:
        raise DicelabError(unechoed(str(exc), action)) from None


# ------------------------------------------------------------------------------ create, move, show
def check_questionnaire(q: dict[str, Any]) -> None:
    rp = q.get("risk_preference")
    require(rp in RISK_PREFERENCES, f"risk_preference must be one of {', '.join(RISK_PREFERENCES)}, got {rp!r}")
    for key in ("q2", "q3"):
        require(q.get(key) in ("a", "b"), f"{key} must be 'a' or 'b', got {q.get(key)!r}")


def people_seats(players: int, people: int, human_first: bool) -> list[int]:
    """The seats of a game's people, the creator's first: from seat 0 up when the creator moves
    first, else the last seats (the creator's the very last), the bots before them."""
    require(1 <= people <= players, f"people must be from 1 to {players} (the seats of this game), got {people}")
    return list(range(people)) if human_first else [players - 1, *range(players - people, players - 1)]


def create(db: Session, entry: GameEntry, params: dict[str, Any], specs: list[str], *, human_first: bool | None,
           coach: bool, questionnaire: dict[str, Any] | None, people: int = 1, idle_s: int | None = None,
           idle_bot: str | None = None) -> tuple[LiveGame, str, list[dict[str, Any]]]:
    """Create a game (the bots play until a person is to move); commit; ``(row, token, events)``.

    ``people`` > 1: a game between people; ``specs`` has one bot per remaining seat, ``g.invites``
    the ``(seat, token)`` of every other person's seat (each seat's own secret token, stored hashed),
    ``idle_s`` the seconds after which an idle person's seat goes to the bot ``idle_bot``."""
    q = questionnaire or {}
    if q:
        check_questionnaire(q)
    if human_first is None:
        human_first = secrets.randbelow(2) == 0
    players = players_of(entry.new_game(rules_of(entry, params), 0))
    mine = people_seats(players, people, human_first)
    token = secrets.token_urlsafe(24)
    invites = [(s, secrets.token_urlsafe(24)) for s in mine[1:]]
    g = create_seats(db, entry, params, specs, coach=coach, questionnaire=q, creator=(mine[0], hash_token(token)),
                     others=[(s, hash_token(t)) for s, t in invites], idle_s=idle_s, idle_bot=idle_bot)
    g.invites = invites
    return g, token, g.events


def create_seats(db: Session, entry: GameEntry, params: dict[str, Any], specs: list[str], *, coach: bool,
                 creator: tuple[int, str], others: list[tuple[int, str]], idle_s: int | None = None,
                 idle_bot: str | None = None, questionnaire: dict[str, Any] | None = None,
                 joined: int | None = None, commit: bool = True) -> LiveGame:
    """Create a game whose people sit at ``creator`` and ``others`` (``(seat, token hash)`` pairs;
    the bots ``specs`` fill the other seats in order); the bots play until a person is to move.
    The row (its move records in ``g.events``, the reader ``g.viewer`` the creator or ``joined``)."""
    q = questionnaire or {}
    rules = rules_of(entry, params)
    seed = secrets.randbits(62)
    state = entry.new_game(rules, seed)
    players = players_of(state)
    require(len(specs) == players - 1 - len(others),
            f"give one bot per bot seat ({players - 1 - len(others)}), got {len(specs)}")
    now = utcnow()
    first = state.to_move()
    g = LiveGame(
        id=secrets.token_urlsafe(16), token_hash=creator[1], game=entry.name, variant=None, goal=None,
        sides=None, opponent=specs_json(specs), human_seat=creator[0], coach=bool(coach),
        seed=seed, status="playing", score0=None, score1=None, turn_total=None, turn_rolls=0,
        turn_start_score=0, to_move=first[0] if first else None, turn_no=1, version=0, winner=None,
        participant=q.get("participant") or None, risk_preference=q.get("risk_preference"), q2=q.get("q2"),
        q3=q.get("q3"), created_at=now, updated_at=now, finished_at=None, players=players, scores_json=None,
        result_json=None, rules_json=json.dumps(params), state_json=json.dumps(state.to_json()), stamp=0,
        idle_s=idle_s if others else None, rematch_id=None)
    g.people = None
    g.viewer = creator[0] if joined is None else joined
    if others:
        g.people = [LiveGame(game_id=g.id, seat=s, token_hash=h, bot=idle_bot or "",
                             joined_at=now if s == g.viewer else None, handed_at=None, pending_json=None,
                             pending_at=None) for s, h in sorted([creator, *others])]
    live = Live(g, entry, rules, state, specs, play_of(entry))
    mover = Mover(live)
    mover.bots()
    mover.finish()
    g.updated_at = utcnow()
    insert_game(db, g)
    for table, new in ((MOVES, mover.moves), (TURNS, mover.turns), (SEATS, [vars(p) for p in g.people or []])):
        if new:
            db.execute(insert(table), new)
    if commit:
        db.commit()
    g.events = mover.events
    return g


# every request on a game reads it with these two statements: built once (building a statement and
# its cache key anew cost more than running it, about 1 ms of the 2 ms a read took on SQLite)
GAME_BY_ID = select(GAMES).where(GAMES.c.id == bindparam("game_id"))
SEATS_OF_GAME = select(SEATS).where(SEATS.c.game_id == bindparam("game_id")).order_by(SEATS.c.seat)


def load_row(db: Session, game_id: str, seat: int) -> LiveGame:
    """The row of ``game_id`` read for ``seat`` (no token asked: for the server's own use)."""
    row = db.execute(GAME_BY_ID, {"game_id": game_id}).mappings().first()
    if row is None:
        raise NotFound("no such game")
    g = LiveGame(**row)
    g.people = [LiveGame(**r) for r in db.execute(SEATS_OF_GAME, {"game_id": game_id}).mappings()] or None
    g.viewer = seat
    return g


def hint(g: LiveGame) -> dict[str, Any]:
    """The coach's view for the reader's seat now, whether or not the game has the coach on: from
    only what that seat may see (the coach's contract). 409 when it is not that seat's turn."""
    if g.status != "playing":
        raise Conflict(_closed(g))
    live = open_live(g)
    seat = viewer(g)
    check_turn(live, seat)
    return {"version": g.version, "coach": coach_of(live.play, live.state, seat, live.specs)}


def move(db: Session, g: LiveGame, action: Any, expected_move: int,
         hinted: bool = False) -> tuple[Live, list[dict[str, Any]], float]:
    """The reader's ``action`` at version ``expected_move``, then the bots' replies; commit.

    In a simultaneous move that other people have still to choose, the action is checked, kept
    secret in the seat's row and nothing is applied (no events); the last person's move applies
    every choice at once. :class:`Stale` when a concurrent write won (a retry on the fresh row may
    succeed: another person's secret choice or an idle seat's hand-over does not change the version)."""
    if g.status != "playing":
        raise Conflict(_closed(g))
    if expected_move != g.version:
        raise Conflict(f"stale move: expected_move is {expected_move} but the game is at move {g.version}; "
                       "reload the game")
    live = open_live(g)
    seat = viewer(g)
    check_turn(live, seat)
    read_version, read_stamp = g.version, g.stamp
    think = thinking_ms(g)
    pending = pending_of(g)
    to_move = live.state.to_move()
    if any(s in persons(g) and s != seat and s not in pending for s in to_move):
        check_alone(live, seat, action)  # others still to choose: this choice waits, secret
        choice = json.dumps({"action": action, "think": think, "hinted": bool(hinted)})
        g.stamp += 1
        commit_move(db, g.id, read_version, {"stamp": g.stamp}, [], read_stamp,
                    seats=[(seat, {"pending_json": choice, "pending_at": utcnow()})])
        p = seat_row(g, seat)
        p.pending_json, p.pending_at = choice, utcnow()
        return live, [], 0.0
    mover = Mover(live, hinted)
    chosen = {s: p["action"] for s, p in pending.items()}
    chosen[seat] = action
    acts = joint_of(live, chosen)
    actors = {s: ("human" if s in chosen else "bot") for s in acts}
    thinks = {s: p.get("think") for s, p in pending.items()}
    thinks[seat] = think
    mover.hinted |= {s for s, p in pending.items() if p.get("hinted")}
    try:
        mover.apply(acts, actors, thinks)
    except DicelabError as exc:  # an illegal action: the game's one line, without the action echoed
        raise DicelabError(unechoed(str(exc), action)) from None
    mover.bots()
    mover.finish()
    g.updated_at = utcnow()
    g.stamp += 1
    values = {c.name: getattr(g, c.name) for c in GAMES.columns if c.name not in ("id", "token_hash", "seed",
                                                                                   "created_at")}
    cleared = [(s, {"pending_json": None, "pending_at": None}) for s in pending]
    commit_move(db, g.id, read_version, values, [(MOVES, mover.moves), (TURNS, mover.turns)], read_stamp,
                seats=cleared)
    for s in pending:
        seat_row(g, s).pending_json = None
    live.stored = mover.moves
    return live, mover.events, mover.bot_seconds


def unechoed(message: str, action: Any) -> str:
    """A game's refusal of ``action`` without the action repeated (see :func:`messages.illegal_move`)."""
    return messages.illegal_move(message, action, (repr(str(action)[:60]), repr(action), json.dumps(action)))


def _closed(g: LiveGame) -> str:
    if g.status == "closed":
        return ("this game was started by an older version of the lab whose dice cannot be replayed; "
                "it is kept for the record: start a new game")
    return f"the game is over (winner: seat {g.winner}); finished games cannot change"


def moves_of(db: Session, g: LiveGame) -> list[Any]:
    return list(db.execute(select(MOVES).where(MOVES.c.game_id == g.id).order_by(MOVES.c.seq)))


def summary(db: Session, g: LiveGame) -> dict[str, Any]:
    """The reader's decisions the coach rated: how many were best, the total and the worst loss."""
    seat = viewer(g)
    rated = [m for m in moves_of(db, g) if m.actor == "human" and m.player == seat and m.p_lost is not None]
    worst = max(rated, key=lambda m: m.p_lost, default=None)
    return {"decisions": len(rated), "optimal_decisions": sum(1 for m in rated if m.p_lost <= 1e-12),
            "total_lost": float(sum(m.p_lost for m in rated)),
            "worst": None if worst is None or worst.p_lost <= 0 else
            {"seq": worst.seq, "action": json.loads(worst.action_json) if worst.action_json else worst.action,
             "optimal": action_of_text(worst.optimal_action),
             "p_lost": worst.p_lost}}


META = ("id", "game", "title", "rules", "opponents", "human_seat", "coach", "status", "version", "winner",
        "to_move", "legal_actions", "coach_view", "returns", "seed", "summary", "moves", "share_id", "seats",
        "idle_s", "rematch_id", "your_choice")
COACH_FIELDS = ("p_lost", "best", "value")  # a record's coach numbers: from the mover's own view


def actor_for(actor: str, player: int, seat: int) -> str:
    """A record's actor as the reader at ``seat`` sees it: ``human`` (you), ``friend`` (another
    person) or ``bot``."""
    return "bot" if actor != "human" else ("human" if player == seat else "friend")


def seen_by(records: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """Move records (:class:`Mover`'s ``events``) as the reader at ``seat`` may see them: another
    seat's coach numbers (computed from that seat's hidden information) blanked, actors relabelled."""
    out = []
    for r in records:
        r = {**r, "actor": actor_for(r["actor"], r["player"], seat)}
        if r["player"] != seat:
            r.update(dict.fromkeys(COACH_FIELDS))
        out.append(r)
    return out


def record_of(m: Any, seat: int) -> dict[str, Any]:
    """A stored ``moves`` row as the record a move answer gives, for the reader at ``seat``."""
    own = m.player == seat and m.actor == "human"
    return {"seq": m.seq, "player": m.player, "actor": actor_for(m.actor, m.player, seat),
            "action": json.loads(m.action_json) if m.action_json else m.action,
            "events": json.loads(m.events_json) if m.events_json else [],
            "p_lost": m.p_lost if own else None, "best": action_of_text(m.optimal_action) if own else None,
            "value": m.p_roll if own else None}


def seats_view(g: LiveGame, seat: int, specs: list[str]) -> list[dict[str, Any]] | None:
    """The seats of a game between people as the reader at ``seat`` sees them: who plays each (you,
    a person, a bot and its spec), whether a person opened the link, was handed to a bot, has made a
    secret choice; None in a game against bots."""
    people = {p.seat: p for p in getattr(g, "people", None) or []}
    if not people:
        return None
    out = []
    bots = iter(specs)
    for s in range(int(g.players)):
        p = people.get(s)
        if p is None:
            out.append({"seat": s, "kind": "bot", "bot": next(bots, None)})
            continue
        out.append({"seat": s, "kind": "you" if s == seat else "person", "joined": p.joined_at is not None,
                    "handed": p.handed_at is not None, "bot": p.bot if p.handed_at else None,
                    "chosen": p.pending_json is not None})
    return out


def public_state(db: Session, g: LiveGame, with_moves: bool = True, live: Live | None = None) -> dict[str, Any]:
    """What the reader's seat may see: the game's meta fields, ``observe(seat)`` (its keys at the top
    level), the legal actions and the coach; never a token, nor a live game's seed, nor another
    seat's secret choice. ``human_seat`` is the reader's seat."""
    seat = viewer(g)
    entry = entry_of(g)
    data = json.loads(g.state_json or "{}")
    out: dict[str, Any] = {}
    if "legacy" in data:  # carried over by migration 0003: the last position as it was shown
        out.update({k: v for k, v in data["legacy"].items() if k not in META})
        legal: list[Any] = []
        coach = None
        to_move: list[int] = []
        returns = json.loads(g.result_json) if g.result_json else None
    else:
        live = live or open_live(g, prepare=False)
        state = live.state
        out.update({k: v for k, v in state.observe(seat).items() if k not in META})
        mine = g.status == "playing" and seat in state.to_move() and seat in persons(g) and seat not in pending_of(g)
        legal = state.legal_actions(seat) if mine else []
        coach = coach_of(live.play, state, seat, live.specs) if g.coach and legal else None
        returns = list(state.returns()) if state.is_over else None
        to_move = list(state.to_move())
    out.update({
        "id": g.id, "game": g.game, "title": entry.title, "rules": json.loads(g.rules_json or "{}"),
        "opponents": game_specs(g), "human_seat": seat, "coach": g.coach, "status": g.status,
        "version": g.version, "winner": g.winner, "to_move": to_move if g.status == "playing" else [],
        "legal_actions": legal, "coach_view": coach, "returns": returns, "share_id": share_id(g),
    })
    seats = seats_view(g, seat, game_specs(g))
    if seats is not None:  # a game between people
        out.update({"seats": seats, "idle_s": g.idle_s, "rematch_id": g.rematch_id})
        own = pending_of(g).get(seat)
        if own is not None:
            out["your_choice"] = own["action"]
    if public_seed(g) is not None:
        out["seed"] = public_seed(g)
    note = notice_of(entry, g) if g.status == "playing" else None
    if note:
        out["notice"] = note
    if g.coach and g.status == "finished":
        out["summary"] = summary(db, g)
    if with_moves:
        out["moves"] = [{"seq": m.seq, "turn_no": m.turn_no, "player": m.player,
                         "actor": actor_for(m.actor, m.player, seat),
                         "action": json.loads(m.action_json) if m.action_json else m.action,
                         "events": json.loads(m.events_json) if m.events_json else [],
                         **({"p_lost": m.p_lost, "best": action_of_text(m.optimal_action), "value": m.p_roll}
                            if g.coach and m.actor == "human" and m.player == seat else {})}
                        for m in moves_of(db, g)]
    return out
