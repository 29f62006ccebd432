"""axe-core over every page of the web lab and the main states of its games (issue 21, item 5).

axe-core comes with ``axe-playwright-python`` (the dev extra; its script is in the package, so
nothing is fetched at test time) and runs in Debian's Chromium through Playwright. Every page and
state must have no critical and no serious finding, no colour-contrast finding, and no heading-order
finding (an h1 followed by an h3): the start page, About, the explorer, the analysis page without
and with the researcher key, My games (empty and with games), every game's setup form, a game in
progress (with the coach where the game has one), a game over, a review and its read-only share view.
"""

from __future__ import annotations

import pytest

from tests.web.browsing import board_after_start
from tests.web.conftest import ADMIN, Server

pytestmark = pytest.mark.browser

INSTANT = "localStorage.setItem('dicelab-reveal-ms', '0')"
FINISHED = "#status[data-state=finished]"
ALWAYS = {"color-contrast", "heading-order"}  # failures whatever their impact


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("axe")
    server = Server(f"sqlite:///{tmp / 'axe.sqlite'}", tmp / "server.log")
    server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def findings(axe, page) -> list[str]:
    """The findings that fail: critical or serious, and any contrast or heading-order one."""
    out = []
    for v in axe.run(page).response["violations"]:
        if v["impact"] in ("critical", "serious") or v["id"] in ALWAYS:
            where = [n["target"] for n in v["nodes"][:3]]
            out.append(f"{v['id']} ({v['impact']}): {where} {v['nodes'][0].get('failureSummary', '')[:160]}")
    return out


def new_page(browser, width: int = 1200):
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    ctx.add_init_script(INSTANT)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    return page


SETUP = {"pig": [("#goal", "20")], "hog": [("[data-rule=goal]", "20")], "supersix": [("#sticks", "2")],
         "simpig": [("#goal", "30")], "liars": []}
MOVE = {"pig": "#roll", "hog": "#action-2", "supersix": "#throw", "simpig": "#go", "liars": "#raise"}


def start(page, lab: str, game: str) -> None:
    page.goto(f"{lab}/play/{game}")
    for sel, value in SETUP[game]:
        page.fill(sel, value)
    if game == "simpig":  # a bot with no tables to build
        page.select_option("#opponent", index=[o.startswith("Aims for") for o in page.eval_on_selector_all(
            "#opponent option", "os => os.map((o) => o.text)")].index(True))
    if game == "liars":
        page.select_option("#players", "2")
        page.fill("#dice", "1")
    if page.query_selector("#coach"):
        page.check("#coach")
    page.click("#start")
    board_after_start(page)


def test_the_pages_have_no_serious_accessibility_finding(browser, lab, axe):
    page = new_page(browser)
    bad: dict[str, list[str]] = {}
    for path in ("/", "/about", "/games", "/analysis"):
        page.goto(lab + path)
        page.wait_for_load_state("load")
        bad[path] = findings(axe, page)
    page.set_viewport_size({"width": 390, "height": 800})  # the start page on a phone, its menu open
    page.goto(lab + "/")
    page.click("#nav-toggle")
    bad["/ (phone, menu open)"] = findings(axe, page)
    page.set_viewport_size({"width": 1200, "height": 900})
    page.goto(lab + "/explorer")  # the explorer with its maps drawn
    page.wait_for_selector("#plot-boundary svg")
    bad["/explorer"] = findings(axe, page)
    # the analysis page with the key: the figures and tables
    page.goto(lab + "/analysis")
    page.fill("#admin-key", ADMIN["X-Admin-Key"])
    page.click("#key-open")
    page.wait_for_selector("body[data-study=shown]")
    bad["/analysis (with the key)"] = findings(axe, page)
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}
    page.context.close()


@pytest.mark.parametrize("game", ["pig", "liars", "supersix", "hog", "simpig"])
def test_every_game_setup_play_and_game_over(browser, lab, axe, game):
    page = new_page(browser)
    bad: dict[str, list[str]] = {}
    page.goto(f"{lab}/play/{game}")
    bad["setup"] = findings(axe, page)
    start(page, lab, game)
    ready = f"{MOVE[game]}[aria-disabled=false], {FINISHED}"
    page.wait_for_selector(ready)
    if page.query_selector("#hint") and page.get_attribute("#hint", "aria-disabled") == "false":
        page.click("#hint")
        page.wait_for_selector("#hint-box:not([hidden])")
    bad["in play, with the coach and a hint"] = findings(axe, page)
    for _ in range(400):  # to the end
        page.wait_for_selector(ready)
        if page.get_attribute("#status", "data-state") == "finished":
            break
        if game == "pig" and int(page.inner_text("#turn-total")) >= 8:
            page.click("#hold")
        elif game == "supersix" and page.get_attribute("#stop", "aria-disabled") == "false":
            page.click("#stop")
        elif game == "liars" and page.get_attribute("#call", "aria-disabled") == "false":
            page.click("#call")
        else:
            page.click(MOVE[game])
    page.wait_for_selector(FINISHED)
    bad["game over"] = findings(axe, page)
    if game in ("pig", "liars"):  # the review and its read-only share view
        page.click("#review-link")
        page.wait_for_selector("#review[data-ready='1']")
        bad["review"] = findings(axe, page)
        page.goto(page.input_value("#share-url"))
        page.wait_for_selector("#review[data-ready='1']")
        bad["shared review"] = findings(axe, page)
        page.goto(f"{lab}/games")
        page.wait_for_selector(".game-entry")
        bad["my games"] = findings(axe, page)
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}
    page.context.close()
