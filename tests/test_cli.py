"""The one CLI error handler (judgeaudit.cli.main): our own errors are one `error:` line (exit 2), an
unexpected ValueError/KeyError is reported as an internal error (exit 1, how to get the traceback),
JUDGEAUDIT_TRACEBACK=1 re-raises, and argparse errors are one line naming the command (exit 2).

The command's work is replaced by a function that raises (monkeypatched `build_report`): the point is
what the handler does with each kind of exception, which no real input can reach for the bug cases.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.cli_args import UsageError
from judgeaudit.errors import UserError
from judgeaudit.judges.option_checks import TaskOptionError
from judgeaudit.report import commands as report_commands


def _raising(exc: BaseException) -> object:
    def build_report(*args: object, **kwargs: object) -> None:
        raise exc

    return build_report


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> int:
    monkeypatch.setattr(report_commands, "build_report", _raising(exc))
    return main(["report", str(tmp_path), "--out", str(tmp_path / "out")])


def test_our_errors_derive_from_user_error() -> None:
    assert issubclass(UsageError, UserError) and issubclass(TaskOptionError, UserError)


@pytest.mark.parametrize(
    "exc", [ValueError("could not convert 'x'"), KeyError("model")], ids=["ValueError", "KeyError"]
)
def test_unexpected_value_or_key_error_is_an_internal_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    exc: BaseException,
) -> None:
    monkeypatch.delenv("JUDGEAUDIT_TRACEBACK", raising=False)
    assert _run(tmp_path, monkeypatch, exc) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        f"error: judgeaudit report: internal error (a bug, please report it): "
        f"{type(exc).__name__}: "
    )
    assert "JUDGEAUDIT_TRACEBACK=1" in lines[0]


def test_user_error_is_one_line_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A UserError the command does not catch itself reaches the handler: one line, exit 2."""
    from judgeaudit import cli

    monkeypatch.delenv("JUDGEAUDIT_TRACEBACK", raising=False)
    parser = cli.build_parser()
    monkeypatch.setattr(
        cli,
        "build_parser",
        lambda: _with_func(parser, _raising(UserError("--thing 3:\n  not usable"))),
    )
    assert main(["report", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: judgeaudit report: --thing 3: not usable\n"


def _with_func(parser: argparse.ArgumentParser, func: object) -> argparse.ArgumentParser:
    """`parser` whose parsed namespace calls `func` (the subcommand's handler replaced)."""
    original = parser.parse_args

    def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
        args = original(argv)
        args.func = func
        return args

    parser.parse_args = parse_args  # type: ignore[method-assign, assignment]
    return parser


def test_traceback_env_re_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEAUDIT_TRACEBACK", "1")
    with pytest.raises(ValueError, match="could not convert"):
        _run(tmp_path, monkeypatch, ValueError("could not convert 'x'"))


def test_other_exceptions_keep_their_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGEAUDIT_TRACEBACK", raising=False)
    with pytest.raises(RuntimeError, match="crash"):
        _run(tmp_path, monkeypatch, RuntimeError("crash"))


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "x"],
        ["convert", "--from", "novelty-judge-bench", "s", "--out", "o"],
        ["mine"],
        ["mine", "generate", "--model", "m"],
        ["mine", "plan", "--model", "m", "--dataset", "d"],
        ["report", "logs"],
        ["audit", "--model", "m"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_every_command_names_a_handler_that_exists(argv: list[str]) -> None:
    """The parser names each handler by module and function (imported when the command runs): both must exist."""
    from judgeaudit import cli

    handler = cli.build_parser().parse_args(argv).func
    assert handler.module.endswith((".commands", ".actions")) and callable(handler.load())
