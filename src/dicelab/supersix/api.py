"""Super Six's verbs on strategy specs: parse the specs, then run the exact algorithms or the
simulation on strategy objects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.results import BestResponse, HeadToHead
from dicelab.core.stats import interval
from dicelab.supersix.rules import MAX_GAMES, SuperSixGame, SuperSixRules
from dicelab.supersix.solver import (
    MaxNSolution,
    SuperSixSolution,
    best_response_two,
    evaluate_two,
    solve_maxn,
    solve_two,
)
from dicelab.supersix.strategies import Strategy, parse, policy_array

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
    return evaluate_two(rules, policy_array(rules, sa), policy_array(rules, sb), (sa.name, sb.name))


def best_response(b: Spec, rules: SuperSixRules | None = None) -> BestResponse:
    """The strategy that beats B most often (two players), and its exact result against B."""
    rules = rules or SuperSixRules()
    require(rules.players == 2, f"best response is for two players, got players={rules.players}")
    sb = parse(b, rules)
    name = f"best-response({sb.name})"
    throw, result = best_response_two(rules, policy_array(rules, sb), (name, sb.name))

    def decide(lid: int, own: int, others: tuple[int, ...]) -> bool:
        return bool(throw[lid, own, others[0]])

    return BestResponse(against=sb.name, strategy=Strategy(name, decide), result=result)


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
