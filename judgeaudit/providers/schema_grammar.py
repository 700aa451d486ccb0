"""JSON schema -> GBNF grammar, so a local model's answer is a JSON document the schema accepts.

Covers what response schemas use: `type` (object, array, string, integer, number, boolean, null, or
a list of them), `enum`, `const`, `anyOf` / `oneOf`, object `properties` (written in the schema's
order; those not in `required` may be left out; no other property is ever written) and array
`items` with `minItems` / `maxItems`, strings with `minLength` / `maxLength` (in characters). A schema without `type`, `enum` or `const` allows any JSON value.
Whitespace between tokens is at most one space, so a base model cannot pad its answer endlessly.
Anything else (`$ref`, `pattern`, `not`, ...) is refused with a ValueError naming the keyword.
"""

from __future__ import annotations

import json
from typing import Any

_BASE_RULES = {
    "ws": '" "?',
    "string": '"\\"" char* "\\""',
    "char": '[^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "integer": '"-"? ("0" | [1-9] [0-9]{0,17})',
    "number": 'integer ("." [0-9]{1,17})? ([eE] [-+]? [0-9]{1,3})?',
    "boolean": '"true" | "false"',
    "null": '"null"',
    "value": "object | array | string | number | boolean | null",
    "object": '"{" ws ( string ws ":" ws value ( "," ws string ws ":" ws value )* )? ws "}"',
    "array": '"[" ws ( value ( "," ws value )* )? ws "]"',
}
_SUPPORTED = {
    "type",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "title",
    "description",
    "default",
    "examples",
    "name",
    "strict",
}


def _literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly."""
    return json.dumps(text, ensure_ascii=False)


class SchemaRules:
    """GBNF rules for the values of one or more JSON schemas (`visit` each, then `text`)."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self.used: set[str] = set()

    def name(self, hint: str, body: str) -> str:
        """Add a rule with a fresh name derived from `hint`; its name."""
        base = "".join(c if c.isalnum() else "-" for c in hint).strip("-").lower() or "r"
        name, n = base, 1
        while name in self.rules or name in _BASE_RULES:
            n += 1
            name = f"{base}-{n}"
        self.rules[name] = body
        return name

    def base(self, name: str) -> str:
        """Use one of the generic rules (and those it needs)."""
        needs = {
            "string": ["char"],
            "number": ["integer"],
            "object": ["ws", "string", "value"],
            "array": ["ws", "value"],
            "value": ["object", "array", "string", "number", "boolean", "null"],
        }
        if name not in self.used:
            self.used.add(name)
            for other in needs.get(name, []):
                self.base(other)
        return name

    def visit(self, schema: Any, hint: str) -> str:
        """A GBNF expression for values of `schema`."""
        if schema is True or schema == {}:
            return self.base("value")
        if not isinstance(schema, dict):
            raise ValueError(f"response schema at {hint!r}: expected an object, got {schema!r}")
        unknown = sorted(set(schema) - _SUPPORTED)
        if unknown:
            raise ValueError(
                f"response schema at {hint!r}: keyword {unknown[0]!r} is not supported by local grammars"
            )
        if "const" in schema:
            return _literal(json.dumps(schema["const"], ensure_ascii=False))
        if "enum" in schema:
            return (
                "("
                + " | ".join(_literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
                + ")"
            )
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return (
                    "("
                    + " | ".join(self.visit(s, f"{hint}-{i}") for i, s in enumerate(schema[key]))
                    + ")"
                )
        kind = schema.get("type")
        if isinstance(kind, list):
            return (
                "("
                + " | ".join(self.visit({**schema, "type": k}, f"{hint}-{k}") for k in kind)
                + ")"
            )
        if kind == "object" and schema.get("properties"):
            return self.object(schema, hint)
        if kind == "array" and ("items" in schema or "minItems" in schema or "maxItems" in schema):
            return self.array(schema, hint)
        if kind == "string" and ("minLength" in schema or "maxLength" in schema):
            self.base("char")
            low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
            return f'"\\"" char{{{low},{"" if high is None else int(high)}}} "\\""'
        if kind is None:
            return self.base("value")
        if kind not in ("object", "array", "string", "integer", "number", "boolean", "null"):
            raise ValueError(f"response schema at {hint!r}: unknown type {kind!r}")
        return self.base(kind)

    def object(self, schema: dict[str, Any], hint: str) -> str:
        """Properties in schema order, the optional ones skippable, commas only between written ones."""
        self.base("ws")
        props = list(schema["properties"].items())
        required = set(schema.get("required", []))
        pairs = [
            f'{_literal(json.dumps(key))} ws ":" ws {self.visit(sub, f"{hint}-{key}")}'
            for key, sub in props
        ]
        # rest(i, first): properties i.. , `first` when nothing has been written yet (no comma due)
        memo: dict[tuple[int, bool], str] = {}

        def rest(i: int, first: bool) -> str:
            if i == len(props):
                return ""
            if (i, first) in memo:
                return memo[(i, first)]
            sep = "" if first else '"," ws '
            written = f"{sep}{pairs[i]} {rest(i + 1, False)}".strip()
            if props[i][0] in required:
                body = written
            else:
                skipped = rest(i + 1, first) or '""'
                body = f"( {written} | {skipped} )"
            memo[(i, first)] = self.name(f"{hint}-{i}-{'a' if first else 'b'}", body)
            return memo[(i, first)]

        return self.name(hint, f'"{{" ws {rest(0, True)} ws "}}"')

    def array(self, schema: dict[str, Any], hint: str) -> str:
        """Items of one schema, between `minItems` and `maxItems` of them."""
        self.base("ws")
        item = self.visit(schema.get("items", True), f"{hint}-item")
        low, high = int(schema.get("minItems", 0)), schema.get("maxItems")
        more = f'( "," ws {item} )' + (
            f"{{{max(low - 1, 0)},{int(high) - 1}}}"
            if high is not None
            else f"{{{max(low - 1, 0)},}}"
        )
        if high is not None and int(high) == 0:
            return self.name(hint, '"[" ws "]"')
        listed = f"{item} {more}"
        return self.name(hint, f'"[" ws {listed if low > 0 else f"( {listed} )?"} ws "]"')

    def text(self) -> str:
        """Every rule the visited schemas need, one per line, each before the rules it uses."""
        lines = [f"{name} ::= {body}" for name, body in reversed(self.rules.items())]
        lines += [f"{name} ::= {_BASE_RULES[name]}" for name in _BASE_RULES if name in self.used]
        return "\n".join(lines) + "\n"


def schema_grammar(schema: dict[str, Any]) -> str:
    """GBNF (root rule `root`) for JSON documents that `schema` accepts (see module docstring)."""
    rules = SchemaRules()
    root = rules.visit(schema, "root")
    return ("" if root == "root" else f"root ::= {root}\n") + rules.text()
