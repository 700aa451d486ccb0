"""Plan format: rewrite every idea of a set into two fields (purpose, mechanism) for the idea-format ablation.

Writes `pairwise_plan.jsonl` / `pointwise_plan.jsonl` next to the abstract files with the same item
ids, positions and gold; each idea keeps its id, label, source and generator and gets
`format: plan`. An item whose idea could not be rewritten is left out and counted. The set's
manifest and card are updated in place (their other content is kept).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from judgeaudit.data.card import CARD_NAME, _files_table, card_header, read_card_header
from judgeaudit.data.contract import Idea, Item, PairItem, item_ideas
from judgeaudit.data.jsonl import read_items, write_items
from judgeaudit.data.manifest import read_manifest, write_manifest
from judgeaudit.data.validate import Kind
from judgeaudit.files import atomic_write_text
from judgeaudit.mine.generate.human_generated import bad_reason
from judgeaudit.mine.llm import (
    MODEL_ERROR,
    CachedModel,
    Outcome,
    Request,
    Validator,
    failure_counts,
)
from judgeaudit.mine.staging import staged_dir
from judgeaudit.resources import read_prompt

PLAN_PROMPT = "mining/plan.txt"
DEFAULT_CACHE = ".cache/judgeaudit/mining-llm/plan"
MIN_PURPOSE_WORDS = 5
MIN_MECHANISM_WORDS = 8
KINDS: tuple[Kind, ...] = ("pairwise", "pointwise")
_RESERVED = ("manifest_version", "name", "judgeaudit_version", "build_command", "source", "files")

_FIELDS = re.compile(
    r"^\s*(?:purpose\s*:)?\s*(?P<purpose>.+?)\s*\bmechanism\s*:\s*(?P<mechanism>.+)$", re.I | re.S
)


PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "purpose": {"type": "string", "minLength": 30, "maxLength": 240},
        "mechanism": {"type": "string", "minLength": 40, "maxLength": 360},
    },
    "required": ["purpose", "mechanism"],
    "additionalProperties": False,
}
"""JSON shape of a plan for `--structured` (provider structured output / local grammar); the length
bounds keep a small model's fields short enough to finish within the token cap."""


def _json_plan(raw: str) -> tuple[str, str] | None:
    start, end = raw.find("{"), raw.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(raw[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not all(
        isinstance(obj.get(k), str) for k in ("purpose", "mechanism")
    ):
        return None
    purpose, mechanism = (" ".join(str(obj[k]).split()) for k in ("purpose", "mechanism"))
    return (purpose, mechanism) if purpose and mechanism else None


def parse_plan(raw: str) -> tuple[str, str] | None:
    """(purpose, mechanism) from a JSON answer, or from text that continues 'Purpose:' and has 'Mechanism:'; else None."""
    as_json = _json_plan(raw)
    if as_json is not None:
        return as_json
    m = _FIELDS.match(raw.replace("**", "").strip())
    if not m:
        return None
    purpose = " ".join(m.group("purpose").split())
    mechanism = re.split(r"\n\s*\n", m.group("mechanism").strip(), maxsplit=1)[0]
    mechanism = " ".join(mechanism.split())
    return (purpose, mechanism) if purpose and mechanism else None


def plan_text(purpose: str, mechanism: str) -> str:
    """The text of a plan-format idea."""
    return f"Purpose: {purpose}\nMechanism: {mechanism}"


def _plan_validator(source: str, instructions: str) -> Validator:
    def check(raw: str) -> tuple[str | None, str]:
        fields = parse_plan(raw)
        if fields is None:
            first = bad_reason(raw, source, 1, instructions)
            return first or "no purpose and mechanism fields", raw
        purpose, mechanism = fields
        reason = bad_reason(purpose, source, MIN_PURPOSE_WORDS, instructions) or bad_reason(
            mechanism, source, MIN_MECHANISM_WORDS, instructions
        )
        return reason, plan_text(purpose, mechanism)

    return check


def failure_summary(failed: dict[str, str], requested: int) -> str:
    """One line: how many ideas were not rewritten and why, e.g. '2 of 2 ideas not rewritten: 1 model error (...), ...'."""
    if not failed:
        return f"0 of {requested} ideas not rewritten"
    errors = Counter(r for r in failed.values() if r.startswith(MODEL_ERROR))
    checks = Counter(r.split(", ")[-1] for r in failed.values() if not r.startswith(MODEL_ERROR))
    parts = [f"{n} {reason}" for reason, n in sorted(errors.items())]
    parts += [
        f"{n} output failed the plan check ({reason})" for reason, n in sorted(checks.items())
    ]
    return f"{len(failed)} of {requested} ideas not rewritten: " + ", ".join(parts)


def _as_plan(item: Item, plans: dict[str, str]) -> Item | None:
    def conv(idea: Idea) -> Idea | None:
        text = plans.get(idea.idea_id)
        return None if text is None else replace(idea, text=text, format="plan")

    if isinstance(item, PairItem):
        a, b = conv(item.idea_a), conv(item.idea_b)
        return None if a is None or b is None else replace(item, idea_a=a, idea_b=b)
    idea = conv(item.idea)
    return None if idea is None else replace(item, idea=idea)


@dataclass
class PlanResult:
    """What a plan rewrite wrote and left out."""

    written: dict[str, int]
    skipped_items: dict[str, int]
    failed_ideas: dict[str, str]
    counts: dict[str, Any]


def plan_command(
    model: str,
    dataset: str,
    seed: int,
    max_tokens: int,
    temperature: float,
    attempts: int,
    structured: bool = False,
) -> str:
    """The canonical command line of a plan rewrite (no cache paths, no secrets)."""
    parts = [
        "judgeaudit",
        "mine",
        "plan",
        "--model",
        model,
        "--dataset",
        dataset,
        "--seed",
        str(seed),
        "--max-tokens",
        str(max_tokens),
        "--temperature",
        str(temperature),
        "--attempts",
        str(attempts),
    ]
    if structured:
        parts.append("--structured")
    return " ".join(shlex.quote(p) for p in parts)


def rewrite_set(
    set_dir: Path, model: CachedModel, *, command: str, progress: bool = True
) -> PlanResult:
    """Rewrite the set's abstract files into `_plan` files and update its manifest and card."""
    set_dir = Path(set_dir)
    sources = {
        kind: set_dir / f"{kind}.jsonl" for kind in KINDS if (set_dir / f"{kind}.jsonl").is_file()
    }
    if not sources:
        raise FileNotFoundError(f"{set_dir}: no pairwise.jsonl or pointwise.jsonl to rewrite")
    items = {kind: read_items(path, kind) for kind, path in sources.items()}
    ideas: dict[str, Idea] = {}
    for kind, its in items.items():
        for item in its:
            for idea in item_ideas(item):
                if idea.format != "abstract":
                    raise ValueError(
                        f"{sources[kind]}: idea {idea.idea_id!r} is already format {idea.format!r}; "
                        "plans are made from abstract files"
                    )
                ideas.setdefault(idea.idea_id, idea)
    template = read_prompt(PLAN_PROMPT)
    instructions = template.replace(
        "{idea}", " "
    )  # echoing these is a copy; quoting the idea is not
    requests = [
        Request(
            i,
            template.rstrip().replace("{idea}", idea.text),
            _plan_validator(idea.text, instructions),
        )
        for i, idea in sorted(ideas.items())
    ]
    outcomes: dict[str, Outcome] = model.run(
        requests, progress=progress, desc=f"plans by {model.model}"
    )
    plans = {key: o.text for key, o in outcomes.items() if o.text is not None}
    failed = {key: ", ".join(o.failures) for key, o in sorted(outcomes.items()) if o.text is None}
    written: dict[str, int] = {}
    skipped: dict[str, int] = {}
    converted_by_kind: dict[str, list[Item]] = {}
    for kind, its in items.items():
        kept = [c for c in (_as_plan(item, plans) for item in its) if c is not None]
        skipped[f"{kind}_plan.jsonl"] = len(its) - len(kept)
        if not kept:
            raise ValueError(
                f"{set_dir}: no {kind} item could be rewritten, nothing written; "
                f"{failure_summary(failed, len(outcomes))}"
            )
        converted_by_kind[kind] = kept
    counts = failure_counts(outcomes)
    info = {
        "model": model.model,
        "prompt": f"prompts/{PLAN_PROMPT}",
        "prompt_sha256": hashlib.sha256(template.encode()).hexdigest(),
        "seed": model.seed,
        "max_tokens": model.max_tokens,
        "temperature": model.temperature,
        "attempts": model.attempts,
        "structured": model.response_schema is not None,
        "command": command,
        "ideas": counts,
        "items_written": written,
        "items_left_out": skipped,
        "failed_ideas": failed,
    }
    with staged_dir(set_dir, copy_existing=True) as staging:  # the set is replaced as a whole
        for plan_kind, kept in converted_by_kind.items():
            written[f"{plan_kind}_plan.jsonl"] = write_items(
                staging / f"{plan_kind}_plan.jsonl", kept
            )
        _update_manifest(staging, info, set_dir.name)
        _update_card(staging, info)
    return PlanResult(written, skipped, failed, counts)


def _update_manifest(set_dir: Path, info: dict[str, Any], name: str) -> None:
    old = read_manifest(set_dir)
    extra = {k: v for k, v in old.items() if k not in _RESERVED}
    extra["plan"] = info
    write_manifest(
        set_dir, source=old["source"], command=old["build_command"], extra=extra, name=name
    )


def _plan_section(info: dict[str, Any]) -> str:
    c = info["ideas"]
    return (
        f"`*_plan.jsonl` hold the same items (ids, positions, gold) with every idea rewritten by "
        f"`{info['model']}` into two fields, purpose and mechanism (prompt `{info['prompt']}`), for the "
        f"idea-format ablation. Ideas keep their id, label, source and generator. {c['succeeded']} of "
        f"{c['requested']} ideas rewritten, {c['failed']} failed after {info['attempts']} attempts; items "
        f"left out per file: {info['items_left_out']} (ids in the manifest, `plan.failed_ideas`).\n\n"
        f"```\n{info['command']}\n```\n"
    )


def _update_card(set_dir: Path, info: dict[str, Any]) -> None:
    path = set_dir / CARD_NAME
    if not path.is_file():
        return
    old = read_card_header(path)
    header = card_header(
        set_dir,
        pretty_name=str(old.get("pretty_name", set_dir.name)),
        license=str(old.get("license", "cc-by-4.0")),
        tags=tuple(old.get("tags") or ()),
    )
    text = path.read_text(encoding="utf-8")
    body = text[text.find("\n---\n", 4) + 5 :]
    body = _set_section(body, "Files", _files_table(set_dir))
    body = _set_section(body, "Plan format", _plan_section(info)).rstrip("\n") + "\n"
    atomic_write_text(
        path, "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n" + body
    )


def _set_section(body: str, title: str, content: str) -> str:
    """Replace the body of `## title` (up to the next `## `), or append the section."""
    pattern = re.compile(rf"(^## {re.escape(title)}\n\n)(.*?)(?=^## |\Z)", re.M | re.S)
    block = content.strip() + "\n\n"
    if pattern.search(body):
        return pattern.sub(lambda m: m.group(1) + block, body, count=1)
    return body.rstrip("\n") + f"\n\n## {title}\n\n" + block.rstrip("\n") + "\n"
