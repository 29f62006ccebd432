"""Games between people (issue 22) through the API, on SQLite and on PostgreSQL: seat tokens,
hidden information for every seat on every read path, secret simultaneous choices, the idle seat
handed to a bot, rematches, and the races of two people pressing at once.

The truth comes from the database and the game engines, not from the web lab: the secret seed,
the rules and every action are read from the database and replayed (tests/web/test_web_hidden_info.py).
"""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from sqlalchemy import text

from dicelab.web.db import utcnow
from tests.web.conftest import PoliteClient, sql
from tests.web.test_web_hidden_info import (
    called_hands,
    check_exports,
    export_rows,
    hand_items,
    live_hands,
    replay,
    spellings,
)

pytestmark = pytest.mark.both_databases

STATE_KEYS = {"id", "game", "title", "rules", "opponents", "human_seat", "coach", "status", "version", "to_move",
              "legal_actions", "seat", "dice_counts", "hand", "bid", "bidder", "actions", "rounds", "winner",
              "coach_view", "returns", "seed", "summary", "moves", "share_id", "seats", "idle_s", "rematch_id",
              "your_choice", "scores", "turn_total", "turn_rolls", "last", "goal", "targets", "turn"}


def new(client, **body) -> tuple[str, dict[str, Any], list[dict[str, str]]]:
    """A game between people: (id, the creator's answer, one header per person's seat, by seat)."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    j = r.json()
    seats = {j["state"]["human_seat"]: {"X-Game-Token": j["token"]}}
    for inv in j["invites"]:
        assert inv["link"] == f"/play/{j['state']['game']}#seat={j['id']}.{inv['token']}"
        seats[inv["seat"]] = {"X-Game-Token": inv["token"]}
    return j["id"], j, [seats[s] for s in sorted(seats)]


def first_update(client, gid: str, h: dict[str, str], after: int = 0) -> dict[str, Any]:
    """The first event of a seat's event stream (sent at once): the records from ``after`` and the state."""
    with client.stream("GET", f"/api/events/{gid}?after={after}", headers=h) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("data:"):
                return json.loads(line[5:])
    raise AssertionError("the stream sent nothing")


# ------------------------------------------------------------------------------ seats and tokens
def test_each_seat_has_its_own_token_and_sees_itself_as_the_reader(client, db_url):
    gid, j, (a, b) = new(client, game="pig", goal=20, people=2)
    assert j["state"]["seats"] == [
        {"seat": 0, "kind": "you", "joined": True, "handed": False, "bot": None, "chosen": False},
        {"seat": 1, "kind": "person", "joined": False, "handed": False, "bot": None, "chosen": False}]
    # the tokens are stored hashed: neither appears in the database
    dump = json.dumps(sql(db_url, "select * from seats"), default=str) + json.dumps(sql(db_url, "select * from games"), default=str)
    assert a["X-Game-Token"] not in dump and b["X-Game-Token"] not in dump
    sb = client.get(f"/api/games/{gid}", headers=b).json()
    assert sb["human_seat"] == 1 and sb["seats"][1]["kind"] == "you" and sb["legal_actions"] == []
    assert client.get(f"/api/games/{gid}", headers=a).json()["seats"][1]["joined"] is True  # B opened the link
    # B cannot move for A, and a wrong token opens nothing
    r = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 0}, headers=b)
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]
    wrong = a["X-Game-Token"][:-1] + ("y" if a["X-Game-Token"].endswith("x") else "x")  # one character off
    for h in ({"X-Game-Token": wrong}, {}):
        assert client.get(f"/api/games/{gid}", headers=h).status_code == 403
        assert client.get(f"/api/events/{gid}", headers=h).status_code == 403
    assert client.get(f"/api/events/{gid}x", headers=a).status_code == 404
    r = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 0}, headers=a)
    assert r.status_code == 200 and r.json()["events"][0]["actor"] == "human"
    # B's stream gives A's roll as another person's ("friend"), without A's coach numbers
    up = first_update(client, gid, b)
    assert [(e["seq"], e["player"], e["actor"]) for e in up["events"]] == [(0, 0, "friend")]
    assert all(up["events"][0][k] is None for k in ("p_lost", "best", "value"))
    assert up["state"]["version"] == 1 and up["state"]["human_seat"] == 1
    # the bad requests of a game between people: one line each
    for body in ({"game": "pig", "people": 3}, {"game": "pig", "people": 2, "idle_s": 1},
                 {"game": "simpig", "players": 3, "people": 2, "opponents": ["hold:5", "hold:6"]}):
        r = client.post("/api/games", json=body)
        assert r.status_code == 422 and "\n" not in str(r.json()["detail"]), r.text


def test_a_whole_pig_game_between_two_people_and_each_ones_review(client, db_url):
    gid, j, heads = new(client, game="pig", goal=20, people=2, coach=True)
    st = j["state"]
    rng = np.random.default_rng(5)
    while st["status"] == "playing":
        seat = st["to_move"][0]
        act = "hold" if st["turn_total"] >= rng.integers(4, 12) else "roll"
        r = client.post(f"/api/games/{gid}/moves", json={"action": act, "expected_move": st["version"]}, headers=heads[seat])
        assert r.status_code == 200, r.text
        assert {e["actor"] for e in r.json()["events"]} <= {"human"}  # no bot in this game
        st = client.get(f"/api/games/{gid}", headers=heads[seat]).json()
    rows = sql(db_url, "select player, actor, p_lost from moves where game_id=:g order by seq", g=gid)
    assert {a for _, a, _ in rows} == {"human"} and {p for p, _, _ in rows} == {0, 1}
    for seat, h in enumerate(heads):
        rv = client.get(f"/api/games/{gid}/review", headers=h).json()
        assert rv["human_seat"] == seat and rv["graph"]
        mine = [mv for s in rv["steps"] for mv in s["moves"] if mv["actor"] == "human"]
        other = [mv for s in rv["steps"] for mv in s["moves"] if mv["actor"] == "friend"]
        assert {mv["seat"] for mv in mine} == {seat} and {mv["seat"] for mv in other} == {1 - seat}
        # each person's review rates that person's own decisions, as the database recorded them
        lost = sum(p for pl, a, p in rows if pl == seat)
        assert rv["summary"]["total_lost"] == pytest.approx(lost, abs=1e-9)
        assert rv["summary"]["decisions"] == sum(1 for pl, _, _ in rows if pl == seat)
        full = client.get(f"/api/games/{gid}", headers=h).json()
        assert full["summary"]["total_lost"] == pytest.approx(lost, abs=1e-9)
        assert full["returns"][seat] == (1.0 if full["winner"] == seat else 0.0)


def test_rematch_keeps_the_same_people_and_two_asks_make_one_game(client):
    gid, j, (a, b) = new(client, game="pig", goal=2, people=2)
    st = j["state"]
    assert client.post(f"/api/games/{gid}/rematch", headers=a).status_code == 409  # not over yet
    while st["status"] == "playing":
        h = (a, b)[st["to_move"][0]]
        st = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": st["version"]},
                         headers=h).json()["state"]
    ra = client.post(f"/api/games/{gid}/rematch", headers=b)
    rb = client.post(f"/api/games/{gid}/rematch", headers=a)
    assert ra.status_code == rb.status_code == 201
    new_id = ra.json()["id"]
    assert rb.json()["id"] == new_id != gid
    # every seat moved one place on: the same tokens open the new seats, now the other way round
    assert ra.json()["state"]["human_seat"] == 0 and rb.json()["state"]["human_seat"] == 1
    assert client.get(f"/api/games/{gid}", headers=a).json()["rematch_id"] == new_id
    assert client.get(f"/api/games/{new_id}", headers={"X-Game-Token": "nobody"}).status_code == 403
    # a game against bots has no such rematch (its page starts a new one)
    bot = client.post("/api/games", json={"game": "pig", "goal": 2, "opponent": "hold:1"}).json()
    assert client.post(f"/api/games/{bot['id']}/rematch", headers={"X-Game-Token": bot["token"]}).status_code == 409


# ------------------------------------------------------------------------------ hidden information
def check_seat_state(st: dict[str, Any], seat: int, game, status: str, seed: int) -> None:
    """A read by the person at ``seat``: that seat's own hand, the called rounds, no other live hand."""
    assert set(st) <= STATE_KEYS, set(st) - STATE_KEYS
    assert st["status"] == status and st["human_seat"] == seat
    assert st["hand"] == (list(game.hands[seat]) if game.dice_counts[seat] and not game.is_over else [])
    assert st["rounds"] == [r.to_dict() for r in game.record.rounds]
    assert ("seed" in st) == (status == "finished") and (status != "finished" or st["seed"] == seed)
    for path, value in hand_items(st):
        assert path == ".hand" or path.endswith("].hands"), f"a hand at {path}"
        if path != ".hand":
            assert value in called_hands(game), (path, value)
    for m in st.get("moves", []):  # coach numbers only of the reader's own decisions
        assert m["player"] == seat or not ({"p_lost", "best"} & set(m)), m


def check_no_live_hand(text: str, seat: int | None, game) -> None:
    """No live hand but the reader's own (``seat``; None: no hand at all) in ``text``, however written."""
    for p, hand in live_hands(game).items():
        if p != seat and len(hand) > 1:
            assert not any(s in text for s in spellings(hand)[:2]), (p, hand)


def check_public(obj: Any, game) -> None:
    """Hands in ``obj`` only where a round was called (the lifted cups), with that round's hands."""
    for path, value in hand_items(obj):
        assert path.endswith(".hands") and value in called_hands(game), (path, value)


def check_records(records: list[dict[str, Any]], seat: int) -> None:
    for r in records:
        assert r["actor"] in ("human", "friend", "bot")
        assert (r["actor"] == "human") == (r["player"] == seat) or r["actor"] == "bot"
        if r["player"] != seat:
            assert all(r[k] is None for k in ("p_lost", "best", "value")), r


def test_live_liars_dice_of_two_people_and_two_bots_leaks_no_hand_on_any_path(client, admin, db_url):
    gid, j, heads = new(client, game="liars", players=4, dice=1, people=2, opponents=["random", "probabilistic"])
    assert [s["kind"] for s in j["state"]["seats"]] == ["you", "person", "bot", "bot"]
    rng = np.random.default_rng(22)
    st = j["state"]
    calls = 0
    for _ in range(120):
        game, status, seed = replay(db_url, gid)
        for seat, h in enumerate(heads):
            # the game read and the event stream: the seat's own hand only
            read = client.get(f"/api/games/{gid}", headers=h)
            check_seat_state(read.json(), seat, game, status, seed)
            check_public(read.json()["moves"], game)
            up = first_update(client, gid, h, after=max(0, st["version"] - 3))
            check_seat_state(up["state"], seat, game, status, seed)
            check_records(up["events"], seat)
            for path, value in hand_items(up["events"]):
                assert path.endswith("].hands") and value in called_hands(game), (path, value)
            # the review and the share link: public events only while live
            for r in (client.get(f"/api/games/{gid}/review", headers=h),
                      client.get(f"/api/games/shared/{read.json()['share_id']}")):
                assert r.status_code == 200, r.text
                if status == "playing":
                    assert str(seed) not in r.text
                    rv = r.json()
                    assert all(s["win"] is None and "position" not in s for s in rv["steps"])
                    check_public(rv, game)
                    for mv in (mv for s in rv["steps"] for mv in s["moves"]):
                        assert set(mv) <= {"seat", "actor", "action", "hinted", "events"}, mv
            # refusals: a move out of turn, a stale one, a bad bid: one line, nothing of a hand
            for body in ({"action": "call", "expected_move": st["version"]},
                         {"action": "bid", "quantity": 1, "face": 9, "expected_move": st["version"]},
                         {"action": "call", "expected_move": st["version"] + 5}):
                if status != "playing":
                    break
                r = client.post(f"/api/games/{gid}/moves", json=body, headers=h)
                if r.status_code == 200:  # a legal call by the seat to move: the game went on
                    calls += 1
                    game, status, seed = replay(db_url, gid)
                    st = r.json()["state"]
                    check_seat_state(st, seat, game, status, seed)
                    check_records(r.json()["events"], seat)
                    continue
                assert r.status_code in (409, 422) and "\n" not in r.json()["detail"], r.text
                check_no_live_hand(r.text, None, game)
            if status == "playing" and st["version"] == read.json()["version"]:
                hint = client.get(f"/api/games/{gid}/hint", headers=h)
                assert hint.status_code in (200, 409)
                for path, value in hand_items(hint.json()):  # the coach's view: at most the seat's own hand
                    assert value == list(game.hands[seat]), (path, value)
        check_exports(client, admin, {gid: (game, status)})
        if status == "finished":
            break
        # the seat to move bids or calls
        seat = next(s for s in (0, 1) if s in st["to_move"]) if set(st["to_move"]) & {0, 1} else None
        if seat is None:
            st = client.get(f"/api/games/{gid}", headers=heads[0]).json()
            continue
        cur = client.get(f"/api/games/{gid}", headers=heads[seat]).json()
        bid = cur["bid"]
        if bid is None:
            body = {"action": "bid", "quantity": 1, "face": int(rng.integers(1, 7))}
        elif rng.random() < 0.4:
            body = {"action": "call"}
        else:
            q, f = bid
            body = {"action": "bid", "quantity": q + 1, "face": f}
            if q + 1 > sum(cur["dice_counts"]):
                body = {"action": "call"}
        r = client.post(f"/api/games/{gid}/moves", json={**body, "expected_move": cur["version"]}, headers=heads[seat])
        assert r.status_code == 200, r.text
        calls += body["action"] == "call"
        st = r.json()["state"]
        check_records(r.json()["events"], seat)
    game, status, _ = replay(db_url, gid)
    assert status == "finished" and len(game.record.rounds) >= 2
    # the seats table holds the secrets: it is not a study export
    assert client.get("/export/seats.csv", headers=admin).status_code == 422


def test_simultaneous_targets_stay_secret_until_every_person_has_chosen(client, admin, db_url):
    gid, j, (a, b) = new(client, game="simpig", goal=30, players=3, people=2, opponent="hold:5", coach=True)
    v = j["state"]["version"]
    secret = 17  # A's target: a number no bot of this game picks
    r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": secret, "expected_move": v}, headers=a)
    assert r.status_code == 200 and r.json()["events"] == []
    sa = r.json()["state"]
    assert sa["your_choice"] == {"target": secret} and sa["legal_actions"] == [] and sa["version"] == v
    # A cannot choose twice, and cannot take it back
    r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": 3, "expected_move": v}, headers=a)
    assert r.status_code == 409
    # every path B (or anyone else) can read: that A has chosen, never what
    texts = []
    sb = client.get(f"/api/games/{gid}", headers=b).json()
    assert "your_choice" not in sb and sb["seats"][0]["chosen"] is True and sb["legal_actions"]
    texts.append(json.dumps({k: v for k, v in sb.items() if k not in ("legal_actions", "coach_view")}))
    up = first_update(client, gid, b)
    assert up["events"] == [] and "your_choice" not in up["state"]
    texts.append(json.dumps({k: v for k, v in up["state"].items() if k not in ("legal_actions", "coach_view")}))
    hint = client.get(f"/api/games/{gid}/hint", headers=b)
    assert hint.status_code == 200 and set(hint.json()) == {"version", "coach"}
    for r in (client.get(f"/api/games/{gid}/review", headers=b), client.get(f"/api/games/shared/{sb['share_id']}"),
              client.get(f"/api/games/{gid}/review", headers=a)):
        assert r.status_code == 200
        texts.append(r.text)
    for table in ("games", "moves", "turns"):
        for fmt in ("csv", "parquet"):
            texts.append(json.dumps(export_rows(client, admin, table, fmt), default=str))
    for bad in ({"action": "target", "k": 999, "expected_move": v}, {"action": "target", "k": 5, "expected_move": v + 1}):
        r = client.post(f"/api/games/{gid}/moves", json=bad, headers=b)
        assert r.status_code in (409, 422)
        texts.append(r.text)
    for t in texts:
        assert f'"target": {secret}' not in t and f'"target":{secret}' not in t and f"target {secret}" not in t
    # the last person's choice plays the turn: every target at once, A's too
    r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": 4, "expected_move": v}, headers=b)
    assert r.status_code == 200, r.text
    ev = r.json()["events"]
    assert {(e["player"], e["actor"], e["action"]["target"]) for e in ev} == {(0, "friend", secret), (1, "human", 4),
                                                                             (2, "bot", 5)}
    assert r.json()["state"]["version"] == v + 3 and "your_choice" not in r.json()["state"]
    assert sql(db_url, "select count(*) from seats where game_id=:g and pending_json is not null", g=gid) == [(0,)]
    # A's think time was recorded with its move, as a bot's is not
    rows = sql(db_url, "select player, actor, think_ms from moves where game_id=:g order by seq", g=gid)
    assert [(p, a_) for p, a_, _ in rows] == [(0, "human"), (1, "human"), (2, "bot")]
    assert rows[0][2] is not None and rows[2][2] is None


# ------------------------------------------------------------------------------ the idle seat
def test_an_idle_seat_goes_to_the_bot_through_the_other_seats_stream(client, db_url):
    gid, j, (a, b) = new(client, game="pig", goal=20, people=2, idle_s=5, opponent="hold:3")
    # B's stream looks again when A's limit passes, hands A's seat to its bot, which plays at once
    with client.stream("GET", f"/api/events/{gid}", headers=b) as r:
        updates = []
        for line in r.iter_lines():
            if line.startswith("data:"):
                updates.append(json.loads(line[5:]))
                if len(updates) == 2:
                    break
    first, second = updates
    assert first["state"]["seats"][0]["handed"] is False
    assert second["state"]["seats"][0] == {"seat": 0, "kind": "person", "joined": True, "handed": True,
                                           "bot": "hold:3", "chosen": False}
    assert second["events"] and all(e["actor"] == "bot" and e["player"] == 0 for e in second["events"])
    assert second["state"]["to_move"] == [1]  # the bot held at 3 or more, or rolled a 1: B's turn
    # A comes back: can follow, cannot move any more
    sa = client.get(f"/api/games/{gid}", headers=a).json()
    assert sa["seats"][0]["handed"] is True and sa["legal_actions"] == []
    st = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": sa["version"]}, headers=b)
    assert st.status_code == 200
    if st.json()["state"]["to_move"] == [0]:
        r = client.post(f"/api/games/{gid}/moves", json={"action": "roll",
                                                          "expected_move": st.json()["state"]["version"]}, headers=a)
        assert r.status_code == 409 and "handed to a bot" in r.json()["detail"]
    assert sql(db_url, "select handed_at is not null from seats where game_id=:g order by seat", g=gid) in \
        ([(True,), (False,)], [(1,), (0,)])


def test_a_move_racing_the_hand_over_of_its_seat_exactly_one_wins(client, db_url):
    """Twenty rounds: A's move (the idle seat) and B's look that hands A's seat over, released together
    from two threads with their own sessions; the compare-and-set lets exactly one of them commit."""
    import dicelab.web.people as people
    import dicelab.web.service as service
    from dicelab.web.gamecore import Conflict

    app = client.app
    outcomes = []
    for _ in range(20 if db_url.startswith("postgresql") else 8):
        gid, j, (a, b) = new(client, game="pig", goal=50, people=2, idle_s=5, opponent="hold:20")
        with app.state.engine.begin() as con:  # A has been idle for two hours
            con.execute(text("update games set updated_at = :t where id = :g"), {"t": utcnow() - timedelta(hours=2), "g": gid})
        start = threading.Barrier(2)
        got: dict[str, str] = {}

        def mover() -> None:
            with app.state.sessions() as db:
                g = service.load(db, gid, a["X-Game-Token"])
                start.wait()
                try:
                    service.move(db, g, "roll", 0)
                    got["move"] = "won"
                except Conflict:
                    got["move"] = "409"

        def handler() -> None:
            with app.state.sessions() as db:
                g = service.load(db, gid, b["X-Game-Token"])
                start.wait()
                try:
                    got["hand"] = "won" if people.hand_over(db, g) is not None else "nothing"
                except Conflict:
                    got["hand"] = "409"

        threads = [threading.Thread(target=mover), threading.Thread(target=handler)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(got.values()) == ["409", "won"], got
        handed = sql(db_url, "select handed_at is not null from seats where game_id=:g and seat=0", g=gid)[0][0]
        assert bool(handed) == (got["hand"] == "won")
        (n,), = sql(db_url, "select count(*) from moves where game_id=:g", g=gid)
        (version,), = sql(db_url, "select version from games where id=:g", g=gid)
        assert n == version >= 1
        outcomes.append(got["move"])
    assert len(outcomes) >= 8


def test_secret_choices_racing_in_threads_each_counts_once(client, db_url):
    """The service under real concurrency (each thread its own session; on PostgreSQL truly at
    once): two people's targets sent together, retried on a lost compare-and-set as the move route
    does; the turn is played once, with both targets."""
    import dicelab.web.service as service
    from dicelab.web.gamecore import Stale

    app = client.app
    for turn in range(8):
        gid, j, (a, b) = new(client, game="simpig", goal=50, players=3, people=2, opponent="hold:4")
        start = threading.Barrier(2)
        tries: dict[int, int] = {0: 0, 1: 0}
        events: dict[int, list] = {}

        def send(seat: int, h: dict[str, str]) -> None:
            with app.state.sessions() as db:
                first = True
                while True:
                    g = service.load(db, gid, h["X-Game-Token"])
                    if first:
                        start.wait()
                        first = False
                    tries[seat] += 1
                    try:
                        events[seat] = service.move(db, g, {"target": 6 + seat}, 0)[1]
                        return
                    except Stale:
                        assert tries[seat] < 5
                        continue

        threads = [threading.Thread(target=send, args=(s, h)) for s, h in ((0, a), (1, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(len(e) for e in events.values()) == [0, 3], events  # one waited, the other played all three
        rows = sql(db_url, "select player, actor, action_json from moves where game_id=:g order by seq", g=gid)
        assert [(p, x, json.loads(act)) for p, x, act in rows] == [
            (0, "human", {"target": 6}), (1, "human", {"target": 7}), (2, "bot", {"target": 4})]
        assert sql(db_url, "select version, stamp from games where id=:g", g=gid) == [(3, 2)]


def test_two_people_asking_a_rematch_at_once_make_one_game(client, db_url):
    """Both people press Rematch together (two threads, their own sessions, past the server's lock):
    exactly one new game is made, and each finds their own seat in it."""
    import dicelab.web.people as people
    import dicelab.web.service as service

    app = client.app
    for _ in range(3):
        gid, j, (a, b) = new(client, game="pig", goal=2, people=2)
        st = j["state"]
        while st["status"] == "playing":
            h = (a, b)[st["to_move"][0]]
            st = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": st["version"]},
                             headers=h).json()["state"]
        (before,), = sql(db_url, "select count(*) from games")
        start = threading.Barrier(2)
        got: dict[int, Any] = {}

        def ask(seat: int, h: dict[str, str]) -> None:
            with app.state.sessions() as db:
                g = service.load(db, gid, h["X-Game-Token"])
                start.wait()
                try:
                    r = people.rematch(db, g)
                    got[seat] = (r.id, service.viewer(r))
                except Exception as exc:  # noqa: BLE001 - reported by the assertion below
                    got[seat] = repr(exc)

        threads = [threading.Thread(target=ask, args=(s, h)) for s, h in ((0, a), (1, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert isinstance(got[0], tuple) and isinstance(got[1], tuple), got
        assert got[0][0] == got[1][0] != gid and {got[0][1], got[1][1]} == {0, 1}, got
        assert sql(db_url, "select count(*) from games") == [(before + 1,)]
        assert sql(db_url, "select rematch_id from games where id=:g", g=gid) == [(got[0][0],)]
        assert sql(db_url, "select count(*) from seats where game_id=:g", g=got[0][0]) == [(2,)]


@pytest.mark.slow  # one server start, a few seconds of traffic and an in-process restart per database (about
# 5 s each on a quiet machine, 20-30 s under load): in `make test-all`; the quick suite keeps
# tests/web/test_web_durability.py (moves against bots, written by the same gamecore.commit_move)
def test_sigkill_keeps_every_acknowledged_move_of_two_people(server_factory, db_url):
    """Two-person games (Pig, and simultaneous Pig whose first choice waits secret) played by one
    thread per person against a real server, SIGKILLed in the middle: every acknowledged move and
    every acknowledged secret choice is in the database as acknowledged, each game's version is its
    number of moves, and after a restart both people play on."""
    import time

    import httpx

    server = server_factory(db_url)
    server.start()
    games = []
    with httpx.Client(base_url=server.url, timeout=20) as c:
        for n in range(4):  # bots that need no table built (they play only a seat handed over: none here)
            body = {"game": "pig", "goal": 60, "people": 2, "opponent": "hold:20"} if n < 2 else \
                {"game": "simpig", "goal": 40, "players": 2, "people": 2, "opponent": "hold:25"}
            j = c.post("/api/games", json=body).json()
            games.append({"id": j["id"], "game": body["game"],
                          "h": [{"X-Game-Token": j["token"]}, {"X-Game-Token": j["invites"][0]["token"]}]})
    acked: list[dict] = []
    chosen: list[tuple[str, int, int, dict]] = []  # (game, seat, version, choice) acknowledged as waiting
    lock = threading.Lock()
    stop = threading.Event()

    def person(g: dict, seat: int) -> None:
        with httpx.Client(base_url=server.url, timeout=5) as c:
            while not stop.is_set():
                try:
                    r = c.get(f"/api/games/{g['id']}", headers=g["h"][seat])
                    if r.status_code == 503:  # the server sheds load: try again shortly
                        time.sleep(0.05)
                        continue
                    st = r.json()
                    if st["status"] != "playing":
                        return
                    if not st["legal_actions"]:
                        time.sleep(0.005)
                        continue
                    legal = st["legal_actions"]  # simultaneous Pig: a target no higher than the goal allows
                    action = (legal[min(3 + seat, len(legal) - 1)] if g["game"] == "simpig" else
                              "roll" if st["turn_total"] < 12 else "hold")
                    r = c.post(f"/api/games/{g['id']}/moves", json={"action": action, "expected_move": st["version"]},
                               headers=g["h"][seat])
                except (httpx.HTTPError, ValueError):
                    return  # the server died under this request: not acknowledged
                if r.status_code in (409, 503):
                    continue  # the other person's move came first, or the server shed the request
                if r.status_code != 200:
                    return
                body = r.json()
                with lock:
                    acked.extend({"game": g["id"], **ev} for ev in body["events"])
                    if not body["events"]:
                        chosen.append((g["id"], seat, st["version"], action))

    threads = [threading.Thread(target=person, args=(g, s)) for g in games for s in (0, 1)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 15
    while (len(acked) < 40 or not chosen) and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()
    stop.set()
    for t in threads:
        t.join(10)
    assert len(acked) >= 20 and chosen, (len(acked), len(chosen))  # traffic before the kill
    if db_url.startswith("sqlite"):
        assert sql(db_url, "pragma integrity_check") == [("ok",)]
    stored = {(g, seq): (json.loads(a), json.loads(e)) for g, seq, a, e in
              sql(db_url, "select game_id, seq, action_json, events_json from moves")}
    for ev in acked:
        assert stored.get((ev["game"], ev["seq"])) == (ev["action"], ev["events"]), ev
    counts = dict(sql(db_url, "select game_id, count(*) from moves group by game_id"))
    for gid, version in sql(db_url, "select id, version from games"):
        assert counts.get(gid, 0) == version
    # an acknowledged secret choice is kept: still waiting, or played in its turn (the move at that version)
    pending = {(g, s): json.loads(p) for g, s, p in sql(db_url, "select game_id, seat, pending_json from seats "
                                                                "where pending_json is not null")}
    for gid, seat, version, action in chosen:
        played = [a for (g, seq), (a, _) in stored.items() if g == gid and seq in (version, version + 1)]
        assert pending.get((gid, seat), {}).get("action") == action or action in played, (gid, seat, version)
    # the lab opened again on the same database (in this process: the start-up a new server
    # makes, without a second interpreter): both people play on
    
    from dicelab.web.app import create_app
    from tests.web.conftest import ADMIN_KEY

    with PoliteClient(create_app(db_url, warm=False, admin_key=ADMIN_KEY)) as c:
        for g in games:
            for seat in (0, 1):
                st = c.get(f"/api/games/{g['id']}", headers=g["h"][seat]).json()
                if st["status"] == "playing" and st["legal_actions"]:
                    legal = st["legal_actions"]
                    action = legal[min(2, len(legal) - 1)] if g["game"] == "simpig" else "hold"
                    r = c.post(f"/api/games/{g['id']}/moves", headers=g["h"][seat],
                               json={"action": action, "expected_move": st["version"]})
                    assert r.status_code == 200, r.text
