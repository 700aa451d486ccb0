"""The embedding stance model: prefilter, plain-JSON round trip, refusals; MiniLM itself only when the extra is installed.

The fitted weights here come from small synthetic vectors (a `VectorCache`), so the JSON and
scoring paths run without the model; the last test embeds real sentences with the packaged MiniLM.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from judgeaudit.mine.stance import ModelError, Thresholds
from judgeaudit.mine.stance_embed import EmbedStanceModel, VectorCache, fit_embed_model, prefilter
from judgeaudit.retrieval.embed import embed_available

SENTENCES = ["The novelty is limited compared with prior work.", "The idea is genuinely original.",
             "Similar approaches already exist.", "A new perspective on an old problem."]


def _model() -> tuple[EmbedStanceModel, VectorCache]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 8))
    affirm = x[:, 0] > 0.5
    dispute = x[:, 1] > 0.5
    model = fit_embed_model(x, affirm, dispute, name="embed-test", c=1.0)
    model.thresholds = Thresholds(0.4, 0.2, 0.3)
    return model, VectorCache(SENTENCES, x[:len(SENTENCES)])


def test_prefilter_keeps_originality_vocabulary_only() -> None:
    assert all(prefilter(s) for s in SENTENCES)
    assert not prefilter("Table 3 has a typo in the second row.")


def test_round_trip_through_json_scores_the_same_and_skips_unfiltered_sentences() -> None:
    model, cache = _model()
    model.encoder = cache
    text = json.dumps(model.to_json())
    again = EmbedStanceModel.from_json(json.loads(text), "m.json")
    again.encoder = cache
    probs = again.probabilities([*SENTENCES, "Table 3 has a typo."])
    assert np.allclose(probs[:4], model.probabilities(SENTENCES), atol=1e-5)
    assert probs[4].tolist() == [0.0, 0.0]  # not embedded at all: the cache does not hold it
    assert again.thresholds == Thresholds(0.4, 0.2, 0.3) and again.name == "embed-test"
    # the weights separate the stances they were fitted on
    assert model.weights[0, 0] > 0 and model.weights[1, 1] > 0


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="judgeaudit-stance-ngram"), "not a judgeaudit-stance-embed"),
    (lambda d: d.update(prefilter="novel"), "another prefilter"),
    (lambda d: d["weights"]["affirm"].__setitem__(0, float("nan")), "non-finite"),
    (lambda d: d.pop("intercepts"), "malformed"),
])
def test_a_bad_model_file_is_refused_naming_it(change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = _model()[0].to_json()
    change(data)
    with pytest.raises(ModelError, match=message) as info:
        EmbedStanceModel.from_json(data, "models/embed.json")
    assert "models/embed.json" in str(info.value)


def test_vector_cache_names_a_sentence_it_never_embedded() -> None:
    with pytest.raises(KeyError, match="never seen"):
        VectorCache(["a"], np.zeros((1, 2))).encode(["never seen"])


@pytest.mark.embed
@pytest.mark.skipif(not embed_available(), reason="needs the 'embed' extra (sentence-transformers + MiniLM)")
def test_minilm_vectors_give_probabilities_for_prefiltered_sentences() -> None:
    from judgeaudit.mine.stance_embed import MAX_SEQ_LENGTH
    from judgeaudit.retrieval.embed import MiniLMEmbedder

    model, _ = _model()
    model.weights = np.zeros((384, 2))
    model.encoder = MiniLMEmbedder(batch_size=128, max_seq_length=MAX_SEQ_LENGTH)
    probs = model.probabilities(["The novelty is limited.", "Table 3 has a typo."])
    # zero weights: a prefiltered sentence scores the intercepts' sigmoid, whatever its vector
    assert probs[0].tolist() == pytest.approx((1 / (1 + np.exp(-model.intercepts))).tolist())
    assert probs[1].tolist() == [0.0, 0.0]
