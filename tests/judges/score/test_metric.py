"""Metric novelty judges: scores against real prior work, fitted verdict rules, and real Inspect runs (`none` model).

Items are built from real ICLR 2026 abstracts of the bundled corpus (and the bundled
Human-Only set when it exists); the prior-work corpus is a slice of the same corpus that
contains the judged papers themselves, so target exclusion is exercised on real data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.inspect_runs import eval_ok, unit
from helpers.real_items import real_idea, real_pairs, real_points

from judgeaudit.data.contract import Idea, PairItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.score.metric import (
    FitSplit,
    PriorWork,
    char_ngrams,
    fit_threshold,
    fit_tolerance,
    jaccard,
    pair_verdict,
    point_verdict,
    split_items,
)
from judgeaudit.judges.tasks import novelty_metric_pairwise, novelty_metric_pointwise
from judgeaudit.resources import datasets_root
from judgeaudit.retrieval.build_corpus import write_corpus
from judgeaudit.retrieval.corpus import Corpus, load_corpus
from judgeaudit.retrieval.embed import embed_available

SCHEMA_KEYS = {
    "schema",
    "kind",
    "item_id",
    "setup",
    "area",
    "gold",
    "verdict",
    "calls",
    "k",
    "both_orders",
    "split_rule",
    "judge",
    "prompt",
    "idea_format",
    "probe",
    "probe_variant",
    "probe_target",
    "human",
}


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def docs() -> Corpus:
    """The first 400 real submissions of the bundled corpus."""
    return load_corpus().head(400)


@pytest.fixture
def set_and_corpus(tmp_path: Path, docs: Corpus) -> tuple[Path, Path]:
    """A dataset directory of real-abstract items and a corpus file that contains those very papers."""
    d = tmp_path / "real_set"
    write_items(d / "pairwise.jsonl", real_pairs(docs, 16))
    write_items(d / "pointwise.jsonl", real_points(docs, 16))
    corpus_file = tmp_path / "corpus.jsonl.gz"
    write_corpus(list(docs.documents), corpus_file)
    return d, corpus_file


def test_char_ngrams_and_jaccard() -> None:
    assert char_ngrams("Ab, c!", 3) == {"ab ", "b c"}
    assert jaccard({"x", "y"}, {"y", "z"}) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 0.0


def test_verdict_rules_and_fits_on_known_cases() -> None:
    assert pair_verdict(0.5, 0.2, 0.1) == "a" and pair_verdict(0.2, 0.5, 0.1) == "b"
    assert pair_verdict(0.30, 0.25, 0.1) == "tie"
    assert point_verdict(0.5, 0.5) == "novel" and point_verdict(0.49, 0.5) == "not_novel"
    # Big differences are right, small ones are wrong: a tolerance that ties the small ones wins.
    diffs = [0.5, 0.4, -0.45, 0.6, 0.01, -0.02, 0.015, -0.01]
    gold = ["a", "a", "b", "a", "b", "a", "b", "a"]
    tol, soft = fit_tolerance(diffs, gold)
    assert 0.02 <= tol < 0.4 and soft == pytest.approx((4 + 0.5 * 4) / 8)
    # When every difference points the right way, no tolerance is best.
    assert fit_tolerance([0.1, -0.2, 0.05], ["a", "b", "a"]) == (0.0, 1.0)
    thr, f1 = fit_threshold([0.1, 0.2, 0.8, 0.9], ["not_novel", "not_novel", "novel", "novel"])
    assert 0.2 < thr < 0.8 and f1 == 1.0
    with pytest.raises(ValueError, match="empty fit split"):
        fit_threshold([], [])


def test_split_is_seeded_disjoint_and_by_area(docs: Corpus) -> None:
    pairs = real_pairs(docs, 16)
    split = split_items(pairs, seed=1)
    assert (
        split.by == "area"
        and len(split.fit_areas) == 2
        and set(split.fit_areas).isdisjoint(split.scored_areas)
    )
    assert set(split.fit_ids).isdisjoint(split.scored_ids)
    assert set(split.fit_ids) | set(split.scored_ids) == {p.pair_id for p in pairs}
    assert split_items(pairs, seed=1) == split
    assert {split_items(pairs, seed=s).fit_areas for s in range(8)} != {
        split.fit_areas
    }  # the seed matters
    one_area = [PairItem(p.pair_id, p.setup, "x", p.idea_a, p.idea_b, p.gold) for p in pairs]
    assert split_items(one_area, seed=1).by == "item"
    with pytest.raises(ValueError, match="at least 2 items"):
        split_items(pairs[:1])


@pytest.mark.parametrize("judge", ["metric_embedding", "metric_ngram"])
def test_prior_work_never_includes_the_idea_itself(docs: Corpus, judge: str) -> None:
    prior = PriorWork(docs, embedder="tfidf", neighbours=5, use_cache=False)
    doc = docs.documents[5]
    score = prior.score(real_idea(doc, "novel", "x"), judge)
    assert doc.doc_id not in [n["id"] for n in score.neighbours]
    assert score.excluded_target == [doc.doc_id]
    assert 0.0 < score.value <= 1.0 and len(score.neighbours) == 5
    # the same text under a generated id is still recognised (by identical normalised abstract)
    twin = Idea(
        "gen-1", doc.abstract.upper(), "abstract", "generated", "x", "not_novel", generator="m"
    )
    assert doc.doc_id not in [n["id"] for n in prior.score(twin, judge).neighbours]
    # without exclusion the paper would be its own nearest neighbour at distance ~0
    stranger = Idea(
        "gen-2", doc.abstract + " ", "abstract", "generated", "x", "not_novel", title=None
    )
    assert prior.retriever.search(stranger.text, k=1).hits[0].doc.doc_id == doc.doc_id


def test_date_cutoff_limits_prior_work(docs: Corpus) -> None:
    cutoff = sorted(d.cdate for d in docs.documents)[200]
    prior = PriorWork(docs, embedder="tfidf", cutoff=cutoff, neighbours=5, use_cache=False)
    score = prior.score(real_idea(docs.documents[7], "novel", "x"), "metric_ngram")
    dates = {d.doc_id: d.cdate for d in docs.documents}
    assert all(dates[n["id"]] < cutoff for n in score.neighbours)
    early = PriorWork(docs, embedder="tfidf", cutoff="2000-01-01", use_cache=False)
    with pytest.raises(ValueError, match="no prior work left"):
        early.score(real_idea(docs.documents[7], "novel", "x"), "metric_embedding")


@pytest.mark.parametrize("judge", ["metric_embedding", "metric_ngram"])
def test_pairwise_metric_judge_runs_in_inspect_and_writes_the_score_schema(
    set_and_corpus: tuple[Path, Path], tmp_path: Path, judge: str
) -> None:
    set_dir, corpus_file = set_and_corpus
    task = novelty_metric_pairwise(
        dataset=str(set_dir), judge=judge, corpus=str(corpus_file), embedder="tfidf", resamples=200
    )
    log = eval_ok(task, tmp_path)
    rule = log.eval.metadata["judgeaudit"]["metric_rule"]
    split = rule["split"]
    assert split["by"] == "area" and split["n_fit"] == 8 and split["n_scored"] == 8
    assert rule["prior_work"]["embedder"] == "tfidf" and "tolerance" in rule
    assert log.samples is not None and len(log.samples) == 8
    for sample in log.samples:
        score = sample.scores["novelty"]
        meta = unit(log, sample)
        assert meta["area"] in split["scored_areas"]
        assert SCHEMA_KEYS <= set(meta) and meta["judge"] == judge and meta["prompt"] == "none"
        assert len(meta["calls"]) == 1 and meta["k"] == 1 and meta["both_orders"] is False
        raw = json.loads(meta["calls"][0]["raw"])
        expected = pair_verdict(raw["score_a"]["value"], raw["score_b"]["value"], rule["tolerance"])
        assert meta["verdict"] == score.answer == expected
        idea_ids = {
            sample.metadata["item"]["idea_a"]["idea_id"],
            sample.metadata["item"]["idea_b"]["idea_id"],
        }
        neighbour_ids = {
            n["id"] for side in ("score_a", "score_b") for n in raw[side]["neighbours"]
        }
        assert raw["score_a"]["excluded_target"] == [sample.metadata["item"]["idea_a"]["idea_id"]]
        assert not (
            neighbour_ids
            & set(raw["score_a"]["excluded_target"] + raw["score_b"]["excluded_target"])
        )
        assert idea_ids
    names = {m for s in log.results.scores for m in s.metrics}
    assert {"strict_accuracy", "tie_rate"} <= names


def test_pointwise_metric_judge_with_item_split(
    set_and_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    set_dir, corpus_file = set_and_corpus
    task = novelty_metric_pointwise(
        dataset=str(set_dir),
        judge="metric_ngram",
        corpus=str(corpus_file),
        embedder="tfidf",
        fit_by="item",
        fit_seed=7,
        resamples=200,
    )
    log = eval_ok(task, tmp_path)
    rule = log.eval.metadata["judgeaudit"]["metric_rule"]
    fit_ids = set(rule["split"]["fit_ids"])
    assert rule["split"]["by"] == "item" and len(fit_ids) == 8
    assert log.samples is not None and len(log.samples) == 8
    for sample in log.samples:
        assert sample.id not in fit_ids
        meta = unit(log, sample)
        raw = json.loads(meta["calls"][0]["raw"])
        assert meta["verdict"] == point_verdict(raw["score"]["value"], rule["threshold"])
        assert set(raw["score"]["parts"]) == {"semantic", "ngram"}
    assert "macro_f1" in {m for s in log.results.scores for m in s.metrics}


def test_unknown_judge_and_split_are_clear_errors(set_and_corpus: tuple[Path, Path]) -> None:
    set_dir, corpus_file = set_and_corpus
    with pytest.raises(ValueError, match="unknown metric judge"):
        novelty_metric_pairwise(
            dataset=str(set_dir), judge="metric_vibes", corpus=str(corpus_file), embedder="tfidf"
        )
    with pytest.raises(ValueError, match="fit split must be"):
        novelty_metric_pairwise(
            dataset=str(set_dir), corpus=str(corpus_file), embedder="tfidf", fit_by="author"
        )


def test_fit_split_record_is_json_ready() -> None:
    split = FitSplit("item", 3, ("x",), ("y", "z"))
    assert split.to_dict() == {"by": "item", "seed": 3, "n_fit": 1, "n_scored": 2, "fit_ids": ["x"]}


BUNDLED_HUMAN_ONLY = datasets_root() / "iclr2026" / "human_only"


@pytest.mark.slow
@pytest.mark.skipif(
    not (BUNDLED_HUMAN_ONLY / "pairwise.jsonl").is_file(),
    reason="bundled Human-Only set not built yet",
)
def test_metric_judge_on_bundled_human_only_pairs(tmp_path: Path) -> None:
    """The real bundled pairs, against a corpus slice that holds their own papers plus 1,500 others."""
    from judgeaudit.data.jsonl import read_pairs

    pairs = read_pairs(BUNDLED_HUMAN_ONLY / "pairwise.jsonl")
    full = load_corpus()
    own = {i.provenance.forum or i.idea_id for p in pairs for i in (p.idea_a, p.idea_b)}
    keep = own & {d.doc_id for d in full.documents}
    assert keep, "bundled Human-Only ideas should be ICLR 2026 submissions of the corpus"
    corpus_file = tmp_path / "slice.jsonl.gz"
    docs = {d.doc_id: d for d in [*full.subset(keep).documents, *full.documents[:1500]]}
    write_corpus(list(docs.values()), corpus_file)
    log = eval_ok(
        novelty_metric_pairwise(
            dataset=str(BUNDLED_HUMAN_ONLY),
            judge="metric_ngram",
            corpus=str(corpus_file),
            embedder="tfidf",
            resamples=500,
        ),
        tmp_path,
    )
    assert log.samples and all(unit(log, s)["verdict"] in ("a", "b", "tie") for s in log.samples)
    excluded = 0
    for s in log.samples:
        raw = json.loads(s.scores["novelty"].metadata["calls"][0]["raw"])
        for side, key in (("score_a", "idea_a"), ("score_b", "idea_b")):
            idea = s.metadata["item"][key]
            own_id = (idea.get("provenance") or {}).get("forum") or idea["idea_id"]
            assert own_id not in {n["id"] for n in raw[side]["neighbours"]}
            excluded += own_id in raw[side]["excluded_target"]
    assert excluded > 0  # the judged papers were in the corpus and were taken out


@pytest.mark.embed
@pytest.mark.slow
@pytest.mark.skipif(
    not embed_available(), reason="needs the embed extra (sentence-transformers + MiniLM)"
)
def test_minilm_vectors_are_named_in_the_score(docs: Corpus) -> None:
    prior = PriorWork(docs.head(24), embedder="minilm", neighbours=3, use_cache=False)
    score = prior.score(real_idea(docs.documents[3], "novel", "x"), "metric_embedding")
    assert prior.embedder.startswith("minilm-l6-v2") and docs.documents[3].doc_id not in [
        n["id"] for n in score.neighbours
    ]


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_judge_parameter_of_the_main_tasks_dispatches_to_metric_judges(
    set_and_corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """`-T judge=metric_*` on novelty_pairwise/novelty_pointwise runs the metric judge; prompted stays the default."""
    import inspect as pyinspect

    from judgeaudit.judges.score import metric as metric_judges
    from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise

    set_dir, corpus_file = set_and_corpus
    monkeypatch.setattr(metric_judges, "DEFAULT_CORPUS", str(corpus_file))
    monkeypatch.setattr(metric_judges, "DEFAULT_EMBEDDER", "tfidf")
    make = novelty_pairwise if kind == "pairwise" else novelty_pointwise
    assert pyinspect.signature(make).parameters["judge"].default == "prompted"
    log = eval_ok(make(dataset=str(set_dir), judge="metric_embedding", resamples=100), tmp_path)
    assert log.eval.metadata["judgeaudit"]["judge"] == "metric_embedding"
    assert log.samples and {unit(log, s)["judge"] for s in log.samples} == {"metric_embedding"}
    with pytest.raises(ValueError, match="unknown judge .metric_vibes.; choose one of: prompted"):
        make(dataset=str(set_dir), judge="metric_vibes")


def test_metric_judge_rejects_prompt_options_it_cannot_honour(set_and_corpus, monkeypatch) -> None:
    """`-T judge=metric_embedding -T prompt=p1_no_guardrails` must fail, not silently ignore the prompt."""
    from judgeaudit.judges.score import metric as metric_judges
    from judgeaudit.judges.tasks import novelty_pairwise

    set_dir, corpus_file = set_and_corpus
    monkeypatch.setattr(metric_judges, "DEFAULT_CORPUS", str(corpus_file))
    with pytest.raises(ValueError, match="cannot honour prompt"):
        novelty_pairwise(dataset=str(set_dir), judge="metric_embedding", prompt="p1_no_guardrails")
    with pytest.raises(ValueError, match="cannot honour both_orders, k"):
        novelty_pairwise(dataset=str(set_dir), judge="metric_embedding", k=3, both_orders=True)
