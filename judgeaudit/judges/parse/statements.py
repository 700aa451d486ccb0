"""Stage 4b: the verdict statements of an answer: labelled clauses, conclusive phrases and a bare
last line, with negated statements and mentions counted."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judgeaudit.judges.parse.base import (
    _SENTENCE,
    DEGREE,
    SPLIT,
    UNKNOWN_OPTION,
    YES_NO_CONTRADICTS,
    Statement,
    _rx,
)
from judgeaudit.judges.parse.lines import MENTION
from judgeaudit.judges.parse.values import (
    _ASPECT_ITEM,
    _FOREIGN,
    _VALUE_PREFIX,
    _YES_NO_FIRST,
    _aspect_readings,
    _bare_reading,
    _doubt,
    _inside_word,
    _tail_flaw,
    _value_statement,
)
from judgeaudit.judges.parse.words import _HYPOTHETICAL, _NEGATION, _QUALIFIED, _WINDOW

_LABEL = re.compile(
    r"(?:^|(?<=[\s(\[,;]))(?:(?:my|the|our)\s+)?(?:final\s+|overall\s+)?(?:verdict|answer|decision|choice)"
    r"\s*(?::|=|-(?!\w)|\bis\b)\s*"
)


_CLAUSE = re.compile(
    r"(?<=[.!?;:])\s+|,\s*(?:so|but|while|whereas|therefore|thus|hence|and|yet|overall)\b"
    r"|\b(?:whereas|while|therefore|thus|hence|overall|in\s+conclusion|in\s+summary|so)\b"
)


_COMMITMENT = re.compile(
    r"\bi(?:\s+would|'d)\s+(?:say|argue|conclude|judge)\b|\bi\s+(?:think|believe|conclude)\b"
)


def _prefix_sentence(line: str, start: int) -> str:
    """The clause before `start` (for negation and hypothetical markers), commitments like "I'd say" removed."""
    head = line[max(0, start - _WINDOW) : start].replace("e.g.", "eg").replace("i.e.", "ie")
    return _COMMITMENT.sub(" ", _CLAUSE.split(head)[-1])


def _pair_phrases(labels: str) -> list[tuple[re.Pattern[str], str | None]]:
    first, second = ("a", "b") if labels == "AB" else ("1", "2")
    opt = rf"(?:idea\s+|option\s+)?\(?({first}|{second})\)?"
    degree = r"(?:(?:clearly|much|slightly|somewhat|significantly|considerably|substantially|far|a\s+bit|the)\s+)*"
    return [
        (re.compile(rf"(?<![\w]){opt}\s+is\s+{degree}more\s+novel\b"), None),
        (
            re.compile(
                rf"\bthe\s+(?:more|most)\s+novel\s+(?:idea|one|proposal|of\s+the\s+two(?:\s+ideas)?)\s+is\s+{opt}(?![\w])"
            ),
            None,
        ),
        (
            re.compile(
                rf"\bi\s+(?:choose|pick|select|go\s+with|prefer|favou?r|vote\s+for)\s+{opt}(?![\w])"
            ),
            None,
        ),
        (
            re.compile(
                r"\b(?:both(?:\s+ideas)?|the\s+two(?:\s+ideas)?|they)\s+are\s+(?:about\s+)?(?:equally|similarly)\s+novel\b"
            ),
            "tie",
        ),
    ]


def _point_phrases() -> list[tuple[re.Pattern[str], str | None]]:
    subject = r"(?:this|the)\s+(?:research\s+|proposed\s+)?(?:idea|proposal)\s+is\s+"
    degree = r"(?:(?:clearly|genuinely|truly|indeed|definitely|really)\s+)?"
    return [(re.compile(rf"\b{subject}{degree}(not\s+novel|non[\s-]*novel|novel)\b"), None)]


def _phrase_reading(kind: str, labels: str, captured: str | None, fixed: str | None) -> str:
    if fixed is not None:
        return fixed
    assert captured is not None
    if kind == "pointwise":
        return "novel" if captured == "novel" else "not_novel"
    first = "a" if labels == "AB" else "1"
    return "a" if captured == first else "b"


@dataclass(frozen=True)
class Found:
    """What the statement finder saw: statements, negated statements (by option), mentions, and labelled
    values that start with an option inside another word (`Verdict: Ablation-wise B`, `Novelty-dependent`)."""

    statements: list[Statement]
    negated: list[str]
    mentions: int
    inside_words: int = 0


def _aspect_list(lines: list[str], start: int) -> list[str]:
    """The lines from `start` on that look like aspect-list items (at most five)."""
    items = []
    for line in lines[start : start + 5]:
        if not _ASPECT_ITEM.fullmatch(line):
            break
        items.append(line)
    return items


def _label_statements(lines: list[str], kind: str, labels: str) -> tuple[list[Statement], int, int]:
    found: list[Statement] = []
    mentions = inside_words = 0
    for i, line in enumerate(lines):
        for match in _LABEL.finditer(line):
            value = line[match.end() : match.end() + _WINDOW]
            if not value.strip() and i + 1 < len(lines):
                nxt = _value_statement(
                    lines[i + 1], kind, labels
                )  # `### Verdict` then the option below
                if nxt is not None and len(lines[i + 1]) <= nxt[2] + 2:
                    found.append(Statement(i + 1, len(lines[i + 1]), nxt[0], nxt[1]))
                elif (
                    len(_aspect_readings(_aspect_list(lines, i + 1), kind, labels)) > 1
                ):  # `Verdict:` + `- Method: B`
                    found.append(Statement(i + 1, len(lines[i + 1]), None, SPLIT))
                continue
            if value.lstrip().startswith(MENTION):
                mentions += 1
                continue
            parsed = _value_statement(value, kind, labels)
            if parsed is None:
                inside_words += bool(
                    _inside_word(kind, labels).match(_VALUE_PREFIX.sub("", value.strip()))
                )
                continue
            option, flaw, used = parsed
            if match.start() > 0 and _HYPOTHETICAL.search(_prefix_sentence(line, match.start())):
                mentions += 1
                continue
            found.append(Statement(i, match.end() + used, option, flaw))
    return found, mentions, inside_words


def _phrase_statements(
    lines: list[str], kind: str, labels: str
) -> tuple[list[Statement], list[str], int]:
    patterns = _pair_phrases(labels) if kind == "pairwise" else _point_phrases()
    found: list[Statement] = []
    negated: list[str] = []
    mentions = 0
    for i, line in enumerate(lines):
        for pattern, fixed in patterns:
            for match in pattern.finditer(line):
                reading = _phrase_reading(
                    kind, labels, match.group(1) if match.groups() else None, fixed
                )
                before = _prefix_sentence(line, match.start())
                sentence_rest = _SENTENCE.split(line[match.end() : match.end() + _WINDOW])[0]
                answer = _YES_NO_FIRST.fullmatch(before) if kind == "pointwise" else None
                if (
                    answer
                ):  # `Answer: No, the idea is not novel`: a yes/no, then the class it stands for
                    before = ""
                    if (answer.group(1) == "yes") != (reading == "novel"):
                        found.append(Statement(i, match.end(), None, YES_NO_CONTRADICTS, "phrase"))
                        continue
                if _NEGATION.search(before):
                    negated.append(reading)
                    continue
                if _HYPOTHETICAL.search(before) or sentence_rest.rstrip().endswith("?"):
                    mentions += 1
                    continue
                flaw = (
                    _tail_flaw(line[match.end() : match.end() + _WINDOW], kind, labels, reading)
                    or _doubt(before + " " + match.group(0))
                    or _doubt(sentence_rest.split(",")[0])
                    or (DEGREE if _QUALIFIED.search(sentence_rest) else None)
                )
                found.append(
                    Statement(i, match.end(), None if flaw else reading, flaw, "phrase", reading)
                )
    return found, negated, mentions


def _bare_statement(lines: list[str], kind: str, labels: str) -> Statement | None:
    """A last line that is only an option (`B`, `Idea B.`, `Not novel`)."""
    last = lines[-1].strip().rstrip(".!").strip()
    reading = _bare_reading(last, kind, labels)
    if reading is not None:
        return Statement(len(lines) - 1, len(lines[-1]), reading, None, "bare")
    if _rx(rf"(?:{_FOREIGN[(kind, labels)]})").fullmatch(last):
        return Statement(len(lines) - 1, len(lines[-1]), None, UNKNOWN_OPTION, "bare")
    return None


def find_statements(lines: list[str], kind: str, labels: str = "AB") -> Found:
    """Every verdict statement in the answer lines, in order, with negated ones and mentions counted."""
    labelled, label_mentions, inside_words = _label_statements(lines, kind, labels)
    phrases, negated, phrase_mentions = _phrase_statements(lines, kind, labels)
    statements = labelled + phrases
    if lines:
        bare = _bare_statement(lines, kind, labels)
        if bare is not None and not any(s.line == bare.line for s in statements):
            statements.append(bare)
    statements.sort(key=lambda s: (s.line, s.end))
    mentions = label_mentions + phrase_mentions + sum(ln.count(MENTION) for ln in lines)
    return Found(statements, negated, mentions, inside_words)
