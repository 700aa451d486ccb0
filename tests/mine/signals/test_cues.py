"""Novelty-signal extraction: offline cue rules (negation, scope, hedges, contrast) and the LLM extractor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.mine.parse import Review
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE
from judgeaudit.mine.signals.cues import OfflineExtractor, classify, classify_sentence
from judgeaudit.mine.signals.llm_extractor import LLMExtractor
from judgeaudit.mine.signals.sentences import occurs_verbatim, quotes_overlap, split_sentences

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

CASES = [
    # plain statements
    ("The proposed approach is novel.", AFFIRM),
    ("The work is highly original.", AFFIRM),
    (
        "To my knowledge, this is the first work to study reward hacking in diffusion models.",
        AFFIRM,
    ),
    ("It offers a fresh perspective on the problem.", AFFIRM),
    ("The paper fills a long-standing gap in the theory of X.", AFFIRM),
    ("The novelty is limited.", DISPUTE),
    ("Limited novelty.", DISPUTE),
    ("**Lack of novelty**: the method mirrors [3].", DISPUTE),
    ("The contribution is incremental.", DISPUTE),
    ("This has been done before in [12].", DISPUTE),
    ("The novelty of the method is unclear.", DISPUTE),
    ("The method is a straightforward combination of existing techniques.", DISPUTE),
    ("Similar ideas have already been explored in prior work.", DISPUTE),
    ("What is new compared to LoRA?", DISPUTE),
    # negation
    ("The idea is not novel.", DISPUTE),
    ("The idea isn't particularly new.", DISPUTE),
    ("The paper does not offer any conceptually novel techniques.", DISPUTE),
    (
        "In terms of novelty, it feels more like a solid systems integration than a conceptual leap.",
        DISPUTE,
    ),
    ("This is not the first work on this problem.", DISPUTE),
    ("This is not just an incremental improvement; it changes how we think about X.", AFFIRM),
    ("It scales without sacrificing novelty of the generated molecules.", None),
    # scope: "novel"/"original"/"first" about other things
    ("The model generalizes to novel classes at test time.", None),
    ("Novel view synthesis quality is good.", None),
    ("We compare against the original implementation.", None),
    ("First, the experiments are limited.", None),
    ("The performance gain is incremental on harder datasets.", None),
    (
        "The paper does not test generalization to out-of-distribution prompts or novel value conflicts.",
        None,
    ),
    ("Evaluation on the dataset just reveals which existing methods work or not.", None),
    (
        '[3] Sinii et al. "Steering LLM Reasoning Through Bias-Only Adaptation." arXiv preprint (2025).',
        None,
    ),
    ("While the combination is novel, individual components are relatively incremental.", DISPUTE),
    ("Previous works have not addressed this problem.", AFFIRM),
    ("Limited contributions: the paper does not introduce any new technique.", DISPUTE),
    # claims and requests are not the reviewer's own statement
    ("The authors claim their method is novel.", None),
    ('They write: "this is the first attempt to do X".', None),
    ("Please explain why this is a novel contribution.", None),
    (
        "I do not question that they are the first to do this, but I wonder whether it matters.",
        None,
    ),
    ("All my questions are already discussed in the Weaknesses section.", None),
    ("The framing is exaggerated, for example describing the work as a ‘paradigm shift’.", None),
    ("A comparison table showing how the method differs from existing datasets is missing.", None),
    # contrast: the main clause decides
    (
        "Although reconstructing occluded geometry is not a new concept, applying it to depth completion is novel.",
        AFFIRM,
    ),
    ("The idea is novel, but the experiments are weak.", AFFIRM),
    ("The paper is well written but the idea is not novel.", DISPUTE),
    ("Despite its clear motivation, the paper's novelty is minimal.", DISPUTE),
    (
        "While the combination is not entirely new, the paper demonstrates novelty through its theory.",
        AFFIRM,
    ),
]


@pytest.mark.parametrize("sentence, expected", CASES)
def test_offline_rules(sentence: str, expected: str | None) -> None:
    assert classify_sentence(sentence) == expected


@pytest.mark.parametrize(
    "sentence", ["The method is somewhat novel.", "The authors introduce a new benchmark for X."]
)
def test_hedged_or_descriptive_affirmations_are_weak(sentence: str) -> None:
    assert classify(sentence) == (AFFIRM, True)
    assert classify("The method is novel.") == (AFFIRM, False)


def test_reference_excerpt_regression() -> None:
    """Passages the reference extractor kept (tests/fixtures/reference_dev_excerpt.jsonl).

    The cue lists were written while reading the dev split these passages come from, so this is a
    regression guard, not an unbiased quality figure (that is the calibration in the dataset card).
    """
    rows = [
        json.loads(line)
        for line in (FIXTURES / "reference_dev_excerpt.jsonl").read_text().splitlines()
    ]
    hit = wrong_only = 0
    for row in rows:
        found = {p for s in split_sentences(row["passage"]) if (c := classify(s)) for p in [c[0]]}
        hit += row["polarity"] in found
        wrong_only += bool(found) and row["polarity"] not in found
    assert wrong_only == 0
    assert hit >= 0.9 * len(rows)


def make_review(
    strengths: str, weaknesses: str = "", summary: str = "The authors propose a novel method."
) -> Review:
    texts = tuple(
        (k, v)
        for k, v in (("summary", summary), ("strengths", strengths), ("weaknesses", weaknesses))
        if v
    )
    return Review(review_id="R1", forum="F1", rating=6.0, contribution=3.0, texts=texts, mdate=0)


def test_offline_extractor_quotes_are_verbatim_and_skip_the_summary() -> None:
    review = make_review(
        "1. The idea is novel.\n2. Clear writing.", "- The novelty over [3] is limited. Typos."
    )
    sig = OfflineExtractor().extract(review)
    assert [(s.polarity, s.quote, s.field) for s in sig.signals] == [
        (AFFIRM, "The idea is novel.", "strengths"),
        (DISPUTE, "The novelty over [3] is limited.", "weaknesses"),
    ]
    for s in sig.signals:
        assert s.quote in dict(review.texts)[s.field]
    assert sig.affirms and sig.disputes


def test_matching_rule() -> None:
    assert quotes_overlap("The idea is **novel**.", "the idea is novel.")
    assert quotes_overlap(
        "The idea is novel and timely.", "Overall, the idea is novel and timely, well done."
    )
    assert not quotes_overlap("The idea is novel.", "The experiments are weak.")
    assert occurs_verbatim("idea   is novel", "The idea is novel.")


# --- LLM extractor -------------------------------------------------------------------------------
# litellm's `mock_response` stands in for a hosted model (unreachable here): litellm runs its real
# request/response path and returns the scripted text instead of calling a provider.


def llm_extractor(tmp_path: Path, answer: str, **kw: object) -> LLMExtractor:
    return LLMExtractor(
        "openai/gpt-4o-mini", tmp_path / "cache", completion_kwargs={"mock_response": answer}, **kw
    )  # type: ignore[arg-type]


def test_llm_quotes_are_checked_and_dropped_when_not_verbatim(tmp_path: Path) -> None:
    answer = json.dumps(
        {
            "affirmations": ["The idea is novel.", "Clear writing"],
            "disputes": [
                "The novelty over  [3] is limited",
                "The method was done before by Smith.",
            ],
        }
    )  # the last is not in the review
    ex = llm_extractor(tmp_path, answer)
    sig = ex.extract(
        make_review("The idea is novel. Clear writing.", "The novelty over [3] is limited.")
    )
    assert [(s.polarity, s.field, s.weak) for s in sig.signals] == [
        (AFFIRM, "strengths", False),
        (AFFIRM, "strengths", False),
        (DISPUTE, "weaknesses", False),
    ]
    assert sig.dropped_quotes == 1 and ex.dropped_total == 1
    assert ex.name == "litellm/openai/gpt-4o-mini"


def test_llm_answers_are_cached_so_a_rerun_makes_no_call(tmp_path: Path) -> None:
    answer = json.dumps({"affirmations": ["The idea is novel."], "disputes": []})
    review = make_review("The idea is novel.")
    first = llm_extractor(tmp_path, answer)
    a = first.extract(review)
    assert (first.llm.calls, first.llm.cache_hits) == (1, 0)
    second = llm_extractor(tmp_path, answer)
    b = second.extract(review)
    assert (second.llm.calls, second.llm.cache_hits) == (0, 1)
    assert a == b


def test_llm_prefilter_skips_reviews_without_cues(tmp_path: Path) -> None:
    ex = llm_extractor(tmp_path, '{"affirmations": [], "disputes": []}')
    sig = ex.extract(make_review("Clear writing. Good figures.", "Typos in Sec. 3."))
    assert sig.signals == () and ex.llm.calls == 0


@pytest.mark.parametrize(
    "answer",
    [
        "not json at all",
        '{"affirmations": "none", "disputes": []}',
        '{"affirmations": [{"quote": "x"}], "disputes": []}',
        '{"disputes": ["x"]}',
    ],
)
def test_llm_bad_answers_mark_the_review_failed(tmp_path: Path, answer: str) -> None:
    sig = llm_extractor(tmp_path, answer).extract(make_review("The idea is novel."))
    assert sig.failed and sig.signals == ()
