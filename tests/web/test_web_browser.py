"""A real browser (Debian's Chromium through Playwright) plays a whole game of Pig by clicking.

It ticks the coach and the study, fills seed 002's questionnaire, plays to the end against a bot at
goal 20, and then checks that the game, every decision and every turn are in the database and in
the CSV and Parquet exports.
"""

from __future__ import annotations

import io
import re
import shutil
import sqlite3

import httpx
import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture()
def browser():
    if shutil.which(CHROMIUM) is None:
        pytest.fail("Chromium is missing: `make test` installs it with apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def test_play_whole_pig_game_with_coach_and_questionnaire(browser, server_factory, tmp_path):
    db = tmp_path / "browser.sqlite"
    server = server_factory(f"sqlite:///{db}")
    server.start()
    page = browser.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.click("text=Play Pig")
    page.fill("#goal", "20")
    page.select_option("#opponent", "optimal")
    page.select_option("#first", "human")
    page.check("#coach")
    page.check("#study")
    page.check("input[name=risk_preference][value=neutral]")
    page.check("input[name=q2][value=a]")
    page.check("input[name=q3][value=b]")
    page.fill("#participant", "browser-test")
    page.click("#start")
    page.wait_for_selector("#board:not([hidden])")

    # the coach shows both actions' win probabilities before the first move
    page.wait_for_selector("#coach-roll")
    p_roll = float(page.inner_text("#coach-roll").rstrip("%")) / 100
    p_hold = float(page.inner_text("#coach-hold").rstrip("%")) / 100
    assert 0 < p_hold < p_roll < 1  # at 0-0-0 holding is a skip: rolling is far better
    assert page.inner_text("#coach-best") == "roll"

    clicks = 0
    while page.get_attribute("#status", "data-state") != "finished":
        assert clicks < 400, "the game did not end"
        page.wait_for_function("!document.getElementById('roll').disabled || "
                               "document.getElementById('status').dataset.state === 'finished'")
        if page.get_attribute("#status", "data-state") == "finished":
            break
        turn_total = int(page.inner_text("#turn-total"))
        page.click("#hold" if turn_total >= 6 else "#roll")
        clicks += 1
        page.wait_for_function("!document.getElementById('roll').disabled || "
                               "document.getElementById('status').dataset.state === 'finished'")
    assert re.search(r"win", page.inner_text("#status"))
    summary = page.inner_text("#summary")
    assert "decisions" in summary and "given away" in summary
    assert "Your last move" in page.inner_text("#coach-last")
    assert not errors

    game_id = page.evaluate("location.hash.slice(1)")
    con = sqlite3.connect(db)
    row = con.execute("select status, risk_preference, q2, q3, participant, coach from games where id=?",
                      (game_id,)).fetchone()
    assert row == ("finished", "neutral", "a", "b", "browser-test", 1)
    human = con.execute("select count(*) from moves where game_id=? and actor='human'", (game_id,)).fetchone()[0]
    assert human == clicks
    assert con.execute("select count(*) from moves where game_id=? and actor='human' and p_lost is null",
                       (game_id,)).fetchone()[0] == 0
    n_turns = con.execute("select count(*) from turns where game_id=?", (game_id,)).fetchone()[0]
    assert n_turns >= 2

    # the analysis page links the exports; they hold this game's decisions
    page.goto(server.url + "/analysis")
    assert "1 with the questionnaire" in page.inner_text("#counts")
    href = page.get_attribute("#export-moves-parquet", "href")
    moves = pq.read_table(io.BytesIO(httpx.get(server.url + href).content)).to_pylist()
    assert sum(1 for m in moves if m["game_id"] == game_id and m["actor"] == "human") == clicks
    csv_text = httpx.get(server.url + page.get_attribute("#export-turns-csv", "href")).text
    assert csv_text.count(game_id) == n_turns
