"""The answer protocol is one definition: prompts ask for its final lines, grammars allow exactly
them, and the parser reads them strictly (judgeaudit/protocol.py)."""

from __future__ import annotations

import pytest

from judgeaudit import protocol
from judgeaudit.judges.parse import parse_verdict
from judgeaudit.judges.prompts import load_template, prompt_names
from judgeaudit.providers.grammars import GRAMMARS, detect_verdict_kind
from judgeaudit.resources import read_prompt


def test_options_and_final_lines_per_kind_and_labels() -> None:
    assert protocol.final_lines("pairwise", "AB") == ("Verdict: A", "Verdict: B", "Verdict: TIE")
    assert protocol.final_lines("pairwise", "12") == ("Verdict: 1", "Verdict: 2", "Verdict: TIE")
    assert protocol.final_lines("pointwise") == ("Verdict: NOVEL", "Verdict: NOT NOVEL")
    assert protocol.readings("pairwise") == ("a", "b", "tie", "invalid")
    assert protocol.readings("pointwise") == ("novel", "not_novel", "invalid")
    assert protocol.idea_names("12") == ("Idea 1", "Idea 2")
    with pytest.raises(ValueError, match="not a pointwise option"):
        protocol.final_line("pointwise", "tie")


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_every_prompt_variant_asks_for_the_protocol_instruction(kind: str) -> None:
    """The instruction is rendered from the protocol, never written out in a prompt file."""
    instruction = protocol.answer_instruction(kind)
    texts = {"idea_a": "x", "idea_b": "y"} if kind == "pairwise" else {"idea": "x"}
    for name in prompt_names(kind):
        assert "Verdict:" not in read_prompt(f"judge/{kind}/{name}.txt"), name
        rendered = load_template(kind, name).render(**texts, area="z", cue="")
        assert rendered.endswith(instruction), name


@pytest.mark.parametrize(
    ("grammar", "kind", "labels"),
    [
        ("pairwise", "pairwise", "AB"),
        ("pairwise_12", "pairwise", "12"),
        ("pointwise", "pointwise", "AB"),
    ],
)
def test_grammars_allow_exactly_the_final_lines_and_they_parse_strictly(
    grammar: str, kind: str, labels: str
) -> None:
    assert GRAMMARS[grammar] == f"root ::= verdict\n{protocol.grammar_rule(kind, labels)}\n"
    assert protocol.grammar_rule(kind, labels) in GRAMMARS[f"{grammar}_reasoned"]
    for option, line in zip(
        protocol.options(kind, labels), protocol.final_lines(kind, labels), strict=True
    ):
        assert f'"{option.token}"' in GRAMMARS[grammar]
        parsed = parse_verdict(f"Some reasoning.\n{line}", kind, labels=labels)
        assert (parsed.verdict, parsed.path) == (option.reading, "strict")
    assert detect_verdict_kind(f"... {protocol.answer_instruction(kind, labels)}") == grammar
