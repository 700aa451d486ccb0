"""Creativity-literature novelty evaluators: semantic-distance judges, surface sanity check, rubric judge.

Distance judges are checked against hand-computed values on fixed small embeddings (a test
embedder that looks vectors up by text) and run in real Inspect evals (`none` model) on real
ICLR 2026 abstracts with TF-IDF. The rubric judge runs in real Inspect evals against
`mockllm/model` with scripted outputs (hosted and local LLMs are out of reach in tests).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.inspect_runs import eval_ok, run_scripted, unit
from helpers.real_items import AREAS, FixedEmbedder, real_idea, real_pairs, real_points
from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.audit.surface_ratio import (
    EDITS,
    area_pairs,
    edit_text,
    render_markdown,
    surface_sanity,
)
from judgeaudit.data.contract import Idea
from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.catalog import judge_names, novelty_task
from judgeaudit.judges.llm.rubric import pair_verdict as rubric_pair_verdict
from judgeaudit.judges.llm.rubric import parse_score, rationale, rubric_task
from judgeaudit.judges.score.distance import DISTANCE_JUDGES, DistancePrior, distance_task
from judgeaudit.judges.score.metric import pair_verdict, point_verdict
from judgeaudit.retrieval.build_corpus import write_corpus
from judgeaudit.retrieval.corpus import Corpus, Document, load_corpus
from judgeaudit.stats.agreement import krippendorff_alpha


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.delenv("OPENREVIEW_USERNAME", raising=False)
    monkeypatch.delenv("OPENREVIEW_PASSWORD", raising=False)


def _doc(i: int, title: str) -> Document:
    return Document(f"d{i}", title, f"abstract {i}", 1_700_000_000_000 + i)


def _fixed_prior(tau: float | None = 0.5) -> tuple[DistancePrior, Corpus, dict[str, list[float]]]:
    docs = [_doc(0, "zero"), _doc(1, "one"), _doc(2, "two"), _doc(3, "three")]
    vecs = {
        "zero\nabstract 0": [1.0, 0.0],
        "one\nabstract 1": [0.8, 0.6],
        "two\nabstract 2": [0.0, 1.0],
        "three\nabstract 3": [-1.0, 0.0],
        "idea x": [1.0, 0.0],
        "idea far": [0.0, -1.0],
    }
    corpus = Corpus("fixed", tuple(docs))
    prior = DistancePrior(
        corpus,
        embedder="tfidf",
        neighbours=2,
        use_cache=False,
        tau=tau,
        vectors=FixedEmbedder(vecs),
    )
    return prior, corpus, vecs


def _plain(idea_id: str, text: str, area: str = "x", title: str | None = None) -> Idea:
    return Idea(idea_id, text, "abstract", "human", area, "novel", title=title)


def test_distance_scores_match_hand_computation_and_exclude_the_target() -> None:
    prior, _, _ = _fixed_prior()
    # "idea x" is document d0 itself (same id): d0 must be out of every reference set.
    idea = _plain("d0", "idea x")
    nn = prior.score(idea, "distance_nn")
    assert nn.excluded_target == ["d0"] and "d0" not in [n["id"] for n in nn.neighbours]
    assert nn.value == pytest.approx(1 - 0.8)  # nearest remaining is d1 at cosine 0.8
    mean = prior.score(idea, "distance_mean")
    assert mean.value == pytest.approx(1 - (0.8 + 0.0 - 1.0) / 3)
    centroid = prior.score(idea, "distance_centroid")
    c = np.array([0.8 + 0 - 1, 0.6 + 1 + 0])
    assert centroid.value == pytest.approx(1 - c[0] / np.linalg.norm(c))
    graph = prior.score(idea, "distance_graph")  # tau 0.5: one edge (d1, 0.8)
    assert graph.parts["edges"] == 1 and graph.value == pytest.approx(1 / 1.8)
    # A stranger with the same text is not excluded: d0 is its nearest at distance 0, two edges.
    twin = _plain("other", "idea x")
    assert prior.score(twin, "distance_nn").value == pytest.approx(0.0, abs=1e-9)
    assert prior.score(twin, "distance_graph").value == pytest.approx(1 / (1 + 1.0 + 0.8))
    # Isolated: no cosine >= tau, so the cost is above 1 and grows with the gap to tau.
    far = prior.score(_plain("f", "idea far"), "distance_graph")
    assert far.parts["edges"] == 0 and far.value == pytest.approx(1 + (0.5 - 0.0))
    with pytest.raises(ValueError, match="unknown distance judge"):
        prior.score(idea, "distance_vibes")


def test_title_match_is_excluded_from_the_global_reference_set() -> None:
    prior, _, _ = _fixed_prior()
    # Different id and text, but the title of d3: d3 is the idea's own paper and leaves the set.
    mean = prior.score(_plain("gen-1", "idea x", title="Three"), "distance_mean")
    assert mean.excluded_target == ["d3"] and mean.parts["reference_size"] == 3
    assert mean.value == pytest.approx(1 - (1.0 + 0.8 + 0.0) / 3)


def test_graph_threshold_is_a_high_quantile_of_random_corpus_pairs() -> None:
    prior, _, _ = _fixed_prior(tau=None)
    cosines = [1 * 0.8, 0, -1, 0.6 * 1, -0.8, 0]  # all pairs of the 4 documents
    assert min(cosines) <= prior.tau <= max(cosines) and prior.tau > float(np.median(cosines))
    assert prior.describe()["graph_tau"] == pytest.approx(prior.tau, abs=1e-6)


def test_cutoff_and_empty_reference_set_are_clear_errors() -> None:
    _, corpus, vecs = _fixed_prior()
    with pytest.raises(ValueError, match="no document dated before cutoff"):
        DistancePrior(corpus, cutoff="2000-01-01", use_cache=False, vectors=FixedEmbedder(vecs))
    early = DistancePrior(
        corpus, cutoff=1_700_000_000_001, use_cache=False, vectors=FixedEmbedder(vecs), tau=0.5
    )
    with pytest.raises(ValueError, match="no prior work left"):
        early.score(_plain("d0", "idea x"), "distance_nn")


# ---- real abstracts, real Inspect runs ---------------------------------------------------------


@pytest.fixture(scope="module")
def docs() -> Corpus:
    """The first 300 real submissions of the bundled corpus."""
    return load_corpus().head(300)


@pytest.fixture
def real_set(tmp_path: Path, docs: Corpus) -> tuple[Path, Path]:
    """Pairwise and pointwise items of real abstracts, and a corpus file holding those very papers."""
    pairs, points = real_pairs(docs, 12), real_points(docs, 12)
    d = tmp_path / "real_set"
    write_items(d / "pairwise.jsonl", pairs)
    write_items(d / "pointwise.jsonl", points)
    corpus_file = tmp_path / "corpus.jsonl.gz"
    write_corpus(list(docs.documents), corpus_file)
    return d, corpus_file


@pytest.mark.parametrize("judge", ["distance_centroid", "distance_graph"])
def test_pairwise_distance_judge_runs_in_inspect(
    real_set: tuple[Path, Path], tmp_path: Path, judge: str
) -> None:
    set_dir, corpus_file = real_set
    log = eval_ok(
        distance_task(
            "pairwise",
            judge,
            str(set_dir),
            corpus=str(corpus_file),
            embedder="tfidf",
            resamples=100,
        ),
        tmp_path,
    )
    rule = log.eval.metadata["judgeaudit"]["metric_rule"]
    assert rule["prior_work"]["embedder"] == "tfidf" and "graph_tau" in rule["prior_work"]
    assert rule["split"]["n_fit"] == 6 and log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        meta = unit(log, sample)
        assert meta["area"] in rule["split"]["scored_areas"]
        raw = json.loads(meta["calls"][0]["raw"])
        assert raw["embedder"] == "tfidf" and meta["judge"] == judge
        assert meta["verdict"] == pair_verdict(
            raw["score_a"]["value"], raw["score_b"]["value"], rule["tolerance"]
        )
        assert raw["score_a"]["excluded_target"] == [sample.metadata["item"]["idea_a"]["idea_id"]]


def test_pointwise_distance_judge_runs_in_inspect(
    real_set: tuple[Path, Path], tmp_path: Path
) -> None:
    set_dir, corpus_file = real_set
    log = eval_ok(
        distance_task(
            "pointwise",
            "distance_mean",
            str(set_dir),
            corpus=str(corpus_file),
            embedder="tfidf",
            fit_by="item",
            resamples=100,
        ),
        tmp_path,
    )
    rule = log.eval.metadata["judgeaudit"]["metric_rule"]
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        assert sample.id not in set(rule["split"]["fit_ids"])
        raw = json.loads(sample.scores["novelty"].metadata["calls"][0]["raw"])
        assert sample.scores["novelty"].answer == point_verdict(
            raw["score"]["value"], rule["threshold"]
        )


def test_catalog_lists_distance_judges_and_rejects_prompt_options() -> None:
    assert set(DISTANCE_JUDGES) <= set(judge_names())
    with pytest.raises(ValueError, match="cannot honour prompt"):
        novelty_task(
            "pairwise",
            judge="distance_nn",
            dataset="iclr2026/human_only",
            prompt="p1_no_guardrails",
        )


# ---- surface sanity ----------------------------------------------------------------------------


def test_surface_edits_keep_words_and_report_when_they_do_not_apply() -> None:
    rng = random.Random(1)
    text = "We propose Sparse Mixture Routing (SMR). SMR routes tokens sparsely. It is fast."
    renamed = edit_text("rename_acronym", text, rng)
    assert (
        renamed is not None
        and "SMR" not in renamed
        and renamed.count(renamed.split("(")[1][:3]) == 2
    )
    assert edit_text("rename_acronym", "no acronym here.", rng) is None
    assert (
        edit_text("formatting", text, rng).split() == ("- " + text.replace(". ", ".\n- ")).split()
    )  # type: ignore[union-attr]
    assert edit_text("comment", text, rng).startswith(text)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown surface edit"):
        edit_text("paraphrase", text, rng)


class LengthScorer:
    """A deliberately bad 'judge': novelty = text length, so any added sentence moves it a lot."""

    embedder = "none"

    def score(self, idea: Idea, judge: str) -> Any:
        """Length-based score record."""
        return type("S", (), {"value": float(len(idea.text))})()


def test_sanity_ratio_separates_a_meaning_reader_from_a_length_counter(docs: Corpus) -> None:
    ideas = [real_idea(docs.documents[i], "novel", AREAS[i % 2]) for i in range(40)]
    assert all(ideas[i].area == ideas[j].area and i != j for i, j in area_pairs(ideas))
    prior = DistancePrior(docs, embedder="tfidf", use_cache=False)
    good = surface_sanity(prior, "distance_nn", ideas)
    bad = surface_sanity(LengthScorer(), "length", ideas)
    assert good.embedder == "tfidf" and set(good.edits) == set(EDITS)
    assert good.edits["formatting"]["n"] == 40 and good.edits["formatting"][
        "median_shift"
    ] == pytest.approx(0, abs=1e-6)
    n_acronym = good.edits["rename_acronym"]
    assert n_acronym["n"] + n_acronym["skipped"] == 40  # skips are counted, not dropped
    assert good.ratio < bad.edits["comment"]["ratio"] and not math.isnan(good.ratio)
    table = render_markdown([good, bad])
    assert "| distance_nn | tfidf |" in table and "| length | none |" in table
    with pytest.raises(ValueError, match="at least 2 ideas"):
        surface_sanity(prior, "distance_nn", ideas[:1])


# ---- graded rubric judge (mockllm/model with scripted replies) -----------------------------------


def test_parse_score_is_strict() -> None:
    assert parse_score("It extends known work.\nScore: 1") == 1
    assert parse_score("<think>Score: 4</think>Mostly routine.\nScore:0\n\n") == 0
    for bad in (
        "Score: 5",
        "Score: 3.5",
        "score 3",
        "Score: 3\nThanks!",
        "Score: two",
        "",
        "**Score: 3**",
    ):
        assert parse_score(bad) is None, bad
    assert rationale("Clear departure from [2].\nScore: 3") == "Clear departure from [2]."
    assert rubric_pair_verdict(3, 1) == "a" and rubric_pair_verdict(2, 2) == "tie"
    assert rubric_pair_verdict(None, 2) == "invalid"


class ScriptedRubric:
    """mockllm policy: reads the idea out of the prompt and answers with a scripted score line."""

    def __init__(self, scores: dict[str, str]) -> None:
        self.scores = scores  # idea text prefix -> reply's last line
        self.prompts: list[str] = []

    def __call__(self, messages: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = messages[-1].text
        self.prompts.append(text)
        idea = text.split("Idea to assess:\n", 1)[1]
        line = next((v for k, v in self.scores.items() if idea.startswith(k)), "Score: 2")
        out = ModelOutput.from_content("mockllm/model", f"Short rationale.\n{line}")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out


def test_rubric_pointwise_with_corpus_references(
    real_set: tuple[Path, Path], tmp_path: Path, docs: Corpus
) -> None:
    set_dir, corpus_file = real_set
    from judgeaudit.data.samples import load_items

    items = load_items(str(set_dir), "pointwise")
    # novel ideas get 3, not-novel ones 1, one idea a malformed reply (must be invalid, not coerced)
    script = {it.idea.text[:80]: ("Score: 3" if it.gold == "novel" else "Score: 1") for it in items}  # type: ignore[union-attr]
    broken = items[0].idea.text[:80]  # type: ignore[union-attr]
    script[broken] = "Score: 7"
    policy = ScriptedRubric(script)
    log = run_scripted(
        rubric_task(
            "pointwise", str(set_dir), corpus=str(corpus_file), k=2, resamples=100, cache=False
        ),
        policy,
        tmp_path,
    )
    assert log.samples is not None and len(log.samples) == len(items)
    assert len(policy.prompts) == 2 * len(items)
    for sample in log.samples:
        meta = unit(log, sample)
        raw = json.loads(meta["calls"][0]["raw"])
        own = sample.metadata["item"]["idea"]["idea_id"]
        assert (
            len(raw["references"]["ids"]["idea"]) == 5
            and own not in raw["references"]["ids"]["idea"]
        )
        assert (
            meta["retrieved"]["method"] == "bm25"
            and meta["retrieved"]["ids"] == raw["references"]["ids"]
        )
        if sample.metadata["item"]["idea"]["text"][:80] == broken:
            assert meta["verdict"] == "invalid" and meta["scores"] == {"idea": [None, None]}
            assert {c["parse"] for c in meta["calls"]} == {"failed"}
        else:
            expected = 3 if meta["gold"] == "novel" else 1
            assert (
                meta["scores"] == {"idea": [expected, expected]} and meta["verdict"] == meta["gold"]
            )
    # the reference block holds real corpus titles
    titles = {d.title for d in docs.documents}
    assert any(t and t in policy.prompts[0] for t in titles)


def test_rubric_pairwise_with_area_references_and_epochs(
    real_set: tuple[Path, Path], tmp_path: Path
) -> None:
    set_dir, _ = real_set
    from judgeaudit.data.samples import load_items

    pairs = load_items(str(set_dir), "pairwise")
    script = {}
    for i, p in enumerate(pairs):
        novel, plain = (p.idea_a, p.idea_b) if p.gold == "a" else (p.idea_b, p.idea_a)  # type: ignore[union-attr]
        script[novel.text[:80]] = "Score: 2"
        script[plain.text[:80]] = (
            "Score: 2" if i == 0 else "Score: 0"
        )  # pair 0: equal scores -> tie
    log = run_scripted(
        rubric_task(
            "pairwise", str(set_dir), references="area", n_references=3, resamples=100, cache=False
        ),
        ScriptedRubric(script),
        tmp_path,
        epochs=2,
    )
    assert log.samples is not None
    for sample in log.samples:
        meta = unit(log, sample)
        raw = json.loads(meta["calls"][0]["raw"])
        sides = {
            sample.metadata["item"]["idea_a"]["idea_id"],
            sample.metadata["item"]["idea_b"]["idea_id"],
        }
        assert not sides & set(raw["references"]["ids"]["a"] + raw["references"]["ids"]["b"])
        sa, sb = meta["scores"]["a"][0], meta["scores"]["b"][0]
        assert meta["verdict"] == rubric_pair_verdict(sa, sb)
        assert meta["verdict"] == ("tie" if sample.id == "pair0" else meta["gold"])
    pooled = log.reductions[0].samples
    assert all(len(s.metadata["scores"]["a"]) == 2 for s in pooled)  # epochs pooled, scores rebuilt
    # ordinal scores of two runs (the two epochs) feed Krippendorff's alpha: identical runs agree fully
    runs = np.array([[s.metadata["scores"]["a"][e] for s in pooled] for e in range(2)], dtype=float)
    assert krippendorff_alpha(runs, "ordinal") == pytest.approx(1.0)


def test_rubric_catalog_factory_rejects_options_it_cannot_honour() -> None:
    assert "rubric" in judge_names()
    with pytest.raises(ValueError, match="cannot honour both_orders"):
        novelty_task("pairwise", judge="rubric", dataset="iclr2026/human_only", both_orders=True)
    with pytest.raises(ValueError, match="references must be one of"):
        rubric_task("pointwise", "iclr2026/human_only", references="web")


# ---- concept-based novelty -------------------------------------------------------------------


def test_concepts_are_key_phrases_and_a_copy_has_none_new(docs: Corpus) -> None:
    from judgeaudit.judges.score.concepts import ConceptPrior, extract_concepts
    from judgeaudit.retrieval.embed import TfidfEmbedder

    tfidf = TfidfEmbedder(min_df=1)
    tfidf.fit(
        [
            "graph neural networks for molecules",
            "graph neural networks",
            "diffusion models for images",
            "language models",
            "reinforcement learning agents",
        ]
    )
    concepts = extract_concepts("Graph neural networks for molecules and molecules.", tfidf, n=3)
    # molecules: rarest and repeated; then the bigram wins its tie; no word appears in two concepts
    assert concepts == ["molecules", "graph neural", "networks"]
    prior = ConceptPrior(docs, embedder="tfidf", use_cache=False)
    own = docs.documents[9]
    scored = prior.score(real_idea(own, "novel", "x"), "concept_set")
    assert own.doc_id in scored.excluded_target and 0.0 <= scored.value <= 1.0
    record = scored.to_dict()
    assert record["concepts"] and all("concepts" in n for n in record["neighbours"])
    # a lightly edited copy of another paper (new id, no title) has that paper as reference: (almost) nothing new
    copy = Idea(
        "gen-9",
        docs.documents[10].text + " Code will be released.",
        "abstract",
        "generated",
        "x",
        "not_novel",
        generator="m",
    )
    copied = prior.score(copy, "concept_set")
    assert copied.neighbours[0]["id"] == docs.documents[10].doc_id
    assert copied.value <= 0.2 < scored.value


def test_concept_judge_runs_in_inspect_via_the_catalog_factory(
    real_set: tuple[Path, Path], tmp_path: Path
) -> None:
    from judgeaudit.judges.score.concepts import ConceptPrior

    set_dir, corpus_file = real_set
    log = eval_ok(
        distance_task(
            "pairwise",
            "concept_set",
            str(set_dir),
            corpus=str(corpus_file),
            embedder="tfidf",
            resamples=100,
            prior_cls=ConceptPrior,
        ),
        tmp_path,
    )
    assert log.samples is not None and len(log.samples) == 6
    raw = json.loads(log.samples[0].scores["novelty"].metadata["calls"][0]["raw"])
    assert raw["score_a"]["concepts"] and raw["judge"] == "concept_set"
    assert "concept_set" in judge_names()


def test_sanity_cli_writes_json_and_a_table(
    real_set: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from judgeaudit.audit.surface_ratio import main

    set_dir, corpus_file = real_set
    out = tmp_path / "sanity.json"
    assert (
        main(
            [
                "--judge",
                "distance_nn",
                "--judge",
                "metric_embedding",
                "--judge",
                "concept_set",
                "--dataset",
                str(set_dir),
                "--corpus",
                str(corpus_file),
                "--embedder",
                "tfidf",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert [r["judge"] for r in data["results"]] == [
        "distance_nn",
        "metric_embedding",
        "concept_set",
    ]
    assert all(r["n_ideas"] == 12 and r["embedder"] == "tfidf" for r in data["results"])
    # the same nearest-neighbour distance through both code paths gives the same shifts
    assert data["results"][0]["edits"] == data["results"][1]["edits"]
    assert "| concept_set | tfidf |" in capsys.readouterr().out


# ---- two-stage retrieve-then-judge -------------------------------------------------------------

DIMENSION_REPLY = (
    "problem: 1\ndata: 0\nmethod: {m}\nobjective: 1\nevaluation: 0\nassumptions: 2\nScore: {s}"
)


def test_parse_dimensions_needs_all_six_lines_before_the_score() -> None:
    from judgeaudit.judges.llm.rubric import parse_dimensions

    ok = "Departs mainly in method.\n" + DIMENSION_REPLY.format(m=3, s=2)
    assert parse_dimensions(ok) == {
        "problem": 1,
        "data": 0,
        "method": 3,
        "objective": 1,
        "evaluation": 0,
        "assumptions": 2,
    }
    assert parse_dimensions(ok.replace("data: 0\n", "")) is None  # a dimension missing
    assert parse_dimensions(ok.replace("data: 0", "problem: 0")) is None  # a dimension twice
    assert parse_dimensions(ok.replace("method: 3", "method: 5")) is None
    assert parse_dimensions(ok.replace("Score: 2", "Overall 2")) is None


def test_two_stage_judge_retrieves_by_embedding_and_keeps_dimensions(
    real_set: tuple[Path, Path], tmp_path: Path
) -> None:
    set_dir, corpus_file = real_set
    from judgeaudit.data.samples import load_items

    pairs = load_items(str(set_dir), "pairwise")
    script = {}
    for p in pairs:
        novel, plain = (p.idea_a, p.idea_b) if p.gold == "a" else (p.idea_b, p.idea_a)  # type: ignore[union-attr]
        script[novel.text[:80]] = DIMENSION_REPLY.format(m=4, s=3)
        script[plain.text[:80]] = DIMENSION_REPLY.format(m=1, s=1).replace(
            "data: 0\n", ""
        )  # malformed
    policy = ScriptedRubric(script)
    log = run_scripted(
        rubric_task(
            "pairwise",
            str(set_dir),
            judge="two_stage",
            references="dense",
            embedder="tfidf",
            corpus=str(corpus_file),
            n_references=4,
            resamples=100,
            cache=False,
        ),
        policy,
        tmp_path,
    )
    assert "Closest prior works" in policy.prompts[0] and "assumptions: <0-4>" in policy.prompts[0]
    assert log.samples is not None
    for sample in log.samples:
        meta = unit(log, sample)
        raw = json.loads(meta["calls"][0]["raw"])
        assert meta["judge"] == "two_stage" and meta["retrieved"]["method"] == "dense"
        good = meta["gold"]
        bad = "b" if good == "a" else "a"
        assert (
            raw["sides"][good]["dimensions"]["method"] == 4
            and raw["sides"][bad]["dimensions"] is None
        )
        assert (
            meta["scores"] == {good: [3], bad: [None]} and meta["verdict"] == "invalid"
        )  # never coerced
