"""The review of a game and its share link (issue 14, items 3 and 5), through the JSON API.

The truth is the game's own public API, not the web lab: each test plays a game through the lab,
then replays it here from the seed the finished game shows and the recorded actions (``new_game``,
``apply``) and asks the game's ``Play.coach`` at every state; the review's points, values and
labels must equal those numbers, labelled by the issue's thresholds (more than 1%, 3%, 8% of win
probability given away).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from dicelab.core import registry

THRESHOLDS = (("blunder", 0.08), ("mistake", 0.03), ("inaccuracy", 0.01))  # the numbers
WIN = "win probability"
ROUND = "chance to win the round"  # Liar's Dice duels: the coach values the round

GAMES = {  # small games that stay quick; bots that build nothing heavy
    "pig": {"goal": 25, "opponent": "hold:10"},
    "hog": {"goal": 30},
    "supersix": {"sticks": 3},
    "simpig": {"goal": 20, "opponent": "hold:12"},
    # 2 v 2 dice with 3 faces: every duel size it meets trains on demand; rounds valued on their own
    "liars": {"players": 2, "dice": 2, "faces": 3},
}


def play_out(client, game: str, body: dict[str, Any], pick=None) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Create a game and play it to the end (the human takes its legal actions in turn)."""
    r = client.post("/api/games", json={"game": game, **body})
    assert r.status_code == 201, r.text
    gid, h, st = r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]
    n = 0
    while st["status"] == "playing":
        legal = st["legal_actions"]
        action = pick(st, n) if pick else legal[(n * 7) % len(legal)]
        r = client.post(f"/api/games/{gid}/moves", json={"action": action, "expected_move": st["version"]}, headers=h)
        assert r.status_code == 200, r.text
        st = r.json()["state"]
        n += 1
        assert n < 500
    return gid, h, client.get(f"/api/games/{gid}", headers=h).json()


def coach(play: Any, state: Any, seat: int, against: str | None) -> dict[str, Any] | None:
    if against is not None and "against" in inspect.signature(play.coach).parameters:
        return play.coach(state, seat, against=against)
    return play.coach(state, seat)


def expected(st: dict[str, Any]) -> list[dict[str, Any]]:
    """Per state of the finished game ``st`` (read by its player): the human's chance to win and
    the human's decision (chosen, best), from the game's public API and its coach."""
    entry = registry.get(st["game"])
    play = entry.play
    state = entry.new_game(entry.make_rules(**st["rules"]), st["seed"])
    human, moves = st["human_seat"], st["moves"]
    out, at = [], 0
    while not state.is_over:
        seats = sorted(state.to_move())
        group = moves[at:at + len(seats)]
        at += len(seats)
        assert [m["player"] for m in group] == seats
        row: dict[str, Any] = {"win": None}
        for m in group:
            if m["actor"] == "human":
                c = coach(play, state, human, st["opponents"][0])
                if c and c["kind"] in (WIN, ROUND):
                    vals = {str(v["action"]): v["value"] for v in c["values"]}
                    row.update(win=max(vals.values()), chosen=vals[str(m["action"])], best=max(vals.values()))
            elif len(seats) == 1 and len(state.returns()) == 2:
                c = play.coach(state, m["player"])
                if c and c["kind"] in (WIN, ROUND):
                    row["win"] = 1 - max(v["value"] for v in c["values"])
        state.apply(group[0]["action"] if len(group) == 1 else {str(m["player"]): m["action"] for m in group})
        out.append(row)
    assert at == len(moves)
    out.append({"win": state.returns()[human]})
    return out


def label(loss: float) -> str | None:
    return next((name for name, over in THRESHOLDS if loss > over), None)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_review_values_are_the_coachs_replayed_from_the_games_public_api(client, game):
    gid, h, st = play_out(client, game, GAMES[game])
    r = client.get(f"/api/games/{gid}/review", headers=h)
    assert r.status_code == 200, r.text
    rv = r.json()
    want = expected(st)
    assert rv["graph"] is True and rv["why"] is None
    assert rv["measure"] == ("round" if game == "liars" else "game")
    assert len(rv["steps"]) == len(want) - 1
    assert rv["thresholds"] == {name: over for name, over in THRESHOLDS}
    for step, w in zip(rv["steps"], want, strict=False):
        assert step["win"] == pytest.approx(w["win"], abs=1e-12) if w["win"] is not None else step["win"] is None
        assert step["position"] == (step["position"] | {})  # a position of every finished step
        mine = [mv for mv in step["moves"] if mv["actor"] == "human"]
        if "chosen" in w:
            mv, = mine
            assert mv["value"] == pytest.approx(w["chosen"], abs=1e-12)
            assert mv["best_value"] == pytest.approx(w["best"], abs=1e-12)
            loss = w["best"] - w["chosen"]
            assert mv["loss"] == pytest.approx(loss, abs=1e-12)
            assert mv["label"] == label(loss)
            assert ("advice" in mv) == (mv["label"] in ("mistake", "blunder"))
        else:
            assert all("label" not in mv for mv in mine)
    assert rv["final"]["win"] == want[-1]["win"]
    labels = [mv["label"] for s in rv["steps"] for mv in s["moves"] if mv.get("label")]
    assert rv["summary"]["labels"] == {name: labels.count(name) for name, _ in THRESHOLDS}
    # the share link shows the same review without the token, and nothing that opens the game
    shared = client.get(f"/api/games/shared/{st['share_id']}")
    assert shared.status_code == 200, shared.text
    assert shared.json()["steps"] == rv["steps"] and "share_id" not in shared.json()
    assert h["X-Game-Token"] not in shared.text and h["X-Game-Token"] not in st["share_id"]


def test_pig_advice_names_optimal_plays_hold_total():
    """Pig's advice hook: "Optimal play holds at T here; you rolled at K with I banked and the
    opponent on J", T the solver's hold threshold (the lowest turn total it holds at)."""
    from dicelab.pig.play import solution
    from dicelab.pig.rules import PigRules

    entry = registry.get("pig")
    rules = PigRules(goal=50)
    sol = solution(rules)
    said = 0
    for seed in range(40):
        state = entry.new_game(rules, seed)
        while not state.is_over and said < 3:
            obs = state.observe(state.to_move()[0])
            i, j, k = obs["scores"][obs["seat"]], obs["scores"][1 - obs["seat"]], obs["turn_total"]
            best = sol.action(i, j, k)
            text = entry.play.advice(state, obs["seat"], "roll")
            if best == "hold" and sol.hold_threshold(i, j) <= k:
                assert text == (f"Optimal play holds at {sol.hold_threshold(i, j)} here; you rolled at {k} "
                                f"with {i} banked and the opponent on {j}.")
                said += 1
            elif best == "roll":
                assert text is None
            state.apply("roll" if k < 25 else "hold")  # past optimal play's hold totals at times
    assert said == 3


def test_liars_review_shows_the_moves_and_says_why_without_win_probabilities(client):
    gid, h, st = play_out(client, "liars", {"dice": 1, "opponent": "random"},
                          pick=lambda s, n: "call" if "call" in s["legal_actions"] else s["legal_actions"][0])
    rv = client.get(f"/api/games/{gid}/review", headers=h).json()
    entry = registry.get("liars")
    state = entry.new_game(entry.make_rules(**st["rules"]), st["seed"])
    c = coach(entry.play, state, st["human_seat"], st["opponents"][0]) if st["human_seat"] in state.to_move() else None
    assert len(rv["steps"]) == len(st["moves"])
    assert [mv["action"] for s in rv["steps"] for mv in s["moves"]] == [m["action"] for m in st["moves"]]
    want = expected(st)  # a point where the coach gives a chance to win (a duel at the end), none elsewhere
    assert [s["win"] for s in rv["steps"]] == pytest.approx([w["win"] for w in want[:-1]])
    graphed = any(w["win"] is not None for w in want[:-1])
    assert rv["graph"] is graphed
    if c is not None and c["kind"] not in (WIN, ROUND):  # four players: "chance the bid holds"
        assert c["kind"] in rv["why"] and "not a chance to win" in rv["why"]
        assert all("values" not in mv and "label" not in mv for s, w in zip(rv["steps"], want, strict=False)
                   if w["win"] is None for mv in s["moves"])


def test_a_live_games_review_and_share_show_public_events_only(client):
    r = client.post("/api/games", json={"game": "pig", "goal": 30, "opponent": "hold:10"})
    gid, h, st = r.json()["id"], {"X-Game-Token": r.json()["token"]}, r.json()["state"]
    for _ in range(3):
        st = client.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": st["version"]},
                         headers=h).json()["state"]
    assert st["status"] == "playing"
    for rv in (client.get(f"/api/games/{gid}/review", headers=h).json(), client.get(f"/api/games/shared/{st['share_id']}").json()):
        assert rv["status"] == "playing" and rv["graph"] is False and "still being played" in rv["why"]
        assert "seed" not in rv and "position" not in rv["final"]
        assert sum(len(s["moves"]) for s in rv["steps"]) == st["version"]
        assert all("position" not in s and s["win"] is None for s in rv["steps"])


def test_unknown_ids_and_bad_tokens_are_refused_in_one_line(client):
    r = client.post("/api/games", json={"game": "pig", "goal": 20, "opponent": "hold:10"})
    gid, sid = r.json()["id"], r.json()["state"]["share_id"]
    other = client.post("/api/games", json={"game": "pig", "goal": 20, "opponent": "hold:10"}).json()
    tampered = sid[:-1] + ("A" if sid[-1] != "A" else "B")
    answers = [
        (client.get("/api/games/nosuchgame/review", headers={"X-Game-Token": "x"}), 404),
        (client.get(f"/api/games/{gid}/review"), 403),
        (client.get(f"/api/games/{gid}/review", headers={"X-Game-Token": "x" * 32}), 403),
        (client.get(f"/api/games/{gid}/review", headers={"X-Game-Token": other["token"]}), 403),
        (client.get("/api/games/shared/nosuchshare"), 404),
        (client.get(f"/api/games/shared/{tampered}"), 404),
        (client.get(f"/api/games/shared/{gid}"), 404),  # the game id alone opens nothing
        (client.get(f"/api/games/shared/{other['state']['share_id'].split('.')[0]}.{sid.split('.')[1]}"), 404),
    ]
    for resp, code in answers:
        assert resp.status_code == code, resp.text
        assert set(resp.json()) == {"detail"} and "\n" not in resp.json()["detail"]
    assert client.get(f"/api/games/shared/{sid}").status_code == 200
    for page in (f"/review/{gid}", f"/share/{sid}", "/games"):
        assert client.get(page).status_code == 200


def test_three_players_the_review_says_why_when_the_coach_gives_no_numbers(client):
    gid, h, st = play_out(client, "simpig", {"goal": 15, "players": 3, "opponent": "hold:5"})
    rv = client.get(f"/api/games/{gid}/review", headers=h).json()
    want = expected(st)  # the coach replayed here: with three players it may answer nothing
    rated = [w for w in want[:-1] if w["win"] is not None]
    assert rv["players"] == 3 and len(rv["steps"]) == len(want) - 1
    if not rated:
        assert rv["graph"] is False and "more than two players" in rv["why"]
    else:  # a coach that rates three-player positions: points at the human's decisions only
        assert rv["graph"] is True
        for s, w in zip(rv["steps"], want, strict=False):
            assert (s["win"] is None) == (w["win"] is None) and (s["win"] is None or abs(s["win"] - w["win"]) < 1e-12)


@pytest.mark.parametrize("game, rules", [("hog", {"goal": 30}), ("supersix", {"sticks": 3})])
def test_advice_hooks_name_the_best_move_and_the_position(game, rules):
    """Hog's and Super Six's advice: None for the best move, else a sentence that names the coach's
    best move and the position as the seat sees it (its score or its sticks)."""
    entry = registry.get(game)
    play = entry.play
    said = 0
    for seed in range(6):
        state = entry.new_game(entry.make_rules(**rules), seed)
        while not state.is_over:
            seat = state.to_move()[0]
            c = play.coach(state, seat)
            legal = state.legal_actions(seat)
            if c is not None:
                best = max(c["values"], key=lambda v: v["value"])["action"]
                obs = state.observe(seat)
                for a in legal:
                    text = play.advice(state, seat, a)
                    if a == best:
                        assert text is None
                        continue
                    assert text.startswith("Optimal play ") and text.endswith(".")
                    if game == "hog":
                        assert f"rolls {best['dice']} " in text and f"you rolled {a['dice']}." in text
                        assert f"with {obs['scores'][seat]} banked and the opponent on {obs['scores'][1 - seat]}" in text
                    else:
                        assert ("stops" in text) == (best == "stop")
                        assert f"{obs['counts'][seat]} stick" in text and f"and {obs['counts'][1 - seat]} to the opponent" in text
                    said += 1
            state.apply(legal[seed % len(legal)])
    assert said >= 3
