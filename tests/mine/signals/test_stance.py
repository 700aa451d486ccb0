"""The learned stance extractor: plain-JSON model, offline loading, bad files refused, thresholds applied."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from judgeaudit.mine.parse import Review
from judgeaudit.mine.signals.stance import (
    LearnedExtractor,
    ModelError,
    Thresholds,
    analyse,
    features,
    load_model,
    packaged_models,
    smooth_idf,
    stance_of,
)
from judgeaudit.mine.study.stance_fit import LabelledSentence, fit_model

ROWS = [
    LabelledSentence("p1", "r1", "The idea is novel and original.", True, False),
    LabelledSentence("p1", "r1", "A novel and original take on retrieval.", True, False),
    LabelledSentence("p2", "r2", "The novelty is limited and incremental.", False, True),
    LabelledSentence(
        "p2", "r2", "Limited novelty, largely incremental over prior work.", False, True
    ),
    LabelledSentence("p3", "r3", "The paper is well written.", False, False),
    LabelledSentence("p3", "r3", "Experiments are thorough and well written.", False, False),
]


def test_features_match_the_tfidf_definition_by_hand() -> None:
    assert analyse("Not novel.", 2) == ["not", "novel", "not novel"]
    vocab = {"not": 0, "novel": 1}
    idf = np.asarray([smooth_idf(1, 2), smooth_idf(2, 2)])  # ln(3/2)+1, ln(3/3)+1
    row = features(["not novel novel"], vocab, idf, 1).toarray()[0]
    raw = np.asarray([1.0 * idf[0], (1 + np.log(2)) * idf[1]])
    assert row == pytest.approx(raw / np.linalg.norm(raw))


def test_a_fitted_model_round_trips_through_json_and_separates_stances(tmp_path: Path) -> None:
    model = fit_model(ROWS, name="tiny", c=10.0, min_df=1, thresholds=Thresholds(0.5, 0.4, 0.5))
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(model.to_json()))
    again = load_model(path)
    probs = again.probabilities(
        ["A novel and original idea.", "Novelty is limited and incremental.", "Well written."]
    )
    assert probs[0, 0] > probs[1, 0] and probs[1, 1] > probs[0, 1]
    assert np.allclose(
        probs,
        model.probabilities(
            ["A novel and original idea.", "Novelty is limited and incremental.", "Well written."]
        ),
        atol=1e-5,
    )
    review = Review(
        "r9",
        "p9",
        6.0,
        3.0,
        (
            ("strengths", "A novel and original idea."),
            ("weaknesses", "Novelty is limited and incremental."),
        ),
        0,
    )
    sig = LearnedExtractor(again).extract(review)
    assert [(s.polarity, s.field) for s in sig.signals] == [
        ("affirm", "strengths"),
        ("dispute", "weaknesses"),
    ]


def test_stance_rule_weak_and_exclusive() -> None:
    th = Thresholds(affirm=0.6, weak=0.3, dispute=0.5)
    assert stance_of(0.7, 0.1, th) == ("affirm", False)
    assert stance_of(0.4, 0.1, th) == ("affirm", True)
    assert stance_of(0.55, 0.6, th) == ("dispute", False)
    assert stance_of(0.1, 0.2, th) is None


def test_the_packaged_model_loads_offline_from_json() -> None:
    assert "ngram" in packaged_models()
    model = load_model("ngram")
    assert model.name == "ngram" and len(model.vocabulary) > 1000
    assert 0 < model.thresholds.affirm <= 1 and 0 < model.thresholds.dispute <= 1
    assert model.training["procedure"].endswith("fit_procedure on the whole dev split")


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"format": "other"}), "not a judgeaudit-stance-ngram model"),
        (
            json.dumps({"format": "judgeaudit-stance-ngram", "format_version": 1, "terms": ["a"]}),
            "malformed model",
        ),
    ],
)
def test_bad_model_files_are_refused_with_their_path(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(ModelError, match=message):
        load_model(path)


def test_an_unknown_model_name_lists_the_packaged_ones() -> None:
    with pytest.raises(ModelError, match="packaged: .*ngram"):
        load_model("nope")
