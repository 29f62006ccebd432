"""Issue 21, items 1-3, in a real browser (Debian's Chromium through Playwright): the level picker
with each level's measured strength, the busy Start button (a double click makes one game), the
accuracy in the review and in My games, and the start page's block on the background builder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx
import pytest

from tests.web.browsing import board_after_start

from dicelab.core import levels as core_levels
from dicelab.core.registry import get
from tests.web.conftest import sql
from tests.web.test_web_ux import FINISHED, _free_port, new_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One ``dicelab serve --no-warm`` whose cache already holds Pig's and Super Six's measured
    ladders (measured here, as the background builder would), and its database URL."""
    tmp = tmp_path_factory.mktemp("levels")
    env = {k: v for k, v in os.environ.items() if k != "DICELAB_ADMIN_KEY"}
    env["DICELAB_CACHE_DIR"] = str(tmp / "cache")
    old = os.environ.get("DICELAB_CACHE_DIR")
    os.environ["DICELAB_CACHE_DIR"] = env["DICELAB_CACHE_DIR"]
    try:
        core_levels._memory.clear()  # a ladder an earlier test kept in memory would not be written here
        for game in ("pig", "supersix"):
            entry = get(game)
            core_levels.ladder(game, entry.play, entry.make_rules())
    finally:
        if old is not None:
            os.environ["DICELAB_CACHE_DIR"] = old
    db = f"sqlite:///{tmp / 'levels.sqlite'}"
    port = _free_port()
    log = (tmp / "server.log").open("ab")
    proc = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db", db, "--no-warm"],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
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
    yield url, db
    proc.terminate()
    proc.wait(10)


def test_the_level_picker_shows_names_and_measured_strengths(browser, lab):
    url, _ = lab
    page, watch = new_page(browser)
    page.goto(f"{url}/play/pig")
    options = page.eval_on_selector_all("#opponent optgroup[label='Levels of strength'] option",
                                        "os => os.map(o => [o.textContent, o.value, o.selected, o.dataset.strength])")
    ladder = get("pig").play.levels(get("pig").make_rules())
    assert [o[1] for o in options] == [lv.spec for lv in ladder]
    # the words on the page: the level's name and its exact strength against optimal play, from
    # pig.levels' own evaluator here (the page must show that number, rounded)
    from dicelab.pig.levels import evaluate_mixed, roll_probabilities

    rules = get("pig").make_rules()
    top = roll_probabilities("optimal", rules)
    for (text, spec, _, strength), lv in zip(options[:-1], ladder):
        s = evaluate_mixed(roll_probabilities(spec, rules), top, rules).mean
        assert text == f"{lv.name}: wins {100 * s:.0f}% against perfect play"
        assert float(strength) == pytest.approx(s, abs=1e-12)
    assert options[-1][0] == "Perfect: the strongest"
    # a newcomer starts at the middle level; the algorithm (and its spec) is in the details line
    assert [o[2] for o in options].index(True) == len(options) // 2
    about = page.inner_text("#bot-about")
    assert ladder[len(ladder) // 2].details in about and ladder[len(ladder) // 2].spec in about
    page.select_option("#opponent", ladder[0].spec)
    assert ladder[0].details in page.inner_text("#bot-about")
    # the game's board names the bot by its level
    page.fill("#goal", "20")
    page.click("#start")
    board_after_start(page)
    assert page.inner_text("#bot-name") == ladder[0].name
    assert not watch.errors, watch.errors


def test_start_is_busy_and_a_double_click_makes_one_game(browser, lab):
    url, db = lab
    page, watch = new_page(browser)
    page.goto(f"{url}/play/supersix")
    before = sql(db, "SELECT COUNT(*) FROM games")[0][0]
    seen: list[dict] = []
    page.on("request", lambda r: seen.append({"url": r.url, "key": r.headers.get("idempotency-key")})
            if r.method == "POST" and r.url.endswith("/api/games") else None)
    # hold the answer back a moment, so the button is seen busy and the second click lands while pending
    page.route("**/api/games", lambda route: (time.sleep(0.4), route.continue_()))
    page.dblclick("#start")
    board_after_start(page)
    assert page.get_attribute("#start", "aria-busy") is None and not page.is_disabled("#start")
    assert sql(db, "SELECT COUNT(*) FROM games")[0][0] == before + 1
    assert len(seen) == 1 and seen[0]["key"]
    assert not watch.errors, watch.errors


def test_start_shows_its_busy_state_while_pending(browser, lab):
    url, _ = lab
    page, watch = new_page(browser)
    page.goto(f"{url}/play/supersix")
    release: list = []
    page.route("**/api/games", lambda route: release.append(route))
    page.click("#start")
    page.wait_for_selector("#start[aria-busy=true]")
    assert page.is_disabled("#start") and "Starting" in page.inner_text("#start")
    page.keyboard.press("Enter")  # a second submit while pending does nothing
    page.wait_for_timeout(200)
    assert len(release) == 1
    release[0].continue_()
    page.wait_for_selector("#board:not([hidden])")
    assert not page.is_disabled("#start") and page.inner_text("#start") == "Start game"


def play_supersix(page, url: str) -> str:
    """A Super Six game to the end (stopping whenever it may), its id."""
    page.goto(f"{url}/play/supersix")
    page.check("#coach")
    page.click("#start")
    board_after_start(page)
    for _ in range(300):
        page.wait_for_selector(f"#throw[aria-disabled=false], {FINISHED}")
        if page.get_attribute("#status", "data-state") == "finished":
            break
        page.keyboard.press("s" if page.get_attribute("#status", "data-state") == "free" else "t")
    else:
        raise AssertionError("the game did not end")
    return page.evaluate("decodeURIComponent(location.hash.slice(1)).split('.')[0]")  # the hash is the share id: <id>.<signature>


def test_accuracy_in_the_review_and_in_my_games(browser, lab):
    url, _ = lab
    page, watch = new_page(browser)
    for _ in range(6):  # a game in which you had a choice: one the bot ends first may have none (no accuracy)
        gid = play_supersix(page, url)
        token = page.evaluate(f"sessionStorage.getItem('dicelab-token-{gid}')")
        rv = httpx.get(f"{url}/api/games/{gid}/review", headers={"X-Game-Token": token}).json()
        s = rv["summary"]
        if s["accuracy"] is not None:
            break
    assert isinstance(s["accuracy"], float)
    page.goto(f"{url}/review/{gid}")
    page.wait_for_selector("#review-summary[data-accuracy]")
    text = page.inner_text("#review-summary")
    assert text.startswith(f"Accuracy {round(s['accuracy'])}%")
    assert f"{s['blunders']} blunder" in text and f"{s['mistakes']} mistake" in text
    # My games: the kept accuracy; and one asked from the review for an entry without it
    page.goto(f"{url}/games")
    page.wait_for_selector("body[data-accuracy='1']")
    row = page.inner_text(f"li.game-entry[data-id='{gid}']")
    assert f"accuracy {round(s['accuracy'])}%" in row and f"{s['inaccuracies']} inacc" in row
    page.evaluate("(id) => { const a = JSON.parse(localStorage.getItem('dicelab-games')); "
                  "a.forEach((e) => { if (e.id === id) delete e.accuracy; }); "
                  "localStorage.setItem('dicelab-games', JSON.stringify(a)); }", gid)
    page.reload()
    page.wait_for_selector("body[data-accuracy='1']")
    assert f"accuracy {round(s['accuracy'])}%" in page.inner_text(f"li.game-entry[data-id='{gid}']")
    assert not watch.errors, watch.errors


def test_the_start_page_shows_the_builders_progress(browser, lab):
    url, _ = lab
    page, watch = new_page(browser)
    # this lab does not build ahead (--no-warm): the block stays hidden
    page.goto(url + "/")
    page.wait_for_selector("#ready-block[data-state]", state="attached")
    assert page.is_hidden("#ready-block")
    # a lab that builds: the block shows the answer of /api/ready (served here from a stub)
    progress = {"ready": False, "running": True, "done": 3, "total": 10, "now": "Liar's Dice: 1 v 2 dice, 6 faces",
                "games": [{"game": "liars", "title": "Liar's Dice", "done": 1, "total": 8}], "failed": 0}
    page.route("**/api/ready", lambda route: route.fulfill(status=200, content_type="application/json",
                                                           body=json.dumps(progress)))
    page.goto(url + "/")
    page.wait_for_selector("#ready-block[data-state=building]")
    assert page.get_attribute("#ready-bar", "value") == "3" and page.get_attribute("#ready-bar", "max") == "10"
    assert "3 of 10 ready" in page.inner_text("#ready-block")
    assert "Liar's Dice 1 of 8" in page.inner_text("#ready-text")
    assert not watch.errors, watch.errors
