"""The parser's vocabulary (why a reading is `invalid`), its result types and the text helpers every
stage shares (compiled patterns, quote unification)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from judgeaudit.protocol import ParsePath

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
    named: str | None = (
        None  # a flawed conclusive phrase: the option it would name without its flaw
    )


@lru_cache(maxsize=512)
def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled once (the parser builds its option patterns per kind and labels)."""
    return re.compile(pattern, flags)


_WS = re.compile(r"\s+")
# A break after a sentence or clause (`.`, `!`, `?`, `;`): echo fragments and a phrase's own sentence.
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")


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


_EMPHASIS_CHARS = "*_`#>"  # markdown emphasis, dropped by echo matching


# Echo matching's one translation: quotes unified, emphasis to spaces (`_flat`).
_FLAT_TABLE = {**_QUOTES, **{ord(c): " " for c in _EMPHASIS_CHARS}}


def _unify_quotes(text: str) -> str:
    return text.translate(_QUOTES)
