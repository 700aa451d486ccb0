"""The report reads every log whatever its samples hold: a grid with a cancelled, an errored and a
finished log is one report, and what it cannot use is counted and named per log and per item.

The cancelled log is real: `inspect eval-set` of a planted judge in a child process (one sample at
a time), Ctrl-C'd (SIGINT to its process group) while its fourth call is held (its first three are
answered, later ones wait: `helpers.child_processes.HOLDING`), so three samples finished, one was
cut off and two never started. The same run checks that a Ctrl-C'd
grid prints no traceback and no internal error of ours (what Inspect itself prints and its exit
status are Inspect's). The finished and the errored logs are in-process runs of the same task on the
same six items: another planted judge, and a planted judge whose answer key holds only three of
them (its calls on the others fail, so their samples error and the eval's status is `error`).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from helpers.child_processes import answered, signal_when, start_held
from helpers.frame_rows import frame_row
from helpers.items import FIXTURES
from inspect_ai import eval
from inspect_ai.log import list_eval_logs, read_eval_log

from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.report.build import build_report, partial_log_line
from judgeaudit.report.frame import CANCELLED_SAMPLE, load_frame, not_run_rows

TINY = FIXTURES / "tiny_judge"  # 6 pairs
TASK_ARGS = {"dataset": str(TINY), "cache": False, "resamples": 100}


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A log dir holding a cancelled (Ctrl-C'd eval-set), an errored and a finished log of TINY."""
    root = tmp_path_factory.mktemp("partial")
    logs, calls = root / "logs", root / "calls"
    argv = ["eval-set", "judgeaudit/novelty_pairwise", "--model", "planted/accurate"]
    argv += [f"-T{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in TASK_ARGS.items()]
    argv += ["--log-dir", str(logs), "--max-connections", "1", "--max-samples", "1"]
    argv += ["--display", "none"]
    child = start_held("inspect", argv, calls, hold_after=3, cwd=root)
    stderr = signal_when(child, lambda: answered(calls, "held") >= 1, signal.SIGINT)
    key = root / "key3.jsonl"  # the answer key of the errored judge: the first 3 pairs only
    key.write_text("".join((TINY / "pairwise.jsonl").read_text().splitlines(True)[:3]))
    for model, args in (("planted/first_shown", {}), ("planted/noisy", {"dataset": str(key)})):
        eval(novelty_pairwise(**TASK_ARGS), model=model, model_args=args, log_dir=str(logs))
    return {"logs": logs, "stderr": stderr}


def _status(logs: Path) -> dict[str, str]:
    return {
        read_eval_log(i, header_only=True).eval.model: read_eval_log(i, header_only=True).status
        for i in list_eval_logs(str(logs))
    }


def test_a_ctrl_c_grid_prints_no_traceback_of_ours(grid: dict[str, Any]) -> None:
    """The Ctrl-C'd eval-set left a cancelled log; stderr has no traceback and no internal error."""
    assert _status(grid["logs"])["planted/accurate"] == "cancelled"
    assert "Traceback" not in grid["stderr"] and "internal error" not in grid["stderr"]


def test_a_cancelled_an_errored_and_a_finished_log_make_one_report(
    grid: dict[str, Any], tmp_path: Path
) -> None:
    """Every configuration keeps all six items: the cancelled one's unfinished samples are error
    items named `not run`, the errored one's failed samples error items; both logs are named with
    their items, and the report is written."""
    assert sorted(_status(grid["logs"]).values()) == ["cancelled", "error", "success"]
    report = build_report(grid["logs"], tmp_path / "out", resamples=100, figures=False)
    inp = report.data["input"]
    assert inp["logs_read"] == 3 and inp["skipped_logs"] == []
    frame = load_frame(grid["logs"]).frame
    by_model = {m: rows for m, rows in frame.groupby("model")}
    assert set(by_model) == {"accurate", "first_shown", "noisy"}
    assert all(len(rows) == 6 and rows["item_id"].is_unique for rows in by_model.values())
    cancelled = by_model["accurate"]
    errors = cancelled["sample_error"].fillna("")
    not_run = cancelled[errors.str.startswith("not run: the log is cancelled")]
    cut = cancelled[errors == CANCELLED_SAMPLE]  # in flight at the Ctrl-C: Inspect errors it
    finished = cancelled[errors == ""]
    assert (len(finished), len(cut), len(not_run)) == (3, 1, 2)
    assert set(not_run["verdict"]) == set(cut["verdict"]) | {"error"} == {"error"}
    assert set(finished["verdict"]) <= {"a", "b", "tie"}
    (entry,) = inp["partial_logs"]
    assert (entry["status"], entry["expected"], entry["finished"]) == (
        "cancelled",
        6,
        len(finished),
    )
    assert entry["interrupted"] == sorted(cut["sample_id"])
    assert entry["error_item_ids"] == sorted(not_run["item_id"]) and entry["unplaced"] == []
    assert sorted(entry["missing"]) == sorted(not_run["sample_id"])
    line = partial_log_line(entry)
    assert all(sample in line for sample in entry["missing"] + entry["interrupted"])
    assert "eval-retry" in line
    (errored,) = inp["error_logs"]
    noisy = by_model["noisy"]
    assert errored["error_items"] == 3 == int((noisy["verdict"] == "error").sum())
    assert sorted(errored["error_item_ids"]) == sorted(
        noisy[noisy["verdict"] == "error"]["item_id"]
    )
    assert line in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    (group,) = report.data["groups"]
    counted = {c.split(" · ")[0]: v["error_items"] for c, v in group["configs"].items()}
    assert counted == {"accurate": 6 - len(finished), "first_shown": 0, "noisy": 3}


def test_missing_samples_are_placed_by_item_and_arm_or_named_unplaced() -> None:
    """Hand rows: a probe log's missing `pair1|order_ba` takes pair1's gold from another log's row
    and its arm from its id; `pair9`, an item no row names, is left unplaced (named, in no table)."""
    done = {
        **frame_row("m · v", "pair1", "b", [("ab", 0, "b")], "b"),
        "dataset_arg": "d",
        "idea_format": "abstract",
        "probe_target": None,
        "area": "rl",
    }
    probe_log = {**log_fields_of(done), "task_args": json.dumps({"probe": "position"})}
    plain_log = {**log_fields_of(done), "log": "plain.eval"}
    missing = [(probe_log, "pair1|order_ba", "started"), (plain_log, "pair9", "cancelled")]
    placed, unplaced = not_run_rows(missing, [done])
    (row,) = placed
    assert (row["item_id"], row["gold"], row["probe"], row["probe_variant"]) == (
        "pair1", "b", "position", "order_ba",
    )  # fmt: skip
    assert row["verdict"] == "error" and row["calls"] == [] and row["sample_id"] == "pair1|order_ba"
    assert row["variant"].endswith("probe=position/order_ba")
    assert row["sample_error"] == "not run: the log is started and this sample never finished"
    assert unplaced == [("plain.eval", "pair9")]


def log_fields_of(row: dict[str, Any]) -> dict[str, Any]:
    """The per-log columns of a hand row (`report.frame.log_fields` of its log)."""
    keys = ("log", "task", "task_args", "model", "model_id", "variant", "kind", "dataset")
    return {**{k: row[k] for k in keys}, "dataset_arg": row["dataset_arg"], "config": ""}
