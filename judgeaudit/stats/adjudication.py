"""Statistics of an expert adjudication of a judge's errors: exact shares, and the judge's accuracy
if the errors the expert sided with the judge on are label errors.

- `exact_share(k, n)`: k of n with the two-sided Clopper-Pearson interval (30 of 30 at 95%:
  [0.025^(1/30), 1] = [0.8843, 1]); n = 0 is `no_items` with NaN ends, never 0 or 1.
- `relabelled_accuracy(correct, n, errors, sided, adjudicated)`: a run of n items has `correct`
  verdicts equal to gold and `errors` decided wrong ones (a/b/tie); the expert re-judged
  `adjudicated` of those errors and sided with the judge's own (a or b) verdict on `sided`. Were
  those label errors, the judge would be right on a share q of its errors, so its strict accuracy
  would be (correct + q errors) / n. The estimate takes q = sided / adjudicated, the ends take the
  ends of q's Clopper-Pearson interval: a bound that carries the uncertainty of having
  adjudicated only some errors (the measured accuracy itself is a fixed count of the run).
"""

from __future__ import annotations

import math

from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE, RATE_METHOD
from judgeaudit.stats.exact import clopper_pearson
from judgeaudit.stats.results import STATUS_NO_ITEMS, STATUS_OK, Interval

RELABEL_METHOD = "label-error bound (Clopper-Pearson share of the adjudicated errors)"


def exact_share(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """k of n as a share with its exact (Clopper-Pearson, two-sided) interval."""
    if not 0 <= k <= n:
        raise ValueError(f"a share needs 0 <= k <= n, got {k} of {n}")
    if n == 0:
        nan = math.nan
        return Interval(
            nan, nan, nan, confidence, RATE_METHOD, None, None, 0, status=STATUS_NO_ITEMS
        )
    low, high = clopper_pearson(k, n, confidence)
    return Interval(k / n, float(low), float(high), confidence, RATE_METHOD, None, None, n)


def relabelled_accuracy(
    correct: int,
    n: int,
    errors: int,
    sided: int,
    adjudicated: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """The judge's strict accuracy were the errors the expert sided with it on label errors
    (see the module docstring); `no_items` when the run or the adjudicated errors are empty."""
    if not (0 <= correct <= n and 0 <= errors <= n - correct and 0 <= sided <= adjudicated):
        raise ValueError(
            f"inconsistent counts: {correct} correct and {errors} errors of {n}, "
            f"{sided} sided of {adjudicated} adjudicated"
        )
    if adjudicated > errors:
        raise ValueError(f"{adjudicated} adjudicated errors but the run has only {errors}")
    if n == 0 or adjudicated == 0:
        nan = math.nan
        return Interval(
            nan, nan, nan, confidence, RELABEL_METHOD, None, None, n, status=STATUS_NO_ITEMS
        )
    q = exact_share(sided, adjudicated, confidence)
    return Interval(
        (correct + q.estimate * errors) / n,
        (correct + q.low * errors) / n,
        (correct + q.high * errors) / n,
        confidence,
        RELABEL_METHOD,
        None,
        None,
        n,
        status=STATUS_OK,
    )
