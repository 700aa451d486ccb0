"""Read a judge's verdict from its output against the answer protocol (`judgeaudit/protocol.py`).

Stages, one module each (import from this package; the modules are its parts):
1. `thinking.strip_thinking`: drop `<think>...</think>` blocks (an unterminated one runs to the end).
2. `echoes.strip_echoes`: drop text that repeats the prompt or an idea (when those texts are given).
3. `lines.answer_lines`: unwrap JSON objects and XML-style tags into labelled lines, remove markdown,
   unify quotes and case; quoted verdicts inside a sentence become mentions.
4. `statements.find_statements` (with `values`, the option a labelled value names, and `words`, the
   hedge, degree, retraction and negation vocabulary): verdict statements (labelled clauses,
   conclusive phrases, a bare last line), each with the option it names, or a flaw: a shape that
   looks like a verdict but does not commit to one (a hedge, a degree, one option per aspect, a
   yes/no against the option, a retraction inside the sentence, an option inside another word; see
   the reasons in `base`) or an option the labels do not offer.
5. `decide.decide`: refusals, flawed statements, different options, a reopening after the last
   statement, a negated statement against the verdict -> `invalid` with a reason; otherwise
   the one option, on path `strict` (the exact final line) or `wrapped`.

`read.parse_verdict` runs them in order. Verdicts are as the model saw the positions (`shown`);
mapping back to the item's own a/b happens in `verdicts.map_back`. Nothing unclear is ever
coerced into an option.
"""

from __future__ import annotations

from judgeaudit.judges.parse.base import (
    COMPOUND,
    CONFLICT,
    DEGREE,
    EMPTY,
    HEDGED,
    NEGATED,
    NO_STATEMENT,
    ONLY_ECHO,
    ONLY_MENTION,
    ONLY_NEGATED,
    ONLY_THINKING,
    REASONS,
    REFUSAL,
    REOPENED,
    RETRACTED,
    SPLIT,
    UNKNOWN_OPTION,
    YES_NO_CONTRADICTS,
    Parsed,
    Statement,
)
from judgeaudit.judges.parse.decide import decide
from judgeaudit.judges.parse.echoes import strip_echoes
from judgeaudit.judges.parse.lines import MENTION, QUOTE, answer_lines
from judgeaudit.judges.parse.read import parse_strict, parse_verdict
from judgeaudit.judges.parse.statements import Found, find_statements
from judgeaudit.judges.parse.thinking import strip_thinking

__all__ = [
    "COMPOUND",
    "CONFLICT",
    "DEGREE",
    "EMPTY",
    "Found",
    "HEDGED",
    "MENTION",
    "NEGATED",
    "NO_STATEMENT",
    "ONLY_ECHO",
    "ONLY_MENTION",
    "ONLY_NEGATED",
    "ONLY_THINKING",
    "Parsed",
    "QUOTE",
    "REASONS",
    "REFUSAL",
    "REOPENED",
    "RETRACTED",
    "SPLIT",
    "Statement",
    "UNKNOWN_OPTION",
    "YES_NO_CONTRADICTS",
    "answer_lines",
    "decide",
    "find_statements",
    "parse_strict",
    "parse_verdict",
    "strip_echoes",
    "strip_thinking",
]
