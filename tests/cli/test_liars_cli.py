"""`dicelab liars`: train, eval, solve, exploit and the terminal game, in-process and end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import binomtest

from dicelab.cli.main import main
from dicelab.liars.cfr import OPENSPIEL_VALUE_1V1_6_HIGHEST

DICELAB = str(Path(sys.executable).with_name("dicelab"))


def run(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_train_then_eval_json(tmp_path, capsys):
    q = tmp_path / "agent"
    png = tmp_path / "curve.png"
    code, out, _ = run(["liars", "train", "--players", "3", "--dice", "3", "--games", "2000", "--seed", "1",
                        "--out", str(q), "--plot", str(png), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 2000
    assert png.exists() and (tmp_path / "agent.npz").exists() and (tmp_path / "agent.json").exists()
    code, out, _ = run(["liars", "eval", "--agent", str(q), "--opponents", "random,random", "--games", "1500",
                        "--json"], capsys)
    assert code == 0
    ev = json.loads(out)
    assert ev["games"] == 1500 and ev["win_rate"] == ev["wins"] / 1500
    # the printed interval is the 95% Wilson interval of the printed counts (scipy's)
    ci = binomtest(ev["wins"], 1500).proportion_ci(0.95, method="wilson")
    assert (ev["ci_low"], ev["ci_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert ci.low > 1 / 3  # a trained agent beats two random bots
    code, out, _ = run(["liars", "eval", "--agent", "random", "--opponents", "random,random,random",
                        "--games", "500", "--json"], capsys)
    assert code == 0 and json.loads(out)["games"] == 500


def test_solve_json(capsys):
    code, out, _ = run(["liars", "solve", "--dice", "1,1", "--faces", "6", "--wild", "highest", "--target",
                        "1e-4", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["exploitability"] < 1e-4
    assert abs(data["value"] - OPENSPIEL_VALUE_1V1_6_HIGHEST) <= 2 * data["exploitability"]
    assert data["openspiel_value"] == OPENSPIEL_VALUE_1V1_6_HIGHEST
    # minimax: the published game value (-7/258) lies between what each side's best response gets
    br0, br1 = data["best_response_0"], data["best_response_1"]
    assert -br1 <= -7 / 258 <= br0 and 0 <= br0 + br1 < 2e-4


# -- an independent best response to the ``random`` bot in the duel 1 v 1 die, 3 faces ----------
# The bot (dicelab/strategies/liars.py, seed 004) ignores its own die: with no bid it opens
# (1, f) with f uniform; after a bid (q, f') it calls with probability 1/2, else bids (q + 1, f)
# with f uniform, and it calls for sure when q + 1 exceeds the 2 dice on the table. Highest face
# (3) wild. Since the bot's moves say nothing about its die, the best responder's belief about it
# stays uniform and a plain expectimax over bid sequences, per own die, is an exact best response.

FACES, ALL_DICE = 3, 2
BIDS = [(q, f) for q in range(1, ALL_DICE + 1) for f in range(1, FACES + 1)]  # in rank order


def _bidder_wins(bid: tuple[int, int], dice: tuple[int, int]) -> bool:
    q, f = bid
    return sum(d == f or d == FACES for d in dice) >= q


def _call_value(bid: tuple[int, int], caller_is_me: bool, mine: int) -> Fraction:
    """My expected payoff (+1 win, -1 loss) when ``bid`` is called, the bot's die uniform."""
    total = Fraction(0)
    for theirs in range(1, FACES + 1):
        bidder_wins = _bidder_wins(bid, (mine, theirs))
        total += 1 if bidder_wins != caller_is_me else -1
    return total / FACES


def _best(last: tuple[int, int] | None, my_turn: bool, mine: int) -> Fraction:
    """My best expected payoff from here (``last``: the standing bid; mine on the bot's turn)."""
    higher = [b for b in BIDS if last is None or b > last]
    if my_turn:
        options = [_best(b, False, mine) for b in higher]
        if last is not None:
            options.append(_call_value(last, True, mine))
        return max(options)
    q = 0 if last is None else last[0]
    if q + 1 > ALL_DICE:
        return _call_value(last, False, mine)
    raised = sum(_best((q + 1, f), True, mine) for f in range(1, FACES + 1)) / FACES
    if last is None:
        return raised
    return (_call_value(last, False, mine) + raised) / 2


def _best_response_to_random(seat: int) -> Fraction:
    return sum(_best(None, seat == 0, mine) for mine in range(1, FACES + 1)) / FACES


def test_exploit_json_matches_a_brute_force_best_response(capsys):
    args = ["liars", "exploit", "--agent", "random", "--dice", "1,1", "--faces", "3", "--json"]
    code, out, _ = run(args, capsys)
    assert code == 0
    d = json.loads(out)
    br0, br1 = _best_response_to_random(0), _best_response_to_random(1)
    assert d["br0"] == pytest.approx(float(br0), abs=1e-12)
    assert d["br1"] == pytest.approx(float(br1), abs=1e-12)
    assert d["exploitability"] == pytest.approx(float(br0 + br1) / 2, abs=1e-12)
    assert br0 + br1 > 0  # a policy that is no equilibrium can be exploited


@pytest.mark.parametrize(
    "args,needle",
    [
        (["liars", "train", "--players", "9", "--out", "x"], "players must be"),
        (["liars", "train", "--wild", "twos", "--out", "x"], "unknown wild option"),
        (["liars", "train", "--design", "deep", "--out", "x", "--games", "5"], "unknown state design"),
        (["liars", "eval", "--agent", "no-such-file"], "no table"),
        (["liars", "eval", "--agent", "random", "--opponents", "random,genius"], "unknown opponent"),
        (["liars", "solve", "--dice", "2,2"], "at most 18"),
        (["liars", "solve", "--dice", "one"], "--dice must be"),
        (["liars", "solve", "--games", "3"], "No such option"),
        (["liars", "play", "--seat", "7"], "--seat must be"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, needle, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error:") and needle in err


def _play(stdin: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run([DICELAB, "liars", "play", "--players", "2", "--dice", "1", *extra],
                          input=stdin, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_play_from_piped_stdin(seed):
    # you open with 1x2; the bot calls (game over) or raises to 2xF, which you call: always a full game
    p = _play("9x9\n1x2\ncall\n", "--seed", seed, "--json")
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    assert record["winner"] in (0, 1) and len(record["rounds"]) == 1
    rnd = record["rounds"][0]
    assert rnd["actions"][0] == {"player": 0, "bid": [1, 2]}
    assert "error: bid 9x9" in p.stderr  # the illegal bid was refused, then play went on
    assert ("you win" in p.stderr) == (record["winner"] == 0)


def test_play_human_text_and_eof():
    p = _play("1x2\ncall\n", "--seed", "4", "--bots", "random")
    assert p.returncode == 0 and "round 1" in p.stdout and "your dice:" in p.stdout
    p = _play("", "--seed", "4")
    assert p.returncode == 2 and p.stderr.strip() == "error: input ended before the game did"
    p = _play("quit\n", "--seed", "4")
    assert p.returncode == 1 and "you left the game" in p.stdout


def test_play_against_a_trained_agent(tmp_path, capsys):
    q = tmp_path / "duel"
    code, _, _ = run(["liars", "train", "--players", "2", "--dice", "1", "--games", "500", "--out", str(q),
                      "--json"], capsys)
    assert code == 0
    p = _play("1x2\ncall\n", "--seed", "2", "--agent", str(q), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["winner"] in (0, 1)
    p = _play("1x2\ncall\n", "--seed", "2", "--agent", str(q), "--faces", "5")
    assert p.returncode == 2 and p.stderr.startswith("error: the agent was trained for")


# -- issue 13: the scalable duel solver, grading and evaluation ------------------------------------


def test_solve_out_grade_and_eval_duel_policy(tmp_path, capsys):
    from dicelab.liars.cfr import DuelRules, solve_lp

    pol = tmp_path / "duel"
    code, out, _ = run(["liars", "solve", "--dice", "1,2", "--faces", "3", "--wild", "ones", "--out", str(pol),
                        "--target", "0.01", "--iterations", "400", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["target_met"] and data["exploitability"] < 0.01 and data["grading"] == "exact"
    lp = solve_lp(DuelRules((1, 2), 3, "ones"))  # the sequence-form LP's game value
    assert -data["best_response_1"] - 1e-9 <= lp <= data["best_response_0"] + 1e-9
    code, out, _ = run(["liars", "grade", "--policy", str(pol), "--json"], capsys)
    assert code == 0
    g = json.loads(out)
    # the file stores the strategy in float32: the same grade up to that rounding
    assert g["method"] == "exact" and g["exploitability"] == pytest.approx(data["exploitability"], abs=1e-6)
    code, out, _ = run(["liars", "grade", "--policy", str(pol), "--method", "lbr", "--rounds", "3000", "--json"],
                       capsys)
    assert code == 0
    lb = json.loads(out)
    # LBR is a lower bound: its estimate lies below the exact exploitability up to its interval
    assert lb["exploitability_lower"] <= g["exploitability"] + 2 * lb["exploitability_lower_ci"]
    code, out, _ = run(["liars", "grade", "--policy", str(pol), "--method", "learned", "--rounds", "3000",
                        "--json"], capsys)
    assert code == 0
    le = json.loads(out)
    # 9 bids: the learned responder remembers them all, so it is the exact best response (played by rounds)
    assert le["window"] == 9 and le["abstract_lower"] == pytest.approx(g["exploitability"], abs=1e-6)
    assert abs(le["exploitability_lower"] - g["exploitability"]) <= 2.3 * le["exploitability_lower_ci"]
    # by default it plays enough rounds (cheap beside learning) to pin the exact value to about 0.002
    code, out, _ = run(["liars", "grade", "--policy", str(pol), "--method", "learned", "--json"], capsys)
    assert code == 0
    le = json.loads(out)
    assert le["rounds"] == 500_000 and le["exploitability_lower_ci"] < 0.003
    assert abs(le["exploitability_lower"] - g["exploitability"]) <= 2.3 * le["exploitability_lower_ci"]
    code, out, _ = run(["liars", "eval", "--agent", str(pol), "--opponents", "probabilistic", "--games", "4000",
                        "--json"], capsys)
    assert code == 0
    ev = json.loads(out)
    ci = binomtest(ev["wins"], ev["games"]).proportion_ci(0.95, method="wilson")
    assert (ev["ci_low"], ev["ci_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert ev["ci_low"] > 0.5


def test_grade_bot_matches_exploit(capsys):
    code, out, _ = run(["liars", "grade", "--policy", "random", "--dice", "1,1", "--faces", "4", "--json"], capsys)
    assert code == 0
    g = json.loads(out)
    code, out, _ = run(["liars", "exploit", "--agent", "random", "--dice", "1,1", "--faces", "4", "--json"], capsys)
    e = json.loads(out)
    assert g["exploitability"] == pytest.approx(e["exploitability"], abs=1e-12)


def test_eval_scout(capsys):
    code, out, _ = run(["liars", "eval", "--agent", "scout", "--opponents", "probabilistic,probabilistic",
                        "--dice", "2", "--games", "200", "--json"], capsys)
    assert code == 0
    ev = json.loads(out)
    assert ev["games"] == 200 and ev["win_rate"] == ev["wins"] / 200


@pytest.mark.parametrize("args,msg", [
    (["liars", "solve", "--dice", "6,5", "--out", "X"], "from 1 to 5"),
    (["liars", "solve", "--dice", "5,5", "--out", "X", "--target", "0.1"], "exact grading"),
    (["liars", "solve", "--dice", "1,1", "--method", "mccfr"], "needs --out"),
    (["liars", "solve", "--dice", "1,1", "--out", "X", "--method", "cfr+"], "scalable policy"),
    (["liars", "solve", "--dice", "1,1", "--window", "3"], "scalable solver"),
    (["liars", "solve", "--dice", "1,1", "--out", "X", "--method", "bogus"], "unknown method"),
    (["liars", "solve", "--dice", "1,1", "--faces", "3", "--out", "X", "--rows", "5"], "--rows must be from 100"),
    (["liars", "solve", "--dice", "1,1", "--faces", "3", "--out", "X", "--longest", "4"],
     "--longest applies with --rows"),
    (["liars", "solve", "--dice", "1,1", "--faces", "3", "--out", "X", "--rows", "1000", "--longest", "2"],
     "--longest must be from 3"),
    (["liars", "solve", "--dice", "1,1", "--faces", "3", "--out", "X", "--rows", "1000", "--target", "0.01"],
     "drop --resume and --target"),
    (["liars", "solve", "--dice", "1,1", "--rows", "1000"], "scalable solver"),
    (["liars", "grade", "--policy", "nowhere"], "no table"),
    (["liars", "grade", "--policy", "random"], "--dice"),
    (["liars", "grade", "--policy", "random", "--dice", "1,1", "--method", "best"], "--method"),
    (["liars", "grade", "--policy", "random", "--dice", "1,1", "--window", "3"], "--method learned"),
    (["liars", "grade", "--policy", "random", "--dice", "1,1", "--method", "learned", "--window", "0"], "--window"),
    # 64,535,336 nodes at 3 v 3: about 478 GiB of values, refused at once instead of building for hours
    (["liars", "grade", "--policy", "probabilistic", "--dice", "3,3", "--method", "learned", "--window", "8"],
     "choose a shorter window"),
    (["liars", "solve", "--dice", "3,3", "--window", "8", "--out", "X"], "choose a shorter window"),  # 522 GiB
    (["liars", "solve", "--dice", "5,5", "--rows", "100000000", "--out", "X"], "choose fewer rows"),  # 1,171 GiB
])
def test_scalable_bad_input(args, msg, capsys, tmp_path):
    args = [str(tmp_path / a) if a == "X" else a for a in args]
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert msg in err and err.count("\n") == 1


def test_solve_with_a_growing_memory_then_grade_the_file(tmp_path, capsys):
    # issue 26: --rows trains a context tree; the file loads, plays and grades like a window policy
    out = tmp_path / "tree"
    code, text, _ = run(["liars", "solve", "--dice", "2,1", "--faces", "3", "--wild", "none", "--out", str(out),
                         "--rows", "1500", "--iterations", "100", "--json"], capsys)
    assert code == 0
    data = json.loads(text)
    assert data["window"] == 2 and data["memory"] > 2 and data["rows"] <= 1500
    assert data["grading"] == "exact" and 0.0 <= data["exploitability"] < 0.5
    code, text, _ = run(["liars", "grade", "--policy", str(out) + ".npz", "--method", "lbr", "--rounds", "200",
                         "--json"], capsys)
    assert code == 0 and "exploitability_lower" in json.loads(text)
