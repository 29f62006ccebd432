"""Liar's Dice in the web lab: hidden hands, legal bids only, the record replays from the seed."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.web.browsing import board_after_start
from tests.web.test_web_ux import lab_url  # noqa: F401 - the served lab, for the browser test


def new(client, **kw):
    r = client.post("/api/games", json={"game": "liars", "players": 3, "dice": 2, "opponent": "probabilistic", **kw})
    assert r.status_code == 201, r.text
    j = r.json()
    return j["id"], {"X-Game-Token": j["token"]}, j["state"]


def test_whole_game_hides_hands_and_replays(client, db_url):
    gid, h, st = new(client, opponents=["probabilistic", "agent"])
    assert len(st["hand"]) == 2 and "hands" not in st
    rounds_seen = 0
    for _ in range(300):
        if st["status"] != "playing":
            break
        b = st["bid"]
        # a simple honest player: call once the bid exceeds what the table can hold on average
        if b is not None and b[0] > sum(st["dice_counts"]) / 3:
            body = {"action": "call"}
        else:
            q, f = (b[0] + 1, b[1]) if b else (1, st["hand"][0])
            body = {"action": "bid", "quantity": q, "face": f}
        r = client.post(f"/api/games/{gid}/moves", json={**body, "expected_move": st["version"]}, headers=h)
        assert r.status_code == 200, r.text
        calls = [e for rec in r.json()["events"] for e in rec["events"] if e.get("action") == "call"]
        for rd in calls:  # a called round shows every hand and the count is right
            rounds_seen += 1
            face = rd["bid"][1]
            assert rd["matched"] == sum(d == face for hand in rd["hands"] for d in hand)
            assert (rd["loser"] == rd["seat"]) == (rd["matched"] >= rd["bid"][0])
        st = client.get(f"/api/games/{gid}", headers=h).json()
    assert st["status"] == "finished" and rounds_seen >= 1
    assert sum(1 for n in st["dice_counts"] if n > 0) == 1
    # the stored actions replay from the seed into the same game (the engine's own replay check)
    from dicelab.liars.rules import Bid, LiarsGame, LiarsRules

    con = sqlite3.connect(db_url.split("///", 1)[1])
    game = LiarsGame(LiarsRules(players=3, dice=2), st["seed"])
    for player, action in con.execute("select player, action_json from moves where game_id=? order by seq", (gid,)):
        a = json.loads(action)
        game.apply(None if a == "call" else Bid(*a["bid"]), player)
    assert game.is_over and game.winner == st["winner"]


def test_illegal_bids_change_nothing(client):
    gid, h, st = new(client)
    for body in ({"action": "call"}, {"action": "bid", "quantity": 1, "face": 9}, {"action": "bid", "quantity": 99, "face": 2},
                 {"action": "bid"}, {"action": "roll"}):
        r = client.post(f"/api/games/{gid}/moves", json={**body, "expected_move": 0}, headers=h)
        assert r.status_code == 422, (body, r.text)
    assert client.get(f"/api/games/{gid}", headers=h).json()["version"] == 0
    r = client.post(f"/api/games/{gid}/moves", json={"action": "bid", "quantity": 1, "face": 2, "expected_move": 0}, headers=h)
    assert r.status_code == 200
    assert client.post("/api/games", json={"game": "liars", "opponent": "cheater"}).status_code == 422
    assert client.get("/play/liars").status_code == 200


def test_coach_probability_is_the_binomial_tail(client):
    # no wilds: the current bid "q x F" holds given my hand when at least q - (my Fs) of the
    # unseen dice show F, each with probability 1/6: scipy's binomial tail is the reference.
    from scipy.stats import binom

    checked = 0
    for _ in range(30):
        gid, h, st = new(client, players=3, dice=3, opponent="random", coach=True)
        client.post(f"/api/games/{gid}/moves", json={"action": "bid", "quantity": 1, "face": 2, "expected_move": 0},
                    headers=h)
        st = client.get(f"/api/games/{gid}", headers=h).json()
        if st["status"] != "playing" or st["bid"] is None or st["bidder"] == 0 or not st["hand"]:
            continue
        q, f = st["bid"]
        needed = q - sum(d == f for d in st["hand"])
        unseen = sum(st["dice_counts"]) - len(st["hand"])
        expected = 1.0 if needed <= 0 else float(binom.sf(needed - 1, unseen, 1 / 6))
        assert st["coach_view"]["current_bid_holds"] == pytest.approx(expected, abs=1e-12)
        call = next(v["value"] for v in st["coach_view"]["values"] if v["action"] == "call")
        assert call == pytest.approx(1 - expected, abs=1e-12)
        checked += 1
        if checked >= 3:
            break
    assert checked >= 1


def test_the_scout_is_the_default_opponent(client):
    listed = client.get("/api/opponents").json()["opponents"]["liars"]
    assert listed[0]["spec"] == "scout" and "equilibrium" in listed[0]["name"]
    r = client.post("/api/games", json={"game": "liars"})
    assert r.status_code == 201, r.text
    assert set(r.json()["state"]["opponents"]) == {"scout"}


@pytest.mark.parametrize("human_first", [True, False])
def test_the_duel_coach_in_the_lab_reads_only_your_hand(client, db_url, human_first):
    # 2 players x 1 die x 3 faces: a 1 v 1 duel policy trains on demand; the coach answers with the
    # policy's probabilities and win probabilities, the same for every hand the bot might hold
    from dicelab import liars

    r = client.post("/api/games", json={"game": "liars", "players": 2, "dice": 1, "faces": 3, "coach": True,
                                        "human_first": human_first})
    assert r.status_code == 201, r.text
    gid, h, st = r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]
    con = sqlite3.connect(db_url.split("///", 1)[1])
    seen = 0
    for _ in range(10):
        if st["status"] != "playing":
            break
        c = st["coach_view"]
        assert c["kind"] == "win probability"
        assert sum(p["prob"] for p in c["policy"]) == pytest.approx(1.0, abs=1e-9)
        assert c["best"] in [v["action"] for v in c["values"]]
        assert "hands" not in json.dumps(c)
        (state_json,) = con.execute("select state_json from games where id=?", (gid,)).fetchone()
        s = liars.state_from_json(json.loads(state_json))
        me = st["human_seat"]
        for other in range(1, 4):  # whatever the bot holds, the same advice
            hands = list(s.engine.hands)
            hands[1 - me] = (other,)
            s.engine.hands = tuple(hands)
            assert json.loads(json.dumps(liars.PLAY.coach(s, me))) == c
        seen += 1
        best = c["best"]
        body = {"action": best} if isinstance(best, str) else {"action": "bid", "quantity": best["bid"][0],
                                                                 "face": best["bid"][1]}
        r = client.post(f"/api/games/{gid}/moves", json={**body, "expected_move": st["version"]}, headers=h)
        assert r.status_code == 200, r.text
        st = client.get(f"/api/games/{gid}", headers=h).json()
    assert seen >= 1


@pytest.mark.browser
def test_the_coach_panel_shows_the_policy_and_your_chances(browser, lab_url):  # noqa: F811 - the fixture
    # a 1 v 1 duel: the panel's rows are the coach's numbers (the policy's call and top raises,
    # your chance to win the round after each), the best move first in bold
    import httpx

    from tests.web.test_web_ux import new_page

    page, watch = new_page(browser)
    page.goto(f"{lab_url}/play/liars")
    page.select_option("#players", "2")
    page.fill("#dice", "1")
    page.click("#start")
    board_after_start(page)
    page.wait_for_selector("#coach-policy")
    gid = page.evaluate("lab.gameId()")
    token = page.evaluate("(id) => sessionStorage.getItem('dicelab-token-' + id)", gid)
    c = httpx.get(f"{lab_url}/api/games/{gid}", headers={"X-Game-Token": token}).json()["coach_view"]
    assert c["kind"] == "win probability"
    rows = page.eval_on_selector_all("#coach-policy tbody tr", "rs => rs.map(r => [...r.cells].map(x => x.textContent))")

    def text(a):
        return "Call" if a == "call" else f"Bid {a['bid'][0]} \u00d7 {a['bid'][1]}s"

    def pct(x):
        return f"{100 * x:.1f}%"

    probs = {text(p["action"]): p["prob"] for p in c["policy"]}
    wins = {text(v["action"]): v["value"] for v in c["values"]}
    holds = {text(v["action"]): v["holds"] for v in c["values"]}
    called = {text(v["action"]): v.get("called") for v in c["values"]}
    # the rows: the moves worth the same (or the best), the call, the policy's top raises
    first = [text(a) for a in c["equal"]] if len(c["equal"]) > 1 else [text(c["best"])]
    want = first + [text(p["action"]) for p in c["policy_top_raises"] if text(p["action"]) not in first]
    assert [r[0] for r in rows if r[0] != "Call"] == want
    for move, prob, held, call, win in rows:
        assert prob == pct(probs.get(move, 0.0)) and win == pct(wins[move]) and held == pct(holds[move])
        assert call == ("\u2013" if move == "Call" else pct(called[move]))
    if len(c["equal"]) > 1:  # equal moves: no "best" named among them
        assert page.query_selector("#coach-best") is None and "worth the same" in page.inner_text("#coach-equal")
    else:
        assert text(c["best"]) in page.inner_text("#coach-best")
    # play the coach's last row (often not the best), then call: when the round's cups lift, the
    # log says what your decisions of the round gave away (the coach's best minus your move's value)
    lost, move = 0.0, rows[-1][0]
    for _ in range(10):
        lost += max(wins.values()) - wins[move]
        if move == "Call":
            page.click("#call")
        else:
            q, f = move.removeprefix("Bid ").removesuffix("s").split(" \u00d7 ")
            page.fill("#quantity", q)
            page.fill("#face", f)
            page.click("#raise")
        page.wait_for_function("() => /this round/.test(document.getElementById('log').textContent) || "
                               "document.getElementById('raise').getAttribute('aria-disabled') === 'false'")
        if "this round" in page.inner_text("#log"):
            break
        c = httpx.get(f"{lab_url}/api/games/{gid}", headers={"X-Game-Token": token}).json()["coach_view"]
        wins = {text(v["action"]): v["value"] for v in c["values"]}
        move = "Call"
    log = page.inner_text("#log")
    if lost >= 0.0005:  # less rounds to 0.0%: then the log says the decisions were as good as the policy's
        assert f"gave away {pct(lost)} of your chance to win the round" in log
    else:
        assert "Your decisions this round were as good as the policy's." in log
    assert not watch.errors, watch.errors
