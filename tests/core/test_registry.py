"""The registry of games: every game package registers once, and what front ends read from it
works for every game (rules from parameters with one-line errors, the state interface, the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicelab.core import registry
from dicelab.core.errors import DicelabError
from dicelab.core.game import GameState

SRC = Path(__file__).resolve().parents[2] / "src" / "dicelab"
GAME_PACKAGES = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").exists()
                       and p.name not in ("core", "cli", "web", "envs"))


def test_every_game_package_is_registered_once():
    assert [g.name for g in registry.games()] == GAME_PACKAGES
    for g in registry.games():
        assert g.module == f"dicelab.{g.name}"
        assert registry.get(g.name) is g


def test_unknown_game_is_one_line_listing_the_games():
    with pytest.raises(DicelabError, match="unknown game 'chess'; games: hog, liars, pig, simpig, supersix"):
        registry.get("chess")


@pytest.mark.parametrize("game", registry.games(), ids=lambda g: g.name)
def test_defaults_make_rules_and_a_game_that_round_trips(game):
    defaults = {p.name: p.default for p in game.params}
    rules = game.make_rules(**defaults)
    state = game.new_game(rules, 7)
    assert isinstance(state, GameState)
    seats = getattr(rules, "players", 2)
    assert game.players[0] <= seats <= game.players[1]
    assert not state.is_over and state.to_move() and set(state.to_move()) <= set(range(seats))
    for seat in range(seats):  # every seat may look
        assert json.loads(json.dumps(state.observe(seat)))
    text = json.dumps(state.to_json())  # storable as JSON
    again = game.state_from_json(json.loads(text))
    assert again.to_json() == state.to_json()


@pytest.mark.parametrize("game", registry.games(), ids=lambda g: g.name)
def test_params_refuse_out_of_range_and_unknown_values_in_one_line(game):
    with pytest.raises(DicelabError, match="has no rule 'colour'"):
        game.make_rules(colour="red")
    for p in game.params:
        bad = "no-such-choice" if p.choices else (p.hi + 1 if p.hi is not None else -1)
        with pytest.raises(DicelabError) as info:
            game.make_rules(**{p.name: bad})
        assert "\n" not in str(info.value) and p.name in str(info.value)


def test_a_registered_game_reaches_every_front_end_loop():
    entry = registry.GameEntry(name="toy", title="Toy", about="a test game", module="dicelab.hog",
                               rules_name="HogRules", cli_name=None)
    registry.register(entry)
    try:
        assert "toy" in [g.name for g in registry.games()]
        assert registry.get("toy").make_rules().goal == 100  # Hog's rules stand in for the toy's
        with pytest.raises(DicelabError, match="registered already"):
            registry.register(registry.GameEntry(name="toy", title="Other", about="", module="dicelab.pig"))
    finally:
        registry.unregister("toy")
    assert "toy" not in [g.name for g in registry.games()]


def test_every_game_has_a_command_group():
    from typer.testing import CliRunner

    from dicelab.cli.main import app

    out = CliRunner().invoke(app, ["--help"])
    assert out.exit_code == 0
    for g in registry.games():
        assert g.cli() is not None
        assert f" {g.name} " in out.output


VERBS = ("solve", "evaluate", "best_response", "simulate", "exploitability")


@pytest.mark.parametrize("game", registry.games(), ids=lambda g: g.name)
def test_the_same_verbs_take_the_rules_in_every_game(game):
    # one signature convention (as scikit-learn has one): every verb a game offers takes its rules
    # as the parameter ``rules``; a verb a game cannot offer in that sense is absent, not aliased
    import importlib
    import inspect

    package = importlib.import_module(game.module)
    offered = [v for v in VERBS if v in package.__all__]
    assert offered, game.name
    for verb in offered:
        assert "rules" in inspect.signature(getattr(package, verb)).parameters, (game.name, verb)
