"""Read a judge's verdict from its output against the answer protocol (`judgeaudit/protocol.py`).

Stages, each a small function:
1. `strip_thinking`: drop `<think>...</think>` blocks (an unterminated one runs to the end).
2. `strip_echoes`: drop text that repeats the prompt or an idea (when those texts are given).
3. `answer_lines`: unwrap JSON objects and XML-style tags into labelled lines, remove markdown,
   unify quotes and case; quoted verdicts inside a sentence become mentions.
4. `find_statements`: verdict statements (labelled clauses, conclusive phrases, a bare last
   line), each with the option it names, or a flaw: a shape that looks like a verdict but does not
   commit to one (a hedge, a degree, one option per aspect, a yes/no against the option, a
   retraction inside the sentence, an option inside another word; see the reasons below) or an
   option the labels do not offer.
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
HEDGED = "hedge inside the verdict statement"  # also on the verdict line: `Verdict: A, I guess`, `A (50/50)`
CONFLICT = "verdict statements name different options"
REOPENED = "self-correction or hedge after the verdict"
UNKNOWN_OPTION = "option not offered by the prompt's labels"
NEGATED = "negated statement contradicts the verdict"
ONLY_NEGATED = "only a negated statement, no plain verdict"
# Statements that look like a verdict but do not commit to one (issue 28), one reason per shape;
# the hedge on the verdict line itself is HEDGED above.
SPLIT = "split verdict (one option per aspect)"  # `Verdict: A for framing, B for method`
DEGREE = "verdict withheld by degree"  # `Verdict: NOVEL (in part)`, `partly novel`
YES_NO_CONTRADICTS = "yes/no contradicts the option"  # `Verdict: No, it is novel.`
RETRACTED = "self-correction within a sentence"  # `Idea A is more novel - just kidding, Idea B is.`
COMPOUND = "option inside another word"  # `Verdict: tie-breaker goes to A`
REASONS: tuple[str, ...] = (
    EMPTY,
    ONLY_THINKING,
    ONLY_ECHO,
    NO_STATEMENT,
    ONLY_MENTION,
    REFUSAL,
    HEDGED,
    CONFLICT,
    REOPENED,
    UNKNOWN_OPTION,
    NEGATED,
    ONLY_NEGATED,
    SPLIT,
    DEGREE,
    YES_NO_CONTRADICTS,
    RETRACTED,
    COMPOUND,
)


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


_ECHO_HEADER = re.compile(
    r"^(?:idea\s*(?:a|b|1|2)?|the\s+idea(?:\s+under\s+review)?|proposal)\s*:\s*"
)


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
_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2013": "-",
        "\u2014": " - ",
        "\u2212": "-",
        "\u2026": "...",
    }
)
# Echo matching's one translation: quotes unified, emphasis to spaces (`_flat`).
_FLAT_TABLE = {**_QUOTES, **{ord(c): " " for c in _EMPHASIS_CHARS}}
_KEYS = r"(?:final[_ ]?)?(?:verdict|answer|decision|choice)"
_XML = re.compile(rf"<\s*({_KEYS})\s*>(.*?)<\s*/\s*\1\s*>", re.S | re.I)
_JSON = json.JSONDecoder()
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")
# List markers stay: `2. Idea B` ending a list is a cut-off item, not a bare option.
_MARKUP = re.compile(r"[*_]{1,3}|^\s*#{1,6}\s*|^\s*>\s*")


def _unify_quotes(text: str) -> str:
    return text.translate(_QUOTES)


def _json_value(value: object) -> str:
    """A JSON verdict value as a line's text (an object, one entry per aspect, as `aspect: value, ...`)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return _unify_quotes(str(value))


def _json_verdicts(text: str) -> str:
    """Each JSON object with a verdict/answer key replaced by a line `verdict: <value>` (an object nested
    in another is found too: after an object without such a key the search goes on inside it)."""
    out: list[str] = []
    done = 0
    start = text.find("{")
    while start != -1:
        try:
            obj, end = _JSON.raw_decode(text, start)
        except ValueError:
            obj, end = None, start
        values = (
            [_json_value(v) for k, v in obj.items() if _rx(_KEYS, re.I).fullmatch(str(k).strip())]
            if isinstance(obj, dict)
            else []
        )
        if not values:
            start = text.find("{", start + 1)
            continue
        out += [text[done:start], "\n", *(f"verdict: {v}\n" for v in values)]
        done = end
        start = text.find("{", end)
    return "".join(out) + text[done:] if out else text


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
_LABEL_QUOTED = re.compile(
    r'"?\b((?:final\s+)?(?:verdict|answer|decision|choice))"?\s*(?::|=)\s*"([^"\n]*)"'
)
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
# Hedge words: the statement does not commit ("probably A", "Verdict: A (50/50)").
_HEDGE_WORDS = (
    r"maybe|perhaps|probably|possibly|likely|unlikely|leaning|lean|leans|unsure|uncertain|unclear|undecided"
    r"|not\s+sure|not\s+certain|either|depends|depending|hard\s+to\s+say|tentative(?:ly)?|arguably|could\s+be"
    r"|might\s+be|may\s+be|cannot|can't|can\s+not|low\s+confidence|not\s+confident|unconfident"
    r"|i\s+guess|i\s+suppose|i\s+reckon|fifty-fifty|coin\s+(?:flip|toss)|toss-?up|50\s*[/-]\s*50"
)
# Degree words: the statement withholds the verdict by degree ("partly novel", "Verdict: A (somewhat)").
_DEGREE_WORDS = (
    r"partly|partially|moderately|somewhat|marginally|kind\s+of|sort\s+of|borderline|ish"
)
# Degree phrases, which also occur in reasons ("because, in part, ..."): a degree only next to the option
# (`NOVEL (in part)`, see `_QUALIFIER`) or as a short value (`Verdict: In parts, A`).
_DEGREE_PHRASES = (
    r"in\s+parts?|to\s+(?:some|a\s+(?:certain|limited|small))\s+(?:extent|degree)|to\s+a\s+degree"
    r"|up\s+to\s+a\s+point|in\s+(?:some|certain|a\s+few|many)\s+(?:respects|ways|aspects|places)"
)
_DEGREE_PHRASE = re.compile(rf"\b(?:{_DEGREE_PHRASES})\b")
# A hedge or a degree word anywhere in a verdict's own clause (one search; the group that matched names
# the reason).
_DOUBT = re.compile(rf"\b(?:(?P<degree>{_DEGREE_WORDS})|{_HEDGE_WORDS})\b|\?")
# Words right after an option that qualify it: a hedge or a degree standing as the option's own clause
# (`A, I think`, `NOVEL (in some respects)`, `A - tentatively.`), not a reason that follows it.
_QUALIFIER = re.compile(
    r"^\s*(?:[,:;(\[-]|\.\.\.)?\s*(?:(?:but|though|although|at\s+least|only|if\s+only|or\s+so)\s+)*"
    rf"(?:(?P<degree>{_DEGREE_WORDS}|{_DEGREE_PHRASES}|semi)|(?P<weak>slightly|mildly|modestly|weakly|a\s+bit|a\s+little)"
    rf"|{_HEDGE_WORDS}|i\s+(?:think|believe|suspect|feel)|i(?:'d|\s+would)\s+(?:say|guess)|i'm\s+not\s+sure"
    r"|if\s+i\s+(?:had|have)\s+to\s+(?:choose|pick|guess|say)|if\s+forced|at\s+a\s+guess|for\s+now|provisionally"
    r"|tentatively|presumably|seemingly|apparently|roughly|more\s+or\s+less|hmm+|(?:could|can|might)\s+go\s+either\s+way)"
    r"(?:\s+so)?\s*(?=$|[.,;:!?)\]]|-)"
)
# Taking the verdict back inside its sentence ("A - just kidding, B", "B, no wait, A", "Tie? No, A").
_RETRACTION_WORDS = (
    r"(?<!no\s)(?<!not\s)(?:kidding|joking)|jk|j/k|psych|(?:lol|haha+),?\s+no|no\s+wait"
    r"|wait,?\s+no|scratch\s+that|(?:i\s+)?take\s+(?:that|it)\s+back|sorry|i\s+meant|or\s+rather|correction"
    r"|on\s+second\s+thoughts?|second\s+thoughts?|change\s+my\s+mind|actually,?\s+no"
)
_RETRACTION = re.compile(rf"\b(?:{_RETRACTION_WORDS})\b|\?\s*no\b")
_REOPEN = re.compile(
    # "actually" as an intensifier ("actually by a wide margin") does not reopen.
    r"(?:^|[.!?;,]\s*)(?:wait|actually(?!\s+(?:by|quite|clearly|much|far|very|considerably|substantially)\b)|hmm)\b"
    rf"|(?:^|[.!?;]\s*)no[,!]|\b(?:{_RETRACTION_WORDS}"
    r"|reconsider(?:ing)?|not\s+sure|unsure|uncertain|not\s+certain|could\s+be\s+wrong"
    r"|might\s+be\s+wrong|may\s+be\s+wrong|then\s+again|change\s+my"
    r"|or\s+maybe|or\s+perhaps|i\s+mean|or\s+is\s+it|low\s+confidence|not\s+confident"
    r"|go\s+the\s+other\s+way|(?:could|might|may)\s+(?:\w+\s+)?be\s+wrong|(?:only|just)\s+an\s+example"
    r"|as\s+an\s+example|for\s+illustration)\b"
)
# A hedge after the verdict reopens it when it concerns an option ("Although Idea B might be as good").
_AFTER_HEDGE = re.compile(
    r"\b(?:might|could|may|maybe|perhaps|probably|possibly|likely|arguably)\b"
)
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
_DELIM = re.compile(
    r"^\s*(?:$|[.,;:!?()\[\]\-/&]|(?:or|and|vs)\b|(?:because|since|as|given|due|owing|for|with)\b)"
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
# Characters around a statement that decide its reading (its clause): bounds the work per statement.
_WINDOW = 300


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


@lru_cache(maxsize=8)
def _inside_word(kind: str, labels: str) -> re.Pattern[str]:
    """A value starting with an option inside another word: a hyphenated word that starts with an option
    (`Ablation-wise`, `1D-signal`) or a word glued to an option word (`Tiebreaker`, `Novelty`)."""
    words = "novel" if kind == "pointwise" else ("a|b" if labels == "AB" else "1|2") + "|tie|draw"
    return re.compile(rf"(?:{words})(?:\w*-\w|(?<=\w\w)\w)")


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
                found.append(Statement(i, match.end(), None if flaw else reading, flaw, "phrase"))
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


# ---- stage 5: decision --------------------------------------------------------------------
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
