"""GBNF grammars that constrain a local model's answer to the judge verdict formats.

Names (`-M grammar=<name>`): `none`; `pairwise` / `pointwise` (only the final verdict line, as
`judgeaudit/judges/parse.py` reads it strictly); `pairwise_reasoned` / `pointwise_reasoned`
(at most `REASON_LINES` reasoning lines of at most `REASON_CHARS` characters each, none starting
with `V` or `#`, then the verdict line; bounded so any `max_tokens >= REASONED_MIN_TOKENS`
always reaches the verdict, since every token is at least one character); `auto`
(picks `pairwise` or `pointwise` from the answer instructions in the prompt, else none).
Anything containing `::=` is taken as GBNF text, a path ending in `.gbnf` as a grammar file.
Without `-M grammar`, a GenerateConfig `response_schema` is turned into a JSON grammar.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REASON_CHARS = 160
REASON_LINES = 3
REASONED_MIN_TOKENS = REASON_LINES * (REASON_CHARS + 1) + 16

_PAIR_VERDICT = 'verdict ::= "Verdict: " ("A" | "B" | "TIE")'
_POINT_VERDICT = 'verdict ::= "Verdict: " ("NOVEL" | "NOT NOVEL")'
_REASON = f'reason ::= ([^\\n#V] [^\\n]{{0,{REASON_CHARS - 1}}} "\\n"){{0,{REASON_LINES}}}'

GRAMMARS: dict[str, str] = {
    "pairwise": f"root ::= verdict\n{_PAIR_VERDICT}\n",
    "pointwise": f"root ::= verdict\n{_POINT_VERDICT}\n",
    "pairwise_reasoned": f"root ::= reason verdict\n{_REASON}\n{_PAIR_VERDICT}\n",
    "pointwise_reasoned": f"root ::= reason verdict\n{_REASON}\n{_POINT_VERDICT}\n",
}
GRAMMAR_NAMES: tuple[str, ...] = ("none", "auto", *GRAMMARS)


def detect_verdict_kind(prompt: str) -> str | None:
    """`pairwise` / `pointwise` when the prompt asks for that verdict line, else None."""
    if '"Verdict: A"' in prompt and '"Verdict: B"' in prompt:
        return "pairwise"
    if '"Verdict: NOVEL"' in prompt and '"Verdict: NOT NOVEL"' in prompt:
        return "pointwise"
    return None


def json_schema_grammar(schema: dict[str, Any]) -> str:
    """GBNF for JSON documents matching `schema` (llama.cpp's own converter)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return str(json_schema_to_gbnf(json.dumps(schema)))


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
            raise ValueError(f"grammar file {spec!r} does not exist")
        return f"file:{path.name}", path.read_text(encoding="utf-8")
    raise ValueError(
        f"unknown grammar {spec!r}: use one of {', '.join(GRAMMAR_NAMES)}, GBNF text, or a .gbnf file"
    )
