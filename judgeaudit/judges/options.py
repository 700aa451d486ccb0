"""One table of the novelty tasks' judge options: defaults, which judge honours which, one check.

`novelty_pairwise` / `novelty_pointwise` take these options for every judge kind; a judge that
cannot honour an option refuses any value but its default, by name (`check_options`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgeaudit.errors import UserError
from judgeaudit.judges.panel_votes import DEFAULT_RULE
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS


class TaskOptionError(UserError, ValueError):
    """A task option (`-T key=value`) with a value the task cannot use; the message is one line."""


class TaskDatasetError(TaskOptionError, FileNotFoundError):
    """`-T dataset=...` names no set or file the task can read (also a FileNotFoundError)."""


DEFAULT_CONCEPTS = "keyphrase"
# Options of one task kind only. The other kind's task takes them as parameters too, so that a value
# given to it is refused by name (`refuse_other_kind`) rather than dropped with Inspect's warning;
# an eval set of both kinds (`judgeaudit.study`) passes each to the kind that takes it.
KIND_ONLY: dict[str, str] = {"both_orders": "pairwise", "split_rule": "pointwise"}
_KIND_ONLY_WHY = {
    "both_orders": "a pointwise item is shown in one order",
    "split_rule": "a pairwise verdict has no split",
}
SPLIT_RULES: tuple[str, ...] = ("not_novel", "novel", "invalid")
OPTION_DEFAULTS: dict[str, Any] = {
    "prompt": "reference",
    "k": 1,
    "both_orders": False,
    "cache": True,
    "split_rule": DEFAULT_SPLIT_RULE,
    "retrieval": 0,
    "retrieval_corpus": BUNDLED_CORPUS,
    "max_searches": 0,
    "max_turns": 0,
    "concepts": DEFAULT_CONCEPTS,
    "panel": None,
    "panel_rule": DEFAULT_RULE,
    "panel_quorum": 0,
}

_PROMPTED = frozenset(
    {"prompt", "k", "both_orders", "cache", "split_rule", "retrieval", "retrieval_corpus"}
)
# Score judges fit a verdict rule on one call per item: the split rule never applies.
_FITTED = frozenset({"retrieval_corpus", "split_rule"})
_RUBRIC = frozenset({"k", "cache", "split_rule", "retrieval_corpus"})
HONOURED: dict[str, frozenset[str]] = {
    "prompted": _PROMPTED,
    "agentic": _PROMPTED | {"max_searches", "max_turns"},
    "ai_scientist": frozenset(
        {"k", "cache", "split_rule", "retrieval", "retrieval_corpus", "max_searches"}
    ),
    "novelty_checker": frozenset(
        {"k", "both_orders", "cache", "split_rule", "retrieval", "retrieval_corpus"}
    ),
    "rubric": _RUBRIC,
    "two_stage": _RUBRIC,
    "metric_embedding": _FITTED,
    "metric_ngram": _FITTED,
    "distance_nn": _FITTED,
    "distance_centroid": _FITTED,
    "distance_mean": _FITTED,
    "distance_graph": _FITTED,
    "concept_set": _FITTED | {"concepts"},
    "concept_fuzzy": _FITTED | {"concepts"},
    # a panel: the prompted judge's options for every member, and its own (judges.llm.panel)
    "panel": _PROMPTED | {"panel", "panel_rule", "panel_quorum"},
}
# The concept judges with `-T concepts=llm` ask a model for the concepts: caching applies too.
LLM_CONCEPTS = frozenset({"cache", "split_rule", "retrieval_corpus", "concepts"})
_HINTS: dict[frozenset[str], str] = {
    _PROMPTED: "; use -T judge=... (see judgeaudit.judges.catalog)",
    _FITTED: " (it uses no LLM prompt; use the novelty_metric_* tasks for the metric judges' own settings)",
    _RUBRIC: " (it scores each idea with its own rubric prompt; use the novelty_rubric_* tasks for its own settings)",
}


def honoured(judge: str, options: Mapping[str, Any]) -> frozenset[str]:
    """The options `judge` honours (given the concept extractor the options pick)."""
    if judge in ("concept_set", "concept_fuzzy") and options.get("concepts") == "llm":
        return LLM_CONCEPTS
    return HONOURED[judge]


def check_options(judge: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Refuse unknown options and non-default values `judge` cannot honour; the options it was given
    that differ from their defaults."""
    unknown = sorted(k for k in options if k not in OPTION_DEFAULTS)
    if unknown:
        raise TaskOptionError(
            f"unknown task option(s) {', '.join(unknown)}; the novelty tasks take "
            f"{', '.join(OPTION_DEFAULTS)}"
        )
    keep = honoured(judge, options)
    bad = sorted(k for k, v in options.items() if k not in keep and v != OPTION_DEFAULTS[k])
    if bad:
        raise TaskOptionError(
            f"judge {judge!r} cannot honour {', '.join(bad)}{_HINTS.get(keep, '')}"
        )
    return {k: v for k, v in options.items() if v != OPTION_DEFAULTS[k]}


def kind_own(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` less the other kind's own (`KIND_ONLY`): what an eval set of both kinds passes a
    task of `kind` (`-T both_orders=true` reaches the pairwise tasks only)."""
    return {k: v for k, v in options.items() if KIND_ONLY.get(k, kind) == kind}


def refuse_other_kind(kind: str, options: dict[str, Any]) -> None:
    """Remove the other kind's options (`KIND_ONLY`) left at their unset default (None) from
    `options`; refuse one given a value, by name."""
    for key, owner in KIND_ONLY.items():
        if owner != kind and options.pop(key, None) is not None:
            raise TaskOptionError(
                f"-T {key}: applies to novelty_{owner} only ({_KIND_ONLY_WHY[key]})"
            )


def check_split_rule(split_rule: str) -> None:
    """A clear error for a split rule that is not one of `SPLIT_RULES`."""
    if split_rule not in SPLIT_RULES:
        raise TaskOptionError(
            f"split_rule must be one of {', '.join(SPLIT_RULES)}, got {split_rule!r}"
        )
