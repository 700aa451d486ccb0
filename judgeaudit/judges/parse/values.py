"""Stage 4a: the option a labelled value names, and the flaw of what follows an option in its
sentence (a retraction, one option per aspect, a second option offered, a hedge or a degree)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from judgeaudit.judges.parse.base import (
    COMPOUND,
    DEGREE,
    HEDGED,
    RETRACTED,
    SPLIT,
    UNKNOWN_OPTION,
    YES_NO_CONTRADICTS,
    _rx,
)
from judgeaudit.judges.parse.words import (
    _DEGREE_PHRASE,
    _DELIM,
    _DOUBT,
    _NEGATION,
    _QUALIFIED,
    _QUALIFIER,
    _REOPEN,
    _RETRACTION,
)


def _option_words(kind: str, labels: str) -> list[tuple[str, str]]:
    """(regex, reading) pairs for the options a value may name, longest first."""
    if kind == "pointwise":
        return [
            (r"not[\s_-]+novel|non[\s_-]*novel", "not_novel"),
            (r"novel", "novel"),
            (r"yes", "novel"),
            (r"no", "not_novel"),
        ]
    first, second = ("a", "b") if labels == "AB" else ("1", "2")
    return [
        (rf"(?:idea|option)\s*{first}", "a"),
        (rf"(?:idea|option)\s*{second}", "b"),
        (rf"\(\s*{first}\s*\)", "a"),
        (rf"\(\s*{second}\s*\)", "b"),
        (first, "a"),
        (second, "b"),
        (r"tie|draw", "tie"),
        (r"(?:both\s+(?:ideas\s+)?(?:are\s+)?)?equally\s+novel", "tie"),
    ]


# Options written in the other label style (or the other kind): stating one is an unknown option.
_FOREIGN = {
    ("pairwise", "AB"): r"(?:idea|option)?\s*\(?[12]\)?|novel|not\s+novel|c|d",
    ("pairwise", "12"): r"(?:idea|option)?\s*\(?[abcd]\)?|novel|not\s+novel|3",
    ("pointwise", "AB"): r"(?:idea|option)?\s*\(?[abcd12]\)?|tie|draw",
    ("pointwise", "12"): r"(?:idea|option)?\s*\(?[abcd12]\)?|tie|draw",
}


_VALUE_PREFIX = re.compile(
    r"^(?:the\s+more\s+novel\s+(?:idea|one)\s+is\s+|(?:the|this)\s+(?:research\s+)?(?:idea|proposal)\s+is\s+"
    r"|it\s+is\s+|it's\s+|i\s+choose\s+"
    r"|(?:definitely|clearly|certainly|absolutely|undoubtedly|unambiguously|unquestionably|firmly|confidently)\s+)"
)


_MORE_NOVEL_TAIL = re.compile(r"^\s*(?:is|was)\s+(?:the\s+)?(?:\w+\s+)?more\s+novel\b")


# A comma or dash before another option is checked in `_tail_flaw` (only a bare option there is a second answer).
_CONNECTOR = re.compile(r"^\s*(?:or|/|and|&|vs\.?|versus|\+|then)?\s*")


# What follows an option in its sentence (`_tail_flaw`), and the other shapes that look like a verdict
# without committing to one.
_SENTENCE_END = re.compile(r"(?<![.])[.!?](?![.])(?:\s|$)")  # an ellipsis does not end a sentence


# An aspect an option is given for: a preposition and at most three words ending the clause.
_ASPECT = (
    r"(?:for|in|on|regarding|concerning|in\s+terms\s+of|with\s+respect\s+to|as\s+(?:to|for|far\s+as)"
    r"|when\s+it\s+comes\s+to)\s+(?:[\w'/-]+\s+){0,2}[\w'/-]+"
)


_CLAUSE_START = r"(?:^|[,;/&]|\s-\s|\b(?:and|but|while|whereas|though|although|yet)\b)\s*"


_CLAUSE_END = r"\s*(?:$|[.;,:!?)\]]|\s-\s|\b(?:and|but|while|whereas)\b)"


# Around another option in a verdict's sentence (the option itself in brackets): what comes before it ...
_PRE_CLAUSE = re.compile(rf"{_CLAUSE_START}$")  # `A for framing, [B]`


_PRE_ASPECT = re.compile(rf"{_CLAUSE_START}{_ASPECT}\s*[,:]?\s*$")  # `A; for method, [B]`


_PRE_SECOND = re.compile(
    r"(?:\bor|[,;/]|\.\.\.|\s-)\s*(?:(?:maybe|perhaps|possibly|even|rather|else)\s+)?$"
)  # `A... or [B]`


_PRE_OR = re.compile(
    r"\bor\s*(?:(?:maybe|perhaps|possibly|even|rather|else)\s+)?$"
)  # `TIE, or maybe [A]`


# ... and what follows it.
_POST_ASPECT = re.compile(
    rf"\s*(?:{_ASPECT}|\([^)]*\)){_CLAUSE_END}"
)  # `[B] for method.`, `[B] (method)`


_POST_END = re.compile(_CLAUSE_END)  # `[B].`


_SPLIT_NOT = re.compile(
    rf"\s*{_ASPECT}\s*,?\s*(?:but|and|while|whereas|yet)\s+not\s+{_ASPECT}"
)  # `novel in X but not in Y`


_OR_NOT = re.compile(r"\bor\s+not\b(?!\s+novel)")


_POINT_OPTION = re.compile(r"(?<![\w-])(not[\s_-]+novel|non[\s_-]*novel|novel)(?![\w-])")


_GLUED = re.compile(r"-(?!ish\b)\w")  # an option glued to a word: `tie-breaker`, `A-grade`


# A hedge before a bare option on the verdict line (`Verdict: I think B`, `If I had to pick, 2`); before a
# conclusive sentence "I think" commits (`I think Idea B is more novel`, see `_COMMITMENT`).
_HEDGE_BEFORE = re.compile(
    r"(?:i\s+(?:think|believe|feel|guess|suppose)|if\s+i\s+(?:had|have)\s+to\s+(?:choose|pick|guess|say)|if\s+forced"
    r"|at\s+a\s+guess)\b[\s,:]*"
)


_ASPECT_NEXT = re.compile(r"\s+(?:on|in|regarding|concerning)\b")  # `A on concept, B on execution`


# One item of an aspect list: `- The method: B`, `framing: NOVEL`.
_ASPECT_ITEM = re.compile(
    r"\s*(?:[-*\u2022]\s*|\d+[.)]\s*)?(?:the\s+)?[a-z][\w '/-]{0,40}?:\s*(\S.*?)\s*"
)


_YES_NO_FIRST = re.compile(r"\s*(yes|no)\s*[,;:-]?\s*")


def _other_option_after(rest: str, kind: str, labels: str, reading: str) -> bool:
    """Whether the text right after an option names a different option (`A or B`, `A/B`, `A and B`)."""
    tail = rest[_CONNECTOR.match(rest).end() :]  # type: ignore[union-attr]
    for pattern, other in _option_words(kind, labels):
        if (
            other != reading
            and _rx(rf"(?:{pattern})(?![\w])").match(tail)
            and not (kind == "pointwise" and other == "not_novel" and pattern == "no")
        ):
            return True
    return False


def _sentence(rest: str) -> str:
    """The text up to the end of the sentence it starts in (its final mark included)."""
    end = _SENTENCE_END.search(rest)
    return rest[: end.start() + 1] if end else rest


@lru_cache(maxsize=32)
def _others(kind: str, labels: str, reading: str) -> re.Pattern[str]:
    """Any option other than `reading` as a whole word (yes/no excluded)."""
    words = [p for p, r in _option_words(kind, labels) if r != reading and p not in ("yes", "no")]
    return re.compile(r"(?<![\w-])(?:" + "|".join(words) + r")(?![\w-])")


def _other_option_role(sentence: str, kind: str, labels: str, reading: str) -> str | None:
    """SPLIT when the sentence gives another option for an aspect (`A for framing, B for method`), HEDGED
    when it offers another option as a second answer (`A... or B`, `NOVEL, not novel`), else None."""
    offered = False
    for match in _others(kind, labels, reading).finditer(sentence):
        before = sentence[: match.start()]
        if (_PRE_CLAUSE.search(before) and _POST_ASPECT.match(sentence, match.end())) or (
            _PRE_ASPECT.search(before) and _POST_END.match(sentence, match.end())
        ):
            return SPLIT
        # `TIE: A and B alike` names both ideas: after a tie only `or` offers another answer.
        second = _PRE_OR if reading == "tie" else _PRE_SECOND
        offered = offered or bool(second.search(before) and _POST_END.match(sentence, match.end()))
    return HEDGED if offered else None


def _doubt(text: str) -> str | None:
    """DEGREE or HEDGED when `text` holds a degree or a hedge word, else None."""
    match = _DOUBT.search(text)
    if match is None:
        return None
    return DEGREE if match.group("degree") else HEDGED


def _yes_no_contradicts(rest: str, reading: str) -> bool:
    """Whether the first pointwise option after a yes/no names the other class (`No, it is novel`); a
    negation right before it (`No, it isn't novel`) counts."""
    match = _POINT_OPTION.search(rest)
    if match is None:
        return False
    named = "novel" if match.group(1) == "novel" else "not_novel"
    if named == "novel" and _NEGATION.search(_rx(r"[,;:.]").split(rest[: match.start()])[-1]):
        named = "not_novel"
    return named != reading


def _tail_flaw(rest: str, kind: str, labels: str, reading: str) -> str | None:
    """The flaw of what follows an option in its sentence: taking it back, one option per aspect, a second
    option offered (`A... or B`), or a hedge or degree standing as the option's own clause."""
    if not rest or rest.isspace():
        return None
    sentence = _sentence(rest)
    if _RETRACTION.search(sentence):
        return RETRACTED
    if _SPLIT_NOT.match(sentence):
        return SPLIT
    role = _other_option_role(sentence, kind, labels, reading)
    if role is not None:
        return role
    if kind == "pointwise" and _OR_NOT.search(sentence):  # `NOVEL... or not`
        return HEDGED
    qualifier = _QUALIFIER.match(rest)
    if qualifier:
        if qualifier.group("degree") or (qualifier.group("weak") and kind == "pointwise"):
            return DEGREE
        if not qualifier.group("weak"):
            return HEDGED
    return None


def _value_statement(
    value: str, kind: str, labels: str
) -> tuple[str | None, str | None, int] | None:
    """(option, flaw, characters used) for a labelled value; None when the value is prose, not an answer."""
    value = value.strip().strip("\"'").strip()
    if not value:
        return None
    stripped = _VALUE_PREFIX.sub("", value)
    offset = len(value) - len(stripped)
    lead = _HEDGE_BEFORE.match(stripped)
    if lead and _bare_reading(stripped[lead.end() :], kind, labels) is not None:
        return None, HEDGED, len(value)
    for pattern, reading in _option_words(kind, labels):
        match = _rx(rf"(?:{pattern})(?![\w])").match(stripped)
        if not match:
            continue
        rest = stripped[match.end() :]
        if _GLUED.match(rest):
            return None, COMPOUND, len(value)
        if not (_DELIM.match(rest) or _MORE_NOVEL_TAIL.match(rest)):
            if (
                _ASPECT_NEXT.match(rest)
                and _other_option_role(_sentence(rest), kind, labels, reading) == SPLIT
            ):
                return None, SPLIT, len(value)
            continue
        if pattern in ("yes", "no") and _yes_no_contradicts(rest, reading):
            return None, YES_NO_CONTRADICTS, len(value)
        flaw = _tail_flaw(rest, kind, labels, reading)
        if flaw is not None:
            return None, flaw, len(value)
        if _other_option_after(rest, kind, labels, reading):
            return None, HEDGED, len(value)
        clause = _rx(r"(?<=[.;])\s|\s-\s").split(rest, maxsplit=1)[0]
        doubt = (
            _doubt(value[:offset]) or _doubt(clause) or (HEDGED if _REOPEN.search(clause) else None)
        )
        if doubt is not None or _QUALIFIED.search(rest):
            return None, doubt or DEGREE, len(value)
        aside = _rx(r"\(([^)]*)\)").search(clause)
        if aside and _names_option(aside.group(1), kind, labels):  # `Verdict: A (could be B)`
            return None, HEDGED, len(value)
        return reading, None, offset + match.end()
    first = _sentence(value)
    if len(_aspect_readings(_rx(r"[,;]").split(first), kind, labels)) > 1:
        return None, SPLIT, len(value)  # `framing: NOVEL, method: NOT NOVEL`
    doubt = _doubt(first) or (DEGREE if _DEGREE_PHRASE.search(first) else None)
    if doubt is not None and (len(first.split()) <= 6 or _names_option(first, kind, labels)):
        return None, COMPOUND if _inside_word(kind, labels).match(stripped) else doubt, len(value)
    if _rx(
        rf"(?:{_FOREIGN[(kind, labels)]}|maybe|unsure|neither|none|both|n/?a|unknown|undecided|\?+)"
        r"\s*[.!]?"
    ).fullmatch(value):
        return None, UNKNOWN_OPTION, len(value)
    return None


def _aspect_readings(items: Sequence[str], kind: str, labels: str) -> set[str]:
    """The options of an aspect list (`framing: A`, `- The method: B`), or none when an item is not one."""
    readings: set[str] = set()
    for item in items:
        match = _ASPECT_ITEM.fullmatch(item)
        parsed = _value_statement(match.group(1), kind, labels) if match else None
        if parsed is None or parsed[0] is None:
            return set()
        readings.add(parsed[0])
    return readings


def _bare_reading(text: str, kind: str, labels: str) -> str | None:
    """The option `text` is, when it is only an option (`B`, `Idea B.`, `Not novel`; yes/no excepted)."""
    text = text.strip().rstrip(".!").strip()
    for pattern, reading in _option_words(kind, labels):
        if pattern not in ("yes", "no") and _rx(pattern).fullmatch(text):
            return reading
    return None


@lru_cache(maxsize=8)
def _option_named(kind: str, labels: str) -> re.Pattern[str]:
    """Any option named as one (`could be B`, `Idea A might`); a lone letter or digit only where it stands
    alone (`A might`, `or B.`), not as an article or a count (`a known loss`, `2 reasons`); yes/no never."""
    words = []
    for pattern, _ in _option_words(kind, labels):
        if pattern in ("yes", "no"):
            continue
        alone = r"(?=\s*(?:$|[.,;:!?)\]/])|\s+(?:or|and|is|was|seems|might|could|may|would|wins|too|instead)\b)"
        words.append(pattern + alone if len(pattern) == 1 else pattern)
    return re.compile(r"(?<![\w-])(?:" + "|".join(words) + r")(?![\w-])")


def _names_option(text: str, kind: str, labels: str) -> bool:
    """Whether `text` names any option of the kind (used to spot hedges like `(could be B)`)."""
    return _option_named(kind, labels).search(text) is not None


@lru_cache(maxsize=8)
def _inside_word(kind: str, labels: str) -> re.Pattern[str]:
    """A value starting with an option inside another word: a hyphenated word that starts with an option
    (`Ablation-wise`, `1D-signal`) or a word glued to an option word (`Tiebreaker`, `Novelty`)."""
    words = "novel" if kind == "pointwise" else ("a|b" if labels == "AB" else "1|2") + "|tie|draw"
    return re.compile(rf"(?:{words})(?:\w*-\w|(?<=\w\w)\w)")
