"""Inspect tasks `novelty_pairwise` and `novelty_pointwise` (prompted novelty judges).

Run e.g. `inspect eval judgeaudit/novelty_pairwise --model <model> -T prompt=p1_no_guardrails
-T both_orders=true -T k=3`. Reasoning effort, temperature etc. come from Inspect's own
options (`--reasoning-effort`, `--temperature`) and are recorded in the log's GenerateConfig.
From a checkout's root directory Inspect reads `judgeaudit/...` as a file path (the package
folder is there): run `inspect eval tasks/novelty_pairwise.py ...` instead, or run from elsewhere.
`--epochs N` repeats every call N times; the epochs are pooled (`pool_calls`) into one
verdict per item, as if k were N times larger.
`-T retrieval=k` (k > 0) places the top-k prior work per idea before the ideas
(`judgeaudit.judges.retrieval_judge`; corpus `-T retrieval_corpus=...`); `-T judge=...`
selects another judge kind (`judgeaudit.judges.catalog`); `-T max_searches=n` / `-T max_turns=n`
bound the search loops of the agentic and ai_scientist judges (0 = the judge's default) and
`-T concepts=keyphrase|llm` picks the concept judges' extractor.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.solver import Solver

from judgeaudit.data.contract import Item
from judgeaudit.data.samples import item_to_sample, load_items
from judgeaudit.judges.catalog import build_judge_task
from judgeaudit.judges.inspect_metrics import BOOTSTRAP_METHOD, pairwise_metrics, pointwise_metrics
from judgeaudit.judges.scorer import SCHEMA, novelty, pool_calls
from judgeaudit.judges.solvers import novelty_judge, prompt_input
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, SplitRule
from judgeaudit.probes.base import ProbedItem
from judgeaudit.resources import resolve_dataset_file
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

DEFAULT_DATASET = "iclr2026/human_only"
IDEA_FORMATS: tuple[str, ...] = ("abstract", "plan")
SPLIT_RULES: tuple[str, ...] = ("not_novel", "novel", "invalid")


def probed_items(items: list[Item], probe: str | None, seed: int) -> list[ProbedItem]:
    """Items as probe arms: unperturbed when `probe` is None, else via the probes package."""
    if probe is None:
        return [ProbedItem(item) for item in items]
    from judgeaudit.probes.transforms import apply_probe  # imported only when a probe is asked for

    return apply_probe(probe, items, seed)


def locate_dataset(dataset: str) -> str:
    """`dataset` as given, or resolved against the shell's directory ($PWD) when a relative path
    only exists there (`inspect eval tasks/<file>.py` runs the task from the file's directory)."""
    path = Path(dataset)
    shell_dir = os.environ.get("PWD")
    if (
        not path.is_absolute()
        and not path.exists()
        and shell_dir
        and (Path(shell_dir) / path).exists()
    ):
        return str(Path(shell_dir) / path)
    return dataset


def judge_dataset(
    dataset: str, kind: str, idea_format: str, probe: str | None, seed: int, prompt: str | None = None,
    both_orders: bool = False,
) -> MemoryDataset:
    """Inspect dataset of one judge run: one Sample per probe arm of every item.

    With `prompt` (the prompted judge without retrieval) samples carry lean metadata
    (`item_to_sample(lean=True)`) and their input is the judge prompt of their first call
    (`solvers.prompt_input`; `both_orders` as the judge's).
    """
    if idea_format not in IDEA_FORMATS:
        raise ValueError(
            f"idea_format must be one of {', '.join(IDEA_FORMATS)}, got {idea_format!r}"
        )
    dataset = locate_dataset(dataset)
    path = resolve_dataset_file(dataset, kind, idea_format)
    items = load_items(dataset, kind, idea_format)
    samples = []
    for arm in probed_items(items, probe, seed):
        extra: dict[str, Any] = {
            "probe": arm.probe,
            "probe_variant": arm.variant,
            "probe_target": arm.target,
            "orders": list(arm.orders) if arm.orders else None,
            "cue": arm.cue,
            "prompt": arm.prompt,
            "seed": arm.seed,
        }
        sample = item_to_sample(arm.item, sample_id=arm.sample_id, extra=extra, lean=prompt is not None)
        if prompt is not None:
            sample.input = prompt_input(kind, prompt, both_orders, sample.metadata or {})
        samples.append(sample)
    if not samples:
        raise ValueError(f"dataset {dataset!r} ({path}) gives no samples for probe {probe!r}")
    ids = [s.id for s in samples]
    if len(set(ids)) != len(ids):
        raise ValueError(f"dataset {dataset!r} with probe {probe!r}: duplicate sample ids")
    return MemoryDataset(samples, name=dataset.replace("/", "_"), location=str(path))


def with_retrieval(solver: Solver, retrieval: int, corpus: str) -> Solver | list[Solver]:
    """The judge solver, preceded by top-k prior-work retrieval when `retrieval` > 0."""
    if retrieval < 0:
        raise ValueError(f"retrieval must be >= 0 (0 = no retrieval), got {retrieval}")
    if retrieval == 0:
        return solver
    from judgeaudit.judges.retrieval_judge import retrieve_prior_work  # only when asked for

    return [retrieve_prior_work(retrieval, corpus), solver]


DEFAULT_CONCEPTS = "keyphrase"


def _judge_options(retrieval: int, corpus: str, max_searches: int, max_turns: int, concepts: str) -> dict[str, Any]:
    """Catalog-judge task arguments (retrieval, loop budgets, concept extractor), passed only when not at their defaults."""
    return {
        **({"retrieval": retrieval} if retrieval else {}),
        **({"retrieval_corpus": corpus} if corpus != BUNDLED_CORPUS else {}),
        **({"max_searches": max_searches} if max_searches else {}),
        **({"max_turns": max_turns} if max_turns else {}),
        **({"concepts": concepts} if concepts != DEFAULT_CONCEPTS else {}),
    }


def _check_prompted_options(max_searches: int, max_turns: int, concepts: str) -> None:
    """The prompted judge has no search loop and no concept extractor: reject those options by name."""
    bad = [name for name, changed in (("max_searches", bool(max_searches)), ("max_turns", bool(max_turns)),
                                      ("concepts", concepts != DEFAULT_CONCEPTS)) if changed]
    if bad:
        raise ValueError(f"judge 'prompted' cannot honour {', '.join(bad)}; use -T judge=... (see judgeaudit.judges.catalog)")


def _metadata(
    kind: str,
    prompt: str,
    dataset: str,
    idea_format: str,
    probe: str | None,
    resamples: int,
    seed: int,
    retrieval: int = 0,
) -> dict[str, Any]:
    return {
        "judgeaudit": {
            "schema": SCHEMA,
            "kind": kind,
            "judge": "retrieval" if retrieval else "prompted",
            "retrieval": retrieval,
            "prompt": prompt,
            "dataset": dataset,
            "idea_format": idea_format,
            "probe": probe,
            "bootstrap": {
                "method": BOOTSTRAP_METHOD,
                "resamples": resamples,
                "seed": seed,
                "confidence": 0.95,
            },
        }
    }


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
) -> Task:
    """Which of two ideas is more novel? Scored against gold with bootstrap intervals."""
    if judge != "prompted":  # other judge kinds: judgeaudit.judges.catalog
        return build_judge_task("pairwise", judge, dataset, idea_format=idea_format, probe=probe, seed=seed,
                                resamples=resamples, prompt=prompt, k=k, both_orders=both_orders, cache=cache,
                                **_judge_options(retrieval, retrieval_corpus, max_searches, max_turns, concepts))
    _check_prompted_options(max_searches, max_turns, concepts)
    return Task(
        dataset=judge_dataset(dataset, "pairwise", idea_format, probe, seed, None if retrieval else prompt, both_orders),
        solver=with_retrieval(novelty_judge(
            "pairwise", prompt=prompt, k=k, both_orders=both_orders, seed=seed, cache=cache
        ), retrieval, retrieval_corpus),
        scorer=novelty(judge="retrieval" if retrieval else "prompted", idea_format=idea_format),
        metrics=pairwise_metrics(resamples, seed),
        epochs=Epochs(1, pool_calls()),
        metadata=_metadata("pairwise", prompt, dataset, idea_format, probe, resamples, seed, retrieval),
    )


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
) -> Task:
    """Is this idea novel? Scored against gold (per-class F1, macro-F1) with bootstrap intervals."""
    if judge != "prompted":  # other judge kinds: judgeaudit.judges.catalog
        return build_judge_task("pointwise", judge, dataset, idea_format=idea_format, probe=probe, seed=seed,
                                resamples=resamples, prompt=prompt, k=k, split_rule=split_rule, cache=cache,
                                **_judge_options(retrieval, retrieval_corpus, max_searches, max_turns, concepts))
    _check_prompted_options(max_searches, max_turns, concepts)
    if split_rule not in SPLIT_RULES:
        raise ValueError(f"split_rule must be one of {', '.join(SPLIT_RULES)}, got {split_rule!r}")
    rule: SplitRule = split_rule  # type: ignore[assignment]
    return Task(
        dataset=judge_dataset(dataset, "pointwise", idea_format, probe, seed, None if retrieval else prompt),
        solver=with_retrieval(novelty_judge("pointwise", prompt=prompt, k=k, seed=seed, cache=cache),
                              retrieval, retrieval_corpus),
        scorer=novelty(judge="retrieval" if retrieval else "prompted", idea_format=idea_format, split_rule=rule),
        metrics=pointwise_metrics(resamples, seed),
        epochs=Epochs(1, pool_calls()),
        metadata=_metadata("pointwise", prompt, dataset, idea_format, probe, resamples, seed, retrieval),
    )
