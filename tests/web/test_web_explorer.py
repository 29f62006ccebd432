"""The strategy explorer (issue 14, item 8): its numbers are the library's, its strategies have
names, its refusals are sentences, and in the browser it shows tables and SVG plots (no JSON in
``<pre>``), a click on a square of the boundary map asks about that position, and it fits a
390 px phone without a console error.

The expected numbers are computed here through Pig's public API (``dicelab.pig.solve``,
``evaluate``), not through the explorer's code path (which reads the cached play solution).
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from dicelab import pig

GOAL = 20
RULES = pig.PigRules(goal=GOAL)
SPEC_WORDS = re.compile(r"\b(hold|best-response|keep-pace|roll-to-win|file):|\bseed \d")


@pytest.fixture(scope="module")
def sol():
    return pig.solve(RULES)


def test_tables_and_states_equal_the_solvers(client, sol):
    j = client.get("/api/explorer/pig", params={"goal": GOAL, "k": 3}).json()
    assert j["title"] == "Pig to 20 with one 6-sided die"
    assert j["p_first_player"] == pytest.approx(sol.win_probability(0, 0, 0), abs=1e-12)
    for i, jj in itertools.product(range(GOAL), repeat=2):
        assert j["hold_threshold"][i][jj] == sol.hold_threshold(i, jj)
        # P(i, j, 3): a state while i + 3 < goal, a win (no number) after
        expected = sol.win_probability(i, jj, 3) if i + 3 < GOAL else None
        assert j["p_turn_total"][i][jj] == (pytest.approx(expected, abs=1e-6) if expected is not None else None)
    # the strategies offered are Pig's bots that can play to 20, by name (hold at 25 cannot)
    names = {b["spec"]: b["name"] for b in j["bots"]}
    assert names["optimal"] == next(b.name for b in pig.PLAY.bots(RULES) if b.spec == "optimal")
    assert "hold:25" not in names and "hold:20" in names
    for state in [(0, 0, 0), (7, 4, 9), (15, 18, 2), (19, 0, 0)]:
        r = client.get("/api/explorer/pig/state", params={"goal": GOAL, "i": state[0], "j": state[1], "k": state[2]})
        d = r.json()
        p_roll, p_hold = sol.values(*state)
        assert d["p_roll"] == pytest.approx(p_roll, abs=1e-12) and d["p_hold"] == pytest.approx(p_hold, abs=1e-12)
        assert d["best"] == sol.action(*state) and d["hold_at"] == sol.hold_threshold(*state[:2])


def test_head_to_head_and_tournament_equal_the_evaluator(client):
    d = client.get("/api/explorer/evaluate", params={"goal": GOAL, "a": "turtle", "b": "keep-pace"}).json()
    e = pig.evaluate("turtle", "keep-pace", RULES)
    assert d["names"] == {"a": "Cautious: banks small totals", "b": "Keeps pace with the leader"}
    assert d["result"]["a_first"] == pytest.approx(e.a_first, abs=1e-12)
    assert d["result"]["a_overall"] == pytest.approx(e.a_overall, abs=1e-12)

    specs = ["optimal", "hold:20", "keep-pace", "turtle"]
    t = client.get("/api/explorer/tournament", params={"goal": GOAL, "specs": ",".join(specs)}).json()
    # each strategy's win rate: the mean of its exact head-to-head chances against the others
    rate = {a: float(np.mean([pig.evaluate(a, b, RULES).a_overall for b in specs if b != a])) for a in specs}
    ranking = t["ranking"]
    assert [r["rank"] for r in ranking] == [1, 2, 3, 4]
    for r in ranking:
        assert r["mean"] == pytest.approx(rate[r["strategy"]], abs=1e-9)
        assert r["interval"] is None  # exact: no sampling interval
    assert [r["mean"] for r in ranking] == sorted((r["mean"] for r in ranking), reverse=True)
    bots = {b.spec: b.name for b in pig.PLAY.bots(RULES)}
    assert {r["name"] for r in ranking} == {bots[s] for s in specs}


def test_refusals_are_sentences_without_spec_strings(client):
    cases = [
        ("/api/explorer/pig/state", {"goal": GOAL, "i": 15, "j": 0, "k": 9}, "With your score at 15 the turn total"),
        ("/api/explorer/pig", {"goal": GOAL, "k": 25}, "The turn total must be from 0 to 19"),
        ("/api/explorer/evaluate", {"goal": GOAL, "a": "hold:25", "b": "optimal"}, "Hold at 25 cannot play Pig to 20"),
        ("/api/explorer/evaluate", {"goal": GOAL, "a": "nonsense", "b": "optimal"}, "That is not a strategy"),
        ("/api/explorer/tournament", {"goal": GOAL, "specs": "optimal"}, "A tournament here takes 2 to 12"),
        ("/api/explorer/tournament", {"goal": GOAL, "specs": "turtle,turtle"}, "Each strategy may play"),
        ("/api/explorer/simpig-curve", {"goal": 30, "lo": 20, "hi": 40}, "N runs from"),
        ("/api/explorer/pig", {"goal": GOAL, "variant": "piglet", "sides": 6}, "Piglet is played with a coin"),
    ]
    for url, params, start in cases:
        r = client.get(url, params=params)
        assert r.status_code == 422, (url, r.text)
        detail = r.json()["detail"]
        assert detail.startswith(start) and detail.endswith("."), detail
        assert not SPEC_WORDS.search(detail), detail


@pytest.mark.browser
def test_explorer_in_the_browser(browser, server_factory, sol):
    server = server_factory()
    server.start()
    ctx = browser.new_context(viewport={"width": 390, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/explorer?goal={GOAL}&k=3")
    page.wait_for_selector("body[data-ready='1']")
    assert f"first player wins {100 * sol.win_probability(0, 0, 0):.1f}%" in page.inner_text("#pig-summary")
    assert page.eval_on_selector_all("#plot-boundary svg rect.cell", "r => r.length") == GOAL * GOAL

    # a click on a square of the boundary map asks about that position: (7, 4) at the turn total
    # where optimal play holds there
    page.click("#plot-boundary rect[data-i='7'][data-j='4']")
    page.wait_for_selector("#state-answer")
    k = min(sol.hold_threshold(7, 4), GOAL - 1 - 7)
    assert [page.input_value(f"#state-form [name={n}]") for n in "ijk"] == ["7", "4", str(k)]
    p_roll, p_hold = sol.values(7, 4, k)
    assert float(page.get_attribute("#state-p-roll", "data-value")) == pytest.approx(p_roll, abs=1e-12)
    assert float(page.get_attribute("#state-p-hold", "data-value")) == pytest.approx(p_hold, abs=1e-12)
    assert page.inner_text("#state-p-roll") == f"{100 * p_roll:.1f}%"
    assert page.get_attribute("#state-answer", "data-best") == sol.action(7, 4, k)
    # a square of the win-probability map: the turn total of the map (3)
    page.click("#plot-winprob rect[data-i='2'][data-j='11']")
    page.wait_for_function("() => document.querySelector('#state-form [name=i]').value === '2'")
    # (the answer is drawn again meanwhile: the element may be missing for a moment)
    page.wait_for_function("() => { const e = document.querySelector('#state-p-roll'); "
                           f"return !!e && Math.abs(+e.dataset.value - {sol.values(2, 11, 3)[0]}) < 1e-12; }}")

    # head to head, tournament and simultaneous Pig: tables and plots, names, never JSON
    page.click("#eval-form button")
    page.wait_for_selector("#eval-out table")
    page.click("#tour-form button")
    page.wait_for_selector("#tour-out table.ranking")
    rows = page.eval_on_selector_all("#tour-out table.ranking tbody tr", "rs => rs.map((r) => [...r.cells].map((c) => c.textContent))")
    assert [r[0] for r in rows] == [str(n) for n in range(1, len(rows) + 1)]
    assert rows[0][3] == "none (exact)"
    page.fill("#simpig-form [name=goal]", "20")
    page.fill("#simpig-form [name=lo]", "5")
    page.fill("#simpig-form [name=hi]", "12")
    page.click("#simpig-form button")
    page.wait_for_selector("#simpig-out svg")
    assert page.query_selector("pre") is None
    assert page.eval_on_selector_all(".svg-plot svg", "s => s.length") >= 5
    text = page.inner_text("main")
    assert not SPEC_WORDS.search(text), SPEC_WORDS.search(text)
    assert "{" not in text

    # an error is a sentence on the page
    page.fill("#state-form [name=i]", "18")
    page.fill("#state-form [name=k]", "5")
    page.click("#state-form button")
    page.wait_for_selector("#state-out .error")
    assert page.inner_text("#state-out .error").startswith("With your score at 18 the turn total must be from 0 to 1")
    errors = [e for e in errors if "422" not in e]  # the refused request itself
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors
    ctx.close()
