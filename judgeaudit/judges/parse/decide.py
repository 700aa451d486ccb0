"""Stage 5: the reading from the statements found: one clear option, or `invalid` with a reason."""

from __future__ import annotations

import re

from judgeaudit.judges.parse.base import (
    COMPOUND,
    CONFLICT,
    DEGREE,
    HEDGED,
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
from judgeaudit.judges.parse.values import _names_option, _option_named
from judgeaudit.judges.parse.words import (
    _AFTER_HEDGE,
    _AGAINST_NOT_NOVEL,
    _AGAINST_NOVEL,
    _CONCLUDING,
    _DEGREE_WORDS,
    _REFUSAL,
    _REOPEN,
)
from judgeaudit.protocol import INVALID


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


# A degree word, with at most one filler word, before what follows (`partly novel`, `somewhat more novel`).
_DEGREE_BEFORE = re.compile(rf"\b(?:{_DEGREE_WORDS})\s+(?:(?:more|less|a|an|the|idea)\s+)?")
# Flaws of a conclusive phrase in the reasoning that a firm final verdict line settles.
_REASONING_DOUBTS = (HEDGED, DEGREE)


def _settled(statements: list[Statement]) -> list[Statement]:
    """The statements that count: a conclusive phrase hedged or withheld by degree in the reasoning
    ("the idea is clearly novel but not entirely unprecedented") is reasoning, not a statement, when a
    firm verdict line on a later line names the option it leans to; any other flaw still counts."""
    last = statements[-1]
    if last.flaw is not None or last.source == "phrase":
        return statements
    return [
        s
        for s in statements
        if not (
            s.source == "phrase"
            and s.flaw in _REASONING_DOUBTS
            and s.line < last.line
            and s.named == last.option
        )
    ]


def _degree_after(after: str, kind: str, labels: str) -> bool:
    """Whether the text after the verdict withholds an option by degree: a degree word right before
    an option ("on reflection it is only partly novel", "somewhat more novel: Idea B")."""
    named = _option_named(kind, labels)
    for match in _DEGREE_BEFORE.finditer(after):
        if named.match(after, match.end()):
            return True
    return False


def _concludes_otherwise(after: str, kind: str, option: str) -> bool:
    """Pointwise: whether a concluding sentence after the last statement weighs novelty against its
    option ("The idea is novel in X. Hence ... an incremental refinement rather than a new direction.")."""
    if kind != "pointwise":
        return False
    for sentence in _rx(r"(?<=[.!?;])\s+|\.\s").split(after):
        if not _CONCLUDING.match(sentence):
            continue
        against_novel = _AGAINST_NOVEL.search(sentence) is not None
        if (
            against_novel
            if option == "novel"
            else (_AGAINST_NOT_NOVEL.search(sentence) and not against_novel)
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
    statements = _settled(found.statements)
    flaws = [s.flaw for s in statements if s.flaw]
    if flaws:
        return _failed(flaws[0])
    chosen = {s.option for s in statements}
    if len(chosen) > 1:
        return _failed(CONFLICT)
    after = _after(lines, found.statements[-1])
    if (
        _REOPEN.search(after)
        or _rx(r"^\s*\?").match(after)
        or _hedges_an_option(after, kind, labels)
        or _degree_after(after, kind, labels)
    ):
        return _failed(REOPENED)
    option = chosen.pop()
    assert option is not None
    if _concludes_otherwise(after, kind, option):
        return _failed(REOPENED)
    if option in found.negated:
        return _failed(NEGATED)
    return Parsed(option, "strict" if strict_line else "wrapped")
