"""Stage 5: the reading from the statements found: one clear option, or `invalid` with a reason."""

from __future__ import annotations

import re

from judgeaudit.judges.parse.base import (
    COMPOUND,
    CONFLICT,
    NEGATED,
    NO_STATEMENT,
    ONLY_MENTION,
    ONLY_NEGATED,
    REFUSAL,
    REOPENED,
    Parsed,
    Statement,
    _rx,
)
from judgeaudit.judges.parse.statements import Found
from judgeaudit.judges.parse.values import _names_option
from judgeaudit.judges.parse.words import _AFTER_HEDGE, _REFUSAL, _REOPEN
from judgeaudit.protocol import (
    INVALID,
)


def _after(lines: list[str], last: Statement) -> str:
    """The answer text after the last verdict statement."""
    return ". ".join([lines[last.line][last.end :], *lines[last.line + 1 :]])


def _failed(reason: str) -> Parsed:
    return Parsed(INVALID, "failed", reason)


_CONCESSIVE = re.compile(r"^\W*(?:although|though|but|however|still|yet|then\s+again|or)\b")


def _hedges_an_option(after: str, kind: str, labels: str) -> bool:
    """Whether a sentence after the verdict concedes, with a hedge, that an option might be right
    ("Although Idea B might be just as defensible.")."""
    for sentence in _rx(r"(?<=[.!?;])\s+|\.\s").split(after):
        if (
            _CONCESSIVE.match(sentence)
            and _AFTER_HEDGE.search(sentence)
            and _names_option(sentence, kind, labels)
        ):
            return True
    return False


def decide(
    lines: list[str], found: Found, strict_line: bool, kind: str = "pairwise", labels: str = "AB"
) -> Parsed:
    """The reading from the statements found: one clear option, or `invalid` with the first reason that applies."""
    text = " ".join(lines)
    if _REFUSAL.search(text):
        return _failed(REFUSAL)
    if not found.statements:
        if found.negated:
            return _failed(ONLY_NEGATED)
        if found.mentions:
            return _failed(ONLY_MENTION)
        return _failed(COMPOUND if found.inside_words else NO_STATEMENT)
    flaws = [s.flaw for s in found.statements if s.flaw]
    if flaws:
        return _failed(flaws[0])
    chosen = {s.option for s in found.statements}
    if len(chosen) > 1:
        return _failed(CONFLICT)
    after = _after(lines, found.statements[-1])
    if (
        _REOPEN.search(after)
        or _rx(r"^\s*\?").match(after)
        or _hedges_an_option(after, kind, labels)
    ):
        return _failed(REOPENED)
    option = chosen.pop()
    assert option is not None
    if option in found.negated:
        return _failed(NEGATED)
    return Parsed(option, "strict" if strict_line else "wrapped")
