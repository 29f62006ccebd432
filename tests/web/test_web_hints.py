"""Hints on demand (issue 14, item 4): the coach's view for the human's seat at any time, coach on or
off, and the move after a hint recorded as hinted (in the answer and in the move's stored events)."""

from __future__ import annotations

import json
import sqlite3

import pytest


def _new(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    d = r.json()
    return d["id"], {"X-Game-Token": d["token"]}, d["state"]


def hinted(record: dict) -> bool:
    """Whether an answer's move record followed a hint: its events carry {"seat": s, "hint": true}."""
    return {"seat": record["player"], "hint": True} in record["events"]


def _stored_events(db_url: str, game_id: str) -> list[list[dict]]:
    con = sqlite3.connect(db_url.removeprefix("sqlite:///"))
    rows = con.execute("select events_json from moves where game_id=? and actor='human' order by seq",
                       (game_id,)).fetchall()
    return [json.loads(e) for (e,) in rows]


def test_a_hint_without_the_coach_and_the_next_move_is_recorded_as_hinted(client, db_url):
    gid, tok, state = _new(client, game="pig", goal=20, opponent="hold:20", coach=False)
    assert state["coach_view"] is None  # the coach was not chosen
    h = client.get(f"/api/games/{gid}/hint", headers=tok)
    assert h.status_code == 200
    hint = h.json()
    assert hint["version"] == 0
    vals = {v["action"]: v["value"] for v in hint["coach"]["values"]}
    assert set(vals) == {"roll", "hold"} and hint["coach"]["best"] == "roll" and vals["roll"] > vals["hold"]
    # the move after the hint is hinted, without the client saying so; the one after is not
    r = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 0}, headers=tok).json()
    assert hinted(r["events"][0])
    v = r["state"]["version"]
    if r["state"]["status"] == "playing":
        r2 = client.post(f"/api/games/{gid}/moves", json={"action": "hold", "expected_move": v}, headers=tok).json()
        assert not hinted(r2["events"][0])
    stored = _stored_events(db_url, gid)
    assert {"seat": 0, "hint": True} in stored[0]
    assert all(not e.get("hint") for rec in stored[1:] for e in rec)
    # bots' records never carry the flag
    assert not any(hinted(rec) for rec in r["events"][1:])


def test_the_client_flag_records_a_hint_and_a_stale_hint_does_not_count(client, db_url):
    gid, tok, _ = _new(client, game="supersix", opponent="always", sticks=3)
    r = client.post(f"/api/games/{gid}/moves", json={"action": "throw", "expected_move": 0, "hint": True},
                    headers=tok).json()
    assert hinted(r["events"][0])
    v = r["state"]["version"]
    client.get(f"/api/games/{gid}/hint", headers=tok)  # a hint at version v ...
    if r["state"]["status"] == "playing":
        # ... then a move that fails (stale) and the right one: the hint still counts once
        assert client.post(f"/api/games/{gid}/moves", json={"action": "throw", "expected_move": v + 5},
                           headers=tok).status_code == 409
        r2 = client.post(f"/api/games/{gid}/moves", json={"action": "throw", "expected_move": v}, headers=tok).json()
        assert hinted(r2["events"][0])
    assert client.post(f"/api/games/{gid}/moves", json={"action": "throw", "expected_move": 0, "hint": "yes"},
                       headers=tok).status_code == 422


def test_hints_need_the_token_and_a_game_in_play(client):
    gid, tok, _ = _new(client, game="pig", goal=20, opponent="hold:20")
    assert client.get(f"/api/games/{gid}/hint").status_code == 403
    assert client.get(f"/api/games/{gid}/hint", headers={"X-Game-Token": "wrong"}).status_code == 403
    assert client.get("/api/games/nope/hint", headers=tok).status_code == 404
    v, status = 0, "playing"
    while status == "playing":  # hold at once every turn: the bot wins
        r = client.post(f"/api/games/{gid}/moves", json={"action": "hold", "expected_move": v}, headers=tok).json()
        v, status = r["state"]["version"], r["state"]["status"]
    assert client.get(f"/api/games/{gid}/hint", headers=tok).status_code == 409


@pytest.mark.parametrize("players", [2, 3])
def test_a_liars_dice_hint_uses_only_your_own_dice(client, players):
    # the hint is the coach of the human's seat: the same numbers as the page's coach, which sees only
    # the human's hand; no other hand is in the answer
    gid, tok, state = _new(client, game="liars", players=players, dice=2, coach=True)
    h = client.get(f"/api/games/{gid}/hint", headers=tok).json()
    assert h["coach"] == state["coach_view"]
    text = json.dumps(h)
    assert "hands" not in text and "seed" not in text
