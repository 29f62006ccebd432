"""Refusals in plain words (dicelab.web.messages): the request checks' findings and the games'
refusals of a move, as one line of sentences that repeats nothing the client sent."""

from __future__ import annotations

import pytest

from dicelab.web.app import create_app
from dicelab.web.messages import illegal_move
from tests.web.conftest import PoliteClient


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("msg") / "lab.db"
    return PoliteClient(create_app(f"sqlite:///{db}"))


@pytest.mark.parametrize("body, want", [
    ({"game": "simpig", "goal": 30, "opponent": "hold:20", "coach": "maybe"}, "The coach setting must be true or false."),
    ({"game": "pig", "goal": 20, "human_first": 3}, "Who starts must be true or false."),
    ({"game": None}, "The game must be text."),
    ({"game": "pig", "questionnaire": {"risk_preference": "bold", "q2": "a", "q3": "a", "consent": True}},
     "The value of risk preference must be 'averse', 'loving' or 'neutral'."),
])
def test_settings_checks_are_sentences(client, body, want):
    r = client.post("/api/games", json=body)
    assert r.status_code == 422
    assert r.json()["detail"] == want
    assert r.json()["errors"] and all(set(e) == {"loc", "msg", "type"} for e in r.json()["errors"])


def test_move_checks_are_sentences(client):
    g = client.post("/api/games", json={"game": "liars", "players": 2, "dice": 2}).json()
    h = {"X-Game-Token": g["token"]}
    r = client.post(f"/api/games/{g['id']}/moves", json={"action": "bid", "quantity": 0, "face": 1, "expected_move": 0},
                    headers=h)
    assert r.json()["detail"] == "Bid at least one die."
    r = client.post(f"/api/games/{g['id']}/moves", json={"action": "call", "expected_move": 0}, headers=h)
    assert r.status_code == 422
    assert r.json()["detail"].startswith("That move is not allowed here: nobody has bid this round; allowed: ")
    r = client.post(f"/api/games/{g['id']}/moves", json={"action": "bid", "expected_move": "x"}, headers=h)
    assert r.json()["detail"] == "The move number must be a whole number."


@pytest.mark.parametrize("message, action, want", [
    ("illegal Pig action 'roll2'; legal: 'roll' or 'hold'", "roll2", "That move is not allowed here; allowed: 'roll' or 'hold'."),
    ("illegal Super Six action 'stop' (this throw is forced); legal: 'throw'", "stop",
     "That move is not allowed here: this throw is forced; allowed: 'throw'."),
    # the move's own words inside the list of what is allowed are the game's, not an echo
    ('illegal Liar\'s Dice action "bid"; legal: {"bid": [quantity, face]}', "bid",
     'That move is not allowed here; allowed: {"bid": [quantity, face]}.'),
    ("the game is over", "roll", "The game is over."),
])
def test_illegal_move_rewords_without_the_move(message, action, want):
    import json
    assert illegal_move(message, action, (repr(str(action)), repr(action), json.dumps(action))) == want
