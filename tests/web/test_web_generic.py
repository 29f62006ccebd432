"""The one game service: a game the web lab has no code for (Hog) through the registry, the state
interface and its Play; rule parameters and bots from the registry; the generic request forms."""

from __future__ import annotations

import pytest

from dicelab.core import registry


def test_hog_through_the_generic_service(client):
    r = client.post("/api/games", json={"game": "hog", "rules": {"goal": 100}, "opponent": "optimal", "coach": True})
    assert r.status_code == 201, r.text
    gid, h, st = r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]
    assert st["rules"] == {"goal": 100, "max_dice": 10, "sides": 6} and st["opponents"] == ["optimal"]
    assert st["legal_actions"] == [{"dice": n} for n in range(1, 11)] and st["scores"] == [0, 0]
    # the coach: Hog to 100 is won by the first player with 0.5306649245 under optimal play, by
    # rolling six dice (the hog package's documented solution)
    vals = {v["action"]["dice"]: v["value"] for v in st["coach_view"]["values"]}
    assert max(vals.values()) == pytest.approx(0.5306649245, abs=1e-10)
    assert st["coach_view"]["best"] == {"dice": 6}
    r = client.post(f"/api/games/{gid}/moves", json={"action": {"dice": 6}, "expected_move": 0}, headers=h)
    assert r.status_code == 200, r.text
    mine = r.json()["events"][0]
    assert mine["actor"] == "human" and mine["p_lost"] == pytest.approx(0.0, abs=1e-15)
    ev = mine["events"][0]
    assert ev["dice"] == 6 and len(ev["faces"]) == 6 and ev["points"] == (0 if 1 in ev["faces"] else sum(ev["faces"]))
    st = r.json()["state"]
    # the flat form of the same action
    r = client.post(f"/api/games/{gid}/moves", json={"action": "dice", "dice": 1, "expected_move": st["version"]},
                    headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["events"][0]["action"] == {"dice": 1}
    st = r.json()["state"]
    for bad in ({"action": {"dice": 11}}, {"action": {"dice": 0}}, {"action": "roll"},
                {"action": {"dice": 2}, "k": 3}, {"action": "dice", "k": 3, "face": 2}):
        r = client.post(f"/api/games/{gid}/moves", json={**bad, "expected_move": st["version"]}, headers=h)
        assert r.status_code == 422 and "\n" not in str(r.json()["detail"]), (bad, r.text)
    assert client.get(f"/api/games/{gid}", headers=h).json()["version"] == st["version"]


@pytest.mark.parametrize("body, word", [
    ({"game": "hog", "rules": {"goal": 101}}, "goal"),
    ({"game": "hog", "rules": {"max_dice": "ten"}}, "max_dice"),
    ({"game": "hog", "rules": {"lives": 3}}, "no rule"),
    ({"game": "hog", "goal": 50, "rules": {"goal": 60}}, "once"),
    ({"game": "hog", "opponent": "always:11"}, "always"),
    ({"game": "nope"}, "unknown game"),
    ({"game": "pig", "goal": 10**80}, "huge"),  # refused before any message could echo 81 digits
    ({"game": "pig", "goal": True}, "whole number"),
    ({"game": "liars", "players": 3, "opponents": ["random"] * 3}, "one per bot seat"),
])
def test_bad_settings_one_line_422(client, body, word):
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, r.text
    assert word.lower() in str(r.json()["detail"]).lower() and "\n" not in str(r.json()["detail"])
    assert len(r.text) < 400


def test_opponents_rules_and_pages_come_from_the_registry(client):
    ops = client.get("/api/opponents").json()
    names = [g.name for g in registry.games()]
    assert sorted(ops["opponents"]) == sorted(names) == sorted(g["key"] for g in ops["games"])  # games: most played first
    for g in registry.games():
        rules = g.make_rules(**{p.name: p.default for p in g.params if p.default is not None})
        assert [b["spec"] for b in ops["opponents"][g.name]] == [b.spec for b in g.play.bots(rules)]
        assert client.get(f"/play/{g.name}").status_code == 200
    rules = client.get("/api/games/rules").json()
    assert [p["name"] for p in rules["hog"]] == ["goal", "max_dice", "sides"]
    assert client.get("/play/chess").status_code == 404


def test_simultaneous_and_hidden_games_through_the_same_path(client):
    # every registered game: create, read, one legal move, read again; the answer is the seat's view
    for g in registry.games():
        r = client.post("/api/games", json={"game": g.name})
        assert r.status_code == 201, (g.name, r.text)
        gid, h, st = r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]
        assert "seed" not in st and st["status"] == "playing" and st["legal_actions"]
        r = client.post(f"/api/games/{gid}/moves", json={"action": st["legal_actions"][0],
                                                         "expected_move": st["version"]}, headers=h)
        assert r.status_code == 200, (g.name, r.text)
        after = client.get(f"/api/games/{gid}", headers=h).json()
        assert after["version"] == r.json()["state"]["version"] > st["version"]
