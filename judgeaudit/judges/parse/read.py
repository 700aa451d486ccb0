"""The pipeline: the stages in order over one output (`parse_verdict`), and the exact final line
(`parse_strict`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from judgeaudit.judges.parse.base import EMPTY, NO_STATEMENT, ONLY_ECHO, ONLY_THINKING, Parsed, _rx
from judgeaudit.judges.parse.decide import _failed, decide
from judgeaudit.judges.parse.echoes import strip_echoes
from judgeaudit.judges.parse.lines import answer_lines
from judgeaudit.judges.parse.statements import find_statements
from judgeaudit.judges.parse.thinking import strip_thinking
from judgeaudit.protocol import check_kind, final_lines, options


def _last_line(text: str) -> str | None:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else None


def parse_strict(text: str, kind: str, labels: str = "AB") -> str | None:
    """Verdict if the last non-empty line is exactly one of the protocol's final lines, else None."""
    check_kind(kind, labels)
    last = _last_line(text)
    for option, line in zip(options(kind, labels), final_lines(kind, labels), strict=True):
        if last == line:
            return option.reading
    return None


def parse_verdict(
    text: str,
    kind: str,
    *,
    labels: str = "AB",
    ideas: Sequence[str] = (),
    prompt: str | None = None,
) -> Parsed:
    """The verdict of one output: `invalid` with a reason for anything a careful reader could not call.

    `ideas` and `prompt` are the texts the model was shown: output that repeats them is not read.
    """
    check_kind(kind, labels)
    if not text or not text.strip():
        return _failed(EMPTY)
    answer = strip_thinking(text)
    if not answer.strip():
        return _failed(ONLY_THINKING if _statement_in(text, kind, labels) else NO_STATEMENT)
    sources = [*ideas, *([prompt] if prompt else [])]
    own = strip_echoes(answer, sources)
    if not own.strip():
        return _failed(ONLY_ECHO)
    lines = answer_lines(own)
    if not lines:
        return _failed(NO_STATEMENT)
    parsed = decide(
        lines,
        find_statements(lines, kind, labels),
        parse_strict(own, kind, labels) is not None,
        kind,
        labels,
    )
    if parsed.reason == NO_STATEMENT and own != answer and _statement_in(answer, kind, labels):
        return _failed(ONLY_ECHO)
    if parsed.reason == NO_STATEMENT and _statement_in(text, kind, labels) and answer != text:
        return _failed(ONLY_THINKING)
    return parsed


def _statement_in(text: str, kind: str, labels: str) -> bool:
    """Whether any verdict statement occurs in raw text (to explain why the answer part has none)."""
    inner = _rx(r"</?think>", re.I).sub("\n", text)
    lines = answer_lines(inner)
    return bool(lines and find_statements(lines, kind, labels).statements)
