"""`judgeaudit report` output directories: one writer at a time, one coherent set, a killed run cleaned up.

Reports run as real `judgeaudit report` child processes over real Inspect logs (mockllm answering
through a scripted policy, since no LLM is reachable in tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock
from fixtures.probe_judges import scripted
from helpers.inspect_runs import run_scripted
from helpers.items import FIXTURES

from judgeaudit.cli import main
from judgeaudit.files import LOCK_NAME
from judgeaudit.judges.tasks import novelty_pairwise

FIX = FIXTURES / "probe_items"


@pytest.fixture(scope="module")
def two_logdirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Log dir A: one run; log dir B: the same run plus a position-probe run (more logs, more rows)."""
    a, b = tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b")
    run_scripted(
        novelty_pairwise(dataset=str(FIX), cache=False), scripted.judge(scripted.always_first), a
    )
    shutil.copytree(a / "logs", b / "logs")
    run_scripted(
        novelty_pairwise(dataset=str(FIX), probe="position", cache=False),
        scripted.judge(scripted.always_first),
        b,
    )
    return a / "logs", b / "logs"


def _report(logdir: Path, out: Path, **env: str) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        "-m",
        "judgeaudit.cli",
        "report",
        str(logdir),
        "--out",
        str(out),
        "--resamples",
        "200",
    ]
    return subprocess.Popen(
        argv, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _coherent(out: Path) -> dict:
    """report.json, items.csv and the tables on disk belong to one run; returns report.json."""
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    rows = (out / "items.csv").read_text(encoding="utf-8").strip().splitlines()
    assert len(rows) - 1 == data["input"]["rows"]
    listed = {Path(p).name for t in data["files"]["tables"].values() for p in t.values()}
    listed |= {Path(p).name for f in data["files"]["figures"].values() for p in f.values()}
    on_disk = {p.name for p in out.iterdir() if p.suffix in {".csv", ".md", ".tex", ".png", ".svg"}}
    assert on_disk - {"items.csv", "report.md"} == listed
    assert all(str(out) in p for t in data["files"]["tables"].values() for p in t.values())
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # the lock file too
    # every output, figures included, has the usual mode (0666 minus the umask), not mkstemp's 0600
    modes = {p.name: p.stat().st_mode & 0o777 for p in out.rglob("*") if p.is_file()}
    assert set(modes.values()) == {modes["report.json"]} and modes["report.json"] != 0o600, modes
    return data


def test_two_reports_into_one_out_end_with_one_coherent_set(
    two_logdirs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    runs = [_report(two_logdirs[0], out), _report(two_logdirs[1], out)]
    done = [(p.wait(timeout=400), p.stdout.read(), p.stderr.read()) for p in runs]  # type: ignore[union-attr]
    for code, _stdout, stderr in done:
        assert code == 0, stderr  # the lock makes them take turns
    data = _coherent(out)
    assert data["input"]["logs_read"] in (1, 2)  # whichever finished last describes the whole set


def test_a_report_refuses_an_out_another_run_holds(
    two_logdirs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    out.mkdir()
    with FileLock(str(out / LOCK_NAME), is_singleton=False, thread_local=False):
        proc = _report(two_logdirs[0], out, JUDGEAUDIT_LOCK_WAIT="1")
        code = proc.wait(timeout=300)
        stderr = proc.stderr.read()  # type: ignore[union-attr]
    assert code == 2
    assert stderr.strip().count("\n") == 0 and "Traceback" not in stderr
    assert "being written by another run" in stderr and str(out) in stderr
    assert not (out / "report.json").exists()


def test_leftovers_of_a_killed_report_are_cleaned_by_the_next(
    two_logdirs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    # the first report in this process (the same build_report the CLI runs; a child process only added
    # its start-up): the child process that follows is the one under test
    assert main(["report", str(two_logdirs[1]), "--out", str(out), "--resamples", "200"]) == 0
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["input"]["logs_read"] == 2
    # what a run killed mid-write leaves: a staging dir, hidden temporary figures, a temp file
    (out / ".staging-k1ll3d00").mkdir()
    (out / ".staging-k1ll3d00" / "report.json").write_text("{}", encoding="utf-8")
    for name in (".cost.png.ab12cd34.png", ".cost.svg.ab12cd34.svg", ".report.json.zz99yy88.tmp"):
        (out / name).write_text("half", encoding="utf-8")
    second = _report(two_logdirs[0], out)
    assert second.wait(timeout=300) == 0, second.stderr.read()  # type: ignore[union-attr]
    data = _coherent(out)  # also: no hidden file but the lock
    assert (
        data["input"]["logs_read"] == 1
    )  # and the B run's extra tables are gone with its report.json
