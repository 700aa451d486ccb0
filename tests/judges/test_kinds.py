"""The judge kinds declared once (judgeaudit/judges/kinds.py): the tasks' signatures, their `Args:`
blocks, the option checks, the score families and every reader agree with the declarations, and a
new kind is one entry."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

from judgeaudit.arms.transforms import PROBES
from judgeaudit.audit.applicability import inapplicable_probes, is_score_judge, needs_model
from judgeaudit.audit.battery import AuditError, AuditSpec, check_spec
from judgeaudit.audit.surface_ratio import score_judges, scorer_families
from judgeaudit.judges import kinds
from judgeaudit.judges.catalog import judge_names, novelty_task
from judgeaudit.judges.option_checks import BOOL_OPTIONS, CHOICES, INT_MINIMUMS, TaskOptionError
from judgeaudit.judges.options import KIND_ONLY, OPTION_DEFAULTS
from judgeaudit.judges.score.concepts import CONCEPT_JUDGES
from judgeaudit.judges.score.distance import DISTANCE_JUDGES
from judgeaudit.judges.score.metric import METRIC_JUDGES
from judgeaudit.judges.tasks import TASKS, novelty_pairwise, novelty_pointwise

# The parameters `novelty_task` takes itself (every judge), and their defaults.
COMMON = {
    name: p.default
    for name, p in inspect.signature(novelty_task).parameters.items()
    if p.kind is p.KEYWORD_ONLY
}


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    return {name: p.default for name, p in inspect.signature(fn).parameters.items()}


def test_the_novelty_tasks_take_exactly_the_declared_options_with_their_defaults() -> None:
    for fn, kind in ((novelty_pairwise, "pairwise"), (novelty_pointwise, "pointwise")):
        declared = {
            **{k: v for k, v in OPTION_DEFAULTS.items() if KIND_ONLY.get(k, kind) == kind},
            **{k: v for k, v in COMMON.items() if k != "dataset"},
        }
        for key, owner in KIND_ONLY.items():
            if owner != kind:
                declared[key] = None  # the other kind's option: there only to be refused by name
        signature = _defaults(fn)
        assert signature.pop("dataset") == "iclr2026/human_only"
        assert signature == declared, kind


def _args_block(fn: Callable[..., Any]) -> list[str]:
    doc = inspect.getdoc(fn) or ""
    assert "\nArgs:\n" in doc, fn.__name__
    block = doc.split("\nArgs:\n", 1)[1]
    return re.findall(r"^    (\w+): \S", block, re.M)


@pytest.mark.parametrize("name", sorted(TASKS))
def test_every_public_task_documents_each_parameter_in_an_args_block(name: str) -> None:
    fn = TASKS[name]
    assert _args_block(fn) == list(inspect.signature(fn).parameters), name


def test_every_honoured_option_is_declared_and_every_declared_option_is_honoured() -> None:
    honoured = set().union(*(s.options | (s.llm_options or set()) for s in kinds.JUDGES.values()))
    assert honoured == set(OPTION_DEFAULTS)
    checked = set(INT_MINIMUMS) | set(BOOL_OPTIONS) | set(CHOICES)
    assert checked <= set(OPTION_DEFAULTS) | set(COMMON)


def test_limits_name_probes_and_score_families_match_the_score_modules() -> None:
    for spec in kinds.JUDGES.values():
        assert set(spec.limits) <= set(PROBES), spec.name
    families = {cls.__name__: set(names) for names, cls in scorer_families()}
    assert families == {
        "ConceptPrior": set(CONCEPT_JUDGES),
        "DistancePrior": set(DISTANCE_JUDGES),
        "PriorWork": set(METRIC_JUDGES),
    }
    assert set(score_judges()) == {n for n in judge_names() if is_score_judge(n)}


def test_a_concept_judge_with_a_model_gains_self_preference_and_its_options() -> None:
    assert "self_preference" in inapplicable_probes("concept_set")
    assert "self_preference" not in inapplicable_probes("concept_set", {"concepts": "llm"})
    assert needs_model("concept_set", {"concepts": "llm"}) and not needs_model("concept_set")
    assert kinds.check_options("concept_set", {"concepts": "llm", "cache": False}) == {
        "concepts": "llm",
        "cache": False,
    }
    with pytest.raises(TaskOptionError, match="cannot honour cache"):
        kinds.check_options("concept_set", {"cache": False})


def test_a_new_judge_kind_is_one_spec_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    # A verdict judge with its own prompt (the rubric judge's code under a new name): declared once,
    # every reader sees it.
    dummy = kinds.JudgeSpec(
        "dummy",
        lambda kind, judge, dataset, **options: kinds.JUDGES["rubric"].factory(
            kind, "rubric", dataset, **options
        ),
        kinds.RUBRIC_OPTIONS,
        limits=kinds.OWN_PROMPT_LIMITS,
    )
    monkeypatch.setitem(kinds.JUDGES, "dummy", dummy)
    assert "dummy" in judge_names()
    task = novelty_task("pointwise", dataset="iclr2026/human_only", judge="dummy", k=2)
    assert len(task.dataset) > 0
    with pytest.raises(TaskOptionError, match="judge 'dummy' cannot honour retrieval"):
        novelty_task("pointwise", dataset="iclr2026/human_only", judge="dummy", retrieval=2)
    assert set(inapplicable_probes("dummy")) == {"position", "presumption"}
    assert needs_model("dummy") and "dummy" not in score_judges()
    check_spec(AuditSpec(model="mockllm/model", judge="dummy", kind="pointwise"))
    with pytest.raises(AuditError, match="calls an LLM"):
        check_spec(AuditSpec(model="none", judge="dummy", kind="pointwise"))
