"""The work units of an LLM pass (judgeaudit.mine.units): which reviews are asked, under which id, and the import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.mine.llm import AnswerCache, prompt_sha256
from judgeaudit.mine.parse import Corpus, Review, Submission
from judgeaudit.mine.pipeline import select_labels
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.llm_extractor import LLMExtractor
from judgeaudit.mine.units import UnitsError, import_answers, work_units, write_units

NOVEL = "The idea is novel: no earlier work did this."
PLAIN = "Clear writing and good figures."


def _review(
    rid: str, forum: str, rating: float, contribution: float, strengths: str, weaknesses: str
) -> Review:
    texts = tuple(
        (k, v)
        for k, v in (
            ("summary", "They propose a novel method."),
            ("strengths", strengths),
            ("weaknesses", weaknesses),
        )
        if v
    )
    return Review(rid, forum, rating, contribution, texts, 0)


def _corpus() -> Corpus:
    corpus = Corpus()
    plan = {
        "n1": (
            9.0,
            4.0,
            [(NOVEL, "Few baselines."), (PLAIN, "Typos."), (NOVEL, "Slow.")],
        ),  # one review has no cue
        "n2": (
            9.0,
            4.0,
            [(NOVEL, ""), (NOVEL, ""), (NOVEL, "Slow.")],
        ),  # two empty fields: cannot reach a majority
        "b1": (
            1.0,
            1.0,
            [("Fine.", "The novelty is limited."), ("Fine.", ""), ("Ok.", "Incremental.")],
        ),
    }
    plan.update(
        {f"m{i}": (5.0, 2.5, [(NOVEL, "Fine.")]) for i in range(12)}
    )  # the middle: never candidates
    for i, (forum, (rating, contribution, texts)) in enumerate(plan.items()):
        corpus.submissions[forum] = Submission(
            forum, i, f"t{forum}", "abstract", "A", "active", "", 0
        )
        corpus.reviews[forum] = [
            _review(f"{forum}-{k}", forum, rating, contribution, s, w)
            for k, (s, w) in enumerate(texts)
        ]
    return corpus


def _extractor(tmp_path: Path, **kw: object) -> LLMExtractor:
    return LLMExtractor.from_spec("litellm/pass-model", tmp_path / "cache", replay=True, **kw)  # type: ignore[arg-type]


def test_units_are_the_reviews_whose_answer_can_matter_with_their_exact_prompt_and_cache_id(
    tmp_path: Path,
) -> None:
    ex = _extractor(tmp_path)
    units, counts = work_units(_corpus(), Thresholds(), ex)
    assert [(u.forum, u.review_id) for u in units] == [
        ("b1", "b1-0"),
        ("b1", "b1-2"),
        ("n1", "n1-0"),
        ("n1", "n1-2"),
    ]
    review = next(r for r in _corpus().reviews["n1"] if r.review_id == "n1-0")
    unit = next(u for u in units if u.review_id == "n1-0")
    assert (
        unit.prompt == ex.prompt(review)
        and unit.id == ex.cache_key(review)
        and unit.side == "novel"
    )
    assert unit.prompt_sha256 == prompt_sha256(unit.prompt) and unit.model == "litellm/pass-model"
    assert (
        "## strengths" in unit.prompt
        and "## weaknesses" in unit.prompt
        and "## summary" not in unit.prompt
    )
    assert counts == {
        "candidates": {"novel": 2, "not_novel": 1},
        "candidates_decided_unread": 1,
        "reviews_of_candidates": 9,
        "reviews_with_an_empty_signal_field": 3,
        "reviews_not_sent_by_the_prefilter": 1,
        "units": 4,
        "units_by_side": {"novel": 2, "not_novel": 2},
        "prompt_chars": sum(len(u.prompt) for u in units),
        "prompt_tokens_estimate": sum(len(u.prompt) for u in units) // 4,
        "decisions_applied": False,
    }
    # without the pre-filter the review with no originality vocabulary is asked too
    all_units, _ = work_units(_corpus(), Thresholds(), _extractor(tmp_path, prefilter=False))
    assert len(all_units) == 5 and "n1-1" in {u.review_id for u in all_units}


def test_imported_answers_are_replayed_and_a_replay_needs_no_other(tmp_path: Path) -> None:
    corpus = _corpus()
    ex = _extractor(tmp_path)
    units, _ = work_units(corpus, Thresholds(), ex)
    write_units(tmp_path / "units.jsonl", units)
    answers = {
        "n1": '{"affirmations": ["The idea is novel: no earlier work did this."], "disputes": []}',
        "b1": '{"affirmations": [], "disputes": ["The novelty is limited.", "Incremental."]}',
    }
    rows = [
        {"id": u.id, "answer": answers[u.forum], "model": "annotator-7", "date": "2026-02-01"}
        for u in units
    ]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows + rows[:1]))
    counts = import_answers(
        tmp_path / "answers.jsonl", tmp_path / "units.jsonl", tmp_path / "cache"
    )
    assert counts == {"imported": 4, "repeated rows (same answer)": 1, "units without an answer": 0}
    record = AnswerCache(tmp_path / "cache").get(units[0].id)
    assert record == {
        "model": "annotator-7",
        "response": answers[units[0].forum],
        "prompt_sha256": units[0].prompt_sha256,
        "date": "2026-02-01",
    }
    selection, _ = select_labels(corpus, ex, Thresholds())
    assert {f: d.label for f, d in selection.kept().items()} == {"n1": "novel", "b1": "not_novel"}
    assert (
        not ex.failures_by_reason
        and ex.llm.calls == 0
        and ex.provenance()["models"] == ["annotator-7"]
    )
    again = import_answers(tmp_path / "answers.jsonl", tmp_path / "units.jsonl", tmp_path / "cache")
    assert again["already cached"] == 4


def test_an_answer_not_in_the_answer_format_is_imported_and_counted(tmp_path: Path) -> None:
    units, _ = work_units(_corpus(), Thresholds(), _extractor(tmp_path))
    write_units(tmp_path / "units.jsonl", units)
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"id": units[0].id, "answer": "I think it is novel.", "model": "m", "date": "d"})
        + "\n"
    )
    counts = import_answers(
        tmp_path / "answers.jsonl", tmp_path / "units.jsonl", tmp_path / "cache"
    )
    assert counts["imported"] == 1 and counts["units without an answer"] == 3
    assert counts["not in the answer format (the miner counts them as unparsable)"] == 1


@pytest.mark.parametrize(
    "line, message",
    [
        ("{oops", "answers.jsonl:1"),
        (
            json.dumps({"id": "x", "answer": "{}", "model": "m"}),
            r"missing or empty field\(s\) date",
        ),
    ],
)
def test_a_bad_answers_file_is_one_error_naming_the_line(
    tmp_path: Path, line: str, message: str
) -> None:
    write_units(
        tmp_path / "units.jsonl", work_units(_corpus(), Thresholds(), _extractor(tmp_path))[0]
    )
    (tmp_path / "answers.jsonl").write_text(line + "\n")
    with pytest.raises(UnitsError, match=message):
        import_answers(tmp_path / "answers.jsonl", tmp_path / "units.jsonl", tmp_path / "cache")
    assert not (tmp_path / "cache").exists()  # nothing written
