"""The extractor-evaluation study: how the miner's extractors and rule compare with the reference study's
labels and with independent annotators. Used by `judgeaudit mine --dev` (`calibrate`) and the benchmarks in
tests/benchmarks; the pipeline and `export` never import it."""
