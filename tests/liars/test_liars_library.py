"""The scout bot, the duel coach and the policy library (issue 13, item 5).

The coach's action values are checked against an independent computation: a recursive walk of
the whole (tiny) game tree over every pair of hands through the policy's public
``action_probabilities``, with the opponent's hand weighed by Bayes' rule by hand."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from dicelab import liars
from dicelab.core.errors import DicelabError
from dicelab.liars import library
from dicelab.liars.duel import Duel, DuelPolicy, train_duel, uniform_policy
from dicelab.liars.rules import Bid, LiarsRules

PLAY = liars.PLAY


def _assert_clearly_lower(a: dict, b: dict, intervals: float = 2) -> None:
    """``a``'s lower bound on exploitability is below ``b``'s by more than ``intervals`` times the 95%
    interval of the difference (the two runs independent, their half-widths added in quadrature)."""
    gap = b["exploitability_lower"] - a["exploitability_lower"]
    assert gap > intervals * (a["exploitability_lower_ci"] ** 2 + b["exploitability_lower_ci"] ** 2) ** 0.5, (a, b)


def hands(n, faces):
    """Every ordered hand of n dice, each with chance faces**-n."""
    return [tuple(sorted(h)) for h in itertools.product(range(1, faces + 1), repeat=n)]


def ref_value(pol, rules, h, bids, seat_hands):
    """Seat 0's expected payoff after ``bids`` (both seats playing ``pol``), by recursion."""
    mover = len(bids) % 2
    probs = pol.action_probabilities(mover, seat_hands[mover], bids)
    total = 0.0
    for a, p in probs.items():
        if a is None:
            last = bids[-1]
            held = sum(rules.count(hh, last.face) for hh in seat_hands) >= last.quantity
            bidder = 1 - mover
            v = 1.0 if held == (bidder == 0) else -1.0
        else:
            v = ref_value(pol, rules, h, [*bids, a], seat_hands)
        total += p * v
    return total


def ref_advice(pol, seat, hand, bids):
    """Independent win probability of every legal action of ``seat`` (0 opened)."""
    d = pol.duel
    rules = LiarsRules(players=2, dice=max(d.dice), faces=d.faces, wild=d.wild)
    opp = hands(d.dice[1 - seat], d.faces)
    weights = []
    for g in opp:  # Bayes: the opponent's bids under the policy, hand by hand
        w = 1.0
        for j, b in enumerate(bids):
            if j % 2 != seat:
                w *= pol.action_probabilities(j % 2, g, bids[:j]).get(b, 0.0)
        weights.append(w)
    weights = np.array(weights) / sum(weights)
    out = {}
    n = sum(d.dice) * d.faces
    top = bids[-1].rank(d.faces) if bids else -1
    actions = ([None] if bids else []) + [Bid.from_rank(r, d.faces) for r in range(top + 1, n)]
    for a in actions:
        ev = 0.0
        for w, g in zip(weights, opp, strict=True):
            pair = (hand, g) if seat == 0 else (g, hand)
            if a is None:
                last = bids[-1]
                held = sum(rules.count(x, last.face) for x in pair) >= last.quantity
                v0 = 1.0 if held == (seat == 1) else -1.0  # seat calls: the other seat bid last
            else:
                v0 = ref_value(pol, rules, None, [*bids, a], pair)
            ev += w * (v0 if seat == 0 else -v0)
        out[a] = (1 + ev) / 2
    return out


def play_to(rules, seed, moves):
    s = liars.new_game(rules, seed)
    for m in moves:
        s.apply(m)
    return s


@pytest.mark.parametrize("faces, wild", [(3, "none"), (2, "ones")])
def test_the_scout_plays_the_duel_policy_and_the_coach_its_exact_values(faces, wild):
    rules = LiarsRules(players=2, dice=1, faces=faces, wild=wild)
    pol = library.policy(Duel((1, 1), faces, wild))
    assert pol is not None and library.quick(Duel((1, 1), faces, wild))
    bot = PLAY.bot("scout", rules, seed=0)
    checked = 0
    for seed in range(6):
        for opening in ([], [{"bid": [1, 2]}], [{"bid": [1, 1]}, {"bid": [1, faces]}]):
            s = play_to(rules, seed, opening)
            seat = s.to_move()[0]
            hand = tuple(s.observe(seat)["hand"])
            bids = [Bid(*m["bid"]) for m in opening]
            # the bot: exactly the policy's probabilities for this view
            assert bot.distribution(s, seat) == pol.action_probabilities(seat, hand, bids)
            c = PLAY.coach(s, seat)
            assert c["kind"] == "win probability"
            probs = {json.dumps(x["action"]): x["prob"] for x in c["policy"]}
            assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
            want = {json.dumps("call" if b is None else {"bid": [b.quantity, b.face]}): p
                    for b, p in pol.action_probabilities(seat, hand, bids).items()}
            assert probs == pytest.approx(want, abs=1e-12)
            ref = ref_advice(pol, seat, hand, bids)
            got = {json.dumps(x["action"]): x["value"] for x in c["values"]}
            assert set(got) == {json.dumps(a) for a in s.legal_actions(seat)}
            for b, v in ref.items():
                key = json.dumps("call" if b is None else {"bid": [b.quantity, b.face]})
                assert got[key] == pytest.approx(v, abs=1e-9), (seed, opening, b)
            assert c["best"] == max(c["values"], key=lambda x: x["value"])["action"]
            checked += 1
    assert checked == 18


def test_the_coach_and_the_bot_see_only_their_own_hand():
    rules = LiarsRules(players=2, dice=1, faces=3)
    s = play_to(rules, 5, [{"bid": [1, 2]}])
    bot = PLAY.bot("scout", rules)
    before, dist = PLAY.coach(s, 1), bot.distribution(s, 1)
    for other in range(1, 4):  # every hand the opener might hold: nothing changes
        s.engine.hands = ((other,), s.engine.hands[1])
        assert PLAY.coach(s, 1) == before and bot.distribution(s, 1) == dist


def test_without_a_policy_the_scout_falls_back_to_the_heuristic(cache_dir):
    rules = LiarsRules(players=2, dice=2, faces=6, wild="ones")
    library._policies.discard(library._key(Duel((2, 2), 6, "ones")))  # another test's policy kept in memory
    assert not library.available(Duel((2, 2), 6, "ones"))  # 2 v 2 at 6 faces: train-all only
    s = liars.new_game(rules, 3)
    bot = PLAY.bot("scout", rules, seed=1)
    dist = bot.distribution(s, 0)
    heuristic = liars.ScoutBot()(liars.play.view_of(s, 0), np.random.default_rng(0))
    assert dist == {heuristic: 1.0}
    c = PLAY.coach(s, 0)
    assert c["kind"].startswith("chance the bid holds") and c["best"] is None
    # three players: the heuristic at any size
    r3 = LiarsRules(players=3, dice=1, faces=3)
    s3 = liars.new_game(r3, 1)
    assert sum(PLAY.bot("scout", r3).distribution(s3, 0).values()) == 1.0
    assert PLAY.coach(s3, 0)["kind"].startswith("chance the bid holds")


def test_the_scout_is_the_first_bot_and_bad_specs_are_one_line():
    assert PLAY.bots(LiarsRules())[0].spec == "scout"
    with pytest.raises(DicelabError, match="allowed: scout, probabilistic"):
        PLAY.bot("cheater", LiarsRules())


def test_build_hooks_train_in_a_worker_and_install(cache_dir):
    rules = LiarsRules(players=2, dice=2, faces=3, wild="none")  # 1v1, 1v2, 2v1, 2v2 at 3 faces: quick
    sizes = [d.dice for d in liars.play.duels_for(rules)]
    assert sizes == [(1, 1), (1, 2), (2, 1), (2, 2)]
    for d in liars.play.duels_for(rules):
        library._policies.discard(library._key(d))
    assert not PLAY.ready(["scout"], rules) and PLAY.heavy(["scout"], rules)
    data = PLAY.export(["scout"], rules)  # what the web lab's worker process runs
    for d in liars.play.duels_for(rules):
        library._policies.discard(library._key(d))
    assert not PLAY.heavy(["scout"], rules)  # on disk now: a load, not a training
    PLAY.install(["scout"], rules, data)
    assert PLAY.ready(["scout"], rules)
    # sizes on disk already are not sent back: the server loads them itself
    library._policies.discard(library._key(Duel((1, 1), 3, "none")))
    assert library.install(PLAY.export(["scout"], rules)) == []
    assert not PLAY.ready(["scout"], rules) and not PLAY.heavy(["scout"], rules)
    PLAY.prepare(["scout"], rules)
    assert PLAY.ready(["scout"], rules)


def test_a_damaged_policy_heals(cache_dir):
    d = Duel((1, 1), 3, "none")
    library._policies.discard(library._key(d))  # the memory cache is the process's; the disk is this test's
    first = library.policy(d)
    npz, js = library._paths(d)
    assert npz.is_file() and js.is_file()
    npz.write_bytes(npz.read_bytes()[:100])  # truncated
    library._policies.discard(library._key(d))
    again = library.policy(d)  # reported, deleted, trained again (same recipe and seed: same policy)
    assert np.array_equal(again.strategy[0], first.strategy[0])
    library._policies.discard(library._key(d))
    assert np.array_equal(library.policy(d).strategy[1], first.strategy[1])  # read back from the healed file
    # a size too big to train on demand: a damaged file is dropped, and the bot falls back
    big = Duel((2, 2), 6, "ones")
    assert not library.quick(big)
    library._through_cache(big, lambda: uniform_policy(big, window=library.recipe(big)["window"]))
    assert library.available(big)
    npz, js = library._paths(big)
    js.write_text(js.read_text().replace('"iterations"', '"iterationz"'))
    library._policies.discard(library._key(big))
    assert library.policy(big) is None and not npz.exists() and not library.available(big)


def cli(args, capsys):
    """``dicelab ARGS``: (exit code, stdout, stderr)."""
    from dicelab.cli.main import main

    with pytest.raises(SystemExit) as ex:
        main(args)
    out = capsys.readouterr()
    return ex.value.code, out.out, out.err


def test_train_all_cli(cache_dir, capsys):
    for d in library.all_duels(2, 2, "none"):
        library._policies.discard(library._key(d))
    args = ["liars", "train-all", "--faces", "2", "--wild", "none", "--max-dice", "2", "--json"]
    code, out, _ = cli(args, capsys)
    assert code == 0
    data = json.loads(out)
    assert [s["dice"] for s in data["sizes"]] == [[1, 1], [1, 2], [2, 1], [2, 2]] and data["trained"] == 4
    assert all(library.on_disk(Duel(tuple(s["dice"]), 2, "none")) for s in data["sizes"])
    code, out, _ = cli(args, capsys)
    again = json.loads(out)
    assert again["trained"] == 0 and all(s["cached"] for s in again["sizes"])  # resumes: nothing left to do
    # both rules in one job: nothing wild is cached already, ones wild is trained
    code, out, _ = cli([*args[:5], "ones,none", *args[6:]], capsys)
    both = json.loads(out)
    assert [(s["wild"], s["dice"], s["cached"]) for s in both["sizes"]] == [
        *(("none", d, True) for d in ([1, 1], [1, 2], [2, 1], [2, 2])),
        *(("ones", d, False) for d in ([1, 1], [1, 2], [2, 1], [2, 2]))] and both["trained"] == 4
    assert all(library.on_disk(Duel(tuple(s["dice"]), 2, s["wild"])) for s in both["sizes"])
    for bad, msg in ((["--max-dice", "7"], "--max-dice must be from 1 to 5"), (["--faces", "9"], "faces"),
                     (["--wild", "twos"], "wild"), (["--wild", "ones,twos"], "twos"),
                     (["--wild", "none,ones,none"], "names a rule twice")):
        code, out, err = cli(["liars", "train-all", *bad], capsys)
        assert code == 2 and msg in err and len(err.strip().splitlines()) == 1, err
    code, out, err = cli(["liars", "play", "--bots", "cheater"], capsys)
    assert code == 2 and "allowed: scout, probabilistic, random" in err and len(err.strip().splitlines()) == 1


def test_train_all_resumes_inside_a_size(cache_dir):
    d = Duel((1, 2), 2, "none")
    r = library.recipe(d)
    whole = library._train(d)
    # a run cut after 100 iterations leaves a checkpoint; the next run continues from it
    part = liars.train_duel(d, iterations=100, seed=r["seed"], window=r["window"], method=r["method"])
    part.save(str(library._checkpoint_path(d)), with_state=True)
    resumed = library._train(d, checkpoint=True)
    assert resumed.meta["iterations"] == r["iterations"]
    assert np.allclose(resumed.strategy[0], whole.strategy[0], atol=1e-6)


def test_train_all_on_a_backend_fills_the_same_cache(cache_dir):
    for d in library.all_duels(1, 2, "ones"):
        library._policies.discard(library._key(d))
    rows = library.train_all(1, 2, "ones", backend={"backend": "local", "workers": 1})
    assert [r["dice"] for r in rows] == [[1, 1]] and not rows[0]["cached"]
    d = Duel((1, 1), 2, "ones")
    assert library.on_disk(d)
    here = library._train(d)  # the same recipe and seed in this process: the same policy
    assert np.allclose(library.policy(d, train=False).strategy[0], here.strategy[0], atol=1e-3)


def test_train_all_tells_local_workers_each_size_s_memory(cache_dir, monkeypatch):
    # the tasks carry the training's peak memory, so two large sizes do not train side by side
    seen: dict[str, float] = {}

    def capture(fn, tasks, *args, **kwargs):
        seen.update({t.key: t.memory for t in tasks})
        raise DicelabError("captured")

    monkeypatch.setattr("dicelab.core.jobs.run_job", capture)
    duels = library.all_duels(2, 2, "none")
    for d in duels:
        library._policies.discard(library._key(d))
    with pytest.raises(DicelabError, match="captured"):
        library.train_all(2, 2, "none", backend={"backend": "local", "workers": 2})
    assert sorted(seen.values()) == sorted(library.training_memory(d) for d in duels)
    # the estimate covers what training really holds: its regrets and average strategy (float64)
    d = Duel((2, 2), 2, "none")
    r = library.recipe(d)
    p = train_duel(d, iterations=50, window=r["window"], method=r["method"])
    assert p.state is not None
    held = sum(a.nbytes for a in p.state.values())
    assert held <= library.training_memory(d) <= 20 * held + 2**20


def test_the_duel_coach_names_what_it_values():
    # the round decides the game only with one die a seat: before that the coach values the round
    for dice, kind in ((2, "chance to win the round"), (1, "win probability")):
        rules = LiarsRules(players=2, dice=dice, faces=3, wild="none")
        s = play_to(rules, 0, [])
        c = PLAY.coach(s, s.to_move()[0])
        assert c is not None and c["kind"] == kind
        assert all(0.0 <= v["value"] <= 1.0 for v in c["values"])


@pytest.mark.parametrize("dice,faces,wild", [((1, 1), 6, "ones"), ((2, 1), 4, "none")])
def test_a_third_bid_in_the_window_lowers_the_exact_exploitability(dice, faces, wild):
    # issue 26: the recipe gives the abstract method at least MIN_ABSTRACT_WINDOW bids; at sizes the
    # exact grader walks, the same training path is exploitable by less with the third bid
    from dicelab.liars.duel import train_duel
    from dicelab.liars.grading import exact_grade

    d = Duel(dice, faces, wild)
    e = [exact_grade(train_duel(d, iterations=300, seed=0, window=w, method="abstract"))["exploitability"]
         for w in (2, 3)]
    assert e[1] < 0.5 * e[0], e


def test_the_abstract_recipe_keeps_at_least_three_bids_where_they_fit():
    # where a third bid had to be forced, a context tree gets the window-3 table's rows instead
    from dicelab.liars.duel import dag_rows

    trees, wide = [], []
    for faces in range(2, 7):
        for a, b in itertools.product(range(1, 6), repeat=2):
            d = Duel((a, b), faces, "ones")
            r = library.recipe(d)
            if r["method"] != "abstract":
                continue
            if r.get("tree_rows"):
                trees.append((a, b, faces))
                assert r["window"] == 2 and r["tree_longest"] > library.MIN_ABSTRACT_WINDOW
                wider = library.TREE_OVERRIDES.get((d.dice, d.faces, d.wild), {}).get("rows", 1.0)
                assert r["tree_rows"] == int(dag_rows(d.n_bids, library.MIN_ABSTRACT_WINDOW) * library.TREE_ROWS * wider)
                # float16, each seat about half the rows
                assert library.table_bytes(d) == pytest.approx(
                    r["tree_rows"] * sum(len(d.hands(i)[0]) for i in (0, 1)), rel=0.05)
            elif r["window"] < min(library.MIN_ABSTRACT_WINDOW, d.n_bids):  # only where 3 bids do not fit
                hands = max(len(d.hands(i)[0]) for i in (0, 1))
                assert dag_rows(d.n_bids, library.MIN_ABSTRACT_WINDOW) * hands > library.WIDE_CELLS, r
                wide.append((a, b, faces))
    # the sizes issue 26 measured
    assert trees == [(3, 3, 6), (3, 4, 6), (3, 5, 6), (4, 3, 6), (4, 4, 6), (4, 5, 6), (5, 3, 6), (5, 4, 6),
                     (5, 5, 6)]
    # ... and the other sizes with a 5-dice seat enumerate on the window of 2 (issue 26), where 3 bids do not fit
    assert wide == [(a, b, 6) for a, b in itertools.product(range(1, 6), repeat=2)
                    if 5 in (a, b) and (a, b) not in ((3, 5), (5, 3), (4, 5), (5, 4), (5, 5))]
    # the highest-wild rule at 4 v 4 keeps every hand enumerated on the window of 2 (issue 26)
    assert {k: library.recipe(Duel((4, 4), 6, "highest"))[k] for k in ("method", "window")} == {
        "method": "abstract", "window": 2} and "tree_rows" not in library.recipe(Duel((4, 4), 6, "highest"))
    assert library.recipe(Duel((3, 3), 6, "none"))["tree_rows"] == 133_422 * 4 // 3
    # contexts up to 5 bids only where that was measured better (3 v 3, nothing wild; the 5-dice
    # trees), up to 7 with ones wild at 3 v 3 (four times the rows), 3 v 4 and 4 v 3 (twice the rows),
    # 4 v 4 (1.5 times the row bound), 3 v 5 and 5 v 3 (the whole bound; 5 v 3 with nothing wild too,
    # grown in smaller steps), else 4
    longest = {(a, b, w): library.recipe(Duel((a, b), 6, w))["tree_longest"]
               for a, b in ((3, 3), (3, 4), (4, 3)) for w in ("ones", "none", "highest")}
    for w in ("none", "ones"):
        longest[(4, 4, w)] = library.recipe(Duel((4, 4), 6, w))["tree_longest"]
    for (a, b), w in itertools.product(((3, 5), (5, 3)), ("none", "ones")):
        longest[(a, b, w)] = library.recipe(Duel((a, b), 6, w))["tree_longest"]
    for (a, b), w in itertools.product(((4, 5), (5, 4)), ("none", "ones")):
        longest[(a, b, w)] = library.recipe(Duel((a, b), 6, w))["tree_longest"]
    assert {k for k, v in longest.items() if v == 5} == {(3, 3, "none"), (3, 5, "none"),
                                                          (4, 5, "none"), (5, 4, "none")}
    assert {k for k, v in longest.items() if v == 7} == {(3, 3, "ones"), (3, 4, "ones"), (4, 3, "ones"),
                                                          (3, 5, "ones"), (5, 3, "ones"), (4, 4, "ones"),
                                                          (4, 5, "ones"), (5, 4, "ones"), (5, 3, "none")}
    # (3 v 5 and 5 v 3 since 2026-12-02, 0.065 -> 0.043; 4 v 4 the session after, 0.083 -> 0.067;
    # 4 v 5 and 5 v 4 at half the bound the session after that, 0.093 -> 0.069 and 0.117 -> 0.075)
    assert {v for v in longest.values() if v not in (5, 7)} == {4}
    # four times the rows at 3 v 3 with ones wild (issue 26: 0.043 -> 0.0297 at twice, 0.0183 at four
    # times with 7-bid contexts; twice at 3 v 4 and 4 v 3 with ones wild: the test below)
    ones = library.recipe(Duel((3, 3), 6, "ones"))
    assert ones["tree_rows"] == 133_422 * 16 // 3
    assert library.recipe(Duel((3, 3), 6, "highest"))["tree_rows"] == 133_422 * 4 // 3
    # grown warm where measured (issue 26): with ones wild 600 iterations at the end (3 v 3 at twice the
    # rows 0.0297 -> 0.0258; 3 v 4 0.0636 -> 0.0557, 4 v 3 0.0546 -> 0.0498 at the same rows), with nothing wild at 3 v 4 and 4 v 3
    # 300 (the same bound in about 60% of the time), and at 4 v 4 (0.069 -> 0.0124; ones wild with 600,
    # 0.1284 -> 0.0828); the other trees keep their recipes and cache entries
    # 3 v 5 and 5 v 3, both rules, 600 at the end within a quarter of the row bound (ones wild 0.135 ->
    # 0.0666 and 0.130 -> 0.0732, nothing wild 0.130 -> 0.0513 and 0.111 -> 0.0504)
    warm = {(3, 3, "ones"): 600, (3, 4, "ones"): 600, (4, 3, "ones"): 600, (3, 4, "none"): 300,
            (4, 3, "none"): 300, (4, 4, "none"): 300, (4, 4, "ones"): 600, (3, 5, "ones"): 600,
            (5, 3, "ones"): 600, (3, 5, "none"): 600, (5, 3, "none"): 600, (3, 5, "highest"): 600,
            (5, 3, "highest"): 600, (4, 5, "ones"): 600, (5, 4, "ones"): 600, (4, 5, "highest"): 600,
            (5, 4, "highest"): 600, (4, 5, "none"): 600, (5, 4, "none"): 600}
    for dice in ((3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3), (4, 5), (5, 4)):
        for w in ("ones", "none", "highest"):
            r = library.recipe(Duel(dice, 6, w))
            if dice in ((3, 5), (5, 3)) and w == "highest":  # 0.1400 -> 0.0792 at 3 v 5
                assert r["tree_rows"] == 142_034 == int(dag_rows(48, 3) * library.TREE_ROWS / 4), r
                assert r["tree_longest"] == 5, r
            if dice in ((3, 5), (5, 3)) and w == "ones":  # a quarter (3 v 5 0.1352 -> 0.0650), the whole, 7 bids: 0.0431
                # (steps of 1.25: 0.0360); 3 v 5 since one and a half times the bound: 0.0324 (5 v 3: 0.0391 -> 0.0379, kept)
                rows, times = (852_208, 1.5) if dice == (3, 5) else (568_138, 1.0)
                assert r["tree_rows"] == rows == int(dag_rows(48, 3) * library.TREE_ROWS * times), r
                assert r["tree_longest"] == 7, r
            if dice == (5, 3) and w == "none":  # half the bound (0.1108 -> 0.0504 -> 0.0333), smaller
                # steps: 0.0312; since the whole bound with 7-bid contexts in those steps: 0.0218; since
                # one and a half times it: 0.0188
                assert r["tree_rows"] == 852_208 == int(dag_rows(48, 3) * library.TREE_ROWS * 1.5), r
                assert r["tree_longest"] == 7, r
            # smaller steps of growth where measured: 5 v 3 nothing wild (0.0344 -> 0.0312 at half the
            # bound, 0.0260 -> 0.0218 at the whole bound with 7-bid contexts), 3 v 4 ones
            # wild (0.0408 -> 0.0376 at memory 8); 3 v 5 ones wild in steps of 1.25 (0.0431 -> 0.0360 at
            # memory 8), 5 v 3 too (0.0463 -> 0.0391); 5 v 4 nothing wild in steps of 1.125 (0.0206 -> 0.0149);
            # 5 v 5 nothing wild in steps of 1.25 (0.0566 -> 0.0318), ones wild too (0.0853 -> 0.0718);
            # 5 v 4 ones wild in steps of 1.25 (0.0779 -> 0.0669), 4 v 5 too (0.0698 -> 0.0665)
            if (dice, w) in (((5, 3), "none"), ((3, 4), "ones"), ((5, 4), "none")):
                assert r["tree_grow"] == 1.125, r
            elif (dice, w) in (((3, 5), "ones"), ((5, 3), "ones"), ((4, 5), "ones"), ((5, 4), "ones"),
                               ((5, 5), "none"), ((5, 5), "ones")):
                assert r["tree_grow"] == 1.25, r
            elif r.get("tree_rows"):
                assert r["tree_grow"] == library.TREE["tree_grow"] == 1.5, (dice, w, r)
            if dice == (3, 5) and w == "none":  # half (0.1302 -> 0.0513 -> 0.0226), since one and a half: 0.0169
                assert r["tree_rows"] == 852_208 == int(dag_rows(48, 3) * library.TREE_ROWS * 1.5), r
            if dice in ((4, 5), (5, 4)) and w == "highest":  # a quarter (ones: 0.1283 -> 0.0928 at 4 v 5)
                assert r["tree_rows"] == 228_360 == int(dag_rows(54, 3) * library.TREE_ROWS / 4), r
            if dice in ((4, 5), (5, 4)) and w != "highest":  # half the bound (0.0946 -> 0.0303 -> 0.0177
                # at 4 v 5 nothing wild; ones wild with 7-bid contexts 0.0928 -> 0.0692); 5 v 4 nothing
                # wild three quarters (half: 0.0387 -> 0.0261; three quarters: 0.0206)
                rows, times = (685_080, 3 / 4) if (dice, w) == ((5, 4), "none") else (456_720, 1 / 2)
                assert r["tree_rows"] == rows == int(dag_rows(54, 3) * library.TREE_ROWS * times), r
            if dice == (4, 4) and w == "highest":
                assert "tree_rows" not in r, r  # the window of 2 (library.TREE_RULES)
            elif (*dice, w) in warm:
                assert r["tree_warm"] is True and r["tree_step_iterations"] == 50, r
                assert r["iterations"] == warm[(*dice, w)], r
            else:
                assert "tree_warm" not in r and r["tree_step_iterations"] == 100 and r["iterations"] == 300, r


def test_no_recipe_weights_its_gains_by_the_hands_chance_yet():
    # measured at 4 v 5 and 5 v 4 with ones wild and adopted at neither (BENCHMARKS.md, "Gains
    # weighted by the hand's chance at 4 v 5 and 5 v 4"): every cache key stays as it was
    for faces in range(2, 7):
        for a, b in itertools.product(range(1, 6), repeat=2):
            for w in ("none", "ones", "highest"):
                assert "tree_weighted" not in library.recipe(Duel((a, b), faces, w))


def test_the_sampled_recipe_draws_64_hands_where_a_seat_has_5_dice():
    # issue 26: at 6 faces, where a seat has 5 dice (252 hands), mccfr draws 64 opponent hands per
    # update instead of 16 (5 v 5 nothing wild: learned responder 0.107 -> 0.076); with a wild face
    # those sizes enumerate every hand on the same window instead (3 v 5 ones wild: 0.1105 with 64
    # drawn -> 0.0809); every other sampled size keeps 16, and the enumerated and tree sizes draw none
    from dicelab.liars.duel import default_samples

    for faces in range(2, 7):
        for a, b in itertools.product(range(1, 6), repeat=2):
            for w in ("none", "ones", "highest"):
                d = Duel((a, b), faces, w)
                r = library.recipe(d)
                if faces == 6 and ((a, b) in ((3, 5), (5, 3), (4, 5), (5, 4)) or ((a, b) == (5, 5) and w != "highest")):  # a tree (issue 26)
                    assert (r["method"], r["window"], r["samples"]) == ("abstract", 2, 0) and r["tree_rows"], r
                elif faces == 6 and 5 in (a, b):
                    want = ("mccfr", 2, 64) if w == "none" else ("abstract", 2, 0)
                    assert (r["method"], r["window"], r["samples"]) == want and "tree_rows" not in r, r
                elif r["method"] == "abstract":
                    assert r["samples"] == 0, r
                elif faces == 6 and 5 in (a, b):
                    assert r["samples"] == 64 and r["window"] == 2, r
                else:
                    assert r["samples"] == default_samples(d) == 16, r


@pytest.mark.parametrize("warm,weighted", [(False, False), (True, False), (True, True)])
def test_a_tree_recipe_trains_saves_loads_and_plays_through_the_cache(cache_dir, monkeypatch, warm, weighted):
    # the same code path as 3 v 3 with 6 faces, at a size that trains in seconds: the recipe's rule
    # forced to give 2 v 1 with 3 faces a context tree (also grown warm, and with the gains weighted by
    # the hand's chance, as TREE_OVERRIDES may ask)
    from dicelab.liars.duel import dag_rows

    d = Duel((2, 1), 3, "none")
    if warm:
        monkeypatch.setitem(library.TREE_OVERRIDES, (d.dice, d.faces, d.wild),
                            {"warm": True, **({"weighted": True} if weighted else {})})
    real = library.default_window
    monkeypatch.setattr(library, "default_window",  # the solver's default short, the wide one not
                        lambda duel, cells=None: 2 if duel == d and cells is None else
                        real(duel, *([] if cells is None else [cells])))
    library.forget_recipes()
    library._policies.discard(library._key(d))  # another test's window policy of this size
    try:
        r = library.recipe(d)
        assert r["window"] == 2 and r["tree_rows"] == int(dag_rows(d.n_bids, 3) * library.TREE_ROWS)
        p = library.policy(d)
        assert p is not None and p.dag.contexts is not None and sum(p.dag.rows) <= r["tree_rows"]
        assert p.strategy[0].dtype == np.float16  # kept compact in memory
        # warm, each step continued the last: the iterations add up over the steps
        steps = len(p.meta["contexts"]["steps"])
        assert p.meta["iterations"] == (r["iterations"] + (steps - 1) * r["tree_step_iterations"] if warm
                                        else r["iterations"])
        # the weighting is named in the recipe (its own cache entry) and reaches the training
        assert r.get("tree_weighted", False) is weighted and p.meta["contexts"].get("weighted", False) is weighted
        assert library.on_disk(d)
        library._policies.discard(library._key(d))
        q = library.policy(d, train=False)  # from disk: the contexts come back with it
        assert q is not None and np.array_equal(q.dag.contexts, p.dag.contexts)
        hand = d.hands(1)[0][0]
        bids = [Bid(1, 2)]
        a, b = p.action_probabilities(1, hand, bids), q.action_probabilities(1, hand, bids)
        assert a.keys() == b.keys() and abs(sum(b.values()) - 1.0) < 1e-3
        sizes = library.install(library.export([d]))
        assert sizes == [(2, 1)]
    finally:
        monkeypatch.undo()
        library._policies.discard(library._key(d))
        library.forget_recipes()


def test_every_tree_recipe_can_grow_into_its_longest_context():
    # a tree grows one bid a step from its window, each step 1.5 times the rows, the last while the
    # next would pass the bound: a bound on the contexts its steps cannot reach names a tree it is not
    # (4 v 5, ones wild, bound 7 at a quarter of the row bound: three steps, 5 bids, the same tree)
    from dicelab.liars.duel import dag_rows

    trees = 0
    for wild in ("none", "ones", "highest"):
        for d in library.all_duels(5, 6, wild):
            r = library.recipe(d)
            if not r.get("tree_rows"):
                continue
            rows, steps = dag_rows(d.n_bids, r["window"]), 0
            while rows * r["tree_grow"] <= r["tree_rows"]:
                rows, steps = rows * r["tree_grow"], steps + 1
            assert r["window"] + steps >= r["tree_longest"], (d, r["window"], steps, r["tree_longest"])
            trees += 1
    assert trees >= 22


def test_3v4_and_4v3_grow_a_tree_and_the_cache_counts_its_rows():
    # issue 26 (BENCHMARKS.md): the sizes the context tree was measured at, and nowhere else
    from dicelab.liars.duel import dag_rows

    grown = []
    for faces in range(2, 7):
        for wild in ("ones", "none", "highest"):
            for a, b in itertools.product(range(1, 6), repeat=2):
                if library.recipe(Duel((a, b), faces, wild)).get("tree_rows"):
                    grown.append((a, b, faces, wild))
    # 3 v 3 where its third bid was forced; 3 v 4 and 4 v 3 where every hand is enumerated; 4 v 4
    # with nothing wild and with ones wild, measured there alone
    # (and 3 v 5, 5 v 3, 4 v 5 and 5 v 4 in every rule, 5 v 5 with nothing and ones wild, every hand
    # enumerated)
    assert grown == [(a, b, 6, w) for w in ("ones", "none", "highest")
                     for a, b in sorted(((3, 3), (3, 4), (4, 3), (3, 5), (5, 3), (4, 5), (5, 4))
                                        + (((4, 4),) if w != "highest" else ()) + (((5, 5),) if w != "highest" else ()))]
    for wild in ("none", "ones"):
        d = Duel((4, 4), 6, wild)
        r = library.recipe(d)
        assert r["method"] == "abstract" and r["window"] == 2 and r["samples"] == 0
        # half the row bound with nothing wild; with ones wild 1.5 times the bound and contexts to 7 bids
        # (issue 26: half the bound with contexts to 5 left 0.0832, the whole bound 0.0668, this 0.0581)
        assert r["tree_longest"] == (4 if wild == "none" else 7)
        part = 0.5 if wild == "none" else 1.5
        assert r["tree_rows"] == int(dag_rows(d.n_bids, library.MIN_ABSTRACT_WINDOW) * library.TREE_ROWS * part)
        assert library.table_bytes(d) == pytest.approx(r["tree_rows"] * 2 * 126, rel=0.05)
    for dice, wild in itertools.product(((3, 4), (4, 3)), ("ones", "none")):
        d = Duel(dice, 6, wild)
        r = library.recipe(d)
        assert r["method"] == "abstract" and r["window"] == 2 and r["samples"] == 0
        # the window-3 table's rows and a third, twice that with ones wild at 3 v 4 and 4.5 times at
        # 4 v 3 (issue 26: 0.0557 -> 0.0430 at 3 v 4, 0.0498 -> 0.0392 -> 0.0306 -> 0.0278 at 4 v 3)
        times = (4.5 if dice == (4, 3) else 2) if wild == "ones" else 1
        assert r["tree_rows"] == int(dag_rows(d.n_bids, library.MIN_ABSTRACT_WINDOW) * library.TREE_ROWS * times)
        # contexts to 4 bids, 7 with ones wild (test above)
        assert r["tree_longest"] == (7 if wild == "ones" else library.MIN_ABSTRACT_WINDOW + 1)
        assert "older_faces" not in r
        assert library.table_bytes(d) == pytest.approx(  # float16, each seat about half the rows
            r["tree_rows"] * sum(len(d.hands(i)[0]) for i in (0, 1)), rel=0.05)


def test_a_tree_size_trains_saves_loads_and_plays_through_the_cache(cache_dir, monkeypatch):
    # the same code path as 3 v 4 with 6 faces, at a size that trains in seconds
    d = Duel((2, 1), 3, "none")
    monkeypatch.setattr(library, "TREE_SIZES", frozenset({((2, 1), 3)}))
    library.forget_recipes()
    library._policies.discard(library._key(d))
    try:
        r = library.recipe(d)
        assert r["window"] == 2 and r["method"] == "abstract" and r["tree_longest"] == 4
        p = library.policy(d)
        assert p is not None and p.dag.contexts is not None and sum(p.dag.rows) <= r["tree_rows"]
        assert p.dag.longest <= r["tree_longest"] and library.on_disk(d)
        library._policies.discard(library._key(d))
        q = library.policy(d, train=False)  # from disk: the contexts come back with it
        assert q is not None and np.array_equal(q.dag.contexts, p.dag.contexts)
        hand = d.hands(0)[0][0]
        bids = [Bid(1, 2), Bid(1, 3), Bid(2, 1), Bid(2, 2)]  # beyond the window of 2
        a, b = p.action_probabilities(0, hand, bids), q.action_probabilities(0, hand, bids)
        assert a.keys() == b.keys() and abs(sum(b.values()) - 1.0) < 1e-3
        assert library.install(library.export([d])) == [(2, 1)]
        monkeypatch.setattr(library, "TREE_SIZES", frozenset())  # the plain window: another cache entry
        for f in (library._recipe, library._cache_name):
            f.cache_clear()
        assert not library.on_disk(d)
    finally:
        monkeypatch.undo()
        library._policies.discard(library._key(d))
        library.forget_recipes()


@pytest.mark.slow
def test_the_3v3_tree_is_less_exploitable_than_the_window_3_policy(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md): the context-tree recipe against the previous window-3 one,
    # each graded by a learned responder that remembers two bids more than the policy everywhere:
    # window 5 for window 3 (about 15 CPU minutes, 7.4 GB), the tree refined twice (6 minutes, 3.2 GB)
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head
    from dicelab.liars.responder import learned_br

    d = Duel((3, 3), 6, "ones")
    new = library._train(d)
    old = train_duel(d, iterations=300, seed=0, window=3, method="abstract")
    assert new.dag.contexts is not None and sum(new.dag.rows) <= library.recipe(d)["tree_rows"]
    h = head_to_head(new, old, rounds=20_000, seed=2)
    assert h["ci_high"] > 0.5, h  # it does not lose
    a, b = learned_br(new, rounds=20_000, seed=1, window=4), learned_br(old, rounds=20_000, seed=1, window=5)
    assert a["memory"] == new.dag.memory + 2 and b["memory"] == 5
    _assert_clearly_lower(a, b)


@pytest.mark.slow
def test_the_3v3_nothing_wild_tree_with_5_bid_contexts_holds_up_to_a_learned_responder(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md): nothing wild at 3 v 3 the recipe's contexts reach 5 bids
    # within the 4-bid tree's row bound; both trees graded by a learned responder remembering 7 bids
    # (window 4 against the new tree, 5 against the old; about 2 and 10 minutes, up to 4 GB). About
    # 20 CPU minutes in all
    from dicelab.liars.contexts import train_contexts
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    d = Duel((3, 3), 6, "none")
    r = library.recipe(d)
    new = library._train(d)
    assert new.dag.longest == 5 and sum(new.dag.rows) <= r["tree_rows"]
    old = train_contexts(d, max_rows=r["tree_rows"], window=2, longest=4, grow=r["tree_grow"], iterations=300,
                         method="abstract", seed=0, step_iterations=r["tree_step_iterations"])
    # the responder's rounds are cheap beside learning it: 500,000 a seat, half-widths about 0.002
    a, b = learned_br(new, seed=1, window=4), learned_br(old, seed=1, window=5)
    assert a["memory"] == b["memory"] == 7
    # beyond twice the 95% interval of the difference (measured at 20,000 rounds a seat: 0.0253 - 0.0098)
    _assert_clearly_lower(a, b)
    e, ci = a["exploitability_lower"], a["exploitability_lower_ci"]
    assert e + ci < 0.02, a  # item 2's bar (measured 0.0104 +- 0.0014 at 1,000,000 rounds a seat)
    g = lbr(new, rounds=20_000, seed=1)
    assert g["exploitability_lower"] - g["exploitability_lower_ci"] < 0.0, g
    # head to head it beats the window-2 recipe the issue was filed on, by a little: 0.5025 [0.5018,
    # 0.5031] over 1,000,000 rounds a seat (20,000 could not tell it from a draw: [0.498, 0.508])
    w2 = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    assert head_to_head(new, w2, rounds=1_000_000, seed=2)["ci_low"] > 0.5


@pytest.mark.slow
def test_the_3v3_ones_wild_tree_with_four_times_the_rows_meets_item_2_and_beats_the_filed_policy(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md, "Four times the rows at 3 v 3 with ones wild"): the recipe's tree
    # has four times the 4-bid tree's rows and contexts up to 7 bids, grown warm with 600 iterations
    # at the end; the tree before it had twice the rows and 5-bid contexts. The learned responder
    # remembers two bids more than each (9 and 7). About 100 CPU minutes in all, up to 8 GB
    from dicelab.liars.contexts import train_contexts
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    d = Duel((3, 3), 6, "ones")
    r = library.recipe(d)
    new = library._train(d)
    assert new.dag.longest == 7 and sum(new.dag.rows) <= r["tree_rows"]
    old = train_contexts(d, max_rows=r["tree_rows"] // 2, window=2, longest=5, grow=r["tree_grow"], iterations=600,
                         method="abstract", seed=0, step_iterations=r["tree_step_iterations"], warm=True)
    a = learned_br(new, rounds=1_000_000, seed=1, window=4)
    b = learned_br(old, rounds=1_000_000, seed=1, window=4)
    assert a["memory"] == 9 and b["memory"] == 7
    # item 2's bar: the interval under 0.02 (measured 0.0183 +- 0.0014; the tree before 0.0258)
    e, ci = a["exploitability_lower"], a["exploitability_lower_ci"]
    assert e + ci < 0.02, a
    _assert_clearly_lower(a, b)
    g = lbr(new, rounds=200_000, seed=1)  # measured -0.031 +- 0.003
    assert g["exploitability_lower"] + g["exploitability_lower_ci"] < 0.0, g
    # head to head it beats the window-2 recipe the issue was filed on (measured 0.5083 [0.5076, 0.5090];
    # a draw with the tree before, 0.5004 [0.4997, 0.5011])
    w2 = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    assert head_to_head(new, w2, rounds=1_000_000, seed=2)["ci_low"] > 0.5


@pytest.mark.slow
@pytest.mark.parametrize("dice", [(3, 4), (4, 3)])
def test_the_nothing_wild_tree_beats_the_sampled_window_and_holds_up_to_a_learned_responder(cache_dir, dice):
    # issue 26, item 2 (BENCHMARKS.md): nothing wild at 3 v 4 and 4 v 3 with 6 faces, the recipe (a
    # context tree on the window of 2, every hand enumerated, grown warm; about 8 CPU minutes each) against the
    # sampled window-2 policy the issue was filed against (10-17 s), each graded by LBR and by a
    # learned responder with window 4 (memory 6 bids against the tree, 4 against the window-2
    # policy; up to 10 minutes and 5 GB); the tree's bound is under 0.02 or its interval holds 0
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    d = Duel(dice, 6, "none")
    new = library._train(d)
    old = train_duel(d, iterations=300, seed=0, window=2, method="mccfr", samples=16)
    assert new.dag.contexts is not None and new.dag.longest == 4
    h = head_to_head(new, old, rounds=1_000_000, seed=2)  # about 2 s
    assert h["ci_low"] > 0.5, h
    for grade in (lambda p, w: lbr(p, rounds=20_000, seed=1),
                  lambda p, w: learned_br(p, rounds=20_000, seed=1, window=w)):
        a, b = grade(new, 4), grade(old, 4)
        _assert_clearly_lower(a, b)
        assert a["exploitability_lower"] - a["exploitability_lower_ci"] < 0.0 or a["exploitability_lower"] < 0.02, a


@pytest.mark.slow
@pytest.mark.parametrize("dice", [(3, 4), (4, 3)])
def test_the_ones_wild_tree_beats_the_window_2_recipe_and_holds_up_to_lbr(cache_dir, dice):
    # issue 26, item 2 (BENCHMARKS.md): ones wild at 3 v 4 and 4 v 3 with 6 faces, the recipe (the
    # same context tree with twice the rows and contexts to 7 bids, grown warm with 600 iterations at
    # the end; about 50 CPU minutes each on the first machine, 90 on one twice as slow) against the
    # sampled window-2 policy the issue was filed against (head to head) and against the recipe in
    # between (the abstract method on the window of 2, about a minute), each graded by a learned
    # responder with window 4 (memory 9 bids against the tree, 4 against the window: a weaker bound
    # for the old policy, so the comparison is conservative). LBR finds nothing in the tree; the
    # learned responder finds less than before (measured 0.0430 and 0.0392 +- 0.0014 at 1,000,000
    # rounds a seat, where the 5-bid tree at the usual rows left 0.0557 and 0.0498), not yet under 0.02;
    # 3 v 4 grows in steps of 1.125 since 2026-12-02 (0.0408 -> 0.0376 at memory 8, about 58 minutes)
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    d = Duel(dice, 6, "ones")
    new = library._train(d)
    assert new.dag.contexts is not None and new.dag.longest == 7
    filed = train_duel(d, iterations=300, seed=0, window=2, method="mccfr", samples=16)
    h = head_to_head(new, filed, rounds=1_000_000, seed=2)  # about 2 s
    assert h["ci_low"] > 0.5, h
    old = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    a, b = learned_br(new, rounds=20_000, seed=1, window=4), learned_br(old, rounds=20_000, seed=1, window=4)
    _assert_clearly_lower(a, b)
    r = lbr(new, rounds=20_000, seed=1)
    assert r["exploitability_lower"] - r["exploitability_lower_ci"] < 0.0, r


@pytest.mark.slow
@pytest.mark.parametrize("wild", ["none", "ones"])
def test_the_4v4_tree_holds_up_and_beats_the_window_2_policies(cache_dir, wild):
    # issue 26, item 2 (BENCHMARKS.md): 4 v 4 with 6 faces, the recipe (a context tree on the window of
    # 2, grown warm; nothing wild half the usual row bound, about 20 CPU minutes; ones wild 1.5 times
    # the bound with 7-bid contexts since 2026-12-02, about 75) against the window-2 policies before it:
    # the abstract one (about 4 and 6 minutes) and the sampled one the issue was filed against. The
    # learned responder remembers one bid more than the tree's longest context (about 8 minutes, 5 GB),
    # 3 against the window (a weaker bound there: the comparison is conservative). Measured (1,000,000
    # rounds a seat): nothing wild 0.0124 +- 0.0014 against 0.0703, ones wild 0.0828 (half the bound,
    # 5-bid contexts; 1.5 times the bound: 0.0581 +- 0.0020 over 500,000, the test below) against 0.1284;
    # only nothing wild is within 0.02
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    d = Duel((4, 4), 6, wild)
    new = library._train(d)
    assert new.dag.contexts is not None and new.dag.longest == library.recipe(d)["tree_longest"]
    assert sum(new.dag.rows) <= library.recipe(d)["tree_rows"]
    filed = train_duel(d, iterations=300, seed=0, window=2, method="mccfr", samples=16)
    old = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    for other in (filed, old):
        h = head_to_head(new, other, rounds=1_000_000, seed=2)
        assert h["ci_low"] > 0.5, h
    a, b = learned_br(new, rounds=200_000, seed=1, window=3), learned_br(old, rounds=200_000, seed=1, window=3)
    _assert_clearly_lower(a, b)
    if wild == "none":
        assert a["exploitability_lower"] < 0.02 or a["exploitability_lower"] - a["exploitability_lower_ci"] < 0.0, a
    r = lbr(new, rounds=200_000, seed=1)
    assert r["exploitability_lower"] < 0.02 or r["exploitability_lower"] - r["exploitability_lower_ci"] < 0.0, r


@pytest.mark.slow
def test_64_sampled_hands_at_5v5_beat_16_and_hold_up_better(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md): at 5 v 5 with 6 faces, nothing wild, the recipe's mccfr draws
    # 64 opponent hands per update (about 3 CPU minutes) where the filed policy drew 16 (about 1). The
    # learned responder on the policies' own window (2 bids) and LBR find less, and the recipe wins
    # head to head. Measured at 200,000 rounds a seat: learned 0.0759 against 0.1067 (+- 0.0031),
    # LBR 0.030 against 0.063, 0.5066 [0.5050, 0.5081] head to head (the recipe at 5 v 5 grows a
    # context tree on every hand since, about 90 CPU minutes; 64 drawn is still the recipe at 1 v 5 to 5 v 2)
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    d = Duel((5, 5), 6, "none")
    assert library.recipe(Duel((5, 2), 6, "none"))["samples"] == 64
    new = train_duel(d, iterations=300, seed=0, window=2, method="mccfr", samples=64)
    filed = train_duel(d, iterations=300, seed=0, window=2, method="mccfr", samples=16)
    assert head_to_head(new, filed, rounds=200_000, seed=3)["ci_low"] > 0.5
    for grade in (lambda p: learned_br(p, rounds=100_000, seed=1, window=2), lambda p: lbr(p, rounds=40_000, seed=1)):
        a, b = grade(new), grade(filed)
        _assert_clearly_lower(a, b)


@pytest.mark.slow
def test_every_hand_at_3v5_ones_wild_beats_64_drawn(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md, "Every opponent hand at the 5-dice sizes"): at 3 v 5 with 6
    # faces and ones wild the recipe enumerates every opponent hand on the window of 2 (about 160 s of
    # training) where it drew 64 (about 110). Measured: learned responder on the policies' own window
    # 0.0809 against 0.1105 (+- 0.0031, 200,000 rounds a seat), LBR 0.032 against 0.049 (+- 0.007,
    # 40,000), head to head 0.5035 [0.5019, 0.5050] (200,000)
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    # (the recipe there grows a context tree since: the test below; the window trained here explicitly
    # is still the recipe at the other 5-dice sizes and with the highest face wild)
    d = Duel((3, 5), 6, "ones")
    assert library.recipe(Duel((4, 5), 6, "ones"))["method"] == "abstract"
    new = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    drawn = train_duel(d, iterations=300, seed=0, window=2, method="mccfr", samples=64)
    assert head_to_head(new, drawn, rounds=200_000, seed=3)["ci_low"] > 0.5
    a, b = (learned_br(p, rounds=100_000, seed=1, window=2) for p in (new, drawn))
    _assert_clearly_lower(a, b)
    a, b = (lbr(p, rounds=40_000, seed=1) for p in (new, drawn))
    assert a["exploitability_lower"] < b["exploitability_lower"], (a, b)


@pytest.mark.slow
def test_a_tree_at_3v5_ones_wild_beats_the_enumerated_window(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md, "A context tree at 3 v 5"): the recipe at 3 v 5 with 6 faces and
    # ones wild grows a context tree on the window of 2, every hand enumerated (5-bid contexts, a
    # quarter of the row bound, warm, 600 iterations at the end; about 1,230 CPU seconds) where it kept
    # the window (about 160). Measured: head to head 0.5087 [0.5072, 0.5103] (200,000 rounds a seat);
    # learned responder one bid beyond each policy's memory (window 3) 0.0666 against 0.1352 (+-
    # 0.0043, 100,000 rounds); LBR -0.008 against 0.032 (+- 0.007, 40,000)
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head, lbr
    from dicelab.liars.responder import learned_br

    # (the recipe there is the whole bound with 7-bid contexts since: the test below; this one trains
    # the quarter-bound tree it measured)
    d = Duel((3, 5), 6, "ones")
    tree = _train_with(d, library.FIVE_DICE_TREE)
    window = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    assert head_to_head(tree, window, rounds=200_000, seed=3)["ci_low"] > 0.5
    a, b = (learned_br(p, rounds=100_000, seed=1, window=3) for p in (tree, window))
    _assert_clearly_lower(a, b)
    a, b = (lbr(p, rounds=40_000, seed=1) for p in (tree, window))
    _assert_clearly_lower(a, b)


def _train_with(d: Duel, override: dict) -> DuelPolicy:
    """The library's training of ``d`` with ``override`` as its TREE_OVERRIDES entry (the recipe
    restored afterwards)."""
    key = (d.dice, d.faces, d.wild)
    before = library.TREE_OVERRIDES[key]
    library.TREE_OVERRIDES[key] = override
    try:
        library.forget_recipes()
        return library._train(d)
    finally:
        library.TREE_OVERRIDES[key] = before
        library.forget_recipes()


def _train_as_measured(d: Duel, changes: dict) -> tuple[dict, DuelPolicy]:
    """The recipe's TREE_OVERRIDES entry for ``d`` with ``changes`` (a step measured before the
    recipe's last), and its tree: the library's own training where they change nothing."""
    recipe = library.TREE_OVERRIDES[(d.dice, d.faces, d.wild)]
    entry = {**recipe, **changes}
    return entry, (library._train(d) if entry == recipe else _train_with(d, entry))


HALF_WITH_5 = {"longest": 5, "rows": 0.5, "warm": True, "iterations": 600}  # 4 v 4 ones wild until 2026-12-02


@pytest.mark.slow
@pytest.mark.parametrize("dice,before,rounds,seed,wins", [((4, 4), HALF_WITH_5, 500_000, 4, False),
                                                          ((3, 5), library.FIVE_DICE_TREE, 500_000, 4, True),
                                                          ((5, 3), library.FIVE_DICE_TREE, 500_000, 4, True),
                                                          ((4, 5), library.FIVE_DICE_TREE, 100_000, 1, True),
                                                          ((5, 4), library.FIVE_DICE_TREE, 100_000, 1, True)])
def test_7_bid_contexts_with_more_rows_at_ones_wild_beat_the_tree_before(cache_dir, dice, before, rounds, seed,
                                                                         wins):
    # issue 26, item 2 (BENCHMARKS.md, "The whole row bound at 4 v 4 with ones wild", "One and a half
    # times the row bound at 4 v 4", "The whole row bound at 3 v 5 and 5 v 3 with ones wild", "Half
    # the row bound at 4 v 5 and 5 v 4 with ones wild"): the recipe with ones wild grows its tree with
    # contexts to 7 bids and more rows, where it stopped at 5 bids: at 4 v 4 1.5 times the row bound
    # where it had half (about 4,500 CPU seconds against 2,000); at 3 v 5 and 5 v 3 the whole bound
    # (about 4,000 to 4,400), at 4 v 5 and 5 v 4 half of it (five steps of growth, so up to 7 bids;
    # about 4,900 to 5,000), where they had a quarter, three steps and 5 bids (1,300 to 2,300).
    # Measured, learned responder (window 3): 4 v 4 0.0581 +- 0.0020 against 0.0832, 3 v 5 0.0431
    # against 0.0650, 5 v 3 0.0463 against 0.0730 (seed 4, 500,000 rounds a seat, +- 0.0019 at the
    # 5-dice sizes); 4 v 5 0.0692 against 0.0928, 5 v 4 0.0753 against 0.1171 (seed 1, 100,000
    # rounds, +- 0.0044); head to head (1,000,000 rounds a seat, seed 5) 0.5017 [0.5010, 0.5024],
    # 0.5021 [0.5014, 0.5028], 0.5029 [0.5022, 0.5035] and 0.5026 [0.5019, 0.5033]; at 4 v 4 a draw,
    # 0.5005 [0.4998, 0.5012] (the whole bound won, 0.5009 [0.5002, 0.5016]; 1.5 times drew with it):
    # there only the learned responder tells the trees apart, and the head to head must not lose.
    # 3 v 5 and 5 v 3 grow in steps of 1.25 since 2026-12-04 (about 3,600 CPU seconds; 0.0360 and
    # 0.0391 on the learned responder, each a draw head to head with the whole-bound tree that beat
    # the quarter; the head to head of the new trees against the quarter itself is not yet measured;
    # 3 v 5 since at one and a half times the bound, 0.0324, a draw with the whole bound; 5 v 4 in
    # steps of 1.25 since 2026-12-06, 0.0669 against 0.0779 over two seeds of 200,000 rounds, winning
    # 0.5010 head to head against steps of 1.5; 4 v 5 too, 0.0665 against 0.0698 over two seeds, a draw)
    from dicelab.liars.lbr import head_to_head
    from dicelab.liars.responder import learned_br

    d = Duel(dice, 6, "ones")
    r = library.recipe(d)
    assert (r["method"], r["window"], r["tree_longest"], r["tree_warm"], r["iterations"]) == ("abstract", 2, 7, True, 600)
    new = library._train(d)
    old = _train_with(d, before)
    assert new.dag.longest == 7 and old.dag.longest == 5
    assert new.dag.memory > old.dag.memory == 5
    h = head_to_head(new, old, rounds=1_000_000, seed=5)
    assert (h["ci_low"] > 0.5) if wins else (h["ci_high"] > 0.5), h
    a, b = (learned_br(p, rounds=rounds, seed=seed, window=3) for p in (new, old))
    _assert_clearly_lower(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("dice,wild,grow,before,rounds,seed,exact_gap,bar,as_measured", [
    ((5, 3), "none", 1.125, {"rows": 0.5, "longest": 5}, 500_000, 4, 0.004, False, {}),
    ((3, 4), "ones", 1.125, {"grow": 1.5}, 1_000_000, 1, 0.0, False, {}),
    ((3, 5), "ones", 1.25, {"grow": 1.5}, 500_000, 4, 0.004, False, {"rows": 1.0}),
    ((5, 3), "ones", 1.25, {"grow": 1.5}, 500_000, 4, 0.003, False, {}),
    ((5, 4), "none", 1.125, {"grow": 1.5}, 2_000_000, 5, 0.002, True, {}),
    ((4, 5), "ones", 1.25, {"grow": 1.5}, 200_000, 1, 0.002, False, {}),
    ((5, 4), "ones", 1.25, {"grow": 1.5}, 200_000, 1, 0.004, False, {}),
    ((5, 5), "none", 1.25, {"grow": 1.5}, 500_000, 5, 0.01, False, {}),
    ((5, 5), "ones", 1.25, {"grow": 1.5}, 500_000, 4, 0.01, False, {})])
def test_smaller_growth_steps_beat_the_tree_before(cache_dir, dice, wild, grow, before, rounds, seed, exact_gap, bar,
                                                   as_measured):
    # issue 26, item 2 (BENCHMARKS.md, "Smaller steps of growth at 5 v 3 with nothing wild", "... at
    # 3 v 4 and 4 v 3 with ones wild", "Smaller steps with the whole row bound at 5 v 3"): the recipe
    # grows its tree by 1.125 (or 1.25) times the rows a step instead of 1.5, choosing the contexts from the
    # regrets about three times as often. 3 v 4 with ones wild against the same tree grown 1.5 times a
    # step (about 3,500 CPU seconds against 2,100): learned responder (window 3, seed 1, 1,000,000
    # rounds a seat) 0.0376 against 0.0408 +- 0.0014, the exact abstract part 0.0357 against 0.0365,
    # head to head a draw, 0.4999 [0.4992, 0.5006]. 5 v 3 with nothing wild, at the whole row bound
    # with 7-bid contexts, against the recipe before it (half the bound, 5-bid contexts, the same
    # steps; about 5,900 CPU seconds against 2,900): seed 4, 500,000 rounds, 0.0218 against 0.0312 +-
    # 0.0019, the exact part 0.0185 against 0.0266, head to head a draw, 0.5001 [0.4994, 0.5008]
    # (seed 5). 3 v 5 with ones wild grown 1.25 times a step against 1.5 times (2026-12-04: 3,596
    # CPU seconds against 2,493 on a quiet machine, 6,389 against 4,365 on a busy one): seed 4, 500,000
    # rounds, 0.0360 against 0.0431 +- 0.0019, the exact part 0.0296 against 0.0354, head to head a
    # draw, 0.5003 [0.4996, 0.5010] (seed 5); 5 v 3 the same (3,583 against 2,461 s): 0.0391 against
    # 0.0463, the exact part 0.0339 against 0.0381, a draw, 0.5000 [0.4993, 0.5007]. 5 v 4 with
    # nothing wild at three quarters of the bound, 1.125 times a step against 1.5 (2026-12-05, "Steps
    # of 1.125 at 5 v 4 with nothing wild"; 7,313 CPU seconds against 3,997): seed 5, 2,000,000 rounds,
    # 0.0149 against 0.0206 +- 0.0010, the exact part 0.0139 against 0.0174, LBR -0.017 against
    # -0.005 +- 0.007, head to head a draw, 0.4998 [0.4991, 0.5005]. 5 v 5 with nothing wild at a
    # quarter of the bound, 1.25 times a step against 1.5 (2026-12-05, "Steps of 1.25 at 5 v 5 with
    # nothing wild"; 5,253 CPU seconds against 3,085): seed 5, 500,000 rounds, 0.0318 against 0.0566
    # +- 0.0020, the exact part 0.0282 against 0.0520, LBR -0.012 against -0.009 +- 0.007, head to
    # head a draw, 0.5001 [0.4994, 0.5008]. 5 v 5 with ones wild the same (2026-12-06, "Steps of 1.25
    # at 5 v 5 with ones wild"; 6,287 CPU seconds against 3,939): seed 4, 500,000 rounds, 0.0718
    # against 0.0853 +- 0.0020, the exact part 0.0596 against 0.0750, LBR 0.0006 +- 0.0069, head to
    # head a win, 0.5020 [0.5013, 0.5027]; its grade peaks at about 19 GB resident, so run this case
    # alone (``-n 0``) on a 24 GB machine. 5 v 4 with ones wild the same at half the bound with 7-bid
    # contexts (2026-12-06, "Steps of 1.25 at 5 v 4 with ones wild"; 4,473 CPU seconds against 4,003):
    # seed 1, 200,000 rounds, 0.0681 against 0.0776 +- 0.0031, the exact part 0.0579 against 0.0657,
    # LBR -0.018 +- 0.007, head to head a win, 0.5010 [0.5003, 0.5017]; 4 v 5 the same (3,953 CPU
    # seconds against 3,730): 0.0661 against 0.0720 +- 0.0031 (seed 2 shows less, 0.0669 against
    # 0.0677; pooled 0.0665 against 0.0698 +- 0.0022), the exact part 0.0546 against 0.0584,
    # LBR -0.028 +- 0.007, head to head a draw, 0.5006 [0.4999, 0.5013]. Most of these pairs draw,
    # so the tree must only not lose. (5 v 3 with nothing wild has grown since to one and a half
    # times the bound, 0.0188 at seed 4: test_more_rows_beat_the_bound_before; against half the bound
    # it only gains. 3 v 5 with ones wild has grown since to one and a half times the bound, 0.0324:
    # test_more_rows_beat_the_bound_before; this case trains the whole bound it measured,
    # ``as_measured``.)
    from dicelab.liars.lbr import head_to_head
    from dicelab.liars.responder import learned_br

    d = Duel(dice, 6, wild)
    assert library.recipe(d)["tree_grow"] == grow < library.TREE["tree_grow"]
    entry, new = _train_as_measured(d, as_measured)
    old = _train_with(d, {**entry, **before})
    assert new.dag.memory >= old.dag.memory
    h = head_to_head(new, old, rounds=1_000_000, seed=5)
    assert h["ci_high"] > 0.5, h
    a, b = (learned_br(p, rounds=rounds, seed=seed, window=3) for p in (new, old))
    assert a["abstract_lower"] < b["abstract_lower"] - exact_gap, (a, b)  # each the exact payoff of its responder
    _assert_clearly_lower(a, b, intervals=1)
    if bar:  # item 2's bar (5 v 4 with nothing wild: measured 0.0149 +- 0.0010, the top 0.0159)
        assert a["exploitability_lower"] + a["exploitability_lower_ci"] < 0.02, a


@pytest.mark.slow
@pytest.mark.parametrize("dice,wild,times,before,rounds,seed,exact_gap,intervals,bar_seeds,as_measured", [
    ((4, 3), "ones", 3.0, 2.0, 1_000_000, 1, 0.004, 2, (), {}),
    ((4, 3), "ones", 4.5, 3.0, 1_000_000, 1, 0.002, 1, (), {}),
    ((5, 3), "none", 1.5, 1.0, 2_000_000, 5, 0.001, 1, (6, 7), {}),
    ((5, 4), "none", 0.75, 0.5, 2_000_000, 5, 0.002, 2, (), {"grow": 1.5}),
    ((3, 5), "ones", 1.5, 1.0, 500_000, 4, 0.0005, 1, (), {})])
def test_more_rows_beat_the_bound_before(cache_dir, dice, wild, times, before, rounds, seed, exact_gap, intervals,
                                         bar_seeds, as_measured):
    # issue 26, item 2: the recipe grows the tree to more times the row bound than before, the rest
    # of it unchanged. 4 v 3 with ones wild (BENCHMARKS.md, "Three times the row bound at 4 v 3 with
    # ones wild"; contexts to 7 bids, warm, 600 at the end, steps of 1.5), three times instead of
    # twice, measured 2026-12-04 (3,581 CPU seconds against 2,301): learned responder (window 3,
    # seed 1, 1,000,000 rounds a seat) 0.0306 against 0.0387 +- 0.0014, the exact abstract part
    # 0.0291 against 0.0342, LBR -0.032 against -0.031 +- 0.007, head to head a draw, 0.5005
    # [0.4998, 0.5012] (seed 5). 5 v 3 with nothing wild ("One and a half times the row bound at
    # 5 v 3 with nothing wild"; contexts to 7 bids, warm, 600 at the end, steps of 1.125), one and a
    # half times instead of the whole, measured 2026-12-04 (6,070 CPU seconds against 3,978):
    # seed 5, 2,000,000 rounds a seat, 0.0194 against 0.0217 +- 0.0010, the exact part 0.0168 against
    # 0.0185, LBR -0.015 against -0.016, head to head a draw, 0.5000 [0.4993, 0.5007]. 5 v 4 with
    # nothing wild ("Three quarters of the row bound at 5 v 4 with nothing wild"; contexts to 5 bids,
    # warm, 600 at the end, steps of 1.5), three quarters instead of half, measured 2026-12-05 (3,997
    # CPU seconds against 2,788): seed 5, 2,000,000 rounds a seat, 0.0206 against 0.0244 +- 0.0010, the
    # exact part 0.0174 against 0.0206, LBR -0.005 against -0.015, head to head 0.5011 [0.5004,
    # 0.5018]; measured in steps of 1.5 (``as_measured``), the recipe's steps since 1.125
    # (test_smaller_growth_steps_beat_the_tree_before). 4 v 3 with ones wild again ("Four and a half
    # times the row bound at 4 v 3 with ones wild"), 4.5 times instead of 3 (4 is the same tree as 3:
    # the next step of 1.5 would pass it), measured 2026-12-05 (4,629 CPU seconds against 2,948): seed
    # 1, 1,000,000 rounds a seat, 0.0278 against 0.0306 +- 0.0014, the exact part 0.0255 against
    # 0.0291, head to head a draw, 0.5001 [0.4994, 0.5008]; the step before it (three times against
    # twice) is kept as measured. 3 v 5 with ones wild ("One and a half times the row bound at 3 v 5
    # and 5 v 3 with ones wild"; contexts to 7 bids, warm, 600 at the end, steps of 1.25), one and a
    # half times instead of the whole, measured 2026-12-06 (5,944 CPU seconds against 3,406): seed 4,
    # 500,000 rounds a seat, 0.0324 against 0.0360 +- 0.0019 (the interval of the difference 0.0027),
    # the exact part 0.0286 against 0.0296, head to head a draw, 0.5005 [0.4998, 0.5012]. Only 5 v 4
    # won, so the tree must only not lose
    from dicelab.liars.duel import dag_rows
    from dicelab.liars.lbr import head_to_head
    from dicelab.liars.responder import learned_br

    d = Duel(dice, 6, wild)
    bound = dag_rows(d.n_bids, library.MIN_ABSTRACT_WINDOW) * library.TREE_ROWS
    entry, new = _train_as_measured(d, {**as_measured, "rows": times})
    if entry == library.TREE_OVERRIDES[(d.dice, d.faces, d.wild)]:  # the recipe's own tree
        assert library.recipe(d)["tree_rows"] == int(bound * times)
    old = _train_with(d, {**entry, "rows": before})
    assert sum(new.dag.rows) > 1.3 * sum(old.dag.rows)
    h = head_to_head(new, old, rounds=1_000_000, seed=5)
    assert h["ci_high"] > 0.5, h
    a, b = (learned_br(p, rounds=rounds, seed=seed, window=3) for p in (new, old))
    assert a["abstract_lower"] < b["abstract_lower"] - exact_gap, (a, b)  # each the exact payoff of its responder
    _assert_clearly_lower(a, b, intervals)  # 5 v 3: 0.0023 against an interval of 0.0014, so once; 5 v 4: 0.0038
    if bar_seeds:
        # item 2's bar at 5 v 3 with nothing wild (BENCHMARKS.md, "Item 2 at 5 v 3 with nothing wild:
        # met"): the same responder played 4,000,000 rounds a seat at each seed (about 17 CPU minutes
        # in all), pooled: measured 0.0186 +- 0.0005, [0.0181, 0.0191]
        runs = [learned_br(new, rounds=4_000_000, seed=s, window=3) for s in bar_seeds]
        mean = sum(r["exploitability_lower"] for r in runs) / len(runs)
        ci = math.sqrt(sum(r["exploitability_lower_ci"] ** 2 for r in runs)) / len(runs)
        assert mean + ci < 0.02, runs


@pytest.mark.slow
def test_a_tree_at_5v5_ones_wild_beats_the_enumerated_window(cache_dir):
    # issue 26, item 2 (BENCHMARKS.md, "The same tree at 5 v 5 with ones wild"): the recipe at 5 v 5
    # with ones wild grows a context tree on the window of 2, every hand enumerated (a quarter of the
    # row bound, contexts to 5 bids, warm, 600 at the end: about 6,800 CPU seconds) where it kept the
    # window (about 950). Measured: head to head 0.5029 [0.5013, 0.5044] (200,000 rounds a seat,
    # seed 3); learned responder one bid beyond each policy's memory (window 3, seed 4) 0.0853 +-
    # 0.0020 (500,000 rounds) against 0.1064 +- 0.0031 (200,000); LBR 0.0075 against 0.012 (+- 0.007,
    # 40,000 rounds). The recipe's tree grows in steps of 1.25 since 2026-12-06 (0.0718, about 6,300
    # CPU seconds; test_smaller_growth_steps_beat_the_tree_before), which only widens the gaps.
    from dicelab.liars.duel import train_duel
    from dicelab.liars.lbr import head_to_head
    from dicelab.liars.responder import learned_br

    d = Duel((5, 5), 6, "ones")
    r = library.recipe(d)
    assert (r["method"], r["window"], r["tree_longest"], r["tree_warm"], r["iterations"]) == ("abstract", 2, 5, True, 600)
    tree = library._train(d)
    window = train_duel(d, iterations=300, seed=0, window=2, method="abstract")
    assert head_to_head(tree, window, rounds=200_000, seed=3)["ci_low"] > 0.5
    a, b = (learned_br(p, rounds=200_000, seed=4, window=3) for p in (tree, window))
    _assert_clearly_lower(a, b)


@pytest.mark.parametrize("wild", ["ones", "none"])
def test_a_five_dice_table_holds_every_duel_size_and_the_start_first(monkeypatch, wild):
    """A two-player game at 5 dice each opens every round at 5 v 5 and may meet every smaller size:
    all 25 policies must fit the cache together (the 5 v 5 one, the largest, was the one left out).
    Where the budget is short, the starting size is kept before the smaller ones."""
    monkeypatch.setattr(library, "available", lambda d: True)
    sizes = library.usable_sizes(5, 6, wild)
    assert sizes == sorted(itertools.product(range(1, 6), repeat=2))
    total = sum(library.table_bytes(Duel(d, 6, wild)) for d in sizes)
    assert total <= 0.8 * library._policies.budget  # the bound usable_sizes keeps
    start = library.table_bytes(Duel((5, 5), 6, wild))  # not always the largest: the 3 v 4 tree's bound is larger
    monkeypatch.setattr(library._policies, "budget", int((start + 2 ** 20) / 0.8))  # room for 5 v 5 and 1 MiB
    short = library.usable_sizes(5, 6, wild)
    assert (5, 5) in short and 1 < len(short) < 25
