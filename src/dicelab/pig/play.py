"""Pig for interactive play (:class:`dicelab.core.registry.Play`): the bots people may choose, and
the coach's exact win probabilities.

A bot is a strategy (:mod:`dicelab.pig.specs`) compiled once per rules into a decision table
``roll[i, j, k]`` (own banked score, opponent's, turn total) and then one lookup per decision:
``optimal`` (Neller & Presser's policy, from the exact solution), ``hold:N``, ``keep-pace``,
``turtle``, ``roll-to-win``, ``roll-and-wait`` and ``best-response:SPEC`` (nested twice at most).
``file:PATH`` strategies are refused: a bot spec may come from a web client.

The coach reads the exact solution: at ``(i, j, k)`` the mover's win probability if they roll
(or hold) now and both play optimally afterwards.

Three or four players (``rules.players > 2``) are :mod:`dicelab.pig.nplay`'s: the same hooks,
the bots and the coach read the max-n solution (:mod:`dicelab.pig.nsolver`).

Tables and solutions are kept in bounded caches (:mod:`dicelab.core.cache`). A build estimated
over :data:`QUICK_WORK` (a two-dice solve, a best response on a big die) is *heavy*
(:meth:`PigPlay.heavy`): a server builds it in a worker process with :meth:`PigPlay.export` and
takes the ``.npz`` bytes back with :meth:`PigPlay.install` (no pickle).
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np

from dicelab.core.cache import bounded_cache
from dicelab.core.errors import DicelabError, require
from dicelab.core.game import Action, GameState
from dicelab.core.levels import Level
from dicelab.core.registry import Bot
from dicelab.pig.rules import PigRules

# a goal-100 solution is about 9 MB (P and the roll table), a decision table 1 MB
_solutions = bounded_cache("pig solutions", 128)
_tables = bounded_cache("pig decision tables", 48)
_SIMPLE = ("optimal", "keep-pace", "turtle", "roll-to-win", "roll-and-wait")
ALLOWED = ("optimal, hold:N, keep-pace, turtle, roll-to-win, roll-and-wait, best-response:SPEC, and the noisy "
           "slip:E:SPEC (E up to 0.5) and soft:T (dicelab.pig.levels)")

# Work estimates in "state-outcome visits": an exact evaluation of two strategies visits every
# state (about goal^3) with every roll outcome; a best response or a solve costs a few evaluations
# (two-dice d12 to 100 on the project machine: one evaluation 0.17 s, one best response 1.0 s).
BR_EVALS = 7
SOLVE_EVALS = 2
QUICK_WORK = 5e7  # about 50-150 ms: below it a table is built in the caller's own thread


def work_units(rules: PigRules, evaluations: int, specs: list[str]) -> float:
    """Estimated work of ``evaluations`` exact evaluations plus the tables ``specs`` need."""
    outcomes = rules.sides ** 2 if rules.variant == "two-dice" else rules.sides
    builds = sum(BR_EVALS * s.count("best-response:") + SOLVE_EVALS * (s.endswith("optimal") or s.startswith("soft:"))
                 for s in set(specs))
    return float(evaluations + builds) * rules.goal ** 3 * outcomes


def parse_spec(spec: Any, rules: PigRules) -> str:
    """A bot spec checked for ``rules`` and normalised, or a one-line DicelabError naming the allowed."""
    if rules.players > 2:
        from dicelab.pig import nplay

        return nplay.parse_spec(spec, rules)
    from dicelab.pig.levels import normalise_spec

    def best_response(s: str, again: Any) -> str | None:
        if not s.startswith("best-response:"):
            return None
        require(s.count("best-response:") <= 2, f"best-response may be nested twice at most, got {s[:80]!r}")
        return f"best-response:{again(s[len('best-response:'):])}"

    return normalise_spec(spec, rules, _SIMPLE, ALLOWED, best_response)


def solution(rules: PigRules) -> Any:
    """The exact :class:`~dicelab.pig.solver.PigSolution` for ``rules`` (solved once, cached); for
    three or four players the :class:`~dicelab.pig.nsolver.NPigSolution`."""
    if rules.players > 2:
        from dicelab.pig.nplay import check_lab
        from dicelab.pig.nsolver import solve_n_cached

        check_lab(rules)
        return _solutions.get_or_build(rules, lambda: solve_n_cached(rules))
    from dicelab.pig.solver import solve_cached

    return _solutions.get_or_build(rules, lambda: solve_cached(rules))


def solved(rules: PigRules) -> bool:
    """Whether the exact solution for ``rules`` is in memory."""
    return rules in _solutions


def table(spec: str, rules: PigRules) -> np.ndarray:
    """The decision table of the (checked) ``spec`` for ``rules``: bool, True = roll; for a noisy
    spec (:mod:`dicelab.pig.levels`) the probability of rolling, float32."""

    def build() -> np.ndarray:
        if spec == "optimal":
            return solution(rules).roll
        if spec.startswith(("slip:", "soft:")):
            from dicelab.pig.levels import parse_noisy, roll_probabilities

            inner = parse_noisy(spec)[2]
            base = None if inner is None else table(inner, rules)
            sol = solution(rules) if inner is None else None
            return roll_probabilities(spec, rules, base=base, sol=sol).astype(np.float32)
        from dicelab.pig.specs import compile_table

        return compile_table(spec, rules)

    return _tables.get_or_build((spec, rules), build)


def _position(state: GameState, seat: int) -> tuple[int, int, int]:
    """``(own score, opponent's score, turn total)`` from what ``seat`` sees."""
    obs = state.observe(seat)
    return obs["scores"][seat], obs["scores"][1 - seat], obs["turn_total"]


class PigBot:
    """A seated Pig bot: one decision-table lookup per move; a noisy bot (a table of roll
    probabilities) draws from its own generator (``seed``)."""

    def __init__(self, spec: str, rules: PigRules, seed: int = 0) -> None:
        self.spec, self.rules = spec, rules
        self.table = table(spec, rules)
        self.rng = np.random.default_rng(seed)

    def act(self, state: GameState, seat: int) -> Action:
        i, j, k = _position(state, seat)
        q = self.table[i, j, k]
        if self.table.dtype == np.bool_:
            return "roll" if q else "hold"
        return "roll" if self.rng.random() < q else "hold"


def _fits(spec: str, rules: PigRules) -> bool:
    try:
        parse_spec(spec, rules)
    except DicelabError:
        return False
    return True


class PigPlay:
    """Pig's :class:`~dicelab.core.registry.Play`, with the optional build hooks."""

    def bots(self, rules: PigRules) -> list[Bot]:
        if rules.players > 2:
            from dicelab.pig.nplay import bots, check_lab

            check_lab(rules)  # one line for a table the lab does not seat (four players above goal 40)
            return [b for b in bots() if _fits(b.spec, rules)]
        return [b for b in self._bots() if _fits(b.spec, rules)]  # hold:25 is no bot at goal 20

    @staticmethod
    def _bots() -> list[Bot]:
        return [
            Bot("optimal", "Optimal (Neller & Presser)", "plays to maximise its chance to win"),
            Bot("hold:20", "Hold at 20", "rolls until the turn total reaches 20"),
            Bot("hold:25", "Hold at 25", "rolls until the turn total reaches 25"),
            Bot("keep-pace", "Keeps pace with the leader",
                "Neller's \"keep pace and end race\" rule: keeps up with the leader, races at the end"),
            Bot("turtle", "Cautious: banks small totals", "the turtle: banks small totals often, as cautious players do"),
            Bot("best-response:hold:20", "Beats holding at 20", "the exact best response to hold at 20"),
            Bot("best-response:keep-pace", "Beats keeping pace", "the exact best response to keep pace and end race"),
        ]

    def bot(self, spec: str, rules: PigRules, *, seed: int = 0) -> Any:
        if rules.players > 2:
            from dicelab.pig.nplay import NPigBot, needs_solution

            s = parse_spec(spec, rules)
            return NPigBot(s, rules, seed, solution(rules) if needs_solution(s) else None)
        return PigBot(parse_spec(spec, rules), rules, seed)

    # ---- levels of strength (the optional hook of dicelab.core.levels)
    def levels(self, rules: PigRules) -> list[Level]:
        """The ladder, weakest first (:mod:`dicelab.pig.levels`)."""
        from dicelab.pig.levels import levels

        ladder = levels(rules)
        if rules.players > 2:  # the same ladder; its top is the max-n solution
            ladder[-1] = Level(ladder[-1].name, ladder[-1].spec, "optimal play (the exact max-n solution: "
                                                                 "every player for itself)")
        return ladder

    def measure(self, rules: PigRules, progress: bool = False) -> dict[str, Any]:
        """Each level's exact chance to win against optimal play, seats averaged."""
        from dicelab.pig.levels import measure

        require(rules.players == 2, "the levels are measured for two players (against optimal play)")
        return measure(rules, progress)

    def coach(self, state: GameState, seat: int) -> dict[str, Any] | None:
        if state.is_over or seat not in state.to_move():
            return None
        if state.rules.players > 2:
            from dicelab.pig.nplay import coach

            return coach(solution(state.rules), state, seat)
        i, j, k = _position(state, seat)
        p_roll, p_hold = solution(state.rules).values(i, j, k)
        return {"kind": "win probability", "position": [i, j, k],
                "values": [{"action": "roll", "value": p_roll}, {"action": "hold", "value": p_hold}],
                "best": "roll" if p_roll >= p_hold else "hold"}

    def advice(self, state: GameState, seat: int, action: Action) -> str | None:
        """A sentence on ``action`` where optimal play differs (the optional hook of
        :class:`~dicelab.core.registry.Advises`): "Optimal play holds at 21 here; you rolled at 27
        with 40 banked and the opponent on 80". None when ``action`` is optimal or not a decision."""
        if state.is_over or seat not in state.to_move() or action not in ("roll", "hold"):
            return None
        if state.rules.players > 2:
            from dicelab.pig.nplay import advice

            return advice(solution(state.rules), state, seat, action)
        i, j, k = _position(state, seat)
        sol = solution(state.rules)
        best = sol.action(i, j, k)
        if best == action:
            return None
        where = f"with {i} banked and the opponent on {j}"
        # the smallest turn total at which optimal play holds in this (i, j), from 1 up to the goal
        holds = [t for t in range(1, state.rules.goal - i) if sol.action(i, j, t) == "hold"]
        if action == "roll":
            at = min(holds, default=k)  # at most k: optimal play holds at k
            return f"Optimal play holds at {at} here; you rolled at {k} {where}."
        later = [t for t in holds if t > k]
        until = f"and holds at {later[0]}" if later else "until it reaches the goal"
        return f"Optimal play keeps rolling here {until}; you held at {k} {where}."

    # ---- optional build hooks (see :mod:`dicelab.core.registry`)
    def ready(self, specs: list[str], rules: PigRules) -> bool:
        """Whether every table the bots ``specs`` and the coach need is in memory."""
        if rules.players > 2:
            return all(parse_spec(s, rules) for s in specs) and rules in _solutions
        return rules in _solutions and all((parse_spec(s, rules), rules) in _tables for s in specs)

    def prepare_also(self) -> list[dict[str, Any]]:
        """Rules beyond the defaults whose bots and coach a lab builds ahead (the optional hook of
        :mod:`dicelab.web.ahead`): three players at goal 100 (about 4 s of CPU) and four at the
        lab's highest goal for four, so no game start waits for a solve."""
        from dicelab.pig.nplay import LAB_GOAL_4

        return [{"title": "three players", "params": {"players": 3}},
                {"title": "four players", "params": {"players": 4, "goal": LAB_GOAL_4}}]

    def heavy(self, specs: list[str], rules: PigRules) -> bool:
        """Whether building what is missing is estimated over :data:`QUICK_WORK`."""
        if rules.players > 2:
            from dicelab.pig.nplay import work_units as n_work

            return n_work(rules, [parse_spec(x, rules) for x in specs], rules in _solutions) > QUICK_WORK
        todo = [s for s in (parse_spec(x, rules) for x in specs) if (s, rules) not in _tables]
        if any(s.count("best-response:") >= 2 for s in todo):  # the estimate is far off: 31-68 s measured
            return True  # for best-response:best-response:hold:20 at goal 31-43 (issue 23)
        if rules not in _solutions:
            todo.append("optimal")
        return work_units(rules, 0, todo) > QUICK_WORK

    def prepare(self, specs: list[str], rules: PigRules) -> None:
        """Build the bots' tables and the coach's solution in this process."""
        solution(rules)
        if rules.players > 2:
            return
        for s in specs:
            table(parse_spec(s, rules), rules)

    def export(self, specs: list[str], rules: PigRules) -> bytes:
        """Build (in a worker process) and return the tables and the solution as ``.npz`` bytes."""
        checked = [parse_spec(s, rules) for s in specs]
        sol_arrays, meta = solution(rules).to_arrays()
        buf = io.BytesIO()
        if rules.players > 2:  # the bots read the solution; no tables of their own
            checked = []
        np.savez(buf, meta=np.frombuffer(json.dumps({"solution": meta, "specs": checked}).encode(), dtype=np.uint8),
                 **{f"table_{n}": table(s, rules) for n, s in enumerate(checked)},
                 **{f"solution_{k}": v for k, v in sol_arrays.items()})
        return buf.getvalue()

    def install(self, specs: list[str], rules: PigRules, data: bytes) -> None:
        """Put what :meth:`export` built into this process's caches."""
        from dicelab.pig.solver import PigSolution

        if rules.players > 2:
            from dicelab.pig.nsolver import NPigSolution

            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                meta = json.loads(z["meta"].tobytes().decode())
                nsol = NPigSolution.from_arrays({k[len("solution_"):]: z[k] for k in z.files
                                                 if k.startswith("solution_")}, meta["solution"], rules)
            _solutions.put(rules, nsol)
            return
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            sol = PigSolution.from_arrays({k[len("solution_"):]: z[k] for k in z.files if k.startswith("solution_")},
                                          meta["solution"], rules)
            tables = [z[f"table_{n}"] for n in range(len(meta["specs"]))]
        _solutions.put(rules, sol)
        for spec, t in zip(meta["specs"], tables, strict=True):
            _tables.put((spec, rules), sol.roll if spec == "optimal" else t)

    # ---- the environment form (dicelab.envs.generic): actions 0 = hold, 1 = roll; a seat sees
    # [own score, opponent's score, the mover's turn total, 1 if it is to move]; with n players
    # [own score, the others' scores in turn order from its own, the turn total, 1 if to move]
    def actions(self, rules: PigRules) -> list[Action]:
        return ["hold", "roll"]

    def observation_nvec(self, rules: PigRules) -> list[int]:
        top = rules.goal + int(rules.outcomes.add_points.max())  # the highest final score
        return [top] * rules.players + [rules.goal, 2]

    def encode(self, state: GameState, seat: int) -> list[int]:
        v = state.observe(seat)
        sc, n = v["scores"], len(v["scores"])
        return [*(sc[(seat + r) % n] for r in range(n)), v["turn_total"], int(v["to_move"] == [seat])]

    def grade(self, rules: PigRules, decide: Any, progress: bool = False) -> dict[str, Any]:
        """The exact grade of a learned policy (:class:`dicelab.core.registry.Grades`)."""
        from dicelab.pig.policy_grade import grade

        require(rules.players == 2, f"policies are graded for two players, got {rules.players}")

        return grade(rules, decide, progress)


PLAY = PigPlay()
