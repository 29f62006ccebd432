"""Liar's Dice's levels of strength (:mod:`dicelab.core.levels`): the seed's probabilistic bot, the
learning agent, and the scout with less and less noise, each measured against the scout.

The strongest level is the scout (:class:`~dicelab.liars.multi.ScoutBot` with the trained
near-equilibrium duel policies where they are available); ``scout:E`` is the scout that, at each
decision with probability ``E``, makes the probabilistic bot's move instead (a player who now and
then bids what it holds without thinking about what the bids so far say).

Liar's Dice has hidden dice and rounds, so a level's strength is measured by play: whole games
against the scout at the lab's default table (two players, 3 dice each, 6 faces), the level in
each seat in turn, with a 95 % Wilson interval (:func:`dicelab.liars.multi.win_share`). Each level
also gets its LBR (:func:`dicelab.liars.lbr.lbr`: a lower bound on how much a best response wins
against it) in the one-die duel that ends a game, where the scout plays its trained policy.

The default table's measurement is shipped (:data:`SHIPPED`, ``levels.json`` beside this module,
with its seed, games and method; ``dicelab liars levels`` prints it, and the slow test
``tests/liars/test_liars_levels.py`` measures it again); other tables are measured when asked
(minutes).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.core.levels import Level
from dicelab.liars.rules import LiarsRules

GAMES = 2000
SEED = 2021
LBR_ROUNDS = 4000
SHIPPED = Path(__file__).with_name("levels.json")

LADDER = (
    ("Beginner", "probabilistic", "raises as often as the bid is likely to hold from its own dice, else calls"),
    ("Casual", "agent", "a learning agent: Q-learning from 5,000 games against random bots"),
    ("Club", "scout:0.4", "the scout, but four decisions in ten bids what it holds without reading the bids"),
    ("Strong", "scout:0.15", "the scout, but one decision in seven bids what it holds without reading the bids"),
    ("Expert", "scout", "reads the bids; near-equilibrium trained play once two players are left, where trained"),
)


def levels(rules: LiarsRules) -> list[Level]:
    """The ladder, weakest first (:data:`LADDER`)."""
    return [Level(name, spec, details) for name, spec, details in LADDER]


def default_rules() -> LiarsRules:
    """The lab's default table (the registry's defaults): two players, 3 dice, 6 faces, no wild."""
    from dicelab.liars import GAME

    return LiarsRules(**{p.name: p.default for p in GAME.params})


Bots = Any  # the play module's bot factory: .policy(spec, rules) and .agent(rules)


def lbr_of(spec: str, rules: LiarsRules, bots: Bots, rounds: int = LBR_ROUNDS, seed: int = SEED
           ) -> dict[str, Any] | None:
    """LBR against the level ``spec`` in the 1 v 1 duel of ``rules`` (faces, wild), or None when the
    scout has no trained 1 v 1 policy there. ``bots`` makes the bots (:class:`dicelab.liars.play.LiarsPlay`)."""
    from dicelab.liars.duel import Duel, build_dag
    from dicelab.liars.lbr import lbr, table_policy
    from dicelab.liars.library import policy
    from dicelab.liars.strategies import action_distribution

    agent = bots.agent
    duel = Duel((1, 1), rules.faces, rules.wild)
    two = LiarsRules(players=2, dice=max(1, rules.dice), faces=rules.faces, wild=rules.wild)
    scout = policy(duel)
    if spec == "probabilistic":
        pol = table_policy(duel, lambda v: action_distribution("probabilistic", v), two, name=spec)
    elif spec == "agent":
        pol = table_policy(duel, agent(two).action_distribution, two, name=spec)
    elif scout is None:
        return None
    elif spec == "scout":
        pol = scout
    else:
        e = float(spec.split(":")[1])
        prob = table_policy(duel, lambda v: action_distribution("probabilistic", v), two, name="probabilistic")
        pol = _mix_on(scout, prob, e, build_dag)
    out = lbr(pol, rounds=rounds, seed=seed)
    return {k: out[k] for k in ("exploitability_lower", "exploitability_lower_ci", "lbr0", "lbr1", "rounds")}


def _mix_on(scout: Any, table: Any, e: float, build_dag: Any) -> Any:
    """``(1 - e) * scout + e * table`` as one policy on the scout's DAG; ``table`` looks only at the
    last bid (a window-1 policy), so its row at a node is the row of that node's last bid."""
    from dicelab.liars.duel import DuelPolicy

    dag, small = scout.dag, table.dag
    by_top = {int(small.top[m]): int(small.loc[m]) for m in range(small.n_nodes)}
    s = []
    for i in (0, 1):
        x = np.array(scout.strategy[i], dtype=np.float64) * (1.0 - e)
        for m in range(dag.n_nodes):
            if dag.mover[m] != i:
                continue
            t = int(dag.top[m])
            width = dag.n - 1 - t + (1 if m != 0 else 0)
            x[int(dag.loc[m]):int(dag.loc[m]) + width] += e * table.strategy[i][by_top[t]:by_top[t] + width]
        s.append(x)
    return DuelPolicy(scout.duel, dag, (s[0], s[1]), {"method": "mixture", "name": f"scout:{e:g}"})


def simulate(rules: LiarsRules, bots: Bots, games: int = GAMES, seed: int = SEED, progress: bool = False
             ) -> dict[str, Any]:
    """Measure every level against the strongest: ``games`` whole games each (the level in each
    seat in turn), a 95 % interval, and LBR in the one-die duel. ``bots`` makes the bots
    (:class:`dicelab.liars.play.LiarsPlay`: ``bots.bot(spec, rules).policy``)."""
    from dicelab.core.progress import progress_bar
    from dicelab.liars.multi import win_share

    require(rules.players == 2, "levels are measured at two-player tables")
    ladder = levels(rules)
    top = bots.bot(ladder[-1].spec, rules).policy
    strengths, intervals, lbrs = [], [], []
    t0 = time.perf_counter()
    with progress_bar("Liar's Dice levels", len(ladder), enabled=progress) as bar:
        for lv in ladder:
            w = win_share(bots.bot(lv.spec, rules).policy, [top], rules, games=games, seed=seed)
            strengths.append(w["win_rate"])
            intervals.append([w["ci_low"], w["ci_high"]])
            lbrs.append(lbr_of(lv.spec, rules, bots))
            bar.advance(1)
    return {"strengths": strengths, "intervals": intervals, "exact": False,
            "method": f"{games} whole games of each level against the {ladder[-1].name} level (the level in each "
                      f"seat in turn, seed {seed}; dicelab.liars.multi.win_share), 95% Wilson intervals; LBR in the "
                      f"1 v 1 duel ({LBR_ROUNDS} rounds a seat, dicelab.liars.lbr.lbr)",
            "games": games, "seed": seed, "lbr": lbrs, "seconds": time.perf_counter() - t0}


def measure(rules: LiarsRules, bots: Bots, progress: bool = False) -> dict[str, Any]:
    """The shipped measurement for the default table (:data:`SHIPPED`), else :func:`simulate`."""
    shipped = load_shipped()
    if shipped is not None and rules == default_rules():
        return shipped
    return simulate(rules, bots, progress=progress)


def load_shipped() -> dict[str, Any] | None:
    """The shipped measurement if it is there and holds this ladder, else None."""
    try:
        data = json.loads(SHIPPED.read_text())
    except (OSError, ValueError):
        return None
    if data.get("specs") != [spec for _, spec, _ in LADDER]:
        return None
    return {k: v for k, v in data.items() if k != "specs"}


def ship(bots: Bots, progress: bool = True) -> dict[str, Any]:
    """Measure the default table and write :data:`SHIPPED` (the release step; minutes)."""
    out = simulate(default_rules(), bots, progress=progress)
    SHIPPED.write_text(json.dumps({"specs": [spec for _, spec, _ in LADDER], **out}, indent=1) + "\n")
    return out
