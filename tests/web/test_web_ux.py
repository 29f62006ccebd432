"""The web lab as people use it (issue 14), in a real browser (Debian's Chromium through Playwright).

* a whole game of every kind played with the keyboard only (Tab, typing, Enter and the game keys;
  the bots' moves shown at once by the page's setting), focus staying on the move controls, with a
  hint on demand (the "?" key) and the move after it marked in the log;
* a bot's turn announced under a "Bot's turn" banner and revealed move by move, in order and with
  the delay between moves, and skipped with Esc;
* every page at 390 px without horizontal scrolling, and no console error or failed request
  (favicon included) on any page at 390 px or on a desk;
* plain language: bots by name, no seed numbers or bot specs on the pages, errors as sentences,
  the papers credited on the About page, a skip link.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import httpx
import pytest

from tests.web.browsing import board_after_start as wait_for_board

pytestmark = pytest.mark.browser

INSTANT = "localStorage.setItem('dicelab-reveal-ms', '0')"
FINISHED = "#status[data-state=finished]"


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory: pytest.TempPathFactory):
    """One ``dicelab serve`` for this module (games of every kind share its database)."""
    tmp = tmp_path_factory.mktemp("ux")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DICELAB_ADMIN_KEY"}
    env["DICELAB_ADMIN_KEY"] = "ux-test-key-0123"
    SERVER_LOG["path"] = tmp / "server.log"
    log = (tmp / "server.log").open("ab")
    proc = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db",
                             f"sqlite:///{tmp / 'ux.sqlite'}", "--no-warm"], stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, (tmp / "server.log").read_text()[-2000:]
        try:
            if httpx.get(url + "/healthz", timeout=1.0).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


SERVER_LOG: dict = {}  # this module's server log, quoted when a start fails


def board_after_start(page) -> None:
    """The board after Start (:func:`tests.web.browsing.board_after_start`, with this module's server log)."""
    wait_for_board(page, SERVER_LOG.get("path"))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Watch:
    """Console errors, uncaught exceptions and failed requests of a page."""

    def __init__(self, page) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"exception: {e}"))
        page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url}"))
        page.on("response", lambda r: self.errors.append(f"{r.status}: {r.url}") if r.status >= 400 else None)


def new_page(browser, width: int = 1200, instant: bool = True):
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    if instant:
        ctx.add_init_script(INSTANT)
    page = ctx.new_page()
    page.set_default_timeout(60_000)  # a game's first bot may build its tables on a busy machine
    return page, Watch(page)


def focused(page) -> str:
    return page.evaluate("document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ''")


def tab_to(page, selector: str, limit: int = 60) -> None:
    """Press Tab until ``selector`` has the focus (keyboard only: no click, no focus())."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def type_into(page, selector: str, text: str) -> None:
    tab_to(page, selector)
    page.keyboard.press("Control+a")
    page.keyboard.type(text)


# ------------------------------------------------------------------ keyboard only
def _setup(page, game: str) -> None:
    """The setup form, by keyboard: small games so that a whole game stays short."""
    if game == "pig":
        type_into(page, "#goal", "20")
    elif game == "simpig":
        type_into(page, "#goal", "30")  # the bots offered hold at 25
        tab_to(page, "#opponent")
        page.keyboard.type("Aims for")  # the select's type-ahead: "Aims for N every turn", a bot with no tables to build
        assert page.eval_on_selector("#opponent", "s => s.options[s.selectedIndex].text").startswith("Aims for")
    elif game == "supersix":
        type_into(page, "#sticks", "2")
    elif game == "liars":
        tab_to(page, "#players")
        page.keyboard.type("2")
        type_into(page, "#dice", "2")
    elif game == "hog":
        type_into(page, "[data-rule=goal]", "40")
    tab_to(page, "#start")
    page.keyboard.press("Enter")
    board_after_start(page)


def _next_key(page, game: str, n: int) -> str:
    """The key for this position (a simple strategy: no mouse, no script)."""
    if game == "pig":
        return "h" if int(page.inner_text("#turn-total")) >= 8 else ("r" if n % 2 else " ")
    if game == "simpig":
        return "Enter"
    if game == "supersix":
        return "s" if page.get_attribute("#status", "data-state") == "free" else ("t" if n % 2 else " ")
    if game == "liars":
        return "c" if page.get_attribute("#call", "aria-disabled") == "false" and n % 3 else "Enter"
    return "3"  # hog: three dice


# the control that has the focus during play (it must never fall to <body>)
FOCUS = {"pig": {"roll"}, "simpig": {"target"}, "supersix": {"throw"}, "liars": {"quantity"},
         "hog": {"action-2", "action-0"}}
READY = {"pig": "#roll[aria-disabled=false]", "simpig": "#go[aria-disabled=false]",
         "supersix": "#throw[aria-disabled=false]", "liars": "#raise[aria-disabled=false]",
         "hog": "#action-0[aria-disabled=false]"}


@pytest.mark.parametrize("game", ["pig", "simpig", "supersix", "liars", "hog"])
def test_a_whole_game_with_the_keyboard_only(browser, lab_url, game):
    page, watch = new_page(browser)
    page.goto(f"{lab_url}/play/{game}")
    _setup(page, game)
    if game == "simpig":  # type a target, then Enter
        page.keyboard.press("Control+a")
        page.keyboard.type("18")
    presses = 0
    while True:
        page.wait_for_selector(f"{READY[game]}, {FINISHED}")
        if page.get_attribute("#status", "data-state") == "finished":
            break
        assert focused(page) in FOCUS[game], f"focus fell to {focused(page)!r} after {presses} moves"
        assert page.inner_text("#move-error") == "", page.inner_text("#move-error")
        if presses == 0:  # a hint on demand (the coach is off), by its key; the move after it is marked
            page.keyboard.press("?")
            page.wait_for_selector("#hint-box:not([hidden])")
            assert re.match(r"Hint\b.*\d\.\d%|No decision to make here", page.inner_text("#hint-box"))
            assert focused(page) in FOCUS[game]
        page.keyboard.press(_next_key(page, game, presses))
        presses += 1
        assert presses < 400, "the game did not end"
    assert presses >= 1
    assert re.search(r"win", page.inner_text("#status"))
    assert "(after a hint)" in page.inner_text("#log")
    assert page.inner_text("#log").count("(after a hint)") == 1
    assert focused(page) == "new-game"  # the game is over: the next control is "New game"
    page.keyboard.press(" ")  # Space on "New game" is that button's, not the game's roll
    page.wait_for_selector("#setup:not([hidden])")
    assert not watch.errors, watch.errors
    page.context.close()


# ------------------------------------------------------------------ the bot's turn, move by move
RECORDER = """
window.__seen = [];
document.addEventListener("DOMContentLoaded", () => {
  const text = document.getElementById("banner-text"), log = document.getElementById("log");
  const note = (kind) => window.__seen.push({ kind, t: performance.now(), banner: text.textContent,
    log: log.children.length, last: log.lastElementChild ? log.lastElementChild.textContent : "",
    roll: document.getElementById("roll").getAttribute("aria-disabled"),
    step: document.getElementById("turn-banner").dataset.step });
  new MutationObserver(() => note("banner")).observe(text, { childList: true, characterData: true, subtree: true });
  new MutationObserver(() => note("log")).observe(log, { childList: true });
});
"""


def test_the_bots_turn_is_announced_and_revealed_move_by_move(browser, lab_url):
    delay = 150
    page, watch = new_page(browser, instant=False)
    page.add_init_script(RECORDER)
    page.goto(f"{lab_url}/play/pig?reveal={delay}")
    page.fill("#goal", "30")
    page.select_option("#opponent", "hold:20")
    page.select_option("#first", "bot")  # the bot opens: its first turn is revealed at the start
    page.click("#start")
    board_after_start(page)
    page.wait_for_selector("#turn-banner[data-step=done]")
    seen = page.evaluate("window.__seen")
    banners = [s["banner"] for s in seen if s["kind"] == "banner"]
    assert "Bot\u2019s turn" in banners
    start = banners.index("Bot\u2019s turn")
    logs = [s for s in seen if s["kind"] == "log" and s["log"] > 0]
    # one log line at a time, each the banner's line of that step, in order, with the delay between
    assert [s["log"] for s in logs] == list(range(1, len(logs) + 1))
    assert all(s["last"].startswith("Bot ") for s in logs)
    # each move is announced once: the last one with whose turn it is now (the final line)
    steps = banners[start + 1:-1]
    assert steps == [s["last"] for s in logs][:-1]
    assert banners[-1].startswith(logs[-1]["last"] + " \u2014 ")
    gaps = [b["t"] - a["t"] for a, b in zip(logs, logs[1:])]
    assert all(g >= delay * 0.8 for g in gaps), gaps
    # while the bot's turn is shown you cannot move; then a closing line hands the turn to you
    assert all(s["roll"] == "true" for s in logs)
    final = banners[-1]
    assert re.fullmatch(r"Bot (banked \d+ \(score \d+\)|rolled a 1 \u2014 its turn total is lost)"
                        r"( and reached the goal)? \u2014 (your turn|the bot wins)", final), final
    if logs[-1]["last"].startswith("Bot banked"):
        assert int(page.inner_text("#score-bot")) > 0
    assert page.inner_text("#turn-total") == "0" and page.inner_text("#turn-owner") == "Your"
    assert page.get_attribute("#roll", "aria-disabled") == "false"
    # the bot's dice are in the bot's tray, not in yours
    assert page.eval_on_selector_all("#dice-bot svg.die", "d => d.length") == sum(
        1 for s in logs if "rolled" in s["last"])
    assert page.eval_on_selector_all("#dice-human svg.die", "d => d.length") == 0

    # a slow reveal is skipped with Esc; focus stays on the button you pressed
    page.evaluate("window.__seen = []")
    page.goto(f"{lab_url}/play/pig?reveal=3000{page.evaluate('location.hash')}")
    page.wait_for_selector("#roll[aria-disabled=false]")
    page.click("#hold")  # holding at 0 is legal: the bot's turn comes at once
    page.wait_for_selector("#turn-banner[data-state=bot]")
    t0 = time.monotonic()
    page.keyboard.press("Escape")
    page.wait_for_selector("#turn-banner[data-step=done]", timeout=2500)
    assert time.monotonic() - t0 < 2.5
    banner = page.inner_text("#banner-text")
    assert re.search(r"your turn|bot wins", banner)
    # focus stays on the button you pressed, unless the bot's turn ended the game (then: New game,
    # once the finished game's record has been read after the reveal)
    want = "new-game" if "bot wins" in banner else "hold"
    page.wait_for_function("id => document.activeElement && document.activeElement.id === id", arg=want,
                           timeout=5000)
    assert focused(page) == want, banner
    assert not watch.errors, watch.errors
    page.context.close()


# ------------------------------------------------------------------ every page: 390 px, no errors
PAGES = ["/", "/about", "/explorer", "/analysis", "/play/pig", "/play/simpig", "/play/supersix", "/play/liars",
         "/play/hog"]
START = {"pig": [("#goal", "20")], "simpig": [("#goal", "30")], "supersix": [("#sticks", "2")],
         "liars": [], "hog": [("[data-rule=goal]", "20")]}


@pytest.mark.parametrize("width", [390, 1200])
def test_every_page_fits_and_has_no_console_error(browser, lab_url, width):
    page, watch = new_page(browser, width=width)
    for path in PAGES:
        page.goto(lab_url + path)
        page.wait_for_load_state("networkidle")
        if path == "/analysis":  # without the researcher key the page itself answers 401: not an error
            watch.errors = [e for e in watch.errors if not e.startswith("401: ") and "401" not in e]
        if width == 390:
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
            if path == "/":  # the nav collapses behind a menu button
                assert page.is_hidden("#nav")
                page.click("#nav-toggle")
                assert page.is_visible("#nav a[href='/about']")
        if path.startswith("/play/"):
            game = path.rsplit("/", 1)[1]
            assert page.is_visible(".rules")  # a rules box on every game page
            for sel, value in START[game]:
                page.fill(sel, value)
            if game == "simpig":
                page.select_option("#opponent", index=[o.startswith("Aims for") for o in page.eval_on_selector_all(
                    "#opponent option", "os => os.map((o) => o.text)")].index(True))
            page.click("#start")
            board_after_start(page)
            page.wait_for_selector(f"{READY[game]}, {FINISHED}")
            if width == 390:
                assert page.evaluate("document.documentElement.scrollWidth") <= 390, path + " (board)"
                page.set_viewport_size({"width": 360, "height": 900})  # the smallest phone we aim at
                assert page.evaluate("document.documentElement.scrollWidth") <= 360, path + " (board at 360 px)"
                page.set_viewport_size({"width": 390, "height": 900})
        assert not watch.errors, (path, watch.errors)
    icon = httpx.get(lab_url + "/favicon.ico")
    assert icon.status_code == 200 and icon.content.startswith(b"<svg")
    page.context.close()


# ------------------------------------------------------------------ plain language
def test_plain_language_names_sentences_credits_and_a_skip_link(browser, lab_url):
    page, watch = new_page(browser)
    spec = re.compile(r"\b(seed \d{3}|br:|best-response:|hold:\d|always:\d|stop-at:|pw:)", re.I)
    for game in ["pig", "simpig", "supersix", "liars", "hog"]:
        page.goto(f"{lab_url}/play/{game}")
        # the chosen bot's details line (#bot-about) names its algorithm and spec, by design of the
        # levels: the rest of the page may not
        text = page.evaluate("() => { const b = document.body.cloneNode(true); "
                             "b.querySelectorAll('#bot-about').forEach((s) => s.remove()); return b.innerText; }")
        assert not spec.search(text), (game, spec.search(text))
        # every bot is offered by name, and the chosen one's description is shown under the choice
        assert page.inner_text("#bot-about").strip()
    page.goto(f"{lab_url}/play/pig")
    page.fill("#goal", "20")
    page.select_option("#opponent", "hold:20")
    page.click("#start")
    board_after_start(page)
    assert page.inner_text("#bot-name") == "Hold at 20"
    assert not spec.search(page.inner_text("body"))

    # a bot that cannot play to the goal typed is not offered (no refusal naming its spec)
    page.goto(f"{lab_url}/play/simpig")
    page.fill("#goal", "20")
    offered = page.eval_on_selector_all("#opponent option:not([disabled])", "os => os.map((o) => o.text)")
    assert offered and not any("hold at 25" in o.lower() for o in offered)
    assert page.eval_on_selector("#opponent", "s => !s.options[s.selectedIndex].disabled")

    # errors are sentences: the page's own checks, and the server's answers as the page shows them
    page.goto(f"{lab_url}/play/liars")
    page.select_option("#players", "2")
    page.click("#start")
    board_after_start(page)
    page.wait_for_selector("#raise[aria-disabled=false]")
    page.fill("#quantity", "0")
    page.press("#quantity", "Enter")
    assert page.inner_text("#move-error") == "Bid at least one die."
    said = page.evaluate("""async () => { try { await lab.api("POST", "/api/games/" + lab.gameId() + "/moves",
        { action: "bid", quantity: 0, face: 2, expected_move: 0 }); return "accepted"; } catch (e) { return e.message; } }""")
    assert said == "Bid at least one die."
    said = page.evaluate("""async () => { try { await lab.api("POST", "/api/games", { game: "pig", goal: 1 });
        return "accepted"; } catch (e) { return e.message; } }""")
    assert re.fullmatch(r"[A-Z][^\n]*\.", said) and "goal" in said.lower(), said
    watch.errors.clear()  # the three refusals above were asked for (the console logs each 422)

    # the About page credits the papers; the first Tab offers a link past the navigation
    page.goto(f"{lab_url}/about")
    credits = page.inner_text(".credits")
    for name in ["Neller", "Presser", "Zhu", "Ma", "Jehn", "Oehm", "H\u00f6hle", "Shapley"]:
        assert name in credits, name
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert focused(page) == "main"
    assert not watch.errors, watch.errors
    page.context.close()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_dice_are_svg_with_pips_and_roll_only_without_reduced_motion(browser, lab_url, motion):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, reduced_motion=motion)
    ctx.add_init_script(INSTANT)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    watch = Watch(page)
    page.goto(f"{lab_url}/play/pig")
    page.fill("#goal", "20")
    page.select_option("#opponent", "hold:20")
    page.click("#start")
    board_after_start(page)
    page.wait_for_selector("#roll[aria-disabled=false]")
    page.keyboard.press("r")
    page.wait_for_selector("#dice-human svg.die, #dice-bot svg.die")
    die = page.query_selector("#dice-human svg.die") or page.query_selector("#dice-bot svg.die")
    face = int(re.search(r"\d", die.get_attribute("aria-label")).group())
    assert len(die.query_selector_all("circle.pip")) == face  # a face of n shows n pips
    assert die.get_attribute("role") == "img"
    rolling = page.eval_on_selector_all("svg.die.rolling", "d => d.length")
    assert (rolling == 0) if motion == "reduce" else (rolling > 0)
    assert not watch.errors, watch.errors
    ctx.close()


# ------------------------------------------------------------------ a game's address reopens it
@pytest.mark.parametrize("game", ["pig", "simpig", "supersix", "liars", "hog"])
def test_a_games_address_reopens_the_game(browser, lab_url, game):
    # issue 14: "opening a game's URL in a new tab shows the setup form"; a new tab (its own
    # session storage) finds the token in My games and shows the board at the same move
    page, watch = new_page(browser)
    page.goto(f"{lab_url}/play/{game}")
    _setup(page, game)
    page.wait_for_selector(f"{READY[game]}, {FINISHED}")
    url, gid = page.url, page.evaluate("lab.gameId()")
    assert gid
    version = httpx.get(f"{lab_url}/api/games/{gid}", headers={"X-Game-Token": page.evaluate(
        "(id) => JSON.parse(localStorage.getItem('dicelab-games')).find((x) => x.id === id).token", gid)}).json()["version"]
    tab = page.context.new_page()
    tab.goto(url)
    tab.wait_for_selector("#board:not([hidden])")
    assert tab.is_hidden("#setup")
    assert tab.evaluate("document.body.dataset.ready") == "1"
    tab.wait_for_selector(f"{READY[game]}, {FINISHED}")
    assert httpx.get(f"{lab_url}/api/games/{gid}", headers={"X-Game-Token": tab.evaluate(
        "(id) => JSON.parse(localStorage.getItem('dicelab-games')).find((x) => x.id === id).token", gid)}).json()["version"] == version
    assert not watch.errors, watch.errors
    page.context.close()
