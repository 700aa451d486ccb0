"""Calibration arithmetic: passage precision/recall and label agreement on hand-made dev rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.mine.parse import Corpus, Review
from judgeaudit.mine.pipeline import load_corpus
from judgeaudit.mine.select import Decision
from judgeaudit.mine.signals.cues import OfflineExtractor
from judgeaudit.mine.study.calibrate import (
    dev_matches,
    label_agreement,
    load_dev,
    no_match_problem,
    passage_quality,
    reference_estimate,
    score_matches,
)
from judgeaudit.mine.summary import RunSummary

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "openreview_small"


@pytest.fixture(scope="module")
def corpus():  # type: ignore[no-untyped-def]
    return load_corpus(FIXTURE, RunSummary())


def test_passage_quality_counts(corpus) -> None:  # type: ignore[no-untyped-def]
    # forum wTZt07hzZf: the offline extractor finds one affirmation and one dispute (see the fixture)
    ex = OfflineExtractor()
    found = [ex.extract(r) for r in corpus.reviews["wTZt07hzZf"]]
    affirm = [q for s in found for q in s.quotes("affirm")]
    dispute = [q for s in found for q in s.quotes("dispute")]
    assert len(affirm) == 1 and len(dispute) == 1
    dev = [
        {
            "forum": "wTZt07hzZf",
            "label": "novel",
            "positive_signals": [affirm[0], "A passage nobody wrote."],
            "negative_signals": [],
        },
        {"forum": None, "label": "novel", "positive_signals": ["x"], "negative_signals": []},
    ]
    q = passage_quality(dev, corpus, ex)
    assert q["ideas_measured"] == 1
    assert q["affirm"] == {
        "precision": 1.0,
        "recall": 0.5,
        "f1": 0.6667,
        "extracted": 1,
        "extracted_matching": 1,
        "reference": 2,
        "reference_found": 1,
    }
    # the dispute found on a dev `novel` idea has no reference passage: a false positive
    assert (
        q["dispute"]["precision"] == 0.0
        and q["dispute"]["extracted"] == 1
        and q["dispute"]["recall"] is None
    )


def test_label_agreement_and_swaps() -> None:
    dev = [
        {"forum": f, "label": lab, "positive_signals": [], "negative_signals": []}
        for f, lab in [
            ("A", "novel"),
            ("B", "novel"),
            ("C", "not_novel"),
            ("D", "not_novel"),
            (None, "novel"),
        ]
    ]

    def dec(f: str, label: str) -> Decision:
        return Decision(f, label, label, "kept", 0, 0, (), ())  # type: ignore[arg-type]

    kept = {"A": dec("A", "novel"), "C": dec("C", "novel")}
    out = label_agreement(dev, {"A": "novel", "B": "novel", "C": "novel"}, kept)
    assert out["novel"] == {
        "dev_ideas": 3,
        "with_forum": 2,
        "candidates": 2,
        "kept_same_label": 1,
        "swapped": 0,
        "recall": 0.5,
    }
    assert out["not_novel"]["swapped"] == 1 and out["not_novel"]["kept_same_label"] == 0
    est = reference_estimate(dev, kept, {"novel": 9, "not_novel": 6})
    # recall 1/2 of a class of 9 would be 4.5 ideas, more than the 2 we label: the overlap is capped at 2
    assert est["novel"] == {
        "reference_total": 9,
        "dev_share": 0.3333,
        "ours": 2,
        "overlap_estimate": 2,
        "precision_vs_reference_estimate": 1.0,
    }
    assert (
        est["not_novel"]["overlap_estimate"] == 0
        and est["not_novel"]["precision_vs_reference_estimate"] is None
    )


def test_load_dev_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text(
        json.dumps({"label": "novel", "positive_signals": [], "negative_signals": []}) + "\n{oops\n"
    )
    with pytest.raises(ValueError, match=r"dev.jsonl:2"):
        load_dev(path)
    path.write_text(json.dumps({"label": "novel"}) + "\n")
    with pytest.raises(ValueError, match="positive_signals"):
        load_dev(path)


def _dev_file(path: Path, forums: list[str | None]) -> Path:
    rows = [
        {"forum": f, "label": "novel", "positive_signals": [], "negative_signals": []}
        for f in forums
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_dev_matches_counts_partial_matches(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dev = load_dev(_dev_file(tmp_path / "dev.jsonl", ["wTZt07hzZf", "notAForum01", None]))
    assert dev_matches(dev, corpus) == {"rows": 3, "with_forum": 2, "matched": 1}
    assert no_match_problem("dev.jsonl", dev, corpus) is None
    problem = no_match_problem("dev.jsonl", dev[1:], corpus)
    assert (
        problem is not None
        and "dev.jsonl" in problem
        and "no paper matched" in problem
        and "2 rows" in problem
    )


def test_mine_refuses_a_dev_file_matching_no_paper(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = _dev_file(tmp_path / "elsewhere.jsonl", ["notAForum01", "notAForum02"])
    out = tmp_path / "out"
    code = main(
        [
            "mine",
            "--source",
            f"snapshot:{FIXTURE}",
            "--dev",
            str(dev),
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert (
        len(errors) == 1 and "elsewhere.jsonl" in errors[0] and "no paper matched" in errors[0]
    ), err
    assert not (out / "human_only").exists()  # no all-null calibration, no set


def test_mine_reports_partial_dev_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = _dev_file(tmp_path / "dev.jsonl", ["wTZt07hzZf", "notAForum01", None])
    out = tmp_path / "out"
    loose = [
        "--majority",
        "0.2",
        "--max-opposing",
        "3",
        "--majority-rule",
        "inclusive",
        "--weak-affirmations",
        "ignore",
        "--top-quantile",
        "0.55",
        "--bottom-quantile",
        "0.45",
        "--novel-min-rating",
        "none",
        "--not-novel-max-rating",
        "none",
    ]  # the 40-paper fixture keeps both labels only so
    code = main(
        [
            "mine",
            "--source",
            f"snapshot:{FIXTURE}",
            "--dev",
            str(dev),
            "--out",
            str(out),
            "--no-progress",
            *loose,
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert (
        "dev rows matched to a paper of the source: 1 of 3 (2 unmatched, 1 without a forum id)"
        in capsys.readouterr().out
    )
    cal = json.loads((out / "human_only" / "calibration.json").read_text(encoding="utf-8"))
    assert cal["dev_rows"] == {"rows": 3, "with_forum": 2, "matched": 1}


def _reviews(forum: str, scores: list[tuple[float, float | None]]) -> list[Review]:
    return [
        Review(f"{forum}{i}", forum, rating, contribution, (), 0)
        for i, (rating, contribution) in enumerate(scores)
    ]


def test_score_matches_compares_both_means_at_the_references_two_decimals() -> None:
    corpus = Corpus(
        reviews={
            "A": _reviews("A", [(8, 3), (6, 3), (6, 4)]),  # 6.667 / 3.333: published as 6.67 / 3.33
            "B": _reviews(
                "B", [(2, 1), (4, 2)]
            ),  # 3.0 / 1.5, but published from an earlier review set
            "C": _reviews("C", [(6, None), (6, None)]),  # no contribution scores: cannot match
            "D": [],  # no reviews here: not counted
        }
    )
    dev = [
        {"forum": "A", "mean_rating": "6.67", "mean_contribution": 3.33},
        {"forum": "B", "mean_rating": 2.0, "mean_contribution": 1.0},
        {"forum": "C", "mean_rating": 6.0, "mean_contribution": 3.0},
        {"forum": "D", "mean_rating": 6.0, "mean_contribution": 3.0},
        {"forum": None, "mean_rating": 6.0, "mean_contribution": 3.0},
        {"forum": "A", "mean_rating": "n/a", "mean_contribution": 3.33},
    ]  # unreadable: reviewed, never a match
    assert score_matches(dev, corpus) == {"reviewed": 4, "same_means": 1}
    assert score_matches([], corpus) == {"reviewed": 0, "same_means": 0}
