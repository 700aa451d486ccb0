"""Retrieval-augmented prompted judge (`-T retrieval=k`): real Inspect runs over a small real-format corpus.

Hosted LLMs are unreachable here, so the judge is Inspect's `mockllm/model` driven by a callable
that reads each prompt (a stand-in for a real LLM); the retriever, the BM25 index, the task,
scorer and log are the real ones.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import run_scripted as run
from helpers.inspect_runs import score_meta
from helpers.real_items import (
    GRAPH,
    SPEECH,
)
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage

from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise

HEADER = re.compile(r"Related papers found by a literature search for (Idea A|Idea B|the idea)")


def blocks(prompt: str) -> dict[str, list[str]]:
    """Retrieved ids listed under each related-work header of a prompt, by shown label."""
    out: dict[str, list[str]] = {}
    parts = HEADER.split(prompt)
    for label, body in zip(parts[1::2], parts[2::2], strict=True):
        out[label] = re.findall(r"^\[([\w-]+)\] ", body, re.M)
    return out


class Judge:
    """mockllm callable: records prompts; picks the graph idea wherever it is shown (pointwise: NOT NOVEL)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(
        self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        text = input[-1].text
        self.prompts.append(text)
        if "Idea A:" in text:
            answer = "Verdict: A" if text.index(GRAPH) < text.index(SPEECH) else "Verdict: B"
        else:
            answer = "Verdict: NOT NOVEL"
        out = ModelOutput.from_content("mockllm/model", answer)
        out.usage = ModelUsage(
            input_tokens=len(text) // 4, output_tokens=3, total_tokens=len(text) // 4 + 3
        )
        return out


def test_pairwise_block_precedes_ideas_honours_k_cutoff_and_excludes_targets(
    search_set: dict[str, str], tmp_path: Path
) -> None:
    judge = Judge()
    log = run(
        novelty_pairwise(
            dataset=search_set["dataset"],
            retrieval=2,
            retrieval_corpus=search_set["corpus"],
            both_orders=True,
            cache=False,
        ),
        judge,
        tmp_path,
    )
    assert len(judge.prompts) == 2
    ab, ba = sorted(
        judge.prompts, key=lambda p: p.index(GRAPH) > p.index(SPEECH)
    )  # ab shows GRAPH first
    for prompt in (ab, ba):
        assert prompt.index("Related papers found") < prompt.index("Idea A:\n")
    shown_ab, shown_ba = blocks(ab), blocks(ba)
    assert set(shown_ab) == {"Idea A", "Idea B"}
    assert [len(v) for v in shown_ab.values()] == [2, 2]  # k honoured per idea
    assert set(shown_ab["Idea A"]) <= {
        "g0",
        "g1",
        "g2",
        "g3",
    }  # graph prior work for the graph idea
    assert set(shown_ab["Idea B"]) <= {"s0", "s1", "s2"}
    assert shown_ba == {
        "Idea A": shown_ab["Idea B"],
        "Idea B": shown_ab["Idea A"],
    }  # block follows the labels
    every = {i for ids in shown_ab.values() for i in ids}
    assert not every & {
        "n0",
        "dup",
        "g_late",
    }  # target by id, target by title/text, after the cutoff
    meta = score_meta(log)
    assert meta["judge"] == "retrieval" and meta["verdict"] == "a"
    retrieved = meta["retrieved"]
    assert retrieved["ids"] == {"a": shown_ab["Idea A"], "b": shown_ab["Idea B"]}
    assert retrieved["k"] == 2 and retrieved["method"] == "bm25"
    assert retrieved["cutoff"].startswith("2025-09-04")  # n0's own corpus date
    side_b = next(q for q in retrieved["queries"] if q["side"] == "b")
    assert side_b["excluded_target"] == ["dup"] and side_b["after_cutoff"] == 2  # n0 and g_late


def test_pointwise_k_and_exclusion_and_plain_prompt_unchanged(
    search_set: dict[str, str], tmp_path: Path
) -> None:
    judge = Judge()
    log = run(
        novelty_pointwise(
            dataset=search_set["dataset"],
            retrieval=3,
            retrieval_corpus=search_set["corpus"],
            cache=False,
        ),
        judge,
        tmp_path,
    )
    shown = blocks(judge.prompts[0])
    assert list(shown) == ["the idea"] and len(shown["the idea"]) == 3
    assert "dup" not in shown["the idea"] and set(shown["the idea"][:3]) == {"s0", "s1", "s2"}
    assert score_meta(log)["retrieved"]["ids"] == {"idea": shown["the idea"]}

    plain = Judge()
    log = run(novelty_pointwise(dataset=search_set["dataset"], cache=False), plain, tmp_path)
    assert "Related papers found" not in plain.prompts[0] and "\n\n\n" not in plain.prompts[0]
    assert (
        plain.prompts[0].split("\n\n")[4].startswith("Research area:")
    )  # ideas section (after the fence rule) opens as before
    meta = score_meta(log)
    assert meta["retrieved"] is None and meta["judge"] == "prompted"


def test_bad_retrieval_arguments_are_clear_errors(search_set: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="retrieval must be >= 0"):
        novelty_pairwise(dataset=search_set["dataset"], retrieval=-1)
    with pytest.raises(ValueError, match="cannot honour retrieval"):
        novelty_pairwise(dataset=search_set["dataset"], judge="metric_embedding", retrieval=3)


class CitingJudge:
    """mockllm callable for the novelty checker: in the ab order cites the first paper shown and a
    made-up id; in the ba order cites nothing. Picks the graph idea wherever it is shown."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(
        self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        text = input[-1].text
        self.prompts.append(text)
        graph_first = text.index(GRAPH) < text.index(SPEECH)
        first_id = blocks(text)["Idea A"][0]
        cites = f"As [{first_id}] shows, and [fake123] too." if graph_first else "No citations."
        answer = f"{cites}\nVerdict: {'A' if graph_first else 'B'}"
        out = ModelOutput.from_content("mockllm/model", answer)
        out.usage = ModelUsage(
            input_tokens=len(text) // 4, output_tokens=9, total_tokens=len(text) // 4 + 9
        )
        return out


def test_novelty_checker_reranks_and_counts_citations(
    search_set: dict[str, str], tmp_path: Path
) -> None:
    judge = CitingJudge()
    log = run(
        novelty_pairwise(
            dataset=search_set["dataset"],
            judge="novelty_checker",
            retrieval=2,
            retrieval_corpus=search_set["corpus"],
            both_orders=True,
            cache=False,
        ),
        judge,
        tmp_path,
    )
    meta = score_meta(log)
    assert meta["judge"] == "novelty_checker" and meta["verdict"] == "a" and meta["both_orders"]
    retrieved = meta["retrieved"]
    assert {side: len(ids) for side, ids in retrieved["ids"].items()} == {"a": 2, "b": 2}
    side_a = next(q for q in retrieved["queries"] if q["side"] == "a")
    assert set(side_a["ids"]) <= set(side_a["candidates"]) and "n0" not in side_a["candidates"]
    assert "g_late" not in side_a["candidates"] and "dup" not in retrieved["ids"]["b"]
    citations = retrieved["citations"]
    assert citations["uncited_calls"] == 1 and citations["invalid_citations"] == 1
    ab = next(c for c in citations["calls"] if c["order"] == "ab")
    assert ab["valid"] == [retrieved["ids"]["a"][0]] and ab["invalid"] == ["fake123"]


def test_rerank_orders_by_tfidf_cosine_and_keeps_n() -> None:
    from judgeaudit.judges.llm.novelty_checker import check_citations, rerank
    from judgeaudit.retrieval import Document, Hit

    docs = [
        Document("d0", "Speech", "dropout recurrent speech", 1),
        Document("d1", "Graph", GRAPH, 1),
        Document("d2", "Pruning", "pruning attention heads", 1),
    ]
    hits = [Hit(d, 1.0, i + 1, "bm25") for i, d in enumerate(docs)]
    out = rerank(GRAPH, hits, keep=2)
    assert [h.doc.doc_id for h in out] == ["d1", "d2"] and [h.rank for h in out] == [1, 2]
    assert out[0].score > out[1].score > 0 and out[0].method == "bm25+tfidf_rerank"
    assert check_citations("see [d1] and [zzz9] and [d1]", {"d1"}) == {
        "cited": ["d1", "zzz9"],
        "valid": ["d1"],
        "invalid": ["zzz9"],
        "uncited": False,
    }
    assert check_citations("nothing [see above]", {"d1"})["uncited"] is True
    assert check_citations("[d1, d2; q]", {"d1", "d2"})["invalid"] == ["q"]
