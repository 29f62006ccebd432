"""Simultaneous Pig in the web lab: play through the API, coach values against published figures."""

from __future__ import annotations

import sqlite3

import pytest


def new(client, **kw):
    r = client.post("/api/games", json={"game": "simpig", "goal": 100, "opponent": "hold:25", **kw})
    assert r.status_code == 201, r.text
    j = r.json()
    return j["id"], {"X-Game-Token": j["token"]}, j["state"]


def test_coach_against_hold_25_and_the_equilibrium(client):
    # seed 000, Table S1: the best response wins 0.5231 against hold:25 from (0, 0)
    _, _, st = new(client, opponent="hold:25", coach=True)
    q = [v["value"] for v in st["coach_view"]["values"]]
    assert max(q) == pytest.approx(0.5231, abs=5e-5)
    assert st["coach_view"]["best"] == {"target": q.index(max(q)) + 1}
    assert [v["action"] for v in st["coach_view"]["values"]] == st["legal_actions"]
    # against the exact equilibrium nothing beats the game's value 1/2 (a symmetric zero-sum game)
    _, _, st = new(client, opponent="equilibrium", coach=True)
    assert max(v["value"] for v in st["coach_view"]["values"]) == pytest.approx(0.5, abs=1e-9)


def test_whole_game_records_every_players_turn(client, db_url):
    gid, h, st = new(client, goal=40, players=3, opponents=["svima", "hold:20"])
    assert st["opponents"] == ["svima", "hold:20"]
    while st["status"] == "playing":
        k = min(15, 40 - st["scores"][0])
        r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": k, "expected_move": st["version"]},
                        headers=h)
        assert r.status_code == 200, r.text
        evs = r.json()["events"]
        assert [e["player"] for e in evs] == [0, 1, 2]
        for e in evs:  # the dice agree with the turn total: a 1 ends the turn with nothing
            ev = e["events"][0]
            assert ev["seat"] == e["player"] and ev["target"] == e["action"]["target"]
            if 1 in ev["faces"]:
                assert ev["faces"][-1] == 1 and ev["total"] == 0
            else:
                assert ev["total"] == sum(ev["faces"]) >= ev["target"]
        st = client.get(f"/api/games/{gid}", headers=h).json()
    assert sum(st["returns"]) == pytest.approx(1.0)
    con = sqlite3.connect(db_url.split("///", 1)[1])
    n_moves, = con.execute("select count(*) from moves where game_id=?", (gid,)).fetchone()
    n_turns, = con.execute("select count(*) from turns where game_id=?", (gid,)).fetchone()
    assert n_moves == n_turns == st["version"] == 3 * st["turn"]
    r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": 5, "expected_move": st["version"]},
                    headers=h)
    assert r.status_code == 409


def test_bad_targets_and_bots_are_refused(client):
    gid, h, st = new(client, goal=30)
    for body in ({"action": "target", "k": 31, "expected_move": 0}, {"action": "target", "expected_move": 0},
                 {"action": "roll", "expected_move": 0}, {"action": "target", "k": 0, "expected_move": 0}):
        assert client.post(f"/api/games/{gid}/moves", json=body, headers=h).status_code == 422
    assert client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": 5, "expected_move": 3},
                       headers=h).status_code == 409
    assert client.get(f"/api/games/{gid}", headers=h).json()["version"] == 0
    for opp in ("table:/etc/passwd", "genius"):
        assert client.post("/api/games", json={"game": "simpig", "opponent": opp}).status_code == 422
    assert client.post("/api/games", json={"game": "simpig", "players": 5}).status_code == 422
    assert client.get("/play/simpig").status_code == 200
