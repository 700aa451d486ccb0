"""The hybrid stance model (`judgeaudit.mine.stance_hybrid`): cue candidates re-scored over n-grams + cue hits."""

from __future__ import annotations

import json

import numpy as np

from judgeaudit.mine.stance_fit import LabelledSentence
from judgeaudit.mine.stance_hybrid import CUE_FEATURES, cue_features, fit_hybrid

AFFIRMS = ["The idea is novel.", "This approach is novel and original.", "A novel and original idea.",
           "The method is truly novel."]
DISPUTES = ["The novelty is limited.", "Limited novelty over prior work.", "The novelty is limited given prior work.",
            "Novelty is limited."]
NEITHER = ["The paper is well written.", "Experiments are thorough.", "The figures are clear.", "Typos in Sec. 3."]


def _rows() -> list[LabelledSentence]:
    rows = [LabelledSentence(f"f{i}", f"r{i}", t, affirm=True, dispute=False) for i, t in enumerate(AFFIRMS)]
    rows += [LabelledSentence(f"g{i}", f"s{i}", t, affirm=False, dispute=True) for i, t in enumerate(DISPUTES)]
    rows += [LabelledSentence(f"h{i}", f"t{i}", t, affirm=False, dispute=False) for i, t in enumerate(NEITHER)]
    return rows


def test_cue_indicators_follow_the_cue_extractor() -> None:
    x = cue_features(["The idea is novel.", "The novelty is limited.", "The paper is well written."])
    assert x.shape == (3, len(CUE_FEATURES))
    assert x[:, 0].tolist()[0] == 1.0 and x[1, 2] == 1.0 and not x[2].any()


def test_only_candidates_are_scored_and_the_fit_separates_the_stances() -> None:
    model = fit_hybrid(_rows(), c=16.0, min_df=1)
    p = model.probabilities(["The idea is novel and original.", "The novelty is limited.", "The paper is well written."])
    assert p[0, 0] > p[0, 1] and p[1, 1] > p[1, 0]
    assert p[2].tolist() == [0.0, 0.0]  # no originality vocabulary: not a candidate, scores 0
    assert model.training["candidates"] == len(AFFIRMS) + len(DISPUTES)  # the neither sentences are not candidates
    data = json.loads(json.dumps(model.to_json()))
    assert data["cue_features"] == list(CUE_FEATURES)
    assert len(data["weights"]["affirm"]) == len(data["terms"]) + len(CUE_FEATURES)
    assert np.isfinite(np.asarray(data["weights"]["dispute"])).all()
