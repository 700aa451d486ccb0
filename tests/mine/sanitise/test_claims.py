"""The evaluation-claim detector on labelled cases, and the sanitiser's grammatical repair.

The labelled cases in tests/fixtures/claim_cases/ were written by an author who had not read the
detector (see its README). Rules were tuned while reading the "tune" half only; the "held-out"
half (every other source id in the order of their SHA-256, fixed before tuning) was never read,
so its floors are the out-of-sample figures.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from judgeaudit.data.jsonl import read_points
from judgeaudit.mine.sanitise.claims import (
    describe_without_sota,
    evaluation_claims,
    evaluation_reason,
)
from judgeaudit.mine.sanitise.sanitisers import RuleSanitiser
from judgeaudit.stats.metrics import precision, recall

ROOT = Path(__file__).resolve().parents[3]
CASES = ROOT / "tests" / "fixtures" / "claim_cases"
BUNDLED = ROOT / "datasets" / "iclr2026" / "human_only" / "pointwise.jsonl"

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
    # worded without the usual cues
    "Consistent gains are observed for every model size we tried.",
    "We will open-source the training recipes.",
    "We find that the learned router rarely uses more than two experts.",
    "The improvements carry over to unseen languages.",
    "Our results indicate that the probe is reliable.",
]
IDEAS = [
    "We propose a contrastive objective that aligns video and text.",
    "We prove that the estimator is consistent under mild assumptions.",
    "Parking is a major cause of congestion, with up to 40% of traffic caused by drivers searching for spaces.",
    "Even with many parameters, contemporary optimization algorithms achieve only suboptimal performance.",
    "We introduce a benchmark of 1,200 questions that require multi-step reasoning over tables.",
    "The attention layer costs O(n^2) time in the sequence length.",
    # evaluation, benchmarks and results as the topic (motivation), not this work's results
    "To ensure comprehensive evaluation, current practices often involve curating task-specific benchmark datasets.",
    "Vision Transformers (ViTs) achieve state-of-the-art results, yet their quadratic self-attention is inefficient.",
    "Recent work has shown that rational activations can substantially improve network expressiveness.",
    "Hybrid state-space models have emerged as promising alternatives to Transformers, offering competitive performance.",
    "Our contributions are twofold.",
    "In long-video synthesis, attention alone accounts for more than 80% of the latency, which severely restricts use.",
    "We prove that the method attains the optimal convergence rate of O(1/sqrt(T)) under mild assumptions.",
    "We introduce a comprehensive evaluation framework for audio language models.",
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
    out = RuleSanitiser().sanitise(
        "We propose a sparse mixture of low-rank experts for long inputs, which outperforms "
        "dense baselines by 12%. We analyse its memory cost."
    )
    assert (
        out.text
        == "We propose a sparse mixture of low-rank experts for long inputs. We analyse its memory cost."
    )
    assert evaluation_claims(out.text) == []


def test_no_orphaned_connective_or_announcement_is_left() -> None:
    abstract = (
        "We study contrastive learning with quantum kernels. We report three findings. "
        "First, a classical head matches or outperforms quantum heads by 3%. "
        "Second, quantum kernels cost 10x more time. Third, results show no benefit on STL-10. "
        "Moreover, we describe a simulator design for batching circuits."
    )
    out = RuleSanitiser().sanitise(abstract)
    assert (
        out.text
        == "We study contrastive learning with quantum kernels. We describe a simulator design for batching circuits."
    )
    assert ("We report three findings.", "announces removed findings") in out.removed
    assert evaluation_claims(out.text) == []


def test_ordinals_of_a_broken_enumeration_are_dropped() -> None:
    abstract = (
        "We propose two components. First, a router that selects experts per token. "
        "Second, it improves accuracy by 4% on GLUE. Third, a cache that reuses expert outputs."
    )
    out = RuleSanitiser().sanitise(abstract)
    assert out.text == (
        "We propose two components. A router that selects experts per token. "
        "A cache that reuses expert outputs."
    )


def test_the_bundled_human_only_abstracts_as_mined_hold_no_evaluation_claim() -> None:
    # What `judgeaudit mine` writes for the bundled set: the rule sanitiser over each idea's original abstract.
    ideas = [p.idea for p in read_points(BUNDLED)]
    found = {
        i.idea_id: evaluation_claims(RuleSanitiser().sanitise(i.original_text).text)
        for i in ideas
        if i.original_text
    }
    assert {k: v for k, v in found.items() if v} == {}
    assert len(found) > 100


def test_the_bundled_human_only_abstracts_as_stored_hold_no_evaluation_claim() -> None:
    ideas = [p.idea for p in read_points(BUNDLED)]
    stale = sum(
        1
        for i in ideas
        if i.original_text and RuleSanitiser().sanitise(i.original_text).text != i.text
    )
    if stale:
        pytest.skip(
            f"{stale} bundled ideas predate this sanitiser (their text differs from a re-sanitise): re-mine the set"
        )
    found = {i.idea_id: evaluation_claims(i.text) for i in ideas}
    assert {k: v for k, v in found.items() if v} == {}


RED_TEAMING_ABSTRACT = (  # ICLR 2026 submission 10gpXxro8z, verbatim (OpenReview, CC BY 4.0)
    "Safety evaluation of large language models (LLMs) has emerged as a critical re-\n"
    "search frontier. To ensure comprehensive evaluation, current practices often in-\n"
    "volve curating task-specific benchmark datasets tailored to distinct application\n"
    "scenarios. However, such dataset-centric approaches suffer from two fundamental\n"
    "limitations: poor transferability across domains and temporal obsolescence due\n"
    "to the evolving nature of LLMs. To overcome these limitations, an intuitive idea\n"
    "is to leverage off-the-shelf LLMs as red teams. Yet, a pivotal question remains\n"
    "under-explored: Can off-the-shelf LLMs conduct autonomous and effective secu-\n"
    "rity evaluations without specialized red team training? Motivated by this question,\n"
    "we further raise the bar by focusing on multi-round jailbreaking attacks, which de-\n"
    "mand deeper strategic reasoning and intent concealment compared to single-round\n"
    "adversarial prompts. Unlike traditional red team evaluation methods for LLMs,\n"
    "which focus on assessing the robustness and security of these models, Our method\n"
    "aims to leverage the inherent capabilities of off-the-shelf LLMs to evaluate their\n"
    "potential for cross-scenario transfer and iterative evolution over time during red\n"
    "team testing. Specifically, we evaluate the red-teaming capabilities of six off-the-\n"
    "shelf LLMs across five major and ten secondary harmful categories. Experimental\n"
    "results indicate that these models exhibit non-trivial proficiency in performing ef-\n"
    "fective multi-turn attacks, often employing known jailbreaking techniques such\n"
    "as role-playing, indirect prompting, and semantic decomposition. Nevertheless,\n"
    "significant limitations persist. Based on our findings, we discuss actionable direc-\n"
    "tions for enhancing the effectiveness of red-team LLMs, as well as implications\n"
    "for strengthening the robustness of victim models."
)


def test_context_about_evaluation_practice_is_kept_and_nothing_dangles() -> None:
    # Submission 10gpXxro8z (a bundled idea of an earlier set): the sentence about current evaluation practice is
    # the antecedent of "such dataset-centric approaches"; the results and what qualifies them go.
    out = RuleSanitiser().sanitise(RED_TEAMING_ABSTRACT).text
    assert "To ensure comprehensive evaluation, current practices often involve curating" in out
    assert "However, such dataset-centric approaches suffer" in out
    assert "Experimental results indicate" not in out and "limitations persist" not in out
    assert "Based on our findings" not in out and "We discuss actionable directions" in out
    assert evaluation_claims(out) == []


@pytest.mark.parametrize(
    "abstract, expected",
    [
        # "Such X" whose antecedent was removed generalises; "This ..." pointing at a removed sentence goes
        (
            "We study sparse routing for mixtures of experts. Our router outperforms dense baselines by 12% on GLUE. "
            "Such token-level routers are also cheap to train.",
            "We study sparse routing for mixtures of experts. Token-level routers are also cheap to train.",
        ),
        (
            "We study sparse routing for mixtures of experts. Our router outperforms dense baselines by 12% on GLUE. "
            "This enables deployment on a single GPU.",
            "We study sparse routing for mixtures of experts.",
        ),
        # ... but one whose antecedent is still there stays
        (
            "We propose a sparse router for mixtures of experts. Our router outperforms dense baselines by 12% on GLUE. "
            "This router is also cheap to train.",
            "We propose a sparse router for mixtures of experts. This router is also cheap to train.",
        ),
        # a connective after a kept sentence stays; after a removed one it goes, or with a contrast the sentence goes
        (
            "We study sparse routing. Nevertheless, routing collapse remains a problem. Moreover, we add a load-balancing loss.",
            "We study sparse routing. Nevertheless, routing collapse remains a problem. Moreover, we add a load-balancing loss.",
        ),
        (
            "We study sparse routing. It outperforms dense baselines by 12%. Moreover, we add a load-balancing loss.",
            "We study sparse routing. We add a load-balancing loss.",
        ),
        (
            "We study sparse routing. It outperforms dense baselines by 12%. However, the gap shrinks at scale.",
            "We study sparse routing.",
        ),
        # the items of a removed list of findings go with it
        (
            "We probe how reasoning models use their budget. Our analysis reveals three findings: first, longer traces "
            "help only on hard problems. Second, most of the budget is spent on verification. Third, errors concentrate "
            "in the first steps. We release a toolkit for such probes.",
            "We probe how reasoning models use their budget.",
        ),
    ],
)
def test_repair_leaves_no_dangling_reference(abstract: str, expected: str) -> None:
    out = RuleSanitiser().sanitise(abstract)
    assert out.text == expected
    assert evaluation_claims(out.text) == []


# ---- the independent labelled cases: precision / recall of "claim", tune half and held-out half ----


def _halves(keys: Iterable[str]) -> dict[str, str]:
    """Each group key -> "tune" or "held_out": keys sorted by SHA-256, alternately (balanced and blind)."""
    order = sorted(set(keys), key=lambda k: hashlib.sha256(k.encode()).hexdigest())
    return {k: "tune" if i % 2 == 0 else "held_out" for i, k in enumerate(order)}


def _scores(pairs: list[tuple[bool, bool]]) -> dict[str, float]:
    """(gold is a claim, predicted a claim) pairs -> precision and recall of both labels."""
    gold = np.array([g for g, _ in pairs])
    pred = np.array([p for _, p in pairs])
    out = {}
    for name, g, p in (("claim", gold, pred), ("keep", ~gold, ~pred)):
        tp = int((g & p).sum())
        out[f"{name}_precision"] = float(precision(tp, int(p.sum())))
        out[f"{name}_recall"] = float(recall(tp, int(g.sum())))
    return out


def _read(name: str) -> list[dict]:
    return [
        json.loads(line)
        for line in (CASES / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _sentence_scores() -> dict[str, dict[str, float]]:
    rows = _read("sentences.jsonl")
    key = [r["source"] if r["source"] != "written" else r["sentence"] for r in rows]
    side = _halves(key)
    pairs: dict[str, list[tuple[bool, bool]]] = {"tune": [], "held_out": []}
    for r, k in zip(rows, key, strict=True):
        pairs[side[k]].append((r["label"] == "claim", evaluation_reason(r["sentence"]) is not None))
    return {h: _scores(v) for h, v in pairs.items()}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _sanitised_abstract_scores() -> dict[str, dict[str, float]]:
    """Per labelled sentence of the whole abstracts: did the sanitiser take it out (removed, or cut to a head)?"""
    rows = _read("abstracts.jsonl")
    side = _halves(r["source"] for r in rows)
    pairs: dict[str, list[tuple[bool, bool]]] = {"tune": [], "held_out": []}
    for r in rows:
        out = RuleSanitiser().sanitise(r["abstract"])
        removed = [_norm(s) for s, _ in out.removed]
        cut = [(_norm(o), _norm(n)) for o, n in out.rewritten if len(n) < 0.8 * len(o)]
        for s in r["sentences"]:
            t = _norm(s["text"])
            gone = any(t in x or x in t for x in removed) or any(t in o or o in t for o, _ in cut)
            pairs[side[r["source"]]].append((s["label"] == "claim", gone))
    return {h: _scores(v) for h, v in pairs.items()}


# Floors a little under the figures measured on this version (see the report of the change that added them);
# the base detector had held-out claim recall 0.57 on the sentences and 0.71 on the abstracts.
SENTENCE_FLOORS = {
    "tune": {
        "claim_precision": 0.95,
        "claim_recall": 0.95,
        "keep_precision": 0.95,
        "keep_recall": 0.95,
    },
    "held_out": {
        "claim_precision": 0.85,
        "claim_recall": 0.73,
        "keep_precision": 0.79,
        "keep_recall": 0.90,
    },
}
ABSTRACT_FLOORS = {
    "tune": {
        "claim_precision": 0.95,
        "claim_recall": 0.93,
        "keep_precision": 0.95,
        "keep_recall": 0.97,
    },
    "held_out": {
        "claim_precision": 0.72,
        "claim_recall": 0.73,
        "keep_precision": 0.88,
        "keep_recall": 0.88,
    },
}


def test_the_labelled_cases_split_into_two_even_halves() -> None:
    rows = _read("sentences.jsonl")
    side = _halves(r["source"] if r["source"] != "written" else r["sentence"] for r in rows)
    counts = {h: sum(1 for v in side.values() if v == h) for h in ("tune", "held_out")}
    assert abs(counts["tune"] - counts["held_out"]) <= 1
    assert {r["label"] for r in rows} == {"claim", "keep"} and len(rows) > 300


@pytest.mark.parametrize("half", ["tune", "held_out"])
def test_detector_meets_its_floors_on_the_labelled_sentences(half: str) -> None:
    got = _sentence_scores()[half]
    assert {k: v for k, v in got.items() if v < SENTENCE_FLOORS[half][k]} == {}, got


@pytest.mark.parametrize("half", ["tune", "held_out"])
def test_sanitiser_meets_its_floors_on_the_labelled_abstracts(half: str) -> None:
    got = _sanitised_abstract_scores()[half]
    assert {k: v for k, v in got.items() if v < ABSTRACT_FLOORS[half][k]} == {}, got
