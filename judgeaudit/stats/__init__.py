"""Statistics: metric definitions, bootstrap intervals, paired tests, agreement, surface ratio, defaults.

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
        MIN_ITEMS_FOR_SIGNIFICANCE,
        Interval,
        PairedDifference,
        bootstrap_many,
        bootstrap_metric,
        excludes_from_above,
        items_behind,
        paired_bootstrap,
        paired_bootstrap_many,
    )
    from judgeaudit.stats.concepts import absent_share, fuzzy_memberships, fuzzy_novelty
    from judgeaudit.stats.metrics import (
        FLIP_RATE,
        PAIRWISE,
        POINTWISE,
        Metric,
        comparable_items,
        flip_flags,
        metrics_for,
        outcomes_for,
        pairwise_outcomes,
        pointwise_outcomes,
    )
    from judgeaudit.stats.surface_ratio import SurfaceRatio, weighted_medians
    from judgeaudit.stats.unpaired import UnpairedDifference, unpaired_bootstrap

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "MIN_ITEMS_FOR_SIGNIFICANCE",
    "comparable_items",
    "absent_share",
    "fuzzy_memberships",
    "fuzzy_novelty",
    "FLIP_RATE",
    "Metric",
    "bootstrap_many",
    "metrics_for",
    "outcomes_for",
    "paired_bootstrap_many",
    "Interval",
    "PairedDifference",
    "PAIRWISE",
    "POINTWISE",
    "bootstrap_metric",
    "excludes_from_above",
    "items_behind",
    "flip_flags",
    "pairwise_outcomes",
    "paired_bootstrap",
    "pointwise_outcomes",
    "SurfaceRatio",
    "weighted_medians",
    "UnpairedDifference",
    "unpaired_bootstrap",
]

__getattr__ = lazy_names(__name__, __all__, ("bootstrap", "concepts", "metrics", "surface_ratio", "unpaired"))
