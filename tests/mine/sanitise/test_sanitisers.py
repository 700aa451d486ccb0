"""Abstract sanitising on real ICLR 2026 abstracts from the fixture, offline rules and the LLM pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.mine.pipeline import load_corpus
from judgeaudit.mine.sanitise.claims import evaluation_claims
from judgeaudit.mine.sanitise.sanitisers import (
    LLMSanitiser,
    RuleSanitiser,
    evaluation_reason,
    normalise_layout,
    split_abstract,
)
from judgeaudit.mine.summary import RunSummary

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "openreview_small"


@pytest.fixture(scope="module")
def abstracts() -> dict[str, str]:
    corpus = load_corpus(FIXTURE, RunSummary())
    return {f: s.abstract for f, s in corpus.submissions.items()}


def test_results_and_sota_claims_are_removed_from_a_real_abstract(
    abstracts: dict[str, str],
) -> None:
    original = abstracts["0u1LigJaab"]
    out = RuleSanitiser().sanitise(original)
    assert out.original == original and out.changed
    assert "state-of-the-art" in original and "state-of-the-art" not in out.text
    assert "FID" in original and "FID" not in out.text
    assert "faster convergence" not in out.text
    # the idea survives: the first sentences (problem and proposal) are kept verbatim
    first = split_abstract(original)[0]
    assert out.text.startswith(first)
    for sentence, reason in out.removed:
        assert sentence in normalise_layout(original) and reason


def test_experiments_show_sentences_go_and_method_sentences_stay(abstracts: dict[str, str]) -> None:
    original = abstracts["5aYGpjJ8WY"]
    out = RuleSanitiser().sanitise(original)
    assert any(s.startswith("Experimental results demonstrate") for s, _ in out.removed)
    assert "reinforcement learning to dynamically explore" in out.text


def test_a_theory_abstract_keeps_its_theorems(abstracts: dict[str, str]) -> None:
    original = abstracts["4sDszSYKP6"]
    out = RuleSanitiser().sanitise(original)
    assert "converges linearly" in out.text


def test_every_fixture_abstract_keeps_text_drops_or_rewrites_whole_sentences_and_ends_clean(
    abstracts: dict[str, str],
) -> None:
    changed = 0
    for original in abstracts.values():
        out = RuleSanitiser().sanitise(original)
        assert out.text.strip()
        kept = split_abstract(out.text)
        rewritten = {new for _, new in out.rewritten}
        assert all(s in normalise_layout(original) or s in rewritten for s in kept)
        assert len(kept) + len(out.removed) == len(split_abstract(original))
        assert evaluation_claims(out.text) == []
        changed += out.changed
    assert changed >= len(abstracts) // 2


@pytest.mark.parametrize(
    "sentence, reason",
    [
        ("Our method improves accuracy by 4.2% on ImageNet.", "number with a unit of gain"),
        ("It achieves state-of-the-art results on three benchmarks.", "state-of-the-art claim"),
        ("It outperforms strong baselines.", "comparison with baselines"),
        (
            "Extensive experiments demonstrate the effectiveness of our approach.",
            "experiments show",
        ),
        ("Code is available at https://github.com/x/y.", "release statement"),
        ("The code will be released upon acceptance.", "release statement"),
        ("We propose a contrastive objective that aligns video and text.", None),
        (
            "Parking is a major cause of congestion, with up to 40% of traffic caused by drivers searching for spaces.",
            None,
        ),
        # this work's own evaluation set-up is evaluation information (the labelled cases' specification)
        (
            "In this work, we benchmark several state-of-the-art LLMs and compare them with a domain expert.",
            "evaluation setup",
        ),
        (
            "Even with many parameters, contemporary optimization algorithms achieve only suboptimal performance.",
            None,
        ),
        ("Our method sets a new state of the art on COCO.", "state-of-the-art claim"),
        ("It is 3x faster than the baseline.", "number with a unit of gain"),
        ("We prove that the estimator is consistent.", None),
    ],
)
def test_rules(sentence: str, reason: str | None) -> None:
    assert evaluation_reason(sentence) == reason


def test_hard_wrapped_abstracts_are_rejoined() -> None:
    original = (
        "Safety evaluation has emerged as a critical re-\nsearch frontier. Current practices often in-\n"
        "volve curating benchmarks.\nOur method outperforms them by 5%.\n\nA second paragraph."
    )
    out = RuleSanitiser().sanitise(original)
    assert out.original == original
    assert out.text == (
        "Safety evaluation has emerged as a critical research frontier. Current practices often "
        "involve curating benchmarks.\nA second paragraph."
    )


def test_never_empties_an_abstract() -> None:
    out = RuleSanitiser().sanitise(
        "It outperforms baselines by 10%. Code is available at https://x.y."
    )
    assert out.text == "It outperforms baselines by 10%."


# litellm's `mock_response` stands in for a hosted model (unreachable here).
def test_llm_sanitiser_removes_only_the_sentences_it_names(
    tmp_path: Path, abstracts: dict[str, str]
) -> None:
    original = abstracts["4sDszSYKP6"]
    sentences = split_abstract(original)
    llm = LLMSanitiser(
        "openai/gpt-4o-mini",
        tmp_path,
        completion_kwargs={"mock_response": json.dumps({"remove": [2]})},
    )
    out = llm.sanitise(original)
    assert out.error is None
    assert out.text == " ".join(s for i, s in enumerate(sentences) if i != 1)
    assert out.removed == ((sentences[1], "llm"),)


@pytest.mark.parametrize("answer", ['{"remove": [99]}', '{"keep": [1]}', "no json"])
def test_llm_sanitiser_bad_answer_falls_back_to_rules_and_says_so(
    tmp_path: Path, answer: str
) -> None:
    original = "We propose X. It outperforms Y by 5%."
    out = LLMSanitiser(
        "openai/gpt-4o-mini", tmp_path, completion_kwargs={"mock_response": answer}
    ).sanitise(original)
    assert out.error
    assert out.text == "We propose X."
