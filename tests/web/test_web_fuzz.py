"""Nothing a client sends crashes the server: random bodies, ids, tokens and values never get a 5xx."""

from __future__ import annotations

import json
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


from dicelab.web.app import create_app
from tests.web.conftest import PoliteClient

values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) |
    st.integers(-10**80, 10**80) |
    st.sampled_from(["pig", "simpig", "supersix", "liars", "hog", "dice", "rules", "max_dice", "roll", "hold", "call", "bid", "throw", "stop",
                     "target", "optimal", "hold:20", "best-response:hold:20", "equilibrium", "agent",
                     "two-dice", "piglet", "ones", "averse", "a", "b", "../../etc/passwd", "table:/x", "file:/x"]) |
    st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["game", "variant", "goal", "sides", "opponent", "opponents", "players", "sticks", "dice",
                         "wild", "human_first", "coach", "questionnaire", "risk_preference", "q2", "q3", "action",
                         "expected_move", "k", "quantity", "face", "x", "rules", "dice", "max_dice", "bid",
                         "target"]), inner, max_size=8),
    max_leaves=12)


def test_random_requests_never_crash_the_server(tmp_path):
    with PoliteClient(create_app(f"sqlite:///{tmp_path / 'fuzz.sqlite'}", warm=False),
                    raise_server_exceptions=False) as client:
        ok = client.post("/api/games", json={"goal": 20, "opponent": "hold:10"}).json()
        gid, token = ok["id"], ok["token"]
        hog = client.post("/api/games", json={"game": "hog", "rules": {"goal": 30}}).json()  # the generic path

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
        @given(body=values, which=st.sampled_from(["create", "move", "move-hog", "move-other", "read"]),
               tok=st.sampled_from(["good", "bad", "none"]))
        def check(body, which, tok):
            headers = {"X-Game-Token": token} if tok == "good" else ({"X-Game-Token": "x" * 30} if tok == "bad" else {})
            data = json.dumps(body)
            if which == "create":
                r = client.post("/api/games", content=data, headers={"Content-Type": "application/json"})
            elif which in ("move", "move-hog"):
                game, tk = (gid, headers) if which == "move" else (hog["id"], {"X-Game-Token": hog["token"]})
                r = client.post(f"/api/games/{game}/moves", content=data,
                                headers={**tk, "Content-Type": "application/json"})
            elif which == "move-other":
                r = client.post(f"/api/games/{quote(str(body)[:60], safe='')}/moves", content=data, headers=headers)
            else:
                r = client.get(f"/api/games/{gid}", headers=headers)
            assert r.status_code < 500, (which, body, r.text)

        check()
        assert client.get("/healthz").status_code == 200
