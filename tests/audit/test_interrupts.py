"""An audit killed, Ctrl-C'd and run again; a report Ctrl-C'd while it reads.

One out dir goes through what a user does to it: `judgeaudit audit` of a planted judge (three
items, the position probe: two battery tasks, nine calls, one at a time) is killed (SIGKILL to its
process group) while its ninth call is held (eight answered: one task has finished, the other
has not), then run again and Ctrl-C'd (SIGINT) while its first call is held, then run again to the
end. The children are the real command; their planted calls (and the report's log reads) are only
held at a count and counted (`helpers.child_processes.HOLDING`), so each signal lands at a known
point, never after a guessed time. Inspect's realtime log buffer is on in the children, as it is
for a user (the suite turns it off elsewhere), so a killed eval's finished samples are on disk.
The last run and an uninterrupted run of the same command are in this process, their planted
calls counted.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from helpers.child_processes import answered, signal_when, start_held
from helpers.items import FIXTURES

from judgeaudit.cli import main
from judgeaudit.providers.planted.api import PlantedAPI
from judgeaudit.report.build import build_report
from judgeaudit.report.frame import load_frame
from judgeaudit.report.logread import NotFast, read_fast

TINY = FIXTURES / "tiny_judge"
REALTIME = {"JUDGEAUDIT_LOG_REALTIME": "1", "INSPECT_EVAL_NO_LOG_REALTIME": None}
CALLS = 9  # 3 items: unperturbed 3, position 6 (two arms)
# The children run where this process runs (their paths are absolute): Inspect names a task by its
# registry name (`judgeaudit/novelty_pairwise`) or, when it takes the package for a local module, by
# its file (`novelty_pairwise` of judgeaudit/judges/tasks.py), and which it does depends on what the
# working directory puts on sys.path (a source checkout that pip installed from holds a
# `judgeaudit.egg-info` without its editable record). The last run is in this process; run by
# children elsewhere, the killed run's logs would carry the other name and the eval-set would pair
# none of them with its tasks.
HERE = Path.cwd()


def _argv(out: Path) -> list[str]:
    return [
        "audit", "--model", "planted/first_shown", "--dataset", str(TINY), "--limit", "3",
        "--probes", "position", "--out", str(out), "--resamples", "100",
        "--display", "none", "--no-cache", "--max-connections", "1",
    ]  # fmt: skip


def _finished(logs: Path) -> dict[str, str]:
    """The logs under `logs` whose eval finished, by name, with the digest of their bytes."""
    done = {}
    for path in logs.glob("*.eval"):
        try:
            if read_fast(str(path), header_only=True).status == "success":
                done[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        except (NotFast, OSError):  # still being written
            continue
    return done


def _held_with(events: Path, also: Callable[[], bool]) -> bool:
    """Whether the child holds a call or a read and `also()` holds."""
    return answered(events, "held") >= 1 and also()


def _counted_main(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(exit status, planted calls made) of `judgeaudit <argv>` in this process."""
    real, made = PlantedAPI.generate, []

    async def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return await real(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(PlantedAPI, "generate", counted)
        return main(argv), len(made)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The out dir through a kill, a Ctrl-C and a last run; the report Ctrl-C'd; a clean run."""
    root = tmp_path_factory.mktemp("interrupts")
    out, logs = root / "audit", root / "audit" / "logs"
    run: dict[str, Any] = {"out": out}
    events = root / "killed"
    child = start_held("judgeaudit", _argv(out), events, CALLS - 1, HERE, REALTIME)
    run["killed_stderr"] = signal_when(
        child, partial(_held_with, events, lambda: bool(_finished(logs))), signal.SIGKILL
    )  # one task finished, the other's last call held
    run["finished_at_kill"] = _finished(logs)
    shutil.copytree(logs, root / "killed_logs")  # as the kill left them: `started` logs
    run["killed_logs"] = root / "killed_logs"
    events = root / "interrupted"
    child = start_held("judgeaudit", _argv(out), events, 0, HERE, REALTIME)
    run["ctrl_c_stderr"] = signal_when(child, lambda: answered(events, "held") >= 1, signal.SIGINT)
    run["ctrl_c_status"] = child.returncode
    events = root / "report"
    argv = ["report", str(root / "killed_logs"), "--out", str(root / "report"), "--no-figures"]
    child = start_held("judgeaudit", argv, events, 1, HERE)  # the second log read waits
    reading = partial(_held_with, events, lambda: answered(events, "log") >= 1)
    run["report_stderr"] = signal_when(child, reading, signal.SIGINT)
    run["report_status"] = child.returncode
    run["report_out"] = root / "report"
    before = load_frame(logs).frame
    run["samples_before"] = int(
        ((before["sample_error"].isna()) & (before["verdict"] != "error")).sum()
    )
    with pytest.MonkeyPatch.context() as patch:
        run["resumed"] = _counted_main(_argv(out), patch)
        run["clean"] = _counted_main(_argv(root / "clean"), patch)
    run["clean_out"] = root / "clean"
    return run


def test_ctrl_c_during_an_audit_is_one_line_and_exit_130(runs: dict[str, Any]) -> None:
    assert runs["ctrl_c_status"] == 130, runs["ctrl_c_stderr"]
    assert runs["ctrl_c_stderr"].strip().splitlines() == ["judgeaudit audit: interrupted"]


def test_ctrl_c_during_a_report_is_one_line_and_exit_130(runs: dict[str, Any]) -> None:
    assert runs["report_status"] == 130, runs["report_stderr"]
    assert runs["report_stderr"].strip().splitlines() == ["judgeaudit report: interrupted"]
    assert not (runs["report_out"] / "report.json").exists()


def test_a_report_reads_the_logs_a_kill_left(runs: dict[str, Any], tmp_path: Path) -> None:
    """The killed battery's `started` logs are read for their finished samples; every sample they
    lack is named, and is an error item of its configuration (the finished task names the items)."""
    loaded = load_frame(runs["killed_logs"])
    assert loaded.partial_logs and {e["status"] for e in loaded.partial_logs} == {"started"}
    for entry in loaded.partial_logs:
        assert entry["missing"] and entry["unplaced"] == []
        assert (
            entry["finished"] + len(entry["missing"]) + len(entry["interrupted"])
            == (entry["expected"])
        )
    frame = loaded.frame
    not_run = frame[frame["sample_error"].fillna("").str.startswith("not run: the log is started")]
    assert len(not_run) == sum(len(e["missing"]) for e in loaded.partial_logs)
    assert all(len(rows) == 3 for _, rows in frame.groupby("config"))  # every config, every item
    report = build_report(runs["killed_logs"], tmp_path, resamples=100, figures=False)
    assert report.data["input"]["partial_logs"] == loaded.partial_logs


def test_a_killed_audit_run_again_completes_as_an_uninterrupted_one(runs: dict[str, Any]) -> None:
    """The last run finishes; the tasks finished before the kill are reused as they are; it judges
    only what the logs did not hold (each item of each task once), and its card is the card of an
    uninterrupted run but for durations and paths."""
    (status, calls), (clean_status, clean_calls) = runs["resumed"], runs["clean"]
    assert status == clean_status == 0 and clean_calls == CALLS
    assert 0 < calls == CALLS - runs["samples_before"] < CALLS
    assert runs["finished_at_kill"].items() <= _finished(runs["out"] / "logs").items()
    frame = load_frame(runs["out"] / "logs").frame
    assert len(frame) == CALLS and not frame.duplicated(["config", "item_id"]).any()
    assert set(frame["verdict"]) <= {"a", "b", "tie"}

    def card(out: Path) -> dict[str, Any]:
        data = json.loads((out / "card.json").read_text(encoding="utf-8"))
        for gate in data["gates"]:
            (gate["more_items"] or {}).pop("seconds", None)
        data["cost"] = {k: v for k, v in data["cost"].items() if not k.endswith("seconds")}
        data.pop("log_dir")
        return data

    assert card(runs["out"]) == card(runs["clean_out"])
