"""Stage 2: drop what repeats the prompt or an idea: echoed line runs, and long source sentences
inside the model's own lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from judgeaudit.judges.parse.base import _FLAT_TABLE, _SENTENCE, _WS, _rx

_ECHO_MIN_CHARS = 24  # a shorter fragment is only an echo when it is a whole line of the source


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
    return whole + tuple(s for s in _SENTENCE.split(line) if len(s) >= _ECHO_MIN_CHARS)


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
