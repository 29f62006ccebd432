"""Simultaneous Pig for interactive play (:class:`dicelab.core.registry.Play`): bots and the coach.

Bots (:mod:`dicelab.simpig.specs`): ``br:hold:25`` (the exact best response to hold at 25),
``svima`` (Stackelberg value iteration), ``equilibrium`` (the exact mixed equilibrium),
``hold:N`` and piecewise rules such as ``pw:25<40,30<60,goal``. The two-player tables answer, with
three or four players, to the *leading* opponent's score. A bot sees only its seat's observation
(the scores); a mixed strategy draws from the bot's own generator (``seed``).

Coach (two players): for every legal target ``k`` the exact value of holding at ``k`` now and
playing the best response to the opponent ``against`` afterwards,
``Q(k) = sum_x sum_y P(X_k = x) P(Y = y) V*(i + x, j + y)``, where ``Y`` is the opponent's turn
total under its mixed choice and ``V*`` the best response's value table. Without ``against`` the
opponent is the exact equilibrium, so the values are the game's own.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from dicelab.core.cache import bounded_cache
from dicelab.core.errors import require
from dicelab.core.game import Action, GameState
from dicelab.core.levels import Level
from dicelab.core.registry import Bot
from dicelab.simpig.rules import SIDES, SimPigRules

ALLOWED = "br:hold:N, svima, equilibrium, hold:N, pw:K<T,...,K, mix:P*hold:N+P*hold:N+..."
DEFAULT_AGAINST = "equilibrium"
_SPEC = re.compile(r"^(br:)?(hold:(\d{1,3}|goal)|pw:[0-9a-z<,]{1,60}|equilibrium|optimal|svima|svima-b)$"
                   r"|^mix:(0?\.\d{1,3}\*(hold:\d{1,3}|br:hold:\d{1,3})\+?){2,6}$")
_strategies = bounded_cache("simpig strategies", 32)
_br = bounded_cache("simpig best responses", 64)


def strategy(spec: str, goal: int) -> Any:
    """The two-player strategy ``spec`` for ``goal`` (built once, cached)."""
    from dicelab.simpig.specs import parse_strategy

    return _strategies.get_or_build((spec, goal), lambda: parse_strategy(spec, goal, 2))


def _form(spec: Any) -> str:
    """``spec`` normalised if it has the form of an allowed bot (nothing built yet)."""
    require(isinstance(spec, str) and len(spec) <= 80, f"a simultaneous-Pig bot is a short string; allowed: {ALLOWED}")
    s = spec.strip().lower()
    require(_SPEC.match(s) is not None, f"unknown simultaneous-Pig bot {spec[:80]!r}; allowed: {ALLOWED}")
    return s


def parse_spec(spec: Any, rules: SimPigRules) -> str:
    """A bot spec checked for ``rules`` (never ``table:PATH``: no file reads for a client); builds
    the strategy (cached), since whether it fits the goal is known only then."""
    s = _form(spec)
    strat = strategy(s, rules.goal)
    require(not (strat.two_player_only and rules.players > 2) or s in {b.spec for b in SimPigPlay().bots(rules)},
            f"bot {spec!r} is a two-player table")
    return s


def best_response(spec: str, goal: int) -> Any:
    """The exact two-player best response to ``spec`` (the coach's value table)."""
    from dicelab.simpig.api import best_response as solve_br
    from dicelab.simpig.rules import SimPigRules

    return _br.get_or_build((spec, goal), lambda: solve_br(strategy(spec, goal), SimPigRules(goal=goal)))


def mixture(spec: str, goal: int, own: int, others: list[int]) -> list[tuple[float, int]]:
    """The bot ``spec``'s mixed choice of target at ``own`` against the leading score of ``others``."""
    comps = strategy(spec, goal).mixture(np.array([own]), [np.array([max(others)])])
    out = [(float(np.asarray(w).ravel()[0]), int(np.asarray(k).ravel()[0])) for w, k in comps]
    return [(w, k) for w, k in out if w > 0]


def turn_distribution(k: int, goal: int) -> list[tuple[int, float]]:
    """``(turn total, probability)`` of holding at ``k``."""
    from dicelab.simpig.rules import turn_total_table

    p0, pk = turn_total_table(goal)
    return [(0, float(p0[k]))] + [(k + r, float(pk[k, r])) for r in range(6) if pk[k, r] > 0]


def target_values(spec: str, goal: int, i: int, j: int) -> list[float]:
    """``Q(k)`` for k = 1 .. goal - i at scores ``(i, j)`` against the bot ``spec`` (two players):
    the opponent's turn total is summed out once per own banked score (a column), then each target
    weighs its seven outcomes (bust, k .. k + 5) over that column."""
    from dicelab.simpig.rules import turn_total_table

    v = best_response(spec, goal).value
    opp: dict[int, float] = {}
    for w, kb in mixture(spec, goal, j, [i]):
        for y, p in turn_distribution(kb, goal):
            opp[y] = opp.get(y, 0.0) + w * p
    col = np.zeros(goal + 1)  # col[a]: the value once the own score is a, the opponent's turn summed out
    for y, py in opp.items():
        col += py * v[:goal + 1, min(j + y, goal)]
    need = goal - i
    p0, pk = turn_total_table(goal)
    k = np.arange(1, need + 1)
    q = p0[k] * col[i]
    for r in range(6):
        q = q + pk[k, r] * col[np.minimum(i + k + r, goal)]
    return [float(x) for x in q]


class SimPigBot:
    """A seated bot: draws its target from its strategy's mixed choice at the seat's scores."""

    def __init__(self, spec: str, rules: SimPigRules, seed: int = 0) -> None:
        self.spec, self.rules = spec, rules
        self.strategy = strategy(spec, rules.goal)
        self.rng = np.random.default_rng(seed)

    def act(self, state: GameState, seat: int) -> Action:
        scores = state.observe(seat)["scores"]
        comps = mixture(self.spec, self.rules.goal, scores[seat], [s for n, s in enumerate(scores) if n != seat])
        ws = np.array([w for w, _ in comps])
        pick = int(self.rng.choice(len(comps), p=ws / ws.sum())) if len(comps) > 1 else 0
        return {"target": comps[pick][1]}


class SimPigPlay:
    """Simultaneous Pig's :class:`~dicelab.core.registry.Play`, with the optional build hooks."""

    def bots(self, rules: SimPigRules) -> list[Bot]:
        n = min(25, rules.goal)  # the paper's hold:25, or hold at the goal below 25
        bots = [
            Bot(f"br:hold:{n}", f"Beats aiming for {n}", f"the exact best response to a player who always aims for {n}"),
            Bot("svima", "Plans for your best reply",
                "Stackelberg value iteration (SVIMA, the paper's Algorithm 0.2)"),
            Bot("equilibrium", "Exact mixed equilibrium", "mixes its targets so that no reply beats it"),
            Bot(f"hold:{n}", f"Aims for {n} every turn", f"hold at {n}: always aims for a turn total of {n}"),
        ]
        if rules.goal > 60:  # the paper's piecewise example needs room above 60
            bots.append(Bot("pw:25<40,30<60,goal", "Aims higher as it nears the goal",
                            "the paper's piecewise example (25/30/goal): 25 below 40, 30 below 60, then the goal"))
        return bots

    def bot(self, spec: str, rules: SimPigRules, *, seed: int = 0) -> SimPigBot:
        return SimPigBot(parse_spec(spec, rules), rules, seed)

    # ---- levels of strength (the optional hook of dicelab.core.levels)
    def levels(self, rules: SimPigRules) -> list[Level]:
        """The ladder, weakest first (:mod:`dicelab.simpig.levels`)."""
        from dicelab.simpig.levels import levels

        return levels(rules)

    def measure(self, rules: SimPigRules, progress: bool = False) -> dict[str, Any]:
        """Each level's exact share of the win against the equilibrium (two players)."""
        from dicelab.simpig.levels import measure

        return measure(rules, progress)

    def coach(self, state: GameState, seat: int, against: str | None = None) -> dict[str, Any] | None:
        """The value of every target for ``seat`` (two players), against the bot ``against``
        (default: the equilibrium); None with more players or once the game is over."""
        rules = state.rules
        if state.is_over or rules.players != 2 or seat not in state.to_move():
            return None
        spec = parse_spec(against or DEFAULT_AGAINST, rules)
        scores = state.observe(seat)["scores"]
        i, j = scores[seat], scores[1 - seat]
        q = target_values(spec, rules.goal, i, j)
        best = int(np.argmax(q)) + 1
        return {"kind": "win probability", "position": [i, j], "against": spec,
                "values": [{"action": {"target": k}, "value": v} for k, v in enumerate(q, start=1)],
                "best": {"target": best}}

    # ---- optional build hooks (see :mod:`dicelab.core.registry`)
    def ready(self, specs: list[str], rules: SimPigRules) -> bool:
        """Whether the bots, the human's coach (against the first bot) and the bots' own coach (against
        the equilibrium: what a review asks at a bot's decision) are in memory."""
        checked = [_form(s) for s in specs]
        coach = rules.players != 2 or all((s, rules.goal) in _br for s in {checked[0] if checked else DEFAULT_AGAINST,
                                                                             DEFAULT_AGAINST})
        return coach and all((s, rules.goal) in _strategies for s in checked)

    def heavy(self, specs: list[str], rules: SimPigRules) -> bool:
        return False  # a best response to 100 takes about a second: a thread will do

    def prepare(self, specs: list[str], rules: SimPigRules) -> None:
        checked = [parse_spec(s, rules) for s in specs]  # builds the strategies
        if rules.players == 2:
            best_response(checked[0] if checked else DEFAULT_AGAINST, rules.goal)
            best_response(DEFAULT_AGAINST, rules.goal)

    # ---- the environment form (dicelab.envs.generic), a simultaneous game: action a holds at
    # k = a + 1; a seat sees [own score, the other players' scores in seat order after its own]
    def actions(self, rules: SimPigRules) -> list[Action]:
        return [{"target": k} for k in range(1, rules.goal + 1)]

    def observation_nvec(self, rules: SimPigRules) -> list[int]:
        return [rules.goal + SIDES] * rules.players  # a final score stays below goal + 6

    def encode(self, state: GameState, seat: int) -> list[int]:
        scores = state.observe(seat)["scores"]
        n = len(scores)
        return [scores[(seat + m) % n] for m in range(n)]

    def grade(self, rules: SimPigRules, decide: Any, progress: bool = False) -> dict[str, Any]:
        """The exact grade of a learned policy (:class:`dicelab.core.registry.Grades`)."""
        from dicelab.simpig.policy_grade import grade

        return grade(rules, decide, progress)


PLAY = SimPigPlay()
