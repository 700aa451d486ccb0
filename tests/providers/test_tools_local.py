"""The `tool_text/1` protocol of the local provider: rendering, parsing and grammars (no model needed).

The real model runs the protocol in `tests/test_provider_tools_local_llm.py`.
"""

from __future__ import annotations

import pytest
from helpers.llama_grammar import assert_llama_accepts
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall, ToolCallError, ToolFunction, ToolInfo, ToolParams
from inspect_ai.util import JSONSchema

from judgeaudit.providers.grammars import GRAMMARS
from judgeaudit.providers.tool_text import (
    MAX_STRING_CHARS,
    TOOL_PROTOCOL,
    describe_tools,
    parse_reply,
    resolve_tool_grammar,
    tool_grammar,
)
from judgeaudit.providers.transcript import render_transcript, uses_tools

SEARCH = ToolInfo(
    name="search_prior_work",
    description="Search earlier\n   papers.",
    parameters=ToolParams(
        properties={
            "query": JSONSchema(type="string", description="A few\n keywords."),
            "k": JSONSchema(type="integer"),
        },
        required=["query"],
    ),
)
PAIR_PROMPT = 'End with one line "Verdict: A", "Verdict: B" or "Verdict: TIE".'


def test_tools_block_lists_tools_syntax_and_choice() -> None:
    block = describe_tools([SEARCH], "auto")
    assert (
        '- search_prior_work {"query": string, "k": integer (optional)}: Search earlier papers.'
        in block
    )
    assert "\n  query: A few keywords.\nTo use a tool" in block  # the undescribed k gets no line
    assert "CALL <tool name> <its arguments as one JSON object>" in block
    assert "without a tool" in block
    assert "You must call search_prior_work now." in describe_tools(
        [SEARCH], ToolFunction(name="search_prior_work")
    )
    assert "You must call one of the tools now." in describe_tools([SEARCH], "any")
    with pytest.raises(ValueError, match="at least one tool"):
        describe_tools([], "auto")


def test_transcript_without_tools_is_unchanged() -> None:
    messages = [ChatMessageSystem(content="Be brief."), ChatMessageUser(content="Which idea?")]
    expected = "### System\nBe brief.\n\n### User\nWhich idea?\n\n### Assistant\n"
    assert render_transcript(messages) == expected
    assert not uses_tools(messages)


def test_transcript_renders_tools_block_calls_and_results() -> None:
    call = ToolCall(id="c0", function="search_prior_work", arguments={"query": "graph pruning"})
    bad = ToolCall(id="c1", function="search_prior_work", arguments={}, parse_error="not JSON")
    messages = [
        ChatMessageSystem(content="Be brief."),
        ChatMessageUser(content="Which idea?"),
        ChatMessageAssistant(content="Let me look.", tool_calls=[call]),
        ChatMessageTool(
            content="[g1] Pruning graphs", tool_call_id="c0", function="search_prior_work"
        ),
        ChatMessageAssistant(content="", tool_calls=[bad]),
        ChatMessageTool(
            content="",
            tool_call_id="c1",
            function="search_prior_work",
            error=ToolCallError("parsing", "arguments are not JSON: '{\"query'"),
        ),
    ]
    assert uses_tools(messages)
    prompt = render_transcript(messages, describe_tools([SEARCH], "auto"))
    blocks = prompt.split("\n\n### ")
    assert blocks[0] == "### System\nBe brief."
    assert blocks[1].startswith("System\nYou can use these tools:")
    assert blocks[2] == "User\nWhich idea?"
    assert blocks[3] == 'Assistant\nLet me look.\nCALL search_prior_work {"query": "graph pruning"}'
    assert blocks[4] == "Tool\nsearch_prior_work returned:\n[g1] Pruning graphs"
    assert blocks[5] == "Assistant\nCALL search_prior_work (arguments not readable)"
    assert blocks[6] == "Tool\nsearch_prior_work failed: arguments are not JSON: '{\"query'"
    assert prompt.endswith("\n\n### Assistant\n")


def test_reply_without_call_is_an_answer() -> None:
    parsed = parse_reply("Idea A is new.\nVerdict: A", turn=2)
    assert (parsed.content, parsed.calls, parsed.ignored) == ("Idea A is new.\nVerdict: A", [], "")
    assert parse_reply("I will CALL it a day.").calls == []  # only at a line start


def test_calls_are_parsed_with_content_and_cut_text_reported() -> None:
    text = (
        'First I search.\nCALL search_prior_work {"query": "graph pruning"}\n'
        'CALL search_prior_work {"query": "attention heads", "k": 3} trailing\nVerdict: A'
    )
    parsed = parse_reply(text, turn=3)
    assert parsed.content == "First I search."
    assert [(c.id, c.function, c.arguments, c.parse_error) for c in parsed.calls] == [
        ("call_3_0", "search_prior_work", {"query": "graph pruning"}, None),
        ("call_3_1", "search_prior_work", {"query": "attention heads", "k": 3}, None),
    ]
    assert parsed.ignored == "trailing\nVerdict: A"


def test_bad_arguments_become_parse_errors_not_drops() -> None:
    [cut] = parse_reply('CALL search_prior_work {"query": "graph pru').calls
    assert cut.arguments == {} and cut.parse_error and "not a valid JSON object" in cut.parse_error
    assert '{"query": "graph pru' in cut.parse_error
    [listed] = parse_reply('CALL search_prior_work ["graph"]').calls
    assert listed.parse_error and "must be a JSON object" in listed.parse_error
    [unknown] = parse_reply(
        'CALL fetch_pdf {"id": "x"}'
    ).calls  # left to Inspect: "Tool fetch_pdf not found"
    assert unknown.function == "fetch_pdf" and unknown.parse_error is None


def test_calls_at_start_only_under_a_grammar() -> None:
    text = "CALL is how I begin this reasoning line\nVerdict: A"
    assert (
        parse_reply(text, calls_at_start=True).calls[0].parse_error
    )  # starts the reply: a (broken) call
    late = 'Reasoning first.\nCALL search_prior_work {"query": "x"}\nVerdict: A'
    assert parse_reply(late, calls_at_start=True).calls == []
    assert len(parse_reply(late).calls) == 1


def test_tool_grammar_offers_a_call_or_the_answer() -> None:
    text = tool_grammar([SEARCH], "auto", GRAMMARS["pairwise"])
    lines = text.splitlines()
    assert lines[0] == "root ::= call | answer"
    assert lines[1] == 'call ::= "CALL " ("search_prior_work " tool-args-0)'
    assert "answer ::= verdict" in lines and 'verdict ::= "Verdict: " ("A" | "B" | "TIE")' in lines
    assert '"\\"query\\""' in text and '"\\"k\\""' in text  # argument names from the schema
    assert f'"\\"" char{{0,{MAX_STRING_CHARS}}} "\\""' in text  # the query string is bounded
    forced = tool_grammar([SEARCH], "any", None)
    assert (
        forced.splitlines()[0] == "root ::= call"
        and "answer" not in forced
        and "verdict" not in forced
    )
    with pytest.raises(ValueError, match="give an answer grammar"):
        tool_grammar([SEARCH], "auto", None)
    with pytest.raises(ValueError, match="defines ws"):
        tool_grammar([SEARCH], "auto", 'root ::= ws\nws ::= " "\n')
    with pytest.raises(ValueError, match="refers to its root rule"):
        tool_grammar([SEARCH], "auto", 'root ::= "a" | "(" root ")"\n')


def test_tool_grammar_strings_hold_no_raw_control_characters() -> None:
    """JSON forbids raw U+0000-U+001F inside strings: the call grammar must not let a model write them
    (a call holding one would then fail to decode)."""
    text = tool_grammar([SEARCH], "any", None)
    char_rules = [line for line in text.splitlines() if line.startswith("char ::=")]
    assert char_rules == [
        'char ::= [^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})'
    ]
    assert_llama_accepts(text)  # a grammar llama.cpp accepts


def test_grammar_names_per_option_and_choice() -> None:
    assert resolve_tool_grammar(None, PAIR_PROMPT, [SEARCH], "auto") == (None, None)
    assert resolve_tool_grammar("none", PAIR_PROMPT, [SEARCH], "auto") == (None, None)
    name, text = resolve_tool_grammar("auto", PAIR_PROMPT, [SEARCH], "auto")
    assert name == f"{TOOL_PROTOCOL}:auto:pairwise" and text and "answer ::= verdict" in text
    assert resolve_tool_grammar("auto", "no format here", [SEARCH], "auto") == ("auto:none", None)
    name, text = resolve_tool_grammar("auto", "no format here", [SEARCH], "any")
    assert name == f"{TOOL_PROTOCOL}:call" and text and text.startswith("root ::= call\n")
    name, text = resolve_tool_grammar("pointwise_reasoned", "", [SEARCH], "auto")
    assert name == f"{TOOL_PROTOCOL}:pointwise_reasoned" and text and "reason" in text
    with pytest.raises(ValueError, match="unknown grammar"):
        resolve_tool_grammar("nonsense", "", [SEARCH], "auto")
