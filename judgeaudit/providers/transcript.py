"""Render chat messages as a plain completion prompt for base (non-chat) models.

Format `transcript/1` (ours): each message becomes a `### <Role>` header line followed by its
text and a blank line; the prompt ends with `### Assistant` and a newline so the model writes
the assistant's turn. Generation stops at the next header (`STOP_SEQUENCES`).

Tool use follows our protocol `tool_text/1` (`tool_text.py`): the tools block passed as
`tools_block` becomes a `### System` block after the leading system message(s), an assistant
turn that called tools ends with its `CALL` lines, and a tool result is a `### Tool` block.
Prompts without tools render exactly as before.
"""

from __future__ import annotations

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ContentReasoning,
    ContentText,
)

from judgeaudit.providers.tool_text import format_call, format_result

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


def message_block_text(message: ChatMessage, index: int) -> str:
    """The body of one message's block: its text, plus `CALL` lines or a tool result (`tool_text/1`)."""
    text = message_text(message, index).strip()
    if isinstance(message, ChatMessageTool):
        return format_result(
            message.function, text, message.error.message if message.error else None
        )
    if isinstance(message, ChatMessageAssistant) and message.tool_calls:
        return "\n".join([*([text] if text else []), *(format_call(c) for c in message.tool_calls)])
    return text


def uses_tools(messages: list[ChatMessage]) -> bool:
    """Whether the messages hold tool calls or tool results (rendered under `tool_text/1`)."""
    return any(
        isinstance(m, ChatMessageTool) or (isinstance(m, ChatMessageAssistant) and m.tool_calls)
        for m in messages
    )


def render_transcript(messages: list[ChatMessage], tools_block: str | None = None) -> str:
    """The completion prompt for `messages` (see module docstring), with an optional tools block."""
    if not messages:
        raise ValueError("cannot render an empty message list")
    blocks = [
        f"### {_ROLE_TITLES[m.role]}\n{message_block_text(m, i)}\n" for i, m in enumerate(messages)
    ]
    if tools_block is not None:
        at = next(
            (i for i, m in enumerate(messages) if not isinstance(m, ChatMessageSystem)),
            len(messages),
        )
        blocks.insert(at, f"### System\n{tools_block.strip()}\n")
    return "\n".join(blocks) + "\n### Assistant\n"
