"""Two people in two browsers (two Playwright contexts: nothing shared, as two machines) play whole
games with each other (issue 22): Pig, simultaneous Pig and Liar's Dice with two people and a bot,
Hog and Super Six. One lab server (SQLite) and one browser serve the whole module.

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
from datetime import datetime, timedelta
from typing import Any

import pytest

from dicelab.liars.rules import Bid, LiarsGame, LiarsRules
from tests.web.browsing import board_after_start

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One ``dicelab serve`` for the module's games (each test starts its own games in it)."""
    from tests.web.conftest import Server

    d = tmp_path_factory.mktemp("friends")
    server = Server(f"sqlite:///{d / 'lab.sqlite'}", d / "server.log")
    server.db = d / "lab.sqlite"
    server.start()
    yield server
    server.stop()

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


def open_page(browser, url: str, setup=None):
    ctx = browser.new_context()
    if setup is not None:  # e.g. routes of this browser only
        setup(ctx)
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


def start_with_friend(browser, server, game: str, fill: dict[str, str], people: str = "2", friend_setup=None):
    """The creator's page starts a game for ``people``; the friend opens the seat link (in a browser
    prepared by ``friend_setup(context)``)."""
    ca, a, ea = open_page(browser, server.url + f"/play/{game}")
    for sel, value in fill.items():
        if a.locator(sel).evaluate("e => e.tagName") == "SELECT":
            a.select_option(sel, value)
        else:
            a.fill(sel, value)
    a.select_option("#people", people)
    a.click("#start")
    board_after_start(a, server.log)  # a first game may build its bots' tables; the reason if it never comes
    link = a.input_value("#invite-links input")
    assert re.fullmatch(re.escape(server.url) + rf"/play/{game}#seat=[\w-]+\.[\w-]+", link)
    cb, b, eb = open_page(browser, link, friend_setup)
    # as long as the creator's: on a fresh clone the friend's first page may be the one that waits for
    # compiled code (CI once timed out here at 20 s, Super Six, both cores busy with the suite)
    b.wait_for_selector("#board:not([hidden])", timeout=120_000)
    assert "seat=" not in b.evaluate("location.hash")  # the token does not stay in the address
    return (ca, a, ea), (cb, b, eb), link


def my_seat(page) -> int:
    """The seat the page's players panel names "You"."""
    return int(page.evaluate("[...document.querySelectorAll('#people-list li')]"
                             ".find((li) => /: You( |$)/.test(li.textContent)).dataset.seat"))


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


def test_two_people_play_pig(browser, lab):
    server = lab
    (ca, a, ea), (cb, b, eb), link = start_with_friend(browser, server, "pig", {"#goal": "20"})
    # the creator sees the friend arrive at once (woken, not at the stream's 15 s heartbeat)
    a.wait_for_selector("#people-list li[data-seat='1']:has-text('joined')", timeout=8_000)
    seat_b = my_seat(b)
    moves, back = 0, False
    while a.get_attribute("#status", "data-state") != "finished":
        if moves >= 4 and not back:
            back = True  # the friend closes the tab, and comes back through the seat link in a new browser
            cb.close()
            assert not eb, eb
            (cb, b, eb) = open_page(browser, link)
            b.wait_for_selector("#board:not([hidden])")
            assert my_seat(b) == seat_b and "Your friend" in b.inner_text("#people-list")
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
    a.wait_for_function("() => location.hash.length > 1 && !document.querySelector('#board').hidden")
    b.wait_for_selector("#rematch-join:not([hidden])")
    b.click("#rematch-join")
    b.wait_for_function("(id) => location.hash.slice(1) === id", arg=a.evaluate("location.hash.slice(1)"))
    b.wait_for_selector("#board:not([hidden])")
    rows = b.locator("#people-list li").all_inner_texts()
    assert [r.split(": ", 1)[1][:11] for r in rows] in (["You", "Your friend"], ["Your friend", "You"]), rows
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()


def hand_items(obj: Any, path: str = ""):
    """Every value under a key that names a hand (hand, hands), with its path."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("hand", "hands") and isinstance(v, list):
                yield f"{path}.{k}", v
            yield from hand_items(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for n, v in enumerate(obj):
            yield from hand_items(v, f"{path}[{n}]")


def liars_truth(db: str, gid: str) -> LiarsGame:
    """The game as it really is, every hand, replayed from the database by the engine."""
    con = sqlite3.connect(db)
    try:
        seed, rules = con.execute("select seed, rules_json from games where id=?", (gid,)).fetchone()
        game = LiarsGame(LiarsRules(**json.loads(rules)), seed)
        for player, action in con.execute("select player, action_json from moves where game_id=? order by seq", (gid,)):
            a = json.loads(action)
            game.apply(None if a == "call" else Bid(*a["bid"]), player)
    finally:
        con.close()
    return game


def check_liars_page(page, seat: int, game: LiarsGame, updates: list[Any]) -> None:
    """What one person's page received and shows: its own live hand, the hands of called rounds,
    and no other live hand."""
    called = [r.to_dict()["hands"] for r in game.record.rounds]
    live = {} if game.is_over else {p: list(h) for p, h in enumerate(game.hands) if h}
    for u in updates:
        for path, value in hand_items(u):
            if path.endswith(".hands"):  # the cups of a called round (a call's public event, the rounds)
                assert value in called, (path, value)
            else:  # a seat's own hand: this seat's, of this round or of a round called since
                assert value == [] or value == live.get(seat) or any(value == h[seat] for h in called), (path, value)
    # on screen: dice only in the reader's own cup (and in the lifted cups of a called round)
    for p in live:
        if p != seat:
            assert page.locator(f"#cups #cup-{p} svg.die").count() == 0, f"seat {p}'s dice on seat {seat}'s screen"
    if seat in live and not game.is_over:
        shown = [int(re.sub(r"\D", "", t)) for t in page.locator(f"#cups #cup-{seat} svg.die title").all_text_contents()]
        # the live hand, or (while the page still paces the reveal of the round just called) the
        # reader's own hand of a called round; never another
        assert not shown or sorted(shown) == sorted(live[seat]) or any(sorted(shown) == sorted(h[seat]) for h in called), \
            (shown, live[seat])


def test_two_people_and_a_bot_play_liars_dice(browser, lab):
    server, db = lab, lab.db
    (ca, a, ea), (cb, b, eb), _ = start_with_friend(browser, server, "liars",
                                                 {"#players": "3", "#dice": "1", "#opponent": "random"})
    gid = a.evaluate("location.hash.slice(1)").split(".")[0]  # the address: #<share id> = <id>.<signature>
    seat_of = {id(p): my_seat(p) for p in (a, b)}
    assert len(set(seat_of.values())) == 2
    moves = calls = 0
    while a.get_attribute("#status", "data-state") != "finished":
        page = turn_of((a, b), "#raise", timeout=30)
        if page is None:
            break
        truth = liars_truth(str(db), gid)
        for p in (a, b):
            p.wait_for_timeout(0)
            check_liars_page(p, seat_of[id(p)], truth, seen(p))
        bid = page.inner_text("#bid")
        if bid != "none yet" and (moves % 3 == 2 or page.locator("#raise").get_attribute("aria-disabled") == "true"):
            page.click("#call")
            calls += 1
        else:
            page.click("#raise")  # the form holds the smallest raise
        moves += 1
        assert moves < 300
    b.wait_for_selector("#status[data-state=finished]")
    truth = liars_truth(str(db), gid)
    assert truth.is_over and len(truth.record.rounds) >= 2
    for p in (a, b):
        check_liars_page(p, seat_of[id(p)], truth, seen(p))
    assert "wins" in a.inner_text("#status") or "You win" in a.inner_text("#status")
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()


def test_two_people_play_simultaneous_pig_with_secret_targets(browser, lab):
    server = lab
    (ca, a, ea), (cb, b, eb), _ = start_with_friend(browser, server, "simpig", {"#goal": "30", "#players": "2"})
    turns = 0
    while a.get_attribute("#status", "data-state") != "finished":
        a.wait_for_selector("#go[aria-disabled=false], #status[data-state=finished]")
        b.wait_for_selector("#go[aria-disabled=false], #status[data-state=finished]")
        if a.get_attribute("#status", "data-state") == "finished":
            break
        seen(a), seen(b)
        first, second = (a, b) if turns % 2 == 0 else (b, a)
        k1, k2 = 5 + turns % 3, 7 - turns % 3
        # near the goal the page takes targets only up to goal - score (its input's max)
        k1 = min(k1, int(first.get_attribute("#target", "max") or k1))
        k2 = min(k2, int(second.get_attribute("#target", "max") or k2))
        first.fill("#target", str(k1))
        first.click("#go")
        first.wait_for_function("(t) => document.querySelector('#status').textContent.startsWith(t)",
                                arg=f"You chose target {k1} (secret")
        assert first.get_attribute("#go", "aria-disabled") == "true"
        # the second person learns that the first has chosen, never what
        second.wait_for_selector("#scores td:text-is('chosen')")
        assert f"{k1} (secret)" not in second.inner_text("#scores")
        for u in seen(second):
            if not isinstance(u, dict):
                continue
            st = u.get("state", u)
            assert "your_choice" not in st, st  # the second has not chosen: nothing of the first's choice
            assert not [r for r in u.get("events", []) if r.get("seq", -1) >= st.get("version", 0)], u
        second.fill("#target", str(k2))
        second.click("#go")
        # both pages now show the turn: both targets, each on both screens
        for p in (a, b):
            p.wait_for_function("() => document.querySelectorAll('#scores td .tray').length === 2 || "
                                "document.querySelector('#status').dataset.state === 'finished'")
        turns += 1
        assert turns < 40
    b.wait_for_selector("#status[data-state=finished]")
    assert {a.inner_text("#status"), b.inner_text("#status")} <= {"You win!", "Your friend wins.", "You share the win!"}
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()


@pytest.mark.parametrize("game, fill, control", [
    ("hog", {".rule[data-rule=goal]": "12", ".rule[data-rule=max_dice]": "3"}, "#action-1"),
    ("supersix", {"#sticks": "2"}, "#throw"),
])
def test_two_people_play_hog_and_super_six(browser, lab, game, fill, control):
    """The other pages with their own board: the invite block is on the form, only the page of the
    person to move offers a move, and each sees the other's moves arrive, named as the friend's."""
    (ca, a, ea), (cb, b, eb), _ = start_with_friend(browser, lab, game, fill)
    made = [0, 0]  # moves made on each page
    while a.get_attribute("#status", "data-state") != "finished":
        page = turn_of((a, b), control)
        if page is None:
            break
        page.click(control)
        made[0 if page is a else 1] += 1
        assert sum(made) < 300
    for p in (a, b):
        p.wait_for_selector("#status[data-state=finished]")
    assert {a.inner_text("#status"), b.inner_text("#status")} == {"You win!", "Your friend wins."}
    # the friend's moves reached each page live: in its move list, under the friend's name (a
    # first turn can end the game, 6 6 at Hog to 12: then the other person never moved)
    for k, p in enumerate((a, b)):
        if made[1 - k]:
            assert re.search(r"Your friend (rolled|threw|stopped)", p.inner_text("#log")), p.inner_text("#log")
        assert "Bot rolled" not in p.inner_text("#log") and "Bot threw" not in p.inner_text("#log")
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()


# every update the page's follower delivers (stream or polling): when (Date.now()) and the version
ARRIVALS = "window.__arrivals = []; window.addEventListener('dicelab-update', (e) => " \
           "window.__arrivals.push([Date.now(), e.detail.state.version]));"
POLL_S = 3.0  # README: "polling every 3 s only when a stream cannot stay open"


def test_moves_arrive_by_polling_when_the_stream_fails(browser, lab):
    """The friend's browser cannot keep an event stream (every /api/events request fails, as behind
    a proxy that drops them): its page falls back to reading the game every 3 s, soon, and the
    creator's moves still arrive, within one poll."""
    def no_stream(ctx):
        ctx.route("**/api/events/**", lambda route: route.abort())
        ctx.add_init_script(ARRIVALS)

    (ca, a, ea), (cb, b, eb), _ = start_with_friend(browser, lab, "pig", {"#goal": "100", "#first": "human"},
                                                    friend_setup=no_stream)
    t_open = time.time()
    b.wait_for_selector("body[data-following=polling]", timeout=10_000)
    onset = time.time() - t_open
    assert onset < 6.0, f"the page polls only {onset:.1f} s after its stream failed"
    a.wait_for_selector("#roll[aria-disabled=false]")
    b.wait_for_function("() => window.__arrivals.length > 0")  # the first poll: right at the fall-back
    before = b.evaluate("Math.max(...window.__arrivals.map((x) => x[1]))")
    t0 = time.time()
    a.click("#roll")  # the creator's move: the friend's page has it at its next poll
    b.wait_for_function("(v) => window.__arrivals.some((x) => x[1] > v)", arg=before, timeout=2 * POLL_S * 1000 + 5000)
    got = b.evaluate("(v) => window.__arrivals.find((x) => x[1] > v)[0]", before) / 1000
    assert got - t0 < POLL_S + 1.5, f"the move reached the polling page after {got - t0:.1f} s"
    assert "Your friend rolled" in b.inner_text("#log")  # and the page shows it
    # the pace: a read every 3 s (plus the read's own time), not faster, not slower
    times = [t for t, _ in b.evaluate("window.__arrivals")]
    gaps = [(y - x) / 1000 for x, y in zip(times, times[1:])]
    assert gaps and all(POLL_S - 0.2 < g < POLL_S + 1.5 for g in gaps), gaps
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()


def backdate(db, gid: str, seconds: float) -> datetime:
    """Move the game's last change ``seconds`` into the past (as if the person to move had idled);
    the new time."""
    con = sqlite3.connect(db, timeout=10)
    try:
        (at,) = con.execute("select updated_at from games where id=?", (gid,)).fetchone()
        old = datetime.fromisoformat(at) - timedelta(seconds=seconds)
        con.execute("update games set updated_at=? where id=?", (old.isoformat(sep=" "), gid))
        con.commit()
    finally:
        con.close()
    return old


def test_idle_seat_goes_to_a_bot_after_the_creators_limit(browser, lab):
    """The creator picks "a bot takes their seat after 1 minute" and then does not move: a minute
    after the last change the friend's open page hands the seat to the bot (no reload: its stream
    wakes at the deadline), and both pages say so in plain words. The minute is made short by
    moving the game's last change 57 s into the past before the friend opens the link."""
    ca, a, ea = open_page(browser, lab.url + "/play/pig")
    a.fill("#goal", "100")
    a.select_option("#first", "human")
    a.select_option("#people", "2")
    a.select_option("#idle", "60")
    a.click("#start")
    a.wait_for_selector("#board:not([hidden])", timeout=120_000)
    link = a.input_value("#invite-links input")
    gid = a.evaluate("location.hash.slice(1)").split(".")[0]
    con = sqlite3.connect(lab.db)
    try:
        assert con.execute("select idle_s from games where id=?", (gid,)).fetchone() == (60,)  # the menu's choice
    finally:
        con.close()
    a.wait_for_selector("#roll[aria-disabled=false]")  # the creator is to move, and idles
    idle_from = backdate(lab.db, gid, 57)
    cb, b, eb = open_page(browser, link)
    b.wait_for_selector("#board:not([hidden])")
    creator = f"#people-list li[data-seat='{my_seat(a)}']"
    # the friend's page: the creator's seat is now the bot's, and why
    b.wait_for_function("(sel) => /Your friend\u2019s bot \\(a bot took the seat: idle too long\\)/"
                        ".test(document.querySelector(sel).textContent)", arg=creator, timeout=15_000)
    # the creator's page: told in a sentence, and offered no move
    a.wait_for_function("() => document.querySelector('#people-status').textContent === "
                        "'A bot took over your seat after you were idle; you can follow the game.'")
    assert a.get_attribute("#roll", "aria-disabled") == "true"
    # not before the limit: the hand-over came at least 60 s after the (moved) last change
    con = sqlite3.connect(lab.db)
    try:
        (handed,) = con.execute("select handed_at from seats where game_id=? and handed_at is not null",
                                (gid,)).fetchone()
    finally:
        con.close()
    assert (datetime.fromisoformat(handed) - idle_from).total_seconds() >= 60
    assert not ea and not eb, (ea, eb)
    ca.close()
    cb.close()
