"""The fast log reader (`judgeaudit.report.logread`) against Inspect's `read_eval_log` on real logs.

Real Inspect runs of the pairwise judge task (mockllm answering as an accurate judge): one run
of 2 epochs (pooled by the task's reducer), one whose first call is refused (status error), and
copies of the first written with Inspect's public API as a cancelled log, a partial one (half its
samples) and a `.json` log. Every log must give the same rows by either reader, and the report
written from the directory must be the same when every log is read by Inspect.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted
from fixtures.probe_judges.scripted import first_call_refused
from helpers.items import FIXTURES
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.model import get_model

from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.report import logread
from judgeaudit.report.build import build_report
from judgeaudit.report.frame import UNREAD_SAMPLE_FIELDS, load_frame, log_cause, rows_from_log

FIX = FIXTURES / "probe_items"  # 4 pairs


def _run(root: Path, policy: Any, **kwargs: Any) -> Path:
    log = inspect_eval(
        novelty_pairwise(dataset=str(FIX), cache=False),
        model=get_model("mockllm/model", custom_outputs=policy),
        log_dir=str(root),
        display="none",
        max_connections=1,
        **kwargs,
    )[0]
    return Path(log.location)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real logs: success (2 epochs, pooled), error (first call refused), cancelled, partial, `.json`."""
    root = tmp_path_factory.mktemp("logread")
    pooled = _run(root / "pooled", scripted.judge(scripted.accurate), epochs=2)
    _run(root / "errored", first_call_refused(), max_retries=0)  # the refused call not retried
    full = read_eval_log(str(pooled))
    assert full.samples and full.reductions
    write_eval_log(full.model_copy(update={"status": "cancelled"}), str(root / "cancelled.eval"))
    partial = full.model_copy(
        update={"status": "error", "samples": full.samples[:4], "reductions": None}
    )
    write_eval_log(partial, str(root / "partial" / "partial.eval"))
    write_eval_log(full, str(root / "json" / pooled.with_suffix(".json").name), format="json")
    return root


def _inspect_read(name: str) -> Any:
    return read_eval_log(name, exclude_fields=set(UNREAD_SAMPLE_FIELDS))


def test_both_readers_give_the_same_rows_of_every_log(logdir: Path) -> None:
    """Status, cause and every row (and every unscored-sample skip) agree log by log."""
    infos = [i for i in list_eval_logs(str(logdir)) if i.name.endswith(".eval")]
    assert len(infos) == 4
    statuses = []
    for info in infos:
        fast, slow = logread.read_fast(info.name), _inspect_read(info.name)
        statuses.append(fast.status)
        assert (fast.status, fast.location) == (slow.status, slow.location)
        assert log_cause(fast) == log_cause(slow)
        skips_fast: list[dict[str, str]] = []
        skips_slow: list[dict[str, str]] = []
        rows = rows_from_log(fast, skips_fast)
        assert rows and rows == rows_from_log(slow, skips_slow) and skips_fast == skips_slow
    assert sorted(statuses) == ["cancelled", "error", "error", "success"]


def test_what_the_fast_reader_does_not_read_goes_to_inspect_counted(logdir: Path) -> None:
    """A `.json` log and a log of an unknown schema version are read by Inspect, each counted."""
    with pytest.raises(logread.NotFast, match="not an .eval log"):
        logread.read_fast(str(next((logdir / "json").iterdir())))
    loaded = load_frame(logdir / "json")
    assert [r["reason"] for r in loaded.inspect_reads] == ["not an .eval log"]
    assert len(loaded.frame) == 4 and loaded.summary()["read_by_inspect"] == loaded.inspect_reads


def test_the_report_is_the_same_when_inspect_reads_every_log(
    logdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """report.json from the fast reader equals report.json with every log left to Inspect."""
    src = logdir / "pooled"
    build_report(src, tmp_path / "fast", resamples=200, figures=False)
    monkeypatch.setattr(logread, "KNOWN_VERSIONS", frozenset())
    slow = build_report(src, tmp_path / "slow", resamples=200, figures=False)
    reads = slow.data["input"].pop("read_by_inspect")
    assert [r["reason"] for r in reads] == ["log schema version 2"]
    fast_json = (tmp_path / "fast" / "report.json").read_text(encoding="utf-8")
    slow_json = json.loads((tmp_path / "slow" / "report.json").read_text(encoding="utf-8"))
    slow_json["input"].pop("read_by_inspect")
    assert json.loads(fast_json.replace(str(tmp_path / "fast"), str(tmp_path / "slow"))) == (
        slow_json
    )
