"""A real browser solves puzzles: a wrong answer and a right one (by keyboard), the streak and
the rating in localStorage across a reload, the values table against the stored set, the
/puzzles/<id> links and the start page's puzzle of the day; the position is drawn for every game."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from dicelab.core import puzzles as pz

pytestmark = pytest.mark.browser
SHIPPED = pz.load()["puzzles"]
READY = "body[data-ready='1']"


def first(game: str, best: object | None = None) -> dict:
    return next(p for p in SHIPPED if p["game"] == game and (best is None or p["best"] == best))


def expected_rating(rating: float, puzzle: float, score: int) -> int:
    """Elo with K = 32, as the page's documentation says (written here from the formula)."""
    return round(rating + round(32 * (score - 1 / (1 + 10 ** ((puzzle - rating) / 400)))))


def test_solve_puzzles_in_the_browser(browser, server_factory):
    server = server_factory()
    server.start()
    page = browser.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    # a wrong answer: the streak stays 0, the rating drops by Elo, every move's value is shown
    p = first("pig", "roll")
    page.goto(f"{server.url}/puzzles/{p['id']}")
    page.wait_for_selector(READY, state="attached")
    assert page.inner_text("#question") == p["question"]
    assert page.locator("#position svg.die").count() == len(p["board"][1]["faces"])  # the turn's dice, drawn
    page.get_by_role("button", name="Hold", exact=True).click()
    page.wait_for_selector("body[data-answered=wrong]", state="attached")
    result = page.inner_text("#result")
    assert result.startswith("Not quite: Roll is the best move") and "streak starts again" in result
    assert page.inner_text("#my-streak") == "0"
    r1 = expected_rating(1200, p["rating"], 0)
    assert page.inner_text("#my-rating") == str(r1)
    rows = page.locator("#values tr").all_inner_texts()
    best = max(p["moves"], key=lambda m: m["value"])
    assert rows[0].startswith("Roll") and f"{100 * best['value']:.1f}%" in rows[0]
    assert page.inner_text("#why") == p["why"]
    assert page.get_by_role("status").filter(has_text="Not quite").count() == 1  # one live announcement

    # a right answer by keyboard (the n-th choice is key n): the streak starts
    q = first("hog")
    page.goto(f"{server.url}/puzzles/{q['id']}")
    page.wait_for_selector(READY, state="attached")
    n = next(k for k, m in enumerate(q["moves"], 1) if m["action"] == q["best"])
    if n <= 9:
        page.keyboard.press(str(n))
    else:
        page.get_by_role("button", name=q["best_label"], exact=True).click()
    page.wait_for_selector("body[data-answered=right]", state="attached")
    assert page.inner_text("#result").startswith(f"Right: {q['best_label']} is the best move")
    assert page.inner_text("#my-streak") == "1"
    r2 = expected_rating(r1, q["rating"], 1)
    assert page.inner_text("#my-rating") == str(r2)

    # kept across a reload; answering again does not count twice
    page.reload()
    page.wait_for_selector(READY, state="attached")
    assert page.inner_text("#my-rating") == str(r2) and page.inner_text("#my-solved") == "1"
    assert page.inner_text("#my-tried") == "2"
    stored = json.loads(page.evaluate("() => localStorage.getItem('dicelab-puzzles')"))
    assert stored["streak"] == 1 and stored["done"][q["id"]]["right"] is True
    page.get_by_role("button", name=q["best_label"], exact=True).click()
    page.wait_for_selector("body[data-answered=right]", state="attached")
    assert "rating stays" in page.inner_text("#result") and page.inner_text("#my-rating") == str(r2)

    # the Next puzzle link goes to a puzzle not yet tried
    page.click("#next")
    page.wait_for_selector(READY, state="attached")
    nxt = page.get_attribute("#puzzle", "data-id")
    assert nxt not in (p["id"], q["id"]) and page.url.endswith("/puzzles/" + nxt)

    # the start page's card opens today's puzzle
    today = pz.of_the_day(SHIPPED, datetime.now(timezone.utc).date())
    page.goto(server.url + "/")
    assert today["question"] in page.inner_text(".daily-puzzle")
    # the card is styled on the start page too (its rule is in lab.css, not only in puzzles.css)
    assert page.eval_on_selector(".daily-puzzle", "e => getComputedStyle(e).borderLeftWidth") == "5px"
    page.click("#daily-link")
    page.wait_for_selector(READY, state="attached")
    assert page.url.endswith("/puzzles/" + today["id"]) and page.inner_text("#question") == today["question"]

    # every game's position draws without a script error
    for game in ("liars", "simpig", "supersix"):
        g = first(game)
        page.goto(f"{server.url}/puzzles/{g['id']}")
        page.wait_for_selector(READY, state="attached")
        assert page.locator("#choices button").count() == len(g["moves"])
        assert page.locator("#position .widget").count() == len(g["board"])
    # simultaneous Pig offers a few targets; the answer draws every target's value, the best marked
    s = first("simpig")
    page.goto(f"{server.url}/puzzles/{s['id']}")
    page.wait_for_selector(READY, state="attached")
    page.get_by_role("button", name=s["best_label"], exact=True).click()
    page.wait_for_selector("body[data-answered=right]", state="attached")
    curve = s["extra"]["curve"]["y"]
    top = max(range(len(curve)), key=lambda k: curve[k])
    label = page.get_attribute("#curve-plot svg", "aria-label")
    assert f"the highest, {100 * curve[top]:.1f}%, at target {top + 1}" in label
    assert page.locator("#curve-plot polyline").count() == 1
    assert not errors, errors


@pytest.mark.parametrize("width", [1200, 390])
def test_the_puzzle_pages_have_no_serious_accessibility_finding(browser, server_factory, width):
    """axe-core (as tests/web/test_web_axe.py runs it) over the list, one puzzle of every game
    (answered too for Pig, Liar's Dice and simultaneous Pig), the missing-puzzle page and the start page with its
    card; at a phone's width the list and a Liar's Dice puzzle, nothing wider than the screen."""
    from axe_playwright_python.sync_playwright import Axe

    from tests.web.test_web_axe import findings

    axe = Axe()
    server = server_factory()
    server.start()
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(30_000)
    bad: dict[str, list[str]] = {}
    wide = width > 600  # at a phone's width: the list and one puzzle (the same widgets, narrower)
    for path in ("/puzzles", "/puzzles/nope", "/") if wide else ("/puzzles",):
        page.goto(server.url + path)
        page.wait_for_load_state("load")
        bad[path] = findings(axe, page)
    for game in ("pig", "hog", "simpig", "supersix", "liars") if wide else ("liars",):
        p = first(game)
        page.goto(f"{server.url}/puzzles/{p['id']}")
        page.wait_for_selector(READY, state="attached")
        bad[game] = findings(axe, page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, game
        if game in ("pig", "liars", "simpig"):  # the answer: the result, the values table (a curve), the why
            page.locator("#choices button").first.click()
            page.wait_for_selector("body[data-answered]", state="attached")
            bad[game + " (answered)"] = findings(axe, page)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, game + " (answered)"
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}
