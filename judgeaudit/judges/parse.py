"""Read a judge's verdict from its output against the answer protocol (`judgeaudit/protocol.py`).

Stages, each a small function:
1. `strip_thinking`: drop `<think>...</think>` blocks (an unterminated one runs to the end).
2. `strip_echoes`: drop text that repeats the prompt or an idea (when those texts are given).
3. `answer_lines`: unwrap JSON objects and XML-style tags into labelled lines, remove markdown,
   unify quotes and case; quoted verdicts inside a sentence become mentions.
4. `find_statements`: verdict statements (labelled clauses, conclusive phrases, a bare last
   line), each with the option it names, or a flaw (hedged, unknown option).
5. `decide`: refusals, flawed statements, different options, a reopening after the last
   statement, a negated statement against the verdict -> `invalid` with a reason; otherwise
   the one option, on path `strict` (the exact final line) or `wrapped`.

Verdicts are as the model saw the positions (`shown`); mapping back to the item's own a/b
happens in `verdicts.map_back`. Nothing unclear is ever coerced into an option.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from judgeaudit.protocol import (
    INVALID,
    ParsePath,
    check_kind,
    final_lines,
    options,
)

# ---- reasons (the vocabulary of `Parsed.reason`) -------------------------------------------
EMPTY = "empty output"
ONLY_THINKING = "verdict only inside a reasoning block"
ONLY_ECHO = "output only repeats the prompt or an idea"
NO_STATEMENT = "no verdict statement"
ONLY_MENTION = "verdict only inside a quotation, example or hypothetical"
REFUSAL = "refusal or cannot judge"
HEDGED = "hedge inside the verdict statement"
CONFLICT = "verdict statements name different options"
REOPENED = "self-correction or hedge after the verdict"
UNKNOWN_OPTION = "option not offered by the prompt's labels"
NEGATED = "negated statement contradicts the verdict"
ONLY_NEGATED = "only a negated statement, no plain verdict"


@dataclass(frozen=True)
class Parsed:
    """A parsed output: the verdict as shown to the model, the parse path, and why it is invalid."""

    verdict: str
    path: ParsePath
    reason: str | None = None


@dataclass(frozen=True)
class Statement:
    """One verdict statement: its line, the option it names (None when flawed) and its flaw."""

    line: int
    end: int  # character offset in the line where the statement ends
    option: str | None
    flaw: str | None = None
    source: str = "label"  # label | phrase | bare


@lru_cache(maxsize=512)
def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled once (the parser builds its option patterns per kind and labels)."""
    return re.compile(pattern, flags)


# ---- stage 1: thinking --------------------------------------------------------------------
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
_CLOSE_THINK = re.compile(r"</think>", re.I)


def strip_thinking(text: str) -> str:
    """The text without reasoning blocks (everything before a lone `</think>` is reasoning too)."""
    text = _THINK.sub("\n", text)
    parts = _CLOSE_THINK.split(text)
    return parts[-1]


# ---- stage 2: echoes ----------------------------------------------------------------------
_ECHO_MIN_CHARS = 24  # a shorter fragment is only an echo when it is a whole line of the source
_WS = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_EMPHASIS_CHARS = "*_`#>"  # markdown emphasis, dropped by echo matching


def _flat(text: str) -> str:
    """Case-folded text with quotes unified, markdown emphasis removed and whitespace collapsed (echo
    matching): one translation, then the split on whitespace, which is the set `\\s` matches."""
    return " ".join(text.translate(_FLAT_TABLE).split()).casefold()


_ECHO_HEADER = re.compile(r"^(?:idea\s*(?:a|b|1|2)?|the\s+idea(?:\s+under\s+review)?|proposal)\s*:\s*")


@lru_cache(maxsize=4096)
def _echo_key(raw: str) -> str:
    """A line as echo matching sees it: flattened, without a leading `Idea A:`-style header when
    text follows it (a header line on its own stays, so `Idea A:` + `Verdict: A` is a run). Cached:
    the prompts of a run share most of their lines (the template's)."""
    line = _flat(raw)
    return _ECHO_HEADER.sub("", line) or line


@lru_cache(maxsize=64)
def _source_lines(source: str) -> tuple[str, ...]:
    """A source's non-empty lines as echo matching sees them (cached: the k calls and both orders of
    an item share their idea texts)."""
    return tuple(line for line in (_echo_key(raw) for raw in source.splitlines()) if line)


@lru_cache(maxsize=4096)
def _line_fragments(line: str) -> tuple[str, ...]:
    """A source line and its sentences that are long enough to be echoes wherever they occur."""
    whole = (line,) if len(line) >= _ECHO_MIN_CHARS else ()
    return whole + tuple(s for s in _SENTENCE_END.split(line) if len(s) >= _ECHO_MIN_CHARS)


def _long_fragments(sources: Sequence[Sequence[str]]) -> list[str]:
    """Source lines and sentences long enough to be echoes wherever they occur, longest first."""
    long: set[str] = set()
    for lines in sources:
        for line in lines:
            long.update(_line_fragments(line))
    return sorted(long, key=len, reverse=True)


def _echo_runs(output: list[str], sources: Sequence[Sequence[str]]) -> set[int]:
    """Indices of output lines that repeat a source: runs of two or more consecutive source lines,
    a whole one-line source, or a long source line (a lone short line may be the model's own)."""
    echoed: set[int] = set()
    for src in sources:
        where: dict[str, list[int]] = {}
        for j, line in enumerate(src):
            where.setdefault(line, []).append(j)
        for i in range(len(output)):
            for j in where.get(output[i], ()):
                line = src[j]
                if i and j and output[i - 1] == src[j - 1]:
                    continue  # inside a run counted from its start
                k = 0
                while i + k < len(output) and j + k < len(src) and output[i + k] == src[j + k]:
                    k += 1
                if k >= 2 or len(src) == 1 or len(line) >= _ECHO_MIN_CHARS:
                    echoed.update(range(i, i + k))
    return echoed


def strip_echoes(text: str, sources: Sequence[str]) -> str:
    """The text without what repeats a source (the prompt, an idea): echoed line runs, and long
    source sentences inside the model's own lines."""
    src_lines = [_source_lines(s) for s in sources if s and s.strip()]
    src_lines = [lines for lines in src_lines if lines]
    if not src_lines:
        return text
    # Lines that are only markup carry no verdict; they are left out.
    raw_lines = [raw for raw in text.splitlines() if _echo_key(raw)]
    flat = [_echo_key(raw) for raw in raw_lines]
    echoed = _echo_runs(flat, src_lines)
    # A long fragment is at least _ECHO_MIN_CHARS long: only a line as long can hold one.
    long = _long_fragments(src_lines) if any(len(line) >= _ECHO_MIN_CHARS for line in flat) else []
    kept: list[str] = []
    for i, (raw, line) in enumerate(zip(raw_lines, flat, strict=True)):
        if i in echoed or not line:
            continue
        rest = line
        for fragment in long:
            if fragment in rest:
                rest = rest.replace(fragment, " ")
        if rest == line:
            kept.append(raw)
            continue
        rest = _WS.sub(" ", rest).strip()
        if not _rx(r"[\W_]*").fullmatch(rest):
            kept.append(rest)
    return "\n".join(kept)


# ---- stage 3: answer lines ----------------------------------------------------------------
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00ab": '"',
                         "\u00bb": '"', "\u2013": "-", "\u2014": "-", "\u2212": "-"})
# Echo matching's one translation: quotes unified, emphasis to spaces (`_flat`).
_FLAT_TABLE = {**_QUOTES, **{ord(c): " " for c in _EMPHASIS_CHARS}}
_KEYS = r"(?:final[_ ]?)?(?:verdict|answer|decision|choice)"
_XML = re.compile(rf"<\s*({_KEYS})\s*>(.*?)<\s*/\s*\1\s*>", re.S | re.I)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.S)
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")
# List markers stay: `2. Idea B` ending a list is a cut-off item, not a bare option.
_MARKUP = re.compile(r"[*_]{1,3}|^\s*#{1,6}\s*|^\s*>\s*")


def _unify_quotes(text: str) -> str:
    return text.translate(_QUOTES)


def _json_verdicts(text: str) -> str:
    """Each JSON object with a verdict/answer key replaced by a line `verdict: <value>`."""

    def replace(match: re.Match[str]) -> str:
        try:
            obj = json.loads(match.group(0))
        except ValueError:
            return match.group(0)
        if not isinstance(obj, dict):
            return match.group(0)
        values = [str(v) for k, v in obj.items() if _rx(_KEYS, re.I).fullmatch(str(k).strip())]
        if not values:
            return match.group(0)
        return "\n" + "\n".join(f"verdict: {v}" for v in values) + "\n"

    return _JSON_OBJECT.sub(replace, text)


def _xml_verdicts(text: str) -> str:
    """Each `<verdict>X</verdict>` (or answer/decision/choice tag) replaced by a line `verdict: X`."""
    return _XML.sub(lambda m: "\nverdict: " + _WS.sub(" ", m.group(2)).strip() + "\n", text)


def _clean_line(raw: str) -> str:
    """One line without markdown markup, lower-cased, whitespace collapsed; a wholly quoted line unquoted."""
    line = raw.replace("`", '"')
    line = _MARKUP.sub(" ", line)
    line = _rx(r"[*_]{1,3}").sub(" ", line)
    line = _WS.sub(" ", line).strip().casefold()
    # A line that is only a quoted statement is that statement (e.g. `"Verdict: A"`).
    whole = _rx(r'"([^"]*)"[.!]?|\'([^\']*)\'[.!]?').fullmatch(line)
    if whole:
        line = (whole.group(1) if whole.group(1) is not None else whole.group(2)).strip()
    return line


_QUOTED = re.compile(r'"[^"\n]*"|(?<![\w])\'[^\'\n]*\'(?![\w])')
# A quoted value right after a label is the value (`Verdict: "B"`, a broken JSON `"verdict": "B"`).
_LABEL_QUOTED = re.compile(r'"?\b((?:final\s+)?(?:verdict|answer|decision|choice))"?\s*(?::|=)\s*"([^"\n]*)"')
_VERDICTISH = re.compile(r"\b(?:verdict|answer|decision|choice|novel|tie|idea\s+\w)\b|^\W*\w\W*$")
MENTION = "«mention»"  # a quoted verdict inside a sentence
QUOTE = "«quote»"  # any other quoted span


def _mask_quotes(line: str) -> str:
    """Quoted spans inside a sentence replaced by `MENTION` (if verdict-like) or `QUOTE`."""
    line = _LABEL_QUOTED.sub(r"\1: \2", line)
    return _QUOTED.sub(lambda m: MENTION if _VERDICTISH.search(m.group(0)[1:-1]) else QUOTE, line)


def answer_lines(text: str) -> list[str]:
    """Normalised non-empty lines of the answer; quoted spans inside a sentence become placeholders."""
    text = _unify_quotes(text)
    text = _xml_verdicts(_json_verdicts(text))
    out = []
    for raw in text.splitlines():
        if _FENCE.match(raw):
            continue
        line = _clean_line(raw)
        if line:
            out.append(_mask_quotes(line))
    return out


# ---- stage 4: statements ------------------------------------------------------------------
_LABEL = re.compile(
    r"(?:^|(?<=[\s(\[,;]))(?:(?:my|the|our)\s+)?(?:final\s+|overall\s+)?(?:verdict|answer|decision|choice)"
    r"\s*(?::|=|-(?!\w)|\bis\b)\s*"
)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|likely|unlikely|leaning|lean|leans|unsure|uncertain|unclear|undecided"
    r"|not\s+sure|not\s+certain|either|depends|depending|hard\s+to\s+say|tentative(?:ly)?|arguably|could\s+be"
    r"|might\s+be|may\s+be|kind\s+of|sort\s+of|borderline|partially|partly|moderately|somewhat|marginally"
    r"|cannot|can't|can\s+not|ish|low\s+confidence|not\s+confident|unconfident)\b|\?"
)
_REOPEN = re.compile(
    r"(?:^|[.!?;,]\s*)(?:wait|actually|hmm)\b|(?:^|[.!?;]\s*)no[,!]|\b(?:sorry|i\s+meant|no\s+wait|on\s+second\s+thought|second\s+thoughts?|correction"
    r"|scratch\s+that|reconsider(?:ing)?|not\s+sure|unsure|uncertain|not\s+certain|could\s+be\s+wrong"
    r"|might\s+be\s+wrong|may\s+be\s+wrong|then\s+again|take\s+(?:that|it)\s+back|change\s+my"
    r"|or\s+maybe|or\s+perhaps|i\s+mean|or\s+rather|or\s+is\s+it|low\s+confidence|not\s+confident"
    r"|go\s+the\s+other\s+way|(?:could|might|may)\s+(?:\w+\s+)?be\s+wrong|(?:only|just)\s+an\s+example"
    r"|as\s+an\s+example|for\s+illustration)\b"
)
# A hedge after the verdict reopens it when it concerns an option ("Although Idea B might be as good").
_AFTER_HEDGE = re.compile(r"\b(?:might|could|may|maybe|perhaps|probably|possibly|likely|arguably)\b")
_REFUSAL = re.compile(
    r"\bi\s+(?:refuse|decline|must\s+decline)\b"
    r"|\bi\s*(?:cannot|can't|can\s+not|won't|will\s+not|am\s+unable\s+to|'m\s+unable\s+to|am\s+not\s+able\s+to"
    r"|'m\s+not\s+able\s+to|do\s+not\s+feel\s+able\s+to|(?:do\s+not|don't)\s+think\s+i\s+(?:can|could))"
    r"\s+(?:\w+\s+){0,2}(?:judge|determine|decide|assess|evaluate"
    r"|compare|answer|help|provide|make|give|choose|say|tell|pick|rate|comply|do\s+that|fulfil|fulfill)\b"
    r"|\bi\s+(?:won't|will\s+not)\s*(?:[.!,]|$)"
    r"|\bunable\s+to\s+(?:judge|determine|decide|assess|evaluate|compare)\b"
    r"|\bas\s+an\s+ai\b|\bi'm\s+sorry,?\s+but\b|\bi\s+am\s+sorry,?\s+but\b"
    r"|\b(?:not\s+possible|impossible)\s+to\s+(?:judge|determine|decide|tell|say|assess)\b"
    r"|\bcan(?:not|'t|\s+not)\s+be\s+(?:determined|judged|decided)\b"
    r"|\bno\s+verdict\b|\bwithout\s+(?:a\s+)?verdict\b"
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|would|could|might|should|suppose|supposing|imagine|e\.?g\.?|eg|for\s+example"
    r"|for\s+instance|such\s+as|like|example|format|formatted|template|says?|said|write|writes|wrote"
    r"|ask(?:s|ed)?|required?|expects?|expected|instructions?|prompt|claims?|claimed)\b"
)
# A qualification that takes the verdict back in part ("NOVEL, but not very", "novel in X but not in Y").
_QUALIFIED = re.compile(
    r"\bbut\s+(?:not|only|barely|hardly|maybe|perhaps|less|no)\b|\bnot\s+(?:very|entirely|fully|really|that|quite)\b"
    r"|\bonly\s+(?:partly|partially|somewhat|marginally|slightly)\b"
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|hardly|wrong|false|incorrect|mistake|mistaken|doubt|doubtful|unlikely|nobody|none)\b"
    r"|n't\b|\bcannot\b|\bdisagree\b"
)
_DELIM = re.compile(r"^\s*(?:$|[.,;:!?()\[\]\-/&]|(?:or|and|vs)\b|(?:because|since|as|given|due|owing|for|with)\b)")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
# Characters around a statement that decide its reading (its clause): bounds the work per statement.
_WINDOW = 300


def _option_words(kind: str, labels: str) -> list[tuple[str, str]]:
    """(regex, reading) pairs for the options a value may name, longest first."""
    if kind == "pointwise":
        return [(r"not[\s_-]+novel|non[\s_-]*novel", "not_novel"), (r"novel", "novel"),
                (r"yes", "novel"), (r"no", "not_novel")]
    first, second = ("a", "b") if labels == "AB" else ("1", "2")
    return [(rf"(?:idea|option)\s*{first}", "a"), (rf"(?:idea|option)\s*{second}", "b"),
            (rf"\(\s*{first}\s*\)", "a"), (rf"\(\s*{second}\s*\)", "b"), (first, "a"), (second, "b"),
            (r"tie|draw", "tie"), (r"(?:both\s+(?:ideas\s+)?(?:are\s+)?)?equally\s+novel", "tie")]


# Options written in the other label style (or the other kind): stating one is an unknown option.
_FOREIGN = {
    ("pairwise", "AB"): r"(?:idea|option)?\s*\(?[12]\)?|novel|not\s+novel|c|d",
    ("pairwise", "12"): r"(?:idea|option)?\s*\(?[abcd]\)?|novel|not\s+novel|3",
    ("pointwise", "AB"): r"(?:idea|option)?\s*\(?[abcd12]\)?|tie|draw",
    ("pointwise", "12"): r"(?:idea|option)?\s*\(?[abcd12]\)?|tie|draw",
}
_VALUE_PREFIX = re.compile(
    r"^(?:the\s+more\s+novel\s+(?:idea|one)\s+is\s+|(?:the|this)\s+(?:research\s+)?(?:idea|proposal)\s+is\s+"
    r"|it\s+is\s+|it's\s+|i\s+choose\s+)"
)
_MORE_NOVEL_TAIL = re.compile(r"^\s*(?:is|was)\s+(?:the\s+)?(?:\w+\s+)?more\s+novel\b")
_CONNECTOR = re.compile(r"^\s*(?:or|/|and|&|vs\.?|versus|,|-|\+|then)?\s*")


def _other_option_after(rest: str, kind: str, labels: str, reading: str) -> bool:
    """Whether the text right after an option names a different option (`A or B`, `A/B`, `NOVEL, not novel`)."""
    tail = rest[_CONNECTOR.match(rest).end():]  # type: ignore[union-attr]
    for pattern, other in _option_words(kind, labels):
        if other != reading and _rx(rf"(?:{pattern})(?![\w])").match(tail) and not (kind == "pointwise" and other == "not_novel" and pattern == "no"):
            return True
    return False


def _value_statement(value: str, kind: str, labels: str) -> tuple[str | None, str | None, int] | None:
    """(option, flaw, characters used) for a labelled value; None when the value is prose, not an answer."""
    value = value.strip().strip("\"'").strip()
    if not value:
        return None
    stripped = _VALUE_PREFIX.sub("", value)
    offset = len(value) - len(stripped)
    for pattern, reading in _option_words(kind, labels):
        match = _rx(rf"(?:{pattern})(?![\w])").match(stripped)
        if not match:
            continue
        rest = stripped[match.end():]
        if not (_DELIM.match(rest) or _MORE_NOVEL_TAIL.match(rest)):
            continue
        if _other_option_after(rest, kind, labels, reading):
            return None, HEDGED, len(value)
        clause = _rx(r"(?<=[.;])\s|\s-\s").split(rest, maxsplit=1)[0]
        if _HEDGE.search(value[:offset]) or _HEDGE.search(clause) or _REOPEN.search(clause) or _QUALIFIED.search(rest):
            return None, HEDGED, len(value)
        aside = _rx(r"\(([^)]*)\)").search(clause)
        if aside and _names_option(aside.group(1), kind, labels):  # `Verdict: A (could be B)`
            return None, HEDGED, len(value)
        return reading, None, offset + match.end()
    if _HEDGE.search(value) and (len(value.split()) <= 6 or _names_option(value, kind, labels)):
        return None, HEDGED, len(value)
    if _rx(rf"(?:{_FOREIGN[(kind, labels)]}|maybe|unsure|neither|none|both|n/?a|unknown|undecided|\?+)"
           r"\s*[.!]?").fullmatch(value):
        return None, UNKNOWN_OPTION, len(value)
    return None


def _names_option(text: str, kind: str, labels: str) -> bool:
    """Whether `text` names any option of the kind (used to spot hedges like `(could be B)`)."""
    for pattern, _ in _option_words(kind, labels):
        if _rx(rf"(?<![\w]){pattern}(?![\w])").search(text):
            return True
    return False


_CLAUSE = re.compile(
    r"(?<=[.!?;:])\s+|,\s*(?:so|but|while|whereas|therefore|thus|hence|and|yet|overall)\b"
    r"|\b(?:whereas|while|therefore|thus|hence|overall|in\s+conclusion|in\s+summary|so)\b"
)
_COMMITMENT = re.compile(r"\bi(?:\s+would|'d)\s+(?:say|argue|conclude|judge)\b|\bi\s+(?:think|believe|conclude)\b")


def _prefix_sentence(line: str, start: int) -> str:
    """The clause before `start` (for negation and hypothetical markers), commitments like "I'd say" removed."""
    head = line[max(0, start - _WINDOW):start].replace("e.g.", "eg").replace("i.e.", "ie")
    return _COMMITMENT.sub(" ", _CLAUSE.split(head)[-1])


def _pair_phrases(labels: str) -> list[tuple[re.Pattern[str], str | None]]:
    first, second = ("a", "b") if labels == "AB" else ("1", "2")
    opt = rf"(?:idea\s+|option\s+)?\(?({first}|{second})\)?"
    degree = r"(?:(?:clearly|much|slightly|somewhat|significantly|considerably|substantially|far|a\s+bit|the)\s+)*"
    return [
        (re.compile(rf"(?<![\w]){opt}\s+is\s+{degree}more\s+novel\b"), None),
        (re.compile(rf"\bthe\s+(?:more|most)\s+novel\s+(?:idea|one|proposal|of\s+the\s+two(?:\s+ideas)?)\s+is\s+{opt}(?![\w])"), None),
        (re.compile(rf"\bi\s+(?:choose|pick|select|go\s+with|prefer|favou?r|vote\s+for)\s+{opt}(?![\w])"), None),
        (re.compile(r"\b(?:both(?:\s+ideas)?|the\s+two(?:\s+ideas)?|they)\s+are\s+(?:about\s+)?(?:equally|similarly)\s+novel\b"), "tie"),
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
    """What the statement finder saw: statements, negated statements (by option) and mentions."""

    statements: list[Statement]
    negated: list[str]
    mentions: int


def _label_statements(lines: list[str], kind: str, labels: str) -> tuple[list[Statement], int]:
    found: list[Statement] = []
    mentions = 0
    for i, line in enumerate(lines):
        for match in _LABEL.finditer(line):
            value = line[match.end():match.end() + _WINDOW]
            if not value.strip() and i + 1 < len(lines):
                nxt = _value_statement(lines[i + 1], kind, labels)  # `### Verdict` then the option below
                if nxt is not None and len(lines[i + 1]) <= nxt[2] + 2:
                    found.append(Statement(i + 1, len(lines[i + 1]), nxt[0], nxt[1]))
                continue
            if value.lstrip().startswith(MENTION):
                mentions += 1
                continue
            parsed = _value_statement(value, kind, labels)
            if parsed is None:
                continue
            option, flaw, used = parsed
            if match.start() > 0 and _HYPOTHETICAL.search(_prefix_sentence(line, match.start())):
                mentions += 1
                continue
            found.append(Statement(i, match.end() + used, option, flaw))
    return found, mentions


def _phrase_statements(lines: list[str], kind: str, labels: str) -> tuple[list[Statement], list[str], int]:
    patterns = _pair_phrases(labels) if kind == "pairwise" else _point_phrases()
    found: list[Statement] = []
    negated: list[str] = []
    mentions = 0
    for i, line in enumerate(lines):
        for pattern, fixed in patterns:
            for match in pattern.finditer(line):
                reading = _phrase_reading(kind, labels, match.group(1) if match.groups() else None, fixed)
                before = _prefix_sentence(line, match.start())
                sentence_rest = _SENTENCE.split(line[match.end():match.end() + _WINDOW])[0]
                if _NEGATION.search(before):
                    negated.append(reading)
                    continue
                if _HYPOTHETICAL.search(before) or sentence_rest.rstrip().endswith("?"):
                    mentions += 1
                    continue
                hedged = (_HEDGE.search(before + " " + match.group(0)) or _HEDGE.search(sentence_rest.split(",")[0])
                          or _QUALIFIED.search(sentence_rest))
                found.append(Statement(i, match.end(), None if hedged else reading, HEDGED if hedged else None, "phrase"))
    return found, negated, mentions


def _bare_statement(lines: list[str], kind: str, labels: str) -> Statement | None:
    """A last line that is only an option (`B`, `Idea B.`, `Not novel`)."""
    last = lines[-1].strip().rstrip(".!").strip()
    for pattern, reading in _option_words(kind, labels):
        if reading in ("novel", "not_novel") and pattern in ("yes", "no"):
            continue
        if _rx(pattern).fullmatch(last):
            return Statement(len(lines) - 1, len(lines[-1]), reading, None, "bare")
    if _rx(rf"(?:{_FOREIGN[(kind, labels)]})").fullmatch(last):
        return Statement(len(lines) - 1, len(lines[-1]), None, UNKNOWN_OPTION, "bare")
    return None


def find_statements(lines: list[str], kind: str, labels: str = "AB") -> Found:
    """Every verdict statement in the answer lines, in order, with negated ones and mentions counted."""
    labelled, label_mentions = _label_statements(lines, kind, labels)
    phrases, negated, phrase_mentions = _phrase_statements(lines, kind, labels)
    statements = labelled + phrases
    if lines:
        bare = _bare_statement(lines, kind, labels)
        if bare is not None and not any(s.line == bare.line for s in statements):
            statements.append(bare)
    statements.sort(key=lambda s: (s.line, s.end))
    return Found(statements, negated, label_mentions + phrase_mentions + sum(ln.count(MENTION) for ln in lines))


# ---- stage 5: decision --------------------------------------------------------------------
def _after(lines: list[str], last: Statement) -> str:
    """The answer text after the last verdict statement."""
    return ". ".join([lines[last.line][last.end:], *lines[last.line + 1:]])


def _failed(reason: str) -> Parsed:
    return Parsed(INVALID, "failed", reason)


_CONCESSIVE = re.compile(r"^\W*(?:although|though|but|however|still|yet|then\s+again|or)\b")


def _hedges_an_option(after: str, kind: str, labels: str) -> bool:
    """Whether a sentence after the verdict concedes, with a hedge, that an option might be right
    ("Although Idea B might be just as defensible.")."""
    for sentence in _rx(r"(?<=[.!?;])\s+|\.\s").split(after):
        if _CONCESSIVE.match(sentence) and _AFTER_HEDGE.search(sentence) and _names_option(sentence, kind, labels):
            return True
    return False


def decide(lines: list[str], found: Found, strict_line: bool, kind: str = "pairwise", labels: str = "AB") -> Parsed:
    """The reading from the statements found: one clear option, or `invalid` with the first reason that applies."""
    text = " ".join(lines)
    if _REFUSAL.search(text):
        return _failed(REFUSAL)
    if not found.statements:
        if found.negated:
            return _failed(ONLY_NEGATED)
        return _failed(ONLY_MENTION if found.mentions else NO_STATEMENT)
    flaws = [s.flaw for s in found.statements if s.flaw]
    if flaws:
        return _failed(flaws[0])
    chosen = {s.option for s in found.statements}
    if len(chosen) > 1:
        return _failed(CONFLICT)
    after = _after(lines, found.statements[-1])
    if _REOPEN.search(after) or _rx(r"^\s*\?").match(after) or _hedges_an_option(after, kind, labels):
        return _failed(REOPENED)
    option = chosen.pop()
    assert option is not None
    if option in found.negated:
        return _failed(NEGATED)
    return Parsed(option, "strict" if strict_line else "wrapped")


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
    parsed = decide(lines, find_statements(lines, kind, labels), parse_strict(own, kind, labels) is not None,
                    kind, labels)
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
