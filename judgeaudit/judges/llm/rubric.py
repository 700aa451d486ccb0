"""Graded rubric judge: an LLM scores each idea's novelty 0-4 relative to a reference set.

Run: `inspect eval judgeaudit/novelty_pairwise --model <model> -T judge=rubric [-T k=3]`
(likewise `novelty_pointwise`), or `novelty_rubric_pairwise` / `novelty_rubric_pointwise`
(`judgeaudit.judges.tasks`) for the rubric's own knobs (`references`, `n_references`, `threshold`, `corpus`).

- Prompt: `prompts/judge/rubric/reference.txt` (scale 0 routine repetition, 1 incremental
  variation, 2 new combination, 3 substantial departure, 4 transformational reframing); the
  reply must end with the line `Score: <digit 0-4>` (`parse_score`), anything else is `invalid`.
- Reference set: `corpus` = the `n_references` BM25 nearest documents of the offline corpus
  (the judged idea, and for a pair both of its ideas, excluded), or `area` = up to
  `n_references` other ideas of the same area in the dataset (seeded; both pair sides excluded).
- Pointwise verdict: `novel` when score >= `threshold` (default 2: "new combination" or more),
  else `not_novel`. Pairwise: each idea scored on its own (order does not arise); a call's
  verdict is the higher score's side, `tie` when equal, `invalid` when either score is.
  k calls per idea aggregate as the prompted judge's calls do.
- `two_stage` (retrieve-then-judge, `-T judge=two_stage`): the reference set is the nearest prior
  work by embedding (`references=dense`: MiniLM, TF-IDF without the `embed` extra), the prompt
  `prompts/judge/rubric/dimensions.txt` asks for a 0-4 departure on each of `DIMENSIONS` and an
  overall 0-4 score (`parse_dimensions`: all seven lines or `invalid`); the overall score feeds the
  same verdict rules, the dimension scores are kept in the call record (`raw.sides.*.dimensions`).
- The ordinal scores are kept in the score metadata under `scores` (`{"idea": [...]}` or
  `{"a": [...], "b": [...]}`, one entry per call, null when invalid), for rank correlations
  with review scores and Krippendorff's alpha between runs (`judgeaudit.stats`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.model import (
    CachePolicy,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, ScoreReducer, Target, score_reducer, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from judgeaudit.data.contract import Idea, Item, PairItem, item_ideas
from judgeaudit.data.samples import load_items, sample_item
from judgeaudit.judges.build import judge_task, locate_dataset
from judgeaudit.judges.llm.prompted import call_seed
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.records import bounded, error_text, leave_records
from judgeaudit.judges.scorer import pool_calls, score_state
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, CallRecord, SplitRule
from judgeaudit.protocol import ERROR
from judgeaudit.providers.guard import guarded
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS, Exclusion
from judgeaudit.retrieval.index import Method, get_retriever
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

RUBRIC_PROMPT = "rubric/reference"
TWO_STAGE_PROMPT = "rubric/dimensions"
PROMPTS: dict[str, str] = {
    "rubric": RUBRIC_PROMPT,
    "two_stage": TWO_STAGE_PROMPT,
}  # judge -> prompt file
DIMENSIONS: tuple[str, ...] = (
    "problem",
    "data",
    "method",
    "objective",
    "evaluation",
    "assumptions",
)
SCALE: dict[int, str] = {
    0: "routine repetition",
    1: "incremental variation",
    2: "new combination",
    3: "substantial departure",
    4: "transformational reframing",
}
DEFAULT_THRESHOLD = 2
DEFAULT_REFERENCES = "corpus"
REFERENCE_MODES: tuple[str, ...] = ("corpus", "area", "dense")
DEFAULT_N_REFERENCES = 5
REFERENCE_CHARS = 700  # each reference abstract is cut to this many characters in the prompt
SCORES_KEY = "scores"
_SCORE_LINE = re.compile(r"^Score:[ \t]*([0-4])$")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_DIMENSION_LINE = re.compile(r"^([a-z]+):[ \t]*([0-4])$")


def parse_score(text: str) -> int | None:
    """The 0-4 score on the reply's last non-empty line `Score: <digit>`, else None (never coerced)."""
    lines = [ln.strip() for ln in _THINK.sub("", text or "").splitlines() if ln.strip()]
    if not lines:
        return None
    match = _SCORE_LINE.match(lines[-1])
    return int(match.group(1)) if match else None


def parse_dimensions(text: str) -> dict[str, int] | None:
    """Per-dimension 0-4 scores: the six `name: <digit>` lines right before the final score line, else None."""
    lines = [ln.strip() for ln in _THINK.sub("", text or "").splitlines() if ln.strip()]
    if len(lines) < len(DIMENSIONS) + 1 or parse_score(lines[-1]) is None:
        return None
    found: dict[str, int] = {}
    for line in lines[-1 - len(DIMENSIONS) : -1]:
        match = _DIMENSION_LINE.match(line)
        if match is None or match.group(1) not in DIMENSIONS or match.group(1) in found:
            return None
        found[match.group(1)] = int(match.group(2))
    return found


def rationale(text: str) -> str:
    """The reply without its final score line (the model's short rationale)."""
    lines = [ln for ln in _THINK.sub("", text or "").strip().splitlines()]
    return (
        "\n".join(lines[:-1]).strip()
        if lines and parse_score(lines[-1]) is not None
        else text.strip()
    )


def render_prompt(
    idea_text: str, area: str, references: Sequence[str], prompt: str = RUBRIC_PROMPT
) -> str:
    """The rubric prompt (or the two-stage one) for one idea and its reference texts (numbered)."""
    block = "\n\n".join(f"[{i}] {ref}" for i, ref in enumerate(references, 1)) or "(none)"
    return read_prompt(f"judge/{prompt}.txt").format(idea=idea_text, area=area, references=block)


def point_verdict(score: int | None, threshold: int) -> str:
    """`novel` when score >= threshold, `not_novel` below, `invalid` without a score."""
    if score is None:
        return "invalid"
    return "novel" if score >= threshold else "not_novel"


def pair_verdict(score_a: int | None, score_b: int | None) -> str:
    """`a`/`b` for the higher score, `tie` when equal, `invalid` when either is missing."""
    if score_a is None or score_b is None:
        return "invalid"
    return "a" if score_a > score_b else "b" if score_b > score_a else "tie"


# ---- reference sets --------------------------------------------------------------------------


class References:
    """Reference texts for an idea: BM25 prior work from a corpus, or same-area ideas of the dataset."""

    def __init__(
        self,
        mode: str,
        n: int,
        items: Sequence[Item],
        corpus: str | None = None,
        seed: int = 0,
        embedder: str = "auto",
    ) -> None:
        if mode not in REFERENCE_MODES:
            raise TaskOptionError(
                f"references must be one of {', '.join(REFERENCE_MODES)}, got {mode!r}"
            )
        if n < 1:
            raise TaskOptionError(f"n_references must be >= 1, got {n}")
        self.mode, self.n, self.seed = mode, n, seed
        self.corpus = corpus
        self.embedder = embedder
        self._by_area: dict[str, list[Idea]] = {}
        for item in items:
            for idea in item_ideas(item):
                pool = self._by_area.setdefault(idea.area, [])
                if all(o.idea_id != idea.idea_id for o in pool):
                    pool.append(idea)
        self._retriever: Any = None

    def for_idea(
        self, idea: Idea, hidden: Sequence[Idea]
    ) -> tuple[list[str], list[str], list[str]]:
        """(reference texts, their ids, excluded target ids) for `idea`; `hidden` ideas never appear."""
        if self.mode == "area":
            hidden_ids = {h.idea_id for h in hidden}
            pool = [o for o in self._by_area.get(idea.area, []) if o.idea_id not in hidden_ids]
            pick = sorted(
                random.Random(f"{self.seed}:{idea.idea_id}").sample(pool, min(self.n, len(pool))),
                key=lambda o: o.idea_id,
            )
            return (
                [o.text[:REFERENCE_CHARS] for o in pick],
                [o.idea_id for o in pick],
                sorted(hidden_ids),
            )
        if self._retriever is None:
            method: Method = "bm25" if self.mode == "corpus" else "dense"
            self._retriever = get_retriever(self.corpus or BUNDLED_CORPUS, method, self.embedder)
        result = self._retriever.search(
            idea.text, k=self.n, exclude=Exclusion.for_ideas(list(hidden))
        )
        texts = [f"{h.doc.title}: {h.doc.abstract[:REFERENCE_CHARS]}" for h in result.hits]
        return texts, [h.doc.doc_id for h in result.hits], list(result.excluded_target)


# ---- solver ----------------------------------------------------------------------------------


async def _score_call(
    model: Model,
    text: str,
    seed: int | None,
    call_index: int,
    cache: bool,
    dimensions: bool = False,
) -> dict[str, Any]:
    """One generate; the reply, its parsed score, and any provider error."""
    config = (
        GenerateConfig(seed=call_seed(seed, call_index)) if seed is not None else GenerateConfig()
    )
    policy: CachePolicy | bool = (
        CachePolicy(scopes={"judgeaudit_call": str(call_index), "judgeaudit_seed": str(seed)})
        if cache
        else False
    )
    try:
        output = await model.generate([ChatMessageUser(content=text)], config=config, cache=policy)
    except LimitExceededError:
        raise
    except Exception as exc:  # recorded; the sample errors once all its calls are recorded
        return {"output": "", "score": None, "error": error_text(exc, model)}
    if output.error:
        return {"output": output.completion, "score": None, "error": bounded(output.error)}
    completion = output.completion
    if dimensions:  # two-stage: all six dimension lines are required, else the call is invalid
        found = parse_dimensions(completion)
        return {
            "output": completion,
            "score": parse_score(completion) if found else None,
            "error": None,
            "dimensions": found,
            "rationale": rationale(completion),
        }
    return {
        "output": completion,
        "score": parse_score(completion),
        "error": None,
        "rationale": rationale(completion),
    }


def _parse_state(results: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    errors = [r["error"] for r in results if r["error"]]
    if errors:
        return "error", "; ".join(errors)
    return ("strict", None) if all(r["score"] is not None for r in results) else ("failed", None)


@solver
def rubric_judge(
    kind: str,
    refs: References,
    k: int = 1,
    threshold: int = DEFAULT_THRESHOLD,
    seed: int | None = None,
    cache: bool = True,
    judge: str = "rubric",
) -> Solver:
    """Score each idea 0-4 (k calls each) and record a verdict per call for the `novelty` scorer."""
    if k < 1:
        raise TaskOptionError(f"k must be at least 1, got {k}")
    if threshold not in SCALE:
        raise TaskOptionError(f"threshold must be one of {sorted(SCALE)}, got {threshold}")
    if judge not in PROMPTS:
        raise TaskOptionError(f"unknown rubric judge {judge!r}: use one of {', '.join(PROMPTS)}")
    prompt = PROMPTS[judge]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = sample_item(state.metadata, state.sample_id)
        model = guarded(get_model())
        arm_seed = state.metadata.get("seed")
        base = arm_seed if arm_seed is not None else seed
        sides = (
            {"a": item.idea_a, "b": item.idea_b}
            if isinstance(item, PairItem)
            else {"idea": item.idea}
        )
        hidden = list(sides.values())
        prompts = {}
        ref_ids = {}
        queries = []
        for side, idea in sides.items():
            texts, ids, excluded = refs.for_idea(idea, hidden)
            prompts[side], ref_ids[side] = render_prompt(idea.text, item.area, texts, prompt), ids
            queries.append(
                {
                    "side": side,
                    "query": None,
                    "ids": ids,
                    "excluded_target": excluded,
                    "after_cutoff": 0,
                }
            )
        # what the judge saw, in the schema's `retrieved` record (method `area`: same-area dataset ideas)
        state.metadata["retrieved"] = {
            "corpus": refs.corpus if refs.mode == "corpus" else "dataset",
            "method": {"corpus": "bm25", "dense": "dense"}.get(refs.mode, "area"),
            "k": refs.n,
            "cutoff": None,
            "ids": ref_ids,
            "queries": queries,
        }
        records = []
        for call_index in range(k):
            results = {
                side: await _score_call(
                    model, prompts[side], base, call_index, cache, judge == "two_stage"
                )
                for side in sides
            }
            parse, error = _parse_state(list(results.values()))
            if kind == "pairwise":
                verdict, order = pair_verdict(results["a"]["score"], results["b"]["score"]), "ab"
            else:
                verdict, order = point_verdict(results["idea"]["score"], threshold), "single"
            if parse == "error":  # a side's call failed: this call has no answer
                verdict = ERROR
            raw = {
                "judge": judge,
                "threshold": threshold,
                "references": {"mode": refs.mode, "ids": ref_ids},
                "sides": results,
            }
            records.append(
                CallRecord(
                    order,  # type: ignore[arg-type]
                    verdict,
                    verdict,
                    json.dumps(raw, sort_keys=True),
                    parse,  # type: ignore[arg-type]
                    call_index,
                    error,
                ).to_dict()
            )
        first = next(iter(sides))
        state.messages = [ChatMessageUser(content=prompts[first])]
        leave_records(
            state,
            records,
            prompt,
            ["ab" if kind == "pairwise" else "single"],
            k,
            answer=json.loads(records[0]["raw"])["sides"][first]["output"],
        )
        return state

    return solve


# ---- scorer (the `novelty` score schema plus `scores`) ----------------------------------------


def scores_from_calls(calls: Sequence[Mapping[str, Any]]) -> dict[str, list[int | None]]:
    """Per side, the ordinal score of every call (None when the call gave no valid score)."""
    out: dict[str, list[int | None]] = {}
    for call in calls:
        for side, result in json.loads(call["raw"])["sides"].items():
            out.setdefault(side, []).append(result["score"])
    return out


@scorer(metrics=[], name="novelty")
def rubric_novelty(split_rule: SplitRule = DEFAULT_SPLIT_RULE) -> Scorer:
    """The `novelty` score of the rubric judge: the common schema plus the ordinal `scores`."""

    async def score(state: TaskState, target: Target) -> Score:
        result = score_state(state, split_rule=split_rule)
        assert result.metadata is not None
        result.metadata[SCORES_KEY] = scores_from_calls(result.metadata["calls"])
        return result

    return score


@score_reducer(name="pool_rubric_calls")
def pool_rubric_calls(
    kind: str = "pairwise", split_rule: SplitRule = DEFAULT_SPLIT_RULE
) -> ScoreReducer:
    """`pool_calls` across epochs, with `scores` rebuilt from the pooled calls."""
    pooled = pool_calls(kind, split_rule)

    def reduce(scores: list[Score]) -> Score:
        out = pooled(scores)
        meta = dict(out.metadata or {})
        meta[SCORES_KEY] = scores_from_calls(meta["calls"])
        return Score(value=out.value, answer=out.answer, explanation=out.explanation, metadata=meta)

    return reduce


# ---- tasks -----------------------------------------------------------------------------------


def rubric_task(
    kind: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    k: int = 1,
    references: str = DEFAULT_REFERENCES,
    n_references: int = DEFAULT_N_REFERENCES,
    threshold: int = DEFAULT_THRESHOLD,
    corpus: str | None = None,
    split_rule: str = DEFAULT_SPLIT_RULE,
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int | None = None,
    cache: bool = True,
    judge: str = "rubric",
    embedder: str = "auto",
) -> Task:
    """An Inspect Task judging `dataset` with the graded rubric judge (or the two-stage one)."""
    if kind not in ("pairwise", "pointwise"):
        raise ValueError(f"kind must be pairwise or pointwise, got {kind!r}")
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    located = locate_dataset(dataset)
    if judge not in PROMPTS:
        raise ValueError(f"unknown rubric judge {judge!r}: use one of {', '.join(PROMPTS)}")
    refs = References(
        references, n_references, load_items(located, kind, idea_format), corpus, seed, embedder
    )
    settings = {
        "scale": SCALE,
        "threshold": threshold,
        "references": references,
        "n_references": n_references,
        "corpus": corpus,
        "embedder": embedder if references == "dense" else None,
    }
    return judge_task(
        kind,
        judge,
        dataset,
        rubric_judge(kind, refs, k=k, threshold=threshold, seed=seed, cache=cache, judge=judge),
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        split_rule=split_rule,
        metadata={"prompt": PROMPTS[judge], "settings": settings},
        scorer=rubric_novelty(split_rule=split_rule),  # type: ignore[arg-type]
        reducer=pool_rubric_calls(kind, split_rule),  # type: ignore[arg-type]
    )


def rubric_task_from_options(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int | None = None,
    prompt: str = "reference",
    k: int = 1,
    both_orders: bool = False,
    cache: bool = True,
    split_rule: str = DEFAULT_SPLIT_RULE,
    **options: Any,
) -> Task:
    """Catalog factory for `-T judge=rubric|two_stage` (k, cache, split_rule and retrieval_corpus apply)."""
    corpus = options.pop("retrieval_corpus", None)
    references = "dense" if judge == "two_stage" else DEFAULT_REFERENCES
    return rubric_task(
        kind,
        dataset,
        idea_format=idea_format,
        k=k,
        probe=probe,
        seed=seed,
        resamples=resamples,
        cache=cache,
        split_rule=split_rule,
        judge=judge,
        references=references,
        corpus=corpus,
    )
