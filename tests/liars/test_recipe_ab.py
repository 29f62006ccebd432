"""benchmarks/liars_recipe_ab.py, the tool item 2's recipe changes are measured with: it reports what
the library computes (same seed, same figures), changes only the override it is given, and pools runs
by the law of independent means."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from dicelab.liars import library
from dicelab.liars.duel import Duel, DuelPolicy, dag_rows
from dicelab.liars.responder import learned_br

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ab():
    spec = importlib.util.spec_from_file_location("liars_recipe_ab", ROOT / "benchmarks" / "liars_recipe_ab.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_override_changes_only_what_it_names(ab, monkeypatch):
    d = Duel((5, 3), 6, "none")
    monkeypatch.setattr(library, "TREE_OVERRIDES", dict(library.TREE_OVERRIDES))
    library.forget_recipes()
    before = library.recipe(d)
    try:
        ab.with_override(d, {"rows": 2.0})
        after = library.recipe(d)
    finally:
        monkeypatch.undo()
        library.forget_recipes()
    bound = dag_rows(d.n_bids, library.MIN_ABSTRACT_WINDOW) * library.TREE_ROWS
    assert after["tree_rows"] == int(bound * 2.0) != before["tree_rows"]
    assert {k: v for k, v in after.items() if k != "tree_rows"} == {k: v for k, v in before.items() if k != "tree_rows"}
    assert library.recipe(d) == before  # restored


def test_train_and_grade_report_what_the_library_computes(ab, tmp_path, capsys):
    out = tmp_path / "p12.npz"
    assert ab.main(["train", "1", "2", "none", "--out", str(out)]) == 0
    t = json.loads(capsys.readouterr().out)
    d = Duel((1, 2), 6, "none")
    assert t["recipe"] == library.recipe(d) and t["override"] == {}
    p = DuelPolicy.load(str(out))
    assert p.duel == d and t["rows"] == sum(p.dag.rows)
    assert ab.main(["grade", str(out), "--rounds", "2000", "--seed", "3", "--window", "4"]) == 0
    g = json.loads(capsys.readouterr().out)
    r = learned_br(p, rounds=2000, seed=3, window=4)  # same seed, same figures
    assert (g["learned"], g["learned_ci"], g["exact_part"]) == (
        r["exploitability_lower"], r["exploitability_lower_ci"], r["abstract_lower"])
    assert ab.main(["h2h", str(out), str(out), "--rounds", "500", "--seed", "1"]) == 0
    h = json.loads(capsys.readouterr().out)
    assert h["ci_low"] <= h["win_rate"] <= h["ci_high"]


def test_thresholding_drops_the_rare_actions_and_keeps_each_mix_a_distribution(ab, tmp_path):
    import numpy as np

    from dicelab.liars.duel import train_duel

    p = train_duel(Duel((1, 2), 6, "ones"), iterations=60, seed=0, window=4, method="abstract")
    tau = 0.05
    q = ab.threshold(p, tau)
    d, dropped = p.dag, 0
    for m in range(d.n_nodes):  # by hand, node by node: the slow reference
        k = d.n - 1 - int(d.top[m]) + (1 if m else 0)
        s = int(d.mover[m])
        before = p.strategy[s][d.loc[m]:d.loc[m] + k].astype(np.float64)
        after = q.strategy[s][d.loc[m]:d.loc[m] + k].astype(np.float64)
        for h in range(before.shape[1]):
            assert after[:, h].sum() == pytest.approx(1.0, abs=1e-5)
            if (before[:, h] >= tau).any():
                assert ((after[:, h] == 0) == (before[:, h] < tau)).all()
                assert after[:, h] == pytest.approx(np.where(before[:, h] < tau, 0, before[:, h]) / before[before[:, h] >= tau, h].sum(), abs=1e-5)
                dropped += int((before[:, h] < tau).sum() - (before[:, h] == 0).sum())
            else:
                assert after[:, h] == pytest.approx(before[:, h], abs=1e-6)
    assert dropped > 0  # the policy had rare actions to drop
    assert ab.threshold(p, 0.0).strategy[0] == pytest.approx(p.strategy[0])


def test_pool_weights_by_rounds_and_shrinks_the_interval_by_the_root_of_the_runs(ab):
    runs = [{"rounds": 4_000_000, "seed": s, "window": 3, "memory": 8, "learned": x, "learned_ci": 0.0007,
             "exact_part": 0.0168} for s, x in ((6, 0.0190), (7, 0.0196))]
    p = ab.pool(runs)
    assert p["rounds"] == 8_000_000 and p["learned"] == pytest.approx(0.0193)
    assert p["learned_ci"] == pytest.approx(0.0007 / math.sqrt(2))
    with pytest.raises(ValueError, match="one policy"):
        ab.pool([runs[0], {**runs[1], "exact_part": 0.0185}])
    uneven = ab.pool([{**runs[0], "rounds": 1_000_000}, runs[1]])
    assert uneven["learned"] == pytest.approx((0.0190 + 4 * 0.0196) / 5)


RUN = json.dumps({"rounds": 1, "seed": 1, "window": 3, "memory": 8, "learned": 0.0, "learned_ci": 0.0, "exact_part": 0.0})


@pytest.mark.parametrize("argv", [["pool", '{"rounds": 1}'], ["pool", "zz"], ["pool", RUN, RUN],
                                  ["train", "6", "3", "none", "--out", "x.npz"],
                                  ["train", "5", "3", "none", "--override", "[1]", "--out", "x.npz"],
                                  ["train", "5", "3", "none", "--override", "{rows", "--out", "x.npz"],
                                  ["train", "5", "3", "none", "--override", '{"row": 2}', "--out", "x.npz"],
                                  ["train", "1", "2", "none", "--override", '{"rows": 2}', "--out", "x.npz"],
                                  ["grade", "no-such-table.npz"], ["grade", "t.npz", "--threshold", "1.5"], []])
def test_bad_input_is_one_line_and_exit_2(ab, argv, capsys):
    with pytest.raises(SystemExit) as e:
        ab.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("liars_recipe_ab.py") and "Traceback" not in err, err
