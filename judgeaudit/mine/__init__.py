"""judgeaudit.mine: OpenReview reviews -> validated novel/not_novel ideas -> Human-Only (and Human+Generated) sets.

Modules, in pipeline order: `openreview/` (`session`: the openreview-py client and its one retry
layer; `shards`: the raw cache's one writer and reader; `fetch`: live API -> raw cache), `parse`
(Submission/Review records), `signals` (offline novelty-signal extractor) and `llm_signals` (LLM
extractor), `select` (deciles, thresholds and the majority rule), `sanitise` (strip evaluation
sentences from abstracts), `pairing` and `export` (JSONL sets, manifest, dataset card), `staging`
(sets replaced whole, under one lock), `calibrate` (measure against the reference dev labels),
`pipeline` (the stages wired together) and `commands` (`judgeaudit mine`); `llm` (the one cached
model client), `generate` (Human+Generated sets), `plans` (plan format) and `actions`
(`mine generate`, `mine plan`).
"""
