"""GBNF grammars that constrain a local model's answer to the judge verdict formats.

Names (`-M grammar=<name>`): `none`; `pairwise` / `pointwise` / `pairwise_12` (only the final
verdict line of the answer protocol, `judgeaudit/protocol.py`, as `judgeaudit.judges.parse`
reads it strictly; `pairwise_12` for prompts labelling the ideas 1 and 2); `pairwise_12_reasoned`
and `pairwise_reasoned` / `pointwise_reasoned`
(at most `REASON_LINES` reasoning lines of at most `REASON_CHARS` characters each, none starting
with `V` or `#`, then the verdict line; bounded so any `max_tokens >= REASONED_MIN_TOKENS`
always reaches the verdict, since every token is at least one character); `rubric` (only the
rubric judge's final `Score: <0-4>` line) and `rubric_reasoned` (bounded reasoning lines as
above, none starting with `S` or `#`, then that line); `two_stage` (only the two-stage judge's
six `<dimension>: <0-4>` lines and the `Score: <0-4>` line); `concepts` (the concept
extractor's list: `CONCEPT_MIN` to `CONCEPT_MAX` lines `- <phrase>`, a phrase being 1 to
`CONCEPT_WORDS` words, the first a word of letters, digits and hyphens starting with a letter); `auto` (picks `pairwise`, `pairwise_12`, `pointwise`, `two_stage`,
`rubric` or `concepts` from the answer instructions in the prompt, else none).
Anything containing `::=` is taken as GBNF text, a path ending in `.gbnf` as a grammar file.
Without `-M grammar`, a GenerateConfig `response_schema` is turned into a JSON grammar (`schema_grammar.py`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from judgeaudit.errors import ModelSetupError
from judgeaudit.protocol import final_lines, grammar_rule

REASON_CHARS = 160
REASON_LINES = 3
REASONED_MIN_TOKENS = REASON_LINES * (REASON_CHARS + 1) + 16

# The verdict lines come from the answer protocol (judgeaudit/protocol.py), the one definition.
_PAIR_VERDICT = grammar_rule("pairwise", "AB")
_PAIR12_VERDICT = grammar_rule("pairwise", "12")
_POINT_VERDICT = grammar_rule("pointwise")
_REASON = f'reason ::= ([^\\n#V] [^\\n]{{0,{REASON_CHARS - 1}}} "\\n"){{0,{REASON_LINES}}}'
_SCORE_REASON = f'reason ::= ([^\\n#S] [^\\n]{{0,{REASON_CHARS - 1}}} "\\n"){{0,{REASON_LINES}}}'
_SCORE = 'score ::= "Score: " [0-4]'
# The two-stage judge's dimensions, in the order its prompt lists them (judges/rubric.py DIMENSIONS).
TWO_STAGE_DIMENSIONS: tuple[str, ...] = (
    "problem",
    "data",
    "method",
    "objective",
    "evaluation",
    "assumptions",
)
_DIMENSION_LINES = " ".join(f'"{d}: " [0-4] "\\n"' for d in TWO_STAGE_DIMENSIONS)
CONCEPT_MIN = 3
CONCEPT_MAX = 10
CONCEPT_WORDS = 6
_CONCEPTS = (
    f"root ::= item{{{CONCEPT_MIN},{CONCEPT_MAX}}}\n"
    'item ::= "- " phrase "\\n"\n'
    f'phrase ::= lead (" " word){{0,{CONCEPT_WORDS - 1}}}\n'
    "lead ::= [A-Za-z] [A-Za-z0-9-]{0,23}\n"
    "word ::= [A-Za-z0-9(] [^ \\n]{0,23}\n"
)
# Answer instructions that identify a prompt's format for `auto` (checked in this order).
TWO_STAGE_MARKER = "assumptions: <0-4>"
RUBRIC_MARKER = "Score: <0-4>"
CONCEPTS_MARKER = 'one per line, each line starting with "- "'

GRAMMARS: dict[str, str] = {
    "pairwise": f"root ::= verdict\n{_PAIR_VERDICT}\n",
    "pointwise": f"root ::= verdict\n{_POINT_VERDICT}\n",
    "pairwise_reasoned": f"root ::= reason verdict\n{_REASON}\n{_PAIR_VERDICT}\n",
    "pointwise_reasoned": f"root ::= reason verdict\n{_REASON}\n{_POINT_VERDICT}\n",
    "pairwise_12": f"root ::= verdict\n{_PAIR12_VERDICT}\n",
    "pairwise_12_reasoned": f"root ::= reason verdict\n{_REASON}\n{_PAIR12_VERDICT}\n",
    "rubric": f"root ::= score\n{_SCORE}\n",
    "rubric_reasoned": f"root ::= reason score\n{_SCORE_REASON}\n{_SCORE}\n",
    "two_stage": f"root ::= {_DIMENSION_LINES} score\n{_SCORE}\n",
    "concepts": _CONCEPTS,
}
GRAMMAR_NAMES: tuple[str, ...] = ("none", "auto", *GRAMMARS)
# (grammar name, kind, labels) of the verdict formats `auto` recognises by their quoted final lines.
_VERDICT_FORMATS: tuple[tuple[str, str, str], ...] = (
    ("pairwise", "pairwise", "AB"),
    ("pairwise_12", "pairwise", "12"),
    ("pointwise", "pointwise", "AB"),
)


def detect_verdict_kind(prompt: str) -> str | None:
    """The grammar name for the answer format the prompt asks for (pairwise, pointwise, two_stage,
    rubric, concepts), else None."""
    for name, kind, labels in _VERDICT_FORMATS:
        if all(f'"{line}"' in prompt for line in final_lines(kind, labels)):
            return name
    if TWO_STAGE_MARKER in prompt and RUBRIC_MARKER in prompt:
        return "two_stage"
    if RUBRIC_MARKER in prompt:
        return "rubric"
    if CONCEPTS_MARKER in prompt:
        return "concepts"
    return None


def resolve_grammar(spec: str | None, prompt: str) -> tuple[str | None, str | None]:
    """(grammar name as recorded, GBNF text) for a `-M grammar=` value and the rendered prompt."""
    if spec is None or spec == "none":
        return None, None
    if spec == "auto":
        kind = detect_verdict_kind(prompt)
        return (f"auto:{kind}", GRAMMARS[kind]) if kind else ("auto:none", None)
    if spec in GRAMMARS:
        return spec, GRAMMARS[spec]
    if "::=" in spec:
        return "custom", spec
    if spec.endswith(".gbnf"):
        path = Path(spec).expanduser()
        if not path.is_file():
            raise ModelSetupError(f"-M grammar={spec}: grammar file {spec!r} does not exist")
        return f"file:{path.name}", path.read_text(encoding="utf-8")
    raise ModelSetupError(
        f"-M grammar={spec}: unknown grammar {spec!r}: use one of {', '.join(GRAMMAR_NAMES)}, "
        "GBNF text, or a .gbnf file"
    )


def grammar_fingerprint(spec: str | None) -> str:
    """Short hash of every grammar text `spec` can select (the named set, or the file/GBNF given).

    Goes into the local provider's cache key, so editing a grammar invalidates cached answers.
    """
    if spec is None or spec == "none":
        texts = ""
    elif spec in GRAMMARS or spec == "auto":
        texts = json.dumps(GRAMMARS, sort_keys=True)
    else:
        texts = resolve_grammar(spec, "")[1] or ""
    return hashlib.sha256(texts.encode("utf-8")).hexdigest()[:12]
