"""LLM concept extraction for the concept judges (`-T judge=concept_set|concept_fuzzy -T concepts=llm`).

Run: `inspect eval judgeaudit/novelty_pairwise --model local/gemma-3-270m -M grammar=auto
-T judge=concept_set -T concepts=llm --max-connections 1` (any Inspect model; `--model none`
is refused with a clear error: use the default `concepts=keyphrase` offline).

- Extraction: the prompt `prompts/judge/concepts/extract.txt` is sent for the idea and for
  each of its nearest `neighbours` prior-work documents (the reference set of
  `judgeaudit.judges.score.concepts`), at temperature 0 with at most `EXTRACT_MAX_TOKENS` tokens.
  Calls go through Inspect's response cache (`cache=true`, the default), and within one run a
  text is extracted once (an in-process memo keyed on the text), so a reference document shared
  by many ideas costs one model call per run. `-M grammar=auto` (or `concepts`) constrains a
  local model to the list format.
- Parser (`parse_concepts`, strict): after removing `<think>` blocks and one surrounding code
  fence, the reply is either a JSON array of strings, or lines that are all list items of one
  style: bullets (`- `, `* `, `• `) or numbers `1.`/`1)` counting up from 1; one heading
  line ending in `:` may precede the list. Each item loses wrapping quotes, backticks or `**`
  and a trailing `.`, `,` or `;`, is normalised (`normalise_concept`) and must have 1 to
  `CONCEPT_MAX_WORDS` words, a letter, at most `CONCEPT_MAX_CHARS` characters. The list must
  have `CONCEPT_MIN` to `CONCEPT_MAX` items (as the prompt asks). Exact duplicates after
  normalisation are merged and counted (`duplicates`). Anything else is unparseable.
- Verdict (fixed, documented, nothing fitted, so every item is scored, none held out): novelty
  is computed as in `judgeaudit.judges.score.concepts`; pairwise `a`/`b` for the strictly higher
  novelty, `tie` when equal (tolerance `LLM_PAIR_TOLERANCE` = 0); pointwise `novel` when
  novelty >= `LLM_POINT_THRESHOLD` (0.5: at least half the concepts absent, or a mean
  membership of at most one half), else `not_novel`. Fitting on a held-out split would double
  the model calls; the fixed rule is recorded in the task settings and in every call record.
- A call (one item) is `invalid` with parse `failed` when any of its extractions (the idea's or
  a reference's) is unparseable, and parse `error` when the provider failed; never coerced.
  The concept lists (and the raw reply when unparseable) are kept in the call record.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task
from inspect_ai.model import CachePolicy, ChatMessageUser, GenerateConfig, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from judgeaudit.data.contract import Idea, PairItem
from judgeaudit.data.samples import sample_item
from judgeaudit.judges.build import judge_task
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.records import bounded, error_text, leave_records
from judgeaudit.judges.score.concepts import ConceptPrior, check_judge, normalise_concept
from judgeaudit.judges.score.metric import (
    DEFAULT_CORPUS,
    DEFAULT_EMBEDDER,
    DEFAULT_NEIGHBOURS,
    pair_verdict,
    point_verdict,
)
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, CallRecord
from judgeaudit.protocol import ERROR
from judgeaudit.providers.grammars import CONCEPT_MAX, CONCEPT_MIN
from judgeaudit.providers.guard import guarded
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval.corpus import load_corpus
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

EXTRACT_PROMPT = "judge/concepts/extract.txt"
EXTRACTOR_VERSION = "llm-extract/1"
EXTRACT_MAX_TOKENS = 200
CONCEPT_MAX_WORDS = 8
CONCEPT_MAX_CHARS = 120
LLM_PAIR_TOLERANCE = 0.0
LLM_POINT_THRESHOLD = 0.5
RAW_CHARS = 1500  # an unparseable reply is kept in the record up to this many characters
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"^```[a-zA-Z]*\n(.*)\n```$", re.S)
_BULLET = re.compile(r"^([-*•])\s+(.*)$")
_NUMBER = re.compile(r"^(\d{1,2})[.)]\s+(.*)$")


@dataclass(frozen=True)
class ParsedConcepts:
    """A parse result: the concept list, or None with the reason it was rejected."""

    concepts: list[str] | None
    problem: str | None = None
    duplicates: int = 0


def _clean_item(item: str) -> str | None:
    text = item.strip()
    for wrap in ("**", "`", '"', "'"):
        if len(text) > 2 * len(wrap) and text.startswith(wrap) and text.endswith(wrap):
            text = text[len(wrap) : -len(wrap)].strip()
    text = text.rstrip(".,;").strip()
    concept = normalise_concept(text)
    words = concept.split()
    if not words or len(words) > CONCEPT_MAX_WORDS or len(concept) > CONCEPT_MAX_CHARS:
        return None
    return concept if re.search(r"[^\W\d_]", concept) else None


def _list_items(lines: list[str]) -> tuple[list[str] | None, str | None]:
    if (
        len(lines) > 1
        and lines[0].endswith(":")
        and not (_BULLET.match(lines[0]) or _NUMBER.match(lines[0]))
    ):
        lines = lines[1:]  # one heading line such as "Concepts:"
    bullets = [_BULLET.match(ln) for ln in lines]
    if all(bullets):
        if len({m.group(1) for m in bullets if m}) > 1:
            return None, "mixed bullet markers"
        return [m.group(2) for m in bullets if m], None
    numbers = [_NUMBER.match(ln) for ln in lines]
    if all(numbers):
        if [int(m.group(1)) for m in numbers if m] != list(range(1, len(lines) + 1)):
            return None, "numbered items do not count up from 1"
        return [m.group(2) for m in numbers if m], None
    bad = next(ln for ln, b, n in zip(lines, bullets, numbers, strict=True) if not (b or n))
    return None, f"not a list item: {bad[:60]!r}"


def parse_concepts(text: str) -> ParsedConcepts:
    """The concept list of an extraction reply (JSON array or one-style list lines), strictly; see module doc."""
    body = _THINK.sub("", text or "").strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        return ParsedConcepts(None, "empty reply")
    if body.startswith("["):
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            return ParsedConcepts(None, f"invalid JSON list: {exc.msg}")
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            return ParsedConcepts(None, "JSON reply is not a list of strings")
        items: list[str] = data
    else:
        listed, problem = _list_items([ln.strip() for ln in body.splitlines() if ln.strip()])
        if listed is None:
            return ParsedConcepts(None, problem)
        items = listed
    if not CONCEPT_MIN <= len(items) <= CONCEPT_MAX:
        return ParsedConcepts(
            None, f"{len(items)} items; the prompt asks for {CONCEPT_MIN} to {CONCEPT_MAX}"
        )
    cleaned = [_clean_item(i) for i in items]
    if any(c is None for c in cleaned):
        bad = next(i for i, c in zip(items, cleaned, strict=True) if c is None)
        return ParsedConcepts(None, f"not a short concept phrase: {bad[:60]!r}")
    concepts = list(dict.fromkeys(c for c in cleaned if c is not None))
    return ParsedConcepts(concepts, None, len(items) - len(concepts))


def render_extract_prompt(text: str) -> str:
    """The extraction prompt for one text."""
    return read_prompt(EXTRACT_PROMPT).format(text=text.strip())


@dataclass(frozen=True)
class Extraction:
    """One text's extraction: concepts (None unless parsed), parse state, problem, raw reply."""

    concepts: list[str] | None
    parse: str  # strict | failed | error
    problem: str | None
    output: str
    duplicates: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (the raw reply only when the extraction failed)."""
        out: dict[str, Any] = {
            "concepts": self.concepts,
            "parse": self.parse,
            "duplicates": self.duplicates,
        }
        if self.parse != "strict":
            out.update(problem=self.problem, output=self.output[:RAW_CHARS])
        return out


class LLMExtractor:
    """Extracts concepts with the active model; each distinct text is sent once per run (plus Inspect's cache)."""

    def __init__(self, cache: bool = True, seed: int | None = DEFAULT_SEED) -> None:
        self.cache = cache
        self.seed = seed
        self._done: dict[str, Extraction] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.model_calls = 0

    async def extract(self, model: Model, text: str) -> Extraction:
        """The text's extraction (memoised per text; provider errors are not memoised)."""
        lock = self._locks.setdefault(text, asyncio.Lock())
        async with lock:
            if text not in self._done:
                result = await self._call(model, text)
                if result.parse == "error":
                    return result
                self._done[text] = result
            return self._done[text]

    async def _call(self, model: Model, text: str) -> Extraction:
        config = GenerateConfig(temperature=0.0, max_tokens=EXTRACT_MAX_TOKENS, seed=self.seed)
        policy: CachePolicy | bool = (
            CachePolicy(per_epoch=False, scopes={"judgeaudit_extract": EXTRACTOR_VERSION})
            if self.cache
            else False
        )
        self.model_calls += 1
        try:
            output = await model.generate(
                [ChatMessageUser(content=render_extract_prompt(text))], config=config, cache=policy
            )
        except LimitExceededError:
            raise
        except Exception as exc:  # recorded; the sample errors once its record is left
            return Extraction(None, "error", error_text(exc, model), "")
        if output.error:
            return Extraction(None, "error", bounded(output.error), output.completion)
        parsed = parse_concepts(output.completion)
        if parsed.concepts is None:
            return Extraction(None, "failed", parsed.problem, output.completion)
        return Extraction(parsed.concepts, "strict", None, output.completion, parsed.duplicates)


async def judge_side(
    prior: ConceptPrior, extractor: LLMExtractor, model: Model, judge: str, idea: Idea
) -> dict[str, Any]:
    """One idea's LLM concepts, its references' concepts, and its novelty (None when any extraction failed)."""
    near = prior.reference_documents(idea)
    own = await extractor.extract(model, idea.text)
    neighbours = []
    lists = []
    for entry in near.neighbours:
        ext = await extractor.extract(model, prior.document_text(entry["id"]))
        neighbours.append({**entry, "extraction": ext.to_dict()})
        lists.append(ext.concepts)
    states = [own.parse, *(n["extraction"]["parse"] for n in neighbours)]
    side: dict[str, Any] = {
        "extraction": own.to_dict(),
        "neighbours": neighbours,
        "value": None,
        "parse": "error" if "error" in states else "failed" if "failed" in states else "strict",
    }
    if side["parse"] == "strict":
        assert own.concepts is not None
        score = prior.concept_score(
            judge,
            own.concepts,
            [c or [] for c in lists],
            [{**n, "concepts": c} for n, c in zip(near.neighbours, lists, strict=True)],
            near.excluded_target,
        )
        side["score"] = score.to_dict()
        side["value"] = score.value
    return side


@solver
def concept_llm_judge(
    kind: str, judge: str, prior: ConceptPrior, cache: bool = True, seed: int | None = DEFAULT_SEED
) -> Solver:
    """Judge each sample by LLM concept novelty with the fixed verdict rule; records land where the scorer reads."""
    check_judge(judge)
    extractor = LLMExtractor(cache, seed)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = guarded(get_model())
        if str(model) == "none/none":
            raise TaskOptionError(
                f"judge {judge!r} with -T concepts=llm needs a real model (e.g. --model "
                "local/gemma-3-270m); with --model none use the offline -T concepts=keyphrase"
            )
        item = sample_item(state.metadata, state.sample_id)
        sides = (
            {"a": item.idea_a, "b": item.idea_b}
            if isinstance(item, PairItem)
            else {"idea": item.idea}
        )
        results = {
            side: await judge_side(prior, extractor, model, judge, idea)
            for side, idea in sides.items()
        }
        states = [r["parse"] for r in results.values()]
        parse = "error" if "error" in states else "failed" if "failed" in states else "strict"
        error = (
            "; ".join(
                e["problem"]
                for r in results.values()
                for e in (r["extraction"], *(n["extraction"] for n in r["neighbours"]))
                if e["parse"] == "error"
            )
            or None
        )
        if parse == "error":  # an extraction call failed: no answer
            verdict = ERROR
        elif parse != "strict":
            verdict = "invalid"
        elif kind == "pairwise":
            verdict = pair_verdict(results["a"]["value"], results["b"]["value"], LLM_PAIR_TOLERANCE)
        else:
            verdict = point_verdict(results["idea"]["value"], LLM_POINT_THRESHOLD)
        raw = {
            "judge": judge,
            "concepts": "llm",
            "extractor": EXTRACTOR_VERSION,
            "embedder": prior.embedder,
            "rule": fixed_rule(kind),
            "sides": results,
        }
        order = "ab" if kind == "pairwise" else "single"
        record = CallRecord(
            order,  # type: ignore[arg-type]
            verdict,
            verdict,
            json.dumps(raw, sort_keys=True),
            parse,  # type: ignore[arg-type]
            0,
            error,
        )
        leave_records(
            state, [record.to_dict()], "concepts/extract", [order], 1, answer=record.verdict
        )
        return state

    return solve


def fixed_rule(kind: str) -> dict[str, Any]:
    """The documented verdict rule of the LLM concept mode (nothing fitted)."""
    if kind == "pairwise":
        return {"parameter": "tolerance", "tolerance": LLM_PAIR_TOLERANCE, "fitted": False}
    return {"parameter": "threshold", "threshold": LLM_POINT_THRESHOLD, "fitted": False}


def concept_llm_task(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    corpus: str | None = None,
    embedder: str | None = None,
    neighbours: int = DEFAULT_NEIGHBOURS,
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int | None = None,
    cache: bool = True,
    split_rule: str = "not_novel",
) -> Task:
    """An Inspect Task judging every item of `dataset` by LLM-extracted concept novelty (fixed rule)."""
    check_judge(judge)
    prior = ConceptPrior(
        load_corpus(corpus or DEFAULT_CORPUS),
        embedder=embedder or DEFAULT_EMBEDDER,
        neighbours=neighbours,
    )
    settings = {
        "concepts": "llm",
        "extractor": EXTRACTOR_VERSION,
        "extract_prompt": EXTRACT_PROMPT,
        "extract_max_tokens": EXTRACT_MAX_TOKENS,
        "rule": fixed_rule(kind),
        "prior_work": {**prior.describe(), "concepts": EXTRACTOR_VERSION},
    }
    return judge_task(
        kind,
        judge,
        dataset,
        concept_llm_judge(kind, judge, prior, cache=cache, seed=seed),
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=DEFAULT_RESAMPLES if resamples is None else resamples,
        split_rule=split_rule,
        metadata={"prompt": "concepts/extract", "settings": settings},
    )


def concept_llm_task_from_options(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int | None = None,
    **options: Any,
) -> Task:
    """Catalog factory of the concept judges with `-T concepts=llm` (cache, split_rule and retrieval_corpus apply)."""
    return concept_llm_task(
        kind,
        judge,
        dataset,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        cache=options.get("cache", True),
        corpus=options.get("retrieval_corpus"),
        split_rule=options.get("split_rule", DEFAULT_SPLIT_RULE),
    )
