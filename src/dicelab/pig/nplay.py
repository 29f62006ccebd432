"""Pig for three or four players in the lab (:mod:`dicelab.pig.play` hands ``rules.players > 2``
here): the bots, the coach from the exact max-n solution (:mod:`dicelab.pig.nsolver`) and its
advice.

A bot is a probability of rolling at ``(scores mover first, turn total k)``; a turn total of 0
always rolls (the n-player rule). The specs:

``optimal``
    Max-n optimal play; at its few mixed choices (where the mover must mix for the cycle of turns
    to have an equilibrium, see ``docs/methods/pig.md``) it rolls with the solution's chance.
``hold:N``, ``turtle`` (``hold:5``), ``roll-to-win``, ``keep-pace``
    As :func:`dicelab.pig.nevaluation.seat_strategy` reads them (keep pace with the *leader*).
``slip:E:SPEC``, ``soft:T``
    The levels' noise (:mod:`dicelab.pig.levels`): ``SPEC`` with each decision after the first
    roll of a turn going the other way with chance ``E``; or rolling with chance
    ``1 / (1 + exp(-(P_roll - P_hold) / T))`` from the mover's exact chances.

The coach gives the mover's chance to win if it rolls and if it holds now, everyone then playing
optimally, and every seat's chance (seat order) after the better of the two. The lab seats three
players up to goal 100 and four up to goal :data:`LAB_GOAL_4` (the value table of four players at
goal 100 takes 2.4 GB: the library and the command line solve it).

>>> from dicelab.pig.rules import PigRules
>>> r = PigRules(goal=20, players=3)
>>> parse_spec(" Hold:12 ", r), parse_spec("slip:0.1:hold:15", r)
('hold:12', 'slip:0.1:hold:15')
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.game import Action, GameState
from dicelab.core.registry import Bot
from dicelab.pig.rules import PigRules

#: the highest goal at which the lab seats four players (a 61 MB table, about 5 s to solve)
LAB_GOAL_4 = 40
ALLOWED_N = "optimal, hold:N, keep-pace, turtle, roll-to-win, and the noisy slip:E:SPEC and soft:T"
_SIMPLE = ("optimal", "keep-pace", "turtle", "roll-to-win")


def check_lab(rules: PigRules) -> None:
    """Refuse, in one line, a game the lab does not seat (more than four players; four players
    above goal :data:`LAB_GOAL_4`)."""
    require(rules.players <= 4, f"the lab seats 2 to 4 players, got {rules.players}")
    require(rules.players <= 3 or rules.goal <= LAB_GOAL_4,
            f"the lab plays four players up to goal {LAB_GOAL_4} (got goal {rules.goal}); "
            "the command line solves bigger games")


def parse_spec(spec: Any, rules: PigRules) -> str:
    """A bot spec for ``rules.players > 2`` checked and normalised, or a one-line error."""
    from dicelab.pig.levels import normalise_spec

    require(isinstance(spec, str) and len(spec) <= 80, f"a strategy is a short string; allowed: {ALLOWED_N}")
    check_lab(rules)
    return normalise_spec(spec, rules, _SIMPLE, ALLOWED_N)


def bots() -> list[Bot]:
    """The bots of the setup form for three or four players."""
    return [
        Bot("optimal", "Optimal (exact, every player for itself)", "maximises its own chance to win"),
        Bot("hold:20", "Hold at 20", "rolls until the turn total reaches 20"),
        Bot("hold:25", "Hold at 25", "rolls until the turn total reaches 25"),
        Bot("keep-pace", "Keeps pace with the leader",
            "Neller's \"keep pace and end race\" rule against the leader: keeps up, races at the end"),
        Bot("turtle", "Cautious: banks small totals", "the turtle: banks small totals often, as cautious players do"),
    ]


def position(state: GameState, seat: int) -> tuple[tuple[int, ...], int]:
    """``(banked scores from seat's own round the table, turn total)``."""
    obs = state.observe(seat)
    sc = obs["scores"]
    n = len(sc)
    return tuple(int(sc[(seat + r) % n]) for r in range(n)), int(obs["turn_total"])


def keep_pace_threshold(c: tuple[int, ...], goal: int) -> int:
    """keep-pace's hold number at ``c`` (mover first), the formula of
    :func:`dicelab.pig.nevaluation.keep_pace_thresholds` for one position."""
    own, lead = c[0], max(c[1:])
    race = (71 * goal + 99) // 100
    if own >= race or lead >= race:
        return goal
    return min(max((42 * goal + 25 * (lead - own) + 100) // 200, 0), goal)


def roll_chance(spec: str, rules: PigRules, c: tuple[int, ...], k: int, sol: Any = None) -> float:
    """The chance that the bot ``spec`` (checked) rolls at ``c`` (mover first) and turn total ``k``."""
    if k == 0:
        return 1.0
    if spec == "optimal":
        return float(sol.turn(c)[1][k])
    if spec == "keep-pace":
        return 1.0 if k < keep_pace_threshold(c, rules.goal) else 0.0
    if spec.startswith("slip:"):
        from dicelab.pig.levels import parse_noisy

        _, e, inner = parse_noisy(spec)
        q = roll_chance(str(inner), rules, c, k, sol)
        return q * (1.0 - e) + (1.0 - q) * e
    if spec.startswith("soft:"):
        t = float(spec[5:])
        p_roll, p_hold = sol.values(c, k)
        z = (float(p_roll[0]) - float(p_hold[0])) / t
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
    hold = {"turtle": 5, "roll-to-win": rules.goal}.get(spec) or int(spec[5:])
    return 1.0 if k < hold else 0.0


def needs_solution(spec: str) -> bool:
    return spec == "optimal" or spec.startswith("soft:") or spec.endswith(":optimal")


class NPigBot:
    """A seated bot for three or four players; a mixed choice draws from its own generator."""

    def __init__(self, spec: str, rules: PigRules, seed: int = 0, solution: Any = None) -> None:
        self.spec, self.rules = spec, rules
        self.sol = solution
        self.rng = np.random.default_rng(seed)

    def act(self, state: GameState, seat: int) -> Action:
        c, k = position(state, seat)
        q = roll_chance(self.spec, self.rules, c, k, self.sol)
        if q >= 1.0:
            return "roll"
        if q <= 0.0:
            return "hold"
        return "roll" if self.rng.random() < q else "hold"


def coach(sol: Any, state: GameState, seat: int) -> dict[str, Any]:
    """The coach's view at ``seat``'s decision: the mover's chance if it rolls or holds now, and
    every seat's chance (seat order) after the better move; ``equal`` where both are worth the
    same (a mixed choice of the solution)."""
    c, k = position(state, seat)
    n = len(c)
    p_roll, p_hold = sol.values(c, k)
    values = [{"action": "roll", "value": float(p_roll[0])}]
    if p_hold is not None:
        values.append({"action": "hold", "value": float(p_hold[0])})
    best_vec = p_roll if p_hold is None or p_roll[0] > p_hold[0] else p_hold
    out: dict[str, Any] = {
        "kind": "win probability", "position": [*c, k], "values": values,
        "best": "roll" if best_vec is p_roll else "hold",
        "chances": [float(best_vec[(s - seat) % n]) for s in range(n)],
    }
    if p_hold is not None and abs(float(p_roll[0]) - float(p_hold[0])) < 1e-12:
        out["equal"] = ["roll", "hold"]
    return out


def advice(sol: Any, state: GameState, seat: int, action: Action) -> str | None:
    """A sentence where ``action`` differs from optimal play, else None (also at a mixed choice,
    where rolling and holding are worth the same to the mover)."""
    c, k = position(state, seat)
    if k == 0:
        return None
    _, row = sol.turn(c)
    if 0.0 < row[k] < 1.0:
        return None
    best = "roll" if row[k] >= 0.5 else "hold"
    if best == action:
        return None
    where = f"with {c[0]} banked and the others on {', '.join(str(x) for x in c[1:])}"
    holds = [t for t in range(1, len(row)) if row[t] < 0.5]
    if action == "roll":
        at = min(holds, default=k)
        return f"Optimal play holds at {at} here; you rolled at {k} {where}."
    later = [t for t in holds if t > k]
    until = f"and holds at {later[0]}" if later else "until it reaches the goal"
    return f"Optimal play keeps rolling here {until}; you held at {k} {where}."


def work_units(rules: PigRules, specs: list[str], solved: bool) -> float:
    """Estimated work (state-outcome visits) of what a game of ``specs`` needs that is missing:
    the solution, about goal^players score tuples x goal turn totals x sides x a few passes."""
    if solved:
        return 0.0
    return 4.0 * rules.goal ** (rules.players + 1) * rules.sides
