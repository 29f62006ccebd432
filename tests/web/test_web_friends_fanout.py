"""The event streams' shared fan-out (issue 22, :mod:`dicelab.web.fanout`): a move is rebuilt once and
every open stream of the game builds its own seat's update from that one snapshot. The hard rule is
hidden information: with every seat's stream held open through a live game, each update a stream
receives through the shared path must be exactly what that seat reads from the database (the game
read, and a fresh stream's first update, both built per seat from the database), show that seat's
own hand only (the truth: the game replayed from the database), and carry no other person's secret
choice; and the shared path must really be the one taken (the hub counts the updates it built).
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

import numpy as np
import pytest

from tests.web.conftest import PoliteClient
from tests.web.test_web_friends import check_records, check_seat_state, first_update, new
from tests.web.test_web_hidden_info import called_hands, hand_items, human_move, replay

pytestmark = pytest.mark.both_databases


class Streams:
    """Every seat's event stream held open at once (TestClient streams them as they are sent)."""

    def __init__(self, stack: ExitStack, client, gid: str, heads: list[dict[str, str]]) -> None:
        self.lines = []
        for n, h in enumerate(heads):
            r = stack.enter_context(client.stream("GET", f"/api/events/{gid}", headers=h))
            assert r.status_code == 200
            self.lines.append(r.iter_lines())
            self.next(n)  # the first update (from the database)
            for m in range(n):  # this seat's arrival shows on the others' streams
                assert self.next(m)["state"]["seats"][n]["joined"] is True

    def next(self, seat: int) -> dict[str, Any]:
        """The seat's next update, the raw text's secrets checked by the caller through ``raw``."""
        for line in self.lines[seat]:
            if line.startswith("data:"):
                self.raw = line[5:]
                return json.loads(self.raw)
        raise AssertionError("the stream ended")


def same_as_database(client, gid: str, h: dict[str, str], up: dict[str, Any], since: int) -> None:
    """``up`` (a stream's update built from the shared snapshot) is what this seat reads from the database."""
    read = client.get(f"/api/games/{gid}", headers=h).json()
    assert up["state"] == {k: v for k, v in read.items() if k != "moves"}
    fresh = first_update(client, gid, h, after=since)
    assert up["events"] == fresh["events"] and up["state"] == fresh["state"]


def test_each_stream_builds_its_own_seats_liars_update_from_the_shared_snapshot(client, db_url):
    gid, j, heads = new(client, game="liars", players=4, dice=1, people=2,
                       opponents=["random", "probabilistic"])  # the rules of test_web_friends' game: one build
    hub = client.app.state.hub
    rng = np.random.default_rng(22)
    with ExitStack() as stack:
        streams = Streams(stack, client, gid, heads)
        shared0, since, moves = hub.shared, [0, 0], 0
        st = j["state"]
        while st["status"] == "playing":
            seat = next(s for s in (0, 1) if s in st["to_move"])
            cur = client.get(f"/api/games/{gid}", headers=heads[seat]).json()
            r = client.post(f"/api/games/{gid}/moves", json={**human_move(cur, rng), "expected_move": cur["version"]},
                            headers=heads[seat])
            assert r.status_code == 200, r.text
            moves += 1
            st = r.json()["state"]
            game, status, seed = replay(db_url, gid)
            for s, h in enumerate(heads):
                up = streams.next(s)
                assert up["state"]["version"] == st["version"]
                check_seat_state(up["state"], s, game, status, seed)  # its own hand, the called rounds only
                check_records(up["events"], s)  # the other seat's coach numbers blanked
                for path, value in hand_items(up["events"]):  # hands in the records: called rounds' only
                    assert path.endswith("].hands") and value in called_hands(game), (path, value)
                same_as_database(client, gid, h, up, since[s])
                since[s] = up["state"]["version"]
    assert moves >= 2 and st["status"] == "finished"
    assert hub.shared - shared0 == 2 * moves  # every update after a move came through the shared path


def test_a_secret_target_never_reaches_the_other_stream_through_the_shared_path(client, db_url):
    gid, j, (a, b) = new(client, game="simpig", goal=30, players=3, people=2, opponent="hold:5", coach=True)
    hub = client.app.state.hub
    v = j["state"]["version"]
    secret = 17  # A's target: a number no bot of this game picks
    with ExitStack() as stack:
        streams = Streams(stack, client, gid, [a, b])
        shared0 = hub.shared
        r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": secret, "expected_move": v}, headers=a)
        assert r.status_code == 200 and r.json()["events"] == []
        ua = streams.next(0)
        assert ua["state"]["your_choice"] == {"target": secret}
        ub = streams.next(1)  # B learns that A has chosen, never what
        assert ub["events"] == [] and "your_choice" not in ub["state"] and ub["state"]["seats"][0]["chosen"] is True
        text = json.dumps({"events": ub["events"], **{k: v for k, v in ub["state"].items()
                                                      if k not in ("legal_actions", "coach_view")}})  # B's own offers
        assert f'"target":{secret}' not in text.replace(" ", "") and f"target {secret}" not in text
        same_as_database(client, gid, b, ub, v)
        same_as_database(client, gid, a, ua, v)
        # B's choice plays the turn: every target at once, on both streams
        r = client.post(f"/api/games/{gid}/moves", json={"action": "target", "k": 4, "expected_move": v}, headers=b)
        assert r.status_code == 200, r.text
        for seat, h in ((0, a), (1, b)):
            up = streams.next(seat)
            assert {(e["player"], e["action"]["target"]) for e in up["events"]} == {(0, secret), (1, 4), (2, 5)}
            check_records(up["events"], seat)
            same_as_database(client, gid, h, up, v)
    assert hub.shared - shared0 == 4


def test_a_move_made_by_another_process_reaches_the_streams_from_the_database(client, db_url, monkeypatch):
    """Two labs on one database (two processes, each its own hub): a move made through the other lab
    wakes no stream here; the streams read it from the database at their next look, and the next move
    made here comes through the shared path again, with no record lost or sent twice."""
    import dicelab.web.people as people_mod

    from dicelab.web.app import create_app

    monkeypatch.setattr(people_mod, "HEARTBEAT_S", 0.3)  # the streams' look at the database, sooner
    gid, j, heads = new(client, game="pig", goal=100, people=2)
    hub = client.app.state.hub
    got: list[list[int]] = [[], []]
    with ExitStack() as stack, PoliteClient(create_app(db_url, warm=False)) as other:
        streams = Streams(stack, client, gid, heads)
        st = j["state"]
        for lab, shared in ((client, 2), (other, 0), (client, 2)):
            before = hub.shared
            seat = st["to_move"][0]
            r = lab.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": st["version"]},
                         headers=heads[seat])
            assert r.status_code == 200, r.text
            st = r.json()["state"]
            for s, h in enumerate(heads):
                up = streams.next(s)
                assert up["state"]["version"] == st["version"]
                same_as_database(client, gid, h, up, up["events"][0]["seq"])
                got[s] += [e["seq"] for e in up["events"]]
            assert hub.shared - before == shared  # the other lab's move: from the database
    assert got == [list(range(3)), list(range(3))]
