"""Reading logs whose status is `error` (`judgeaudit.report.frame.load_frame`): a judge whose calls
failed errors its samples but scores them (`score_on_error`), so the log is read and its error
items counted; an errored log without a scored sample is one counted skip naming its cause.
Real Inspect evals on mockllm (a scripted judge; one call raises a refused connection, the
failure a provider raises) and the real report pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted
from fixtures.probe_judges.scripted import CAUSE, first_call_refused
from helpers.inspect_runs import run_scripted
from helpers.items import FIXTURES
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import get_model
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, solver

from judgeaudit.cli import main
from judgeaudit.data.samples import UNIT
from judgeaudit.judges.scorer import SCHEMA_V1, SCHEMA_V3, read_unit, task_fields
from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.report.build import build_report
from judgeaudit.report.frame import load_frame

FIX = FIXTURES / "probe_items"  # 4 pairs


@pytest.fixture(scope="module")
def errored_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One log with status error: 4 pairs, the first call refused, the other 3 judged."""
    root = tmp_path_factory.mktemp("errored")
    log = eval(
        novelty_pairwise(dataset=str(FIX), cache=False),
        model=get_model("mockllm/model", custom_outputs=first_call_refused()),
        log_dir=str(root / "logs"),
        display="none",
        max_connections=1,
        max_retries=0,  # the refused call is not retried (`providers.replies` would retry it)
    )[0]
    assert log.status == "error" and log.error is None and log.samples and len(log.samples) == 4
    return root / "logs"


def test_an_errored_log_is_read_and_its_error_items_counted(
    errored_logdir: Path, tmp_path: Path
) -> None:
    report = build_report(errored_logdir, tmp_path / "out", resamples=200, figures=False)
    assert sorted(report.frame["verdict"].tolist()).count("error") == 1 and len(report.frame) == 4
    inp = report.data["input"]
    assert inp["skipped_logs"] == [] and inp["skipped_samples"] == [] and inp["logs_read"] == 1
    [entry] = inp["error_logs"]
    assert (
        entry["cause"] == f"could not judge: 1 of 1 calls failed: ConnectionRefusedError: {CAUSE}"
    )
    assert (entry["samples"], entry["error_items"]) == (4, 1) and entry["log"].endswith(".eval")
    [group] = report.groups
    [config] = group["configs"].values()
    assert config["metrics"]["error_rate"]["estimate"] == pytest.approx(0.25)
    assert config["metrics"]["invalid_rate"]["estimate"] == 0.0
    summary = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert (
        f"read {entry['log']} with status error ({entry['cause']}): its 4 scored samples" in summary
    )
    assert "1 with verdict error (counted in the error rate)" in summary
    table = next(
        p
        for p in (tmp_path / "out").glob("*.md")
        if p.name != "report.md" and "error rate" in p.read_text(encoding="utf-8")
    )
    assert "0.250" in table.read_text(encoding="utf-8")
    saved = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert saved["input"]["error_logs"] == [entry]


@solver
def server_went_away() -> Any:
    """A solver whose model went away before the judge recorded anything."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raise RuntimeError("the judge server went away\nsecond line of detail")

    return solve


def test_an_errored_log_without_scored_samples_is_one_counted_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    run_scripted(
        novelty_pairwise(dataset=str(FIX), cache=False), scripted.judge(scripted.accurate), tmp_path
    )
    failed = eval(
        Task(
            dataset=[
                Sample(id="s1", input="x", target="A"),
                Sample(id="s2", input="y", target="A"),
            ],
            solver=server_went_away(),
            scorer=match(),
        ),
        model="mockllm/model",
        log_dir=str(logs),
        display="none",
    )[0]
    assert failed.status == "error"
    loaded = load_frame(logs)
    [skip] = loaded.skipped_logs
    name = skip["log"]
    assert (
        name.endswith(Path(str(failed.location)).name)
        and skip["reason"] == "status error: the judge server went away"
    )
    assert loaded.skipped_samples == [] and loaded.error_logs == [] and len(loaded.frame) == 4
    assert (
        main(
            [
                "report",
                str(logs),
                "--out",
                str(tmp_path / "out"),
                "--resamples",
                "200",
                "--no-figures",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "skipped 1 log(s), 0 sample(s)" in out
    assert [line for line in out.splitlines() if name in line] == [
        f"  skipped {name}: status error: the judge server went away"
    ]


def test_a_log_of_score_schema_3_reads_the_same_rows(tmp_path: Path) -> None:
    """Logs of `judgeaudit.score/3` (the sample's unit fields as top-level metadata keys, `gold` in
    lean samples too, `Score.value` a dict of outcome floats) give the same frame as today's logs."""
    policy = scripted.judge(scripted.accurate)
    log = eval(
        novelty_pairwise(dataset=str(FIX), probe="position", k=2, cache=False),
        model=get_model("mockllm/model", custom_outputs=policy),
        log_dir=str(tmp_path / "new"),
        display="none",
    )[0]
    assert log.status == "success" and log.samples
    old = read_eval_log(str(log.location))
    assert old.samples and old.eval.metadata
    for sample in old.samples:
        meta = dict(sample.metadata)
        unit = meta.pop(UNIT)
        assert isinstance(unit, dict) and unit["item_id"] and "probe" in unit
        sample.metadata = {**meta, **unit, "gold": sample.target, "input_call": "reference:ab"}
        score = sample.scores["novelty"]  # type: ignore[index]
        score.value = {
            "correct": float(score.value == 1.0),
            "soft": 0.0,
            "tie": 0.0,
            "invalid": 0.0,
            "error": 0.0,
        }
    old.eval.metadata = {"judgeaudit": {**old.eval.metadata["judgeaudit"], "schema": SCHEMA_V3}}
    (tmp_path / "old").mkdir()
    write_eval_log(old, str(tmp_path / "old" / Path(str(log.location)).name))

    def rows(logdir: Path) -> list[dict[str, Any]]:
        frame = load_frame(logdir).frame.drop(columns=["log"])
        return json.loads(frame.to_json(orient="records", default_handler=str))

    new_rows = rows(tmp_path / "new")
    assert len(new_rows) == 8 and {r["probe_variant"] for r in new_rows} == {"order_ab", "order_ba"}
    assert all(r["item_id"] and r["area"] and r["setup"] for r in new_rows)
    assert rows(tmp_path / "old") == new_rows


def test_a_log_of_the_previous_score_schema_reads_the_same_rows(tmp_path: Path) -> None:
    """Logs written before the per-task fields moved to the task metadata (`judgeaudit.score/1`:
    every field of the judged unit in each score, the pooled reduction too) give the same frame."""
    policy = scripted.judge(scripted.accurate)
    log = eval(
        novelty_pairwise(dataset=str(FIX), probe="position", k=2, cache=False),
        model=get_model("mockllm/model", custom_outputs=policy),
        log_dir=str(tmp_path / "new"),
        display="none",
        epochs=2,
    )[0]
    assert log.status == "success" and log.samples and log.reductions
    old = read_eval_log(str(log.location))
    assert old.samples and old.reductions and old.eval.metadata
    task = task_fields(old.eval.metadata)
    samples = {str(s.id): s for s in old.samples}
    for sample in old.samples:
        score = sample.scores["novelty"]  # type: ignore[index]
        score.metadata = {**(read_unit(task, sample.metadata, score) or {}), "schema": SCHEMA_V1}
    for pooled in old.reductions[0].samples:
        pooled.metadata = {
            **(read_unit(task, samples[str(pooled.sample_id)].metadata, pooled) or {}),
            "schema": SCHEMA_V1,
        }
    old.eval.metadata = {
        "judgeaudit": {
            k: v for k, v in old.eval.metadata["judgeaudit"].items() if k != "split_rule"
        }
        | {"schema": SCHEMA_V1}
    }
    (tmp_path / "old").mkdir()
    write_eval_log(old, str(tmp_path / "old" / Path(str(log.location)).name))
    assert (
        task_fields(
            read_eval_log(str(tmp_path / "old" / Path(str(log.location)).name)).eval.metadata
        )
        is None
    )

    def rows(logdir: Path) -> list[dict[str, Any]]:
        frame = load_frame(logdir).frame.drop(columns=["log"])
        return json.loads(frame.to_json(orient="records", default_handler=str))

    new_rows = rows(tmp_path / "new")
    assert len(new_rows) == 8 and {r["epochs"] for r in new_rows} == {
        2
    }  # 4 pairs x 2 arms, epochs pooled
    assert {r["probe_variant"] for r in new_rows} == {"order_ab", "order_ba"}
    assert {r["split_rule"] for r in new_rows} == {"not_novel"} and {
        r["judge"] for r in new_rows
    } == {"prompted"}
    assert rows(tmp_path / "old") == new_rows


def test_worker_processes_read_what_threads_read(
    errored_logdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many logs are read in worker processes (`read_logs`): the same frame, read logs, error logs
    and counted skips (an unreadable file, a log with status error) as the threads give."""
    import shutil

    from judgeaudit.report import frame as frame_module

    logs = tmp_path / "logs"
    logs.mkdir()
    [log] = list(errored_logdir.glob("*.eval"))
    shutil.copy(log, logs / log.name)
    (logs / "2026-01-01T00-00-00_broken_x.eval").write_bytes(b"not a zip archive")
    assert frame_module._fork_workers(frame_module.PROCESS_MIN_LOGS - 1) == 0  # too few to fork

    def load(workers: int) -> frame_module.LoadResult:
        monkeypatch.setattr(frame_module, "_fork_workers", lambda logs: workers)
        return load_frame(logs)

    threads, processes = load(0), load(2)
    assert processes.frame.equals(threads.frame) and len(threads.frame) == 4
    assert processes.summary() == threads.summary()
    [skip] = threads.skipped_logs
    assert skip["log"].endswith("broken_x.eval") and skip["reason"].startswith("unreadable")
    assert len(threads.error_logs) == 1 and threads.logs_read == processes.logs_read
