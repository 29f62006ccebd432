"""Pig for three and four players in the web lab (issue 25, item 4), through the JSON API: a game
against bots played to the end, the coach's numbers against Pig's n-player solution solved afresh
here (not the lab's cached one), the review's chances, bad player counts, and the background
builder's plan (three players at goal 100 are solved ahead, never in a request)."""

from __future__ import annotations

import math
import time

import pytest

from dicelab.core import registry
from dicelab.pig import PigRules, new_game, solve_n
from dicelab.web import ahead
from tests.web.conftest import PoliteClient

ENTRY = registry.get("pig")


def expected_values(sol, scores, k, goal):
    """The mover's chance if it rolls and if it holds at ``scores`` (mover first), turn total ``k``,
    from the solution's own look-ups: a 1 hands the turn on, every other face adds (or wins)."""
    roll = sol.start_vector(scores[1:] + scores[:1])[-1] / 6
    for d in range(2, 7):
        roll += (1.0 if scores[0] + k + d >= goal else sol.win_probabilities(scores, k + d)[0]) / 6
    hold = sol.start_vector(scores[1:] + (scores[0] + k,))[-1] if k else None
    return roll, hold


def mover_first(scores, seat):
    n = len(scores)
    return tuple(scores[(seat + r) % n] for r in range(n))


def test_a_three_player_game_against_bots_with_the_exact_coach(client):
    goal = 25
    r = client.post("/api/games", json={"game": "pig", "goal": goal, "players": 3, "coach": True,
                                        "opponents": ["optimal", "slip:0.1:hold:15"], "human_first": True})
    assert r.status_code == 201, r.text
    gid, h, st = r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]
    assert st["rules"]["players"] == 3 and len(st["scores"]) == 3 and st["human_seat"] == 0
    assert st["opponents"] == ["optimal", "slip:0.1:hold:15"]
    sol = solve_n(PigRules(goal=goal, players=3))  # independent of the lab's cache
    decisions = 0
    while st["status"] == "playing":
        me = mover_first(st["scores"], st["human_seat"])
        k = st["turn_total"]
        want_roll, want_hold = expected_values(sol, me, k, goal)
        vals = {v["action"]: v["value"] for v in st["coach_view"]["values"]}
        assert vals["roll"] == pytest.approx(want_roll, abs=1e-12)
        if k == 0:  # with three players a turn total of 0 must roll: no hold to offer or value
            assert st["legal_actions"] == ["roll"] and "hold" not in vals
        else:
            assert vals["hold"] == pytest.approx(want_hold, abs=1e-12)
        chances = st["coach_view"]["chances"]
        assert math.fsum(chances) == pytest.approx(1.0, abs=1e-12) and chances[0] == pytest.approx(max(vals.values()))
        action = "roll" if k < 8 else "hold"
        r = client.post(f"/api/games/{gid}/moves", json={"action": action, "expected_move": st["version"]}, headers=h)
        assert r.status_code == 200, r.text
        bots = [e for e in r.json()["events"] if e["actor"] == "bot"]
        assert all(e["player"] in (1, 2) for e in bots)
        st = r.json()["state"]
        decisions += 1
        assert decisions < 300
    st = client.get(f"/api/games/{gid}", headers=h).json()
    assert st["winner"] in (0, 1, 2) and max(st["scores"]) >= goal and st["scores"][st["winner"]] >= goal
    # the game replays from its seed and moves: the lab's winner is the rules' winner
    replay = new_game(PigRules(goal=goal, players=3), st["seed"])
    for m in st["moves"]:
        replay.apply(m["action"])
    assert replay.is_over and replay.scores == st["scores"]
    rv = client.get(f"/api/games/{gid}/review", headers=h).json()
    assert rv["players"] == 3 and rv["graph"] is True and rv["multiplayer_note"]
    with_chances = [s for s in rv["steps"] if s.get("chances")]
    assert len(with_chances) >= len(rv["steps"]) // 2  # bots' moves too, once the coach gave chances
    for s in with_chances:
        assert math.fsum(s["chances"]) == pytest.approx(1.0, abs=1e-12)
        mover = [mv["seat"] for mv in s["moves"]][0]
        pos = mover_first(s["position"]["scores"], mover)
        want_roll, want_hold = expected_values(sol, pos, s["position"]["turn_total"], goal)
        best = max(want_roll, want_hold if want_hold is not None else 0.0)
        assert s["chances"][mover] == pytest.approx(best, abs=1e-12)


def test_four_players_and_bad_player_counts_say_what_is_allowed(client):
    r = client.post("/api/games", json={"game": "pig", "goal": 12, "players": 4, "opponent": "hold:6", "human_first": False})
    assert r.status_code == 201, r.text
    st = r.json()["state"]
    assert len(st["scores"]) == 4 and st["human_seat"] == 3 and st["opponents"] == ["hold:6"] * 3
    for body, words in [
        ({"players": 5}, "players must be from 2 to 4, got 5"),
        ({"players": 1}, "players must be from 2 to 4, got 1"),
        ({"players": "three"}, "players"),
        ({"players": 4, "goal": 60}, "four players up to goal 40"),
        ({"players": 3, "variant": "two-dice"}, "two-dice Pig is for two players"),
        ({"players": 3, "goal": 20, "opponent": "best-response:hold:20"}, "for 3 players; allowed: optimal"),
        ({"players": 3, "goal": 20, "opponents": ["hold:5", "hold:5", "hold:5"]}, "one per bot seat (2)"),
    ]:
        r = client.post("/api/games", json={"game": "pig", **body})
        assert 400 <= r.status_code < 500, (body, r.text)
        detail = r.json()["detail"]
        text = detail if isinstance(detail, str) else str(detail)
        assert words.lower() in text.lower() and "Traceback" not in text and "\n" not in text, (body, text)


def test_three_players_at_goal_100_are_solved_ahead_not_in_a_request(monkeypatch):
    plan = ahead.Readiness(pool=None, prepare=None)
    try:
        plan.plan()
        items = [it for it in plan.pending if it.game == "pig" and it.kind == "prepare"]
        params = [it.params for it in items]
        assert {"players": 3, "goal": 100, "variant": "standard"}.items() <= params[1].items()
        assert params[2]["players"] == 4 and params[2]["goal"] == 40
        assert items[1].specs[-1] == "optimal"  # the levels, the coach's solution with them
    finally:
        plan.stop()
    # once prepared (what the builder's item does), a game start solves nothing
    rules = ENTRY.make_rules(goal=30, players=3)
    ENTRY.play.prepare(["optimal"], rules)
    import dicelab.pig.nsolver as nsolver

    monkeypatch.setattr(nsolver, "solve_n", lambda *a, **k: pytest.fail("solved inside a request"))
    assert ENTRY.play.ready(["optimal", "hold:20"], rules)
    state = ENTRY.new_game(rules, 3)
    t0 = time.perf_counter()
    for _ in range(20):
        ENTRY.play.coach(state, 0)
        ENTRY.play.bot("optimal", rules, seed=1).act(state, 0)
    assert (time.perf_counter() - t0) / 20 < 0.05  # a coach look-up and a bot's move: far under 50 ms


def test_the_builder_prepares_three_players_before_any_game_asks(db_url, cache_dir, monkeypatch):
    """The background builder (create_app(warm=True)) works through Pig's prepare_also items: at a
    small goal here, so that the test is short; afterwards the solution is in memory (no game start
    builds it) and on disk (the next server start only loads it)."""
    
    from dicelab.pig import play as pig_play
    from dicelab.web.app import create_app

    goal = 21
    monkeypatch.setattr(type(ENTRY.play), "prepare_also",
                        lambda self: [{"title": "three players", "params": {"players": 3, "goal": goal}}])
    plan = ahead.Readiness.plan

    def pig_only(self) -> None:
        plan(self)
        self.pending = [it for it in self.pending if it.game == "pig" and it.params.get("players") == 3]

    monkeypatch.setattr(ahead.Readiness, "plan", pig_only)
    rules = ENTRY.make_rules(players=3, goal=goal)
    pig_play._solutions.discard(rules)
    assert not ENTRY.play.ready(["optimal"], rules)
    with PoliteClient(create_app(db_url, warm=True)) as c:
        t0 = time.monotonic()
        while not c.get("/api/ready").json()["ready"]:
            assert time.monotonic() - t0 < 120, c.get("/api/ready").json()
            time.sleep(0.2)
        p = c.get("/api/ready").json()
        assert p["done"] == p["total"] == 1 and p["failed"] == 0
        assert ENTRY.play.ready(["optimal", "soft:0.01", "slip:0.1:hold:15"], rules)
        r = c.post("/api/games", json={"game": "pig", "players": 3, "goal": goal, "coach": True})
        assert r.status_code == 201 and r.json()["state"]["coach_view"]["kind"] == "win probability"
    assert any(cache_dir.rglob("pig-nsolution*")), sorted(p.name for p in cache_dir.rglob("*"))[:10]
