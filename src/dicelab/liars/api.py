"""Liar's Dice's shared verbs for the two-player round (the duel): ``evaluate`` (exact) and
``simulate`` (many rounds), on strategies given as duel policies (:class:`~dicelab.liars.duel.DuelPolicy`,
e.g. from ``train_duel`` or ``DuelPolicy.load``) or the bots' names (``random``, ``probabilistic``).

Payoff is +1 / -1 a round, so a win probability is ``(1 + value) / 2``; "first" is the seat that
opens the bidding.
"""

from __future__ import annotations

from typing import Any

from dicelab.core.errors import DicelabError, require
from dicelab.core.results import HeadToHead
from dicelab.liars.cfr import DuelGame, DuelRules, build_tree, evaluate_profile
from dicelab.liars.duel import Duel, DuelPolicy
from dicelab.liars.grading import full_profile
from dicelab.liars.lbr import bot_policy, head_to_head

BOT_NAMES = ("random", "probabilistic")


def as_duel_policy(strategy: Any, duel: Duel) -> DuelPolicy:
    """A duel policy for ``duel`` from a policy or a bot's name (one-line errors otherwise)."""
    if isinstance(strategy, DuelPolicy):
        require(strategy.duel == duel, f"the policy plays the duel {strategy.duel.to_dict()}, not {duel.to_dict()}")
        return strategy
    if isinstance(strategy, str) and strategy.strip().lower() in BOT_NAMES:
        return bot_policy(duel, strategy.strip().lower())
    raise DicelabError(f"a Liar's Dice duel strategy is a duel policy or one of {', '.join(BOT_NAMES)}, "
                       f"got {str(strategy)[:40]!r}")


def _duel(rules: DuelGame) -> Duel:
    return Duel(rules.dice, rules.faces, rules.wild)


def _name(strategy: Any) -> str:
    return strategy if isinstance(strategy, str) else str(strategy.meta.get("name") or strategy.meta.get("method", "policy"))


def evaluate(a: Any, b: Any, rules: DuelGame) -> HeadToHead:
    """Exact win probabilities of A against B in the duel ``rules`` (A opening, and B opening), on
    the whole public tree (duels of at most 18 bids, e.g. 2 v 1 with 6 faces).

    >>> from dicelab.liars.cfr import DuelRules
    >>> h = evaluate("probabilistic", "random", DuelRules((1, 1), 6, "highest"))
    >>> 0.5 < h.mean < 1
    True
    """
    duel = _duel(rules)
    pa, pb = as_duel_policy(a, duel), as_duel_policy(b, duel)
    tree = build_tree(DuelRules(duel.dice, duel.faces, duel.wild))  # one line refuses a duel too big for it
    _, a0, a1 = full_profile(pa, tree)
    _, b0, b1 = full_profile(pb, tree)
    a_opens = evaluate_profile(tree, a0, b1)["value"]  # A's payoff as the opener
    b_opens = evaluate_profile(tree, b0, a1)["value"]  # B's payoff as the opener
    return HeadToHead(a=_name(a), b=_name(b), a_first=(1 + a_opens) / 2, a_second=(1 - b_opens) / 2)


def simulate(a: Any, b: Any, rules: DuelGame, games: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Monte Carlo rounds of A against B, ``games`` with A opening and as many with B opening: A's
    win share with a 95% Wilson interval (any duel size, e.g. 5 v 5); the same seed, the same games."""
    duel = _duel(rules)
    require(isinstance(games, int) and 1 <= games <= 10_000_000, f"games must be from 1 to 10,000,000, got {games}")
    return head_to_head(as_duel_policy(a, duel), as_duel_policy(b, duel), rounds=games, seed=seed)
