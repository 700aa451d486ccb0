"""Bad input for every command, as a table: each case exits 2 (`ExitCode.BAD_INPUT`) with ONE stderr
line in the one format `error: judgeaudit <command>: ...` that names the option or path at fault, and
never a traceback (the cases of issues 15 and 37 and more). Every subcommand the parser registers
must have cases here (`test_every_subcommand_has_cases`).

The judgeaudit commands run in-process through `judgeaudit.cli.main` (an uncaught exception fails the
case); `inspect eval` runs as a real subprocess. Nothing here reaches the network: mining reads the
small committed snapshot, and the cases fail before any model is called.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgeaudit.cli import build_parser, command_parsers, main
from judgeaudit.errors import ExitCode

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SNAPSHOT = f"snapshot:{FIXTURES / 'openreview_small'}"
SET = str(FIXTURES / "probe_items")

# (command, argv, text the one stderr line must hold, xfail reason or None). Placeholders:
# {file} an existing file, {dir} an empty directory, {empty} an empty JSONL file, {tmp} a fresh path.
CASES: list[tuple[str, list[str], str, str | None]] = [
    # validate
    ("validate", ["validate", "/nonexistent"], "/nonexistent", None),
    ("validate", ["validate", "{dir}"], "{dir}", None),
    ("validate", ["validate", "--kind", "both", "{dir}"], "--kind", None),
    ("validate", ["validate"], "PATH", None),
    ("validate", ["validate", "iclr2026/no_such_set"], "iclr2026/no_such_set", None),
    ("validate", ["validate", "{empty}"], "{empty}", None),
    (
        "validate",
        ["validate", "--kind", "pairwise", "{points}"],
        "problem(s) in 1 file(s) break the data contract (listed above; the first in {points})",
        None,
    ),
    # convert
    (
        "convert",
        ["convert", "--from", "novelty-judge-bench", "/nonexistent", "--out", "{tmp}"],
        "/nonexistent",
        None,
    ),
    (
        "convert",
        ["convert", "--from", "novelty-judge-bench", "{dir}", "--out", "{file}"],
        "--out",
        None,
    ),
    ("convert", ["convert", "--from", "elsewhere", "{dir}", "--out", "{tmp}"], "--from", None),
    ("convert", ["convert", "--from", "novelty-judge-bench", "{dir}"], "--out", None),
    # report
    ("report", ["report", "/nonexistent"], "/nonexistent", None),
    ("report", ["report", "{file}"], "{file}", None),
    ("report", ["report", "{dir}"], "{dir}", None),
    ("report", ["report", "{dir}", "--out", "{file}"], "--out", None),
    ("report", ["report", "{dir}", "--out", "{file}/sub"], "--out", None),
    ("report", ["report", "{dir}", "--seed", "-1"], "--seed", None),
    (
        "report",
        ["report", "{dir}", "--seed", "abc"],
        "error: judgeaudit report: argument --seed: invalid int value: 'abc'",
        None,
    ),
    ("report", ["report", "{dir}", "--resamples", "0"], "--resamples", None),
    ("report", ["report", "{dir}", "--resamples", "many"], "--resamples", None),
    # audit (a score judge, so no model would be called even if a case got through)
    (
        "audit",
        ["audit", "--model", "none", "--judge", "distance_nn", "--out", "{file}"],
        "--out",
        None,
    ),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "--resamples",
            "0",
        ],
        "--resamples",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--judge", "distance_nn", "--out", "{tmp}", "--seed", "-2"],
        "--seed",
        None,
    ),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "-T",
            "retrieval=abc",
        ],
        "-T retrieval=abc",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--out", "{tmp}", "-T", "both_orders=maybe"],
        "-T both_orders=maybe",
        None,
    ),
    ("audit", ["audit", "--model", "none", "--out", "{tmp}", "-T", "k=0"], "-T k=0", None),
    ("audit", ["audit", "--model", "none", "--out", "{tmp}", "-T", "novalue"], "-T", None),
    (
        "audit",
        ["audit", "--model", "none", "--out", "{tmp}", "-T", "bogus=1"],
        "-T bogus: not an option",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--judge", "distance_nn", "--out", "{tmp}", "-T", "k=3"],
        "'distance_nn' cannot honour k",
        None,
    ),
    ("audit", ["audit", "--model", "none", "--out", "{tmp}", "-M", "novalue"], "-M", None),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "--max-connections",
            "0",
        ],
        "--max-connections",
        None,
    ),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "--display",
            "loud",
        ],
        "--display",
        None,
    ),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "--probes",
            "loudness",
        ],
        "loudness",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--judge", "distance_nn", "--out", "{tmp}", "--limit", "0"],
        "--limit",
        None,
    ),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "--gates",
            "/nonexistent.yaml",
        ],
        "/nonexistent.yaml",
        None,
    ),
    (
        "audit",
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}",
            "--dataset",
            "/nonexistent",
        ],
        "/nonexistent",
        None,
    ),
    ("audit", ["audit", "--model", "none", "--judge", "oracle", "--out", "{tmp}"], "oracle", None),
    ("audit", ["audit", "--model", "none", "--kind", "sideways"], "--kind", None),
    ("audit", ["audit", "--judge", "distance_nn"], "--model", None),
    # mine
    ("mine", ["mine", "--source", SNAPSHOT, "--out", "{file}", "--no-progress"], "--out", None),
    (
        "mine",
        ["mine", "--venue", "ICLR.cc/2026/Conference", "--cache", "{file}", "--no-progress"],
        "{file}",
        None,
    ),
    (
        "mine",
        [
            "mine",
            "--source",
            SNAPSHOT,
            "--out",
            "{tmp}",
            "--dev",
            "/nonexistent.jsonl",
            "--no-progress",
        ],
        "--dev",
        None,
    ),
    (
        "mine",
        ["mine", "--source", SNAPSHOT, "--out", "{tmp}", "--dev", "{dir}", "--no-progress"],
        "--dev",
        None,
    ),
    (
        "mine",
        ["mine", "--source", SNAPSHOT, "--out", "{tmp}", "--dev", "{empty}", "--no-progress"],
        "--dev",
        None,
    ),
    (
        "mine",
        [
            "mine",
            "--source",
            SNAPSHOT,
            "--out",
            "{tmp}",
            "--extractor",
            "litellm/",
            "--no-progress",
        ],
        "--extractor",
        None,
    ),
    ("mine", ["mine", "--source", "snapshot:/nonexistent", "--out", "{tmp}"], "/nonexistent", None),
    ("mine", ["mine", "--source", "raw/iclr", "--out", "{tmp}"], "--source", None),
    ("mine", ["mine", "--source", SNAPSHOT, "--top-quantile", "2"], "--top-quantile", None),
    ("mine", ["mine", "--source", SNAPSHOT, "--min-reviews", "0"], "--min-reviews", None),
    ("mine", ["mine", "--source", SNAPSHOT, "--workers", "0"], "--workers", None),
    (
        "mine units",
        ["mine", "--source", SNAPSHOT, "units", "--write", "{tmp}/units.jsonl"],
        "--extractor",
        None,
    ),
    (
        "mine answers",
        ["mine", "answers", "--units", "/nonexistent", "--answers", "{file}"],
        "--units /nonexistent",
        None,
    ),
    ("mine", ["mine", "--source", SNAPSHOT, "--majority", "1.5"], "--majority", None),
    ("mine", ["mine", "--source", SNAPSHOT, "--sanitiser", "magic"], "--sanitiser", None),
    ("mine", ["mine", "--source", SNAPSHOT, "--seed", "abc"], "--seed", None),
    (
        "mine generate",
        [
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--dataset",
            "/nonexistent",
            "--out",
            "{tmp}",
            "--cache",
            "{tmp}/cache",
            "--no-progress",
        ],
        "/nonexistent",
        None,
    ),
    (
        "mine generate",
        [
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--dataset",
            SET,
            "--out",
            "{file}",
            "--cache",
            "{tmp}/cache",
            "--no-progress",
        ],
        "--out",
        None,
    ),
    (
        "mine generate",
        [
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--dataset",
            SET,
            "--out",
            "{tmp}",
            "--cache",
            "{file}",
            "--no-progress",
        ],
        "--cache",
        None,
    ),
    (
        "mine generate",
        ["mine", "generate", "--model", "mockllm/model", "--limit", "many"],
        "--limit",
        None,
    ),
    (
        "mine generate",
        [
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--dataset",
            SET,
            "--out",
            "{tmp}",
            "--cache",
            "{tmp}/cache",
            "-M",
            "novalue",
            "--no-progress",
        ],
        "-M",
        None,
    ),
    (
        "mine plan",
        [
            "mine",
            "plan",
            "--model",
            "mockllm/model",
            "--dataset",
            "/nonexistent",
            "--cache",
            "{tmp}/cache",
            "--no-progress",
        ],
        "/nonexistent",
        None,
    ),
    ("mine plan", ["mine", "plan", "--model", "mockllm/model"], "--dataset", None),
    # adjudicate
    (
        "adjudicate",
        ["adjudicate"],
        "error: judgeaudit adjudicate: the following arguments are required: ACTION",
        None,
    ),
    (
        "adjudicate export",
        ["adjudicate", "export", "/nonexistent", "--out", "{tmp}/sheet.csv"],
        "/nonexistent",
        None,
    ),
    ("adjudicate export", ["adjudicate", "export", "{dir}", "--out", "{file}"], "{file}", None),
    ("adjudicate import", ["adjudicate", "import", "/nonexistent.csv"], "/nonexistent.csv", None),
    ("adjudicate import", ["adjudicate", "import", "{empty}"], "{empty}", None),
    # study
    ("study", ["study"], "error: judgeaudit study: the following arguments are required", None),
    ("study tasks", ["study", "tasks", "--bogus"], "unrecognized arguments: --bogus", None),
    ("study estimate", ["study", "estimate", "--model", "x/y", "--limit", "0"], "--limit", None),
    (
        "study run",
        ["study", "run", "--model", "mockllm/model", "--log-dir", "{file}"],
        "{file}",
        None,
    ),
    # argparse's own errors, every command: one line `error: judgeaudit <cmd>: ...` (unknown option,
    # missing required argument, a non-integer --seed / --resamples), never the usage block
    (
        "validate",
        ["validate", "{dir}", "--bogus"],
        "error: judgeaudit validate: unrecognized arguments: --bogus",
        None,
    ),
    (
        "convert",
        ["convert", "--from", "novelty-judge-bench", "{dir}", "--out", "{tmp}", "--bogus"],
        "error: judgeaudit convert: unrecognized arguments: --bogus",
        None,
    ),
    (
        "convert",
        ["convert", "{dir}", "--out", "{tmp}"],
        "error: judgeaudit convert: the following arguments are required: --from",
        None,
    ),
    (
        "report",
        ["report", "{dir}", "--bogus"],
        "error: judgeaudit report: unrecognized arguments: --bogus",
        None,
    ),
    (
        "report",
        ["report"],
        "error: judgeaudit report: the following arguments are required: logdir",
        None,
    ),
    (
        "report",
        ["report", "{dir}", "--resamples", "x"],
        "error: judgeaudit report: argument --resamples: invalid int value: 'x'",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--seed", "abc"],
        "error: judgeaudit audit: argument --seed: invalid int value: 'abc'",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--resamples", "x"],
        "error: judgeaudit audit: argument --resamples: invalid int value: 'x'",
        None,
    ),
    (
        "audit",
        ["audit", "--model", "none", "--bogus"],
        "error: judgeaudit audit: unrecognized arguments: --bogus",
        None,
    ),
    (
        "audit",
        ["audit"],
        "error: judgeaudit audit: the following arguments are required: --model",
        None,
    ),
    ("mine", ["mine", "--bogus"], "error: judgeaudit mine: unrecognized arguments: --bogus", None),
    (
        "mine generate",
        ["mine", "generate", "--model", "mockllm/model", "--seed", "abc"],
        "error: judgeaudit mine generate: argument --seed: invalid int value: 'abc'",
        None,
    ),
    (
        "mine generate",
        ["mine", "generate", "--model", "mockllm/model", "--bogus"],
        "error: judgeaudit mine generate: unrecognized arguments: --bogus",
        None,
    ),
    (
        "mine generate",
        ["mine", "generate"],
        "error: judgeaudit mine generate: the following arguments are required: --model",
        None,
    ),
    (
        "mine plan",
        ["mine", "plan", "--model", "mockllm/model", "--dataset", SET, "--bogus"],
        "error: judgeaudit mine plan: unrecognized arguments: --bogus",
        None,
    ),
    ("judgeaudit", ["bogus"], "error: judgeaudit: argument COMMAND: invalid choice: 'bogus'", None),
]


def _fill(text: str, paths: dict[str, Path]) -> str:
    return text.format(**{k: str(v) for k, v in paths.items()})


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The placeholders' paths; the working directory is tmp_path (default outputs and caches land there)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JUDGEAUDIT_TRACEBACK", "0")
    (tmp_path / "a_file.txt").write_text("not a directory\n", encoding="utf-8")
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "points.jsonl").write_text(
        (Path(SET) / "pointwise.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n",
        encoding="utf-8",
    )
    return {
        "points": tmp_path / "points.jsonl",
        "file": tmp_path / "a_file.txt",
        "dir": tmp_path / "empty_dir",
        "empty": tmp_path / "empty.jsonl",
        "tmp": tmp_path / "fresh",
    }


def _params() -> list[object]:
    out = []
    for i, (command, argv, needle, pending) in enumerate(CASES):
        marks = [pytest.mark.xfail(strict=False, reason=pending)] if pending else []
        out.append(
            pytest.param(
                command, argv, needle, marks=marks, id=f"{command.replace(' ', '_')}-{i:02d}"
            )
        )
    return out


@pytest.mark.parametrize(("command", "argv", "needle"), _params())
def test_bad_input_is_one_line(
    paths: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    command: str,
    argv: list[str],
    needle: str,
) -> None:
    args = [_fill(a, paths) for a in argv]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == ExitCode.BAD_INPUT, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    prefix = "error: judgeaudit: " if command == "judgeaudit" else f"error: judgeaudit {command}: "
    assert lines[0].startswith(prefix), lines[0]
    assert _fill(needle, paths) in lines[0], lines[0]
    assert "internal error" not in lines[0], "a bad input was reported as a bug"
    if "--out" in argv and argv[argv.index("--out") + 1] == "{tmp}":
        assert not any(paths["tmp"].rglob("*.json*")), "a refused run wrote output"


def test_interrupt_is_one_line(
    paths: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during a command (here: while mine fetches from the API) ends with one line and exit 130."""
    from judgeaudit.mine.openreview import fetch

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(fetch, "fetch_venue", interrupted)
    assert (
        main(
            [
                "mine",
                "--venue",
                "ICLR.cc/2026/Conference",
                "--cache",
                str(paths["tmp"]),
                "--no-progress",
            ]
        )
        == 130
    )
    err = capsys.readouterr().err
    assert err.strip() == "judgeaudit mine: interrupted"


def test_every_subcommand_has_cases() -> None:
    """Every registered subcommand, and each added later, has bad-input cases in the table."""
    registered = set(command_parsers(build_parser()))
    assert {"validate", "report", "audit", "mine", "mine generate"} <= registered
    assert registered - {c for c, *_ in CASES} == set()


# `inspect eval` / `inspect eval-set` of the novelty tasks with a bad -T: the task is built in Inspect's
# process, inside its task group. The registry module chains a `sys.excepthook` link
# (judgeaudit.excepthook) that prints our one line and exits 2 instead of Inspect's traceback.
INSPECT_CASES: list[tuple[str, str, str]] = [
    ("novelty_pairwise", "k=0", "-T k=0: k must be >= 1"),
    ("novelty_pairwise", "prompt=nope", "-T prompt=nope: unknown pairwise prompt"),
    ("novelty_pairwise", "probe=nope", "-T probe=nope: unknown probe"),
    ("novelty_pairwise", "dataset=nope", "-T dataset=nope: unknown dataset 'nope'"),
    (
        "novelty_pairwise",
        "both_orders=maybe",
        "-T both_orders=maybe: both_orders must be true or false",
    ),
    ("novelty_pointwise", "split_rule=nope", "-T split_rule=nope: split_rule must be one of"),
    ("novelty_pairwise", "split_rule=nope", "-T split_rule: applies to novelty_pointwise only"),
    ("novelty_pointwise", "both_orders=true", "-T both_orders: applies to novelty_pairwise only"),
    ("novelty_pairwise", "seed=abc", "-T seed=abc: seed must be an integer"),
    ("novelty_pairwise", "resamples=0", "-T resamples=0: resamples must be >= 1"),
    ("novelty_pairwise", "retrieval=abc", "-T retrieval=abc: retrieval must be an integer"),
    ("novelty_pairwise", "judge=nope", "-T judge=nope: unknown judge 'nope'"),
    ("novelty_rubric_pairwise", "references=nope", "references must be one of"),
]
INSPECT_IDS = [f"{t.removeprefix('novelty_')}-{o}" for t, o, _ in INSPECT_CASES]
# Cases run again as real `inspect eval|eval-set` subprocesses: every case above fails the same way
# (a one-line TaskOptionError while the task is built, which test_task_option_refused_when_built checks
# per case), so the subprocesses cover how Inspect's CLI reports that error, once per command for an
# option check (of two registered tasks) and once per command for a dataset error (an unknown name
# here, a file that breaks the contract in test_inspect_invalid_dataset_file_is_one_line, run by
# `eval`); each subprocess costs ~6 s of start-up (the full command x case product took ~40 s of CPU).
INSPECT_CLI_CASES = [
    ("eval", *INSPECT_CASES[0]),
    ("eval-set", *INSPECT_CASES[3]),
    ("eval-set", *INSPECT_CASES[-1]),
]
INSPECT_CLI_IDS = [f"{c}-{t.removeprefix('novelty_')}-{o}" for c, t, o, _ in INSPECT_CLI_CASES]


@pytest.mark.parametrize(("task", "option", "message"), INSPECT_CASES, ids=INSPECT_IDS)
def test_task_option_refused_when_built(task: str, option: str, message: str) -> None:
    """Building the task refuses the value with one line (what `inspect eval -T` does first)."""
    import yaml

    from judgeaudit.judges.option_checks import TaskOptionError
    from judgeaudit.judges.tasks import TASKS

    key, _, value = option.partition("=")
    with pytest.raises(TaskOptionError) as info:
        TASKS[task](**{key: yaml.safe_load(value)})
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def _inspect_refuses(tmp_path: Path, command: str, task: str, *args: str) -> list[str]:
    """Run a real `inspect <command> judgeaudit/<task> *args --limit 1` subprocess that must refuse
    its input: exit 2, no traceback, no log written; returns its non-empty stderr lines."""
    inspect_cli = Path(sys.executable).with_name("inspect")
    logs = tmp_path / "logs"
    proc = subprocess.run(
        [str(inspect_cli), command, f"judgeaudit/{task}", *args, "--limit", "1"]
        + ["--log-dir", str(logs)],
        cwd=tmp_path,
        env={**os.environ, "INSPECT_LOG_DIR": str(logs)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert not list(logs.rglob("*.eval")), "a log was written: the task ran"
    return [line for line in proc.stderr.splitlines() if line.strip()]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "task", "option", "message"), INSPECT_CLI_CASES, ids=INSPECT_CLI_IDS
)
def test_inspect_bad_option_is_one_line(
    tmp_path: Path, command: str, task: str, option: str, message: str
) -> None:
    """A real `inspect eval|eval-set` subprocess: exit 2, one stderr line naming the option, no log written."""
    lines = _inspect_refuses(tmp_path, command, task, "-T", option, "--model", "mockllm/model")
    assert lines == [f"error: {message}"] or (
        len(lines) == 1 and lines[0].startswith(f"error: {message}")
    ), lines


@pytest.mark.slow
def test_inspect_invalid_dataset_file_is_one_line(tmp_path: Path) -> None:
    """A dataset file that breaks the contract, given to `inspect eval -T dataset=`: one line naming it, exit 2."""
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pairwise.jsonl").write_text('{"id": "p1", "kind": "pairwise"}\n', encoding="utf-8")
    lines = _inspect_refuses(
        tmp_path, "eval", "novelty_pairwise", "-T", f"dataset={bad}", "--model", "mockllm/model"
    )
    assert len(lines) == 1 and lines[0].startswith("error: ") and "pairwise.jsonl" in lines[0], (
        lines
    )


@pytest.mark.slow
def test_inspect_unknown_local_model_is_one_line(tmp_path: Path) -> None:
    """A wrong `local/` model under `inspect eval` (the provider's set-up error, raised inside
    Inspect's task group): one line naming it and exit 2, as for a wrong planted preset (was a
    231-line exception-group traceback). A bad `-M grammar=` takes the same path
    (tests/test_excepthook.py)."""
    lines = _inspect_refuses(tmp_path, "eval", "novelty_pairwise", "--model", "local/gemma-3-27b")
    assert lines == [
        "error: unknown local model 'gemma-3-27b': use local/gemma-3-270m or local/<path to a "
        ".gguf file>"
    ], lines
