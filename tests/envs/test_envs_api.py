"""The environments pass the ecosystem's own checks: PettingZoo's api_test / parallel_api_test and
Gymnasium's check_env, for every game and Pig variant, at small sizes."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import dicelab.envs  # noqa: F401  (registers the Gymnasium names)
from dicelab.envs import ENVIRONMENTS, make_aec, make_parallel
from dicelab.core.errors import DicelabError

AEC_CASES = [
    ("dicelab/Pig-v0", {"goal": 20}),
    ("dicelab/Pig-v0", {"goal": 20, "variant": "piglet"}),
    ("dicelab/Pig-v0", {"goal": 20, "variant": "two-dice"}),
    ("dicelab/Pig-v0", {"goal": 15, "sides": 4, "first": None}),
    ("dicelab/Pig-v0", {"goal": 15, "players": 3}),  # issue 25: n-player Pig
    ("dicelab/Pig-v0", {"goal": 12, "players": 4, "variant": "piglet", "first": None}),
    ("dicelab/SuperSix-v0", {"sticks": 3}),
    ("dicelab/SuperSix-v0", {"sticks": 2, "players": 4}),
    ("dicelab/LiarsDice-v0", {"players": 2, "dice": 2, "faces": 4}),
    ("dicelab/LiarsDice-v0", {"players": 3, "dice": 2, "faces": 6, "wild": "ones"}),
    ("dicelab/Hog-v0", {"goal": 30}),
    ("dicelab/Hog-v0", {"goal": 20, "max_dice": 4, "sides": 4, "first": None}),
]

GYM_CASES = [
    ("dicelab/Pig-v0", {"goal": 20, "opponents": "hold:6"}),
    ("dicelab/Pig-v0", {"goal": 20, "variant": "two-dice", "opponents": "optimal", "seat": None}),
    ("dicelab/Pig-v0", {"goal": 20, "variant": "piglet", "opponents": "keep-pace"}),
    ("dicelab/Pig-v0", {"goal": 20, "players": 3, "opponents": ["optimal", "slip:0.1:hold:8"], "seat": None}),
    ("dicelab/SuperSix-v0", {"sticks": 3, "opponents": "optimal"}),
    ("dicelab/SuperSix-v0", {"sticks": 3, "players": 3, "opponents": ["always", "stop-at:2"]}),
    ("dicelab/LiarsDice-v0", {"players": 3, "dice": 2, "faces": 4, "opponents": "random"}),
    ("dicelab/LiarsDice-v0", {"players": 2, "dice": 2, "faces": 6, "opponents": "probabilistic"}),
    ("dicelab/SimPig-v0", {"goal": 20, "opponents": "hold:6"}),
    ("dicelab/Hog-v0", {"goal": 30, "opponents": "optimal", "seat": None}),
    ("dicelab/Hog-v0", {"goal": 30, "max_dice": 5, "opponents": "best-response:always:3"}),
    ("dicelab/SimPig-v0", {"goal": 20, "players": 3, "opponents": ["hold:5", "pw:4<10,goal"]}),
]


@pytest.mark.parametrize(("name", "kwargs"), AEC_CASES)
def test_pettingzoo_api(name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # advice about Dict observations, which classic games use too
        api_test(make_aec(name, **kwargs), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_parallel_api(players):
    parallel_api_test(make_parallel("dicelab/SimPig-v0", goal=20, players=players), num_cycles=200)


@pytest.mark.parametrize(("name", "kwargs"), GYM_CASES)
def test_gymnasium_check_env(name, kwargs):
    env = gym.make(name, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no render fps: these environments render text only
        check_env(env.unwrapped)


def test_every_name_is_registered():
    for name in ENVIRONMENTS:
        assert name in gym.registry


def test_seeding_replays_the_game():
    def trajectory(seed):
        env = gym.make("dicelab/Pig-v0", goal=20, opponents="hold:5")
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"].tolist()]
        done = False
        while not done:
            obs, r, term, trunc, _ = env.step(int(obs["observation"][2] < 4))
            out.append(obs["observation"].tolist() + [r])
            done = term or trunc
        return out

    assert trajectory(11) == trajectory(11)
    assert any(trajectory(11) != trajectory(s) for s in range(12, 16))


def test_action_masks():
    e = make_aec("dicelab/SuperSix-v0", sticks=3)
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    assert obs["action_mask"].tolist() == [0, 1]  # round 1: everybody must throw
    e = make_aec("dicelab/LiarsDice-v0", players=2, dice=1, faces=3)
    e.reset(seed=0)
    mask = e.observe("player_0")["action_mask"]
    assert mask.tolist() == [0] + [1] * 6  # no call before the first bid; bids 1x1 .. 2x3
    assert e.observe("player_1")["action_mask"].sum() == 0
    e.step(1 + 4)  # bid (2, 2)
    assert e.observe("player_1")["action_mask"].tolist() == [1, 0, 0, 0, 0, 0, 1]


def test_illegal_move_forfeits_in_gymnasium():
    env = gym.make("dicelab/SuperSix-v0", sticks=3, opponents="always")
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"][0] == 0
    _, reward, terminated, _, info = env.step(0)
    assert reward == -1.0 and terminated and info["illegal_action"]


def test_bad_options_are_one_line_errors():
    with pytest.raises(DicelabError, match="unknown environment"):
        make_aec("dicelab/Chess-v0")
    with pytest.raises(DicelabError, match="make_parallel"):
        make_aec("dicelab/SimPig-v0")
    with pytest.raises(DicelabError, match="variant"):
        make_aec("dicelab/Pig-v0", variant="three-dice")
    with pytest.raises(DicelabError):
        gym.make("dicelab/Pig-v0", goal=20, opponents="hold:x")
    with pytest.raises(DicelabError, match="opponent"):
        gym.make("dicelab/SuperSix-v0", players=3, opponents=["always"])


def test_game_decided_before_the_learners_first_move():
    env = gym.make("dicelab/Pig-v0", goal=2, opponents="optimal", seat=0, first=1).unwrapped
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        if not obs["action_mask"].any():  # the opponent rolled to 2 at once (probability 5/6)
            _, reward, terminated, _, _ = env.step(1)
            assert terminated and reward == -1.0
            with pytest.raises(DicelabError, match="game is over"):
                env.step(1)
            return
    raise AssertionError("the opponent never won in its first turn in 20 games")
