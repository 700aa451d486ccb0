"""What an interval is, whatever computed it: `Interval`, `PairedDifference`, `UnpairedDifference`,
the statuses of a statistic without a number, and the one rule for a claim.

A claim (a difference is significant, an interval excludes chance, a gate decides) rests on the
interval alone, at any n: the interval must have two finite ends with low < high (a point interval,
which the percentile bootstrap gives when every resample agrees, supports no claim) and status
`ok`. The closed-form methods (`stats.exact`) never give a point interval on one item or more.

Statuses (`status`): `ok`; `no_items`; `all_invalid`, `all_error` or `no_answers` (every item
invalid and/or error: no number for the metrics of answers, NaN); `no_comparable_items` (every
item left out, e.g. no item valid in both configurations of a flip rate); `undefined` (the
statistic has no value on these items, e.g. accuracy without ties when no item was decided).
`excluded` counts the items left out of a statistic (NaN outcomes); `n` counts every item.

`method` names how the interval was computed; `resamples` and `seed` are set for the bootstrap
and None for the closed-form methods.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.metrics import Metric, MetricFn, applicable

STATUS_OK = "ok"
STATUS_NO_ITEMS = "no_items"
STATUS_ALL_INVALID = "all_invalid"
STATUS_ALL_ERROR = "all_error"
STATUS_NO_ANSWERS = "no_answers"  # every item invalid or error, both present
STATUS_NO_COMPARABLE = "no_comparable_items"  # every item left out (NaN outcomes)
STATUS_UNDEFINED = "undefined"  # the statistic is undefined on these items (e.g. no decided item)
NO_ANSWER_STATUSES: tuple[str, ...] = (STATUS_ALL_INVALID, STATUS_ALL_ERROR, STATUS_NO_ANSWERS)
NAN = float("nan")


def proper(low: float, high: float) -> bool:
    """Whether [low, high] can support a claim: both ends numbers, low < high (not a point)."""
    return bool(not np.isnan(low) and not np.isnan(high) and low < high)


@dataclass(frozen=True)
class Tally:
    """What a closed-form interval was computed from: items at each point of `support`, one row per
    sample (one row for a rate or a paired difference, two for a two-sample difference)."""

    support: tuple[float, ...]
    counts: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class Interval:
    """A point estimate with its interval and everything needed to reproduce it."""

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    resamples: int | None
    seed: int | None
    n: int
    undefined: int = 0  # bootstrap replicates on which the statistic was undefined (left out)
    status: str = STATUS_OK
    excluded: int = 0  # items left out of the statistic (it is computed over n - excluded)
    tally: Tally | None = None  # the counts behind a closed-form interval (`stats.projection`)

    @property
    def degenerate(self) -> bool:
        """Whether the interval is a single point (every resample gave the same value) or missing."""
        return not proper(self.low, self.high)

    @property
    def conclusive(self) -> bool:
        """Whether the interval may support a claim: status ok and a proper interval (at any n)."""
        return self.status == STATUS_OK and not self.degenerate

    def excludes(self, value: float) -> bool:
        """Whether the interval excludes `value` (e.g. chance), claimed only when `conclusive`."""
        return self.conclusive and (self.low > value or self.high < value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (with `conclusive`)."""
        return {**asdict(self), "conclusive": self.conclusive}


@dataclass(frozen=True)
class PairedDifference:
    """Difference (x - y) of one metric on the same items, its interval and two-sided p-value.

    `significant` is true exactly when the interval excludes 0 (and is proper), and then
    `p_value` < 1 - confidence; `test` names the test behind `p_value`.
    """

    estimate: float
    low: float
    high: float
    p_value: float
    significant: bool
    confidence: float
    method: str
    resamples: int | None
    seed: int | None
    n: int
    undefined: int = 0
    status: str = STATUS_OK
    excluded: int = 0
    note: str | None = None  # why significance is not claimed, when it is not
    test: str | None = None
    tally: Tally | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class UnpairedDifference:
    """Difference mean(x) - mean(y) of two independent groups, its interval and two-sided p-value
    (`significant` exactly when the interval excludes 0, as for `PairedDifference`)."""

    estimate: float
    low: float
    high: float
    p_value: float
    significant: bool
    confidence: float
    method: str
    resamples: int | None
    seed: int | None
    n_x: int
    n_y: int
    undefined: int = 0
    note: str | None = None
    test: str | None = None
    status: str = STATUS_OK
    tally: Tally | None = None

    @property
    def n(self) -> int:
        """Items in both groups."""
        return self.n_x + self.n_y

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


class Bounded(Protocol):
    """What `excludes_from_above` reads of an interval-like result (Interval, differences, ratios)."""

    @property
    def low(self) -> float: ...  # noqa: D102
    @property
    def high(self) -> float: ...  # noqa: D102
    @property
    def n(self) -> int: ...  # noqa: D102


def items_behind(value: Bounded) -> int:
    """Items an interval rests on: `n` less the items left out of the statistic (`excluded`)."""
    return int(value.n) - int(getattr(value, "excluded", 0))


def excludes_from_above(value: Bounded, x: float) -> bool:
    """Whether the interval lies above `x` as a claim may say: status ok, a proper interval (two
    numbers, low < high; a point interval is the bootstrap's artefact) and its lower end above `x`."""
    low, high = float(value.low), float(value.high)
    if getattr(value, "status", STATUS_OK) != STATUS_OK or not proper(low, high):
        return False
    return low > x


def significance_note(low: float, high: float) -> str | None:
    """Why a significance claim is withheld whatever the ends (no interval, a point interval), else None."""
    if np.isnan(low) or np.isnan(high):
        return "no interval (undefined)"
    if not low < high:
        return "degenerate interval (every resample gives the same value)"
    return None


def n_items(outcomes: Mapping[str, ArrayLike]) -> int:
    """The item count of outcome columns (they must agree)."""
    sizes = {np.asarray(v).shape[-1] for v in outcomes.values()}
    if len(sizes) != 1:
        raise ValueError(f"outcome columns differ in length: {sorted(sizes)}")
    return int(sizes.pop())


def excluded_items(outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric) -> int:
    """Items the metric leaves out (NaN in one of its columns)."""
    cols = metric.columns if isinstance(metric, Metric) else tuple(outcomes)
    if not cols:
        return 0
    return int((~applicable({c: outcomes[c] for c in cols})).sum())


def answer_status(
    outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric, excluded: int = 0
) -> str:
    """`ok`, or why the metric has no value on these items (no items, no valid answer, none comparable)."""
    n = n_items(outcomes) if outcomes else 0
    if n == 0:
        return STATUS_NO_ITEMS
    measures_failures = isinstance(metric, Metric) and bool(
        {"invalid", "error"} & set(metric.columns)
    )
    if (not isinstance(metric, Metric) or metric.of_answers) and not measures_failures:
        zeros = np.zeros(n)
        invalid = np.asarray(outcomes.get("invalid", zeros), dtype=float)
        error = np.asarray(outcomes.get("error", zeros), dtype=float)
        if ("invalid" in outcomes or "error" in outcomes) and np.all(invalid + error >= 1):
            if np.all(invalid >= 1):
                return STATUS_ALL_INVALID
            return STATUS_ALL_ERROR if np.all(error >= 1) else STATUS_NO_ANSWERS
    if excluded >= n:
        return STATUS_NO_COMPARABLE
    return STATUS_OK


def side_states(
    outcomes_x: Mapping[str, ArrayLike],
    outcomes_y: Mapping[str, ArrayLike],
    metric: MetricFn | Metric,
) -> tuple[str, str] | None:
    """(status of x, status of y) when either side has no value for the metric, else None."""
    n = n_items(outcomes_x)
    sx = answer_status(outcomes_x, metric, excluded_items(outcomes_x, metric) if n else 0)
    sy = answer_status(outcomes_y, metric, excluded_items(outcomes_y, metric) if n else 0)
    return None if sx == sy == STATUS_OK else (sx, sy)


def paired_unavailable(
    sides: tuple[str, str],
    confidence: float,
    method: str,
    resamples: int | None,
    seed: int | None,
    n: int,
) -> PairedDifference:
    """A difference with no number: one side has no items, no valid answer or no comparable item."""
    sx, sy = sides
    status = sx if sx != STATUS_OK else sy
    note = "; ".join(
        f"{side} is {s}" for side, s in (("configuration", sx), ("reference", sy)) if s != STATUS_OK
    )
    return PairedDifference(
        NAN,
        NAN,
        NAN,
        NAN,
        False,
        confidence,
        method,
        resamples,
        seed,
        n,
        0,
        status,
        0,
        f"no difference: {note}",
    )


def paired_check(
    outcomes_x: Mapping[str, ArrayLike],
    outcomes_y: Mapping[str, ArrayLike],
    metric: MetricFn | Metric,
    confidence: float,
    method: str,
    resamples: int | None,
    seed: int | None,
) -> tuple[int, PairedDifference | None]:
    """(items, None) for two configurations a paired difference can compare; (items, the difference
    with no number) when a side has no value; an error when they hold different numbers of items."""
    n = n_items(outcomes_x)
    if n_items(outcomes_y) != n:
        raise ValueError("a paired difference needs both configurations on the same items")
    sides = side_states(outcomes_x, outcomes_y, metric)
    return n, (
        None if sides is None else paired_unavailable(sides, confidence, method, resamples, seed, n)
    )
