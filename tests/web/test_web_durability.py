"""Durability: SIGKILL the server in the middle of play; every acknowledged move survives.

Twenty games are played at once through the API against a real server process while the test
records every acknowledged answer. The server is killed with SIGKILL (no shutdown code runs) in the
middle of the traffic and started again on the same database. Then every acknowledged move must
be in the database exactly as it was acknowledged (same sequence number, action, dice and result),
each game's version must equal its number of stored moves (no half-written move), an SQLite file
must pass SQLite's integrity check, and play must go on from where it stopped. Run on SQLite and
on PostgreSQL (whose server lives on; dicelab's server is the one killed).
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from tests.web.conftest import sql

GAMES = 20


@pytest.mark.both_databases
def test_sigkill_keeps_every_acknowledged_move(server_factory, db_url):
    server = server_factory(db_url)
    server.start()
    games = []
    with httpx.Client(base_url=server.url, timeout=10) as c:
        for _ in range(GAMES):
            j = c.post("/api/games", json={"goal": 100, "opponent": "hold:20", "human_first": True}).json()
            games.append({"id": j["id"], "h": {"X-Game-Token": j["token"]}, "version": j["state"]["version"],
                          "turn_total": 0})
    acked: list[dict] = []
    lock = threading.Lock()
    stop = threading.Event()

    def player(g: dict) -> None:
        with httpx.Client(base_url=server.url, timeout=5) as c:
            while not stop.is_set():
                action = "roll" if g["turn_total"] < 15 else "hold"
                try:
                    r = c.post(f"/api/games/{g['id']}/moves", json={"action": action, "expected_move": g["version"]},
                               headers=g["h"])
                except httpx.HTTPError:
                    return  # the server died under this request: not acknowledged
                if r.status_code != 200:
                    return  # finished (409) - this player is done
                body = r.json()
                with lock:
                    acked.extend({"game": g["id"], **ev} for ev in body["events"])
                g["version"] = body["state"]["version"]
                g["turn_total"] = body["state"]["turn_total"]
                if body["state"]["status"] != "playing":
                    return

    threads = [threading.Thread(target=player, args=(g,)) for g in games]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while len(acked) < 300 and time.monotonic() < deadline:
        time.sleep(0.02)
    server.kill()  # SIGKILL while the players are still sending
    stop.set()
    for t in threads:
        t.join(10)
    assert len(acked) >= 100, "too little traffic before the kill"

    if db_url.startswith("sqlite"):
        assert sql(db_url, "pragma integrity_check") == [("ok",)]
    stored = {(g, seq): (json.loads(action), json.loads(events)) for g, seq, action, events in
              sql(db_url, "select game_id, seq, action_json, events_json from moves")}
    for ev in acked:  # the action and every public event it caused (dice, result) as acknowledged
        assert stored.get((ev["game"], ev["seq"])) == (ev["action"], ev["events"]), ev
    counts = dict(sql(db_url, "select game_id, count(*) from moves group by game_id"))
    for gid, version in sql(db_url, "select id, version from games"):
        assert counts.get(gid, 0) == version  # a move and its game update are one transaction

    server.start()  # same database, fresh process
    with httpx.Client(base_url=server.url, timeout=10) as c:
        for g in games:
            st = c.get(f"/api/games/{g['id']}", headers=g["h"]).json()
            mine = [ev["seq"] for ev in acked if ev["game"] == g["id"]]
            assert st["version"] >= (max(mine) + 1 if mine else 0)
            if st["status"] == "playing" and st["to_move"] == [st["human_seat"]]:
                r = c.post(f"/api/games/{g['id']}/moves", json={"action": "hold", "expected_move": st["version"]},
                           headers=g["h"])
                assert r.status_code == 200, r.text
