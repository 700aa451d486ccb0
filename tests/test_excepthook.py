"""The chained `sys.excepthook` link: a TaskOptionError anywhere in an uncaught exception (its groups,
its cause/context chain) becomes one `error:` line and its exit code (2 for bad input); everything
else reaches the previous hook.
The subprocess tests of `inspect eval` / `eval-set` are in tests/cli/test_bad_inputs.py."""

from __future__ import annotations

import sys
from types import TracebackType

import pytest

from judgeaudit import excepthook
from judgeaudit.data.validate import ContractError
from judgeaudit.excepthook import (
    UserErrorHook,
    find_user_error,
    install_user_error_hook,
)
from judgeaudit.judges.option_checks import TaskDatasetError, TaskOptionError


def _raised(exc: BaseException) -> BaseException:
    """`exc` after raising it (so it carries a traceback and implicit context like a real one)."""
    try:
        raise exc
    except BaseException as caught:  # noqa: BLE001 - returned for inspection
        return caught


def _chained() -> BaseException:
    try:
        raise TaskOptionError("-T k=0: k must be >= 1")
    except TaskOptionError as inner:
        try:
            raise RuntimeError("while building the task") from inner
        except RuntimeError as outer:
            return outer


def test_finds_the_error_in_groups_and_chains() -> None:
    plain = TaskOptionError("-T k=0: k must be >= 1")
    assert find_user_error(plain) is plain
    nested = ExceptionGroup("outer", [ValueError("other"), ExceptionGroup("inner", [plain])])
    assert find_user_error(nested) is plain
    found = find_user_error(_chained())
    assert isinstance(found, TaskOptionError) and str(found).startswith("-T k=0")
    dataset = TaskDatasetError("-T dataset=nope: unknown dataset 'nope'")
    assert isinstance(dataset, FileNotFoundError)
    assert find_user_error(ExceptionGroup("g", [dataset])) is dataset
    contract = ContractError([])
    assert find_user_error(ExceptionGroup("g", [RuntimeError("x"), contract])) is contract


def test_other_errors_are_not_found() -> None:
    assert find_user_error(None) is None
    assert find_user_error(ValueError("k must be >= 1")) is None
    assert find_user_error(ExceptionGroup("g", [KeyError("k"), RuntimeError("x")])) is None
    looped = _raised(ValueError("a"))
    looped.__context__ = looped  # a cycle must not hang the walk
    assert find_user_error(looped) is None


def test_hook_prints_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[BaseException] = []

    def previous(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        calls.append(exc)

    hook = UserErrorHook(previous)
    group = _raised(
        ExceptionGroup("unhandled errors in a TaskGroup", [TaskOptionError("-T  seed=abc:\n bad")])
    )
    with pytest.raises(SystemExit) as info:
        hook(type(group), group, group.__traceback__)
    assert info.value.code == 2
    assert capsys.readouterr().err == "error: -T seed=abc: bad\n"
    assert calls == []


def test_hook_delegates_everything_else() -> None:
    calls: list[BaseException] = []

    def previous(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        calls.append(exc)

    other = _raised(RuntimeError("a real crash"))
    UserErrorHook(previous)(type(other), other, other.__traceback__)
    assert calls == [other]


def test_install_is_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed once per process: importing the registry twice does not stack the link."""

    def original(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        return None

    monkeypatch.setattr(sys, "excepthook", original)
    monkeypatch.setattr(excepthook, "_installed", [])
    install_user_error_hook()
    first = sys.excepthook
    assert isinstance(first, UserErrorHook) and first.previous is original
    install_user_error_hook()
    assert sys.excepthook is first


def test_a_provider_set_up_error_is_one_line_with_its_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A wrong local model or grammar (raised while Inspect builds the model, inside its task
    group) is one line and exit 2, as a wrong planted preset is; a UserError carrying another exit
    code exits with that code."""
    from judgeaudit.errors import ExitCode, UserError
    from judgeaudit.providers.gguf import resolve_gguf
    from judgeaudit.providers.grammars import resolve_grammar

    hook = UserErrorHook(lambda *a: None)
    for build, line in (
        (lambda: resolve_gguf("gemma-3-27b"), "error: unknown local model 'gemma-3-27b': use"),
        (lambda: resolve_grammar("pairwse", ""), "error: -M grammar=pairwse: unknown grammar"),
    ):
        with pytest.raises(UserError) as raised:
            build()
        group = _raised(ExceptionGroup("unhandled errors in a TaskGroup", [raised.value]))
        with pytest.raises(SystemExit) as info:
            hook(type(group), group, group.__traceback__)
        err = capsys.readouterr().err
        assert info.value.code == ExitCode.BAD_INPUT and err.startswith(line)
        assert err.count("\n") == 1
    failed = _raised(UserError("could not judge: 2 of 2 calls failed", exit_code=ExitCode(3)))
    with pytest.raises(SystemExit) as info:
        hook(type(failed), failed, failed.__traceback__)
    assert info.value.code == 3
