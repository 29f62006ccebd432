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
A server that builds ahead (the optional hooks of :class:`dicelab.core.registry.BuildsAhead`:
:meth:`LiarsPlay.ahead` lists every policy the web lab can need, most likely first) calls
:meth:`LiarsPlay.defer` first: from then on a game never trains nor loads a policy itself; a size
not built yet is played by the scout's heuristic (its fallback) and :meth:`LiarsPlay.notice` says so.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from dicelab.core.cache import bounded_cache
from dicelab.core.errors import require
from dicelab.core.game import Action as GameAction
from dicelab.core.game import GameState
from dicelab.core.levels import Level
from dicelab.core.registry import Bot
from dicelab.liars.rules import Action, Bid, LiarsRules, PlayerView

BOT_SPECS = ("scout", "probabilistic", "random", "agent")
AGENT_GAMES = 5000
_agents = bounded_cache("liars agents", 64)
_SLIP = re.compile(r"scout:(0?\.\d{1,3})")
_deferred = threading.Event()  # set: duel policies come only from build_ahead (a server builds them)


def parse_spec(spec: Any) -> str:
    """A bot spec normalised, or a one-line DicelabError naming the allowed ones (``scout:E``: the
    scout, but at each decision with probability E the probabilistic bot's move, E from 0.001 to 0.999)."""
    s = spec.strip().lower() if isinstance(spec, str) and len(spec) <= 80 else None
    m = _SLIP.fullmatch(s or "")
    if m is not None and 0 < float(m.group(1)) < 1:
        return f"scout:{float(m.group(1)):g}"
    require(s in BOT_SPECS, f"unknown Liar's Dice bot {str(spec)[:80]!r}; allowed: {', '.join(BOT_SPECS)}, scout:E")
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

    from dicelab.liars.library import in_memory

    found = [Duel(d, rules.faces, rules.wild) for d in usable_sizes(rules.dice, rules.faces, rules.wild)]
    return [d for d in found if in_memory(d)] if _deferred.is_set() else found


def wanted(rules: LiarsRules) -> list[Any]:
    """The duels a table under ``rules`` may reach whose policies are available (ready or not)."""
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


def make_rules_of(params: dict[str, Any]) -> LiarsRules:
    return LiarsRules(**{k: v for k, v in params.items() if k in ("players", "dice", "faces", "wild")})


def default_params(rules: LiarsRules) -> dict[str, Any]:
    return {"players": rules.players, "dice": rules.dice, "faces": rules.faces, "wild": rules.wild}


def _duel_of(d: dict[str, Any]) -> Any:
    from dicelab.liars.duel import Duel

    return Duel((int(d["dice"][0]), int(d["dice"][1])), int(d["faces"]), str(d["wild"]))


def view_of(state: GameState, seat: int) -> PlayerView:
    """The engine's :class:`PlayerView` of ``seat``, rebuilt from ``state.observe(seat)`` only."""
    obs = state.observe(seat)
    bid = obs["bid"]
    return PlayerView(
        rules=state.rules, player=seat, hand=tuple(obs["hand"]), dice_counts=tuple(obs["dice_counts"]),
        current_bid=None if bid is None else Bid(*bid),
        history=tuple(Action(a["player"], None if a["bid"] is None else Bid(*a["bid"])) for a in obs["actions"]))


class Slipping:
    """The scout, but at each decision with probability ``e`` the probabilistic bot's move (drawn
    from the same generator, so a seed replays it)."""

    def __init__(self, scout: Any, e: float) -> None:
        from dicelab.liars.strategies import probabilistic_bot

        self.scout, self.e, self.other = scout, e, probabilistic_bot

    def __call__(self, view: PlayerView, rng: np.random.Generator) -> Bid | None:
        return self.other(view, rng) if rng.random() < self.e else self.scout(view, rng)


class LiarsBot:
    """A seated Liar's Dice bot: the engine's policy on the seat's own view."""

    def __init__(self, spec: str, rules: LiarsRules, seed: int = 0) -> None:
        from dicelab.liars.strategies import bot

        self.spec, self.rules = spec, rules
        if spec.startswith("scout"):
            from dicelab.liars.multi import ScoutBot

            self.policy: Any = ScoutBot(duel_policies=policy_lookup(rules))
            if spec != "scout":
                self.policy = Slipping(self.policy, float(spec.split(":")[1]))
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
                Bot("random", "Random bidder", "calls or raises at random: bluffs all the time"),
                Bot("agent", "Learning agent", "learned by Q-learning from 5,000 games against random bots")]

    def bot(self, spec: str, rules: LiarsRules, *, seed: int = 0) -> LiarsBot:
        return LiarsBot(parse_spec(spec), rules, seed)

    # ---- levels of strength (the optional hook of dicelab.core.levels)
    def levels(self, rules: LiarsRules) -> list[Level]:
        """The ladder, weakest first (:mod:`dicelab.liars.levels`)."""
        from dicelab.liars.levels import levels

        return levels(rules)

    def measure(self, rules: LiarsRules, progress: bool = False) -> dict[str, Any]:
        """Each level's share of games won against the strongest, with 95 % intervals, and LBR."""
        from dicelab.liars.levels import measure

        return measure(rules, self, progress)

    def measured(self, rules: LiarsRules) -> dict[str, Any] | None:
        """The shipped measurement of the default table's ladder (:data:`dicelab.liars.levels.SHIPPED`)."""
        from dicelab.liars.levels import default_rules, load_shipped

        return load_shipped() if rules == default_rules() else None

    def agent(self, rules: LiarsRules) -> Any:
        """Seed 004's Q-learning agent for ``rules`` (:func:`agent`)."""
        return agent(rules)

    # ---- building ahead (the optional hooks of dicelab.core.registry.BuildsAhead)
    def defer(self, on: bool = True) -> None:
        """From now on a game never trains nor loads a duel policy: what is not in memory yet is
        played by the fallback until :meth:`take_ahead` puts it there (``on=False``: as before)."""
        if on:
            _deferred.set()
        else:
            _deferred.clear()

    def ahead(self) -> list[dict[str, Any]]:
        """Every duel policy the web lab's rules can need (faces 2-6, wild or not, up to the most
        dice a seat may have in a duel), and the learning agent of the default table, most likely
        needed first: the default rules' sizes and its agent (marked ``first``), then 6 faces with
        wild ones, then fewer faces; within one kind of table the quickest first."""
        from dicelab.liars import GAME
        from dicelab.liars.library import work

        p = {x.name: x for x in GAME.params}
        default = make_rules_of({x.name: x.default for x in GAME.params})
        kinds = [(default.faces, default.wild)]
        for f in range(int(p["faces"].hi or 6), int(p["faces"].lo or 2) - 1, -1):
            for w in (p["wild"].choices or ("none",)):
                if (f, w) not in kinds:
                    kinds.append((f, w))
        most = int(p["dice"].hi or 6)
        out: list[dict[str, Any]] = []
        for n, (faces, wild) in enumerate(kinds):
            duels = sorted(wanted(LiarsRules(players=2, dice=most, faces=faces, wild=wild)), key=lambda d: (work(d), d.dice))
            for d in duels:
                out.append({"title": f"{d.dice[0]} v {d.dice[1]} dice, {faces} faces" + (", ones wild" if wild == "ones" else ""),
                            "params": {"duel": {"dice": list(d.dice), "faces": faces, "wild": wild}}, "first": n == 0})
            if n == 0:
                out.append({"title": "the learning agent", "params": {"agent": default_params(default)}, "first": True})
        return out

    def has_ahead(self, params: dict[str, Any]) -> bool:
        from dicelab.liars.library import in_memory

        if "agent" in params:
            return make_rules_of(params["agent"]) in _agents
        return in_memory(_duel_of(params["duel"]))

    def build_ahead(self, params: dict[str, Any]) -> bytes:
        """(In a worker process.) Train or load one item; a duel policy comes back as ``.npz`` bytes,
        the agent goes to the disk cache (:meth:`take_ahead` loads it)."""
        from dicelab.liars.library import export

        if "agent" in params:
            agent(make_rules_of(params["agent"]))
            return b""
        return export([_duel_of(params["duel"])])

    def take_ahead(self, params: dict[str, Any], data: bytes) -> None:
        from dicelab.liars.library import install

        if "agent" in params:
            agent(make_rules_of(params["agent"]))
        elif data:
            install(data)

    def wants(self, specs: list[str], rules: LiarsRules) -> list[dict[str, Any]]:
        """The items of :meth:`ahead` a game of the bots ``specs`` under ``rules`` uses, not built yet."""
        from dicelab.liars.library import in_memory

        out = [{"duel": {"dice": list(d.dice), "faces": d.faces, "wild": d.wild}} for d in wanted(rules)
               if not in_memory(d)]
        if "agent" in [parse_spec(s) for s in specs] and rules not in _agents:
            out.append({"agent": default_params(rules)})
        return out

    def notice(self, specs: list[str], rules: LiarsRules) -> str | None:
        """A sentence for the game page while some trained strategy of this table is not ready."""
        if not _deferred.is_set() or not any(parse_spec(s).startswith("scout") for s in specs):
            return None
        from dicelab.liars.library import in_memory

        missing = [d for d in wanted(rules) if not in_memory(d)]
        if not missing:
            return None
        return (f"The lab is still training the bot's strategy for some two-player endings of this table "
                f"({len(missing)} of {len(wanted(rules))} to go); until then it plays them by its simpler rules.")

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

        learning = "agent" in [parse_spec(s) for s in specs] and rules not in _agents  # seconds of Q-learning
        return learning or any(not in_memory(d) and not on_disk(d) for d in duels_for(rules))

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

        if "agent" in [parse_spec(s) for s in specs]:
            agent(rules)  # trained here, into the disk cache: install loads it
        return export([d for d in duels_for(rules) if not on_disk(d)])

    def install(self, specs: list[str], rules: LiarsRules, data: bytes) -> None:
        from dicelab.liars.library import install

        install(data)
        if "agent" in [parse_spec(s) for s in specs]:
            agent(rules)

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
                     "window": pol.window, "memory": pol.dag.memory},
            "method": "exact under the duel policy for both seats; the opponent's hand weighed by its bids"
                      if a["posterior"] == "bids" else
                      "exact under the duel policy for both seats; the opponent's bids are ones the policy never "
                      "makes, so its hand is weighed by chance alone"}


PLAY = LiarsPlay()
