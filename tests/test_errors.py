"""`judgeaudit.errors`: the one table of exit codes, the error type carrying its code, and the
user documentation's table agreeing with the code."""

from __future__ import annotations

import re
from pathlib import Path

from judgeaudit.errors import (
    EXIT_MEANINGS,
    ExitCode,
    ModelSetupError,
    UserError,
    as_user_error,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "reference" / "exit-codes.md"


def test_a_user_error_carries_its_exit_code() -> None:
    assert UserError("x").exit_code == ExitCode.BAD_INPUT
    assert UserError("x", exit_code=ExitCode.COULD_NOT_JUDGE).exit_code == 3
    assert ModelSetupError("x").exit_code == 2 and isinstance(ModelSetupError("x"), ValueError)
    plain = ValueError("could not convert string to float: 'a'")
    converted = as_user_error(plain)
    assert type(converted) is UserError and str(converted) == str(plain)
    ours = UserError("kept")
    assert as_user_error(ours) is ours  # type: ignore[arg-type]


def test_the_documented_table_is_the_code_s() -> None:
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", DOC.read_text(encoding="utf-8"), re.M)
    assert {int(code) for code, _ in rows} == {int(code) for code in ExitCode} == set(EXIT_MEANINGS)
    words = {ExitCode.INTERNAL: "internal", ExitCode.BAD_INPUT: "bad input"}
    for code, meaning in rows:
        assert words.get(ExitCode(int(code)), "").lower() in meaning.lower()
