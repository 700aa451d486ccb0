"""Prompt rendering and verdict grammars of the `local/` provider (no model needed)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from helpers.items import make_pairs, make_points
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ContentImage

from judgeaudit.data.samples import item_to_sample
from judgeaudit.judges.parse import parse_verdict
from judgeaudit.judges.prompts import prompt_names, render_call
from judgeaudit.providers.grammars import (
    GRAMMARS,
    detect_verdict_kind,
    grammar_fingerprint,
    resolve_grammar,
)
from judgeaudit.providers.transcript import STOP_SEQUENCES, render_transcript


def test_transcript_format() -> None:
    """Roles become headers, the prompt ends with an open assistant turn, stops at the next header."""
    prompt = render_transcript(
        [
            ChatMessageSystem(content="Be brief."),
            ChatMessageUser(content="Compare A and B.\n"),
            ChatMessageAssistant(content="Verdict: A"),
            ChatMessageUser(content="Again?"),
        ]
    )
    assert prompt == (
        "### System\nBe brief.\n\n### User\nCompare A and B.\n\n### Assistant\nVerdict: A\n\n"
        "### User\nAgain?\n\n### Assistant\n"
    )
    # a model that starts writing the next turn is stopped at its header
    assert all(
        f"\n### {role}".startswith(STOP_SEQUENCES[0]) for role in ("User", "System", "Assistant")
    )


def test_transcript_rejects_media_and_empty() -> None:
    """Images cannot be rendered for a text base model; an empty conversation is an error."""
    with pytest.raises(ValueError, match="message 0 .*image"):
        render_transcript(
            [ChatMessageUser(content=[ContentImage(image="data:image/png;base64,AAAA")])]
        )
    with pytest.raises(ValueError, match="empty"):
        render_transcript([])


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_auto_grammar_detects_every_judge_prompt(kind: str) -> None:
    """Every shipped prompt variant of a kind selects that kind's verdict grammar under `auto`."""
    items = make_pairs(1) if kind == "pairwise" else make_points(1)
    meta = item_to_sample(items[0]).metadata or {}
    order = "ab" if kind == "pairwise" else "single"
    for name in prompt_names(kind):
        text = render_call(kind, name, meta, order)  # type: ignore[arg-type]
        assert detect_verdict_kind(text) == kind, name
        recorded, gbnf = resolve_grammar("auto", render_transcript([ChatMessageUser(content=text)]))
        assert recorded == f"auto:{kind}" and gbnf == GRAMMARS[kind]


def test_auto_grammar_leaves_other_prompts_free() -> None:
    """A prompt without verdict instructions gets no grammar, recorded as such."""
    assert resolve_grammar("auto", "### User\nhello\n\n### Assistant\n") == ("auto:none", None)
    assert resolve_grammar(None, "x") == (None, None)
    assert resolve_grammar("none", "x") == (None, None)


def test_every_string_the_verdict_grammars_allow_parses_strictly() -> None:
    """The verdict-only grammars' whole languages parse strictly with the judges' parser."""
    languages = {
        "pairwise": ["Verdict: A", "Verdict: B", "Verdict: TIE"],
        "pointwise": ["Verdict: NOVEL", "Verdict: NOT NOVEL"],
    }
    for kind, strings in languages.items():
        for option in ("A", "B", "TIE", "NOVEL", "NOT NOVEL"):
            assert (f'"{option}"' in GRAMMARS[kind]) == (f"Verdict: {option}" in strings)
        for text in strings:
            assert parse_verdict(text, kind).path == "strict", text
        # a reasoned answer ends with the same verdict line
        for reason, text in itertools.product(["", "Idea A adds a new mechanism.\n"], strings):
            assert parse_verdict(reason + text, kind).path == "strict"


def test_custom_and_unknown_grammars(tmp_path: Path) -> None:
    """GBNF text and .gbnf files are accepted; an unknown name is a clear error."""
    assert resolve_grammar('root ::= "x"', "p") == ("custom", 'root ::= "x"')
    f = tmp_path / "g.gbnf"
    f.write_text('root ::= "y"\n', encoding="utf-8")
    assert resolve_grammar(str(f), "p") == ("file:g.gbnf", 'root ::= "y"\n')
    with pytest.raises(ValueError, match="unknown grammar 'verdicts'"):
        resolve_grammar("verdicts", "p")
    with pytest.raises(ValueError, match="does not exist"):
        resolve_grammar(str(tmp_path / "missing.gbnf"), "p")


def test_grammar_fingerprint_changes_with_the_grammar_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache-key fingerprint follows the grammar texts, so an edited grammar never reuses cached answers."""
    from judgeaudit.providers import grammars

    f = tmp_path / "g.gbnf"
    f.write_text('root ::= "y"\n', encoding="utf-8")
    before = {
        spec: grammar_fingerprint(spec)
        for spec in ("none", "auto", "rubric", str(f), 'root ::= "x"')
    }
    assert (
        len(set(before.values())) == 4 and before["auto"] == before["rubric"]
    )  # named grammars share one set
    f.write_text('root ::= "z"\n', encoding="utf-8")
    assert grammar_fingerprint(str(f)) != before[str(f)]
    monkeypatch.setitem(grammars.GRAMMARS, "rubric", 'root ::= "Score: " [0-3]\n')
    assert (
        grammar_fingerprint("auto") != before["auto"]
        and grammar_fingerprint("none") == before["none"]
    )
