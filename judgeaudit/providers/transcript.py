"""Render chat messages as a plain completion prompt for base (non-chat) models.

Format `transcript/1` (ours): each message becomes a `### <Role>` header line followed by its
text and a blank line; the prompt ends with `### Assistant` and a newline so the model writes
the assistant's turn. Generation stops at the next header (`STOP_SEQUENCES`).
"""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ContentReasoning, ContentText

TRANSCRIPT_FORMAT = "transcript/1"
STOP_SEQUENCES: tuple[str, ...] = ("\n### ",)
_ROLE_TITLES = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}


def message_text(message: ChatMessage, index: int) -> str:
    """Plain text of one message; a clear error for media a text-only base model cannot read."""
    if isinstance(message.content, str):
        return message.content
    parts: list[str] = []
    for content in message.content:
        if isinstance(content, ContentText):
            parts.append(content.text)
        elif not isinstance(content, ContentReasoning):
            raise ValueError(
                f"message {index} ({message.role}) has {content.type} content; only text is supported"
            )
    return "".join(parts)


def render_transcript(messages: list[ChatMessage]) -> str:
    """The completion prompt for `messages` (see module docstring)."""
    if not messages:
        raise ValueError("cannot render an empty message list")
    blocks = [
        f"### {_ROLE_TITLES[m.role]}\n{message_text(m, i).strip()}\n"
        for i, m in enumerate(messages)
    ]
    return "\n".join(blocks) + "\n### Assistant\n"
