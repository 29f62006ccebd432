"""Liar's Dice benchmarks and the seed-004 reproduction figures.

Timings (medians; each beside its baseline in the same run, ratio printed):

* Q-learning training, the seed's 5,000 games (4 players x 6 dice vs three random bots): the
  compiled loop against the *same* loop run as plain Python (``play_games.py_func`` with every
  helper swapped for its ``py_func``), timed on fewer games and scaled per game.
* one 1,000,000-game training run (target: under 10 minutes on one core).
* DCFR (the solver's default) for 1 v 1, 6 faces, highest wild, to exploitability 1e-4 (target:
  under 60 s), beside the sequence-form LP (HiGHS) on the same game; DCFR and CFR+ to 1e-5, and
  (full run) on 2 v 1 and 1 v 2 dice, 2 v 1 with 6 faces to 1e-4 (issue 6) beside 300 CFR+ iterations.

Play (``--play``, also run with ``--scalable``): the web lab's ``scout`` bot and the duel coach,
timed per decision at every size the lab allows (target: a bot decision under 50 ms).

Figures: win rates with 95% Wilson intervals (several training seeds, many evaluation games).
Run: ``.venv/bin/python benchmarks/bench_liars.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import contextmanager

import numpy as np

from dicelab.liars.rules import LiarsRules
from dicelab.liars import kernel as K
from dicelab.liars.qlearning import DESIGNS, QAgent, binomial_tails, evaluate, train
from dicelab.core.stats import wilson_interval
from dicelab.liars.cfr import (
    METHODS,
    OPENSPIEL_VALUE_1V1_6_HIGHEST,
    DuelRules,
    policy_exploitability,
    solve,
    solve_lp,
)


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


@contextmanager
def plain_python():
    """Swap every compiled helper of the kernel module for its pure-Python original."""
    names = [n for n in dir(K) if hasattr(getattr(K, n), "py_func")]
    saved = {n: getattr(K, n) for n in names}
    try:
        for n in names:
            setattr(K, n, saved[n].py_func)
        yield K.play_games
    finally:
        for n, f in saved.items():
            setattr(K, n, f)


def bench_training(quick: bool) -> None:
    rules = LiarsRules()
    train(rules, games=50, seed=0)  # compile / load the cache
    t_fast = median_time(lambda: train(rules, games=5000, seed=0), 3 if quick else 5)
    n_slow = 20 if quick else 100
    q = np.zeros((QAgent.new(rules).q.shape))
    kinds = np.array([0, 1, 1, 1], dtype=np.int64)
    tails = binomial_tails(rules)
    with plain_python() as loop:
        def slow() -> None:
            loop(q, 4, 6, 6, 0, kinds, 2, 1, n_slow, 0, 0.1, 0.9, 0.0, 0.5, True, 0, tails,
                 np.zeros(n_slow, np.int64))
        t_slow = median_time(slow, 1 if quick else 3) / n_slow * 5000
    print(f"training, 5,000 games (4x6 vs 3 random): numba {t_fast:.3f} s, plain Python {t_slow:.1f} s "
          f"(from {n_slow} games), ratio {t_slow / t_fast:.0f}x (target < 10 s)")
    n_big = 100_000 if quick else 1_000_000
    t0 = time.perf_counter()
    train(rules, games=n_big, seed=1)
    print(f"training, {n_big:,} games: {time.perf_counter() - t0:.1f} s (target for 1,000,000: < 600 s)")


def bench_cfr(quick: bool) -> None:
    rules = DuelRules((1, 1), 6, "highest")
    for method in METHODS:
        solve(DuelRules((1, 1), 2, "none"), iterations=5, method=method)  # compile
    sols = []

    def run() -> None:
        sols.append(solve(rules, target=1e-4))

    t_cfr = median_time(run, 1 if quick else 3)
    s = sols[-1]
    t_lp = median_time(lambda: solve_lp(rules), 1 if quick else 3)
    lp = solve_lp(rules)
    print(f"DCFR 1v1, 6 faces, highest wild, to 1e-4: {t_cfr:.2f} s, {s.iterations} iterations, value "
          f"{s.value:.9f}, exploitability {s.exploitability:.2e} (target < 60 s); LP (HiGHS) {t_lp:.2f} s, "
          f"value {lp:.12f}; OpenSpiel {OPENSPIEL_VALUE_1V1_6_HIGHEST}; ratio LP/DCFR {t_lp / t_cfr:.2f}")
    for method in ("dcfr", "cfr+"):
        s5 = solve(rules, target=1e-5, method=method)
        print(f"{method} to 1e-5: {s5.seconds:.2f} s, {s5.iterations} iterations, value {s5.value:.9f}")
    if not quick:
        for d, f, n_it in [((2, 1), 4, 5000), ((1, 2), 4, 5000), ((2, 1), 5, 5000), ((2, 1), 6, 4000)]:
            for method in ("dcfr", "cfr+"):
                cap = 300 if (f, method) == (6, "cfr+") else n_it  # CFR+ needs some 2,500 there
                s = solve(DuelRules(d, f, "highest"), target=1e-4, iterations=cap, method=method)
                print(f"{method} {d[0]}v{d[1]}, {f} faces, highest wild: value {s.value:.6f}, exploitability "
                      f"{s.exploitability:.1e}, {s.iterations} iterations, {s.seconds:.1f} s")


def pooled(agents: list[QAgent], opp: str, games: int) -> str:
    wins = n = 0
    rates = []
    for i, a in enumerate(agents):
        r = evaluate(a, [opp] * 3, games=games, seed=10_000 + i)
        wins += r.wins
        n += r.games
        rates.append(r.win_rate)
    lo, hi = wilson_interval(wins, n)
    return f"{wins / n:.3f} [{lo:.3f}, {hi:.3f}] (seeds {min(rates):.3f}..{max(rates):.3f})"


def figures(quick: bool) -> None:
    rules = LiarsRules()
    seeds = range(3 if quick else 5)
    n_eval = 2000 if quick else 10_000
    for name in ("random", "probabilistic"):
        r = evaluate(name, ["random"] * 3, games=n_eval, seed=99)
        p = evaluate(name, ["probabilistic"] * 3, games=n_eval, seed=98)
        print(f"bot {name} in seat 1: vs 3 random {r.win_rate:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]; "
              f"vs 3 probabilistic {p.win_rate:.3f} [{p.ci_low:.3f}, {p.ci_high:.3f}]")
    sizes = [5000, 100_000] if quick else [5000, 100_000, 1_000_000]
    for design in DESIGNS:
        for opp in ("random", "probabilistic"):
            for n in sizes:
                if n == 1_000_000 and (design != "seed" or opp != "random"):
                    continue
                res = [train(rules, games=n, seed=s, opponents=[opp] * 3, design=design) for s in seeds]
                share = np.mean([r.win_rate for r in res])
                line = pooled([r.agent for r in res], opp, n_eval)
                extra = ""
                if opp == "random" and n == 5000 and design == "seed":
                    seedp = [train(rules, games=n, seed=s, pairing="seed") for s in seeds]
                    extra = f"; with the R loop's action pairing: {pooled([r.agent for r in seedp], opp, n_eval)}"
                print(f"{design:8s} trained {n:>9,} games vs 3 {opp}: share won while training {share:.3f}; "
                      f"greedy eval vs 3 {opp} {line}{extra}")
    duel = LiarsRules(players=2, dice=1, faces=6, wild="highest")
    for design in DESIGNS:
        a = train(duel, games=100_000, seed=0, design=design).agent
        e = policy_exploitability(DuelRules((1, 1), 6, "highest"), a.action_distribution, duel)
        print(f"Q agent ({design}, 100,000 games vs random, 2 players x 1 die, highest wild): exploitability "
              f"{e['exploitability']:.4f} (BR0 {e['br0']:.4f}, BR1 {e['br1']:.4f}); equilibrium 0")


def bench_scalable(quick: bool) -> None:
    """Issue 13: the scalable duel solver (exact grading beside the exact solver, LBR, head-to-head)
    and the multi-player bot."""
    from dicelab.liars.duel import Duel, train_duel
    from dicelab.liars.grading import exact_grade
    from dicelab.liars.lbr import bot_policy, head_to_head, lbr, table_policy
    from dicelab.liars.multi import ScoutBot, win_share
    from dicelab.liars.strategies import probabilistic_bot, random_bot

    # exactly gradable games: scalable policy beside the exact solver (both graded exactly)
    small = [((1, 1), 6, 300), ((1, 2), 6, 400), ((2, 1), 6, 400), ((2, 2), 4, 300), ((2, 2), 6, 600)]
    if quick:
        small = small[:1]
    for wild in ("ones", "highest"):
        for dice, faces, cap in small:
            duel = Duel(dice, faces, wild)
            t0 = time.perf_counter()
            pol = train_duel(duel, iterations=cap, seed=0, callback=lambda p, t: exact_grade(p)["exploitability"]
                             < 0.002, check_every=50)
            secs = time.perf_counter() - t0
            g = exact_grade(pol)
            ex = ""
            if duel.n_bids <= 18:
                sol = solve(DuelRules(dice, faces, wild), target=1e-4, iterations=3000)
                ex = f"; exact solver (DCFR, full tree) {sol.exploitability:.1e} in {sol.seconds:.1f} s"
            print(f"scalable {dice[0]}v{dice[1]} {faces} faces wild {wild}: {pol.meta['method']} window "
                  f"{pol.window}, {pol.meta['iterations']} iterations {secs:.1f} s, exact exploitability "
                  f"{g['exploitability']:.4f} (value {g['value']:.4f}; grading {g['seconds']:.1f} s){ex}", flush=True)
    # large duels: LBR and head-to-head
    big = [((3, 3), 300), ((4, 4), 400), ((5, 5), 500)]
    if quick:
        big = [((2, 2), 100)]
    for dice, its in big:
        duel = Duel(dice, 6, "ones")
        t0 = time.perf_counter()
        pol = train_duel(duel, iterations=its, seed=0)
        secs = time.perf_counter() - t0
        lr = LiarsRules(players=2, dice=dice[0], faces=6, wild="ones")
        qa = train(lr, games=20_000, seed=0, design="extended").agent
        others = {"random": bot_policy(duel, "random"), "probabilistic": bot_policy(duel, "probabilistic"),
                  "Q agent": table_policy(duel, qa.action_distribution, lr, name="q")}
        print(f"scalable {dice[0]}v{dice[1]} 6 faces wild ones: {pol.meta['method']} window {pol.window} samples "
              f"{pol.meta['samples']}, {its} iterations {secs:.1f} s", flush=True)
        for name, p in [("new policy", pol), *others.items()]:
            r = lbr(p, rounds=4000, seed=1)
            print(f"   LBR vs {name}: LBR0 {r['lbr0']:+.3f}, LBR1 {r['lbr1']:+.3f}, exploitability >= "
                  f"{r['exploitability_lower']:.3f} +- {r['exploitability_lower_ci']:.3f} ({r['seconds']:.1f} s)",
                  flush=True)
        for name, p in others.items():
            h = head_to_head(pol, p, rounds=20_000, seed=2)
            print(f"   head-to-head vs {name}: {h['win_rate']:.3f} [{h['ci_low']:.3f}, {h['ci_high']:.3f}] over "
                  f"{h['games']} rounds (both seats)", flush=True)
    # the multi-player bot, the seed's setting
    rules = LiarsRules()
    n = 400 if quick else 2000
    qa4 = train(rules, games=5000, seed=0, opponents=["probabilistic"] * 3, design="extended").agent
    tables = {"3 probabilistic": [probabilistic_bot] * 3, "3 Q agents (extended, 5,000 games vs probabilistic)":
              [qa4] * 3, "probabilistic, Q agent, random": [probabilistic_bot, qa4, random_bot]}
    for name, opp in tables.items():
        r = win_share(ScoutBot(), opp, rules, games=n, seed=3)
        print(f"scout bot, 4 players x 6 dice, vs {name}: {r['win_rate']:.3f} [{r['ci_low']:.3f}, "
              f"{r['ci_high']:.3f}] ({n} games, seats rotating, {r['seconds']:.0f} s)", flush=True)


def bench_play(quick: bool) -> None:
    """Issue 13, item 5: the web lab's bot (``scout``) and coach, timed per decision at every size the
    lab allows (2-4 players, 1-6 dice, 6 faces, wild none / ones), through the Play interface. Duel
    policies come from the cache (``DICELAB_CACHE_DIR``; run ``dicelab liars train-all`` first to
    time the policy at every duel size up to 5 v 5, else only the quick sizes have one)."""
    import os

    from dicelab.liars.library import in_memory
    from dicelab.liars.play import PLAY, duels_for, view_of
    from dicelab.liars.state import new_game

    print(f"bot decisions (cache {os.environ.get('DICELAB_CACHE_DIR', 'user cache')})", flush=True)
    games = 2 if quick else 6
    worst_all = {"duel policy": 0.0, "heuristic": 0.0, "coach": 0.0}
    for wild in ("ones", "none"):
        for players in (2, 3, 4):
            for dice in (1, 2, 3, 4, 5, 6):
                rules = LiarsRules(players=players, dice=dice, faces=6, wild=wild)
                t0 = time.perf_counter()
                PLAY.prepare(["scout"], rules)
                prep = time.perf_counter() - t0
                sizes = [d.dice for d in duels_for(rules) if in_memory(d)]
                times: dict[str, list[float]] = {"duel policy": [], "heuristic": [], "coach": []}
                for g in range(games):
                    state = new_game(rules, seed=g)
                    bots = [PLAY.bot("scout", rules, seed=g * 10 + k) for k in range(players)]
                    while not state.is_over:
                        (p,) = state.to_move()
                        used = bots[p].policy.duel_of(view_of(state, p)) is not None
                        t = time.perf_counter()
                        a = bots[p].act(state, p)
                        times["duel policy" if used else "heuristic"].append(time.perf_counter() - t)
                        if p == 0:
                            t = time.perf_counter()
                            PLAY.coach(state, 0)
                            times["coach"].append(time.perf_counter() - t)
                        state.apply(a)
                parts = []
                for k, v in times.items():
                    if v:
                        worst_all[k] = max(worst_all[k], max(v))
                        parts.append(f"{k} {len(v)} x, median {1e3 * statistics.median(v):.2f} ms, "
                                     f"p99 {1e3 * float(np.percentile(v, 99)):.1f} ms, max {1e3 * max(v):.1f} ms")
                print(f"  {players} players x {dice} dice, wild {wild}: policies {len(sizes)} sizes "
                      f"(prepare {prep:.1f} s); " + "; ".join(parts), flush=True)
    print("worst decision: " + ", ".join(f"{k} {1e3 * v:.1f} ms" for k, v in worst_all.items()), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller runs")
    ap.add_argument("--no-figures", action="store_true")
    ap.add_argument("--scalable", action="store_true", help="only the issue-13 runs")
    ap.add_argument("--play", action="store_true", help="only the bot and coach decision times (issue 13, item 5)")
    args = ap.parse_args()
    if args.play:
        bench_play(args.quick)
        return
    if args.scalable:
        bench_scalable(args.quick)
        bench_play(args.quick)
        return
    bench_training(args.quick)
    bench_cfr(args.quick)
    if not args.no_figures:
        figures(args.quick)
    bench_scalable(args.quick)
    bench_play(args.quick)


if __name__ == "__main__":
    main()
