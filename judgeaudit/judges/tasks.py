"""The public Inspect tasks of judgeaudit: one explicit signature each, one-line bodies.

`novelty_pairwise` / `novelty_pointwise` run any judge kind (`-T judge=...`, declared in
`judgeaudit.judges.kinds`; default the prompted judge), e.g. `inspect eval
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
(`judgeaudit.judges.llm.panel`). Which judge honours which option: `judgeaudit.judges.kinds`; each task's `Args:` says what
its parameters do (`tests/judges/test_kinds.py` checks them against the declared options).

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

    Args:
        dataset: A bundled set name (`iclr2026/human_only`), a set directory or a JSONL
            file.
        prompt: The judge prompt variant (`reference`, `p1_no_guardrails`, ...), for the
            judges that render the judge prompts (prompted, panel).
        idea_format: Which text of each idea is judged (`abstract`, or another form the set
            holds).
        k: Calls per item and order; their verdicts are aggregated into one.
        both_orders: Also judge each pair with the ideas swapped, aggregating both orders.
        seed: Seed of every seeded choice (probe arms, fit splits, bootstrap).
        probe: Judge a bias probe's arms instead of the plain items (`position`,
            `verbosity`, ...).
        cache: Reuse Inspect's cache of model calls.
        resamples: Bootstrap resamples of the metric intervals.
        judge: The judge kind (`prompted`, `rubric`, `metric_embedding`, `panel`, ...:
            judgeaudit.judges.kinds).
        retrieval: Retrieved prior-work documents per idea placed before the ideas (0:
            none).
        retrieval_corpus: The prior-work corpus of retrieval, the search judges and the
            score judges.
        max_searches: Search budget of the agentic and ai_scientist judges (0: the judge's
            default).
        max_turns: Turn budget of the agentic judge (0: its default).
        concepts: The concept judges' extractor: `keyphrase` (offline) or `llm`.
        split_rule: Pointwise only: a parameter here so that `-T split_rule=...` is refused
            by name (Inspect drops an unknown -T with only a warning; the other kind's
            options: `judgeaudit.judges.options.KIND_ONLY`).
        panel: The panel judge's member models (`<model>,<model>,...` or a list), with
            `--model none`.
        panel_rule: How the panel's verdicts combine (`majority`, `weighted`, `unanimity`).
        panel_quorum: Members that must give a valid verdict (0: more than half).
    """
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

    Args:
        dataset: A bundled set name (`iclr2026/human_only`), a set directory or a JSONL
            file.
        prompt: The judge prompt variant (`reference`, `p1_no_guardrails`, ...), for the
            judges that render the judge prompts (prompted, panel).
        idea_format: Which text of each idea is judged (`abstract`, or another form the set
            holds).
        k: Calls per item and order; their verdicts are aggregated into one.
        split_rule: The verdict when the k calls split evenly: `not_novel`, `novel` or
            `invalid`.
        seed: Seed of every seeded choice (probe arms, fit splits, bootstrap).
        probe: Judge a bias probe's arms instead of the plain items (`position`,
            `verbosity`, ...).
        cache: Reuse Inspect's cache of model calls.
        resamples: Bootstrap resamples of the metric intervals.
        judge: The judge kind (`prompted`, `rubric`, `metric_embedding`, `panel`, ...:
            judgeaudit.judges.kinds).
        retrieval: Retrieved prior-work documents per idea placed before the ideas (0:
            none).
        retrieval_corpus: The prior-work corpus of retrieval, the search judges and the
            score judges.
        max_searches: Search budget of the agentic and ai_scientist judges (0: the judge's
            default).
        max_turns: Turn budget of the agentic judge (0: its default).
        concepts: The concept judges' extractor: `keyphrase` (offline) or `llm`.
        panel: The panel judge's member models (`<model>,<model>,...` or a list), with
            `--model none`.
        panel_rule: How the panel's verdicts combine (`majority`, `weighted`, `unanimity`).
        panel_quorum: Members that must give a valid verdict (0: more than half).
        both_orders: Pairwise only: a parameter here so that `-T both_orders=...` is refused
            by name, as `split_rule` is by novelty_pairwise.
    """
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
    """Which of two ideas is more novel, by a metric judge (no LLM: `--model none`).

    Args:
        dataset: A bundled set name (`iclr2026/human_only`), a set directory or a JSONL
            file.
        judge: The metric judge (`metric_embedding` or `metric_ngram`).
        idea_format: Which text of each idea is judged (`abstract`, or another form the set
            holds).
        corpus: The prior-work corpus the scores are computed against.
        embedder: The embedder (`auto`: MiniLM when the `embed` extra is installed, else TF-
            IDF).
        cutoff: Only prior work dated strictly before this ISO date (None: no cutoff).
        neighbours: Nearest prior-work documents a score reads.
        fit_seed: Seed of the fit split (the items the verdict rule is fitted on, never
            scored).
        fit_by: How the fit split is drawn: `area`, `item` or `auto` (by area when there are
            two or more).
        probe: Judge a bias probe's arms instead of the plain items (`position`,
            `verbosity`, ...).
        seed: Seed of the probe arms.
        resamples: Bootstrap resamples of the metric intervals (None: the default).
    """
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
    """Is this idea novel, by a metric judge with a fitted threshold (no LLM: `--model none`).

    Args:
        dataset: A bundled set name (`iclr2026/human_only`), a set directory or a JSONL
            file.
        judge: The metric judge (`metric_embedding` or `metric_ngram`).
        idea_format: Which text of each idea is judged (`abstract`, or another form the set
            holds).
        corpus: The prior-work corpus the scores are computed against.
        embedder: The embedder (`auto`: MiniLM when the `embed` extra is installed, else TF-
            IDF).
        cutoff: Only prior work dated strictly before this ISO date (None: no cutoff).
        neighbours: Nearest prior-work documents a score reads.
        fit_seed: Seed of the fit split (the items the verdict rule is fitted on, never
            scored).
        fit_by: How the fit split is drawn: `area`, `item` or `auto` (by area when there are
            two or more).
        probe: Judge a bias probe's arms instead of the plain items (`position`,
            `verbosity`, ...).
        seed: Seed of the probe arms.
        resamples: Bootstrap resamples of the metric intervals (None: the default).
    """
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
    """Which of two ideas is more novel, by comparing their 0-4 rubric scores (tie when equal).

    Args:
        dataset: A bundled set name (`iclr2026/human_only`), a set directory or a JSONL
            file.
        idea_format: Which text of each idea is judged (`abstract`, or another form the set
            holds).
        k: Scoring calls per idea; their scores are aggregated as the prompted judge's
            verdicts are.
        references: The reference set each idea is scored against: `corpus` (BM25 prior
            work), `dense` (prior work by embedding) or `area` (other ideas of its area).
        n_references: Documents in the reference set.
        corpus: The prior-work corpus of `references=corpus` (None: the bundled one).
        probe: Judge a bias probe's arms instead of the plain items (`position`,
            `verbosity`, ...).
        seed: Seed of every seeded choice (probe arms, fit splits, bootstrap).
        resamples: Bootstrap resamples of the metric intervals (None: the default).
        cache: Reuse Inspect's cache of model calls.
    """
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
    """Is this idea novel: its 0-4 rubric score at or above `threshold`.

    Args:
        dataset: A bundled set name (`iclr2026/human_only`), a set directory or a JSONL
            file.
        idea_format: Which text of each idea is judged (`abstract`, or another form the set
            holds).
        k: Scoring calls per idea; their scores are aggregated as the prompted judge's
            verdicts are.
        references: The reference set each idea is scored against: `corpus` (BM25 prior
            work), `dense` (prior work by embedding) or `area` (other ideas of its area).
        n_references: Documents in the reference set.
        threshold: The least 0-4 score that reads as novel.
        corpus: The prior-work corpus of `references=corpus` (None: the bundled one).
        split_rule: The verdict when the k calls split evenly: `not_novel`, `novel` or
            `invalid`.
        probe: Judge a bias probe's arms instead of the plain items (`position`,
            `verbosity`, ...).
        seed: Seed of every seeded choice (probe arms, fit splits, bootstrap).
        resamples: Bootstrap resamples of the metric intervals (None: the default).
        cache: Reuse Inspect's cache of model calls.
    """
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
