"""`run_audit`'s output directory: two identical audits at once take turns and leave one battery.

Real `judgeaudit audit` child processes with `mockllm/model` (its fixed reply is an invalid
verdict, which the audit still scores: the point here is the logs, not the verdict).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.items import FIXTURES
from inspect_ai.log import list_eval_logs

FIX = FIXTURES / "probe_items"


def test_two_identical_audits_at_once_leave_three_logs_and_one_card(tmp_path: Path) -> None:
    out = tmp_path / "audit"
    argv = [
        sys.executable,
        "-m",
        "judgeaudit.cli",
        "audit",
        "--model",
        "mockllm/model",
        "--dataset",
        str(FIX),
        "--limit",
        "2",
        "--probes",
        "position,repeat",
        "--out",
        str(out),
        "--resamples",
        "200",
        "--display",
        "none",
    ]
    env = {
        **os.environ,
        "INSPECT_CACHE_DIR": str(tmp_path / "cache"),
        "JUDGEAUDIT_LOCK_WAIT": "500",
    }
    runs = [
        subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    done = [(p.wait(timeout=550), p.stdout.read(), p.stderr.read()) for p in runs]  # type: ignore[union-attr]
    for code, stdout, stderr in done:
        assert code == 0 and "card:" in stdout, stderr
    logs = list_eval_logs(str(out / "logs"))
    assert (
        len(logs) == 3
    )  # unperturbed, repeat (seed + 1), position: the second run resumed the first's
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["items"]["count"] == 2 and card["headline"]["n_items"] == 2
    assert not [p.name for p in out.iterdir() if p.name.startswith(".staging-")]


def test_generated_is_repeatable_and_a_bad_set_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from judgeaudit.cli import main

    missing = tmp_path / "no-such-backbone"
    code = main(
        [
            "audit",
            "--model",
            "mockllm/model",
            "--dataset",
            str(FIX),
            "--limit",
            "2",
            "--probes",
            "self_preference",
            "--generated",
            str(FIX),
            "--generated",
            str(missing),
            "--out",
            str(tmp_path / "audit"),
            "--display",
            "none",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert (
        f"--generated {str(missing)!r}: no such directory" in err
    )  # the second value reached the audit
    code = main(
        [
            "audit",
            "--model",
            "mockllm/model",
            "--dataset",
            str(FIX),
            "--limit",
            "2",
            "--probes",
            "self_preference",
            "--generated",
            str(FIX),
            "--out",
            str(tmp_path / "audit"),
            "--display",
            "none",
        ]
    )
    err = capsys.readouterr().err
    assert (
        code == 2
        and f"--generated {str(FIX)!r}: no Human+Generated pairwise items with a generated side"
        in err
    )
    assert not list((tmp_path / "audit").glob("logs/*"))
