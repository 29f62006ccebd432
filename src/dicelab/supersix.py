"""Super Six in dicelab: rules, exact optimal play, strategy comparison, simulation.

The game (seed 001; Jehn, arXiv 2109.10700): a lid with five pits and a hole marked 6; every player
starts with some sticks (4 by default). A 6 puts one of the thrower's sticks into the hole, 1-5 on
an empty pit puts one into that pit, 1-5 on a filled pit takes that stick and ends the turn. In round
1 everybody throws once; afterwards every turn starts with a forced throw, and after each throw that
does not end the turn the player may throw again or stop. The first player without sticks wins.

>>> from dicelab import supersix as ss
>>> sol = ss.solve(ss.SuperSixRules(sticks=4))
>>> round(sol.start_player_win(), 3)                 # seed 001: 0.602
0.602
>>> round(sol.win_probability(5, 1, 1, forced=1), 7)  # seed 001's first table row
0.4512917
>>> sol.action(5, 1, 1)                              # five pits filled: stop
'stop'
>>> round(ss.evaluate("always", "optimal").mean, 4) < 0.5
True

Verbs:

* :func:`solve` — exact optimal play for two players (layered policy iteration, see
  :mod:`dicelab.solvers.supersix`), or max-n value iteration for 3 to 6 players.
* :func:`evaluate` — exact win probabilities of one strategy against another (two players).
* :func:`best_response` — the exact best reply to a fixed strategy and its result (two players).
* :func:`simulate` — Monte Carlo games for any number of players, with confidence intervals from
  :mod:`dicelab.sim.stats` (the same helpers as Pig).

Strategies are spec strings (``optimal``, ``always``, ``stop-at:N``) or Python callables
``decide(lid, own, others) -> bool``; see :mod:`dicelab.strategies.supersix`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dicelab.errors import require
from dicelab.games.supersix import MAX_GAMES, SuperSixGame, SuperSixRules
from dicelab.sim.stats import interval
from dicelab.solvers.supersix import (
    HeadToHead,
    MaxNSolution,
    SuperSixSolution,
    best_response_two,
    evaluate_two,
    solve_maxn,
    solve_two,
)
from dicelab.strategies.supersix import Strategy, parse, policy_array

__all__ = [
    "SuperSixRules",
    "SuperSixSolution",
    "MaxNSolution",
    "HeadToHead",
    "Strategy",
    "solve",
    "evaluate",
    "best_response",
    "simulate",
    "parse",
    "parse_strategy",
]

parse_strategy = parse  # the name every game's facade uses

Spec = str | Callable[..., bool] | Strategy
BATCH = 500


def solve(rules: SuperSixRules | None = None) -> SuperSixSolution | MaxNSolution:
    """Exact two-player optimum, or the max-n policy for more players."""
    rules = rules or SuperSixRules()
    return solve_two(rules) if rules.players == 2 else solve_maxn(rules)


def evaluate(a: Spec, b: Spec, rules: SuperSixRules | None = None) -> HeadToHead:
    """Exact P(A wins) against B: when A starts, when B starts, and their mean (two players)."""
    rules = rules or SuperSixRules()
    require(rules.players == 2, f"exact evaluation is for two players, got players={rules.players}")
    sa, sb = parse(a, rules), parse(b, rules)
    return evaluate_two(rules, policy_array(rules, sa), policy_array(rules, sb))


def best_response(b: Spec, rules: SuperSixRules | None = None) -> tuple[Strategy, HeadToHead]:
    """The strategy that beats B most often (two players), and its exact result against B."""
    rules = rules or SuperSixRules()
    require(rules.players == 2, f"best response is for two players, got players={rules.players}")
    sb = parse(b, rules)
    throw, result = best_response_two(rules, policy_array(rules, sb))

    def decide(lid: int, own: int, others: tuple[int, ...]) -> bool:
        return bool(throw[lid, own, others[0]])

    return Strategy(f"best-response({sb.name})", decide), result


def simulate(
    specs: Sequence[Spec],
    rules: SuperSixRules | None = None,
    games: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    rotate: bool = False,
    method: str = "wilson",
) -> dict[str, Any]:
    """Play ``games`` games and report each strategy's wins with a confidence interval.

    ``specs[n]`` plays seat ``n`` (seat 0 throws first) unless ``rotate`` is set, in which case game
    ``g`` seats strategy ``n`` at seat ``(n + g) mod P`` so that each strategy starts equally often.
    Games run in batches of 500, batch ``b`` with its own stream ``SeedSequence(seed).spawn``: the
    same seed gives the same result.
    """
    rules = rules or SuperSixRules(players=len(specs))
    require(
        len(specs) == rules.players,
        f"give one strategy per player ({rules.players}), got {len(specs)}",
    )
    require(isinstance(games, int) and 1 <= games <= MAX_GAMES,
            f"games must be a whole number from 1 to {MAX_GAMES}, got {games}")
    require(isinstance(seed, int) and seed >= 0, f"seed must be a whole number >= 0, got {seed}")
    strategies = [parse(s, rules) for s in specs]
    P = rules.players
    wins = np.zeros(P, dtype=np.int64)
    n_batches = -(-games // BATCH)
    streams = np.random.SeedSequence(seed).spawn(n_batches)
    g = 0
    for b in range(n_batches):
        rng = np.random.default_rng(streams[b])
        for _ in range(min(BATCH, games - b * BATCH)):
            shift = g % P if rotate else 0
            seats = [strategies[(s - shift) % P] for s in range(P)]
            winner_seat = SuperSixGame(rules, seats, rng).play()
            wins[(winner_seat - shift) % P] += 1
            g += 1
    results = []
    for n, st in enumerate(strategies):
        lo, hi = interval(int(wins[n]), games, confidence, method)
        results.append(
            {"strategy": st.name, "seat": None if rotate else n, "wins": int(wins[n]),
             "rate": float(wins[n] / games), "ci_low": lo, "ci_high": hi}
        )
    return {
        "rules": rules.to_dict(),
        "games": games,
        "seed": seed,
        "confidence": confidence,
        "rotate": rotate,
        "results": results,
    }
