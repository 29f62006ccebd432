"""Super Six in the web lab: whole games through the API, the coach against seed 001's table."""

from __future__ import annotations

import json
import sqlite3

import pytest


def new(client, **kw):
    r = client.post("/api/games", json={"game": "supersix", "sticks": 4, "opponent": "optimal", **kw})
    assert r.status_code == 201, r.text
    j = r.json()
    return j["id"], {"X-Game-Token": j["token"]}, j["state"]


def play_out(client, gid, h, st, stop_at=3):
    while st["status"] == "playing":
        action = "stop" if "stop" in st["legal_actions"] and sum(st["pits"]) >= stop_at else "throw"
        r = client.post(f"/api/games/{gid}/moves", json={"action": action, "expected_move": st["version"]}, headers=h)
        assert r.status_code == 200, r.text
        st = client.get(f"/api/games/{gid}", headers=h).json()
    return st


def test_whole_game_with_coach(client, db_url):
    gid, h, st = new(client, coach=True, human_first=True)
    assert st["opening"] and st["counts"] == [4, 4]
    st = play_out(client, gid, h, st)
    assert st["winner"] in (0, 1) and min(st["counts"]) == 0
    con = sqlite3.connect(db_url.split("///", 1)[1])
    rows = con.execute("select actor, action, i, events_json, faces, p_lost from moves where game_id=? order by seq",
                       (gid,)).fetchall()
    assert len(rows) == st["version"]
    lid, rated = 0, 0
    for actor, action, i, events, face, p_lost in rows:
        if i is not None:
            assert i == lid  # the coach's position (lid count) follows from the dice before it
        if action == "throw":
            ev = json.loads(events)[0]
            d = int(face)
            assert d == ev["die"]
            # a 6 goes into the hole; 1-5 fills an empty pit or takes a filled one's stick (ending the turn)
            assert ev["lid"] - lid == (0 if d == 6 else (-1 if ev["turn_over"] and ev["lid"] < lid else 1)) \
                or ev["counts"][ev["seat"]] == 0
            lid = ev["lid"]
        if actor == "human" and p_lost is not None:
            assert p_lost >= 0
            rated += 1
    assert "summary" in st and st["summary"]["decisions"] == rated


def test_coach_matches_seed_001_table(client):
    # seed 001's first Results row: at 5/1/1 (five pits filled, one stick each) the mover wins
    # with 0.4512917 when forced; when free the best is to stop (throwing surely hits a pit).
    from dicelab import supersix
    from dicelab.supersix import play

    sol = play.solution(supersix.SuperSixRules(sticks=4))  # the table the lab's bot and coach read
    assert sol.win_probability(5, 1, 1, forced=1) == pytest.approx(0.4512917, abs=1e-7)
    p_throw, p_stop = sol.values(5, 1, 1)
    assert p_stop > p_throw
    assert sol.start_player_win() == pytest.approx(0.602, abs=5e-4)


def test_illegal_super_six_moves(client):
    gid, h, st = new(client, human_first=True)
    assert st["opening"] and st["legal_actions"] == ["throw"]
    r = client.post(f"/api/games/{gid}/moves", json={"action": "stop", "expected_move": 0}, headers=h)
    assert r.status_code == 422 and "forced" in r.json()["detail"]
    assert client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 0},
                       headers=h).status_code == 422
    assert client.get(f"/api/games/{gid}", headers=h).json()["version"] == 0
    assert client.post("/api/games", json={"game": "supersix", "opponent": "stop-at:9"}).status_code == 422
    assert client.post("/api/games", json={"game": "supersix", "sticks": 0}).status_code == 422
    assert client.get("/play/supersix").status_code == 200
