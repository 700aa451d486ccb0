"""Stage 1: drop `<think>...</think>` reasoning blocks (an unterminated one runs to the end)."""

from __future__ import annotations

import re

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)


_CLOSE_THINK = re.compile(r"</think>", re.I)


def strip_thinking(text: str) -> str:
    """The text without reasoning blocks (everything before a lone `</think>` is reasoning too)."""
    text = _THINK.sub("\n", text)
    parts = _CLOSE_THINK.split(text)
    return parts[-1]
