"""The generic puzzle machinery (dicelab.core.puzzles) and the shipped puzzle set.

The toy source below has hand-made values, so every claim (margin, which rules fail, the rating,
the balance of answers, the seed) is checked against numbers written here. The shipped set is
checked for the laws every puzzle must obey (the best move is the one of highest value, the margin
is the gap to the second, at least one rule of thumb misses it, ids are unique) and is rebuilt in
part from its recorded seed (tests/<game>/test_<game>_puzzles.py re-derive the values themselves
from independent references).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import numpy as np
import pytest

from dicelab.core import puzzles as pz
from dicelab.core import registry
from dicelab.core.errors import DicelabError

SHIPPED = pz.load()


def cand(values: dict[str, float], thumbs: list[str], position: int = 0) -> pz.Candidate:
    return pz.Candidate(
        game="toy", setting="Toy", rules={"n": 1}, position={"p": position}, question="?", board=[],
        kind="win probability", moves=[pz.Move(a, a.title(), v) for a, v in values.items()],
        thumbs=[pz.Thumb(f"rule {n}", a) for n, a in enumerate(thumbs)], why="Because.")


def test_margin_failed_and_qualifies_by_hand():
    c = cand({"roll": 0.55, "hold": 0.52, "wait": 0.10}, ["hold", "roll"])
    assert pz.margin(c) == pytest.approx(0.03)
    assert [t.action for t in pz.failed(c)] == ["hold"]
    assert pz.qualifies(c)
    assert not pz.qualifies(c, min_margin=0.031)  # the gap is 3 points
    assert not pz.qualifies(cand({"roll": 0.55, "hold": 0.52}, ["roll"]))  # every rule is right
    assert not pz.qualifies(cand({"roll": 0.999, "hold": 0.5}, ["hold"]))  # a sure thing
    assert not pz.qualifies(cand({"roll": 0.04, "hold": 0.01}, ["hold"]))  # a lost cause
    assert not pz.qualifies(cand({"roll": 0.5}, ["hold"]))  # one move is no choice


def test_rating_grows_with_rules_failing_and_with_closeness():
    assert pz.rating(1.0, pz.MIN_MARGIN) == 1800
    assert pz.rating(0.5, pz.EASY_MARGIN) == 1200
    assert pz.rating(0.5, 0.5) == 1200  # beyond the easy margin: no closer
    assert pz.rating(1.0, 0.05) > pz.rating(0.5, 0.05) > pz.rating(0.5, 0.08)
    rec = pz.to_record(cand({"a": 0.6, "b": 0.5}, ["b", "b", "a"]))
    assert rec["failed"] == 2 and rec["rating"] == pz.rating(2 / 3, 0.1)
    assert rec["best"] == "a" and rec["margin"] == pytest.approx(0.1)
    assert [t["right"] for t in rec["thumbs"]] == [False, False, True]


class Toy:
    """Positions 0, 1, 2, ...: even ones are won by "roll", odd ones by "hold" (a rule says hold
    always), every third is a repeat of the one before; two settings."""

    def settings(self) -> list[dict[str, Any]]:
        return [{"n": 1}, {"n": 2}]

    def candidates(self, setting: dict[str, Any], rng: np.random.Generator) -> Iterator[pz.Candidate]:
        p = int(rng.integers(0, 1000)) * 10
        while True:
            for q in (p, p + 1, p + 1):
                best, other = ("roll", "hold") if q % 2 == 0 else ("hold", "roll")
                c = cand({best: 0.6, other: 0.5}, ["hold", "roll"], q)
                c.rules = setting
                yield c
            p += 2


def test_draw_is_seeded_deduplicated_shared_and_balanced():
    a = pz.draw(Toy(), 7, seed=3)
    assert a == pz.draw(Toy(), 7, seed=3)
    assert a != pz.draw(Toy(), 7, seed=4)
    assert len(a) == 7 and len({r["id"] for r in a}) == 7
    assert [r["rules"]["n"] for r in a] == [1, 1, 1, 1, 2, 2, 2]  # 4 + 3: the first takes the rest
    first = [r for r in a if r["rules"]["n"] == 1]
    assert sum(r["best"] == "roll" for r in first) == 2  # no answer takes more than 60% (of 4: 3)


def test_a_setting_that_runs_short_leaves_its_share_to_the_next():
    class Short(Toy):
        def candidates(self, setting, rng):
            gen = super().candidates(setting, rng)
            return (next(gen) for _ in range(2)) if setting["n"] == 1 else gen

    got = pz.draw(Short(), 6, seed=0)
    assert [r["rules"]["n"] for r in got].count(1) == 2 and len(got) == 6


def test_save_and_load_check_the_checksum(tmp_path):
    doc = {"seed": 1, "count": 1, "games": {}, "seconds": 0.0, "puzzles": [pz.to_record(cand({"a": 0.6, "b": 0.5}, ["b"]))]}
    path = pz.save(tmp_path / "set.json", doc)
    assert pz.load(path)["puzzles"] == doc["puzzles"]
    text = path.read_text()
    path.write_text(text.replace('"a"', '"c"', 1))
    with pytest.raises(DicelabError, match="checksum; the file is damaged"):
        pz.load(path)
    path.write_text(json.dumps({**json.loads(text), "kind": "other"}))
    with pytest.raises(DicelabError, match="expected 'dicelab-puzzles'"):
        pz.load(path)
    path.write_bytes(b"\xff not json")
    with pytest.raises(DicelabError, match="not valid JSON"):
        pz.load(path)
    with pytest.raises(DicelabError, match="no document"):
        pz.load(tmp_path / "missing.json")
    with pytest.raises(DicelabError, match="store's own keys"):
        pz.save(tmp_path / "x.json", {"kind": "x"})


def test_puzzle_of_the_day_changes_daily_and_covers_the_set():
    items = [{"id": str(n)} for n in range(183)]
    days = [pz.of_the_day(items, date(2026, 1, 1).fromordinal(date(2026, 1, 1).toordinal() + d))["id"] for d in range(183)]
    assert len(set(days)) == 183  # 7919 is prime to 183: every puzzle once in 183 days
    assert pz.of_the_day([], date(2026, 1, 1)) is None


def test_every_game_offers_puzzles_through_its_play_hook():
    offering = [g.name for g in registry.games() if pz.source_of(g) is not None]
    assert offering == ["hog", "liars", "pig", "simpig", "supersix"]


# ---- the shipped set

def test_the_shipped_set_obeys_the_puzzle_laws():
    puzzles = SHIPPED["puzzles"]
    assert len({p["id"] for p in puzzles}) == len(puzzles) >= 150
    by_game = {g: SHIPPED["games"][g]["min_margin"] for g in SHIPPED["games"]}
    assert set(by_game) == {"hog", "liars", "pig", "simpig", "supersix"}
    for p in puzzles:
        values = sorted((m["value"] for m in p["moves"]), reverse=True)
        best = max(p["moves"], key=lambda m: m["value"])
        assert pz.same(best["action"], p["best"]), p["id"]
        assert p["margin"] == pytest.approx(values[0] - values[1], abs=1e-8)
        assert p["margin"] >= by_game[p["game"]] - 1e-12, p["id"]
        assert pz.LOST_CAUSE <= values[0] < pz.SURE_THING
        wrong = [t for t in p["thumbs"] if not pz.same(t["action"], p["best"])]
        assert p["failed"] == len(wrong) >= 1 and all(not t["right"] for t in wrong)
        assert p["rating"] == pz.rating(len(wrong) / len(p["thumbs"]), p["margin"], by_game[p["game"]])
        assert p["why"] and "\n" not in p["why"] and p["question"] and p["board"]
        assert p["id"] == pz.puzzle_id(p["game"], p["rules"], p["position"])
    assert len(json.dumps(SHIPPED).encode()) < 400_000  # a few hundred KB at most


def test_rebuilding_part_of_the_shipped_set_from_its_seed_agrees():
    """Super Six's share, rebuilt with the recorded seed and count, is the shipped one exactly."""
    entry = registry.get("supersix")
    got = pz.draw(pz.source_of(entry), SHIPPED["count"], SHIPPED["seed"])
    shipped = [p for p in SHIPPED["puzzles"] if p["game"] == "supersix"]
    assert got == shipped
