"""How data/weblab_0002.sqlite and .json were made: the web lab at revision 0002 (commit 867a98c, the
last before migration 0003) played these games through its own HTTP API. Not run by the tests;
to remake the fixture: git archive 867a98c src | tar -x -C OLD && PYTHONPATH=OLD/src python
make_weblab_0002.py tests/web/data/weblab_0002 (the fixture then changes: seeds and tokens are new).
"""
import json, shutil, sqlite3, sys
from fastapi.testclient import TestClient
from dicelab.web import create_app

out = sys.argv[1]
db = out + ".tmp.sqlite"
import os
if os.path.exists(db): os.remove(db)
app = create_app(f"sqlite:///{db}", warm=False)
games = {}
Q = {"risk_preference": "loving", "q2": "b", "q3": "a", "consent": True, "participant": "fixture"}
with TestClient(app) as c:
    def new(name, body):
        r = c.post("/api/games", json=body); assert r.status_code == 201, r.text
        j = r.json(); games[name] = {"id": j["id"], "token": j["token"], "body": body}
        return j["id"], {"X-Game-Token": j["token"]}, j["state"]
    def mv(gid, h, body):
        r = c.post(f"/api/games/{gid}/moves", json=body, headers=h); assert r.status_code == 200, r.text
        return r.json()["state"]
    # Pig: finished and live
    gid, h, st = new("pig_finished", {"game": "pig", "goal": 20, "opponent": "hold:10", "coach": True, "questionnaire": Q})
    while st["status"] == "playing":
        st = mv(gid, h, {"action": "roll" if st["turn_total"] < 8 else "hold", "expected_move": st["version"]})
    gid, h, st = new("pig_live", {"game": "pig", "goal": 50, "opponent": "optimal", "coach": True})
    for a in ("roll", "roll", "hold", "roll"):
        if st["status"] == "playing": st = mv(gid, h, {"action": a, "expected_move": st["version"]})
    # simultaneous Pig
    gid, h, st = new("simpig_finished", {"game": "simpig", "goal": 20, "opponent": "hold:10", "coach": True})
    while st["status"] == "playing":
        st = mv(gid, h, {"action": "target", "k": min(10, 20 - st["scores"][0]), "expected_move": st["version"]})
    gid, h, st = new("simpig_live", {"game": "simpig", "goal": 60, "players": 3, "opponent": "hold:20"})
    st = mv(gid, h, {"action": "target", "k": 12, "expected_move": st["version"]})
    # Super Six
    gid, h, st = new("supersix_finished", {"game": "supersix", "sticks": 2, "opponent": "always", "coach": True})
    while st["status"] == "playing":
        st = mv(gid, h, {"action": "throw", "expected_move": st["version"]})
    gid, h, st = new("supersix_live", {"game": "supersix", "sticks": 4, "opponent": "optimal"})
    st = mv(gid, h, {"action": "throw", "expected_move": st["version"]})
    # Liar's Dice
    gid, h, st = new("liars_finished", {"game": "liars", "players": 2, "dice": 1, "opponent": "random"})
    while st["status"] == "playing":
        b = st["current_bid"]
        body = {"action": "call"} if b else {"action": "bid", "quantity": 1, "face": 2}
        st = mv(gid, h, {**body, "expected_move": st["version"]})
    gid, h, st = new("liars_live", {"game": "liars", "players": 3, "dice": 3, "wild": "ones", "opponent": "probabilistic"})
    for _ in range(2):
        b = st["current_bid"]
        q, f = (b[0] + 1, b[1]) if b else (1, 3)
        st = mv(gid, h, {"action": "bid", "quantity": q, "face": f, "expected_move": st["version"]})
    for name, g in games.items():
        g["state"] = c.get(f"/api/games/{g['id']}", headers={"X-Game-Token": g["token"]}).json()
app.state.engine.dispose()
con = sqlite3.connect(db)
con.execute("PRAGMA wal_checkpoint(TRUNCATE)"); con.execute("PRAGMA journal_mode=DELETE"); con.execute("VACUUM"); con.close()
shutil.copy(db, out + ".sqlite")
json.dump(games, open(out + ".json", "w"), indent=1, sort_keys=True)
print({k: (v["state"]["status"], v["state"].get("version")) for k, v in games.items()})
