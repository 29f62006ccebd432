"""The web lab's puzzles API and pages: a question shows no values, an answer shows them all,
bad input is a 4xx sentence, a damaged set is reported in one line and the lab goes on without
puzzles, the start page carries today's puzzle."""

from __future__ import annotations

import html
import json
from datetime import datetime, timezone

import pytest

from dicelab.core import puzzles as pz
from dicelab.web.app import create_app
from tests.web.conftest import PoliteClient

SHIPPED = {p["id"]: p for p in pz.load()["puzzles"]}


def test_listing_question_and_answers(client):
    d = client.get("/api/puzzles").json()
    assert {p["id"] for p in d["puzzles"]} == set(SHIPPED) and d["problem"] is None
    today = pz.of_the_day(list(SHIPPED.values()), datetime.now(timezone.utc).date())
    assert d["daily"] == today["id"]
    for pid in list(SHIPPED)[::15]:
        p = SHIPPED[pid]
        q = client.get(f"/api/puzzles/{pid}").json()
        assert q["question"] == p["question"] and len(q["choices"]) == len(p["moves"])
        text = json.dumps(q)
        assert set(q) == {"id", "game", "title", "setting", "question", "board", "rating", "kind", "choices"}
        assert not any(str(m["value"])[:8] in text for m in p["moves"])  # nothing given away
        assert p["why"] not in text
        wrong = next(m for m in p["moves"] if not pz.same(m["action"], p["best"]))
        a = client.post(f"/api/puzzles/{pid}/answer", json={"action": wrong["action"]}).json()
        assert a["right"] is False and a["lost"] == pytest.approx(max(m["value"] for m in p["moves"]) - wrong["value"])
        assert a["moves"][0]["action"] == p["best"] and a["why"] == p["why"]
        a = client.post(f"/api/puzzles/{pid}/answer", json={"action": p["best"]}).json()
        assert a["right"] is True and a["lost"] == 0.0


def test_bad_input_is_a_sentence(client):
    pid = next(iter(SHIPPED))
    r = client.post(f"/api/puzzles/{pid}/answer", json={"action": {"dice": 99}})
    assert r.status_code == 422 and "not one of this puzzle's choices" in r.json()["detail"]
    r = client.post(f"/api/puzzles/{pid}/answer", json={"action": "roll", "extra": 1})
    assert r.status_code == 422
    r = client.get("/api/puzzles/pig-nothere")
    assert r.status_code == 404 and r.json()["detail"].startswith("No puzzle 'pig-nothere'")
    assert client.get("/api/puzzles/" + "x" * 41).status_code == 422
    assert client.post("/api/puzzles/pig-nothere/answer", json={"action": "roll"}).status_code == 404


def test_pages_and_the_start_page_card(client):
    pid = next(iter(SHIPPED))
    listing = client.get("/puzzles")
    assert listing.status_code == 200
    # the list names puzzles in words (setting and number), not by the id's hash
    assert "Pig to 100, puzzle 1</a>" in listing.text
    assert not any(f">Puzzle {pid.split('-')[-1]}<" in listing.text for pid in SHIPPED)
    page = client.get(f"/puzzles/{pid}")
    assert page.status_code == 200 and f'data-id="{pid}"' in page.text
    missing = client.get("/puzzles/nope")
    assert missing.status_code == 404 and "There is no puzzle called" in missing.text
    daily = client.get("/api/puzzles").json()["daily"]
    start = client.get("/").text
    assert "Puzzle of the day" in start and f'href="/puzzles/{daily}"' in start
    # the page escapes HTML (an apostrophe is &#39;: "Liar's Dice" on the days its puzzle comes up)
    assert SHIPPED[daily]["question"].split(":")[0] in html.unescape(start)


def test_a_damaged_set_is_one_line_and_the_lab_goes_on(tmp_path, caplog):
    path = tmp_path / "set.json"
    path.write_text(pz.SHIPPED.read_text().replace('"seed":1', '"seed":2', 1))
    with PoliteClient(create_app(f"sqlite:///{tmp_path / 'lab.sqlite'}", warm=False, puzzle_set=path)) as c:
        d = c.get("/api/puzzles").json()
        assert d["puzzles"] == [] and d["daily"] is None
        assert "damaged" in d["problem"] and "\n" not in d["problem"]
        assert "damaged" in c.get("/puzzles").text
        assert "Puzzle of the day" not in c.get("/").text
        assert c.get("/healthz").json()["status"] == "ok"
        assert c.get(f"/api/puzzles/{next(iter(SHIPPED))}").status_code == 404
    assert sum("could not be read" in r.message for r in caplog.records) == 1
