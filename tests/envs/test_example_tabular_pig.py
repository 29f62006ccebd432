"""The example trains a tabular agent on dicelab/Pig-v0 and grades it exactly against optimal."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_tabular_pig.py"


def load_example():
    spec = importlib.util.spec_from_file_location("train_tabular_pig", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tabular_agent_learns_piglet_and_is_graded_exactly(capsys):
    result = load_example().main(
        ["--goal", "10", "--variant", "piglet", "--episodes", "2000", "--json"]
    )
    learned, untrained = result["learned"], result["always_roll"]
    # laws of the exact evaluation: against optimal no policy gets more than half overall, and the
    # two seats' chances of the learned policy add up with the optimal player's to 1
    assert learned["a_overall"] <= 0.5 + 1e-12
    assert untrained["a_overall"] <= 0.5 + 1e-12
    assert learned["stalemate"] == pytest.approx(0.0, abs=1e-12)
    # the agent learned: from under 2% (always rolling) to well over a third of the games
    assert untrained["a_overall"] < 0.02
    assert learned["a_overall"] > 0.3
    assert capsys.readouterr().out.count("\n") == 1  # --json: exactly one JSON object
