"""Issue 26, item 2: a window that also keeps faces beyond its bids.

A window of two bids forgets the opener's first word on its hand after two more bids, and the face
of every bid that leaves it. Here a node is ``(mover, last bids, the first bid's face)`` or
``(mover, last bids, the faces of the k bids before them)``. References from outside the code under test: a
walk over every rising bid sequence with the node's key computed here, two independent exact
evaluators (the depth-first grader and the full-tree evaluator of the exact solver), exact LBR,
and laws (a finer memory refines a coarser one; the same seed gives the same policy).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from dicelab.core.errors import DicelabError
from dicelab.liars.duel import Duel, DuelPolicy, build_dag, train_duel
from dicelab.liars.grading import exact_grade, grade_with_tree
from dicelab.liars.lbr import lbr_exact
from dicelab.liars.responder import learned_br_exact, policy_nodes, refined_dag
from dicelab.liars.rules import Bid


def _histories(n: int):
    for k in range(n + 1):
        yield from itertools.combinations(range(n), k)


def _reference_faces(h: tuple[int, ...], window: int, faces: int, kept: dict) -> tuple[int, ...]:
    if kept.get("first"):
        return (h[0] % faces + 1 if h else 0,)
    k = kept["older"]
    before = [b % faces + 1 for b in h[:max(0, len(h) - window)]][-k:]
    return (0,) * (k - len(before)) + tuple(before)


@pytest.mark.parametrize("n,faces,window,kept", [(8, 4, 2, {"first": True}), (9, 3, 1, {"first": True}),
                                                 (10, 5, 3, {"first": True}), (8, 4, 2, {"older": 1}),
                                                 (9, 3, 1, {"older": 2}), (10, 5, 2, {"older": 2})])
def test_every_history_falls_in_the_node_of_its_last_bids_and_kept_faces(n, faces, window, kept):
    dag = build_dag(n, window, faces=faces, **kept)
    key_of_node: dict[int, tuple] = {}
    for h in _histories(n):
        m = 0
        for b in h:
            m = int(dag.child[m, b])
        key = (len(h) % 2, h[max(0, len(h) - window):], _reference_faces(h, window, faces, kept))
        assert key_of_node.setdefault(m, key) == key  # one key per node ...
        assert dag.node_of(len(h) % 2, list(h)) == m
    assert len(set(key_of_node.values())) == len(key_of_node) == dag.n_nodes  # ... and one node per key
    # each node's actions have their own rows, seat by seat, with no gap
    widths = [0, 0]
    for m in range(dag.n_nodes):
        widths[int(dag.mover[m])] += n - 1 - int(dag.top[m]) + (1 if m else 0)
    assert tuple(widths) == dag.rows


def test_the_row_count_without_building_matches_the_built_dag():
    from dicelab.liars.duel import dag_rows

    for n, faces in [(4, 2), (6, 3), (9, 3), (10, 5), (12, 4), (12, 6), (18, 3), (24, 6)]:
        for window in (1, 2, 3):
            for kept in ({"first": True}, {"older": 1}, {"older": 2}):
                if n < 24 or window < 3:
                    assert dag_rows(n, window, faces, **kept) == sum(build_dag(n, window, faces=faces, **kept).rows), \
                        (n, faces, window, kept)


def test_a_finer_memory_refines_the_coarser_one():
    n, faces = 12, 3
    window = build_dag(n, 2)
    for kept in ({"first": True}, {"older": 1}):
        dag = build_dag(n, 2, faces=faces, **kept)
        policy_nodes(dag, window)  # the faces only split window nodes
        policy_nodes(build_dag(n, n), dag)  # every bid (perfect recall) refines it
        longer = refined_dag(dag, 1)
        assert longer.window == 3 and (longer.first, longer.older, longer.faces) == (dag.first, dag.older, faces)
        policy_nodes(longer, dag)
    policy_nodes(build_dag(n, 3), build_dag(n, 2, faces=faces, older=1))  # the bid itself: its face and more
    with pytest.raises(DicelabError, match="refine"):
        policy_nodes(build_dag(n, 3), build_dag(n, 2, faces=faces, first=True))  # the first bid may be gone
    with pytest.raises(DicelabError, match="refine"):
        policy_nodes(build_dag(n, 3), build_dag(n, 2, faces=faces, older=2))  # so may the fourth-last


@pytest.mark.parametrize("dice,faces,wild", [((2, 1), 4, "none"), ((1, 1), 6, "ones"), ((3, 2), 3, "none")])
def test_keeping_faces_lowers_the_exact_exploitability(dice, faces, wild):
    duel = Duel(dice, faces, wild)
    plain = exact_grade(train_duel(duel, 300, seed=0, method="abstract", window=2))["exploitability"]
    # measured 2026-11-28, window 2 / + first face / + the face of the bid before the window:
    # 0.0037 / 0.00012 / 0.00015; 0.0219 / 0.00044 / 0.0049; 0.0493 / 0.0223 / 0.0107
    for kept, label in [({"first_face": True}, "window 2 and the first bid's face"),
                        ({"older_faces": 1}, "window 2 and the face of the bid before it")]:
        pol = train_duel(duel, 300, seed=0, method="abstract", window=2, **kept)
        assert pol.memory_label == label
        g = exact_grade(pol)
        other = grade_with_tree(pol)  # two independent evaluators agree on the new memory
        for k in ("value", "br0", "br1"):
            assert g[k] == pytest.approx(other[k], abs=1e-9)
        assert g["exploitability"] < plain / 2
        assert g["br0"] + g["br1"] >= -1e-9  # a law: the best responses bracket the value


@pytest.mark.parametrize("kept", [{"first_face": True}, {"older_faces": 2}])
def test_lbr_and_the_learned_responder_walk_the_kept_faces(kept):
    duel = Duel((2, 1), 4, "none")
    pol = train_duel(duel, 50, seed=0, method="abstract", window=1, **kept)
    g = exact_grade(pol)
    low = lbr_exact(pol)
    assert (low["lbr0"] + low["lbr1"]) / 2 <= g["exploitability"] + 1e-9
    # with every bid remembered the learned responder is the exact best response
    full = learned_br_exact(pol, window=duel.n_bids)
    assert full["exploitability_lower"] == pytest.approx(g["exploitability"], abs=1e-9)
    short = learned_br_exact(pol, window=2)  # window 2 and the same faces kept: a lower bound
    assert short["exploitability_lower"] <= g["exploitability"] + 1e-9


@pytest.mark.parametrize("kept,label", [({"first_face": True}, "window 2 and the first bid's face"),
                                        ({"older_faces": 2}, "window 2 and the faces of the 2 bids before it")])
def test_save_load_and_resume_keep_the_memory(tmp_path, kept, label):
    duel = Duel((2, 1), 3, "none")
    full = train_duel(duel, 100, seed=7, method="mccfr", samples=3, window=2, **kept)
    half = train_duel(duel, 50, seed=7, method="mccfr", samples=3, window=2, **kept)
    half.save(str(tmp_path / "half"))
    back = DuelPolicy.load(str(tmp_path / "half"))
    assert back.dag.faces == 3 and back.memory_label == label
    rest = train_duel(duel, 50, seed=7, method="mccfr", samples=3, resume=back)
    for i in (0, 1):
        assert np.array_equal(rest.strategy[i], full.strategy[i])
    hand, history = (1, 3), [Bid(1, 2), Bid(1, 3), Bid(2, 1), Bid(2, 3)]
    stored, trained = back.action_probabilities(0, hand, history), half.action_probabilities(0, hand, history)
    assert stored.keys() == trained.keys()  # the same node: stored as float32
    assert all(stored[k] == pytest.approx(trained[k], rel=1e-6) for k in stored)
    arrays, meta = half.to_arrays()
    for key, bad in [("first_face", "yes"), ("first_face", 1), ("older_faces", 5), ("older_faces", True),
                     ("older_faces", "1")]:
        with pytest.raises(DicelabError, match=key) as exc:
            DuelPolicy.from_arrays(arrays, {**meta, key: bad})
        assert "\n" not in str(exc.value)
    with pytest.raises(DicelabError, match="context tree"):
        build_dag(9, 2, {(1, (0, 1, 2))}, faces=3, first=True)
    with pytest.raises(DicelabError, match="faces"):
        build_dag(9, 2, faces=4, first=True)
    with pytest.raises(DicelabError, match="not both"):
        build_dag(9, 2, faces=3, first=True, older=1)


def test_the_cli_trains_and_grades_the_first_face_memory(tmp_path, run_cli):
    out = tmp_path / "p"
    code, stdout, _ = run_cli(["liars", "solve", "--dice", "2,1", "--faces", "3", "--wild", "none", "--window", "2",
                               "--first-face", "--iterations", "100", "--method", "abstract", "--out", str(out),
                               "--json"])
    assert code == 0
    data = json.loads(stdout)
    assert data["remembers"] == "window 2 and the first bid's face" and data["grading"] == "exact"
    code, stdout, _ = run_cli(["liars", "grade", "--policy", str(out) + ".npz", "--json"])
    assert code == 0
    assert json.loads(stdout)["exploitability"] == pytest.approx(data["exploitability"], abs=1e-6)  # float32 file
    for extra in ([], ["--rows", "500", "--out", str(tmp_path / "q")], ["--older-faces", "1", "--out", str(out)]):
        code, stdout, err = run_cli(["liars", "solve", "--dice", "2,1", "--faces", "3", "--first-face", *extra])
        assert code == 2 and "--first-face" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    code, _, err = run_cli(["liars", "solve", "--dice", "2,1", "--faces", "3", "--older-faces", "3", "--out", str(out)])
    assert code == 2 and "--older-faces must be from 0 to 2" in err
