"""Q-learning for Liar's Dice, as in seed 004 (Oehm, *Q-learning example with Liar's Dice*).

The agent (seat 0) learns a Q table over a compact state (dice on the table, own dice,
probability bucket) against bots, with the seed's rewards and update; ``design="extended"`` also
chooses how to raise. The state, actions, rewards and update are described in
``docs/methods/liars.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats as _st

from dicelab.core.errors import require
from dicelab.core.progress import progress_bar
from dicelab.core.stats import wilson_interval
import dicelab.liars.kernel as K
from dicelab.liars.rules import Bid, LiarsRules, PlayerView
from dicelab.liars.strategies import best_face, raise_bid, raise_distribution

BOTS: tuple[str, ...] = ("random", "probabilistic")
DESIGNS: dict[str, tuple[int, int]] = {"seed": (2, 1), "extended": (3, 6)}  # (actions, raise buckets)
CHUNK = 1000  # games per kernel call: fixed, so results do not depend on progress reporting
TABLE_KIND = "liars-q-table"


def binomial_tails(rules: LiarsRules) -> np.ndarray:
    """``tails[w, n, x] = P(Binomial(n, p_w) >= x)`` with p_0 = 1/faces and p_1 = 2/faces."""
    m = rules.total_dice
    out = np.zeros((2, m + 1, m + 2))
    for w, p in enumerate((1.0 / rules.faces, min(1.0, 2.0 / rules.faces))):
        for n in range(m + 1):
            x = np.arange(m + 2)
            out[w, n] = np.where(x <= 0, 1.0, _st.binom.sf(x - 1, n, p))
            out[w, n, n + 1 :] = 0.0
            out[w, n, 0] = 1.0
    return out


def n_states(rules: LiarsRules, design: str = "seed") -> int:
    _, rb = DESIGNS[design]
    return (rules.total_dice + 1) * (rules.dice + 1) * K.N_BUCKETS * rb


def _check_design(design: str) -> None:
    require(design in DESIGNS, f"unknown state design {design!r}; choose one of {', '.join(DESIGNS)}")


def _kinds(agent_seat: str | None, opponents: list[str], rules: LiarsRules) -> np.ndarray:
    require(
        len(opponents) == rules.players - 1,
        f"need {rules.players - 1} opponents for {rules.players} players, got {len(opponents)}",
    )
    codes = {"agent": K.KIND_AGENT, "random": K.KIND_RANDOM, "probabilistic": K.KIND_PROBABILISTIC}
    kinds = [codes[agent_seat or "agent"]]
    for o in opponents:
        require(o in BOTS or o == "agent", f"unknown opponent {o!r}; choose from random, probabilistic, agent")
        kinds.append(K.KIND_FROZEN if o == "agent" else codes[o])
    return np.array(kinds, dtype=np.int64)


@dataclass
class QAgent:
    """A Q table with the rules and state design it was trained for."""

    rules: LiarsRules
    q: np.ndarray
    design: str = "seed"
    bluff: float = 0.5
    games_trained: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(cls, rules: LiarsRules, design: str = "seed", bluff: float = 0.5) -> QAgent:
        _check_design(design)
        require(0.0 <= bluff <= 1.0, f"bluff must be a probability from 0 to 1, got {bluff}")
        return cls(rules, np.zeros((n_states(rules, design), DESIGNS[design][0])), design, bluff)

    # -- storage (dicelab.core.store: .npz + JSON with checksum; no pickle) ----------------------------
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The Q table and the metadata stored by :meth:`save` and the cache."""
        meta = {
            **self.meta,
            "rules": self.rules.to_dict(),
            "design": self.design,
            "bluff": self.bluff,
            "games_trained": self.games_trained,
        }
        return {"q": self.q}, meta

    def save(self, path: str) -> str:
        from dicelab.core.store import save_table

        return str(save_table(path, TABLE_KIND, *self.to_arrays()))

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> QAgent:
        """Rebuild a stored agent; the Q table must fit its rules and state design."""
        from dicelab.core.store import STORE_KEYS, expect_array

        rules = LiarsRules(**meta["rules"])
        design = meta["design"]
        _check_design(design)
        q = expect_array(arrays, "q", (n_states(rules, design), DESIGNS[design][0]), np.float64)
        own = {"rules", "design", "bluff", "games_trained", *STORE_KEYS}
        extra = {k: v for k, v in meta.items() if k not in own}
        return cls(rules, q, design, float(meta.get("bluff", 0.5)), int(meta.get("games_trained", 0)), extra)

    @classmethod
    def load(cls, path: str) -> QAgent:
        from dicelab.core.store import load_as

        return load_as(path, TABLE_KIND, cls.from_arrays)

    # -- the policy, for the Python engine ----------------------------------------------------
    def state_index(self, view: PlayerView) -> int:
        r = self.rules
        _, rb_n = DESIGNS[self.design]
        total = view.dice_on_table
        own = len(view.hand)
        bid = view.current_bid
        bucket = K.N_BUCKETS - 1 if bid is None else min(K.N_BUCKETS - 1, int(np.floor(20 * view.prob_bid_holds())))
        rb = 0
        if rb_n > 1:
            nq = (0 if bid is None else bid.quantity) + 1
            if nq <= total and own > 0:
                pr = view.prob_bid_holds(Bid(nq, best_face(view)))
                rb = min(rb_n - 1, int(np.floor((rb_n - 1) * pr)))
        return ((total * (r.dice + 1) + own) * K.N_BUCKETS + bucket) * rb_n + rb

    def action(self, view: PlayerView, rng: np.random.Generator) -> int:
        """Greedy action (ties at random): 0 call, 1 raise (2 bluff in the extended design)."""
        n_act = DESIGNS[self.design][0]
        lo = 1 if view.current_bid is None else 0
        row = self.q[self.state_index(view), lo:n_act]
        best = np.flatnonzero(row == row.max())
        return lo + int(best[rng.integers(len(best))]) if len(best) > 1 else lo + int(best[0])

    def greedy_actions(self, view: PlayerView) -> np.ndarray:
        """The actions with the largest Q value (the agent picks among them uniformly)."""
        n_act = DESIGNS[self.design][0]
        lo = 1 if view.current_bid is None else 0
        row = self.q[self.state_index(view), lo:n_act]
        return lo + np.flatnonzero(row == row.max())

    def action_distribution(self, view: PlayerView) -> dict[Bid | None, float]:
        """The exact distribution of the agent's next move (None is the call)."""
        check_rules(view.rules, self.rules)
        best = self.greedy_actions(view)
        out: dict[Bid | None, float] = {}
        q = 0 if view.current_bid is None else view.current_bid.quantity
        for a in best:
            w = 1.0 / len(best)
            if a == 0 or q + 1 > view.dice_on_table:
                out[None] = out.get(None, 0.0) + w
                continue
            bluff = self.bluff if DESIGNS[self.design][0] == 2 else (0.0 if a == 1 else 1.0)
            for bid, p in raise_distribution(view, bluff).items():
                out[bid] = out.get(bid, 0.0) + w * p
        return out

    def __call__(self, view: PlayerView, rng: np.random.Generator) -> Bid | None:
        check_rules(view.rules, self.rules)
        a = self.action(view, rng)
        q = 0 if view.current_bid is None else view.current_bid.quantity
        if a == 0 or q + 1 > view.dice_on_table:
            return None
        bluff = self.bluff if DESIGNS[self.design][0] == 2 else (0.0 if a == 1 else 1.0)
        return raise_bid(view, rng, bluff)


def check_rules(got: LiarsRules, want: LiarsRules) -> None:
    require(
        got == want,
        f"the agent was trained for {want.players} players x {want.dice} dice x {want.faces} faces "
        f"(wild {want.wild}), not {got.players} x {got.dice} x {got.faces} (wild {got.wild})",
    )


@dataclass
class TrainResult:
    agent: QAgent
    winners: np.ndarray  # winning seat of every training game
    seconds: float

    @property
    def games(self) -> int:
        return int(len(self.winners))

    @property
    def win_rate(self) -> float:
        return float(np.mean(self.winners == 0)) if len(self.winners) else float("nan")

    def final_win_rate(self, last: int = 1000) -> float:
        """Share of wins over the last ``last`` training games."""
        w = self.winners[-last:]
        return float(np.mean(w == 0)) if len(w) else float("nan")


def _chunk_seeds(seed: int, n_chunks: int) -> list[int]:
    ss = np.random.SeedSequence(seed)
    return [int(c.generate_state(1, np.uint32)[0]) for c in ss.spawn(n_chunks)]


def _run(agent_q: np.ndarray, rules: LiarsRules, kinds: np.ndarray, design: str, games: int, seed: int,
         alpha: float, gamma: float, epsilon: float, bluff: float, learn: bool, progress: bool,
         label: str, pairing: int = 0) -> np.ndarray:
    n_act, rb = DESIGNS[design]
    tails = binomial_tails(rules)
    winners = np.full(games, -1, dtype=np.int64)
    n_chunks = (games + CHUNK - 1) // CHUNK
    seeds = _chunk_seeds(seed, n_chunks)
    with progress_bar(label, total=games, enabled=progress and games >= 5 * CHUNK) as bar:
        for c in range(n_chunks):
            lo, hi = c * CHUNK, min(games, (c + 1) * CHUNK)
            out = winners[lo:hi]
            K.play_games(agent_q, rules.players, rules.dice, rules.faces, rules.wild_code, kinds, n_act, rb,
                         hi - lo, seeds[c], alpha, gamma, epsilon, bluff, learn, pairing, tails, out)
            bar.advance(hi - lo)
    return winners


def train(
    rules: LiarsRules | None = None,
    games: int = 5000,
    seed: int = 0,
    opponents: list[str] | None = None,
    alpha: float = 0.1,
    gamma: float = 0.9,
    epsilon: float = 0.0,
    design: str = "seed",
    bluff: float = 0.5,
    agent: QAgent | None = None,
    progress: bool = False,
    pairing: str = "earlier",
) -> TrainResult:
    """Train the seat-0 agent for ``games`` games against ``opponents`` (default: all ``random``).

    ``pairing="earlier"`` credits a transition to the action chosen in the earlier state (textbook
    Q-learning); ``pairing="seed"`` copies the seed's R loop (the later row's action).
    """
    rules = rules or LiarsRules()
    opponents = list(opponents) if opponents is not None else ["random"] * (rules.players - 1)
    require(isinstance(games, int) and games >= 1, f"games must be a whole number of at least 1, got {games}")
    require(0.0 < alpha <= 1.0, f"alpha (step size) must lie in (0, 1], got {alpha}")
    require(0.0 <= gamma <= 1.0, f"gamma (discount) must lie in [0, 1], got {gamma}")
    require(0.0 <= epsilon <= 1.0, f"epsilon must lie in [0, 1], got {epsilon}")
    if agent is None:
        agent = QAgent.new(rules, design, bluff)
    else:
        check_rules(rules, agent.rules)
    require(pairing in ("earlier", "seed"), f"unknown pairing {pairing!r}; choose earlier or seed")
    kinds = _kinds(None, opponents, rules)
    t0 = time.perf_counter()
    winners = _run(agent.q, rules, kinds, agent.design, games, seed, alpha, gamma, epsilon, agent.bluff,
                   True, progress, "training", 0 if pairing == "earlier" else 1)
    seconds = time.perf_counter() - t0
    agent.games_trained += games
    agent.meta.update({"opponents": opponents, "alpha": alpha, "gamma": gamma, "epsilon": epsilon, "seed": seed})
    return TrainResult(agent, winners, seconds)


def cached_agent(rules: LiarsRules | None = None, games: int = 5000, seed: int = 0) -> QAgent:
    """The agent of ``train(rules, games, seed)`` (defaults otherwise), through the on-disk cache."""
    rules = rules or LiarsRules()
    require(isinstance(games, int) and games >= 1, f"games must be a whole number of at least 1, got {games}")
    require(isinstance(seed, int) and seed >= 0, f"seed must be a whole number of at least 0, got {seed}")
    from dicelab.core.store import cached

    def from_arrays(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> QAgent:
        agent = QAgent.from_arrays(arrays, meta)
        require(agent.rules == rules and agent.design == "seed", "the agent was trained for other rules")
        return agent

    return cached(TABLE_KIND, {"rules": rules.to_dict(), "games": games, "seed": seed},
                  lambda: train(rules, games=games, seed=seed).agent, QAgent.to_arrays, from_arrays)


@dataclass(frozen=True)
class EvalResult:
    wins: int
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"win_rate": self.win_rate, "ci_low": self.ci_low, "ci_high": self.ci_high, "games": self.games,
                "wins": self.wins, "seconds": self.seconds}


def evaluate(
    agent: QAgent | str,
    opponents: list[str] | None = None,
    games: int = 2000,
    seed: int = 1,
    rules: LiarsRules | None = None,
    confidence: float = 0.95,
    progress: bool = False,
) -> EvalResult:
    """Win rate of seat 0 (a trained agent, or the bot ``"random"`` / ``"probabilistic"``) with a Wilson interval.

    The agent plays greedily and does not learn. Other seats may be bots or ``"agent"`` (a frozen copy).
    """
    if isinstance(agent, QAgent):
        rules = rules or agent.rules
        check_rules(rules, agent.rules)
        q, design, bluff, seat = agent.q, agent.design, agent.bluff, None
    else:
        require(agent in BOTS, f"unknown agent {agent!r}; give a Q-table file or one of {', '.join(BOTS)}")
        rules = rules or LiarsRules()
        q, design, bluff, seat = np.zeros((1, 2)), "seed", 0.5, agent
    opponents = list(opponents) if opponents is not None else ["random"] * (rules.players - 1)
    require(isinstance(games, int) and games >= 1, f"games must be a whole number of at least 1, got {games}")
    if seat is not None:
        require("agent" not in opponents, "opponent 'agent' needs a trained agent in seat 0")
    kinds = _kinds(seat, opponents, rules)
    t0 = time.perf_counter()
    winners = _run(q, rules, kinds, design, games, seed, 0.1, 0.9, 0.0, bluff, False, progress, "evaluating")
    seconds = time.perf_counter() - t0
    wins = int(np.sum(winners == 0))
    lo, hi = wilson_interval(wins, games, confidence)
    return EvalResult(wins, games, wins / games, lo, hi, seconds)


def learning_curve(winners: np.ndarray, window: int = 500) -> dict[str, np.ndarray]:
    """The seed's figure (cumulative share of agent wins) and a moving average over ``window`` games."""
    w = (np.asarray(winners) == 0).astype(float)
    n = np.arange(1, len(w) + 1)
    cum = np.cumsum(w) / n
    k = max(1, min(window, len(w)))
    moving = np.convolve(w, np.ones(k) / k, mode="valid")
    return {"games": n, "cumulative": cum, "moving_games": np.arange(k, len(w) + 1), "moving": moving}
