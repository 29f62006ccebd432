"""Statistics helpers against scipy's own implementations and the seed's sample size."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from dicelab.core.errors import DicelabError
from dicelab.core import stats


def test_sample_size_seed_002():
    # seed 002, section 2.5: margin 0.025 at 95% confidence needs 1537 games
    assert stats.sample_size(0.025, 0.95) == 1537
    assert stats.sample_size(0.01, 0.95) == 9604


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (50, 100), (999, 1000), (1537, 1537)])
def test_intervals_match_scipy(k, n):
    for method in ("wilson", "exact"):
        ours = stats.interval(k, n, 0.95, method)
        ref = binomtest(k, n).proportion_ci(0.95, method=method)
        assert ours == pytest.approx((ref.low, ref.high), abs=1e-9)


def test_compare_verdicts():
    assert stats.compare(600, 1000).verdict == "A is better than B"
    assert stats.compare(400, 1000).verdict == "B is better than A"
    c = stats.compare(505, 1000)
    assert c.verdict == "no significant difference"
    assert c.p_value == pytest.approx(binomtest(505, 1000, alternative="greater").pvalue)


@pytest.mark.parametrize("call", [lambda: stats.sample_size(0), lambda: stats.wilson_interval(5, 3),
                                  lambda: stats.interval(1, 2, 1.5), lambda: stats.compare(1, 0),
                                  lambda: stats.interval(1, 2, method="bayes")])
def test_bad_input(call):
    with pytest.raises(DicelabError):
        call()
