"""The public Inspect tasks of judgeaudit: one explicit signature each, one-line bodies.

`novelty_pairwise` / `novelty_pointwise` run any judge kind (`-T judge=...`, see
`judgeaudit.judges.catalog`; default the prompted judge), e.g. `inspect eval
judgeaudit/novelty_pairwise --model <model> -T prompt=p1_no_guardrails -T both_orders=true -T k=3`.
Reasoning effort, temperature etc. come from Inspect's own options (`--reasoning-effort`,
`--temperature`) and are recorded in the log's GenerateConfig. From a checkout's root directory
Inspect reads `judgeaudit/...` as a file path (the package folder is there): run
`inspect eval tasks/novelty_pairwise.py ...` instead, or run from elsewhere.
`--epochs N` repeats every call N times; the epochs are pooled (`pool_calls`) into one verdict
per item, as if k were N times larger. `-T retrieval=k` (k > 0) places the top-k prior work per
idea before the ideas (`judgeaudit.judges.llm.retrieval`; corpus `-T retrieval_corpus=...`);
`-T max_searches=n` / `-T max_turns=n` bound the search loops of the agentic and ai_scientist
judges (0 = the judge's default) and `-T concepts=keyphrase|llm` picks the concept judges'
extractor. `-T judge=panel -T panel=<model>,<model>,...` (with `--model none`) is a panel of member
models, each the prompted judge, one verdict by `-T panel_rule` and `-T panel_quorum`
(`judgeaudit.judges.llm.panel`). Which judge honours which option: `judgeaudit.judges.options`.

`novelty_metric_*` and `novelty_rubric_*` expose the metric and rubric judges' own settings.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from judgeaudit.judges.catalog import novelty_task
from judgeaudit.judges.llm.rubric import (
    DEFAULT_N_REFERENCES,
    DEFAULT_REFERENCES,
    DEFAULT_THRESHOLD,
    rubric_task,
)
from judgeaudit.judges.options import DEFAULT_CONCEPTS
from judgeaudit.judges.panel_votes import DEFAULT_RULE
from judgeaudit.judges.score.metric import DEFAULT_FIT_SEED, DEFAULT_NEIGHBOURS, metric_task
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS
from judgeaudit.stats.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

DEFAULT_DATASET = "iclr2026/human_only"


@task
def novelty_pairwise(
    dataset: str = DEFAULT_DATASET,
    prompt: str = "reference",
    idea_format: str = "abstract",
    k: int = 1,
    both_orders: bool = False,
    seed: int = DEFAULT_SEED,
    probe: str | None = None,
    cache: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    judge: str = "prompted",
    retrieval: int = 0,
    retrieval_corpus: str = BUNDLED_CORPUS,
    max_searches: int = 0,
    max_turns: int = 0,
    concepts: str = DEFAULT_CONCEPTS,
    split_rule: str | None = None,
    panel: str | list[Any] | None = None,
    panel_rule: str = DEFAULT_RULE,
    panel_quorum: int = 0,
) -> Task:
    """Which of two ideas is more novel? Scored against gold with bootstrap intervals.

    `split_rule` is pointwise-only: a parameter so that `-T split_rule=...` is refused by name
    (Inspect drops an unknown -T with only a warning; `judgeaudit.judges.options.KIND_ONLY`)."""
    return novelty_task("pairwise", **locals())


@task
def novelty_pointwise(
    dataset: str = DEFAULT_DATASET,
    prompt: str = "reference",
    idea_format: str = "abstract",
    k: int = 1,
    split_rule: str = DEFAULT_SPLIT_RULE,
    seed: int = DEFAULT_SEED,
    probe: str | None = None,
    cache: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    judge: str = "prompted",
    retrieval: int = 0,
    retrieval_corpus: str = BUNDLED_CORPUS,
    max_searches: int = 0,
    max_turns: int = 0,
    concepts: str = DEFAULT_CONCEPTS,
    panel: str | list[Any] | None = None,
    panel_rule: str = DEFAULT_RULE,
    panel_quorum: int = 0,
    both_orders: bool | None = None,
) -> Task:
    """Is this idea novel? Scored against gold (per-class F1, macro-F1) with bootstrap intervals.

    `both_orders` is pairwise-only: a parameter so that `-T both_orders=...` is refused by name, as
    `split_rule` is by novelty_pairwise (`judgeaudit.judges.options.KIND_ONLY`)."""
    return novelty_task("pointwise", **locals())


@task
def novelty_metric_pairwise(
    dataset: str = DEFAULT_DATASET,
    judge: str = "metric_embedding",
    idea_format: str = "abstract",
    corpus: str = BUNDLED_CORPUS,
    embedder: str = "auto",
    cutoff: str | None = None,
    neighbours: int = DEFAULT_NEIGHBOURS,
    fit_seed: int = DEFAULT_FIT_SEED,
    fit_by: str = "auto",
    probe: str | None = None,
    seed: int = DEFAULT_FIT_SEED,
    resamples: int | None = None,
) -> Task:
    """Which of two ideas is more novel, by a metric judge (no LLM: `--model none`)."""
    return metric_task("pairwise", **locals())


@task
def novelty_metric_pointwise(
    dataset: str = DEFAULT_DATASET,
    judge: str = "metric_embedding",
    idea_format: str = "abstract",
    corpus: str = BUNDLED_CORPUS,
    embedder: str = "auto",
    cutoff: str | None = None,
    neighbours: int = DEFAULT_NEIGHBOURS,
    fit_seed: int = DEFAULT_FIT_SEED,
    fit_by: str = "auto",
    probe: str | None = None,
    seed: int = DEFAULT_FIT_SEED,
    resamples: int | None = None,
) -> Task:
    """Is this idea novel, by a metric judge with a fitted threshold (no LLM: `--model none`)."""
    return metric_task("pointwise", **locals())


@task
def novelty_rubric_pairwise(
    dataset: str = DEFAULT_DATASET,
    idea_format: str = "abstract",
    k: int = 1,
    references: str = DEFAULT_REFERENCES,
    n_references: int = DEFAULT_N_REFERENCES,
    corpus: str | None = None,
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int | None = None,
    cache: bool = True,
) -> Task:
    """Which of two ideas is more novel, by comparing their 0-4 rubric scores (tie when equal)."""
    return rubric_task("pairwise", **locals())


@task
def novelty_rubric_pointwise(
    dataset: str = DEFAULT_DATASET,
    idea_format: str = "abstract",
    k: int = 1,
    references: str = DEFAULT_REFERENCES,
    n_references: int = DEFAULT_N_REFERENCES,
    threshold: int = DEFAULT_THRESHOLD,
    corpus: str | None = None,
    split_rule: str = DEFAULT_SPLIT_RULE,
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int | None = None,
    cache: bool = True,
) -> Task:
    """Is this idea novel: its 0-4 rubric score at or above `threshold`."""
    return rubric_task("pointwise", **locals())


TASKS = {
    fn.__name__: fn
    for fn in (
        novelty_pairwise,
        novelty_pointwise,
        novelty_metric_pairwise,
        novelty_metric_pointwise,
        novelty_rubric_pairwise,
        novelty_rubric_pointwise,
    )
}
