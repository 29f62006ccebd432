"""What the bids of a round say about the bidders' dice (a model of the seed's bots).

Every dicelab bot (seed 004) raises on the face it holds most of, or bluffs on a random face.
Read that way, a bid is evidence: a player who bid sixes probably holds more sixes than chance
gives. :func:`count_distribution` is the posterior distribution of how many of a player's dice
count toward a face, given the faces that player bid this round, under the model "each bid is on
the player's most-held face (wild dice counted, the highest face among ties) with probability
``1 - bluff``, else on a face drawn uniformly"; :func:`prob_holds` combines those posteriors (and
plain binomials for players who have not bid) into the chance that a bid holds.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from dicelab.liars.rules import Bid, LiarsRules, PlayerView


def _compositions(n: int, k: int):
    """Every way to write n as an ordered sum of k whole numbers >= 0."""
    if k == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in _compositions(n - first, k - 1):
            yield (first, *rest)


@lru_cache(maxsize=4096)
def count_distribution(n: int, faces: int, wild_face: int, bid_faces: tuple[int, ...], face: int,
                       bluff: float) -> np.ndarray:
    """P(k of the player's ``n`` dice count toward ``face``), k = 0..n, given it bid ``bid_faces``.

    ``bid_faces`` sorted; empty means no evidence (the binomial). Exact: every hand, as counts per
    face, weighted by its multinomial chance and the likelihood of the bids.
    """
    out = np.zeros(n + 1)
    if n == 0:
        out[0] = 1.0
        return out
    for c in _compositions(n, faces):
        w = math.factorial(n) / math.prod(math.factorial(x) for x in c) / faces**n
        counted = [0] + [c[f - 1] + (c[wild_face - 1] if wild_face and f != wild_face else 0)
                         for f in range(1, faces + 1)]
        best = 1
        for f in range(2, faces + 1):
            if counted[f] >= counted[best]:
                best = f
        for g in bid_faces:
            w *= (1.0 - bluff) * (g == best) + bluff / faces
        out[counted[face]] += w
    s = out.sum()
    return out / s if s > 0 else out


def others_distribution(view: PlayerView, face: int, bluff: float) -> np.ndarray:
    """P(k of the other players' dice count toward ``face``), k = 0.., given this round's bids."""
    r: LiarsRules = view.rules
    faces_bid: dict[int, list[int]] = {}
    for a in view.history:
        if a.bid is not None and a.player != view.player:
            faces_bid.setdefault(a.player, []).append(a.bid.face)
    dist = np.ones(1)
    plain = 0
    for p, n in enumerate(view.dice_counts):
        if p == view.player or n == 0:
            continue
        if p in faces_bid:
            dist = np.convolve(dist, count_distribution(n, r.faces, r.wild_face, tuple(sorted(faces_bid[p])), face,
                                                        bluff))
        else:
            plain += n
    if plain:
        q = r.match_probability(face)
        k = np.arange(plain + 1)
        binom = np.array([math.comb(plain, int(i)) for i in k]) * q**k * (1 - q) ** (plain - k)
        dist = np.convolve(dist, binom)
    return dist


def holds_from(view: PlayerView, bid: Bid, others: np.ndarray) -> float:
    """The chance that ``bid`` holds given the others' count distribution for its face."""
    need = bid.quantity - view.rules.count(view.hand, bid.face)
    if need <= 0:
        return 1.0
    return float(others[need:].sum()) if need < len(others) else 0.0


def prob_holds(view: PlayerView, bid: Bid, bluff: float) -> float:
    """The chance that ``bid`` holds, from ``view``'s own dice and the bids of this round."""
    return holds_from(view, bid, others_distribution(view, bid.face, bluff))
