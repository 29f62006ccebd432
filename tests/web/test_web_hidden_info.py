"""Hidden information stays hidden: live Liar's Dice rounds, checked on every read path after every
move, and the seed of a live game on every path.

The truth comes from the database and the game engine, not from the web lab: the test reads the
game's secret seed, rules and actions from the database (SQLite or PostgreSQL) and replays them in :class:`LiarsGame`, which
deals the same hands as the server. A bot's hand (or the human's, for the researcher) may leave
the server only once its round has been called.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from dicelab.liars.rules import Bid, LiarsGame, LiarsRules
from tests.web.conftest import sql

pytestmark = pytest.mark.both_databases  # the same rules on SQLite and on PostgreSQL

TABLES = ("games", "moves", "turns")
HAND_KEYS = ("hand", "hands", "faces")
EVENT_KEYS = {"seq", "player", "actor", "action", "events", "p_lost", "best", "value"}
COACH_KEYS = ("p_lost", "best", "value")  # computed from the mover's own hand
STATE_KEYS = {"id", "game", "title", "rules", "opponents", "human_seat", "coach", "status", "version", "to_move",
              "legal_actions", "seat", "dice_counts", "hand", "bid", "bidder", "actions", "rounds", "winner",
              "coach_view", "returns", "seed", "summary", "moves", "share_id"}
PLOTS = ("trajectories", "average", "behind-ahead", "quality")


def replay(db_url: str, gid: str) -> tuple[LiarsGame, str, int]:
    """The game as it really is (every hand), from its database row: (engine, status, seed)."""
    (seed, rules, status), = sql(db_url, "select seed, rules_json, status from games where id=:gid", gid=gid)
    game = LiarsGame(LiarsRules(**json.loads(rules)), seed)
    for player, action in sql(db_url, "select player, action_json from moves where game_id=:gid order by seq",
                              gid=gid):
        a = json.loads(action)
        game.apply(None if a == "call" else Bid(*a["bid"]), player)
    return game, status, seed


def called_hands(game: LiarsGame) -> list[list[list[int]]]:
    """The hands of every called round, in order (public once called)."""
    return [r.to_dict()["hands"] for r in game.record.rounds]


def live_hands(game: LiarsGame) -> dict[int, tuple[int, ...]]:
    """Seat -> hand of the round being played (nothing once the game is over)."""
    return {} if game.is_over else {p: h for p, h in enumerate(game.hands) if h}


def spellings(hand: tuple[int, ...]) -> list[str]:
    """How a hand could be written out: CSV cell, JSON list, Python tuple, spaced."""
    return [",".join(map(str, hand)), json.dumps(list(hand)), str(tuple(hand)), " ".join(map(str, hand))]


def hand_items(obj: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every list or text under a key that names a hand, with its path (``rules.faces`` is a number)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{path}.{k}"
            if k in HAND_KEYS and isinstance(v, (list, str)):
                yield p, v
            yield from hand_items(v, p)
    elif isinstance(obj, list):
        for n, v in enumerate(obj):
            yield from hand_items(v, f"{path}[{n}]")


def check_state(st: dict[str, Any], game: LiarsGame, status: str, seed: int) -> None:
    """A game read by the human seat: its own hand, called rounds, public bids; never a live bot hand."""
    assert set(st) <= STATE_KEYS, set(st) - STATE_KEYS
    assert st["status"] == status
    assert st["hand"] == (list(game.hands[0]) if game.dice_counts[0] and not game.is_over else [])
    called = [r.to_dict() for r in game.record.rounds]
    assert st["rounds"] == called
    assert st["actions"] == ([a.to_dict() for a in game._actions] if not game.is_over else [])
    assert st["dice_counts"] == list(game.dice_counts)
    if status == "finished":
        assert st["seed"] == seed
    else:
        assert "seed" not in st
    for path, value in hand_items(st):
        # the seat's own hand, and the hands of called rounds (in the rounds and the calls' events)
        assert path == ".hand" or path.endswith("].hands"), f"a hand at {path}"
        if path != ".hand":
            assert value in called_hands(game), (path, value)


def check_answer(ans: dict[str, Any], before: int, game: LiarsGame, status: str, seed: int) -> None:
    """A move answer: the human's probabilities only, and the hands of the rounds it called."""
    for ev in ans["events"]:
        assert set(ev) == EVENT_KEYS
        if ev["actor"] == "bot":  # computed from the bot's hand: not for the human's eyes
            assert all(ev[k] is None for k in COACH_KEYS), ev
    calls = [e for ev in ans["events"] for e in ev["events"] if e.get("action") == "call"]
    assert [c["hands"] for c in calls] == called_hands(game)[before:]  # the rounds called in this request
    check_state(ans["state"], game, status, seed)
    for path, _ in hand_items(ans):
        assert path.startswith(".state.") or (path.startswith(".events[") and path.endswith("].hands")), \
            f"a hand at {path}"


def export_rows(client, admin, table: str, fmt: str) -> list[dict[str, Any]]:
    r = client.get(f"/export/{table}.{fmt}", headers=admin)
    assert r.status_code == 200, r.text
    if fmt == "csv":
        return [{k: (v if v != "" else None) for k, v in row.items()} for row in csv.DictReader(io.StringIO(r.text))]
    return pq.read_table(io.BytesIO(r.content)).to_pylist()


def check_exports(client, admin, games: dict[str, tuple[LiarsGame, str]]) -> None:
    """The researcher's exports of ``games`` (id -> (true game, status)): hand columns blank until the
    round is called; no live hand anywhere."""
    for fmt in ("csv", "parquet"):
        for table in TABLES:
            rows = export_rows(client, admin, table, fmt)
            rnd: dict[tuple[str, int], int] = {}  # (game, seq) -> its round: a call ends a round
            calls_so_far: dict[str, int] = {}
            for row in sorted((r for r in rows if table == "moves"), key=lambda r: (r["game_id"], int(r["seq"]))):
                g = row["game_id"]
                rnd[(g, int(row["seq"]))] = 1 + calls_so_far.get(g, 0)
                calls_so_far[g] = calls_so_far.get(g, 0) + (json.loads(row["action_json"]) == "call")
            for row in rows:
                gid = row.get("game_id", row.get("id"))
                if gid not in games:
                    continue
                game, status = games[gid]
                n_called = len(game.record.rounds)
                hidden = [h for h in live_hands(game).values() if len(h) > 1]
                if table == "moves":
                    r = rnd[(gid, int(row["seq"]))]
                    action = json.loads(row["action_json"])
                    events = json.loads(row["events_json"])
                    assert action == "call" or set(action) == {"bid"}, (fmt, row)
                    assert row["faces"] is None, (fmt, row)  # a bid or a call throws no dice
                    if status == "playing":  # the coach's numbers come from a hand: not while live
                        assert all(row[k] is None for k in ("p_roll", "p_hold", "p_lost", "optimal_action")), row
                    for path, value in hand_items(events):  # hands only in a call, of a called round
                        assert action == "call" and r <= n_called, (fmt, row)
                        assert value == called_hands(game)[r - 1], (fmt, path, row)
                if table == "games":
                    assert (row["seed"] is None) == (status != "finished"), (fmt, row)
                cells = [str(v) for k, v in row.items() if not (table == "moves" and k in ("action_json", "events_json"))]
                for hand in hidden:
                    assert not any(s in c for c in cells for s in spellings(hand)[:2]), (fmt, table, row)


def check_study_pages(client, admin, gid: str, game: LiarsGame, seed: int) -> None:
    """/api/analysis and the analysis page: nothing of a live game."""
    a = client.get("/api/analysis", headers=admin)
    page = client.get("/analysis", headers=admin)
    assert a.status_code == 200 and page.status_code == 200
    assert list(hand_items(a.json())) == []
    for text in (a.text, page.text):
        assert gid not in text and str(seed) not in text
        for hand in live_hands(game).values():
            if len(hand) > 1:
                assert not any(s in text for s in spellings(hand)[:3])


def check_strangers(client, gid: str, other_token: str, version: int) -> None:
    """No token, a wrong one, another game's, or an unknown id: 403/404 and only a one-line detail."""
    for headers in ({}, {"X-Game-Token": "x" * 32}, {"X-Game-Token": other_token}):
        for r in (client.get(f"/api/games/{gid}", headers=headers),
                  client.post(f"/api/games/{gid}/moves", json={"action": "call", "expected_move": version},
                              headers=headers)):
            assert r.status_code == 403, r.text
            assert set(r.json()) == {"detail"} and "\n" not in r.json()["detail"]
    r = client.get(f"/api/games/{gid}x", headers={"X-Game-Token": other_token})
    assert r.status_code == 404 and set(r.json()) == {"detail"}


def check_refusals(client, gid: str, h: dict, st: dict[str, Any], game: LiarsGame, seed: int) -> None:
    """Refused moves (409, 422) name no hand and no seed, and change nothing."""
    bodies = [{"action": "call", "expected_move": st["version"] + 7},  # stale
              {"action": "bid", "quantity": 1, "face": 7, "expected_move": st["version"]}]  # no such face
    if st["bid"]:
        q, f = st["bid"]
        bodies.append({"action": "bid", "quantity": q, "face": f, "expected_move": st["version"]})  # no raise
    else:
        bodies.append({"action": "call", "expected_move": st["version"]})  # nothing to call
    for body in bodies:
        r = client.post(f"/api/games/{gid}/moves", json=body, headers=h)
        assert r.status_code in (409, 422), r.text
        detail = r.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and str(seed) not in detail
        for hand in live_hands(game).values():
            if len(hand) > 1:
                assert not any(s in detail for s in spellings(hand)), detail
    assert client.get(f"/api/games/{gid}", headers=h).json()["version"] == st["version"]


def check_review_paths(client, st: dict[str, Any], h: dict, game: LiarsGame, status: str, seed: int) -> None:
    """The review (with the token) and the read-only share link (without): while the game is live,
    only public events (hands only in the calls of called rounds), no position, no coach number and
    no seed; once it is over, everything is public."""
    answers = [client.get(f"/api/games/{st['id']}/review", headers=h), client.get(f"/api/games/shared/{st['share_id']}")]
    for r in answers:
        assert r.status_code == 200, r.text
        assert h["X-Game-Token"] not in r.text
        rv = r.json()
        assert rv["status"] == status
        if status == "finished":
            assert rv["seed"] == seed
            continue
        assert "seed" not in rv and str(seed) not in r.text
        assert "position" not in rv["final"]
        for step in rv["steps"]:
            assert "position" not in step and step["win"] is None
            assert all(set(mv) <= {"seat", "actor", "action", "hinted", "events"} for mv in step["moves"]), step
        for path, value in hand_items(rv):
            assert re.fullmatch(r"\.steps\[\d+\]\.moves\[\d+\]\.events\[\d+\]\.hands", path), path
            assert value in called_hands(game), (path, value)
        seen = [mv["action"] for s in rv["steps"] for mv in s["moves"]]
        assert len(seen) == st["version"]


def human_move(st: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Call now and then, else the smallest raise (a call when no raise is left)."""
    total = sum(st["dice_counts"])
    if st["bid"] is None:
        return {"action": "bid", "quantity": 1, "face": int(rng.integers(1, 7))}
    q, f = st["bid"]
    q, f = (q, f + 1) if f < 6 else (q + 1, 1)
    if rng.random() < 0.35 or q > total:
        return {"action": "call"}
    return {"action": "bid", "quantity": q, "face": f}


def new_liars(client, **kw) -> tuple[str, dict[str, str], dict[str, Any]]:
    r = client.post("/api/games", json={"game": "liars", **kw})
    assert r.status_code == 201, r.text
    return r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]


def generic(body: dict[str, Any]) -> dict[str, Any]:
    """The same move in the generic form: the game's own action (``{"bid": [q, f]}`` or ``"call"``)."""
    if body["action"] == "bid":
        return {"action": {"bid": [body["quantity"], body["face"]]}}
    return {"action": body["action"]}


@pytest.mark.parametrize("players, dice, wild, opponents, seed, form, coach", [
    (2, 3, "none", ["random"], 1, "flat", False),
    (2, 2, "ones", ["probabilistic"], 2, "generic", True),
    (3, 2, "ones", ["random", "probabilistic"], 3, "flat", True),
    (4, 2, "none", ["probabilistic", "random", "random"], 4, "generic", False),
])
def test_live_liars_rounds_leak_no_hand_on_any_path(client, admin, db_url, players, dice, wild, opponents, seed,
                                                     form, coach):
    rng = np.random.default_rng(seed)
    other, other_h, _ = new_liars(client, players=2, dice=3, opponent="random")  # a second live game
    rules = {"rules": {"players": players, "dice": dice, "wild": wild}} if form == "generic" else \
        {"players": players, "dice": dice, "wild": wild}
    gid, h, st = new_liars(client, **rules, opponents=opponents, coach=coach)
    assert (st["coach_view"] is not None) == coach
    plots = [client.get(f"/analysis/plot/{p}.png", headers=admin).content for p in PLOTS]
    game, status, secret = replay(db_url, gid)
    check_state(st, game, status, secret)
    calls_seen = 0
    for _ in range(80):
        body = human_move(st, rng)
        body = {**(generic(body) if form == "generic" else body), "expected_move": st["version"]}
        before = len(game.record.rounds)
        r = client.post(f"/api/games/{gid}/moves", json=body, headers=h)
        assert r.status_code == 200, r.text
        ans = r.json()
        game, status, secret = replay(db_url, gid)
        calls_seen += len(game.record.rounds) > before
        check_answer(ans, before, game, status, secret)
        st = client.get(f"/api/games/{gid}", headers=h).json()
        check_state(st, game, status, secret)
        other_game, other_status, _ = replay(db_url, other)
        check_exports(client, admin, {gid: (game, status), other: (other_game, other_status)})
        check_study_pages(client, admin, gid, game, secret)
        check_strangers(client, gid, other_h["X-Game-Token"], st["version"])
        check_review_paths(client, st, h, game, status, secret)
        if status == "finished":
            break
        check_refusals(client, gid, h, st, game, secret)
    assert status == "finished" and calls_seen >= 2, "the game should run several rounds to its end"
    # the hidden hands cannot move the study's plots: they are the same bytes as before the game
    assert [client.get(f"/analysis/plot/{p}.png", headers=admin).content for p in PLOTS] == plots
    # once over, every round has been called: every hand of the game is in the export, in the calls
    moves = [m for m in export_rows(client, admin, "moves", "parquet") if m["game_id"] == gid]
    calls = [e for m in moves for e in json.loads(m["events_json"]) if e.get("action") == "call"]
    assert moves and [c["hands"] for c in calls] == called_hands(game) and len(calls) == len(game.record.rounds)


def _seed_of(db_url: str, gid: str) -> int:
    ((seed,),) = sql(db_url, "select seed from games where id=:gid", gid=gid)
    return seed


def _seed_shown(client, admin, gid: str, h: dict, seed: int) -> list[str]:
    """Every read path on which the decimal seed appears (exports parsed, so compression cannot hide it)."""
    found = []
    read = client.get(f"/api/games/{gid}", headers=h)
    if str(seed) in read.text:
        found.append("game read")
    stale = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 10**6}, headers=h)
    if str(seed) in stale.text:
        found.append("409")
    for fmt in ("csv", "parquet"):
        for table in TABLES:
            rows = export_rows(client, admin, table, fmt)
            if any(str(seed) in str(v) for row in rows for v in row.values()):
                found.append(f"{table}.{fmt}")
    for url in ("/api/analysis", "/analysis"):
        if str(seed) in client.get(url, headers=admin).text:
            found.append(url)
    if str(seed) in client.get(f"/api/games/{gid}/review", headers=h).text:
        found.append("review")
    if str(seed) in client.get(f"/api/games/shared/{read.json()['share_id']}").text:
        found.append("share")
    return found


@pytest.mark.parametrize("body, move", [
    ({"game": "pig", "goal": 20, "opponent": "hold:10"}, {"action": "roll"}),
    ({"game": "simpig", "goal": 20, "players": 3, "opponent": "hold:5"}, {"action": "target", "k": 3}),
    ({"game": "supersix", "sticks": 3, "opponent": "always"}, {"action": "throw"}),
    ({"game": "liars", "players": 3, "dice": 2, "opponent": "random"}, {"action": "bid", "quantity": 1, "face": 2}),
    ({"game": "liars", "rules": {"players": 2, "dice": 2}, "opponent": "probabilistic", "coach": True},
     {"action": {"bid": [1, 2]}}),
    ({"game": "hog", "rules": {"goal": 100}, "opponent": "optimal", "coach": True}, {"action": {"dice": 3}}),
])
def test_the_seed_of_a_live_game_appears_on_no_path(client, admin, db_url, body, move):
    r = client.post("/api/games", json={**body, "questionnaire": {"risk_preference": "neutral", "q2": "a", "q3": "a",
                                                                   "consent": True}})
    assert r.status_code == 201, r.text
    gid, h = r.json()["id"], {"X-Game-Token": r.json()["token"]}
    seed = _seed_of(db_url, gid)
    assert str(seed) not in r.text
    ans = client.post(f"/api/games/{gid}/moves", json={**move, "expected_move": r.json()["state"]["version"]},
                      headers=h)
    assert ans.status_code == 200 and str(seed) not in ans.text
    if ans.json()["state"]["status"] == "playing":
        assert _seed_shown(client, admin, gid, h, seed) == []


def test_the_seed_search_finds_a_finished_games_seed(client, admin, db_url):
    # the search above can fail: once a game is over its seed is public, and it finds it
    r = client.post("/api/games", json={"game": "pig", "goal": 2, "opponent": "hold:1"})
    gid, h = r.json()["id"], {"X-Game-Token": r.json()["token"]}
    st = r.json()["state"]
    while st["status"] == "playing":
        st = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": st["version"]},
                         headers=h).json()["state"]
    assert {"game read", "games.csv", "games.parquet", "review", "share"} <= set(_seed_shown(client, admin, gid, h, _seed_of(db_url, gid)))
