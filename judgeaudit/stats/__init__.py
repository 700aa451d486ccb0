"""Statistics: metric definitions, intervals (closed forms and the bootstrap), paired and unpaired
differences, agreement, surface ratio, defaults. Which interval each kind of figure gets, and why:
`docs/methods/intervals.md`.

Every name below is imported from its module on first use (`judgeaudit.lazy`): the command line reads
`judgeaudit.stats.defaults` for its option defaults without loading numpy and every statistic. The
function `surface_ratio` is imported from its module (`judgeaudit.stats.surface_ratio`), whose name it shares.
"""

from typing import TYPE_CHECKING

from judgeaudit.lazy import lazy_names

if TYPE_CHECKING:
    from judgeaudit.stats.bootstrap import (
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
        bootstrap_many,
        bootstrap_metric,
        paired_bootstrap,
        paired_bootstrap_many,
    )
    from judgeaudit.stats.concepts import absent_share, fuzzy_memberships, fuzzy_novelty
    from judgeaudit.stats.intervals import (
        interval,
        intervals_many,
        noise_corrected_flip_rate,
        paired_difference,
        paired_differences_many,
        unpaired_difference,
    )
    from judgeaudit.stats.metrics import (
        BINARY,
        FLIP_RATE,
        HALVES,
        PAIRWISE,
        POINTWISE,
        Mean,
        Metric,
        comparable_items,
        flip_flags,
        metrics_for,
        outcomes_for,
        pairwise_outcomes,
        pointwise_outcomes,
        share_metric,
    )
    from judgeaudit.stats.results import (
        Interval,
        PairedDifference,
        UnpairedDifference,
        excludes_from_above,
        items_behind,
    )
    from judgeaudit.stats.surface_ratio import SurfaceRatio, weighted_medians
    from judgeaudit.stats.unpaired import unpaired_bootstrap

__all__ = [
    "BINARY",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "FLIP_RATE",
    "HALVES",
    "PAIRWISE",
    "POINTWISE",
    "Interval",
    "Mean",
    "Metric",
    "PairedDifference",
    "SurfaceRatio",
    "UnpairedDifference",
    "absent_share",
    "bootstrap_many",
    "bootstrap_metric",
    "comparable_items",
    "excludes_from_above",
    "flip_flags",
    "fuzzy_memberships",
    "fuzzy_novelty",
    "interval",
    "intervals_many",
    "items_behind",
    "metrics_for",
    "noise_corrected_flip_rate",
    "outcomes_for",
    "paired_bootstrap",
    "paired_bootstrap_many",
    "paired_difference",
    "paired_differences_many",
    "pairwise_outcomes",
    "pointwise_outcomes",
    "share_metric",
    "unpaired_bootstrap",
    "unpaired_difference",
    "weighted_medians",
]

__getattr__ = lazy_names(
    __name__,
    __all__,
    ("results", "intervals", "metrics", "bootstrap", "concepts", "surface_ratio", "unpaired"),
)
