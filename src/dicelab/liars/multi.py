"""A Liar's Dice bot for 2 to 8 players over many rounds (the seed's lose-a-die rules).

:class:`ScoutBot` plays every round from its own dice and the public dice counts:

* the chance that a bid holds counts the bot's own dice and, for the others, reads their bids of
  this round as evidence (:mod:`dicelab.liars.beliefs`: a bid names the bidder's most-held face
  except when it bluffs, assumed one time in five, ``bluff=0.2``); ``bluff=None`` ignores the bids
  and uses ``P(Binomial(unseen, p) >= quantity - own matching dice)``, as the `probabilistic` bot
  does;
* a **call** is worth ``-P(holds)`` (the bot loses a die when the bid holds) ``+ lam * (1 - P(holds))``
  (someone else loses one: good for the bot, but less than keeping its own);
* a **raise** to ``b`` is worth, if the next player calls it (chance estimated as ``1 - P_public(b)``,
  the hold chance seen by a player who knows nothing of the bot's dice), ``-(1 - P(b)) + lam * P(b)``,
  and ``-kappa - mu * (1 - P(b))`` otherwise (the round goes on, and a bid that may not hold can
  come back to the bot);
* it takes the best of the call and every legal raise.

With two players left and a duel policy (:class:`dicelab.liars.duel.DuelPolicy`) for their dice
counts, it plays the duel policy instead (the round's opener is the duel's seat 0). The policies
come as a dict ``{(opener's dice, other's dice): policy}`` or a function of that pair returning a
policy or None (:mod:`dicelab.liars.library`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.stats import wilson_interval
from dicelab.liars.beliefs import holds_from, others_distribution
from dicelab.liars.rules import Bid, LiarsRules, PlayerView, Policy, play_game


@lru_cache(maxsize=200_000)
def _tail(n: int, x: int, p: float) -> float:
    if x <= 0:
        return 1.0
    if x > n:
        return 0.0
    return float(sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(x, n + 1)))


class ScoutBot:
    """The multi-player bot (a :data:`~dicelab.liars.rules.Policy`)."""

    def __init__(self, lam: float = 0.0, kappa: float = 0.1, mu: float = 0.0, call_below: float = 0.0,
                 duel_policies: dict[tuple[int, int], Any] | Callable[[tuple[int, int]], Any] | None = None,
                 bluff: float | None = 0.2) -> None:
        for name, x in (("lam", lam), ("kappa", kappa), ("mu", mu), ("call_below", call_below)):
            require(0.0 <= x <= 1.0, f"{name} must lie in [0, 1], got {x}")
        require(bluff is None or 0.0 <= bluff <= 1.0, f"bluff must lie in [0, 1] or be None, got {bluff}")
        self.bluff = bluff
        self.call_below = call_below
        self.lam = lam
        self.kappa = kappa
        self.mu = mu
        self.duel_policies = duel_policies if callable(duel_policies) else dict(duel_policies or {})

    # -- the duel hand-off -------------------------------------------------------------------------
    def duel_of(self, view: PlayerView) -> tuple[Any, int, list[Bid]] | None:
        """``(policy, duel seat, this round's bids)`` when two players remain and a policy for their
        dice counts (this faces and wild) is at hand, else None."""
        alive = [p for p, n in enumerate(view.dice_counts) if n > 0]
        if len(alive) != 2 or not self.duel_policies:
            return None
        opener = view.history[0].player if view.history else view.player
        other = alive[0] if alive[1] == opener else alive[1]
        key = (view.dice_counts[opener], view.dice_counts[other])
        pol = self.duel_policies(key) if callable(self.duel_policies) else self.duel_policies.get(key)
        if pol is None or pol.duel.faces != view.rules.faces or pol.duel.wild != view.rules.wild:
            return None
        return pol, 0 if view.player == opener else 1, [a.bid for a in view.history if a.bid is not None]

    def _duel(self, view: PlayerView, rng: np.random.Generator) -> tuple[bool, Bid | None]:
        found = self.duel_of(view)
        if found is None:
            return False, None
        pol, seat, bids = found
        return True, pol.act(seat, view.hand, bids, rng)

    def distribution(self, view: PlayerView) -> dict[Bid | None, float]:
        """The bot's move as probabilities: the duel policy's, or 1 on the heuristic's choice."""
        found = self.duel_of(view)
        if found is not None:
            pol, seat, bids = found
            return pol.action_probabilities(seat, view.hand, bids)
        return {self._heuristic(view): 1.0}

    # -- the heuristic -------------------------------------------------------------------------------
    def values(self, view: PlayerView) -> dict[Bid | None, float]:
        """The value of the call (None) and of every legal raise."""
        r = view.rules
        total = view.dice_on_table
        own = len(view.hand)
        unseen = total - own
        counts = [0] + [r.count(view.hand, f) for f in range(1, r.faces + 1)]
        out: dict[Bid | None, float] = {}
        cur = view.current_bid
        others: dict[int, np.ndarray] = {}  # per face: the others' count distribution (bid model)

        def holds(b: Bid) -> float:
            if self.bluff is None:
                return _tail(unseen, b.quantity - counts[b.face], r.match_probability(b.face))
            if b.face not in others:
                others[b.face] = others_distribution(view, b.face, self.bluff)
            return holds_from(view, b, others[b.face])

        if cur is not None:
            ph = holds(cur)
            out[None] = -ph + self.lam * (1.0 - ph)
        alive = [p for p, n in enumerate(view.dice_counts) if n > 0]
        nxt = alive[(alive.index(view.player) + 1) % len(alive)]
        nxt_unseen = total - view.dice_counts[nxt]
        q0 = 1 if cur is None else cur.quantity
        for q in range(q0, total + 1):
            for f in range(1, r.faces + 1):
                b = Bid(q, f)
                if cur is not None and not b.beats(cur):
                    continue
                p = r.match_probability(f)
                pm = holds(b)
                # the next player sees its own dice: on average it expects a share p of them
                pn = _tail(nxt_unseen, q - int(round(view.dice_counts[nxt] * p)), p)
                pc = 1.0 - pn
                out[b] = pc * (-(1.0 - pm) + self.lam * pm) - (1.0 - pc) * (self.kappa + self.mu * (1.0 - pm))
        return out

    def __call__(self, view: PlayerView, rng: np.random.Generator) -> Bid | None:
        used, move = self._duel(view, rng)
        if used:
            return move
        return self._heuristic(view)

    def _heuristic(self, view: PlayerView) -> Bid | None:
        vals = self.values(view)
        if view.current_bid is not None and self.call_below > 0.0 and view.prob_bid_holds() < self.call_below:
            return None
        best = max(vals.values())
        for k, v in vals.items():  # the call first, then the lowest raise, among the best
            if v >= best - 1e-12:
                return k
        return None  # pragma: no cover

    def act(self, view: PlayerView, rng: np.random.Generator) -> Bid | None:
        return self(view, rng)


def win_share(policy: Policy, opponents: Sequence[Policy], rules: LiarsRules, games: int = 2000, seed: int = 0,
              rotate: bool = True) -> dict[str, Any]:
    """Share of games ``policy`` wins against ``opponents``; with ``rotate`` it sits in every seat in
    turn (seat 1 opens round 1). Returns the share with its 95% Wilson interval."""
    require(len(opponents) == rules.players - 1, f"need {rules.players - 1} opponents, got {len(opponents)}")
    require(isinstance(games, int) and games >= 1, f"games must be at least 1, got {games}")
    t0 = time.perf_counter()
    wins = 0
    for g in range(games):
        seat = g % rules.players if rotate else 0
        pols = list(opponents)
        pols.insert(seat, policy)
        rec = play_game(rules, pols, seed=seed * 1_000_003 + g)
        wins += int(rec.winner == seat)
    lo, hi = wilson_interval(wins, games)
    return {"win_rate": wins / games, "ci_low": lo, "ci_high": hi, "wins": wins, "games": games,
            "seconds": time.perf_counter() - t0}
