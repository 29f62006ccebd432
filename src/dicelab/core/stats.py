"""Honest statistics for simulated win rates (seed 002, sections 2.5 and 3.3).

A simulated game between A and B is a Bernoulli trial: A wins with an unknown probability p.
After n games with w wins the estimate is p_hat = w / n, and

* :func:`sample_size` plans n so that a confidence interval has half-width at most ``margin``:
  n = ceil(z^2 p (1 - p) / margin^2) with the worst case p = 1/2, z the two-sided normal quantile.
  For margin 0.025 at 95% confidence, z = 1.959964 and n = ceil(1536.6) = 1537.
* :func:`wilson_interval` is the Wilson score interval, good even near 0 and 1.
* :func:`exact_interval` is the Clopper-Pearson interval from the beta distribution: never too
  narrow, at the cost of being a little wide.
* :func:`compare` tests "A is better than B" (H0: p = 1/2 against H1: p > 1/2) with an exact
  one-sided binomial test and reports the p-value, an interval and a verdict.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

from dicelab.core.errors import DicelabError, require


def _z(confidence: float) -> float:
    require(0.0 < confidence < 1.0, f"confidence must lie strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _check_counts(successes: int, trials: int) -> None:
    require(trials >= 1, f"the number of games must be at least 1, got {trials}")
    require(0 <= successes <= trials, f"wins must lie between 0 and games={trials}, got {successes}")


def sample_size(margin: float, confidence: float = 0.95, p: float = 0.5) -> int:
    """Games needed for a ``confidence`` interval of half-width ``margin`` (worst case p = 1/2)."""
    require(0.0 < margin < 0.5, f"margin must lie strictly between 0 and 0.5, got {margin}")
    require(0.0 < p < 1.0, f"p must lie strictly between 0 and 1, got {p}")
    z = _z(confidence)
    return math.ceil(z * z * p * (1.0 - p) / (margin * margin) - 1e-9)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion."""
    _check_counts(successes, trials)
    z = _z(confidence)
    n = float(trials)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def exact_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Clopper-Pearson ("exact") interval for a binomial proportion."""
    from scipy import stats as _st  # imported here: scipy.stats takes a second to load

    _check_counts(successes, trials)
    _z(confidence)
    alpha = 1.0 - confidence
    lo = 0.0 if successes == 0 else float(_st.beta.ppf(alpha / 2, successes, trials - successes + 1))
    hi = 1.0 if successes == trials else float(_st.beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return lo, hi


def interval(
    successes: int, trials: int, confidence: float = 0.95, method: str = "wilson"
) -> tuple[float, float]:
    """A confidence interval by ``method``: ``"wilson"`` or ``"exact"`` (Clopper-Pearson)."""
    if method == "wilson":
        return wilson_interval(successes, trials, confidence)
    if method == "exact":
        return exact_interval(successes, trials, confidence)
    raise DicelabError(f"unknown interval method {method!r}; use 'wilson' or 'exact'")


@dataclass(frozen=True)
class Comparison:
    """The result of testing whether A beats B more than half the time."""

    wins: int
    games: int
    rate: float
    p_value: float
    ci_low: float
    ci_high: float
    confidence: float
    verdict: str

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def compare(wins: float, games: int, confidence: float = 0.95) -> Comparison:
    """Exact one-sided binomial test of H0: P(A wins) = 1/2 against H1: P(A wins) > 1/2.

    ``wins`` may be a half-integer when drawn games are scored 1/2; it is rounded down, which
    can only make the test more cautious.
    """
    from scipy import stats as _st  # imported here: scipy.stats takes a second to load

    w = int(math.floor(wins))
    _check_counts(w, games)
    p_value = float(_st.binomtest(w, games, 0.5, alternative="greater").pvalue)
    lo, hi = wilson_interval(w, games, confidence)
    alpha = 1.0 - confidence
    if p_value < alpha:
        verdict = "A is better than B"
    elif float(_st.binomtest(w, games, 0.5, alternative="less").pvalue) < alpha:
        verdict = "B is better than A"
    else:
        verdict = "no significant difference"
    return Comparison(w, games, w / games, p_value, lo, hi, confidence, verdict)
