"""The seed, resample count, confidence and method names every interval defaults to, defined once."""

DEFAULT_SEED = 20260
DEFAULT_RESAMPLES = 10_000
DEFAULT_CONFIDENCE = 0.95
METHOD = "percentile"
PAIRED_METHOD = "paired percentile"
