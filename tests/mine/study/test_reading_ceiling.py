"""The reading ceiling (judgeaudit.mine.study.reading_ceiling) on hand-made papers, hand-computed figures,
and the committed reading cases (tests/fixtures/reading_cases/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.mine.parse import Review
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.cues import OfflineExtractor
from judgeaudit.mine.study import reading_ceiling as rc
from judgeaudit.mine.study import stance_cases as sc
from judgeaudit.mine.study.records import measured_with, read_study

READING_CASES = Path(__file__).resolve().parents[2] / "fixtures" / "reading_cases"
REFERENCE_RULE_CASES = READING_CASES.parent / "reading_cases_reference_rule"
BUNDLED = Path(__file__).resolve().parents[3] / "datasets" / "iclr2026" / "human_only"
KEPT = [(False, False, True)] * 3 + [
    (False, False, False)
]  # a not_novel paper the annotators' reading keeps
BLOCKED = [(True, False, True)] * 4  # one it does not (an explicit affirmation)
NOVEL_KEPT = [(True, False, False)] * 3


def _case(forum: str, side: str, stances: list[tuple[bool, bool, bool]]) -> sc.CasePaper:
    """A paper whose i-th review has the (affirms, weak, disputes) stance given, in sentences of its text."""
    paper = sc.CasePaper(forum, "t", side, "tune")  # type: ignore[arg-type]
    for i, (aff, weak, disp) in enumerate(stances):
        rid = f"{forum}-r{i}"
        said = (
            (aff, f"The work is genuinely novel {i}."),
            (weak, f"Sentence W{i}."),
            (disp, f"The novelty is limited {i}."),
        )
        text = " ".join([f"Neutral remark {i}."] + [sentence for on, sentence in said if on])
        review = Review(rid, forum, 0.0, None, (("strengths", text), ("weaknesses", "None.")), 0)
        paper.reviews.append(review)
        paper.versions[rid] = [review]
        paper.labels[rid] = sc.CaseLabel(
            rid,
            (f"The work is genuinely novel {i}.",) if aff else (),
            (f"Sentence W{i}.",) if weak else (),
            (f"The novelty is limited {i}.",) if disp else (),
            (aff, weak, disp),
        )
    return paper


def test_split_papers_sorts_dev_from_sample_and_refuses_a_swapped_side() -> None:
    a, b, c = (
        _case("a", "not_novel", KEPT),
        _case("b", "not_novel", KEPT),
        _case("c", "novel", NOVEL_KEPT),
    )
    dev, others = rc.split_papers([c, b, a], {"b": "not_novel", "c": "novel"})
    assert [p.forum for p in dev] == ["b", "c"] and [p.forum for p in others] == ["a"]
    with pytest.raises(
        ValueError, match="a: a not_novel candidate that the dev split labels novel"
    ):
        rc.split_papers([a], {"a": "novel"})


def test_measure_by_hand() -> None:
    # not_novel: dev papers d1 (kept), d2 (blocked) -> recall 1/2; sample s1 (kept), s2..s4 (blocked) -> rate 1/4.
    # D = 3 dev ideas (one not found), share 1/3 -> N = 9; C = 20 outside: K = 20/4 + 3/2 = 6.5,
    # O = min(4.5, 6.5) = 4.5, J = 4.5 / (6.5 + 9 - 4.5) = 4.5 / 11
    dev = [_case("d1", "not_novel", KEPT), _case("d2", "not_novel", BLOCKED)]
    sample = [_case("s1", "not_novel", KEPT)] + [
        _case(f"s{i}", "not_novel", BLOCKED) for i in (2, 3, 4)
    ]
    pop = rc.Population({"novel": 1, "not_novel": 3}, {"novel": 5, "not_novel": 20})
    got = rc.measure(
        dev, sample, {"annotators": rc.annotator_labeller()}, pop, resamples=500, seed=3
    )
    row = got["labellers"]["annotators"]["not_novel"]
    assert (row["dev"], row["dev_kept"], row["sample"], row["sample_kept"]) == (2, 1, 4, 1)
    assert row["recall"] == pytest.approx(0.5) and row["sample_rate"] == pytest.approx(0.25)
    assert row["class_size"]["estimate"] == pytest.approx(6.5)
    assert row["jaccard"]["estimate"] == pytest.approx(4.5 / 11)
    assert row["jaccard"]["low"] <= row["jaccard"]["estimate"] <= row["jaccard"]["high"]
    assert got["seed"] == 3 and got["resamples"] == 500
    # no novel paper at all: every figure is undefined, none is invented
    novel = got["labellers"]["annotators"]["novel"]
    assert novel["recall"] is None and novel["sample_rate"] is None
    assert novel["jaccard"]["estimate"] is None or novel["jaccard"]["status"] != "ok"
    assert "| annotators | not_novel | 1/2 | 0.50 | 1/4 | - | 6 [" in rc.table(got)


def test_a_census_is_counted_as_it_is_and_leaves_the_pool_the_sample_came_from() -> None:
    # as above, plus a census of 2 candidates outside the draw, 1 kept: C = 20 - 2 = 18 -> K = 18/4 + 1 + 1.5 = 7,
    # O = 4.5, J = 4.5 / (7 + 9 - 4.5)
    dev = [_case("d1", "not_novel", KEPT), _case("d2", "not_novel", BLOCKED)]
    sample = [_case("s1", "not_novel", KEPT)] + [
        _case(f"s{i}", "not_novel", BLOCKED) for i in (2, 3, 4)
    ]
    census = [_case("c1", "not_novel", KEPT), _case("c2", "not_novel", BLOCKED)]
    pop = rc.Population({"novel": 1, "not_novel": 3}, {"novel": 5, "not_novel": 20})
    row = rc.measure(
        dev, sample, {"a": rc.annotator_labeller()}, pop, census=census, resamples=200
    )["labellers"]["a"]["not_novel"]
    assert (row["census"], row["census_kept"]) == (2, 1)
    assert row["class_size"]["estimate"] == pytest.approx(7.0)
    assert row["jaccard"]["estimate"] == pytest.approx(4.5 / 11.5)


def test_weak_affirmations_can_count_as_explicit_ones() -> None:
    # two weak and one explicit affirmation: no novel majority, unless weak ones count
    paper = _case("n", "novel", [(True, False, False), (False, True, False), (False, True, False)])
    assert rc.annotator_labeller()(paper) is None
    assert rc.annotator_labeller(weak_affirms_count=True)(paper) == "novel"
    # and then a weak affirmation of a not_novel paper is an explicit one (it opposes whatever the rule says of weak ones)
    plain = _case("p", "not_novel", [(False, True, True)] * 3)
    assert (
        rc.annotator_labeller()(plain) == "not_novel"
    )  # the reference's rule: a weak affirmation is no signal
    assert (
        rc.annotator_labeller(Thresholds(weak_affirmations="oppose"))(plain) is None
    )  # the earlier rule
    assert rc.annotator_labeller(weak_affirms_count=True)(plain) is None


def test_an_extractor_is_measured_on_the_same_papers() -> None:
    # the cue extractor reads "The novelty is limited" as a dispute and "genuinely novel" as an affirmation
    dev = [_case("d1", "not_novel", KEPT)]
    sample = [_case("s1", "not_novel", BLOCKED)]
    labeller = rc.extractor_labeller(OfflineExtractor())
    assert labeller(dev[0]) == "not_novel" and labeller(sample[0]) is None


def test_review_agreement_counts_each_review_once() -> None:
    # reviews 0-2 dispute by the annotators; the reference quotes reviews 1 and 3; review 0 also affirms
    paper = _case(
        "d",
        "not_novel",
        [(True, False, True), (False, False, True), (False, False, True), (False, False, False)],
    )
    quotes = {"d": ["the NOVELTY is limited 1.", "Neutral remark 3."]}
    got = rc.review_agreement([paper], quotes)["not_novel"]
    assert got == {
        "both": 1,
        "reference_only": 1,
        "annotators_only": 2,
        "neither": 0,
        "annotators_oppose": 1,
    }


def test_reading_cases_fixture_is_sound() -> None:
    papers = sc.load_cases(READING_CASES)
    assert sc.integrity_problems(papers) == []
    rows = [
        json.loads(line)
        for line in (READING_CASES / "papers.jsonl").read_text("utf-8").splitlines()
    ]
    assert len(papers) == len(rows) == len({r["forum"] for r in rows})
    labels = sum(len(p.labels) for p in papers)
    assert labels == sum(len(p.reviews) for p in papers)


def test_the_cards_fixture_counts_are_what_the_fixture_gives() -> None:
    # the card's outcome counts need no dev file: the bundled rule on every reading case's annotated stances
    papers = sc.load_cases(READING_CASES)
    record = read_study(BUNDLED, "reading_ceiling")
    assert (
        record is not None
        and record["outcomes"] == _outcomes(papers)
        and record["measured_with"] == measured_with()
    )
    assert sum(len(p.reviews) for p in papers) == 587


def _outcomes(papers: list[sc.CasePaper]) -> dict[str, dict[str, int]]:
    return {
        side: {
            o: sum(1 for p in papers if p.side == side and sc.annotator_outcome(p) == o)
            for o in sc.OUTCOMES
        }
        for side in sc.CLASSES
    }


def test_reference_rule_cases_are_read_as_written_and_sound() -> None:
    """The annotators' label lines (soft affirmations, no flags) load as they are: soft quotes as weak ones."""
    papers = sc.load_cases(REFERENCE_RULE_CASES)
    assert sc.integrity_problems(papers) == []
    assert len(papers) == 153 and sum(len(p.reviews) for p in papers) == 582
    assert sum(len(p.labels) for p in papers) == 582
    rows = [
        json.loads(line)
        for name in sorted(REFERENCE_RULE_CASES.glob("labels_*.jsonl"))
        for line in name.read_text("utf-8").splitlines()
    ]
    soft = {r["review_id"]: tuple(r["soft_affirm_quotes"]) for r in rows}
    labels = {rid: label for p in papers for rid, label in p.labels.items()}
    assert all(
        labels[rid].weak_quotes == quotes and labels[rid].flags is None
        for rid, quotes in soft.items()
    )
    assert sum(1 for q in soft.values() if q) == 13  # the README's count
    # every batch review has only the two fields the annotators saw
    assert {f for p in papers for r in p.reviews for f, _ in r.texts} <= {"strengths", "weaknesses"}


def test_the_cards_reference_rule_record_counts_are_what_the_fixture_gives() -> None:
    papers = sc.load_cases(REFERENCE_RULE_CASES)
    record = read_study(BUNDLED, "reading_ceiling_reference_rule")
    assert (
        record is not None
        and record["outcomes"] == _outcomes(papers)
        and record["measured_with"] == measured_with()
    )
    assert "--reference-rule" in record["command"]
    card = (BUNDLED / "README.md").read_text("utf-8")
    assert record["table_markdown"] in card
