"""Super Six's verbs on strategy specs: parse the specs, then run the exact algorithms or the
simulation on strategy objects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import dicelab.supersix.simulation as simulation
from dicelab.core.errors import require
from dicelab.core.results import BestResponse, HeadToHead
from dicelab.supersix.rules import MAX_GAMES, SuperSixRules
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
    backend: str | None = None,
    **scale: Any,
) -> dict[str, Any]:
    """Play ``games`` games and report each strategy's wins with a confidence interval.

    ``specs[n]`` plays seat ``n`` (seat 0 throws first) unless ``rotate`` is set, in which case game
    ``g`` seats strategy ``n`` at seat ``(n + g) mod P`` so that each strategy starts equally often.
    Games run in batches of 500 (:mod:`dicelab.supersix.simulation`), batch ``b`` with its own
    stream from ``SeedSequence(seed)``: the same seed gives the same result, on one process or on
    a ``backend`` (``local``, ``dask``, ``ray``; ``scale``: ``address``, ``workers``, ``store``,
    ``progress``) with any number of workers.
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
    names = [st.name for st in strategies]
    if backend is not None:  # the same batches of games, spread over a backend's workers
        from dicelab.supersix.jobs import supersix_wins

        require(all(isinstance(x, str) for x in specs), "a distributed Super Six simulation needs strategy specs (text)")
        wins = supersix_wins(list(specs), rules, games, seed, rotate, backend=backend, **scale)
    else:
        wins = simulation.play_batches(strategies, rules, games, seed, rotate, 0, simulation.batches(games))
    return simulation.report(names, wins, rules, games, seed, confidence, rotate, method)
