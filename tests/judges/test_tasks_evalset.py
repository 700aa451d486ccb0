"""`inspect eval-set` over two prompt variants with mockllm/model: runs, then resumes.

Hosted LLMs are unreachable here; the model is Inspect's `mockllm/model` with a callable
that answers from the prompt text and counts calls.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers.items import FIXTURES
from inspect_ai import eval_set
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from judgeaudit.fence import fenced_texts
from judgeaudit.judges.tasks import novelty_pairwise

TINY = str(FIXTURES / "tiny_judge")


def test_eval_set_over_prompt_variants_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[str] = []

    def answer(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = input[-1].text
        calls.append(text)
        first = fenced_texts(text)[-2]  # the text shown as Idea A
        out = ModelOutput.from_content(
            "mockllm/model", "Verdict: A" if "Kestrel" in first else "Verdict: B"
        )
        out.usage = ModelUsage(input_tokens=100, output_tokens=3, total_tokens=103)
        return out

    model = get_model("mockllm/model", custom_outputs=answer)
    log_dir = str(tmp_path / "grid")
    kwargs: dict[str, Any] = {
        "model": model,
        "log_dir": log_dir,
        "display": "none",
        "log_dir_allow_dirty": True,
    }

    # The first session completes only the reference configuration.
    # (Inspect identifies a task by the arguments *passed*, so the grid always names its prompt.)
    ok, logs = eval_set(
        [novelty_pairwise(dataset=TINY, prompt="reference", resamples=200)], **kwargs
    )
    assert ok and len(calls) == 6
    # The full grid resumes: the finished reference run is reused, only p3 is new work.
    grid = [
        novelty_pairwise(dataset=TINY, prompt=p, resamples=200)
        for p in ("reference", "p3_judged_novel")
    ]
    ok, logs = eval_set(grid, **kwargs)
    assert ok and len(logs) == 2 and len(calls) == 12
    assert all("exactly one" in t for t in calls[6:])
    assert sorted(log.eval.task_args["prompt"] for log in logs) == ["p3_judged_novel", "reference"]
    assert all(
        log.status == "success" and log.results.scores[0].metrics["strict_accuracy"].value == 1.0
        for log in logs
    )  # type: ignore[union-attr]
    # Nothing left to do: a third call makes no model call at all.
    ok, logs = eval_set(grid, **kwargs)
    assert ok and len(calls) == 12
    assert len(list(Path(log_dir).glob("*.eval"))) == 2


def test_prompt_ablation_grid_file_covers_every_variant() -> None:
    import importlib.util

    path = Path(__file__).parents[2] / "tasks" / "prompt_ablation_grid.py"
    spec = importlib.util.spec_from_file_location("prompt_ablation_grid", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tasks = module.grid(dataset=TINY, resamples=100)
    cells = {(t.metadata["judgeaudit"]["kind"], t.metadata["judgeaudit"]["prompt"]) for t in tasks}
    assert len(tasks) == 10
    pairwise = (
        "reference",
        "p1_no_guardrails",
        "p2_no_criterion",
        "p3_judged_novel",
        "p4_which_novel",
        "p5_judged_more_novel",
    )
    pointwise = ("reference", "p1_no_guardrails", "p2_no_criterion", "p3_judged_novel")
    assert cells == {("pairwise", p) for p in pairwise} | {("pointwise", p) for p in pointwise}
    # Every cell is also a @task of the file, for `inspect eval-set tasks/prompt_ablation_grid.py`.
    for kind, names in (("pairwise", pairwise), ("pointwise", pointwise)):
        for name in names:
            cell = getattr(module, f"{kind}_{name}")(dataset=TINY, resamples=100)
            assert (
                cell.metadata["judgeaudit"]["prompt"] == name
                and cell.metadata["judgeaudit"]["kind"] == kind
            )
    # -T options reach the cells that take them (both_orders the pairwise ones); others: one line
    both = module.grid(dataset=TINY, resamples=100, both_orders=True, split_rule="novel")
    assert {t.metadata["judgeaudit"]["kind"] for t in both} == {"pairwise", "pointwise"}
    from judgeaudit.judges.options import TaskOptionError

    with pytest.raises(TaskOptionError, match=r"^-T bogus: no task of the prompt-ablation grid"):
        module.pointwise_reference(dataset=TINY, bogus=1)


ENTRY_POINT_SCRIPT = """
import sys
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

def answer(input, tools, tool_choice, config):
    out = ModelOutput.from_content("mockllm/model", "Verdict: NOT NOVEL")
    out.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
    return out

logs = eval(["judgeaudit/novelty_pairwise", "judgeaudit/novelty_pointwise"],
            model=get_model("mockllm/model", custom_outputs=answer),
            task_args={"dataset": sys.argv[1], "resamples": 100}, limit=2, log_dir="logs", display="none")
for log in logs:
    m = log.results.scores[0].metrics
    print(log.eval.task, log.status, m["invalid_rate"].value, m.get("f1_not_novel") and m["f1_not_novel"].value)
"""


@pytest.mark.slow
def test_registered_names_resolve_through_the_entry_point(tmp_path: Path) -> None:
    """A fresh interpreter outside the checkout resolves `judgeaudit/<task>` via the entry point.

    (Inside a checkout's root Inspect reads `judgeaudit/...` as a path, and the source tree's
    `judgeaudit.egg-info` hides the editable install, so tasks are registered without prefix.)
    """
    import subprocess
    import sys

    env = {**os.environ, "INSPECT_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", ENTRY_POINT_SCRIPT, TINY],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0].split() == ["judgeaudit/novelty_pairwise", "success", "1.0", "None"]
    pointwise = lines[1].split()
    assert pointwise[:3] == ["judgeaudit/novelty_pointwise", "success", "0.0"]
    assert float(pointwise[3]) == pytest.approx(2 / 3)
