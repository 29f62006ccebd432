"""Exact grades of learned policies: ``dicelab.grade(env_id, policy)`` and ``dicelab grade``.

A policy plays one of dicelab's environments (:mod:`dicelab.envs`): it sees the environment's
observation, a dict ``{"observation": int array, "action_mask": int8 array}``, and answers an action
index. dicelab grades it without playing a single game: the game's grading hook
(:class:`dicelab.core.registry.Grades`) lists every observation a seat can face, exactly as the
environment's ``encode`` writes it, asks the policy for all of them once, and evaluates the decision
table it gets with the game's exact solvers. A policy is

* a Python callable ``policy(observation) -> action`` (the observation dict above);
* a Stable-Baselines3 model, or the ``.zip`` it was saved to (DQN, PPO, A2C; it plays greedily: the
  legal action with the largest Q value or probability). The zip is read without unpickling
  anything: the spaces and classes it would unpickle are supplied from the environment;
* a table file: ``.npz`` with arrays ``observations`` (one row per observation) and ``actions``, or
  ``.csv`` with one row per observation, its values, then the action in the last column.

For Pig, Hog, Super Six and two-player simultaneous Pig the grade is the win probability against
optimal play in both seats and the win chance lost per decision (mean and worst, weighted exactly by
how often a game against optimal play reaches each decision); for a Liar's Dice duel it is the exact
exploitability (local best response beyond the exact solver's reach).
"""

from __future__ import annotations

import json
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core import registry
from dicelab.core.errors import DicelabError, require

Decide = Callable[[np.ndarray, np.ndarray], np.ndarray]
BATCH = 4096
MAX_TABLE_ROWS = 5_000_000


def game_of(env_id: str) -> registry.GameEntry:
    """The registered game behind an environment name (``dicelab/Pig-v0``) or a game name."""
    import dicelab.envs as envs

    if env_id in envs.ENVIRONMENTS:
        return registry.get(envs.ENVIRONMENTS[env_id][4]["game"])
    names = [g.name for g in registry.games()]
    if env_id in names:
        return registry.get(env_id)
    raise DicelabError(f"unknown environment {str(env_id)[:60]!r}; choose one of {', '.join(envs.ENVIRONMENTS)}")


# ------------------------------------------------------------------------------------------------
# policies -> decide(observations, masks) -> actions


def _legal(actions: np.ndarray, masks: np.ndarray, obs: np.ndarray) -> np.ndarray:
    n_actions = masks.shape[1]
    bad = (actions < 0) | (actions >= n_actions)
    ok = ~bad
    bad[ok] = masks[np.flatnonzero(ok), actions[ok]] == 0
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        legal = np.flatnonzero(masks[r]).tolist()
        raise DicelabError(f"the policy chose action {int(actions[r])} at observation {obs[r].tolist()}, where the "
                           f"legal actions are {legal} (see the observation's action_mask)")
    return actions


def from_callable(policy: Callable[[dict[str, np.ndarray]], Any], progress: bool = False) -> Decide:
    """Ask a callable one observation at a time."""
    from dicelab.core.progress import progress_bar

    def decide(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = obs.copy(), masks.copy()
        obs.flags.writeable = masks.flags.writeable = False  # the policy sees views it cannot change
        out = np.empty(len(obs), np.int64)
        with progress_bar("asking the policy", total=len(obs), enabled=progress and len(obs) > 50_000) as bar:
            for r in range(len(obs)):
                out[r] = _ask(policy, obs, masks, r)
                if r % 10_000 == 9_999:
                    bar.advance(10_000)
        return out

    return decide


def _ask(policy: Callable[[dict[str, np.ndarray]], Any], obs: np.ndarray, masks: np.ndarray, r: int) -> int:
    a = policy({"observation": obs[r], "action_mask": masks[r]})
    try:
        return a if type(a) is int else int(np.asarray(a).reshape(-1)[0])
    except (TypeError, ValueError, IndexError):
        raise DicelabError(f"the policy must return an action index, got {str(a)[:60]!r} at observation "
                           f"{obs[r].tolist()}") from None


def from_table(path: Path) -> Decide:
    """A table file: observation rows and their actions (``.npz`` or ``.csv``)."""
    suffix = path.suffix.lower()
    if suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                require("observations" in z and "actions" in z,
                        f"{path.name}: a policy table holds the arrays 'observations' and 'actions'")
                obs, act = np.asarray(z["observations"]), np.asarray(z["actions"])
        except (ValueError, zipfile.BadZipFile, OSError) as exc:
            raise DicelabError(f"{path.name} is not a readable .npz policy table: {exc}") from None
    else:
        try:
            rows = np.loadtxt(path, delimiter=",", dtype=np.int64, ndmin=2, comments="#",
                              skiprows=_header_rows(path), max_rows=MAX_TABLE_ROWS)
        except ValueError as exc:
            raise DicelabError(f"{path.name}: every row must be whole numbers, observation then action ({exc})") from None
        require(rows.shape[1] >= 2, f"{path.name}: a row is the observation's values, then the action")
        obs, act = rows[:, :-1], rows[:, -1]
    require(obs.ndim == 2 and act.ndim == 1 and len(obs) == len(act),
            f"{path.name}: one action per observation row")
    require(np.issubdtype(obs.dtype, np.integer) and np.issubdtype(act.dtype, np.integer),
            f"{path.name}: observations and actions must be whole numbers")
    table = {tuple(int(x) for x in o): int(a) for o, a in zip(obs.tolist(), act.tolist(), strict=True)}
    width = obs.shape[1]

    def decide(o: np.ndarray, masks: np.ndarray) -> np.ndarray:
        require(o.shape[1] == width, f"{path.name} has {width} values per observation; this game has {o.shape[1]}")
        out = np.empty(len(o), np.int64)
        for r, row in enumerate(o.tolist()):
            a = table.get(tuple(row))
            if a is None:
                raise DicelabError(f"{path.name} has no action for observation {row}")
            out[r] = a
        return out

    return decide


def _header_rows(path: Path) -> int:
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    return 0 if all(c.isdigit() or c in ",- \t\r\n" for c in first) else 1


SB3_ALGOS = ("DQN", "PPO", "A2C")


def load_sb3(path: Path, env: Any, algo: str | None = None) -> Any:
    """A Stable-Baselines3 model from its zip, with nothing unpickled: every pickled entry of the zip's
    ``data`` is replaced by what the environment provides (its spaces; constant schedules; the
    algorithm's own policy class). Entries dicelab cannot supply are refused with one line."""
    try:
        import stable_baselines3 as sb3
    except ImportError:
        raise DicelabError("grading a saved model needs Stable-Baselines3: pip install 'dicelab[rl]'") from None
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data").decode("utf-8"))
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DicelabError(f"{path.name} is not a Stable-Baselines3 model zip ({exc})") from None
    guess = ("DQN" if "exploration_schedule" in data or "target_update_interval" in data
             else "PPO" if "clip_range" in data else "A2C" if "use_rms_prop" in data else None)
    name = (algo or guess or "").upper()
    require(name in SB3_ALGOS, f"{path.name}: cannot tell the algorithm; give one of {', '.join(SB3_ALGOS)}")
    cls = getattr(sb3, name)
    obs_space = env.observation_space
    custom: dict[str, Any] = {}
    for key, value in data.items():
        if not (isinstance(value, dict) and ":serialized:" in value):
            continue
        if key == "observation_space":
            custom[key] = _matching_space(value, obs_space, path.name)
        elif key == "action_space":
            n = str(value.get("n", ""))
            require(n in ("", str(env.action_space.n)),
                    f"{path.name} was trained with {n} actions; this environment has {env.action_space.n}")
            custom[key] = env.action_space
        elif key == "policy_class":
            dict_obs = "Dict" in str(data.get("observation_space", {}).get(":type:", ""))
            custom[key] = cls.policy_aliases["MultiInputPolicy" if dict_obs else "MlpPolicy"]
        elif key in ("lr_schedule", "exploration_schedule", "clip_range", "clip_range_vf", "learning_rate"):
            custom[key] = _constant
        elif key == "train_freq":
            from stable_baselines3.common.type_aliases import TrainFreq, TrainFrequencyUnit

            custom[key] = TrainFreq(1, TrainFrequencyUnit.STEP)
        elif key in ("_last_obs", "_last_original_obs", "_last_episode_starts", "ep_info_buffer",
                     "ep_success_buffer", "_episode_storage", "rollout_buffer_class", "rollout_buffer_kwargs",
                     "replay_buffer_class", "replay_buffer_kwargs", "action_noise"):
            custom[key] = None
        else:
            raise DicelabError(f"{path.name} stores {key!r} as pickled Python, which dicelab does not load")
    try:
        return cls.load(path, custom_objects=custom, device="cpu")
    except DicelabError:
        raise
    except Exception as exc:  # noqa: BLE001 - a foreign file: say what failed in one line
        raise DicelabError(f"cannot load {path.name} as a {name} model: {type(exc).__name__}: {exc}") from None


def _constant(_progress: float) -> float:
    return 0.0


def _matching_space(value: dict[str, Any], obs_space: Any, name: str) -> Any:
    """The environment's observation space, or its ``"observation"`` part when the model was trained
    on the bare vector (as in dicelab's leaderboard); refused when the sizes differ."""
    if "Dict" in str(value.get(":type:", "")):
        return obs_space
    vector = obs_space["observation"] if hasattr(obs_space, "spaces") else obs_space
    got = " ".join(str(value.get("nvec", "")).strip("[]").split())
    want = " ".join(str(x) for x in np.asarray(vector.nvec).tolist())
    require(not got or got == want, f"{name} was trained on observations of sizes [{got}]; this environment's "
                                    f"are [{want}] (other rules?)")
    return vector


def from_sb3(model: Any) -> Decide:
    """Greedy play of a Stable-Baselines3 model, restricted to legal actions."""
    import torch

    dict_obs = hasattr(model.observation_space, "spaces")

    def decide(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.empty(len(obs), np.int64)
        for lo in range(0, len(obs), BATCH):
            o, m = obs[lo:lo + BATCH], masks[lo:lo + BATCH]
            x = {"observation": o, "action_mask": m} if dict_obs else o
            with torch.no_grad():
                t, _ = model.policy.obs_to_tensor(x)
                if hasattr(model.policy, "q_net"):
                    score = model.policy.q_net(t).cpu().numpy()
                else:
                    score = model.policy.get_distribution(t).distribution.probs.cpu().numpy()
            score = np.where(m > 0, score, -np.inf)
            out[lo:lo + BATCH] = np.argmax(score, axis=1)
        return out

    return decide


def as_decide(policy: Any, env: Any = None, algo: str | None = None, progress: bool = False) -> tuple[Decide, str]:
    """``(decide, description)`` for any policy form the module docstring lists."""
    if isinstance(policy, (str, Path)):
        path = Path(policy)
        require(path.exists(), f"no policy file {str(policy)[:200]!r}")
        suffix = path.suffix.lower()
        if suffix == ".zip":
            require(env is not None, "a saved model needs its environment")
            return from_sb3(load_sb3(path, env, algo)), f"Stable-Baselines3 model {path.name}"
        require(suffix in (".npz", ".csv"), f"a policy file is a .zip (Stable-Baselines3), .npz or .csv, got {path.name}")
        return from_table(path), f"table {path.name}"
    if hasattr(policy, "predict") and hasattr(policy, "policy"):
        return from_sb3(policy), f"Stable-Baselines3 {type(policy).__name__}"
    if callable(policy):
        return from_callable(policy, progress), getattr(policy, "__name__", type(policy).__name__)
    raise DicelabError(f"a policy is a callable, a Stable-Baselines3 model or a policy file, got {type(policy).__name__}")


def checked(decide: Decide) -> Decide:
    """``decide`` that answers forced rows itself (one legal action) and checks every answer is legal."""

    def run(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(obs, dtype=np.int64)
        masks = np.ascontiguousarray(masks, dtype=np.int8)
        out = np.argmax(masks, axis=1).astype(np.int64)
        ask = masks.sum(axis=1) > 1
        if ask.any():
            got = np.asarray(decide(obs[ask], masks[ask]), dtype=np.int64).reshape(-1)
            require(len(got) == int(ask.sum()), "the policy must give one action per observation")
            out[ask] = _legal(got, masks[ask], obs[ask])
        return out

    return run


# ------------------------------------------------------------------------------------------------
# the grade


@dataclass
class Grade:
    """The exact grade of one policy in one environment; ``result`` is the game's answer."""

    env_id: str
    game: str
    rules: dict[str, Any]
    policy: str
    result: dict[str, Any]
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.result[key]

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "game": self.game, "rules": self.rules, "policy": self.policy,
                "seconds": round(self.seconds, 3), **self.result}

    def lines(self) -> list[str]:
        """The grade in plain words."""
        r = self.result
        if r.get("kind") == "win":
            out = [f"wins {r['win_first']:.2%} moving first and {r['win_second']:.2%} moving second against "
                   f"optimal play (optimal play itself: {r['optimal_first']:.2%} / {r['optimal_second']:.2%})",
                   f"gives away {r['mean_loss']:.3%} win chance per decision on average "
                   f"({(r['first']['decisions_per_game'] + r['second']['decisions_per_game']) / 2:.1f} decisions "
                   f"per game)"]
            if r.get("worst_state"):
                out.append(f"worst decision: {r['worst_loss']:.2%} lost when it {r['worst_state']['text']}")
            return out
        lines = [f"exploitability {r['exploitability']:.4f} ({r['method']}; 0 is unexploitable, payoff +-1 per round)"]
        for d in r.get("duels", []):
            lines.append(f"  {d['dice'][0]} v {d['dice'][1]} dice: {d['exploitability']:.4f} ({d['method']})")
        return lines


def grade(env_id: str, policy: Any, *, algo: str | None = None, progress: bool = False,
          **rule_params: Any) -> Grade:
    """The exact grade of ``policy`` (module docstring) in the environment ``env_id`` with the rule
    parameters ``rule_params`` (as for ``gymnasium.make``: ``goal=10, variant="piglet"``)."""
    game = game_of(env_id)
    play = game.play
    require(play is not None and callable(getattr(play, "grade", None)),
            f"dicelab cannot grade {game.title} policies yet")
    rules = game.rules(**rule_params)
    env = None
    if isinstance(policy, (str, Path)) and Path(policy).suffix.lower() == ".zip":
        import gymnasium

        import dicelab.envs  # noqa: F401  (registers the environments)

        name = env_id if "/" in env_id else next(k for k, v in dicelab.envs.ENVIRONMENTS.items()
                                                   if v[4]["game"] == game.name)
        env = gymnasium.make(name, **rule_params).unwrapped
    decide, description = as_decide(policy, env, algo, progress)
    t0 = time.perf_counter()
    result = play.grade(rules, checked(decide), progress=progress)
    to_dict = getattr(rules, "to_dict", None)
    return Grade(env_id, game.name, to_dict() if callable(to_dict) else dict(rule_params), description, result,
                 time.perf_counter() - t0)


__all__ = ["Grade", "as_decide", "checked", "game_of", "grade", "load_sb3"]
