"""Ordinal novelty scores in the report: Spearman with review scores and Krippendorff's alpha between calls.

Hand-computed cases for the unit logic, then a real Inspect run of the rubric judge (mockllm
stands in for a hosted LLM: it answers a scripted 0-4 score per idea and call seed) whose logs
go through `build_report`, checked against numbers worked out by hand below.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers.items import make_idea
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.data.contract import Evidence, PointItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.llm.rubric import rubric_task
from judgeaudit.report.build import build_report
from judgeaudit.report.ordinal import call_matrix, ordinal_summary, unit_scores
from judgeaudit.stats.agreement import krippendorff_alpha


def test_unit_scores_pairwise_and_pointwise() -> None:
    human = {
        "a": {"rating_mean": 6.0, "contribution_mean": 3.0},
        "b": {"rating_mean": 4.5, "contribution_mean": None},
    }
    scores = {"a": [3, None, 4], "b": [1, 2]}  # the invalid call (None) is left out of the mean
    assert unit_scores("pairwise", scores, human, "rating_mean") == (3.5 - 1.5, 1.5)
    judge, review = unit_scores("pairwise", scores, human, "contribution_mean")
    assert judge == 2.0 and np.isnan(review)
    judge, review = unit_scores(
        "pointwise", {"idea": [None]}, {"idea": {"rating_mean": 5.0}}, "rating_mean"
    )
    assert np.isnan(judge) and review == 5.0


def test_call_matrix_has_calls_as_rows_and_ideas_as_columns() -> None:
    m = call_matrix("pairwise", [{"a": [1, 2], "b": [3, None]}, {"a": [0], "b": [4, 4]}])
    assert m.shape == (2, 4)
    np.testing.assert_array_equal(m[0], [1, 3, 0, 4])
    np.testing.assert_array_equal(m[1], [2, np.nan, np.nan, 4])


def _rows(
    scores: list[dict[str, Any]], ratings: list[float], contributions: list[float]
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "scores": scores,
            "human": [
                {"idea": {"rating_mean": r, "contribution_mean": c}}
                for r, c in zip(ratings, contributions, strict=True)
            ],
        }
    )


def test_perfect_agreement_by_hand() -> None:
    # scores 0 < 1 < 3 < 4 follow the ratings exactly (rho = 1) and the contributions in reverse (rho = -1);
    # both calls agree on every idea, so alpha = 1.
    rows = _rows(
        [{"idea": [0, 0]}, {"idea": [1, 1]}, {"idea": [3, 3]}, {"idea": [4, 4]}],
        [1.0, 2.0, 3.0, 5.0],
        [4.0, 3.0, 2.0, 1.0],
    )
    out = ordinal_summary(rows, "pointwise", resamples=200, seed=1)
    assert out["spearman_rating"]["estimate"] == pytest.approx(1.0)
    assert out["spearman_contribution"]["estimate"] == pytest.approx(-1.0)
    assert out["alpha_between_calls"]["estimate"] == pytest.approx(1.0)
    assert out["spearman_rating"]["resamples"] == 200 and out["spearman_rating"]["seed"] == 1


def test_disagreeing_calls_by_hand() -> None:
    # Two calls, ideas scored (0,1), (2,2), (4,3): values 0,1,2,2,3,4 each pairable once.
    # Coincidences: o(0,1)=o(1,0)=1, o(2,2)=2, o(3,4)=o(4,3)=1; n = 6, n_c = 1,1,2,1,1 for 0,1,2,3,4.
    # Ordinal distances d(c,k) = (sum_{g=c..k} n_g - (n_c+n_k)/2)^2: d(0,1) = 1, d(3,4) = 1.
    # Observed: sum o*d = 1+1+1+1 = 4. Expected: sum_{c != k} n_c n_k d(c,k) over ordered pairs, with
    # d(0,2)=(1+1+2-1.5)^2=6.25, d(0,3)=(5-1)^2=16, d(0,4)=(6-1)^2=25, d(1,2)=(3-1.5)^2=2.25,
    # d(1,3)=(4-1)^2=9, d(1,4)=(5-1)^2=16, d(2,3)=(3-1.5)^2=2.25, d(2,4)=(4-1.5)^2=6.25:
    # weighted by n_c n_k: 2 * (1 + 2*6.25 + 16 + 25 + 2*2.25 + 9 + 16 + 2*2.25 + 2*6.25 + 1) = 2 * 102 = 204.
    # alpha = 1 - (n - 1) * 4 / 204 = 1 - 20/204.
    rows = _rows(
        [{"idea": [0, 1]}, {"idea": [2, 2]}, {"idea": [4, 3]}], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]
    )
    out = ordinal_summary(rows, "pointwise", resamples=200, seed=1)
    assert out["alpha_between_calls"]["estimate"] == pytest.approx(1 - 20 / 204)
    assert out["alpha_between_calls"]["estimate"] == pytest.approx(
        krippendorff_alpha(
            call_matrix("pointwise", list(rows["scores"])), "ordinal", [0, 1, 2, 3, 4]
        )
    )
    # judge means 0.5, 2, 3.5 rise with the ratings: rho = 1
    assert out["spearman_rating"]["estimate"] == pytest.approx(1.0)


def test_single_call_and_missing_reviews_are_undefined_not_guessed() -> None:
    rows = _rows(
        [{"idea": [1]}, {"idea": [2]}, {"idea": [None]}], [1.0, float("nan"), 3.0], [1.0, 2.0, 3.0]
    )
    out = ordinal_summary(rows, "pointwise", resamples=100, seed=1)
    assert (
        "undefined" in out["alpha_between_calls"]
        and "k >= 2" in out["alpha_between_calls"]["undefined"]
    )
    assert (
        out["spearman_rating"]["units_used"] == 1 and out["spearman_rating"]["units_left_out"] == 2
    )
    assert "need 3" in out["spearman_rating"]["undefined"]


# ---- end to end: rubric judge through Inspect, then the report ----

RATINGS = (2.0, 3.5, 5.0, 6.0, 7.5, 8.0)
CONTRIBUTIONS = (3.0, 1.0, 2.0, 2.5, 1.5, 4.0)
FIRST_CALL = (0, 1, 2, 3, 4, 4)  # score of idea i on the call with the even seed
SECOND_CALL = (0, 2, 2, 3, 3, 4)  # ... and on the other call


class SeededRubric:
    """mockllm policy: idea i (marked `ordinal-idea-i`) gets FIRST_CALL[i] on its first call, SECOND_CALL[i] after."""

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}

    def __call__(self, messages: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = messages[-1].text.split("Idea to assess:\n", 1)[1]
        i = int(text.split("ordinal-idea-", 1)[1].split()[0])
        self.seen[i] = self.seen.get(i, 0) + 1
        table = FIRST_CALL if self.seen[i] == 1 else SECOND_CALL
        out = ModelOutput.from_content("mockllm/model", f"Rationale.\nScore: {table[i]}")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out


def test_rubric_report_has_ordinal_table(tmp_path: Path) -> None:
    items = []
    for i, (r, c) in enumerate(zip(RATINGS, CONTRIBUTIONS, strict=True)):
        label = "novel" if i >= 3 else "not_novel"
        idea = make_idea(
            f"idea{i}",
            label,
            area=("vision", "theory")[i % 2],
            text=f"ordinal-idea-{i} a method for learning representations of graphs number {i}",
        )
        idea = replace(idea, evidence=Evidence(rating_mean=r, contribution_mean=c, review_count=3))
        items.append(PointItem(f"pt{i}", "human_only", idea, label))  # type: ignore[arg-type]
    write_items(tmp_path / "set" / "pointwise.jsonl", items)
    task = rubric_task(
        "pointwise", str(tmp_path / "set"), references="area", k=2, resamples=300, cache=False
    )
    log = inspect_eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": SeededRubric()},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )[0]
    assert log.status == "success", log.error

    report = build_report(tmp_path / "logs", tmp_path / "report", resamples=300, seed=3)
    entries = [
        e for g in report.data["groups"] for e in g["configs"].values() if "ordinal_scores" in e
    ]
    assert len(entries) == 1  # the one rubric configuration (aggregations carry no ordinal scores)
    ordinal = entries[0]["ordinal_scores"]
    # whichever call came first, idea i was scored FIRST_CALL[i] once and SECOND_CALL[i] once
    logged = {
        str(s.id): sorted(s.scores["novelty"].metadata["scores"]["idea"]) for s in log.samples or []
    }
    assert logged == {f"pt{i}": sorted([FIRST_CALL[i], SECOND_CALL[i]]) for i in range(len(items))}
    # alpha is symmetric in the coders, so the hand matrix gives the report's value:
    # values 0,0 | 1,2 | 2,2 | 3,3 | 4,3 | 4,4 -> only ideas 1 and 4 disagree, each by one rank step
    matrix = np.array([FIRST_CALL, SECOND_CALL], dtype=float)
    assert ordinal["alpha_between_calls"]["estimate"] == pytest.approx(
        krippendorff_alpha(matrix, "ordinal", range(5))
    )
    assert 0.8 < ordinal["alpha_between_calls"]["estimate"] < 1.0
    assert ordinal["spearman_rating"]["estimate"] == pytest.approx(
        1.0
    )  # means 0, 1.5, 2, 3, 3.5, 4 rise with RATINGS
    # contributions 3, 1, 2, 2.5, 1.5, 4 have ranks 5, 1, 3, 4, 2, 6 against judge ranks 1..6:
    # sum d^2 = 16 + 1 + 0 + 0 + 9 + 0 = 26, rho = 1 - 6 * 26 / (6 * 35) = 1 - 26/35
    assert ordinal["spearman_contribution"]["estimate"] == pytest.approx(1 - 26 / 35)
    assert (
        ordinal["spearman_rating"]["resamples"] == 300 and ordinal["spearman_rating"]["seed"] == 3
    )
    table = next(p for p in (tmp_path / "report").glob("ordinal_pointwise_*.md"))
    text = table.read_text()
    assert "Spearman ρ vs rating" in text and "Krippendorff α (ordinal) between calls" in text
