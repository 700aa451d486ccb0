"""Bad inputs to `judgeaudit mine` (and its `generate` / `plan` actions): one clear line, non-zero exit, no traceback.

The CLI runs in-process through `judgeaudit.cli.main` (real argument parsing, real files); the
Ctrl-C case runs the console script as a child process and interrupts it while it waits on a model
server (a local socket that accepts and never answers: the real provider is unreachable here).
Plan runs use Inspect's real `mockllm/model`, scripted to fail.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.child_processes import default_sigint
from helpers.items import make_pairs, make_points
from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.cli import main
from judgeaudit.data.card import write_card
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.manifest import write_manifest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"
SRC = f"snapshot:{FIXTURE}"


def _paths(tmp: Path) -> dict[str, str]:
    """Bad paths of every kind, created under tmp."""
    (tmp / "a_file").write_text("not a directory\n")
    (tmp / "empty.jsonl").write_text("")
    (tmp / "blank.jsonl").write_text("\n\n")
    (tmp / "garbage.jsonl").write_text("{not json\n")
    (tmp / "a_dir").mkdir()
    return {
        "FILE": str(tmp / "a_file"),
        "EMPTY": str(tmp / "empty.jsonl"),
        "BLANK": str(tmp / "blank.jsonl"),
        "GARBAGE": str(tmp / "garbage.jsonl"),
        "DIR": str(tmp / "a_dir"),
        "MISSING": str(tmp / "missing"),
        "OUT": str(tmp / "out"),
    }


# (case id, argv after `judgeaudit`, text the single error line must contain)
CASES: list[tuple[str, list[str], str]] = [
    ("out-is-file", ["mine", "--source", SRC, "--out", "{FILE}"], "--out"),
    ("cache-is-file", ["mine", "--cache", "{FILE}", "--out", "{OUT}"], "--cache"),
    (
        "llm-cache-is-file",
        ["mine", "--source", SRC, "--llm-cache", "{FILE}", "--out", "{OUT}"],
        "--llm-cache",
    ),
    ("dev-missing", ["mine", "--source", SRC, "--dev", "{MISSING}", "--out", "{OUT}"], "--dev"),
    ("dev-directory", ["mine", "--source", SRC, "--dev", "{DIR}", "--out", "{OUT}"], "--dev"),
    ("dev-empty", ["mine", "--source", SRC, "--dev", "{EMPTY}", "--out", "{OUT}"], "--dev"),
    ("dev-blank-lines", ["mine", "--source", SRC, "--dev", "{BLANK}", "--out", "{OUT}"], "--dev"),
    (
        "dev-not-json",
        ["mine", "--source", SRC, "--dev", "{GARBAGE}", "--out", "{OUT}"],
        "invalid JSON",
    ),
    (
        "extractor-litellm-empty",
        ["mine", "--source", SRC, "--extractor", "litellm/", "--out", "{OUT}"],
        "--extractor",
    ),
    (
        "extractor-unknown",
        ["mine", "--source", SRC, "--extractor", "nope", "--out", "{OUT}"],
        "--extractor",
    ),
    (
        "extractor-missing-json",
        ["mine", "--source", SRC, "--extractor", "{MISSING}.json", "--out", "{OUT}"],
        "missing.json",
    ),
    (
        "sanitiser-unknown",
        ["mine", "--source", SRC, "--sanitiser", "nope", "--out", "{OUT}"],
        "--sanitiser",
    ),
    (
        "sanitiser-litellm-empty",
        ["mine", "--source", SRC, "--sanitiser", "litellm/", "--out", "{OUT}"],
        "--sanitiser",
    ),
    (
        "majority-rule-nope",
        ["mine", "--source", SRC, "--majority-rule", "nope", "--out", "{OUT}"],
        "--majority-rule",
    ),
    (
        "weak-affirmations-nope",
        ["mine", "--source", SRC, "--weak-affirmations", "nope", "--out", "{OUT}"],
        "--weak-affirmations",
    ),
    ("workers-zero", ["mine", "--source", SRC, "--workers", "0", "--out", "{OUT}"], "--workers"),
    ("majority-one", ["mine", "--source", SRC, "--majority", "1", "--out", "{OUT}"], "--majority"),
    (
        "min-reviews-zero",
        ["mine", "--source", SRC, "--min-reviews", "0", "--out", "{OUT}"],
        "--min-reviews",
    ),
    (
        "max-opposing-negative",
        ["mine", "--source", SRC, "--max-opposing", "-1", "--out", "{OUT}"],
        "--max-opposing",
    ),
    (
        "quantiles-crossed",
        [
            "mine",
            "--source",
            SRC,
            "--top-quantile",
            "0.1",
            "--bottom-quantile",
            "0.9",
            "--out",
            "{OUT}",
        ],
        "--top-quantile",
    ),
    (
        "reviews-as-of-no-zone",
        ["mine", "--source", SRC, "--reviews-as-of", "2025-11-13T08:00", "--out", "{OUT}"],
        "--reviews-as-of '2025-11-13T08:00' names no time zone",
    ),
    (
        "reviews-as-of-unreadable",
        ["mine", "--source", SRC, "--reviews-as-of", "last week", "--out", "{OUT}"],
        "--reviews-as-of 'last week' is not an ISO 8601 time",
    ),
    ("source-no-prefix", ["mine", "--source", "{DIR}", "--out", "{OUT}"], "--source"),
    ("source-missing", ["mine", "--source", "snapshot:{MISSING}", "--out", "{OUT}"], "--source"),
    ("source-is-file", ["mine", "--source", "snapshot:{FILE}", "--out", "{OUT}"], "--source"),
    ("source-empty-dir", ["mine", "--source", "snapshot:{DIR}", "--out", "{OUT}"], "a_dir"),
    (
        "generate-out-is-file",
        ["mine", "generate", "--model", "mockllm/model", "--out", "{FILE}"],
        "--out",
    ),
    (
        "generate-cache-is-file",
        ["mine", "generate", "--model", "mockllm/model", "--cache", "{FILE}", "--out", "{OUT}"],
        "--cache",
    ),
    (
        "generate-limit-zero",
        ["mine", "generate", "--model", "mockllm/model", "--limit", "0", "--out", "{OUT}"],
        "--limit",
    ),
    (
        "generate-attempts-zero",
        ["mine", "generate", "--model", "mockllm/model", "--attempts", "0", "--out", "{OUT}"],
        "--attempts",
    ),
    (
        "generate-dataset-missing",
        [
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--dataset",
            "{MISSING}",
            "--out",
            "{OUT}",
        ],
        "missing",
    ),
    (
        "generate-model-empty",
        ["mine", "generate", "--model", "litellm/", "--out", "{OUT}"],
        "--model",
    ),
    (
        "generate-bad-M",
        ["mine", "generate", "--model", "mockllm/model", "-M", "novalue", "--out", "{OUT}"],
        "-M",
    ),
    (
        "plan-dataset-missing",
        ["mine", "plan", "--model", "mockllm/model", "--dataset", "{MISSING}"],
        "missing",
    ),
    (
        "plan-dataset-is-file",
        ["mine", "plan", "--model", "mockllm/model", "--dataset", "{FILE}"],
        "a_file",
    ),
    (
        "plan-max-tokens-zero",
        ["mine", "plan", "--model", "mockllm/model", "--dataset", "{DIR}", "--max-tokens", "0"],
        "--max-tokens",
    ),
    (
        "plan-cache-is-file",
        ["mine", "plan", "--model", "mockllm/model", "--dataset", "{DIR}", "--cache", "{FILE}"],
        "--cache",
    ),
]


def _one_error_line(err: str, must_name: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("error: judgeaudit mine") and must_name in lines[0], lines[0]
    assert "internal error" not in lines[0], "a bad input was reported as a bug"
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "must_name"),
    [(argv, name) for _, argv, name in CASES],
    ids=[case for case, _, _ in CASES],
)
def test_bad_input_is_one_line(
    argv: list[str], must_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _paths(tmp_path)
    filled = [a.format(**paths) for a in argv]
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main([*filled, "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    _one_error_line(err, must_name.format(**paths))
    assert (
        sorted(p.name for p in tmp_path.iterdir()) == before
    )  # nothing written, not even the --out root
    assert Path(paths["FILE"]).read_text() == "not a directory\n"


def test_help_names_where_the_rule_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["mine", "--help"])
    text = capsys.readouterr().out
    assert "DESIGN.md" not in text and "dataset card" in text
    with pytest.raises(SystemExit):
        main(["mine", "plan", "--help"])
    text = capsys.readouterr().out
    assert "purpose" in text and "Rewrite every idea" in text


# --- mine plan failures: reasons reported, the set left valid -------------------------------------------------


def _small_set(root: Path, marked: str | None = None) -> Path:
    """A valid set (one pair: ideas n0, p0; two points: q0, q1) with manifest and card; `marked` idea gets MODEL-ERROR."""
    d = root / "human_only"
    write_items(d / "pairwise.jsonl", make_pairs(1))
    write_items(d / "pointwise.jsonl", make_points(2))
    if marked:
        for f in (d / "pairwise.jsonl", d / "pointwise.jsonl"):
            f.write_text(
                f.read_text(encoding="utf-8").replace(
                    f"Idea {marked}:", f"MODEL-ERROR Idea {marked}:"
                ),
                encoding="utf-8",
            )
    write_manifest(
        d,
        source={"kind": "test"},
        command="built by tests/mine/test_commands_bad_inputs.py",
        name=d.name,
    )
    write_card(d, pretty_name="test set", summary="A tiny test set.", sections={})
    return d


def _script(good: bool, error: str) -> Any:
    """A mockllm callable: an idea marked MODEL-ERROR raises `error`; the others answer a plan (good) or rambling."""

    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = messages[-1].text
        if "MODEL-ERROR" in prompt:
            raise RuntimeError(error)
        tag = hashlib.sha256(prompt.encode()).hexdigest()[:6]
        text = (
            (
                f" to make method {tag} dependable for practitioners.\nMechanism: it learns a compact model {tag} "
                "of the inputs and then adapts it per task with a few steps."
            )
            if good
            else "just rambling text"
        )
        out = ModelOutput.from_content(model="mockllm", content=text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return out

    return answer


def _run_plan(d: Path, tmp_path: Path, script: Any, monkeypatch: pytest.MonkeyPatch) -> int:
    import judgeaudit.mine.generate.actions as actions

    original = actions._cached_model

    def scripted(args: Any, action: str) -> Any:
        model = original(args, action)
        model.model_args["custom_outputs"] = script  # custom_outputs cannot pass through -M
        return model

    monkeypatch.setattr(actions, "_cached_model", scripted)
    return main(
        [
            "mine",
            "plan",
            "--model",
            "mockllm/model",
            "--dataset",
            str(d),
            "--cache",
            str(tmp_path / "c"),
            "--attempts",
            "2",
            "--no-progress",
        ]
    )


def test_failed_plan_run_reports_reasons_and_leaves_a_valid_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = _small_set(tmp_path, marked="n0")
    assert main(["validate", str(d)]) == 0
    capsys.readouterr()
    before = sorted(p.name for p in d.iterdir())
    code = _run_plan(
        d, tmp_path, _script(False, "provider said 503 service unavailable"), monkeypatch
    )
    err = capsys.readouterr().err
    assert code == 2
    line = _one_error_line(err, str(d))
    assert line.endswith(
        "4 of 4 ideas not rewritten: 1 model error (provider said 503 service unavailable), "
        "3 output failed the plan check (no purpose and mechanism fields)"
    ), line
    assert sorted(p.name for p in d.iterdir()) == before  # no *_plan.jsonl left behind
    assert not list(tmp_path.glob(".human_only.*"))  # no staging leftovers
    assert main(["validate", str(d)]) == 0


def test_partly_failed_plan_run_prints_each_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = _small_set(tmp_path, marked="q1")
    code = _run_plan(d, tmp_path, _script(True, "rate limited"), monkeypatch)
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    assert "1 of 4 ideas not rewritten: 1 model error (rate limited)" in out
    assert "  q1: model error (rate limited)" in out
    assert sorted(p.name for p in d.glob("*_plan.jsonl")) == [
        "pairwise_plan.jsonl",
        "pointwise_plan.jsonl",
    ]
    assert main(["validate", str(d)]) == 0


# --- Ctrl-C ---------------------------------------------------------------------------------------------------


def test_ctrl_c_during_mine_prints_interrupted_and_keeps_the_old_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "human_only").mkdir(parents=True)
    (out / "human_only" / "old.txt").write_text("the old set\n")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(120)
    port = server.getsockname()[1]
    env = {
        **os.environ,
        "OPENAI_API_KEY": "test-key-not-secret",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judgeaudit",
            "mine",
            "--source",
            SRC,
            "--out",
            str(out),
            "--no-progress",
            "--workers",
            "1",
            "--extractor",
            "litellm/openai/never-answers",
            "--api-base",
            f"http://127.0.0.1:{port}/v1",
            "--llm-cache",
            str(tmp_path / "llm"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=default_sigint,
    )
    try:
        conn, _ = server.accept()  # mining reached its first model call, which now waits forever
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        conn.close()
    finally:
        if child.poll() is None:
            child.kill()
        server.close()
    assert child.returncode == 130, err
    assert "Traceback" not in err
    assert (
        err.strip().splitlines()[-1] == "judgeaudit mine: interrupted"
    )  # judgeaudit.cli's one line
    assert [p.name for p in (out / "human_only").iterdir()] == ["old.txt"]
    assert [p.name for p in out.iterdir()] == ["human_only"]  # the lock file went with the lock
