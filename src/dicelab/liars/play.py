"""Liar's Dice for interactive play (:class:`dicelab.core.registry.Play`): bots and the coach.

A bot sees only its seat's observation (:meth:`dicelab.liars.state.LiarsState.observe`: its own
hand, the dice counts and this round's bids), rebuilt as the engine's
:class:`~dicelab.liars.rules.PlayerView`, and draws from its own generator (``seed``):
``scout`` (the default: in a two-player round the near-equilibrium duel policy of
:mod:`dicelab.liars.library` when one is available for those dice counts, faces and wild, else
:class:`~dicelab.liars.multi.ScoutBot`'s heuristic), ``probabilistic`` (raises with probability
P(bid holds | own dice), else calls), ``random`` (always bluffs: calls or raises at random) and
``agent``, seed 004's Q-learning agent, trained on first use for the table's size (5,000 games
against random bots, seed 0, as in the seed).

Coach: in a two-player round with a duel policy, the policy's probabilities and every legal
action's chance to win the round when both seats follow the policy (the opponent's hand weighed
by the public bids: :mod:`dicelab.liars.advice`), kind ``"chance to win the round"`` (``"win
probability"`` when both seats are down to one die, so the round decides the game); with each
value the chance the bid holds and, for a raise, the chance the opponent calls it at once, and
``equal``: the moves the policy mixes that are worth the same (what differs between them is risk,
not value). Elsewhere, from the
seat's own hand only, for every legal bid the chance it holds, and for a call the chance the
current bid is a lie (the call wins), naming no best action.

Duel policies are built through the build hooks: sizes that train in seconds are trained on
demand (heavy: a worker process), larger ones come from ``dicelab liars train-all``'s disk cache.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicelab.core.cache import bounded_cache
from dicelab.core.errors import require
from dicelab.core.game import Action as GameAction
from dicelab.core.game import GameState
from dicelab.core.registry import Bot
from dicelab.liars.rules import Action, Bid, LiarsRules, PlayerView

BOT_SPECS = ("scout", "probabilistic", "random", "agent")
AGENT_GAMES = 5000
_agents = bounded_cache("liars agents", 64)


def parse_spec(spec: Any) -> str:
    """A bot spec normalised, or a one-line DicelabError naming the allowed ones."""
    s = spec.strip().lower() if isinstance(spec, str) and len(spec) <= 80 else None
    require(s in BOT_SPECS, f"unknown Liar's Dice bot {str(spec)[:80]!r}; allowed: {', '.join(BOT_SPECS)}")
    assert s is not None
    return s


def agent(rules: LiarsRules) -> Any:
    """Seed 004's Q-learning agent for ``rules`` (trained once, cached on disk and in memory)."""
    from dicelab.liars.qlearning import cached_agent

    return _agents.get_or_build(rules, lambda: cached_agent(rules, games=AGENT_GAMES, seed=0))


def duels_for(rules: LiarsRules) -> list[Any]:
    """The duels whose policies the scout and the coach use at this table (available and fitting
    the policy cache together: :func:`dicelab.liars.library.usable_sizes`)."""
    from dicelab.liars.duel import Duel
    from dicelab.liars.library import usable_sizes

    return [Duel(d, rules.faces, rules.wild) for d in usable_sizes(rules.dice, rules.faces, rules.wild)]


def policy_lookup(rules: LiarsRules) -> Any:
    """``(opener's dice, other's) -> DuelPolicy or None`` over :func:`duels_for` (never trains a size
    that is not usable here)."""
    from dicelab.liars.library import policy

    sizes = {d.dice: d for d in duels_for(rules)}

    def lookup(key: tuple[int, int]) -> Any:
        d = sizes.get(tuple(key))
        return None if d is None else policy(d)

    return lookup


def view_of(state: GameState, seat: int) -> PlayerView:
    """The engine's :class:`PlayerView` of ``seat``, rebuilt from ``state.observe(seat)`` only."""
    obs = state.observe(seat)
    bid = obs["bid"]
    return PlayerView(
        rules=state.rules, player=seat, hand=tuple(obs["hand"]), dice_counts=tuple(obs["dice_counts"]),
        current_bid=None if bid is None else Bid(*bid),
        history=tuple(Action(a["player"], None if a["bid"] is None else Bid(*a["bid"])) for a in obs["actions"]))


class LiarsBot:
    """A seated Liar's Dice bot: the engine's policy on the seat's own view."""

    def __init__(self, spec: str, rules: LiarsRules, seed: int = 0) -> None:
        from dicelab.liars.strategies import bot

        self.spec, self.rules = spec, rules
        if spec == "scout":
            from dicelab.liars.multi import ScoutBot

            self.policy: Any = ScoutBot(duel_policies=policy_lookup(rules))
        else:
            self.policy = agent(rules) if spec == "agent" else bot(spec)
        self.rng = np.random.default_rng(seed)

    def act(self, state: GameState, seat: int) -> GameAction:
        bid = self.policy(view_of(state, seat), self.rng)
        return "call" if bid is None else {"bid": [bid.quantity, bid.face]}

    def distribution(self, state: GameState, seat: int) -> dict[Bid | None, float]:
        """The scout's move as probabilities (``None`` is the call), from the seat's own view."""
        require(self.spec == "scout", "only the scout bot reports its move probabilities")
        return self.policy.distribution(view_of(state, seat))


class LiarsPlay:
    """Liar's Dice's :class:`~dicelab.core.registry.Play`, with the optional build hooks."""

    def bots(self, rules: LiarsRules) -> list[Bot]:
        return [Bot("scout", "Scout (near-equilibrium duels)",
                    "with two players left plays a trained near-equilibrium policy where one is ready for "
                    "those dice; otherwise weighs each bid's chance from its own dice"),
                Bot("probabilistic", "Probabilistic", "raises as often as the bid is likely to hold, else calls"),
                Bot("random", "Random (always bluffs)", "calls or raises at random"),
                Bot("agent", "Learning agent", "learned by Q-learning from 5,000 games against random bots")]

    def bot(self, spec: str, rules: LiarsRules, *, seed: int = 0) -> LiarsBot:
        return LiarsBot(parse_spec(spec), rules, seed)

    def coach(self, state: GameState, seat: int) -> dict[str, Any] | None:
        if state.is_over or seat not in state.to_move():
            return None
        view = view_of(state, seat)
        duel = duel_coach(view)
        if duel is not None:
            return duel
        values = []
        for a in state.legal_actions(seat):
            if a == "call":
                values.append({"action": a, "value": 1.0 - view.prob_bid_holds()})
            else:
                values.append({"action": a, "value": view.prob_bid_holds(Bid(*a["bid"]))})
        return {"kind": "chance the bid holds (a call: that the current bid is a lie), from your own hand",
                "current_bid_holds": None if view.current_bid is None else view.prob_bid_holds(),
                "values": values, "best": None}

    # ---- optional build hooks (see :mod:`dicelab.core.registry`); the duel policies serve the
    # scout and the coach, so every game needs them
    def ready(self, specs: list[str], rules: LiarsRules) -> bool:
        from dicelab.liars.library import in_memory

        agent_ok = "agent" not in [parse_spec(s) for s in specs] or rules in _agents
        return agent_ok and all(in_memory(d) for d in duels_for(rules))

    def heavy(self, specs: list[str], rules: LiarsRules) -> bool:
        """Heavy when a duel policy must be trained (seconds each); loading from disk is not."""
        from dicelab.liars.library import in_memory, on_disk

        return any(not in_memory(d) and not on_disk(d) for d in duels_for(rules))

    def prepare(self, specs: list[str], rules: LiarsRules) -> None:
        from dicelab.liars.library import policy

        for d in duels_for(rules):
            policy(d)
        if "agent" in [parse_spec(s) for s in specs]:
            agent(rules)

    def export(self, specs: list[str], rules: LiarsRules) -> bytes:
        """The duel policies that must be trained (here, in a worker process) as ``.npz`` bytes; the
        ones on disk already are loaded by :meth:`prepare` in the server's own process."""
        from dicelab.liars.library import export, on_disk

        for s in specs:
            parse_spec(s)
        return export([d for d in duels_for(rules) if not on_disk(d)])

    def install(self, specs: list[str], rules: LiarsRules, data: bytes) -> None:
        from dicelab.liars.library import install

        install(data)

    # ---- the environment form (dicelab.envs.generic): action 0 calls, 1 + r bids the bid of rank
    # r = (quantity - 1) * faces + (face - 1), so a higher action is a higher bid; a seat sees
    # [its dice per face, every seat's dice count from its own on, the bid's quantity (0: none
    # yet) and face, the bidder's seat relative to its own, 1 if it is to move]
    def actions(self, rules: LiarsRules) -> list[GameAction]:
        f = rules.faces
        return ["call"] + [{"bid": [r // f + 1, r % f + 1]} for r in range(rules.total_dice * f)]

    def observation_nvec(self, rules: LiarsRules) -> list[int]:
        return ([rules.dice + 1] * rules.faces + [rules.dice + 1] * rules.players
                + [rules.total_dice + 1, rules.faces + 1, rules.players, 2])

    def encode(self, state: GameState, seat: int) -> list[int]:
        v = state.observe(seat)
        rules = state.rules
        n = rules.players
        hand = [0] * rules.faces
        for face in v["hand"]:
            hand[face - 1] += 1
        q, f = v["bid"] or (0, 0)
        rel = 0 if v["bidder"] is None else (v["bidder"] - seat) % n
        return [*hand, *(v["dice_counts"][(seat + m) % n] for m in range(n)), q, f, rel,
                int(v["to_move"] == [seat])]

    def grade(self, rules: LiarsRules, decide: Any, progress: bool = False) -> dict[str, Any]:
        """The exact grade of a learned duel policy (:class:`dicelab.core.registry.Grades`)."""
        from dicelab.liars.policy_grade import grade

        return grade(rules, decide, progress)


def _action(bid: Bid | None) -> GameAction:
    return "call" if bid is None else {"bid": [bid.quantity, bid.face]}


TOP_RAISES = 5  # the raises the coach names: the policy's most likely ones, at least 0.1% each
SHOWN_PROB = 0.001
# moves the policy plays at least this often and worth within EQUAL_WITHIN of the best are "worth the
# same": at an equilibrium every move of the mix is (the trained policy is near one, so nearly)
MIXED_PROB = 0.01
EQUAL_WITHIN = 0.005


def duel_coach(view: PlayerView) -> dict[str, Any] | None:
    """The duel coach for ``view`` (a two-player round with a usable policy), else None."""
    from dicelab.liars.advice import advise
    from dicelab.liars.multi import ScoutBot

    found = ScoutBot(duel_policies=policy_lookup(view.rules)).duel_of(view)
    if found is None:
        return None
    pol, duel_seat, bids = found
    a = advise(pol, duel_seat, view.hand, bids)
    last = bids[-1] if bids else None
    # per move, beside its value, what differs between moves of equal value: the chance the bid
    # holds (a call: the standing bid), and for a raise the chance the opponent calls it at once
    values = [{"action": _action(b), "value": v, "holds": a["holds"][last if b is None else b],
               **({} if b is None else {"called": a["called"][b]})} for b, v in a["win"].items()]
    best = max(a["win"], key=lambda b: a["win"][b])
    top = a["win"][best]
    # the moves the policy mixes that are worth the same (an equilibrium's mix: none is better)
    equal = [b for b, p in sorted(a["policy"].items(), key=lambda kv: -kv[1])
             if p >= MIXED_PROB and a["win"][b] >= top - EQUAL_WITHIN]
    ranked = sorted(a["policy"].items(), key=lambda kv: -kv[1])
    d = pol.duel
    # the round decides the game only when both seats are down to one die
    kind = "win probability" if max(view.dice_counts) == 1 else "chance to win the round"
    return {"kind": kind,
            "values": values, "best": _action(best),
            "policy": [{"action": _action(b), "prob": p} for b, p in ranked],
            "policy_call": a["policy"].get(None, 0.0) if bids else None,
            "policy_top_raises": [{"action": _action(b), "prob": p} for b, p in ranked
                                  if b is not None and p >= SHOWN_PROB][:TOP_RAISES],
            "current_bid_holds": None if view.current_bid is None else view.prob_bid_holds(),
            "equal": [_action(b) for b in equal] if len(equal) > 1 else [],
            "duel": {"dice": list(d.dice), "faces": d.faces, "wild": d.wild, "seat": duel_seat,
                     "window": pol.window},
            "method": "exact under the duel policy for both seats; the opponent's hand weighed by its bids"
                      if a["posterior"] == "bids" else
                      "exact under the duel policy for both seats; the opponent's bids are ones the policy never "
                      "makes, so its hand is weighed by chance alone"}


PLAY = LiarsPlay()
