"""The extractor-evaluation study: how the miner's extractors and rule compare with the reference study's
labels and with independent annotators. Used by `judgeaudit mine --dev` (`calibrate`) and the benchmarks in
tests/benchmarks; the pipeline and `export` never import it."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["calibrate"]
