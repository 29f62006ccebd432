"""The leaderboard (benchmarks/leaderboard.py, docs/leaderboard.md): its grades are the exact grades of
the policies it trains, checked here against the strategy lab's own evaluator, and the docs page is the
committed data (docs/leaderboard.json) rendered, with every number inside the range its law allows."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

from dicelab import pig

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def board():
    pytest.importorskip("gymnasium", reason="the envs extra is not installed")
    spec = importlib.util.spec_from_file_location("leaderboard", ROOT / "benchmarks" / "leaderboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_q_learning_grades_are_the_strategy_labs_numbers(board):
    """Train a little, then evaluate the learned policy with `pig.evaluate` (the strategy lab's
    evaluator, another code path than the grader): the leaderboard's last grade must be its number."""
    game = board.GAMES["piglet"]
    curve, policy = board.q_learning(game, steps=600, every=300)
    assert [c["steps"] for c in curve] == [300, 600]
    rules = pig.PigRules(**game["rules"])

    def as_strategy(i, j, k):  # the policy asked as the environment would ask it (rolling is action 1)
        mask = np.array([1, 1], np.int8)  # both moves are always legal in Pig
        return bool(policy({"observation": np.array([i, j, k, 1]), "action_mask": mask}))

    e = pig.evaluate(as_strategy, "optimal", rules)
    last = curve[-1]
    assert last["win_first"] == pytest.approx(e.a_first, abs=1e-12)
    assert last["win_second"] == pytest.approx(e.a_second, abs=1e-12)
    assert last["win"] == pytest.approx((e.a_first + e.a_second) / 2, abs=1e-12)
    assert 0 < last["mean_loss"] <= last["worst_loss"] <= 1


def _rows(page: str, title: str) -> dict[str, list[str]]:
    section = page.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    return {r[0].strip(): [c.strip() for c in r[1:]] for r in rows[1:]}


def test_the_docs_page_is_the_data_and_obeys_the_laws(board):
    data_path, page_path = DOCS / "leaderboard.json", DOCS / "leaderboard.md"
    assert data_path.exists() and page_path.exists(), "run `make leaderboard` (or benchmarks/leaderboard.py --out docs)"
    data, page = json.loads(data_path.read_text()), page_path.read_text()
    assert page == board.page(data), "docs/leaderboard.md is stale: benchmarks/leaderboard.py --render --out docs"
    for name, game in board.GAMES.items():
        runs = data["games"][name]
        rows = _rows(page, game["title"])
        for agent in set(board.AGENTS) - set(runs["agents"]):  # skipped (no [rl] extra) or not finished
            assert rows[agent][0].startswith("not run")
        assert "Q-learning" in runs["agents"]  # needs nothing beyond `make install`
        for agent, curve in runs["agents"].items():
            steps = [c["steps"] for c in curve]
            assert steps == list(range(runs["every"], runs["budget"] + 1, runs["every"]))
            last = curve[-1]
            if "exploitability" in last:  # payoff +-1 per round: 0 at an equilibrium, at most 1
                assert all(0 <= c["exploitability"] <= 1 + 1e-12 for c in curve)
                assert rows[agent][0] == f"{last['exploitability']:.4f}"
            else:  # nobody beats optimal play in either seat; the seats average to the win
                p0 = pig.solve(pig.PigRules(**game["rules"])).win_probability(0, 0, 0)
                for c in curve:
                    assert 0 <= c["win_first"] <= p0 + 1e-12 and 0 <= c["win_second"] <= 1 - p0 + 1e-12
                    assert c["win"] == pytest.approx((c["win_first"] + c["win_second"]) / 2, abs=1e-12)
                    assert 0 <= c["mean_loss"] <= c["worst_loss"] <= 1
                assert rows[agent][0] == f"{last['win']:.4f}"
        assert re.search(rf"img/leaderboard-{name}\.png", page) and (DOCS / "img" / f"leaderboard-{name}.png").exists()
