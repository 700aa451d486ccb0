"""judgeaudit.mine: OpenReview reviews -> labelled novel/not_novel ideas -> Human-Only (and Human+Generated) sets.

The pipeline, in the order a run goes through it (`pipeline.mine` wires stages 2-5, `export` stages 6-7,
`commands` is `judgeaudit mine`):

1. `openreview/`: fetch (`session`: the openreview-py client and its one retry layer; `shards`: the raw
   cache's one writer and reader; `fetch`: live API -> raw cache).
2. `parse`: Submission / Review records (scores, text fields, status and decision), counted skips.
3. `select` (its first half): per-area deciles, rating floor/ceiling, contribution cuts, excluded areas,
   blocklist and decision filter -> candidates.
4. `signals/`: novelty signals per review (`base`: the definition and the records; `cues`: the offline cue
   extractor; `stance`: the learned n-gram extractor; `llm_extractor`: the LLM extractor), then `select`'s
   rule (`decide`) -> labels.
5. `sanitise/`: evaluation claims stripped from abstracts (`claims`, `abstracts`, `sanitisers`).
6. `pairing`: seeded same-area pairs and the point set.
7. `export` (files, manifest) and `set_card` (the dataset card).

Beside the pipeline: `units` (an LLM pass as work units, and its answers into the cache), `llm` (the one
cached model client), `staging` (sets replaced whole, under one lock), `summary` (counted skips),
`json_rows`; `generate/` (Human+Generated sets and plan rewrites: `human_generated`, `plans`, `actions`);
and `study/`, the extractor-evaluation study, which the pipeline never imports (`calibrate`: against the
reference's dev split; `crossval`: grouped cross-validation; `stance_fit`: fitting the n-gram model;
`stance_cases` and `reading_ceiling`: independent annotators; `records`: study records beside a set).
"""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["cli", "export", "openreview", "pipeline", "summary"]
