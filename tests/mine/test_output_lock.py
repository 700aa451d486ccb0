"""`judgeaudit mine`, `mine generate` and `mine plan` lock the set they write (`mine.staging.set_lock`).

Real processes: a holder process takes the output lock the way any judgeaudit run does
(`files.locked_output_dir`), and the mine command runs as a second `judgeaudit` process. With no
wait allowed it refuses with one line and writes nothing; with a wait it waits for the holder and
then writes. Two real `judgeaudit mine` runs started together into one `--out` both finish and
leave one valid set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.mine_options import LOOSE

from judgeaudit.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "openreview_small"
HOLD = """
import sys, time
from judgeaudit.files import locked_output_dir
with locked_output_dir(sys.argv[1]):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _env(tmp_path: Path, wait: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREVIEW_")}
    env.update(
        {
            "JUDGEAUDIT_LOCK_WAIT": str(wait),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "INSPECT_CACHE_DIR": str(tmp_path / "inspect-cache"),
            "HF_HOME": str(tmp_path / "hf"),
        }
    )
    return env


def _judgeaudit(args: list[str], tmp_path: Path, wait: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "judgeaudit.cli", *args],
        cwd=tmp_path,
        env=_env(tmp_path, wait),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _hold(lock_dir: Path, seconds: float, tmp_path: Path) -> subprocess.Popen[str]:
    """A process holding `lock_dir`'s output lock for `seconds` (returns once it holds it)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock_dir), str(seconds)],
        env=_env(tmp_path, 0),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def _mine_args(out: Path) -> list[str]:
    return ["mine", "--source", f"snapshot:{FIXTURE}", "--out", str(out), "--no-progress", *LOOSE]


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Human-Only set mined once from the small fixture (the plan and generate cases copy it)."""
    tmp = tmp_path_factory.mktemp("mined")
    proc = _judgeaudit(_mine_args(tmp / "out"), tmp, 0)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return tmp / "out" / "human_only"


def _case(command: str, tmp_path: Path, mined: Path) -> tuple[list[str], Path, Path]:
    """(argv, directory whose lock the command takes, set directory it writes)."""
    if command == "mine":
        out = tmp_path / "out"
        return _mine_args(out), out, out / "human_only"
    source = tmp_path / "sets" / "human_only"
    shutil.copytree(mined, source)
    if command == "mine generate":
        out = tmp_path / "gen"
        argv = [
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--dataset",
            str(source),
            "--out",
            str(out),
            "--limit",
            "2",
            "--no-progress",
            "--cache",
            str(tmp_path / "llm-cache"),
        ]
        return argv, out / "human_generated", out / "human_generated" / "model"
    argv = [
        "mine",
        "plan",
        "--model",
        "mockllm/model",
        "--dataset",
        str(source),
        "--no-progress",
        "--cache",
        str(tmp_path / "llm-cache"),
    ]
    return argv, source.parent, source


@pytest.mark.slow
@pytest.mark.parametrize("command", ["mine", "mine generate", "mine plan"])
def test_a_second_run_refuses_with_one_line_while_the_output_is_locked(
    command: str, tmp_path: Path, mined: Path
) -> None:
    argv, lock_dir, set_dir = _case(command, tmp_path, mined)
    before = sorted(p.name for p in set_dir.iterdir()) if set_dir.is_dir() else []
    holder = _hold(lock_dir, 120, tmp_path)
    try:
        proc = _judgeaudit(argv, tmp_path, 0)
        out, err = proc.communicate(timeout=300)
    finally:
        holder.terminate()
        holder.wait(timeout=30)
    lines = [
        line
        for line in err.splitlines()
        if line.strip()
        and not line.startswith("reading raw cache")
        and not line.startswith("parsed ")
    ]
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1 and "is being written by another run" in lines[0], err
    assert str(lock_dir) in lines[0]
    after = sorted(p.name for p in set_dir.iterdir()) if set_dir.is_dir() else []
    assert after == before, "a refused run changed the set"


@pytest.mark.slow
def test_a_second_run_waits_for_the_lock_then_writes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = _hold(out, 3, tmp_path)
    started = time.monotonic()
    proc = _judgeaudit(_mine_args(out), tmp_path, 120)
    _, err = proc.communicate(timeout=300)
    holder.wait(timeout=30)
    assert proc.returncode == 0, err
    assert time.monotonic() - started >= 2.5  # it could only write once the holder let go
    assert main(["validate", str(out / "human_only")]) == 0


@pytest.mark.slow
def test_two_mines_into_one_out_leave_one_valid_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    procs = [_judgeaudit(_mine_args(out), tmp_path, 300) for _ in range(2)]
    results = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in results]
    assert all("Traceback" not in err for _, err in results)
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".judgeaudit")) == [
        "human_only"
    ]
    assert sorted(p.name for p in (out / "human_only").iterdir()) == [
        "README.md",
        "labelled.jsonl",
        "manifest.json",
        "pairwise.jsonl",
        "pointwise.jsonl",
    ]
    assert main(["validate", str(out / "human_only")]) == 0
    shutil.rmtree(out)
