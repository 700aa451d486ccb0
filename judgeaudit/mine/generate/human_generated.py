"""Human+Generated sets: the Human-Only `novel` side against ideas written by a plain LLM ideator.

Every model call goes through the one cached model client (`mine.llm.CachedModel`: Inspect's
model API, answers cached on disk, so a re-run makes no call and an interrupted run resumes). A bad
answer (empty, refusal, copy of the input, too short) is retried with a new seed a bounded number
of times, then counted as a failure, and a model error fails its one idea with the cause; the pair
it belonged to is left out and listed in the manifest.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import random
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.data.card import write_card
from judgeaudit.data.contract import Idea, PairItem, PointItem, Provenance, Setup
from judgeaudit.data.jsonl import read_pairs, write_items
from judgeaudit.data.manifest import write_manifest
from judgeaudit.files import sha256_file
from judgeaudit.mine.llm import CachedModel, Request, Validator, failure_counts
from judgeaudit.mine.pairing import alternate
from judgeaudit.mine.staging import staged_dir
from judgeaudit.resources import read_prompt, resolve_dataset_file

SETUP: Setup = "human_generated"
IDEATOR_PROMPT = "mining/ideator.txt"
DEFAULT_CACHE = ".cache/judgeaudit/mining-llm/generate"
MIN_IDEA_WORDS = 25

_REFUSAL = re.compile(
    r"\b(I can(?:no|')t|I am unable|I'm unable|I'm sorry|I am sorry|As an AI|I won't)\b", re.I
)


def backbone_name(model: str) -> str:
    """Directory name of a generator model: its last path part, e.g. 'openai/gpt-4o' -> 'gpt-4o'."""
    name = model.rstrip("/").split("/")[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name) or "model"


def generated_idea_id(generator: str, text: str) -> str:
    """Stable id of a generated idea: a hash of its generator and text."""
    return "gen-" + hashlib.sha256(f"{generator}\n{text}".encode()).hexdigest()[:16]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


ECHO_WORDS = 20


def echoes(text: str, prompt: str, words: int = ECHO_WORDS) -> bool:
    """True when most word trigrams of the answer's opening `words` words also occur in the prompt (an echo)."""
    head = _norm(text).split()[:words]
    grams = {tuple(head[i : i + 3]) for i in range(len(head) - 2)}
    src = _norm(prompt).split()
    known = {tuple(src[i : i + 3]) for i in range(len(src) - 2)}
    return len(grams) >= 3 and len(grams & known) / len(grams) >= 0.5


def bad_reason(text: str, source: str, min_words: int, prompt: str | None = None) -> str | None:
    """Why an answer is unusable ('empty', 'refusal', 'copy of the input', 'too short', 'repetitive') or None.

    A copy is the source text itself (or nearly), or an answer that opens by echoing the prompt."""
    if not text.strip():
        return "empty"
    if _REFUSAL.search(text[:200]):
        return "refusal"
    out, src = _norm(text), _norm(source)
    if (
        out
        and src
        and (out in src or difflib.SequenceMatcher(None, out, src, autojunk=False).ratio() >= 0.9)
    ):
        return "copy of the input"
    if prompt is not None and echoes(text, prompt):
        return "copy of the input"
    if len(text.split()) < min_words:
        return "too short"
    if _REPEAT.search(text) or _repetitive(out):
        return "repetitive"
    return None


_REPEAT = re.compile(r"(.)\1{15,}|(\b.{2,40}?\b)(?:\W+\2\b){4,}", re.S)


def _repetitive(norm: str) -> bool:
    """A degenerate loop: fewer than a third of the words are distinct (on 30+ words)."""
    words = norm.split()
    return len(words) >= 30 and len(set(words)) < len(words) / 3


def topic_of(idea: Idea) -> str:
    """What the ideator is told about the paired idea: its title (never its text)."""
    return (idea.title or "").strip()


def ideator_prompt(template: str, area: str, topic: str) -> str:
    """The ideator prompt for one area and topic."""
    return template.rstrip().replace("{area}", area).replace("{topic}", topic)


def clean_idea(raw: str) -> str:
    """The first paragraph of an answer, without a leading 'Abstract:' label, whitespace collapsed.

    The ideator prompt ends with the lead-in 'Abstract: We'; an answer that continues it (starts
    in lower case, as a base model's does) gets the 'We' back."""
    text = raw.strip()
    text = re.sub(r"^\s*(?:[-*]\s*)?(?:(?:abstract|title)\s*:\s*)?", "", text, flags=re.I)
    first = " ".join(re.split(r"\n\s*\n", text, maxsplit=1)[0].split())
    return f"We {first}" if first[:1].islower() else first


def _idea_validator(topic: str, prompt: str) -> Validator:
    def check(raw: str) -> tuple[str | None, str]:
        text = clean_idea(raw)
        return bad_reason(text, topic, MIN_IDEA_WORDS, prompt), text

    return check


@dataclass
class GeneratedSet:
    """Pairs and points of a Human+Generated set, and the pairs left out with their reasons."""

    pairs: list[PairItem]
    points: list[PointItem]
    skipped: dict[str, str]
    counts: dict[str, Any]


def novel_side(pair: PairItem) -> Idea:
    """The `novel` (gold) idea of a Human-Only pair."""
    return pair.idea_a if pair.gold == "a" else pair.idea_b


def select_pairs(pairs: list[PairItem], limit: int | None, seed: int) -> list[PairItem]:
    """Pairs sorted by id; with a limit, a seeded sample of that many."""
    ordered = sorted(pairs, key=lambda p: p.pair_id)
    if limit is not None and limit < len(ordered):
        ordered = sorted(random.Random(seed).sample(ordered, limit), key=lambda p: p.pair_id)
    return ordered


def build_generated(
    pairs: list[PairItem],
    model: CachedModel,
    *,
    seed: int = 0,
    limit: int | None = None,
    progress: bool = True,
) -> GeneratedSet:
    """Generate one `not_novel` idea per Human-Only pair and pair it with that pair's `novel` idea."""
    template = read_prompt(IDEATOR_PROMPT)
    chosen = select_pairs(pairs, limit, seed)
    skipped: dict[str, str] = {}
    requests: list[Request] = []
    for pair in chosen:
        novel = novel_side(pair)
        topic = topic_of(novel)
        if not topic:
            skipped[pair.pair_id] = "the novel idea has no title to give as topic"
            continue
        prompt = ideator_prompt(template, pair.area, topic)
        requests.append(Request(pair.pair_id, prompt, _idea_validator(topic, prompt)))
    outcomes = model.run(requests, progress=progress, desc=f"ideas by {model.model}")
    built: list[tuple[Idea, Idea]] = []
    for pair in chosen:
        outcome = outcomes.get(pair.pair_id)
        if outcome is None:
            continue
        if outcome.text is None:
            skipped[pair.pair_id] = "generation failed: " + ", ".join(outcome.failures)
            continue
        novel = novel_side(pair)
        gen = Idea(
            idea_id=generated_idea_id(model.model, outcome.text),
            text=outcome.text,
            format="abstract",
            source="generated",
            area=pair.area,
            label="not_novel",
            generator=model.model,
            title=None,
            provenance=Provenance(
                dataset=f"generated:{model.model}", source_id=novel.idea_id, forum=None
            ),
        )
        built.append((novel, gen))
    built.sort(key=lambda ng: f"{ng[0].idea_id}__{ng[1].idea_id}")
    golds = ["a"] * ((len(built) + 1) // 2) + ["b"] * (len(built) // 2)
    random.Random(seed).shuffle(golds)
    out_pairs: list[PairItem] = []
    for (novel, gen), gold in zip(built, golds, strict=True):
        a, b = (novel, gen) if gold == "a" else (gen, novel)
        out_pairs.append(
            PairItem(
                pair_id=f"{novel.idea_id}__{gen.idea_id}",
                setup=SETUP,
                area=novel.area,
                idea_a=a,
                idea_b=b,
                gold="a" if gold == "a" else "b",
            )
        )
    out_pairs = alternate(out_pairs, lambda p: p.gold, ("a", "b"))
    ideas = {i.idea_id: i for ng in built for i in ng}
    points = alternate(
        [
            PointItem(item_id=i.idea_id, setup=SETUP, idea=i, gold=i.label)
            for _, i in sorted(ideas.items())
        ],
        lambda p: p.gold,
        ("novel", "not_novel"),
    )
    counts = failure_counts(outcomes)
    counts.update(
        {
            "pairs_in_source": len(pairs),
            "pairs_selected": len(chosen),
            "pairs_written": len(out_pairs),
            "pairs_skipped": len(skipped),
            "novel_at_a": golds.count("a"),
            "novel_at_b": golds.count("b"),
        }
    )
    return GeneratedSet(out_pairs, points, dict(sorted(skipped.items())), counts)


_TINY_MODELS = ("gemma-3-270m",)


def _card_sections(
    model: CachedModel, gs: GeneratedSet, command: str, source: str
) -> dict[str, str]:
    c = gs.counts
    sections = {
        "Generation": (
            f"The `novel` side is the Human-Only set's `novel` ideas ({source}). The `not_novel` side was "
            f"written by `{model.model}` from our plain ideator prompt (`prompts/{IDEATOR_PROMPT}`), given only "
            "the research area and the paired `novel` idea's title as topic, never its text. Every generated "
            f"idea has `source: generated` and `generator: {model.model}`; its `idea_id` is a hash of "
            "generator and text. Generated ideas are labelled `not_novel` by construction (the reference "
            "study's Human+Generated setup), not by reviewers.\n\n"
            f"Options: max_tokens={model.max_tokens}, temperature={model.temperature}, seed={model.seed}, "
            f"up to {model.attempts} attempts per idea (a new seed each). Novel idea at position a/b: "
            f"{c['novel_at_a']}/{c['novel_at_b']} (seeded shuffle)."
        ),
        "Skipped": (
            f"{c['pairs_selected']} source pairs selected, {c['pairs_written']} written, {c['pairs_skipped']} left "
            f"out (a generation that stayed bad after every attempt, or no title to use as topic). Bad attempts "
            f"by reason: {json.dumps(c['bad_attempts_by_reason'])}. The pair ids and reasons are in the "
            "manifest (`generation.skipped`)."
        ),
        "Reproduce": f"```\n{command}\n```\n\nRegenerate with your own model by changing `--model`.",
    }
    if backbone_name(model.model) in _TINY_MODELS:
        sections = {
            "Warning: example only": (
                f"This set was made with `{model.model}`, a tiny 270M-parameter local model, so that the toolkit "
                "ships a runnable example that needs no API key. Its ideas are often weak or off-topic: do not "
                "use this set for measurements. Regenerate the set with your own generator models."
            )
        } | sections
    return sections


def write_generated(
    gs: GeneratedSet,
    set_dir: Path,
    model: CachedModel,
    *,
    source_name: str,
    source_path: Path,
    command: str,
    seed: int,
    limit: int | None,
) -> Path:
    """Write pairwise/pointwise JSONL, manifest and card of a Human+Generated set, replacing the old set as a whole.

    Plans (`*_plan.jsonl`) of an older generation are not carried over (re-run `judgeaudit mine plan`, cached).
    """
    final = Path(set_dir)
    for stale in sorted(final.glob("*_plan.jsonl")):
        print(
            f"not keeping {stale} (made from the previous generation; re-run `judgeaudit mine plan`, cached)",
            file=sys.stderr,
        )
    with staged_dir(final) as staging:
        _write_generated(
            gs,
            staging,
            final.name,
            model,
            source_name=source_name,
            source_path=source_path,
            command=command,
            seed=seed,
            limit=limit,
        )
    return final


def _write_generated(
    gs: GeneratedSet,
    set_dir: Path,
    name: str,
    model: CachedModel,
    *,
    source_name: str,
    source_path: Path,
    command: str,
    seed: int,
    limit: int | None,
) -> None:
    write_items(set_dir / "pairwise.jsonl", gs.pairs)
    write_items(set_dir / "pointwise.jsonl", gs.points)
    prompt_hash = hashlib.sha256(read_prompt(IDEATOR_PROMPT).encode()).hexdigest()
    generation = {
        "model": model.model,
        "backbone": backbone_name(model.model),
        "prompt": f"prompts/{IDEATOR_PROMPT}",
        "prompt_sha256": prompt_hash,
        "seed": seed,
        "limit": limit,
        "max_tokens": model.max_tokens,
        "temperature": model.temperature,
        "attempts": model.attempts,
        "counts": gs.counts,
        "skipped": gs.skipped,
    }
    source = {
        "kind": "dataset",
        "dataset": source_name,
        "file": source_path.name,
        "sha256": sha256_file(source_path),
    }
    write_manifest(
        set_dir, source=source, command=command, extra={"generation": generation}, name=name
    )
    n = len(gs.pairs)
    summary = (
        f"Human+Generated novelty pairs: {n} pairs of a Human-Only `novel` ICLR 2026 idea and a `not_novel` "
        f"idea written by `{model.model}` for the same area and topic, plus {len(gs.points)} pointwise items."
    )
    if backbone_name(model.model) in _TINY_MODELS:
        summary += (
            f" Made with the tiny local `{model.model}` as a runnable example only (see *Warning*); "
            "regenerate with your own models for measurements."
        )
    write_card(
        set_dir,
        pretty_name=f"ICLR 2026 Human+Generated novelty pairs ({backbone_name(model.model)})",
        summary=summary,
        sections=_card_sections(model, gs, command, f"`{source_name}`"),
    )


def generate_command(
    model: str,
    dataset: str,
    out: str,
    seed: int,
    limit: int | None,
    max_tokens: int,
    temperature: float,
    attempts: int,
) -> str:
    """The canonical command line of a generation run (no cache paths, no secrets)."""
    parts = [
        "judgeaudit",
        "mine",
        "generate",
        "--model",
        model,
        "--dataset",
        dataset,
        "--out",
        out,
        "--seed",
        str(seed),
        "--max-tokens",
        str(max_tokens),
        "--temperature",
        str(temperature),
        "--attempts",
        str(attempts),
    ]
    if limit is not None:
        parts += ["--limit", str(limit)]
    return " ".join(shlex.quote(p) for p in parts)


def load_source_pairs(dataset: str) -> tuple[Path, list[PairItem]]:
    """The Human-Only pairwise file of a set name or path, and its pairs (must be human_only abstracts)."""
    path = resolve_dataset_file(dataset, "pairwise")
    pairs = read_pairs(path)
    wrong = [p.pair_id for p in pairs if p.setup != "human_only" or p.idea_a.format != "abstract"]
    if wrong:
        raise ValueError(
            f"{path}: generation needs human_only abstract pairs; {len(wrong)} are not (first: {wrong[0]})"
        )
    return path, pairs
