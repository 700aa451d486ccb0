"""Stage 3: the answer's lines: JSON objects and XML-style tags unwrapped into labelled lines,
markdown removed, quotes and case unified; a quoted verdict inside a sentence becomes a mention."""

from __future__ import annotations

import json
import re

from judgeaudit.judges.parse.base import _WS, _rx, _unify_quotes

_KEYS = r"(?:final[_ ]?)?(?:verdict|answer|decision|choice)"


_XML = re.compile(rf"<\s*({_KEYS})\s*>(.*?)<\s*/\s*\1\s*>", re.S | re.I)


_JSON = json.JSONDecoder()


_FENCE = re.compile(r"^\s*```[\w-]*\s*$")


# List markers stay: `2. Idea B` ending a list is a cut-off item, not a bare option.
_MARKUP = re.compile(r"[*_]{1,3}|^\s*#{1,6}\s*|^\s*>\s*")


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
