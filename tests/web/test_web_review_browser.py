"""The review, My games, the share link and Rematch in a real browser (issue 14, items 3 and 5;
Debian's Chromium through Playwright).

One short Pig game (goal 20) is played with the keyboard only; then its review is opened from the
game page's Review link and stepped with the arrow keys, Home and End: at every step the graph's
point is the human's chance to win there, computed here from the game's public API and its coach
(:func:`tests.web.test_web_review.expected`), and the position shown is that state's. The share
link opens in a fresh browser context (no storage, no token) with the same graph; My games lists
the game; Rematch starts a new game with the same settings; the new pages fit 390 px and no page
logs a console error.
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.browsing import board_after_start
from tests.web.test_web_review import expected
from tests.web.test_web_ux import FINISHED, focused, new_page, tab_to, type_into

pytestmark = pytest.mark.browser


@pytest.fixture()
def lab_url(server_factory) -> str:
    """A ``dicelab serve`` of its own (the shared :class:`tests.web.conftest.Server`)."""
    server = server_factory()
    server.start()
    return server.url

POINTS = "Array.from(document.querySelectorAll('#wp-graph circle.pt')).map((c) => [Number(c.dataset.step), Number(c.dataset.value), Number(c.getAttribute('cx'))])"


def fits(page, width: int = 390) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= width


def play_pig_by_keyboard(page, lab_url: str) -> str:
    """A Pig game to 20 against the default (optimal) bot, keys only; the game's id."""
    page.goto(f"{lab_url}/play/pig")
    type_into(page, "#goal", "20")
    tab_to(page, "#coach")
    page.keyboard.press(" ")  # the coach on: the Rematch must keep it
    tab_to(page, "#start")
    page.keyboard.press("Enter")
    board_after_start(page)
    for n in range(300):
        page.wait_for_selector(f"#roll[aria-disabled=false], {FINISHED}")
        if page.get_attribute("#status", "data-state") == "finished":
            break
        # rolls on past 8 now and then: decisions the coach may label
        page.keyboard.press("h" if int(page.inner_text("#turn-total")) >= (8 if n % 3 else 14) else "r")
    else:
        raise AssertionError("the game did not end")
    return page.evaluate("lab.gameId()")


def test_review_share_my_games_and_rematch(browser, lab_url):
    page, watch = new_page(browser)
    gid = play_pig_by_keyboard(page, lab_url)
    token = page.evaluate("(id) => sessionStorage.getItem('dicelab-token-' + id)", gid)
    st = httpx.get(f"{lab_url}/api/games/{gid}", headers={"X-Game-Token": token}).json()
    want = expected(st)  # the truth: the game replayed through its public API, the coach asked here
    n_steps = len(want) - 1

    # the game page: Review and Rematch appear at the end; the Review link by keyboard
    assert page.is_visible("#review-link") and page.is_visible("#rematch")
    assert focused(page) == "new-game"
    tab_to(page, "#review-link")
    page.keyboard.press("Enter")
    page.wait_for_selector("#review[data-ready='1']")
    assert page.url.endswith(f"/review/{gid}")
    assert "inaccuracy over 1.0%" in page.inner_text("#thresholds") and "blunder over 8.0%" in page.inner_text("#thresholds")

    # the graph: a point per state the coach rates, each the coach's value, on whole move numbers
    points = {s: (v, x) for s, v, x in page.evaluate(POINTS)}
    assert {s for s, w in enumerate(want) if w["win"] is not None} == set(points)
    for s, (v, _) in points.items():
        assert v == pytest.approx(want[s]["win"], abs=1e-9), s
    ticks = page.eval_on_selector_all("#wp-graph text.xtick", "ts => ts.map((t) => t.textContent)")
    assert all(t.isdigit() for t in ticks) and ticks[0] == "0"

    # step with the keys: Home, Right, Left, End; the cursor and the position follow
    review = httpx.get(f"{lab_url}/api/games/{gid}/review", headers={"X-Game-Token": token}).json()
    h = st["human_seat"]
    for key, step in [("Home", 0), ("ArrowRight", 1), ("ArrowRight", 2), ("ArrowRight", 3), ("ArrowLeft", 2)]:
        page.keyboard.press(key)
        assert page.get_attribute("#step-status", "data-step") == str(step)
        assert focused(page) == "BUTTON"  # the move list's entry has the focus
        if step in points:
            assert float(page.get_attribute("#cursor", "x1")) == pytest.approx(points[step][1])
        obs = review["steps"][step]["position"]  # the position after `step` moves, as the page shows it
        shown = page.inner_text("#position")
        assert f"You {obs['scores'][h]} \u00b7 Bot {obs['scores'][1 - h]}" in shown and str(obs["turn_total"]) in shown
        if want[step]["win"] is not None:
            assert f"{100 * want[step]['win']:.1f}%" in page.inner_text("#step-status")
    page.keyboard.press("End")
    assert page.get_attribute("#step-status", "data-step") == str(n_steps)
    share_url = page.input_value("#share-url")
    assert token not in share_url
    page.set_viewport_size({"width": 390, "height": 900})
    assert fits(page), "review at 390 px"

    # the share link, in a fresh context: no storage, no token; the same graph, read-only
    other, other_watch = new_page(browser, width=390)
    other.goto(share_url)
    other.wait_for_selector("#review[data-ready='1']")
    assert "read-only" in other.inner_text("#review-title")
    assert {s: v for s, v, _ in other.evaluate(POINTS)} == {s: v for s, (v, _) in points.items()}
    assert other.is_hidden("#share-box") and token not in other.content()
    assert fits(other), "share at 390 px"
    other.goto(f"{lab_url}/games")  # this browser played nothing
    other.wait_for_selector("body[data-ready='1']")
    assert other.is_visible("#games-empty") and fits(other)
    assert not other_watch.errors, other_watch.errors
    other.context.close()

    # My games lists the game (from local storage: kept after the tab's session), with its review
    page.goto(f"{lab_url}/games")
    page.wait_for_selector("body[data-ready='1']")
    assert fits(page), "My games at 390 px"
    entry = page.locator(f"li.game-entry[data-id='{gid}']")
    assert entry.count() == 1 and "Pig" in entry.inner_text()
    kept = page.evaluate("JSON.parse(localStorage.getItem('dicelab-games'))")
    assert kept[0]["id"] == gid and kept[0]["token"] == token
    entry.locator("a.review-open").click()
    page.wait_for_selector("#review[data-ready='1']")

    # Rematch: a new game with the same settings (goal 20, the same bot, the coach on)
    page.click("#review-rematch")
    page.wait_for_selector("#board:not([hidden])")
    page.wait_for_function("location.hash.length > 1")
    new_id = page.evaluate("lab.gameId()")
    assert new_id != gid
    new_token = page.evaluate("(id) => sessionStorage.getItem('dicelab-token-' + id)", new_id)
    new = httpx.get(f"{lab_url}/api/games/{new_id}", headers={"X-Game-Token": new_token}).json()
    for key in ("game", "rules", "opponents", "coach", "human_seat"):
        assert new[key] == st[key], key
    assert not watch.errors, watch.errors
    page.context.close()
