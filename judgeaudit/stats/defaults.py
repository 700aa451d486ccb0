"""The seed, resample count, confidence and method names every interval defaults to, defined once."""

DEFAULT_SEED = 20260
DEFAULT_RESAMPLES = 10_000
DEFAULT_CONFIDENCE = 0.95
METHOD = "percentile"  # bootstrap over items
PAIRED_METHOD = "paired percentile"
RATE_METHOD = "clopper-pearson"  # a share of 0/1 outcomes
SCORE_METHOD = "score (continuity-corrected)"  # the mean of a per-item value on a finite support
PAIRED_SCORE_METHOD = "paired score (Tango, continuity-corrected)"  # per item x - y, same items
UNPAIRED_SCORE_METHOD = (
    "two-sample score (Mee, continuity-corrected)"  # two independent groups of 0/1 outcomes
)
CORRECTED_METHOD = (
    "two-sample score (Mee, continuity-corrected) of flip minus noise flip on the same items, "
    "within-item correlation assumed non-negative"
)  # the noise-corrected flip rate
BOUND_METHOD = "error-rate bound (Clopper-Pearson; the bootstrap was a point)"  # macro-F1 with every item alike
EXACT_MCNEMAR = "exact McNemar"
FISHER_EXACT = "Fisher's exact"
SCORE_TEST = "score test (continuity-corrected)"
