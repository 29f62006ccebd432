"""Issue 25, item 6: dicelab's optimal and hold-at-N strategies for three players, played inside
OpenSpiel's own ``pig`` engine, win as often as dicelab's exact evaluation says (optional: skipped
when OpenSpiel is not installed)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")

from dicelab.core.stats import wilson_interval  # noqa: E402
from dicelab.pig.nevaluation import evaluate_profile  # noqa: E402
from dicelab.pig.openspiel_check import play_in_openspiel  # noqa: E402
from dicelab.pig.rules import PigRules  # noqa: E402


@pytest.mark.slow  # 4,000 games a profile in Python: about 5 s of CPU each
@pytest.mark.parametrize("profile", [["optimal", "hold:10", "hold:6"], ["hold:8", "optimal", "keep-pace"]])
def test_openspiel_engine_gives_the_exact_chances(profile: list[str]) -> None:
    rules = PigRules(goal=25, players=3)
    games = 4000
    wins = play_in_openspiel(profile, rules, games, seed=7)
    exact = evaluate_profile(profile, rules).wins
    assert wins.sum() == games
    for w, e in zip(wins, exact, strict=True):
        lo, hi = wilson_interval(int(w), games, 0.999)
        assert lo <= e <= hi, (profile, wins.tolist(), exact)
