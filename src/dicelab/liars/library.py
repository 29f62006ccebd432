"""The library of duel policies the bots and the coach play: one recipe per duel size, trained on
demand where that takes seconds, ahead of time (``dicelab liars train-all``) otherwise.

Every duel ``(opener's dice, other's dice, faces, wild)`` up to 5 v 5 has one fixed training
recipe (:func:`recipe`: method, window, iterations, seed 0), so a policy trained on demand and one
trained ahead of time are the same cache entry (:func:`dicelab.core.store.cached`, kind
``liars-duel-policy``: ``.npz`` + JSON with checksums; a damaged entry is deleted and trained
again, or, for a size too big to train on demand, dropped until ``train-all`` runs again).

A size is *available* when its recipe is quick (estimated under :data:`QUICK_WORK`, a few seconds)
or its policy is on disk already. :func:`policy` returns it (memory, else disk, else a quick
training) or None. Policies in memory live in one bounded cache, as float16 (half the memory;
probabilities to about 3 significant digits: all 25 sizes up to 5 v 5 at 6 faces take 724 MiB
with ones wild and 551 with nothing wild, the trees counted at their row bound: :data:`CACHE_MIB`);
:func:`usable_sizes` names the sizes a table may meet in two-player rounds that fit there together.
"""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from dicelab.core.cache import bounded_cache
from dicelab.core.errors import DicelabError, require
from dicelab.liars.duel import (
    MAX_DUEL_DICE,
    POLICY_KIND,
    Duel,
    DuelPolicy,
    dag_rows,
    default_method,
    default_samples,
    default_window,
    train_duel,
)

log = logging.getLogger("dicelab.liars.library")

RECIPE_VERSION = 2
ITERATIONS = 300
MAX_WINDOW = 4  # beyond quick work (1 v 2 at 6 faces: window 4 reaches exploitability 2e-4 in 2 s, window 7 25x that)
# ... but 5 for the abstract method from 21 to 24 bids: 2 v 2 with 6 faces (24 bids) stops at
# exploitability 0.0115 after 300 iterations with 4 bids, and reaches 0.0067 (ones) / 0.0075
# (highest) in 150-250 with 5; up to 20 bids 4 suffice (1 v 2 with 6 faces, 18 bids: 2e-4)
WIDE_WINDOW, WIDE_BIDS, WIDE_CELLS = 5, (21, 24), 8_500_000  # 2 v 2, 6 faces, window 5: 8.0 M rows x hands
# ... and never under 3 bids for the abstract method while the tables fit WIDE_CELLS: 3 v 3 with 6
# faces (the one abstract size that had 2; 7.5 M rows x hands, about 320 s of CPU) is exploitable by
# 0.104 +- 0.010 at window 3 against 0.120 +- 0.010 at window 2 (learned responder, window 4) and
# wins 51.0% (50.5-51.5) of rounds against the window-2 policy; nothing wild 0.077 against 0.118
# (issue 26; BENCHMARKS.md)
MIN_ABSTRACT_WINDOW = 3
# ... but where that third bid had to be forced (3 v 3 with 6 faces), the memory grows where it pays
# instead (a context tree, :mod:`dicelab.liars.contexts`): the window-2 policy plus the longer contexts
# a local best response gains most from, up to 4 bids, within a third more rows than the window-3
# table. At 3 v 3 with 6 faces, ones wild, this recipe's tree (126,750 rows, 805 s of CPU) is
# exploitable by at least 0.044 +- 0.010 (learned responder, 5 bids) where window 3 (133,422 rows)
# gives 0.112 and window 4 (887,406 rows) 0.033 (issue 26; BENCHMARKS.md)
TREE = {"tree_longest": 4, "tree_grow": 1.5, "tree_step_iterations": 100}
# ... and the abstract method (every opponent hand, not 16 sampled) where it was measured better on
# both graders in both wild rules: 4 v 4 with 6 faces, window 2 (learned responder, 3 bids: 0.154 ->
# 0.127 ones wild, 0.108 -> 0.069 nothing wild; LBR 0.050 -> 0.037 and 0.048 -> 0.035; about 4 and
# 3 CPU minutes more). The highest-wild rule follows, not measured (issue 26; BENCHMARKS.md). At
# 3 v 4 and 4 v 3 it was better on a plain window with ones wild (0.146 -> 0.112 and 0.156 -> 0.123;
# LBR 0.037 -> 0.004 and 0.025 -> 0.013; 50.8% head to head) but not with nothing wild (0.115 and
# 0.118 against 0.096 and 0.084); those sizes grow a context tree instead (TREE_SIZES, below)
ENUMERATED = frozenset({((4, 4), 6)})
# ... and 3 v 4 and 4 v 3 grow the same context tree on that window of 2 (every hand enumerated).
# Nothing wild, at 3 v 4 the learned responder remembering 6 bids finds 0.005 +- 0.010 where it
# found 0.096 (3 bids) against the sampled window-2 policy the issue was filed against, and 0.060
# against the face-kept window that came between; LBR -0.014; it wins 50.8% (50.3-51.3) head to head
# against the sampled policy and draws against the face-kept one; at 4 v 3 0.006 +- 0.010 where it
# found 0.084, LBR -0.015, 50.9% (50.4-51.4). A cheaper tree (each step doubling the rows at 50
# iterations: 460 s instead of 884) left 0.022 at 3 v 4 and drew head to head there. See issue 26
# and BENCHMARKS.md ("Where item 2 stands")
# With ones wild the same tree at those sizes (1,417 and 1,424 s of CPU) leaves 0.056 and 0.057 +-
# 0.010 where the window-2 recipe left 0.114 and 0.132 (learned responder, window 4; LBR -0.012 and -0.031)
# and wins 50.6% (50.1-51.1) and 51.2% (50.8-51.7) head to head against it: better, not yet within
# 0.02. The highest-wild rule follows, not measured
TREE_SIZES = frozenset({((3, 4), 6), ((4, 3), 6)})
# ... and 4 v 4 grows it with nothing wild alone (grown warm, half the row bound: 275,295 rows, about
# 20 CPU minutes): the learned responder remembering 5 bids finds 0.0124 +- 0.0014 (1,000,000 rounds
# a seat) where it found 0.0703 (3 bids) against the window-2 policy; the full bound (412,559 rows, 30
# minutes) left 0.0115, within the intervals, for half as much time again. With ones wild the same
# tree with 5-bid contexts and 600 iterations at the end (as at 3 v 4; 275,310 rows) leaves 0.0828 +-
# 0.0014 (memory 6) where the window leaves 0.1284 (memory 3), LBR -0.0196 against 0.044, and beats it
# head to head (0.5084 [0.5077, 0.5091]); it takes about 43 CPU minutes. With the ones-wild trees
# at 3 v 4 and 4 v 3 at twice the rows (about 50 each, the longest tasks), both wild rules take about
# 105 minutes on two cores (estimated; 84 measured before), over the hour, and about 55 on a Dask
# cluster of 4 workers, 51 (the longest task) on 6 (BENCHMARKS.md, "Training on a cluster"); with
# every hand enumerated at the 5-dice sizes with a wild face (ENUMERATED_RULES, below) about 1,460 s
# of CPU more: about 117 minutes on two cores, 61 on 4 workers, still 51 on 6; with the trees at 3 v 5
# and 5 v 3 (below) about 3,900 s more: about 146 minutes on two cores, 76 on 4 workers, 58 on 6 and
# 51 (the longest task) on 8 (the library's estimates are 172, 86, 58 and 51; on 2 and 4 workers
# scaled by 0.85, as the last end-to-end run measured against them); with the trees at 4 v 5 and
# 5 v 4 with ones wild (below; estimated 4,700 s each, about 3,000 measured, the longest tasks) the
# estimates are 243, 121, 82 and 78 minutes, about 207, 103, 70 and 66 at that ratio; with nothing
# wild too (estimated 3,400 s each, 1,800 and 2,300 measured) 297, 150, 100 and 78, about 252, 128,
# 85 and 66
# ... and 3 v 5 and 5 v 3 grow it in both wild rules, every hand enumerated (5-bid contexts, a quarter
# of the row bound, warm, 600 at the end; 1,229 and 1,745 s of CPU with ones wild against 161 and 156
# for the window, 948 s each with nothing wild against 93 for 64 hands drawn). The learned responder
# remembering 6 bids (100,000 rounds a seat, +- 0.0044) finds, ones wild, 0.0666 and 0.0732 where it
# finds 0.135 and 0.130 (3 bids) against the enumerated window; nothing wild 0.0513 and 0.0504 where
# it finds 0.130 and 0.111 against 64 drawn; LBR (+- 0.007) -0.008, -0.016, -0.011 and -0.005 against
# 0.032, 0.038, 0.035 and 0.037; the trees win head to head (200,000) 0.5087 [0.5072, 0.5103], 0.5113
# [0.5098, 0.5129], 0.5046 [0.5030, 0.5061] and 0.5064 [0.5049, 0.5080]. Better, not within 0.02
# (BENCHMARKS.md, "Context trees at 3 v 5 and 5 v 3"). With the highest face wild at 3 v 5 (954 s):
# 0.0792 against 0.1400, LBR -0.005 against 0.041, 0.5084 [0.5069, 0.5100]; at 5 v 3 (1,220 s): 0.0826
# against 0.1296, LBR -0.013 against 0.022, 0.5110 [0.5095, 0.5126]
# ... and 4 v 5 and 5 v 4 grow the same tree with a wild face (a quarter of their larger row bound:
# 228,360; 3,561 and 2,825 s of CPU beside other jobs against about 400 for the window): ones wild,
# the trees win head to head 0.5089 [0.5073, 0.5104] and 0.5070 [0.5054, 0.5085] against the
# enumerated window, LBR finds 0.010 and -0.006 against 0.036 and 0.029, and the learned responder
# remembering 6 bids 0.0928 and 0.1171 where remembering 3 it finds 0.1283 and 0.1189 against the
# window (at 5 v 4 a draw, against a responder with twice the memory). The highest-wild rule
# follows ones wild. With nothing wild (1,813 and 2,278 s against about 110 and 143 for 64 drawn)
# the trees win 0.5081 [0.5066, 0.5097] and 0.5082 [0.5067, 0.5098], LBR -0.004 and -0.012 against
# 0.033 and 0.042, learned 0.0303 and 0.0387 against 0.0946 and 0.0966 (2026-12-01)
# (the sizes with a 5-dice seat that grow a tree, all with the same settings: TREE_OVERRIDES)
FIVE_DICE_TREES = frozenset((d, 6, w) for d in ((3, 5), (5, 3), (4, 5), (5, 4)) for w in ("ones", "none", "highest"))
TREE_RULES = frozenset({((4, 4), 6, "none"), ((4, 4), 6, "ones")}) | FIVE_DICE_TREES
TREE_ROWS = 4 / 3  # of the window-3 table's rows
# Per-size changes to TREE, each measured (issue 26; BENCHMARKS.md). ``longest``: contexts up to that
# many bids; ``rows``: a multiple of the row bound; ``warm``: each step of growth continues the one
# before (contexts.warm_start) for WARM_STEP_ITERATIONS, and grows by the factor in rows it really
# holds, instead of starting afresh for TREE's step iterations; ``iterations``: the last step's.
# - 3 v 3, nothing wild, contexts to 5 bids within the same row bound: the learned responder (memory
#   7 bids) finds 0.0104 +- 0.0014 (1,000,000 rounds a seat) where it finds 0.025 against the 4-bid
#   tree; LBR -0.006; 118,675 rows instead of 136,018, 144 s of training instead of 163; it beats the
#   filed window-2 policy, 0.5025 [0.5018, 0.5032]. (Ones wild the 5-bid contexts alone changed
#   nothing: 0.040 against 0.043 at 20,000 rounds.)
# - 3 v 3, ones wild: the 4-bid tree loses from a round's fifth move on (responder.gain_by_move); twice
#   the rows with 5-bid contexts took the bound to 0.0297 +- 0.0014 (255,226 rows, 716 s, cold). Grown
#   warm in the same bound with 600 iterations at the end: 0.0258 +- 0.0014 (256,022 rows, 731 s), LBR
#   -0.029; it beats the filed policy as the cold tree does (0.5082 [0.5075, 0.5089] against 0.5079)
#   and draws with it (0.4996 [0.4989, 0.5003]). With 300 at the end it lost to the cold tree (0.4992
#   [0.4985, 0.4999]); resetting the average at the last step gave 0.0337 (300) and 0.0296 (600).
#   Four times the rows with contexts up to 7 bids (2026-11-30): 0.0183 +- 0.0014 against a responder
#   remembering 9 bids (572,438 rows, 2,923 s on a machine where the twice-the-rows tree took 1,410 s;
#   that tree: 0.0258 at 7 bids), LBR -0.031 +- 0.003, a draw with it head to head (0.5004 [0.4997,
#   0.5011]): item 2's bar met. (Three times with 5-bid contexts: 0.0208; four: 0.0204; three with 7: 0.0194.)
# - 3 v 4 and 4 v 3, ones wild, the same (5-bid contexts, 600 at the end): 0.0557 and 0.0498 +- 0.0014
#   (memory 7) against the cold trees' 0.0636 and 0.0546 (memory 6); it beats the filed policy as they
#   do (0.5150, 0.5155) and draws with them (0.4998, 0.4993); 1,451 and 1,408 s against 1,322 and 1,349.
#   Twice the rows with contexts up to 7 bids, as at 3 v 3 (2026-11-30; 611,581 and 614,645 rows):
#   0.0430 and 0.0392 +- 0.0014 against a responder remembering 9 bids, LBR -0.029 +- 0.003 at both,
#   0.5156 and 0.5157 against the filed policy; about 3,000 s each on the first machine's scale (5,473
#   and 5,573 s on one twice as slow), 4.6 GB at most. Better, not yet within 0.02.
# - 3 v 4 and 4 v 3, nothing wild, grown warm (300 at the end): the same bound as cold (0.0107 and
#   0.0113 +- 0.0014 against 0.0105 and 0.0123, memory 6), LBR -0.012 and -0.009, a draw with the
#   cold trees (0.4998, 0.5000), the filed policy beaten as before (0.5084, 0.5101), in 474 and 465 s
#   of CPU instead of 884 and 878: more than the time the ones-wild trees above take more
TREE_OVERRIDES: dict[tuple[tuple[int, ...], int, str], dict[str, Any]] = {
    ((3, 3), 6, "none"): {"longest": 5},
    ((3, 3), 6, "ones"): {"longest": 7, "rows": 4.0, "warm": True, "iterations": 600},
    ((3, 4), 6, "none"): {"warm": True},
    ((4, 3), 6, "none"): {"warm": True},
    ((3, 4), 6, "ones"): {"longest": 7, "rows": 2.0, "warm": True, "iterations": 600},
    ((4, 3), 6, "ones"): {"longest": 7, "rows": 2.0, "warm": True, "iterations": 600},
    ((4, 4), 6, "none"): {"rows": 0.5, "warm": True},
    ((4, 4), 6, "ones"): {"longest": 5, "rows": 0.5, "warm": True, "iterations": 600},
    **{key: {"longest": 5, "rows": 0.25, "warm": True, "iterations": 600} for key in FIVE_DICE_TREES},
}
WARM_STEP_ITERATIONS = 50
# measured: ns per (row x own hand x opponent hand) per iteration, one core, by wild rule: the pass
# skips what the strategies never reach, less of it with a wild face (train-all from an empty cache,
# 2026-11-29: 0.33-0.43 of 2.5 ns for ones wild at every size over 20 s, 0.20-0.32 for nothing wild),
# with the per-hand pass: the block pass (2026-11-30) runs the largest tables 1.5-1.75x as fast, so
# the estimates run high for the long tasks (BENCHMARKS.md, "Opponent hands a block at a time")
NS_PER_UNIT = {"none": 0.65, "ones": 0.9, "highest": 0.9}
QUICK_WORK = 2e9  # about 1.5 s (5 s when first measured): below it a size is trained on demand
# Opponent hands drawn per update by the sampled method (mccfr) where a seat has 5 dice (252 hands at
# 6 faces), instead of duel.default_samples' 16: at 5 v 5, ones wild, the learned responder (window 2,
# 200,000 rounds a seat) finds 0.1018 +- 0.0031 where it found 0.1487, LBR 0.040 against 0.068, and
# the policy wins 0.5078 [0.5062, 0.5093] head to head; nothing wild 0.0759 against 0.1067, LBR
# 0.030 against 0.063, 0.5066 [0.5050, 0.5081]; at 3 v 5, ones wild,
# 0.1105 against 0.1235, LBR 0.049 against 0.060, 0.504 [0.502, 0.506]. About 2.5 times the
# training (5 v 5 ones wild: about 5 CPU minutes). 128 hands gave 0.0945 at 5 v 5 (LBR 0.025) for twice that
# again and drew head to head with 64 (0.5011 [0.4996, 0.5027]). See BENCHMARKS.md
MORE_SAMPLES = {6: 64}
# ... but with a wild face the sizes with a 5-dice seat at 6 faces enumerate every opponent hand on
# the same window of 2 (the abstract method, as 4 v 4 does), measured better on the learned grader and
# head to head at every size tried, LBR lower or the same
# (2026-11-30; ones wild, 300 iterations, seed 0; learned responder on the policy's own 2 bids, seed 1,
# 200,000 rounds a seat, +- 0.0031; LBR seed 1, 40,000, +- 0.007; head to head seed 3, 200,000):
# learned 0.1105 -> 0.0809 at 3 v 5, 0.1185 -> 0.0839 at 5 v 3, 0.1197 -> 0.0844 at 4 v 5, 0.1160 ->
# 0.0749 at 5 v 4, 0.1018 -> 0.0617 at 5 v 5; LBR 0.049 -> 0.032, 0.041 -> 0.038, 0.046 -> 0.036, 0.037 ->
# 0.029, 0.040 -> 0.012; head to head 0.5035 [0.5019, 0.5050], 0.5044 [0.5029, 0.5060], 0.5053 [0.5037,
# 0.5068], 0.5059 [0.5044, 0.5075], 0.5061 [0.5045, 0.5076]; for 1.5 times the training at 3 v 5 and
# 5 v 3 (161 and 156 s), about twice at 4 v 5 and 5 v 4 (398 and 408 s) and 3 times at 5 v 5 (961 s
# against 316; a seat facing 1 to 3 dice enumerates fewer hands than the 64 it drew: 2 v 5 63 s against
# 69, learned 0.1031 -> 0.0898, LBR 0.019 -> 0.010, head to head 0.5032 [0.5016, 0.5047])
# With nothing wild it draws (3 v 5: learned 0.0894 against 0.0881, LBR 0.032 against 0.035, head to
# head 0.5003 [0.4987, 0.5018]), as the plain window did at 3 v 4, so that rule keeps its 64 hands.
# The highest-wild rule follows ones wild, and 1 v 5, 5 v 1 and 5 v 2 follow 2 v 5, not measured
# (issue 26; BENCHMARKS.md, "Every opponent hand at the 5-dice sizes")
ENUMERATED_RULES = frozenset(((a, b), 6, w) for a in range(1, 6) for b in range(1, 6) if 5 in (a, b)
                             for w in ("ones", "highest"))
# every size a 5-dice duel table meets, float16, counted at the trees' row bounds: 724 MiB at 6 faces
# with ones wild (4 v 4 68 MiB, 3 v 4 and 4 v 3 115 each, 3 v 3 76, 4 v 5 and 5 v 4 82 each, 3 v 5
# and 5 v 3 42 each) and 551 with nothing wild (4 v 4 68, 4 v 5 and 5 v 4 82 each, 3 v 5 and 5 v 3
# 42 each): 912 MiB keeps all 25 within the 4/5 usable_sizes allows. (Each tree that grew raised it; the history is in
# BENCHMARKS.md: 528 before 3 v 4 and 4 v 3 took twice the rows with ones wild, 672 before the trees
# at 3 v 5 and 5 v 3, 752 before those at 4 v 5 and 5 v 4.)
CACHE_MIB = 912
_policies = bounded_cache("liars duel policies", CACHE_MIB)


def recipe(duel: Duel) -> dict[str, Any]:
    return dict(_recipe(duel))


@lru_cache(maxsize=1024)
def _recipe(duel: Duel) -> tuple[tuple[str, Any], ...]:
    """The one training recipe of ``duel`` (what the cache entry is keyed by): the solver's default
    method (the abstract one at the sizes in :data:`ENUMERATED` and the sizes and wild rules in
    :data:`ENUMERATED_RULES`), its default window when that is quick work, else at most
    :data:`MAX_WINDOW` bids (:data:`WIDE_WINDOW` for the abstract method with :data:`WIDE_BIDS` bids;
    the abstract method at least :data:`MIN_ABSTRACT_WINDOW` where its tables fit
    :data:`WIDE_CELLS`); the sampled one draws :data:`MORE_SAMPLES` hands where a seat has 5 dice."""
    grown = (duel.dice, duel.faces) in TREE_SIZES or (duel.dice, duel.faces, duel.wild) in TREE_RULES
    enumerated = (duel.dice, duel.faces) in ENUMERATED or (duel.dice, duel.faces, duel.wild) in ENUMERATED_RULES
    method = "abstract" if enumerated or grown else default_method(duel)
    samples = default_samples(duel) if method != "abstract" else 0
    if samples and duel.faces in MORE_SAMPLES and max(duel.dice) == 5:
        samples = MORE_SAMPLES[duel.faces]
    window = default_window(duel)
    if _work(duel, samples, dag_rows(duel.n_bids, window)) > QUICK_WORK:
        if method == "abstract" and WIDE_BIDS[0] <= duel.n_bids <= WIDE_BIDS[1]:
            window = min(default_window(duel, WIDE_CELLS), WIDE_WINDOW)
        else:
            window = min(window, MAX_WINDOW)
    tree: dict[str, int | float] = {}
    if grown:  # on the window of 2, as at 3 v 3
        window = MIN_ABSTRACT_WINDOW - 1
        tree = _tree(duel, MIN_ABSTRACT_WINDOW)
    elif method == "abstract" and window < MIN_ABSTRACT_WINDOW:
        wide = max(window, min(default_window(duel, WIDE_CELLS), MIN_ABSTRACT_WINDOW))
        if wide > window and wide < TREE["tree_longest"]:
            tree = _tree(duel, wide)
        else:
            window = wide
    return tuple({"dice": list(duel.dice), "faces": duel.faces, "wild": duel.wild, "method": method,
                  "window": window, "iterations": ITERATIONS, "seed": 0, "samples": samples,
                  "recipe": RECIPE_VERSION, **tree}.items())


def _tree(duel: Duel, window: int) -> dict[str, Any]:
    """The context tree's settings: :data:`TREE_ROWS` times the rows of the ``window`` table, and
    :data:`TREE`, as :data:`TREE_OVERRIDES` changes them for the duel (a warm start is named in the
    recipe only where it is used, so the other trees keep their cache entries)."""
    o = TREE_OVERRIDES.get((duel.dice, duel.faces, duel.wild), {})
    rows = int(dag_rows(duel.n_bids, window) * TREE_ROWS * o.get("rows", 1.0))
    tree = {"tree_rows": rows, **TREE, "tree_longest": o.get("longest", TREE["tree_longest"])}
    if o.get("warm"):
        tree.update(tree_step_iterations=WARM_STEP_ITERATIONS, tree_warm=True)
    if "iterations" in o:  # the last step's
        tree["iterations"] = o["iterations"]
    return tree


def _work(duel: Duel, samples: int, window_rows: int, tree: dict[str, Any] | None = None) -> float:
    """Iterations x rows x own hands x opponent hands (or samples), for a window table of
    ``window_rows`` rows (both seats) or a context ``tree`` (``tree_rows``, ``tree_grow``,
    ``tree_step_iterations``). A tree trains its last step at full length and the earlier ones (a
    geometric series of smaller tables, ``rows / (grow - 1)`` rows in all) at its step iterations,
    plus one regret pass a step on a table about ten times the step's (counted as ten iterations)."""
    h = [comb(d + duel.faces - 1, d) for d in duel.dice]
    opp = [samples or h[1], samples or h[0]]
    one = (h[0] * opp[0] + h[1] * opp[1]) / 2
    if not tree:
        return float(ITERATIONS * window_rows * one)
    rows, g = float(tree["tree_rows"]), float(tree["tree_grow"])
    steps = rows / (g - 1.0) * float(tree["tree_step_iterations"])  # the rows of the steps before the last
    last = float(tree.get("iterations", ITERATIONS))
    return float((last * rows + steps + 10.0 * rows / (g - 1.0)) * one)


@lru_cache(maxsize=1024)
def table_bytes(duel: Duel) -> int:
    """Bytes of the policy's two strategy tables in memory (float16; without building the DAG)."""
    r = recipe(duel)
    rows = r.get("tree_rows") or dag_rows(duel.n_bids, r["window"])  # both seats' rows together, about half each
    return int(rows / 2 * sum(comb(d + duel.faces - 1, d) for d in duel.dice) * 2)


def _compact(p: DuelPolicy) -> DuelPolicy:
    """The policy as kept in memory: float16 tables, no training state."""
    p.strategy = (p.strategy[0].astype(np.float16), p.strategy[1].astype(np.float16))
    p.state = None
    return p


@lru_cache(maxsize=1024)
def work(duel: Duel) -> float:
    """Estimated work of the recipe: iterations x rows x own hands x opponent hands (or samples)."""
    r = recipe(duel)
    return _work(duel, r["samples"], dag_rows(duel.n_bids, r["window"]), r if r.get("tree_rows") else None)


def estimated_seconds(duel: Duel) -> float:
    """Training time estimated from :func:`work` (on the project's 2-core machine, one core)."""
    return work(duel) * NS_PER_UNIT[duel.wild] * 1e-9


def quick(duel: Duel) -> bool:
    """Whether ``duel`` trains on demand (estimated under :data:`QUICK_WORK`)."""
    return work(duel) <= QUICK_WORK


def _key(duel: Duel) -> tuple[Any, ...]:
    return (duel.dice, duel.faces, duel.wild)


@lru_cache(maxsize=1024)
def _cache_name(duel: Duel) -> str:
    from dicelab.core.store import cache_key

    return cache_key(POLICY_KIND, recipe(duel))


def _paths(duel: Duel) -> tuple[Any, Any]:
    from dicelab.core.store import cache_dir, table_paths

    return table_paths(cache_dir() / _cache_name(duel))


def on_disk(duel: Duel) -> bool:
    """Whether the policy of ``duel`` is in the disk cache (not verified: :func:`policy` does that);
    half an entry is reported and removed (:func:`dicelab.core.store.entry_on_disk`)."""
    from dicelab.core.store import entry_on_disk

    return entry_on_disk(POLICY_KIND, recipe(duel))


def available(duel: Duel) -> bool:
    """In memory, on disk, or quick to train."""
    return _key(duel) in _policies or quick(duel) or on_disk(duel)


def in_memory(duel: Duel) -> bool:
    return _key(duel) in _policies


class NotTrained(DicelabError):
    """The duel's policy is not on disk and too big to train on demand."""


def _to_arrays(p: DuelPolicy) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    return p.to_arrays(with_state=False)


def _from_arrays(duel: Duel) -> Callable[[dict[str, np.ndarray], dict[str, Any]], DuelPolicy]:
    def build(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> DuelPolicy:
        p = DuelPolicy.from_arrays(arrays, meta)
        r = recipe(duel)
        require(p.duel == duel and p.window == r["window"] and p.dag.longest <= r.get("tree_longest", 0)
                and not p.dag.older and not p.dag.first
                and sum(p.dag.rows) <= r.get("tree_rows", sum(p.dag.rows)), "the entry holds another duel's policy")
        return p

    return build


def _train(duel: Duel, progress: bool = False, checkpoint: bool = False) -> DuelPolicy:
    r = recipe(duel)
    if r.get("tree_rows"):  # a context tree trains in steps from scratch: no checkpoint
        from dicelab.liars.contexts import train_contexts

        pol = train_contexts(duel, max_rows=int(r["tree_rows"]), window=r["window"], longest=int(r["tree_longest"]),
                             grow=float(r["tree_grow"]), iterations=r["iterations"], method=r["method"],
                             seed=r["seed"], samples=r["samples"] or None,
                             step_iterations=int(r["tree_step_iterations"]), warm=bool(r.get("tree_warm")),
                             progress=progress)
        return _compact32(pol)
    resume, cb, every = None, None, 0
    if checkpoint:
        part = _checkpoint_path(duel)
        try:
            resume = DuelPolicy.load(str(part))
            require(resume.duel == duel and resume.state is not None and resume.window == r["window"]
                    and resume.dag.contexts is None and not resume.dag.older and not resume.dag.first
                    and resume.meta.get("method") == r["method"] and resume.meta.get("seed") == r["seed"]
                    and int(resume.meta.get("iterations", 0)) < r["iterations"], "a stale checkpoint")
        except DicelabError:
            resume = None
        every = 50

        def cb(pol: DuelPolicy, t: int) -> bool:
            pol.save(str(part), with_state=True)
            return False
    done = 0 if resume is None else int(resume.meta["iterations"])
    pol = train_duel(duel, iterations=r["iterations"] - done, seed=r["seed"], window=r["window"],
                     method=r["method"], resume=resume, progress=progress, callback=cb, check_every=every,
                     samples=r["samples"] or None)
    return _compact32(pol)


def _compact32(pol: DuelPolicy) -> DuelPolicy:
    pol.strategy = (pol.strategy[0].astype(np.float32), pol.strategy[1].astype(np.float32))
    pol.state = None
    return pol


def _checkpoint_path(duel: Duel) -> Any:
    from dicelab.core.store import cache_dir

    return cache_dir() / (_cache_name(duel) + "-partial")


def _drop_checkpoint(duel: Duel) -> None:
    from dicelab.core.store import table_paths

    try:
        for f in table_paths(_checkpoint_path(duel)):
            f.unlink(missing_ok=True)
    except OSError:
        pass


def _through_cache(duel: Duel, compute: Callable[[], DuelPolicy]) -> DuelPolicy:
    from dicelab.core.store import cached

    return cached(POLICY_KIND, recipe(duel), compute, _to_arrays, _from_arrays(duel))


def policy(duel: Duel, train: bool = True) -> DuelPolicy | None:
    """The policy of ``duel``: from memory, else the disk cache, else trained now when quick (and
    ``train``); None when it is not available. A damaged disk entry is reported, deleted, and
    trained again when quick."""
    hit = _policies.get(_key(duel))
    if hit is not None:
        return hit
    if not (on_disk(duel) or (train and quick(duel))):
        return None

    def compute() -> DuelPolicy:
        if not (train and quick(duel)):
            raise NotTrained(f"the {duel.dice[0]} v {duel.dice[1]} policy is not trained; run dicelab liars train-all")
        return _train(duel)

    try:
        p = _policies.get_or_build(_key(duel), lambda: _compact(_through_cache(duel, compute)))
    except NotTrained:
        return None
    return p


def duel_for(dice: tuple[int, int], faces: int, wild: str) -> Duel | None:
    """The duel of a two-player round (opener's dice first), or None beyond 5 dice a seat."""
    if not (1 <= min(dice) and max(dice) <= MAX_DUEL_DICE):
        return None
    return Duel((int(dice[0]), int(dice[1])), faces, wild)


def usable_sizes(dice: int, faces: int, wild: str) -> list[tuple[int, int]]:
    """The duel sizes (opener's dice, other's) a game with ``dice`` per player may reach whose
    policies are available and fit the policy cache together (at most 4/5 of it): the starting
    size ``(dice, dice)`` first (every two-player game plays it), then the rest smallest first."""
    m = min(dice, MAX_DUEL_DICE)
    duels = sorted((Duel((a, b), faces, wild) for a in range(1, m + 1) for b in range(1, m + 1)),
                   key=lambda d: (d.dice != (m, m), table_bytes(d), d.dice))
    out, used = [], 0
    for d in duels:
        if not available(d):
            continue
        size = table_bytes(d)
        if used + size > 0.8 * _policies.budget:
            continue  # a smaller one may still fit
        used += size
        out.append(d.dice)
    return sorted(out)


# ---- export / install for a worker process (bytes, no pickle)


def export(duels: list[Duel]) -> bytes:
    """Every available policy of ``duels`` (trained or loaded here) as ``.npz`` bytes."""
    arrays: dict[str, np.ndarray] = {}
    metas = []
    for d in duels:
        p = policy(d)
        if p is None:
            continue
        a, meta = _to_arrays(p)
        n = len(metas)
        metas.append(meta)
        arrays.update({f"p{n}_{k}": v for k, v in a.items()})
    buf = io.BytesIO()
    np.savez(buf, meta=np.frombuffer(json.dumps(metas).encode(), dtype=np.uint8), **arrays)
    return buf.getvalue()


def install(data: bytes) -> list[tuple[int, int]]:
    """Put what :func:`export` returned into the in-memory cache; returns the duel sizes."""
    out = []
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        metas = json.loads(z["meta"].tobytes().decode())
        for n, meta in enumerate(metas):
            p = DuelPolicy.from_arrays({k[len(f"p{n}_"):]: z[k] for k in z.files if k.startswith(f"p{n}_")}, meta)
            _policies.put(_key(p.duel), _compact(p))
            out.append(p.duel.dice)
    return out


# ---- training every size ahead of time


def all_duels(max_dice: int, faces: int, wild: str) -> list[Duel]:
    require(isinstance(max_dice, int) and 1 <= max_dice <= MAX_DUEL_DICE,
            f"--max-dice must be from 1 to {MAX_DUEL_DICE}, got {max_dice}")
    return [Duel((a, b), faces, wild) for a in range(1, max_dice + 1) for b in range(1, max_dice + 1)]


def train_one_task(params: dict[str, Any]) -> dict[str, Any]:
    """One size of :func:`train_all` on a backend: the policy's arrays and metadata back."""
    d = params["duel"]
    duel = Duel(tuple(d["dice"]), int(d["faces"]), str(d["wild"]))
    t0 = time.perf_counter()
    p = _train(duel)
    arrays, meta = _to_arrays(p)
    return {"seconds": time.perf_counter() - t0, "meta": json.dumps(meta), **arrays}


def train_all(max_dice: int, faces: int, wild: str | Sequence[str], progress: bool = False,
              backend: dict[str, Any] | None = None, say: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Train (or find in the cache) every duel up to ``max_dice`` v ``max_dice`` with each wild rule
    of ``wild`` (one or several), smallest work first (on a ``backend``, largest first over every rule:
    the workers then finish together); a size already cached is skipped, and a size cut short resumes
    from its checkpoint (every 50 iterations). Returns one row per size and rule: dice, wild, recipe,
    seconds, whether cached."""
    wilds = [wild] if isinstance(wild, str) else list(wild)
    require(len(wilds) > 0, "name at least one wild rule")
    require(len(set(wilds)) == len(wilds),
            f"--wild names a rule twice: {','.join(wilds)!r}; name each of none, ones, highest once")
    duels = sorted((d for w in wilds for d in all_duels(max_dice, faces, w)),
                   key=lambda d: (estimated_seconds(d), d.dice, d.wild))
    rows: list[dict[str, Any]] = []
    todo = []
    for d in duels:
        if on_disk(d) and policy(d, train=False) is not None:
            rows.append({"dice": list(d.dice), **_row(d), "seconds": 0.0, "cached": True})
        else:
            todo.append(d)
    if backend is not None and todo:
        from dicelab.core.backends import Task
        from dicelab.core.jobs import run_job

        # the longest first on a backend (workers take tasks in order: the last task to start is a
        # short one, so the workers finish together; smallest first, 3 v 3 ones wild's tree alone
        # would start after the other trees and add its whole time to the wall time)
        todo.sort(key=lambda d: (-estimated_seconds(d), d.dice, d.wild))
        # the recipe's cache name in the key: a --store written under another recipe is not reused
        tasks = [Task(f"liars-duel-{d.dice[0]}v{d.dice[1]}-{faces}-{d.wild}-{_cache_name(d).rsplit('-', 1)[-1]}",
                      {"duel": d.to_dict()}) for d in todo]
        results = run_job(train_one_task, tasks, "duel policies", backend["backend"], backend.get("address"),
                          backend.get("workers"), backend.get("store"), progress)
        for d, res in zip(todo, results, strict=True):
            meta = json.loads(res["meta"])
            arrays = {k: np.asarray(res[k]) for k in ("s0", "s1", "contexts") if k in res}
            p = DuelPolicy.from_arrays(arrays, meta)
            _through_cache(d, lambda p=p: p)
            rows.append({"dice": list(d.dice), **_row(d), "seconds": float(res["seconds"]), "cached": False})
        return sorted(rows, key=lambda r: (r["wild"], r["dice"]))
    for n, d in enumerate(todo):
        if say is not None:
            say(f"[{n + 1}/{len(todo)}] {d.dice[0]} v {d.dice[1]}, {_WILD_WORDS[d.wild]}: {recipe(d)['method']}, window "
                f"{recipe(d)['window']}, about {estimated_seconds(d):.0f} s")
        t0 = time.perf_counter()
        _policies.discard(_key(d))
        p = _through_cache(d, lambda d=d: _train(d, progress=progress, checkpoint=True))
        _drop_checkpoint(d)
        del p
        rows.append({"dice": list(d.dice), **_row(d), "seconds": time.perf_counter() - t0, "cached": False})
    return sorted(rows, key=lambda r: (r["wild"], r["dice"]))


_WILD_WORDS = {"none": "nothing wild", "ones": "ones wild", "highest": "the highest face wild"}


def _row(d: Duel) -> dict[str, Any]:
    r = recipe(d)
    return {"wild": d.wild, "method": r["method"], "window": r["window"], "iterations": r["iterations"],
            **({"tree_rows": r["tree_rows"], "tree_longest": r["tree_longest"]} if r.get("tree_rows") else {}),
            "quick": quick(d), "estimated_seconds": round(estimated_seconds(d), 1)}


__all__ = ["available", "duel_for", "export", "install", "policy", "quick", "recipe", "train_all",
           "usable_sizes"]
