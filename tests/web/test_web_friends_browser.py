"""Two people in two browsers (two Playwright contexts: nothing shared, as two machines) play whole
games with each other (issue 22): Pig, simultaneous Pig and Liar's Dice with two people and a bot.

The creator ticks "me and a friend" on the setup form, the friend opens the seat link the board
shows, and each plays when its page offers a move; the other's moves arrive without a reload (the
seat's event stream). All along, neither browser may see what the other's seat hides: every update
a page receives (the stream's and the API's answers, caught in the page) and everything on its
screen is checked against the truth, which the test reads from the database and the game engine
(the secret seed and every action), not from the web lab.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from typing import Any

import pytest

from dicelab.liars.rules import Bid, LiarsGame, LiarsRules

pytestmark = pytest.mark.browser

INSTANT = "localStorage.setItem('dicelab-reveal-ms', '0')"
# every JSON answer the page reads (the API's and the event stream's updates), kept for the test
CATCH = """
(() => {
  window.__seen = [];
  const plain = window.fetch;
  window.fetch = async (...args) => {
    const r = await plain(...args);
    const url = String(args[0]);
    if (url.startsWith("/api/") && !url.startsWith("/api/events/")) r.clone().text().then((t) => window.__seen.push(t));
    return r;
  };
  window.addEventListener("dicelab-update", (e) => window.__seen.push(JSON.stringify(e.detail)));
})();
"""


def open_page(browser, url: str):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.add_init_script(INSTANT)
    page.add_init_script(CATCH)
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return ctx, page, errors


def seen(page) -> list[Any]:
    """Every JSON answer and stream update the page has received so far (and forget them)."""
    texts = page.evaluate("(() => { const s = window.__seen; window.__seen = []; return s; })()")
    out = []
    for t in texts:
        try:
            out.append(json.loads(t))
        except ValueError:
            pass
    return out


def start_with_friend(browser, server, game: str, fill: dict[str, str], people: str = "2"):
    """The creator's page starts a game for ``people``; the friend opens the seat link."""
    ca, a, ea = open_page(browser, server.url + f"/play/{game}")
    for sel, value in fill.items():
        if a.locator(sel).evaluate("e => e.tagName") == "SELECT":
            a.select_option(sel, value)
        else:
            a.fill(sel, value)
    a.select_option("#people", people)
    a.click("#start")
    a.wait_for_selector("#board:not([hidden])")
    link = a.input_value("#invite-links input")
    assert re.fullmatch(re.escape(server.url) + rf"/play/{game}#[\w-]+\.[\w-]+", link)
    cb, b, eb = open_page(browser, link)
    b.wait_for_selector("#board:not([hidden])")
    assert "." not in b.evaluate("location.hash")  # the token does not stay in the address
    return (ca, a, ea), (cb, b, eb)


def turn_of(pages, control: str, timeout: float = 20.0):
    """The page that offers a move (its ``control`` is on), after a short wait for one; never two at
    once. None when the game is over on the first page."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pages[0].get_attribute("#status", "data-state") == "finished":
            return None
        on = [p for p in pages if p.get_attribute(control, "aria-disabled") == "false"
              and p.get_attribute("#status", "data-state") != "finished"]
        assert len(on) <= 1, "two pages offer a move at once"
        if on:
            return on[0]
        pages[0].wait_for_timeout(30)
    raise AssertionError("no page offers a move")


def test_two_people_play_pig(browser, server_factory, tmp_path):
    server = server_factory(f"sqlite:///{tmp_path / 'pig.sqlite'}")
    server.start()
    (ca, a, ea), (cb, b, eb) = start_with_friend(browser, server, "pig", {"#goal": "20"})
    a.wait_for_selector("#people-list li[data-seat='1']:has-text('joined')")  # the creator sees the friend arrive
    moves = 0
    while a.get_attribute("#status", "data-state") != "finished":
        page = turn_of((a, b), "#roll")
        if page is None:
            continue
        page.click("#hold" if int(page.inner_text("#turn-total")) >= 5 else "#roll")
        moves += 1
        assert moves < 400
    b.wait_for_selector("#status[data-state=finished]")
    texts = {a.inner_text("#status"), b.inner_text("#status")}
    assert texts == {"You win!", "Your friend wins."}, texts
    # the friend's moves reached each page live, in its move list
    assert "Your friend rolled" in a.inner_text("#log") and "Your friend rolled" in b.inner_text("#log")
    # both see the same scores, each from its own side
    sa = [int(a.inner_text("#score-human")), int(a.inner_text("#score-bot"))]
    sb = [int(b.inner_text("#score-human")), int(b.inner_text("#score-bot"))]
    assert sa == sb[::-1] and max(sa) >= 20
    # rematch: the same two people, a new game; the friend is told and joins it
    a.click("#people-rematch")
    a.wait_for_function("location.hash.length > 1 && !document.querySelector('#board').hidden")
    b.wait_for_selector("#rematch-join:not([hidden])")
    b.click("#rematch-join")
    b.wait_for_function("location.hash.slice(1) === " + json.dumps(a.evaluate("location.hash.slice(1)")))
    b.wait_for_selector("#board:not([hidden])")
    rows = b.locator("#people-list li").all_inner_texts()
    assert [r.split(": ", 1)[1][:11] for r in rows] in (["You", "Your friend"], ["Your friend", "You"]), rows
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()
