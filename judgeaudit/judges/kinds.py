"""One spec per judge kind (`-T judge=...`), declared once: what builds its Task, which task options
it honours, whether it scores ideas or gives verdicts, and which probes cannot apply to it.

Everything else reads this table: the catalog (`judges.catalog`: the names, `novelty_task`), the
option checks (`check_options` here, the prompt check of `judges.option_checks`), probe
applicability (`audit.applicability`), the surface ratio's score judges (`audit.surface_ratio`)
and the audit's checks (`audit.battery`). Adding a judge kind is one `JudgeSpec` entry in `JUDGES`
plus its own code; `tests/judges/test_kinds.py` checks the entries against the tasks.

A factory is `fn(kind, judge, dataset, *, idea_format, probe, seed, resamples, **options) -> Task`;
`options` are the task options (`judgeaudit.judges.options`) that differ from their defaults,
already checked against what the judge honours.

Why a probe cannot apply: a probe arm changes the idea texts (verbosity, surface, injection), the
presentation order (position), the prompt's cue slot or prompt variant (presumption), the
generation seed (repeat), or selects generated ideas (self_preference). A judge that never sees
what a probe changes would score it as perfectly robust, which says nothing: the audit reports
such probes as *not applicable* with the judge's reason, and their gates cannot affect the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task

from judgeaudit.judges.llm.agentic import agentic_task_from_options
from judgeaudit.judges.llm.ai_scientist import ai_scientist_task_from_options
from judgeaudit.judges.llm.concepts import concept_llm_task_from_options
from judgeaudit.judges.llm.novelty_checker import novelty_checker_task_from_options
from judgeaudit.judges.llm.panel import panel_task
from judgeaudit.judges.llm.prompted import prompted_task
from judgeaudit.judges.llm.rubric import rubric_task_from_options
from judgeaudit.judges.options import DEFAULT_CONCEPTS, OPTION_DEFAULTS, TaskOptionError
from judgeaudit.judges.score.concepts import EXTRACTORS, ConceptPrior, concept_task_from_options
from judgeaudit.judges.score.distance import DistancePrior, distance_task_from_options
from judgeaudit.judges.score.metric import PriorWork, metric_task_from_options

Factory = Callable[..., Task]

# ---- why a probe cannot apply (the audit card states these) ---------------------------------
NO_ORDER_SCORE = (
    "this judge scores each idea on its own, with no presentation order, so swapping the "
    "order cannot change its verdict"
)
NO_PROMPT_SCORE = (
    "this judge reads only the idea texts; the presumption cue and framing prompt change no "
    "text, so the probe could only measure zero"
)
NO_BACKBONE = "this judge has no LLM backbone, so no idea can come from its own backbone"
OWN_CALL_PER_IDEA = (
    "this judge scores each idea in its own call: there is no presentation order to swap"
)
NO_CUE_SLOT = (
    "this judge's own prompt has no cue slot and ignores the framing prompt variant, so the "
    "probe could only measure zero"
)
REFUSES_ORDER = "this judge uses its own presentation and refuses the probe's forced orders"
REFUSES_PROMPT = "this judge uses its own prompt and refuses the probe's cue and framing prompt"

# Score judges read only the idea texts, one idea at a time; self_preference applies only when a
# model extracts their concepts (`-T concepts=llm`). Verbosity, surface and injection edit the
# texts they read, and repeat checks that they are deterministic.
SCORE_LIMITS: dict[str, str] = {
    "position": NO_ORDER_SCORE,
    "presumption": NO_PROMPT_SCORE,
    "self_preference": NO_BACKBONE,
}
# One scoring call per idea with the judge's own prompt, which has no cue slot.
OWN_PROMPT_LIMITS: dict[str, str] = {"position": OWN_CALL_PER_IDEA, "presumption": NO_CUE_SLOT}
# A per-sample search context that refuses the probe's forced orders, cue and prompt variant
# (`judges.llm.retrieval.ItemSearchContext`).
SEARCH_CONTEXT_LIMITS: dict[str, str] = {"position": REFUSES_ORDER, "presumption": REFUSES_PROMPT}

# ---- option sets ------------------------------------------------------------------------------
PROMPTED_OPTIONS = frozenset(
    {"prompt", "k", "both_orders", "cache", "split_rule", "retrieval", "retrieval_corpus"}
)
# Score judges fit a verdict rule on one call per item: the split rule never applies.
FITTED_OPTIONS = frozenset({"retrieval_corpus", "split_rule"})
RUBRIC_OPTIONS = frozenset({"k", "cache", "split_rule", "retrieval_corpus"})
# The concept judges with `-T concepts=llm` ask a model for the concepts: caching applies too.
LLM_CONCEPT_OPTIONS = frozenset({"cache", "split_rule", "retrieval_corpus", "concepts"})
_PROMPTED_HINT = "; use -T judge=... (see judgeaudit.judges.kinds)"
_FITTED_HINT = (
    " (it uses no LLM prompt; use the novelty_metric_* tasks for the metric judges' own settings)"
)
_RUBRIC_HINT = (
    " (it scores each idea with its own rubric prompt; use the novelty_rubric_* tasks for its own "
    "settings)"
)


def concept_task(
    kind: str, judge: str, dataset: str, *, concepts: str = DEFAULT_CONCEPTS, **options: Any
) -> Task:
    """The concept judges: offline keyphrase concepts (score judge) or concepts a model extracts (`llm`)."""
    if concepts == "keyphrase":
        return concept_task_from_options(kind, judge, dataset, **options)
    if concepts == "llm":
        return concept_llm_task_from_options(kind, judge, dataset, **options)
    raise TaskOptionError(f"concepts must be one of {', '.join(EXTRACTORS)}, got {concepts!r}")


@dataclass(frozen=True)
class JudgeSpec:
    """One judge kind: its Task factory, the task options it honours, whether it scores ideas (a
    prior-work class behind a numeric score per idea) or gives verdicts (an LLM), and the probes
    that cannot apply to it, each with the reason the card states."""

    name: str
    factory: Factory
    options: frozenset[str]
    prior: type | None = None  # score judges: the prior-work class that scores each idea
    limits: Mapping[str, str] = field(default_factory=dict)  # probe -> why it cannot apply
    prompt_variants: bool = False  # renders prompts/judge/<kind>/: `-T prompt` is checked there
    hint: str = ""  # added to the error when it refuses an option
    llm_options: frozenset[str] | None = None  # the options it honours with `-T concepts=llm`

    @property
    def scores(self) -> bool:
        """Whether it gives a numeric score per idea (metric, distance, concept judges)."""
        return self.prior is not None

    def calls_model(self, options: Mapping[str, Any] | None = None) -> bool:
        """Whether it calls an LLM with these task options (`-T concepts=llm` makes a score judge do so)."""
        return not self.scores or (options or {}).get("concepts", DEFAULT_CONCEPTS) != "keyphrase"

    def honoured(self, options: Mapping[str, Any]) -> frozenset[str]:
        """The options it honours, given the concept extractor the options pick."""
        if self.llm_options is not None and options.get("concepts") == "llm":
            return self.llm_options
        return self.options

    def inapplicable(self, options: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Probe -> why it cannot apply with these task options (a model backbone makes
        self_preference apply)."""
        return {
            probe: why
            for probe, why in self.limits.items()
            if not (why == NO_BACKBONE and self.calls_model(options))
        }


def _score(name: str, factory: Factory, prior: type, **more: Any) -> JudgeSpec:
    """A score judge: fitted options, the score judges' probe limits."""
    given: dict[str, Any] = {"options": FITTED_OPTIONS, "hint": _FITTED_HINT, **more}
    return JudgeSpec(name, factory, prior=prior, limits=SCORE_LIMITS, **given)


def _concept(name: str) -> JudgeSpec:
    """A concept judge: a score judge whose concepts a model may extract (`-T concepts=llm`)."""
    return _score(
        name,
        concept_task,
        ConceptPrior,
        options=FITTED_OPTIONS | {"concepts"},
        llm_options=LLM_CONCEPT_OPTIONS,
        hint="",
    )


_SPECS: tuple[JudgeSpec, ...] = (
    JudgeSpec(
        "prompted", prompted_task, PROMPTED_OPTIONS, prompt_variants=True, hint=_PROMPTED_HINT
    ),
    JudgeSpec(
        "agentic", agentic_task_from_options, PROMPTED_OPTIONS | {"max_searches", "max_turns"}
    ),
    JudgeSpec(
        "ai_scientist",
        ai_scientist_task_from_options,
        frozenset({"k", "cache", "split_rule", "retrieval", "retrieval_corpus", "max_searches"}),
        limits=SEARCH_CONTEXT_LIMITS,
    ),
    JudgeSpec(
        "novelty_checker",
        novelty_checker_task_from_options,
        frozenset({"k", "both_orders", "cache", "split_rule", "retrieval", "retrieval_corpus"}),
        limits=SEARCH_CONTEXT_LIMITS,
    ),
    JudgeSpec(
        "rubric",
        rubric_task_from_options,
        RUBRIC_OPTIONS,
        limits=OWN_PROMPT_LIMITS,
        hint=_RUBRIC_HINT,
    ),
    JudgeSpec(
        "two_stage",
        rubric_task_from_options,
        RUBRIC_OPTIONS,
        limits=OWN_PROMPT_LIMITS,
        hint=_RUBRIC_HINT,
    ),
    # a panel: the prompted judge's options for every member, and its own (judges.llm.panel)
    JudgeSpec(
        "panel",
        panel_task,
        PROMPTED_OPTIONS | {"panel", "panel_rule", "panel_quorum"},
        prompt_variants=True,
    ),
    # score judges, subclass priors before their base classes (ConceptPrior, DistancePrior, PriorWork)
    _concept("concept_set"),
    _concept("concept_fuzzy"),
    _score("distance_nn", distance_task_from_options, DistancePrior),
    _score("distance_centroid", distance_task_from_options, DistancePrior),
    _score("distance_mean", distance_task_from_options, DistancePrior),
    _score("distance_graph", distance_task_from_options, DistancePrior),
    _score("metric_embedding", metric_task_from_options, PriorWork),
    _score("metric_ngram", metric_task_from_options, PriorWork),
)
JUDGES: dict[str, JudgeSpec] = {spec.name: spec for spec in _SPECS}
DEFAULT_JUDGE = "prompted"


def judge_names() -> list[str]:
    """Every judge kind the tasks accept, the default first."""
    return [DEFAULT_JUDGE, *sorted(k for k in JUDGES if k != DEFAULT_JUDGE)]


def score_judges() -> tuple[str, ...]:
    """The judge kinds that give a numeric score per idea (no LLM with their default options)."""
    return tuple(name for name, spec in JUDGES.items() if spec.scores)


def judge_spec(judge: str) -> JudgeSpec:
    """The spec of `judge`; a one-line error naming the kinds for an unknown one."""
    spec = JUDGES.get(judge)
    if spec is None:
        raise TaskOptionError(
            f"-T judge={judge}: unknown judge {judge!r}; choose one of: {', '.join(judge_names())}"
        )
    return spec


def check_options(judge: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Refuse unknown options and non-default values `judge` cannot honour; the options it was given
    that differ from their defaults."""
    unknown = sorted(k for k in options if k not in OPTION_DEFAULTS)
    if unknown:
        raise TaskOptionError(
            f"unknown task option(s) {', '.join(unknown)}; the novelty tasks take "
            f"{', '.join(OPTION_DEFAULTS)}"
        )
    spec = judge_spec(judge)
    keep = spec.honoured(options)
    bad = sorted(k for k, v in options.items() if k not in keep and v != OPTION_DEFAULTS[k])
    if bad:
        hint = spec.hint if keep is spec.options else ""
        raise TaskOptionError(f"judge {judge!r} cannot honour {', '.join(bad)}{hint}")
    return {k: v for k, v in options.items() if v != OPTION_DEFAULTS[k]}
