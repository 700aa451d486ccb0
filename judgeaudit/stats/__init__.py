"""Statistics: metric definitions, bootstrap intervals, paired tests, agreement."""

from judgeaudit.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    PairedDifference,
    bootstrap_metric,
    paired_bootstrap,
)
from judgeaudit.stats.metrics import (
    PAIRWISE,
    POINTWISE,
    flip_flags,
    pairwise_outcomes,
    pointwise_outcomes,
)

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Interval",
    "PairedDifference",
    "PAIRWISE",
    "POINTWISE",
    "bootstrap_metric",
    "flip_flags",
    "pairwise_outcomes",
    "paired_bootstrap",
    "pointwise_outcomes",
]
