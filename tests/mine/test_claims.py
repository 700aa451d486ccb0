"""The evaluation-claim detector on labelled cases, and the sanitiser's grammatical repair."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.data.jsonl import read_points
from judgeaudit.mine.claims import describe_without_sota, evaluation_claims, evaluation_reason
from judgeaudit.mine.sanitise import RuleSanitiser

CLAIMS = [
    # the cases the issue found in "cleaned" bundled abstracts
    "DiskHIVF achieves several hundred times memory savings, and 10–30$\\times$ reduction compared to state-of-the-art methods.",
    "Our model outperforms the strongest baseline by 5.79% on average.",
    "It reduces inference latency by up to $44$\\% compared to equivalent MHSA implementations.",
    "On standard KGQA benchmarks, MobileKGQA demonstrates performance that is indistinguishable from the SOTA.",
    "We evaluate CheckWate on four datasets and four graph modification attacks.",
    "Our framework enables open-source models like Qwen3-30B to match the performance of GPT-4.",
    "Extensive experiments show that our method is robust.",
    "Results on ImageNet show a 3.2 point gain in top-1 accuracy.",
    "The method sets a new state of the art on COCO.",
    "Code is available at https://github.com/x/y.",
    "Evaluated across 12 benchmarks, the approach is consistently better than prior methods.",
]
IDEAS = [
    "We propose a contrastive objective that aligns video and text.",
    "We prove that the estimator is consistent under mild assumptions.",
    "Parking is a major cause of congestion, with up to 40% of traffic caused by drivers searching for spaces.",
    "Even with many parameters, contemporary optimization algorithms achieve only suboptimal performance.",
    "We introduce a benchmark of 1,200 questions that require multi-step reasoning over tables.",
    "The attention layer costs O(n^2) time in the sequence length.",
]


@pytest.mark.parametrize("sentence", CLAIMS)
def test_claims_are_found(sentence: str) -> None:
    assert evaluation_reason(sentence) is not None


@pytest.mark.parametrize("sentence", IDEAS)
def test_idea_statements_are_not_claims(sentence: str) -> None:
    assert evaluation_reason(sentence) is None


def test_a_descriptive_state_of_the_art_is_rewritten_and_still_detected_before() -> None:
    sentence = "We study why state-of-the-art detectors miss small objects."
    assert evaluation_reason(sentence) is None
    assert evaluation_claims(sentence) == [(sentence, "state-of-the-art mention")]
    assert describe_without_sota(sentence) == "We study why leading detectors miss small objects."


def test_a_claim_clause_is_cut_and_the_idea_kept() -> None:
    out = RuleSanitiser().sanitise("We propose a sparse mixture of low-rank experts for long inputs, which outperforms "
                                   "dense baselines by 12%. We analyse its memory cost.")
    assert out.text == "We propose a sparse mixture of low-rank experts for long inputs. We analyse its memory cost."
    assert evaluation_claims(out.text) == []


def test_no_orphaned_connective_or_announcement_is_left() -> None:
    abstract = ("We study contrastive learning with quantum kernels. We report three findings. "
                "First, a classical head matches or outperforms quantum heads by 3%. "
                "Second, quantum kernels cost 10x more time. Third, results show no benefit on STL-10. "
                "Moreover, we describe a simulator design for batching circuits.")
    out = RuleSanitiser().sanitise(abstract)
    assert out.text == "We study contrastive learning with quantum kernels. We describe a simulator design for batching circuits."
    assert ("We report three findings.", "announces removed findings") in out.removed
    assert evaluation_claims(out.text) == []


def test_ordinals_of_a_broken_enumeration_are_dropped() -> None:
    abstract = ("We propose two components. First, a router that selects experts per token. "
                "Second, it improves accuracy by 4% on GLUE. Third, a cache that reuses expert outputs.")
    out = RuleSanitiser().sanitise(abstract)
    assert out.text == ("We propose two components. A router that selects experts per token. "
                        "A cache that reuses expert outputs.")


def test_the_bundled_human_only_abstracts_hold_no_evaluation_claim() -> None:
    bundled = Path(__file__).resolve().parents[2] / "datasets" / "iclr2026" / "human_only" / "pointwise.jsonl"
    found = {p.item_id: evaluation_claims(p.idea.text) for p in read_points(bundled)}
    assert {k: v for k, v in found.items() if v} == {}
    assert len(found) > 100
