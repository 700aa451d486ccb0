"""judgeaudit.mine: OpenReview reviews -> validated novel/not_novel ideas -> Human-Only sets.

Modules, in pipeline order: `openreview/` (`session`: the openreview-py client; `fetch`: live API
-> raw cache; `shards`: the raw cache's one writer and reader, duplicated notes resolved), `parse` (Submission/Review records), `signals` (offline novelty-signal
extractor) and `llm_signals` (litellm extractor, via `llm`), `select` (deciles, thresholds and the
majority rule), `sanitise` (strip evaluation sentences from abstracts), `pairing` and `export`
(JSONL sets, manifest, dataset card), `calibrate` (measure against the reference dev labels),
`pipeline` (the stages wired together) and `commands` (`judgeaudit mine`).
"""
