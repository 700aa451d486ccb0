"""`judgeaudit report --reference` on logs of REAL Inspect runs (mockllm answers stand in for a hosted
judge, unreachable here): the names the report prints and the documented `key=value` form."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.items import make_pairs, make_points
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from judgeaudit.cli import main
from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.report.build import build_report

pytestmark = pytest.mark.slow

GRID_FILE = Path(__file__).resolve().parents[2] / "tasks" / "prompt_ablation_grid.py"


def _always_a(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content="Reasoning.\nVerdict: A")
    out.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
    return out


def _grid_module() -> Any:
    spec = importlib.util.spec_from_file_location("prompt_ablation_grid", GRID_FILE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two log dirs: grid cells of tasks/prompt_ablation_grid.py, and novelty_pairwise runs with -T both_orders=true."""
    root = tmp_path_factory.mktemp("reference")
    set_dir = root / "set"
    write_items(set_dir / "pairwise.jsonl", make_pairs(4))
    write_items(set_dir / "pointwise.jsonl", make_points(4))
    model = get_model("mockllm/model", custom_outputs=_always_a)
    grid = _grid_module()
    eval(
        [
            grid.pairwise_reference(dataset=str(set_dir), cache=False),
            grid.pairwise_p1_no_guardrails(dataset=str(set_dir), cache=False),
            grid.pointwise_reference(dataset=str(set_dir), cache=False),
            grid.pointwise_p1_no_guardrails(dataset=str(set_dir), cache=False),
        ],
        model=model,
        log_dir=str(root / "grid"),
        display="none",
    )
    eval(
        [
            novelty_pairwise(dataset=str(set_dir), prompt=p, both_orders=True, cache=False)
            for p in ("reference", "p1_no_guardrails")
        ],
        model=model,
        log_dir=str(root / "opts"),
        display="none",
    )
    # a grid cell without -T dataset: it runs on the task's default (bundled) set
    eval(
        [grid.pairwise_reference(cache=False), grid.pairwise_p1_no_guardrails(cache=False)],
        model=model,
        limit=4,
        log_dir=str(root / "default_set"),
        display="none",
    )
    return {"grid": root / "grid", "opts": root / "opts", "default_set": root / "default_set"}


def _reference_of(rep: Any) -> set[str]:
    return {c for g in rep.groups for c, e in g["configs"].items() if e["is_reference"]}


def test_default_reference_is_the_shortest_variant(runs: dict[str, Path], tmp_path: Path) -> None:
    rep = build_report(runs["grid"], tmp_path, resamples=50, figures=False)
    assert _reference_of(rep) == {"model · pairwise_reference", "model · pointwise_reference"}


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        (
            "pairwise_p1_no_guardrails",
            {"model · pairwise_p1_no_guardrails", "model · pointwise_reference"},
        ),
        (
            "model · pairwise_p1_no_guardrails",
            {"model · pairwise_p1_no_guardrails", "model · pointwise_reference"},
        ),
        (
            "task=pairwise_p1_no_guardrails",
            {"model · pairwise_p1_no_guardrails", "model · pointwise_reference"},
        ),
        # the same key=value pairs pick each group's own configuration (a pairwise and a pointwise grid cell)
        (
            "prompt=p1_no_guardrails",
            {"model · pairwise_p1_no_guardrails", "model · pointwise_p1_no_guardrails"},
        ),
        (
            "prompt=p1_no_guardrails,k=1",
            {"model · pairwise_p1_no_guardrails", "model · pointwise_p1_no_guardrails"},
        ),
        ("prompt=p1_no_guardrails,dataset=iclr2026/human_only", None),
    ],
)
def test_grid_reference_by_printed_name_or_task_args(
    runs: dict[str, Path], tmp_path: Path, reference: str, expected: set[str] | None
) -> None:
    if (
        expected is None
    ):  # the cells ran on another dataset than the default: the default is not matched
        with pytest.raises(KeyError, match="matches no configuration"):
            build_report(runs["grid"], tmp_path, reference=reference, resamples=50, figures=False)
        return
    rep = build_report(runs["grid"], tmp_path, reference=reference, resamples=50, figures=False)
    assert _reference_of(rep) == expected


def test_key_value_matches_a_run_with_other_task_options(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    rep = build_report(
        runs["opts"], tmp_path, reference="prompt=p1_no_guardrails", resamples=50, figures=False
    )
    # the both-orders run itself, not its recomputed one-order aggregation (further from the defaults)
    assert _reference_of(rep) == {"model · prompt=p1_no_guardrails · k=1 · both_orders=true"}
    rep = build_report(
        runs["opts"],
        tmp_path,
        reference="prompt=p1_no_guardrails,agg=one_order",
        resamples=50,
        figures=False,
    )
    assert _reference_of(rep) == {
        "model · prompt=p1_no_guardrails · k=1 · both_orders=true · agg=one_order"
    }


@pytest.mark.parametrize("reference", ["prompt=nope", "nonesuch", "k=3"])
def test_unmatched_reference_lists_the_names_in_one_line(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: str
) -> None:
    code = main(
        [
            "report",
            str(runs["grid"]),
            "--out",
            str(tmp_path / "o"),
            "--reference",
            reference,
            "--resamples",
            "50",
            "--no-figures",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2  # bad input, like every other (was 1)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: judgeaudit report: "), err
    assert re.search(
        r"variants: pairwise_p1_no_guardrails; pairwise_reference; pointwise_p1_no_guardrails; "
        r"pointwise_reference",
        lines[0],
    )
    assert reference in lines[0] and not (tmp_path / "o" / "report.json").exists()


def test_grid_without_dataset_names_the_default_set(runs: dict[str, Path], tmp_path: Path) -> None:
    """The report names the set the cells used (the task's default), never "default", and --reference
    with that dataset matches it."""
    from judgeaudit.judges.tasks import DEFAULT_DATASET

    rep = build_report(runs["default_set"], tmp_path / "a", resamples=50, figures=False)
    assert [g["dataset"] for g in rep.groups] == [DEFAULT_DATASET]
    assert "'default'" not in (tmp_path / "a" / "report.json").read_text(encoding="utf-8")
    rep = build_report(
        runs["default_set"],
        tmp_path / "b",
        reference=f"prompt=p1_no_guardrails,dataset={DEFAULT_DATASET}",
        resamples=50,
        figures=False,
    )
    assert _reference_of(rep) == {"model · pairwise_p1_no_guardrails"}
