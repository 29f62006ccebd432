"""A real browser (Debian's Chromium through Playwright) plays a whole game of Pig by clicking.

It ticks the coach and the study, is stopped until it ticks the consent, fills seed 002's
questionnaire, plays to the end against a bot at goal 20, and then checks that the game, every
decision and every turn are in the database, on the analysis page (opened with the researcher key,
plots and all, under the Content-Security-Policy) and in the CSV and Parquet exports.
"""

from __future__ import annotations

import io
import re
import sqlite3

import httpx
import pyarrow.parquet as pq
import pytest

from tests.web.browsing import board_after_start

pytestmark = pytest.mark.browser

# the move buttons are back, or the game is over (a selector: the CSP forbids evaluating strings)
READY = "#roll[aria-disabled=false], #status[data-state=finished]"
# bots' moves are shown at once in these tests (the page's reveal delay, read from localStorage)
INSTANT = "localStorage.setItem('dicelab-reveal-ms', '0')"


def test_play_whole_pig_game_with_coach_and_questionnaire(browser, server_factory, tmp_path, admin):
    db = tmp_path / "browser.sqlite"
    server = server_factory(f"sqlite:///{db}")
    server.start()
    page = browser.new_page()
    page.add_init_script(INSTANT)
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
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
    assert "what the study records" in page.inner_text("#consent-text").lower()
    page.click("#start")  # without the consent ticked the form does not start a game
    assert "consent" in page.inner_text("#setup-error")
    assert page.is_hidden("#board")
    page.check("#consent")
    page.click("#start")
    board_after_start(page)

    # the coach shows both actions' win probabilities before the first move
    page.wait_for_selector("#coach-roll")
    p_roll = float(page.inner_text("#coach-roll").rstrip("%")) / 100
    p_hold = float(page.inner_text("#coach-hold").rstrip("%")) / 100
    assert 0 < p_hold < p_roll < 1  # at 0-0-0 holding is a skip: rolling is far better
    assert page.inner_text("#coach-best") == "roll"

    clicks = 0
    while page.get_attribute("#status", "data-state") != "finished":
        assert clicks < 400, "the game did not end"
        page.wait_for_selector(READY)
        if page.get_attribute("#status", "data-state") == "finished":
            break
        turn_total = int(page.inner_text("#turn-total"))
        page.click("#hold" if turn_total >= 6 else "#roll")
        clicks += 1
        page.wait_for_selector(READY)
    assert re.search(r"win", page.inner_text("#status"))
    summary = page.inner_text("#summary")
    assert "decisions" in summary and "given away" in summary
    assert "Your last move" in page.inner_text("#coach-last")
    assert not errors

    game_id = page.evaluate("lab.gameId()")
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

    # the analysis page asks for the researcher key, then shows the numbers and plots and links the
    # exports; they hold this game's decisions
    page.goto(server.url + "/analysis")
    assert page.query_selector("#counts") is None
    page.fill("#admin-key", "wrong-key-123")
    page.click("#key-open")
    page.wait_for_selector("#key-error:has-text('wrong')")
    page.fill("#admin-key", admin["X-Admin-Key"])
    page.click("#key-open")
    page.wait_for_selector("#counts")
    assert "1 with the questionnaire" in page.inner_text("#counts")
    page.wait_for_selector("body[data-study=shown]")  # every plot fetched with the key, shown from a blob: URL
    page.wait_for_function("() => [...document.querySelectorAll('#study img')].every((i) => i.naturalWidth > 0)")
    assert page.eval_on_selector_all("#study img", "els => els.length") == 4
    with page.expect_download() as dl:
        page.click("#export-turns-csv")
    assert dl.value.suggested_filename == "dicelab-turns.csv"
    assert open(dl.value.path()).read().count(game_id) == n_turns
    page.reload()  # the key stays in this tab
    page.wait_for_selector("#counts")
    href = page.get_attribute("#export-moves-parquet", "href")
    assert httpx.get(server.url + href).status_code == 401
    moves = pq.read_table(io.BytesIO(httpx.get(server.url + href, headers=admin).content)).to_pylist()
    assert sum(1 for m in moves if m["game_id"] == game_id and m["actor"] == "human") == clicks
    csv_text = httpx.get(server.url + page.get_attribute("#export-turns-csv", "href"), headers=admin).text
    assert csv_text.count(game_id) == n_turns
    assert not errors


def test_play_hog_in_the_browser(browser, server_factory, tmp_path):
    # Hog's own page (issue 21): a score panel, "Roll N dice" buttons, the dice, a 1 scoring nothing
    # said in words; no raw state (JSON, the share id) and no "winner 1" anywhere on the board
    db = tmp_path / "hog.sqlite"
    server = server_factory(f"sqlite:///{db}")
    server.start()
    page = browser.new_page()
    page.add_init_script(INSTANT)
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(server.url + "/")
    page.click("text=Play Hog")
    page.fill("[data-rule=goal]", "30")
    page.select_option("#opponent", "optimal")
    page.check("#coach")
    page.click("#start")
    board_after_start(page)
    # one button per number of dice (1 to 10), each with the coach's exact chance to win
    labels = [page.inner_text(f"#action-{n}") for n in range(10)]
    assert [lab.split(" (")[0] for lab in labels] == ["Roll 1 die"] + [f"Roll {n} dice" for n in range(2, 11)]
    assert all(lab.endswith("%)") for lab in labels)
    assert page.inner_text("#score-human") == "0" and page.inner_text("#score-bot") == "0"
    clicks = 0
    ready = "#action-0[aria-disabled=false], #status[data-state=finished]"
    while page.get_attribute("#status", "data-state") != "finished":
        assert clicks < 200, "the game did not end"
        page.wait_for_selector(ready)
        if page.get_attribute("#status", "data-state") == "finished":
            break
        page.click("#action-3")  # always four dice
        clicks += 1
        page.wait_for_selector(ready)
    assert page.inner_text("#status") in ("You win!", "The bot wins.")  # one bot: "the bot", not "a bot"
    assert "decisions" in page.inner_text("#summary")
    board, log = page.inner_text("#board"), page.inner_text("#log")
    game_id = page.evaluate("lab.gameId()")
    share = page.evaluate("location.hash.slice(1)")
    assert "." in share and share not in board and game_id not in board
    assert share not in log and game_id not in log
    assert not re.search(r"scores \[|last \{|winner \d|share id|\{\"", board), board
    # every roll in words: "You rolled 4 dice: 3 5 6 2 - 16 points (score 16)" or "... - a 1, scores nothing"
    lines = page.eval_on_selector_all("#log li", "ls => ls.map((l) => l.textContent)")
    assert len(lines) >= clicks
    for line in lines:
        m = re.match(r"(You|Bot) rolled (\d+) (die|dice): ([1-6](?: [1-6])*) \u2014 (a 1, scores nothing|(\d+) points)", line)
        assert m, line
        faces = [int(x) for x in m.group(4).split()]
        assert len(faces) == int(m.group(2))
        assert (1 in faces) == (m.group(5) == "a 1, scores nothing")
        assert 1 in faces or int(m.group(6)) == sum(faces)
    assert int(page.inner_text("#score-human")) >= 30 or int(page.inner_text("#score-bot")) >= 30
    assert not errors
    con = sqlite3.connect(db)
    assert con.execute("select game, status from games where id=?", (game_id,)).fetchone() == ("hog", "finished")
    human = con.execute("select action_json, p_lost from moves where game_id=? and actor='human'", (game_id,)).fetchall()
    assert len(human) == clicks and all(a == '{"dice": 4}' and p is not None for a, p in human)


@pytest.mark.parametrize("game, setup, moves", [
    ("simpig", [("fill", "#goal", "30"), ("check", "#coach", None)], [["#go"]] * 3),
    ("supersix", [("check", "#coach", None)], [["#throw"]] * 4),
    # open with a bid; then call the bot's raise, or open the next round if the bot called at once
    ("liars", [("select", "#players", "2")], [["#raise"], ["#call", "#raise"]]),
])
def test_the_other_game_pages_play_without_script_errors(browser, server_factory, tmp_path, game, setup, moves):
    server = server_factory(f"sqlite:///{tmp_path / 'pages.sqlite'}")
    server.start()
    page = browser.new_page()
    page.add_init_script(INSTANT)
    page.set_default_timeout(60_000)  # the first game builds its bot's tables (numba compiles on a busy machine)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
            if r.status >= 400 else None)
    page.goto(f"{server.url}/play/{game}")
    for kind, sel, value in setup:
        {"fill": page.fill, "select": page.select_option}.get(kind, lambda s, v: page.check(s))(sel, value)
    page.click("#start")
    board_after_start(page)
    played = 0
    for choices in moves:
        if page.get_attribute("#status", "data-state") == "finished":
            break
        page.wait_for_selector(", ".join(f"{c}[aria-disabled=false]" for c in choices) + ", #status[data-state=finished]")
        if page.get_attribute("#status", "data-state") == "finished":
            break
        page.click(next(c for c in choices if page.get_attribute(c, "aria-disabled") == "false"))
        played += 1
        page.wait_for_function("() => document.querySelector('#log').children.length > 0")
    assert played and page.inner_text("#log").strip()
    assert page.inner_text("#move-error") == "", page.inner_text("#move-error")
    assert not errors, errors
