"""The study's analysis page (issue 14, item 8): one game and one goal per figure, filters by
game, goal and participant, and a warning on a figure that rests on fewer than 30 turns.

The recorded play is written straight into the database (games to 30 and to 100, two
participants, and a Hog game); the expected numbers are computed here from those rows.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicelab.web import study
from dicelab.web.db import Game, Move, Turn, make_engine, make_sessionmaker, migrate
from tests.web.conftest import ADMIN

# (game id, game, goal, participant, stated preference, number of the human's turns)
RECORDS = [
    ("p30-ann", "pig", 30, "ann", "averse", 15),
    ("p30-bob", "pig", 30, "bob", "loving", 14),  # 29 turns to 30: one short of the threshold
    ("p100-ann", "pig", 100, "ann", "averse", 18),
    ("p100-bob", "pig", 100, "bob", "neutral", 12),  # 30 turns to 100: at the threshold
    ("hog-cy", "hog", 50, "cy", "neutral", 6),
    # played without joining the study (no questionnaire): recorded, never in a figure or a filter
    ("p100-anon", "pig", 100, None, None, 25),
    ("hog-anon", "hog", 40, None, None, 9),
]


def scores_of(gid: str, n: int) -> list[int]:
    """The human's score after each of ``n`` turns: a seeded random walk that never falls."""
    rng = np.random.default_rng(sum(map(ord, gid)))
    return np.cumsum(rng.integers(0, 12, size=n)).tolist()


def lost_of(gid: str, t: int) -> float:
    """The win probability the human's decision at turn ``t`` gave away (0 when it was optimal)."""
    return 0.0 if t % 3 == 0 else 0.001 * (t + len(gid))


def seed_db(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    db = make_sessionmaker(engine)()
    for n, (gid, game, goal, who, pref, turns) in enumerate(RECORDS):
        rules = {"variant": "standard", "goal": goal, "sides": None} if game == "pig" else {"goal": goal}
        # the first game keeps its goal in the old column only (games from before rules_json)
        old = n == 0
        db.add(Game(id=gid, token_hash="x", game=game, rules_json=None if old else json.dumps(rules),
                    goal=goal if old else None, opponent="hold:20", human_seat=0, coach=False, seed=n,
                    status="finished", turn_no=2 * turns + 1, version=0, participant=who, risk_preference=pref,
                    q2="a" if pref else None, q3="b" if pref else None))
        prev = 0
        for t, s in enumerate(scores_of(gid, turns)):
            db.add(Turn(game_id=gid, turn_no=2 * t + 1, player=0, actor="human", n_rolls=2, banked=s - prev,
                        score_before=prev, score_after=s, opponent_score=3 * t, ended="hold"))
            # one rated decision per human turn: the hold, giving away lost_of(gid, t)
            db.add(Move(game_id=gid, seq=t, turn_no=2 * t + 1, player=0, actor="human", action="hold",
                        result="hold", optimal_action="roll" if t % 3 else "hold", p_lost=lost_of(gid, t),
                        think_ms=1000))
            db.add(Turn(game_id=gid, turn_no=2 * t + 2, player=1, actor="bot", n_rolls=1, banked=3,
                        score_before=3 * t, score_after=3 * t + 3, opponent_score=s, ended="hold"))
            prev = s
    db.commit()
    db.close()
    engine.dispose()


def expected_average(gids: list[str]) -> list[float]:
    """The mean score at each turn over the games ``gids`` (only those that reached the turn)."""
    seqs = [scores_of(g, next(r[5] for r in RECORDS if r[0] == g)) for g in gids]
    return [float(np.mean([s[t] for s in seqs if len(s) > t])) for t in range(max(map(len, seqs)))]


@pytest.fixture()
def seeded(db_url: str) -> str:
    seed_db(db_url)
    return db_url


def test_one_goal_per_analysis_and_the_few_turns_warning(client, seeded):
    # default: Pig (the study's game) at its goal with the most human turns: 100 (30 turns)
    a = client.get("/api/analysis", headers=ADMIN).json()
    assert a["filter"] == {"game": "pig", "title": "Pig", "goal": 100, "participant": None}
    assert a["turns"] == 30 and a["min_turns"] == 30
    assert a["warnings"] == dict.fromkeys(study.PLOTS)  # 30 turns: no warning
    assert {t["game"] for ts in a["trajectories"].values() for t in ts} == {"p100-ann", "p100-bob"}
    assert a["average"]["averse"]["mean_score"] == pytest.approx(expected_average(["p100-ann"]))
    assert a["average"]["averse"]["turn"] == list(range(1, 19))  # whole turn numbers
    bob = [lost_of("p100-bob", t) for t in range(12)]
    assert a["quality"]["neutral"]["decisions"] == 12
    assert a["quality"]["neutral"]["mean_lost"] == pytest.approx(float(np.mean(bob)))
    assert a["quality"]["neutral"]["optimal_share"] == pytest.approx(4 / 12)  # turns 0, 3, 6, 9
    # the options list every game and goal with its number of human turns, most first
    opts = {g["key"]: g["goals"] for g in a["options"]["games"]}
    assert opts == {"pig": [{"goal": 100, "games": 2, "turns": 30}, {"goal": 30, "games": 2, "turns": 29}],
                    "hog": [{"goal": 50, "games": 1, "turns": 6}]}
    assert a["options"]["participants"] == ["ann", "bob", "cy"]

    # to 30: 29 turns, one short: every figure says so, and no game to 100 is mixed in
    a30 = client.get("/api/analysis", params={"game": "pig", "goal": 30}, headers=ADMIN).json()
    assert a30["turns"] == 29
    assert {t["game"] for ts in a30["trajectories"].values() for t in ts} == {"p30-ann", "p30-bob"}
    for name in study.PLOTS:
        assert "29 turns, fewer than 30" in a30["warnings"][name]
    assert a30["average"]["loving"]["mean_score"] == pytest.approx(expected_average(["p30-bob"]))
    assert a30["average"]["loving"]["few_turns"] is True

    # one participant: only their game at that goal
    ann = client.get("/api/analysis", params={"goal": 100, "participant": "ann"}, headers=ADMIN).json()
    assert ann["selection"]["games"] == 1 and ann["turns"] == 18
    assert ann["games"] == 5  # every Pig game recorded, of every goal and participant, in the study or not
    assert list(ann["average"]) == ["averse"]
    assert ann["warnings"]["average"] is not None  # 18 turns

    # another game: its own goal by default
    hog = client.get("/api/analysis", params={"game": "hog"}, headers=ADMIN).json()
    assert hog["filter"]["goal"] == 50 and hog["turns"] == 6
    assert hog["average"]["neutral"]["mean_score"] == pytest.approx(expected_average(["hog-cy"]))
    assert "not asked" not in hog["average"] and "not asked" not in a["average"] and "not asked" not in a["quality"]


def test_the_page_and_plots_follow_the_filter(client, seeded):
    page = client.get("/analysis", params={"goal": 30}, headers=ADMIN)
    assert page.status_code == 200
    assert "Pig to 30, all participants" in page.text
    assert page.text.count('class="warning few-turns"') == 4
    assert "fewer than 30" in page.text
    for name in study.PLOTS:
        assert f"/analysis/plot/{name}.png?game=pig&amp;goal=30" in page.text
        png = client.get(f"/analysis/plot/{name}.png", params={"game": "pig", "goal": 30}, headers=ADMIN)
        assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    assert 'class="warning few-turns"' not in client.get("/analysis", headers=ADMIN).text  # 30 turns to 100
    # no internal words: the gamble answers and preferences are in words
    assert "seed 002" not in page.text and ">aa<" not in page.text and "sure £10" in page.text


def test_turn_axes_have_whole_number_ticks(seeded):
    engine = make_engine(seeded)
    db = make_sessionmaker(engine)()
    for name, goal in (("trajectories", 30), ("average", 30), ("average", 100)):
        fig = study.figure(db, name, "pig", goal)
        fig.canvas.draw()
        for ax in fig.axes:
            lo, hi = ax.get_xlim()
            ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
            assert ticks and all(float(t).is_integer() for t in ticks), (name, goal, ticks)
    db.close()
    engine.dispose()


def test_bad_filters_are_refused_with_a_sentence(client, seeded):
    r = client.get("/api/analysis", params={"game": "chess"}, headers=ADMIN)
    assert r.status_code == 422
    assert r.json()["detail"].startswith("There is no game called 'chess' in the lab; choose one of:")
    assert client.get("/api/analysis", params={"goal": 0}, headers=ADMIN).status_code == 422
    assert client.get("/api/analysis", params={"goal": 30}).status_code == 401  # the key is still needed
    r = client.get("/analysis/plot/nope.png", headers=ADMIN)
    assert r.status_code == 422 and r.json()["detail"].endswith(".")


@pytest.mark.browser
def test_analysis_page_filters_in_the_browser(browser, server_factory, tmp_path):
    db_url = f"sqlite:///{tmp_path / 'study.sqlite'}"
    seed_db(db_url)
    server = server_factory(db_url)
    server.start()
    ctx = browser.new_context(viewport={"width": 390, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/analysis")
    page.wait_for_selector("body[data-ready='1']")
    errors.clear()  # the page itself answers 401 until the key is given: not an error
    page.fill("#admin-key", ADMIN["X-Admin-Key"])
    page.click("#key-open")
    page.wait_for_selector("body[data-study=shown]")
    assert "Pig to 100, all participants" in page.inner_text("#counts")
    assert page.query_selector(".few-turns") is None
    # the goal to 30: 29 turns, a warning on each figure
    page.select_option("#filter-goal", "30")
    page.wait_for_selector("#counts:has-text('Pig to 30')")
    page.wait_for_selector("body[data-study=shown]")
    assert page.eval_on_selector_all(".few-turns", "els => els.length") == 4
    assert "29 turns, fewer than 30" in page.inner_text(".few-turns")
    assert "goal=30" in page.url  # a reload keeps the filter
    page.wait_for_function("() => [...document.querySelectorAll('#study img')].every((i) => i.naturalWidth > 0)")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # one participant
    page.select_option("#filter-participant", "bob")
    page.wait_for_selector("#counts:has-text('participant bob')")
    page.wait_for_selector("body[data-study=shown]")
    assert "1 game and 14 turns" in page.inner_text("#counts")
    page.wait_for_function("() => [...document.querySelectorAll('#study img')].every((i) => i.naturalWidth > 0)")
    # another game: its own goal
    page.select_option("#filter-game", "hog")
    page.wait_for_selector("#counts:has-text('Hog to 50')")
    page.wait_for_selector("body[data-study=shown]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors
    ctx.close()
