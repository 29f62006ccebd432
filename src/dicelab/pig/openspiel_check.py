"""The peer check of issue 25: dicelab's strategies played inside OpenSpiel's ``pig`` engine.

OpenSpiel (``pip install open_spiel``, optional) has ``pig`` for 2 to 10 players. Its rules
against dicelab's (checked in its ``pig.cc``): ``diceoutcomes`` is the die (face 1 busts, face
``x`` adds ``x``; ``piglet=True`` is the coin); a player whose score plus turn total reaches
``winscore`` may only stop, which wins, as reaching the goal wins at once here; the winner gets 1
and every other seat ``-1 / (n - 1)``. Two differences: OpenSpiel lets a player stop with a turn
total of 0 (dicelab's n-player rules make it roll; dicelab's strategies never stop there, so the
games are the same), and it ends a game as a draw (all 0) after ``horizon`` moves (rolls and
stops, default 1000), which this check sets out of reach.

:func:`play_in_openspiel` lets each seat's dicelab strategy choose inside OpenSpiel's states,
chance drawn from a seeded generator, and counts each seat's wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from dicelab.core.errors import require
from dicelab.pig.rules import PigRules

_STATE = re.compile(r"Scores: ([0-9 ]+), Turn total: (\d+)\s*Current player: (\d+)")


def _chooser(spec: str, rules: PigRules) -> Any:
    """``f(scores mover first, k) -> roll?`` for a seat strategy spec."""
    import dicelab.pig.nkernels as K
    from dicelab.pig.nevaluation import seat_strategy

    s = seat_strategy(spec, rules)
    g, n = rules.goal, rules.players
    if s.kind == K.HOLD:
        return lambda c, k: k == 0 or k < s.param
    if s.kind == K.THRESH:
        thr = s.thresholds

        def thresh(c: tuple[int, ...], k: int) -> bool:
            idx = 0
            for x in c:
                idx = idx * g + x
            return k == 0 or k < int(thr[idx])

        return thresh
    require(s.kind == K.OPT, f"the OpenSpiel check plays optimal, hold:N and keep-pace, not {spec}")
    from dicelab.pig.nsolver import solve_n_cached

    sol = solve_n_cached(rules)
    rows: dict[tuple[int, ...], np.ndarray] = {}
    rng = np.random.default_rng(12345)

    def optimal(c: tuple[int, ...], k: int) -> bool:
        row = rows.get(c)
        if row is None:
            row = rows[c] = sol.turn(c)[1]
        p = row[k]
        return bool(p >= 1.0 or (p > 0.0 and rng.random() < p))

    del n
    return optimal


def play_in_openspiel(profile: Sequence[str], rules: PigRules, games: int, seed: int = 0
                      ) -> np.ndarray:
    """Play ``games`` games of the profile (one spec per seat) in OpenSpiel's ``pig``; returns each
    seat's wins. Needs ``pyspiel``."""
    import pyspiel

    n = rules.players
    require(len(profile) == n, f"give one strategy per seat ({n})")
    require(rules.variant in ("standard", "piglet"), "OpenSpiel's pig has the standard and piglet rules")
    params = {"players": n, "winscore": rules.goal, "horizon": 10**8,
              "diceoutcomes": int(rules.sides), "piglet": rules.variant == "piglet"}
    game = pyspiel.load_game("pig", params)
    choose = [_chooser(spec, rules) for spec in profile]
    rng = np.random.default_rng(seed)
    wins = np.zeros(n, dtype=np.int64)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                probs = np.array([p for _, p in outcomes])
                state.apply_action(outcomes[int(rng.choice(len(outcomes), p=probs))][0])
                continue
            m = _STATE.search(str(state))
            assert m is not None
            scores = [int(x) for x in m.group(1).split()]
            k, p = int(m.group(2)), int(m.group(3))
            if scores[p] + k >= rules.goal:
                state.apply_action(1)  # the only legal move: stop, and win
                continue
            c = tuple(scores[(p + r) % n] for r in range(n))
            state.apply_action(0 if choose[p](c, k) else 1)
        returns = state.returns()
        if max(returns) > 0:  # a win (the horizon, out of reach here, would end in a draw)
            wins[int(np.argmax(returns))] += 1
    return wins
