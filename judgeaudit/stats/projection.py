"""What more items would show: the interval a closed-form method gives when every count of the observed
data grows by the same factor (the observed rates kept), for the card's "what more data would buy".

`interval_scaled(method, tally, factor)` recomputes the interval named by `method` (`stats.defaults`) on
the counts of `tally` times `factor` (fractional counts: the score intervals and Clopper-Pearson's beta
quantiles take them). The exact tests' widening to 0 (McNemar, Fisher) is left out: at the item counts
a projection looks at it rarely matters, and the projection is a plan, not a claim. Bootstrapped figures
have no tally and no projection.
"""

from __future__ import annotations

import numpy as np

from judgeaudit.stats.defaults import (
    CORRECTED_METHOD,
    DEFAULT_CONFIDENCE,
    PAIRED_SCORE_METHOD,
    RATE_METHOD,
    SCORE_METHOD,
    UNPAIRED_SCORE_METHOD,
)
from judgeaudit.stats.exact import clopper_pearson, score_interval, two_sample_score_interval
from judgeaudit.stats.results import Tally

PROJECTED_METHODS: tuple[str, ...] = (
    RATE_METHOD,
    SCORE_METHOD,
    PAIRED_SCORE_METHOD,
    UNPAIRED_SCORE_METHOD,
    CORRECTED_METHOD,
)


def projectable(method: str, tally: Tally | None) -> bool:
    """Whether `interval_scaled` can recompute this interval (a closed form with its counts)."""
    return (
        tally is not None and method in PROJECTED_METHODS and all(sum(r) > 0 for r in tally.counts)
    )


def interval_scaled(
    method: str, tally: Tally, factor: float, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """(low, high) of `method` on the counts of `tally` times `factor` (an error for a method without a tally)."""
    if not projectable(method, tally):
        raise ValueError(f"no projection for the interval method {method!r} without counts")
    if factor <= 0:
        raise ValueError(f"the scale factor must be positive, got {factor}")
    rows = [np.asarray(r, dtype=float) * factor for r in tally.counts]
    if method == RATE_METHOD:
        lo, hi = clopper_pearson(rows[0][-1], rows[0].sum(), confidence)
    elif method in (SCORE_METHOD, PAIRED_SCORE_METHOD):
        lo, hi = score_interval(rows[0][None, :], tally.support, confidence)
    else:  # two samples of 0/1 outcomes (or of values in [0, 1], summed)
        (f1, s1), (f2, s2) = rows[0], rows[1]
        lo, hi = two_sample_score_interval(s1, f1 + s1, s2, f2 + s2, confidence)
    return float(np.ravel(lo)[0]), float(np.ravel(hi)[0])
