"""The study's protocol: its cells, how -T options reach them, the eval-set file and the registered tasks.

Options are checked where the cells are built (before any call); one run of two cells of the
eval-set file through Inspect's own file loader shows `both_orders` reaching the pairwise cell only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from inspect_ai import eval_set
from inspect_ai.log import EvalLog, read_eval_log

from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.study.cells import CELL_TASKS
from judgeaudit.study.protocol import (
    HUMAN_ONLY,
    REFERENCE_K,
    bundled_sets,
    kind_options,
    route_options,
    study_cells,
    study_task,
)

ROOT = Path(__file__).resolve().parents[2]
STUDY_FILE = ROOT / "tasks" / "reference_study.py"
FIX = str(ROOT / "tests" / "fixtures" / "probe_items")


def test_the_cells_are_every_change_of_both_formats_on_every_set_with_plan_cells_where_plans_exist() -> (
    None
):
    sets = bundled_sets()
    assert sets[0] == HUMAN_ONLY and len(sets) >= 2  # Human-Only, then one set per backbone
    cells, skipped = study_cells(sets)
    names = {(c.dataset, c.name) for c in cells}
    for s in sets:
        for kind, prompts in (("pairwise", 6), ("pointwise", 4)):
            prompt_cells = [n for d, n in names if d == s and n.startswith(f"study_{kind}_")]
            assert (
                f"study_{kind}_retrieval" in prompt_cells
                and f"study_{kind}_reference" in prompt_cells
            )
            assert len(prompt_cells) == prompts + 1 + (s != HUMAN_ONLY)  # + retrieval (+ plan)
    # the bundled Human-Only set has no plan files: its plan cells are left out, each said so
    assert len(skipped) == 2 and all("plan" in line and HUMAN_ONLY in line for line in skipped)
    with pytest.raises(TaskOptionError, match=r"^--dataset nope: unknown dataset 'nope'"):
        study_cells([HUMAN_ONLY, "nope"])


def test_the_eval_set_file_holds_the_protocols_cells_on_the_bundled_sets() -> None:
    tree = ast.parse(STUDY_FILE.read_text(encoding="utf-8"))
    calls = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            ret = node.body[-1]
            assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call)
            slot, kind, change = (a.value for a in ret.value.args[:3])  # type: ignore[attr-defined]
            assert node.name == f"{slot}_{kind}_{change}"
            calls[node.name] = (slot, kind, change)
    sets = bundled_sets()
    slots = {sets[0]: "human_only", sets[1]: "human_generated"}
    cells, _ = study_cells([sets[0], sets[1]])
    assert sorted(calls.values()) == sorted((slots[c.dataset], c.kind, c.change) for c in cells)


def test_options_reach_the_cells_that_take_them_and_others_are_refused_in_one_line() -> None:
    assert "both_orders" in kind_options("pairwise") and "both_orders" not in kind_options(
        "pointwise"
    )
    assert "split_rule" in kind_options("pointwise") and "split_rule" not in kind_options(
        "pairwise"
    )
    given = {"both_orders": True, "split_rule": "novel", "k": 5}
    assert route_options("pairwise", given) == {"both_orders": True, "k": 5}
    assert route_options("pointwise", given) == {"split_rule": "novel", "k": 5}
    cases = {
        "bogus": "-T bogus: no task of the reference study takes it; its cells take both_orders, ",
        "prompt": "-T prompt: the reference study sets it (P1-P5 are cells of their own)",
        "idea_format": "-T idea_format: the reference study sets it",
        "judge": "-T judge: the reference study sets it (the study runs the prompted judge)",
        "max_turns": "-T max_turns: no task of the reference study takes it",
    }
    for key, message in cases.items():
        with pytest.raises(TaskOptionError) as info:
            CELL_TASKS["study_pointwise_reference"](**{key: 1})
        assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_each_novelty_task_refuses_the_other_formats_option_by_name() -> None:
    """One rule for both: an option of the other format is refused by name, never dropped."""
    with pytest.raises(TaskOptionError, match=r"^-T both_orders: applies to novelty_pairwise only"):
        novelty_pointwise(both_orders=True)
    with pytest.raises(TaskOptionError, match=r"^-T both_orders: applies to novelty_pairwise only"):
        novelty_pointwise(both_orders=False)  # given at all, even its unset default: refused
    with pytest.raises(TaskOptionError, match=r"^-T split_rule: applies to novelty_pointwise only"):
        novelty_pairwise(split_rule="novel")


def test_a_cell_is_the_reference_configuration_with_its_change() -> None:
    task = study_task("pairwise", "p1_no_guardrails", {"dataset": FIX, "seed": 7})
    assert task.config.reasoning_effort == "high"
    meta = task.metadata["judgeaudit"]  # type: ignore[index]
    assert meta["study"] == {
        "cell": "study_pairwise_p1_no_guardrails",
        "change": "p1_no_guardrails",
        "reference": "reference",
    }
    assert meta["prompt"] == "p1_no_guardrails" and meta["retrieval"] == 0
    retrieval = study_task("pointwise", "retrieval", {"dataset": FIX})
    assert retrieval.metadata["judgeaudit"]["retrieval"] > 0  # type: ignore[index]
    k = CELL_TASKS["study_pairwise_reference"](dataset=FIX)
    # Inspect prefixes the package name ("judgeaudit/") only outside the source checkout
    assert k.name.split("/")[-1] == "study_pairwise_reference" and REFERENCE_K == 3


@pytest.fixture(scope="module")
def two_file_cells(tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """Two cells of the eval-set file run by Inspect (its file loader passes every -T to every cell)."""
    log_dir = tmp_path_factory.mktemp("study-file")
    ok, logs = eval_set(
        [
            f"{STUDY_FILE}@human_only_pairwise_reference",
            f"{STUDY_FILE}@human_only_pointwise_reference",
        ],
        model="mockllm/model",
        task_args={"k": 3, "both_orders": True, "human_only": FIX},
        log_dir=str(log_dir),
        limit=1,
        display="none",
    )
    assert ok
    return [read_eval_log(log.location) for log in logs]


def test_the_eval_set_file_runs_with_both_orders_given_to_every_cell(
    two_file_cells: list[EvalLog],
) -> None:
    by_kind = {log.eval.metadata["judgeaudit"]["kind"]: log for log in two_file_cells}  # type: ignore[index]
    pair, point = by_kind["pairwise"], by_kind["pointwise"]
    assert pair.eval.task_args["both_orders"] is True  # recorded as given (the file passes -T on)
    for log, orders, dataset in ((pair, {"ab", "ba"}, FIX), (point, {"single"}, FIX)):
        assert log.status == "success" and log.samples
        calls = log.samples[0].scores["novelty"].metadata["calls"]  # type: ignore[index]
        assert {c["order"] for c in calls} == orders and len(calls) == 3 * len(orders)
        assert log.eval.metadata["judgeaudit"]["dataset"] == dataset  # type: ignore[index]
