"""Pig for three players in a real browser (issue 25, item 4; Debian's Chromium through
Playwright): the setup form's Players choice, a whole game against two bots at a small goal with
the coach, each seat's score and whose turn, the coach's numbers against the n-player solution
solved here, and axe-core on the setup form, the game in play, the game over and the review."""

from __future__ import annotations

import re

import pytest

from tests.web.browsing import board_after_start

from dicelab.pig import PigRules, solve_n
from tests.web.conftest import Server
from tests.web.test_web_axe import FINISHED, findings, new_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # about 30 s with its server: make test-all

GOAL = 12


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("npig")
    server = Server(f"sqlite:///{tmp / 'npig.sqlite'}", tmp / "server.log")
    server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def test_a_whole_three_player_game_with_the_coach(browser, lab, axe):
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    bad: dict[str, list[str]] = {}
    page.goto(f"{lab}/play/pig")
    page.select_option("#players", "3")
    assert "measured for two players" in page.inner_text("#players-about")
    # two dice and the best responses (to one opponent) are for two players: not offered
    assert page.eval_on_selector("#variant option[value=two-dice]", "o => o.disabled")
    assert page.eval_on_selector_all("#opponent option[value^='best-response']", "os => os.every((o) => o.disabled)")
    page.fill("#goal", str(GOAL))
    page.select_option("#opponent", "turtle")
    page.select_option("#first", "human")
    page.check("#coach")
    bad["setup"] = findings(axe, page)
    page.click("#start")
    board_after_start(page)
    page.wait_for_selector("#roll[aria-disabled=false]")
    # each bot has its own line with its name and score; a turn total of 0 must roll
    seats = page.eval_on_selector_all("#bot-seats li", "ls => ls.map((l) => l.textContent)")
    name = page.eval_on_selector("#opponent option[value=turtle]", "o => o.textContent.trim()")
    assert seats == [f"Bot 1 ({name}): 0 banked", f"Bot 2 ({name}): 0 banked"]
    assert page.get_attribute("#hold", "aria-disabled") == "true"
    sol = solve_n(PigRules(goal=GOAL, players=3))
    assert page.inner_text("#coach-roll") == f"{100 * sol.start()[0]:.1f}%"
    assert page.inner_text("#coach-hold").startswith("not allowed")
    chances = page.inner_text("#coach-seats")
    assert chances == ("Each player's chance to win with best play from here: " + " \u00b7 ".join(
        f"{who} {100 * p:.1f}%" for who, p in zip(("You", "Bot 1", "Bot 2"), sol.start())) + ".")
    page.click("#roll")
    page.wait_for_selector(f"#roll[aria-disabled=false], {FINISHED}")
    bad["in play, with the coach"] = findings(axe, page)
    for _ in range(300):
        page.wait_for_selector(f"#roll[aria-disabled=false], {FINISHED}")
        if page.get_attribute("#status", "data-state") == "finished":
            break
        tt = int(page.inner_text("#turn-total"))
        if tt > 0:  # the coach at a decision: the numbers of the solution at this position
            you = int(page.inner_text("#score-human"))
            others = [int(re.search(r": (\d+) banked", t).group(1)) for t in
                      page.eval_on_selector_all("#bot-seats li", "ls => ls.map((l) => l.textContent)")]
            p_roll, p_hold = sol.values((you, *others), tt)
            assert page.inner_text("#coach-roll") == f"{100 * p_roll[0]:.1f}%"
            assert page.inner_text("#coach-hold") == f"{100 * p_hold[0]:.1f}%"
        page.click("#hold" if tt >= 4 else "#roll")
    page.wait_for_selector(FINISHED)
    status = page.inner_text("#status")
    assert re.fullmatch(r"You win!|Bot [12] wins\.", status), status
    log = page.eval_on_selector_all("#log li", "ls => ls.map((l) => l.textContent)")
    assert any(line.startswith("Bot 1 ") for line in log) and any(line.startswith("Bot 2 ") for line in log)
    bad["game over"] = findings(axe, page)
    page.click("#review-link")
    page.wait_for_selector("#review[data-ready='1']")
    bad["review"] = findings(axe, page)
    # a step of the review: every player's chance there, which sum to 100% (to rounding)
    line = ""
    for button in page.query_selector_all("#review-moves button.step")[:6]:
        button.click()
        line = page.inner_text("#position")
        if "Each player's chance" in line:
            break
    m = re.search(r"Each player's chance to win, best play from here: You ([\d.]+)% \u00b7 Bot 1 ([\d.]+)% \u00b7 Bot 2 ([\d.]+)%\.", line)
    assert m, line
    assert abs(sum(float(x) for x in m.groups()) - 100) < 0.2
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}
    assert not errors, errors
    page.context.close()
