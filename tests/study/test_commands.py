"""`judgeaudit study tasks|estimate|run` through the console entry point (in process).

Bad input stops `run` in one line before any call; the run itself (`study.run.run_study`: the eval
set, batch mode, resuming) is tested in test_batch.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from judgeaudit.cli import main
from judgeaudit.providers.litellm_api import import_litellm

FIX = str(Path(__file__).resolve().parents[1] / "fixtures" / "probe_items")


def test_tasks_lists_the_registered_cells(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["study", "tasks"]) == 0
    names = capsys.readouterr().out.split()
    assert len(names) == 14 and "judgeaudit/study_pointwise_plan" in names
    assert main(["study", "tasks", "--dataset", "iclr2026/human_only"]) == 0
    out = capsys.readouterr()
    assert len(out.out.split()) == 12 and "plan" not in out.out and out.err.count("skipped:") == 2


def test_estimate_per_judge_and_inspects_cost_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], search_set: dict[str, str]
) -> None:
    costs = tmp_path / "costs.yaml"
    argv = ["study", "estimate", "--model", "openai/gpt-4o-mini,planted/accurate"]
    argv += ["--dataset", search_set["dataset"], "-T", f"retrieval_corpus={search_set['corpus']}"]
    argv += ["-T", "both_orders=true", "--batch", "--json", "--cost-config", str(costs)]
    assert main(argv) == 0
    out = capsys.readouterr()
    judges = {j["model"]: j for j in json.loads(out.out)["judges"]}
    # 12 cells on one pair / one point (no plan files): 6 + 1 pairwise x 2 orders x k = 3, 4 + 1 pointwise x 3
    assert judges["openai/gpt-4o-mini"]["calls"] == 7 * 2 * 3 + 5 * 3
    assert judges["planted/accurate"]["cost_usd"] == 0.0
    assert (
        judges["openai/gpt-4o-mini"]["cost_usd"] > 0
        and "batch" in judges["openai/gpt-4o-mini"]["price_source"]
    )
    assert out.err.count("skipped:") == 2
    info = import_litellm().get_model_info("openai/gpt-4o-mini")
    written = yaml.safe_load(costs.read_text(encoding="utf-8"))
    assert list(written) == ["openai/gpt-4o-mini"]  # planted is local: no price to give Inspect
    assert written["openai/gpt-4o-mini"]["input"] == pytest.approx(
        info["input_cost_per_token_batches"] * 1e6
    )


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["-T", "bogus=1"], "-T bogus: no task of the reference study takes it"),
        (["-T", "dataset=x"], "-T dataset: give the study's sets with --dataset"),
        (["--dataset", "nope"], "--dataset nope: unknown dataset 'nope'"),
        (["--batch", "--model", "litellm/openai/gpt-4o-mini"], "--batch: the litellm/ provider"),
    ],
)
def test_bad_input_is_one_line_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    argv = ["study", "run", "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs")]
    assert main([*argv, "--dataset", FIX, *extra]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("skipped:")]
    assert len(err) == 1 and err[0].startswith("error: judgeaudit study run: ") and said in err[0]
    assert not (tmp_path / "logs").exists()
