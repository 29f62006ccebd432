"""Every Pig and simultaneous-Pig solve ends (issue 11, item 3): small and odd rule sets finish
at once with the right answer, absurd work is refused up front in one line, and an iteration that
cannot settle ends with a one-line error instead of running on."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dicelab.core.errors import DicelabError
from dicelab.pig.rules import PigRules
from dicelab.pig import solver as pig_solver
from dicelab.pig.solver import solve
from dicelab.pig.reference import value_iteration
from dicelab.simpig.solver import selfplay

# Small and odd rule sets: goal 1 and 2, a two-sided die, the coin, two dice with a reset.
ODD_RULES = [
    PigRules(goal=g, sides=s, variant=v)
    for v, sides in (("standard", (2, 3, 14)), ("piglet", (2,)), ("two-dice", (2, 3, 14)))
    for s in sides
    for g in (1, 2, 3, 5, 8)
]


def _cli(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``dicelab ARGS`` in a fresh process; a run past ``timeout`` seconds fails the test."""
    code = "import sys; from dicelab.cli.main import main; main(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=timeout)


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.mark.parametrize("rules", ODD_RULES, ids=lambda r: f"{r.variant}-{r.sides}-{r.goal}")
def test_odd_rules_match_plain_value_iteration(rules: PigRules) -> None:
    # the textbook method (synchronous sweeps of the Bellman update, plain numpy) as reference
    sol = solve(rules)  # a hang is caught by the suite's timeout; speed lives in make bench
    ref, _ = value_iteration(rules, tol=1e-14)
    assert sol.max_residual <= 1e-12
    assert np.max(np.abs(sol.p - ref)) <= 1e-10


@pytest.mark.parametrize("variant", ["standard", "piglet", "two-dice"])
def test_goal_one_closed_form(variant: str) -> None:
    # At goal 1 every non-losing roll wins, and a bust (or reset, from 0) hands the same start to
    # the opponent: P = a + (1 - a)(1 - P), so P = 1 / (2 - a), a = P(the roll scores).
    for sides in [2] if variant == "piglet" else [2, 3, 6, 57, 100]:
        a = {"standard": (sides - 1) / sides, "piglet": 0.5,
             "two-dice": (sides - 1) ** 2 / sides**2}[variant]
        p = solve(PigRules(goal=1, sides=sides, variant=variant)).win_probability(0, 0)
        assert p == pytest.approx(1 / (2 - a), abs=1e-13)


@pytest.mark.parametrize("turn_limit", [1, 2, 3, 12, 100_000])
def test_turn_limits_at_the_smallest_goals(turn_limit: int) -> None:
    # When the first scoring roll wins (goal 1, or goal 2 with a two-sided die), with a = P(the
    # roll scores): E_n = a + (1 - a)(1 - E_{n-1}), E_0 = 1/2, so
    # E_n = P + (1/2 - P) * (a - 1)^n with P = 1 / (2 - a) the unlimited value.
    cases = [
        (PigRules(goal=2, sides=2), 0.5),
        (PigRules(goal=1, variant="piglet"), 0.5),
        (PigRules(goal=1, sides=3), 2 / 3),
        (PigRules(goal=1, sides=3, variant="two-dice"), 4 / 9),
    ]
    for rules, a in cases:
        p = 1 / (2 - a)
        got = solve(rules, turn_limit=turn_limit).win_probability(0, 0)
        assert got == pytest.approx(p + (0.5 - p) * (a - 1) ** turn_limit, abs=1e-13)


@pytest.mark.parametrize(
    "args",
    [
        # about 94 s before the cap (two dice of 100 sides, 100000 turns), days at goal 1000
        ("pig", "solve", "--goal", "14", "--sides", "100", "--variant", "two-dice",
         "--turn-limit", "100000", "--no-cache"),
        ("pig", "solve", "--goal", "1000", "--turn-limit", "100000", "--no-cache"),
        # about 20 minutes per solve before the cap
        ("pig", "solve", "--goal", "1000", "--variant", "two-dice", "--no-cache"),
    ],
    ids=["goal14-two-dice-100-sides-100000-turns", "goal1000-100000-turns", "goal1000-two-dice"],
)
def test_absurd_pig_solves_are_refused_up_front(args: tuple[str, ...]) -> None:
    line = _one_error_line(_cli(*args, timeout=60))
    assert "multiply-adds" in line and "limit" in line


def test_pig_solve_goal_1000_is_still_allowed() -> None:
    # the cap must not refuse the largest standard game (about a minute): only its estimate
    assert pig_solver.work_needed(PigRules(goal=1000)) <= pig_solver.MAX_WORK


def test_a_solve_that_does_not_settle_raises_with_its_residual(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # stand-in for a fixed point that never settles: the sweeps leave the table untouched
    monkeypatch.setattr(pig_solver, "_sweep_layers", lambda *args: 0)
    with pytest.raises(DicelabError, match="did not converge") as err:
        solve(PigRules(goal=5, variant="two-dice"))
    msg = str(err.value)
    assert "\n" not in msg and "Bellman residual" in msg


def test_selfplay_small_goals_finish_at_once() -> None:
    for goal in range(2, 15):
        r = selfplay(goal)
        assert r.cycle_length in (1, 2, 3, 4) and r.sweeps <= 400


def test_selfplay_out_of_sweeps_is_one_line() -> None:
    # goal 100 needs 7 sweeps to fall into its 2-cycle; 3 are not enough
    with pytest.raises(DicelabError, match="did not settle") as err:
        selfplay(100, max_sweeps=3)
    assert "\n" not in str(err.value) and "changed a value by up to" in str(err.value)


def test_selfplay_sweeps_are_capped_by_work() -> None:
    # goal 1000 ran for over 10 minutes before (20 sweeps per kernel call, up to 400 in all)
    from dicelab.simpig.solver import DEFAULT_MAX_WORK, _selfplay_sweep_cap

    cap = _selfplay_sweep_cap(1000, 400)
    # a sweep scores every target at every state: at least goal^3 / 2 multiply-adds
    assert 8 <= cap and cap * 1000**3 / 2 <= DEFAULT_MAX_WORK
    with pytest.raises(DicelabError, match="lower the goal"):
        _selfplay_sweep_cap(1000, 400, max_work=1e9)
