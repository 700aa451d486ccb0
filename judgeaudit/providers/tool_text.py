"""Tool calling for base models as plain text: our protocol `tool_text/1`.

A base model has no tool-call API, so tools are described in the prompt and calls are read
back from the generated text (used by `local/<model>`, rendered into a `transcript/1` prompt):

- Tools offered: one extra `### System` block after the leading system message(s) lists each
  tool (`- <name> {<arg>: <type>, ...}: <description>`, then `  <arg>: <description>` per
  described argument) and the call syntax: a line
  `CALL <tool name> <arguments as one JSON object>` ends the reply; a reply without such a
  line is a normal answer. With tool choice `any` or a named function the block says a call is
  required (the grammar below then enforces it).
- History: an assistant turn that called tools is its text followed by one `CALL` line per
  call; a tool result is a `### Tool` block starting `<name> returned:` (or `<name> failed:`
  followed by the error message).
- Parsing a reply: the first line starting with `CALL ` begins the calls; each call is
  `CALL <name>` then a JSON object (read with a JSON decoder, so it may not be cut short);
  further `CALL` lines directly after it are further calls. Text before the first call is the
  message content; text after the calls is cut off and reported (`ignored`), never used.
  Arguments that are not a JSON object give a `ToolCall` with `parse_error` (Inspect answers
  it with an error and the model can try again); an unknown tool name is left to Inspect,
  which answers "Tool <name> not found".
- Grammar (`tool_grammar`, `resolve_tool_grammar`): GBNF allowing either one well-formed call
  at the start of the reply (`CALL <name> <JSON>`, arguments matching the tool's JSON schema,
  strings capped at `MAX_STRING_CHARS`) or the answer grammar the `-M grammar=` value gives
  (`grammars.py`, e.g. the verdict line). Tool choice `any` / a named function leaves only the
  call. Under such a grammar a reply is read with `calls_at_start=True`: only a `CALL` line at
  its very start is a call, so a reasoning line of the answer that happens to begin with
  `CALL` is not mistaken for one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.tool import ToolCall, ToolChoice, ToolFunction, ToolInfo

from judgeaudit.providers.grammars import resolve_grammar
from judgeaudit.providers.schema_grammar import SchemaRules

TOOL_PROTOCOL = "tool_text/1"
CALL_PREFIX = "CALL "
MAX_STRING_CHARS = 200
_CALL = re.compile(r"^CALL[ \t]+([A-Za-z_][\w.-]*)", re.MULTILINE)


@dataclass
class ParsedReply:
    """A reply read under `tool_text/1`: message content, tool calls, and any text cut after the calls."""

    content: str
    calls: list[ToolCall] = field(default_factory=list)
    ignored: str = ""


def _param_summary(tool: ToolInfo) -> str:
    """`{"query": string, ...}` with optional arguments marked."""
    required = set(tool.parameters.required or [])
    parts = []
    for name, schema in tool.parameters.properties.items():
        kind = schema.type if isinstance(schema.type, str) else "value"
        parts.append(f'"{name}": {kind}{"" if name in required else " (optional)"}')
    return "{" + ", ".join(parts) + "}"


def describe_tools(tools: list[ToolInfo], choice: ToolChoice) -> str:
    """The system block text that offers `tools` under `tool_text/1`."""
    if not tools:
        raise ValueError("describe_tools needs at least one tool")
    lines = ["You can use these tools:"]
    for tool in tools:
        description = " ".join(tool.description.split())
        lines.append(f"- {tool.name} {_param_summary(tool)}: {description}")
        lines += [
            f"  {name}: {' '.join(schema.description.split())}"
            for name, schema in tool.parameters.properties.items()
            if schema.description
        ]
    lines += [
        "To use a tool, end your reply with one line: CALL <tool name> <its arguments as one JSON object>.",
        "The result comes back in a ### Tool block.",
    ]
    if isinstance(choice, ToolFunction):
        lines.append(f"You must call {choice.name} now.")
    elif choice == "any":
        lines.append("You must call one of the tools now.")
    else:
        lines.append("To answer without a tool, write your answer and no CALL line.")
    return "\n".join(lines)


def format_call(call: ToolCall) -> str:
    """The `CALL` line of a tool call (unreadable arguments are named as such; the tool error quotes them)."""
    if call.parse_error:
        return f"{CALL_PREFIX}{call.function} (arguments not readable)"
    return f"{CALL_PREFIX}{call.function} {json.dumps(call.arguments, ensure_ascii=False)}"


def format_result(function: str | None, text: str, error: str | None) -> str:
    """The body of a `### Tool` block: what the tool returned, or its error."""
    name = function or "tool"
    if error is not None:
        return f"{name} failed: {error}"
    return f"{name} returned:\n{text}"


def _call_at(text: str, match: re.Match[str], turn: int, index: int) -> tuple[ToolCall, int]:
    """The tool call whose `CALL <name>` header is `match`, and the position after its arguments."""
    name = match.group(1)
    line_end = text.find("\n", match.end())
    line_end = len(text) if line_end < 0 else line_end
    pos = match.end()
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    call_id = f"call_{turn}_{index}"
    try:
        value, end = json.JSONDecoder().raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        error = f"arguments of {name} are not a valid JSON object ({exc.msg}): {text[pos:line_end][:500]!r}"
        return ToolCall(id=call_id, function=name, arguments={}, parse_error=error), line_end
    if not isinstance(value, dict):
        error = f"arguments of {name} must be a JSON object, got {text[pos:end][:500]!r}"
        return ToolCall(id=call_id, function=name, arguments={}, parse_error=error), end
    return ToolCall(id=call_id, function=name, arguments=value), end


def parse_reply(text: str, turn: int = 0, calls_at_start: bool = False) -> ParsedReply:
    """Split a reply into content and tool calls (ids `call_<turn>_<i>`); see the module docstring."""
    match = _CALL.match(text) if calls_at_start else _CALL.search(text)
    if match is None:
        return ParsedReply(content=text)
    content = text[: match.start()].rstrip()
    calls: list[ToolCall] = []
    pos = match.start()
    while match is not None and match.start() == pos:
        call, pos = _call_at(text, match, turn, len(calls))
        calls.append(call)
        rest = text[pos:]
        pos += len(rest) - len(rest.lstrip())
        match = _CALL.search(text, pos)
    return ParsedReply(content=content, calls=calls, ignored=text[pos:].strip())


def _capped(schema: Any) -> Any:
    """`schema` with a `maxLength` on every string without one (bounds what a grammar lets a model write)."""
    if isinstance(schema, list):
        return [_capped(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _capped(v) for k, v in schema.items()}
    if out.get("type") == "string" and "maxLength" not in out and "enum" not in out:
        out["maxLength"] = MAX_STRING_CHARS
    return out


_RULE = re.compile(r"^([A-Za-z0-9-]+)\s*::=", re.MULTILINE)


def _answer_rules(answer: str, taken: set[str]) -> str:
    """The answer grammar's rules with its `root` renamed `answer`; clear errors for clashing names."""
    names = set(_RULE.findall(answer))
    if "root" not in names:
        raise ValueError("the answer grammar has no root rule")
    body = _RULE.sub(lambda m: "answer ::=" if m.group(1) == "root" else m.group(0), answer)
    if re.search(r"(?<![\w\"-])root(?![\w\"-])", body):
        raise ValueError(
            "the answer grammar refers to its root rule; it cannot be combined with tool calls"
        )
    clash = sorted((names - {"root"}) & (taken | {"answer", "call"}))
    if clash:
        raise ValueError(
            f"the answer grammar defines {', '.join(clash)}, names the tool-call grammar uses"
        )
    return body.strip()


def tool_grammar(tools: list[ToolInfo], choice: ToolChoice, answer: str | None) -> str:
    """GBNF: one `CALL` of an offered tool (arguments per its JSON schema), or (choice `auto`) the
    answer grammar `answer` (GBNF text whose `root` becomes rule `answer`). A call starts the reply."""
    if not tools:
        raise ValueError("tool_grammar needs at least one tool")
    converter = SchemaRules()
    alternatives = []
    for i, tool in enumerate(tools):
        rule = converter.visit(
            _capped(tool.parameters.model_dump(exclude_none=True)), f"tool-args-{i}"
        )
        alternatives.append(f'"{tool.name} " {rule}')
    args = converter.text().strip()
    rules = [f'call ::= "{CALL_PREFIX}" ({" | ".join(alternatives)})']
    if choice == "any" or isinstance(choice, ToolFunction):
        root = "root ::= call"
    elif answer is None:
        raise ValueError(
            "tool_grammar: give an answer grammar unless the tool choice forces a call"
        )
    else:
        rules.append(_answer_rules(answer, set(_RULE.findall(args))))
        root = "root ::= call | answer"
    return "\n".join([root, *rules, args]) + "\n"


def resolve_tool_grammar(
    spec: str | None, prompt: str, tools: list[ToolInfo], choice: ToolChoice
) -> tuple[str | None, str | None]:
    """(grammar name as recorded, GBNF text) for a `-M grammar=` value when tools are offered.

    `none`: no grammar. Otherwise the grammar the value names for this prompt (`grammars.py`:
    a verdict grammar, `auto`'s pick, GBNF text or a file) becomes the answer alternative of
    `tool_grammar` (name `tool_text/1:<name>`); tool choice `any` / a named function gives the
    call-only grammar (`tool_text/1:call`); `auto` finding no format leaves the reply free.
    """
    if spec is None or spec == "none":
        return None, None
    name, answer = resolve_grammar(spec, prompt)
    if choice == "any" or isinstance(choice, ToolFunction):
        return f"{TOOL_PROTOCOL}:call", tool_grammar(tools, choice, None)
    if answer is None:
        return name, None
    return f"{TOOL_PROTOCOL}:{name}", tool_grammar(tools, choice, answer)
