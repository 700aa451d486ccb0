"""The audit with the real local judge (llama.cpp + the PyPI Gemma 3 270M GGUF).

One fixture pair, the position probe and the repeat run, the verdict grammar on: a few real
calls, checking that the whole path (provider -> tasks -> logs -> readings -> card) holds
together on real model output and that the card's figures agree with each other.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from helpers.items import FIXTURES

from judgeaudit.audit.battery import AuditSpec
from judgeaudit.audit.run import run_audit

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None,
        reason="xllamacpp (the llama.cpp library) is not installed (pip install 'judgeaudit[local]')",
    ),
]
FIX = FIXTURES / "probe_items"


def test_audit_card_with_the_local_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    spec = AuditSpec(
        model="local/gemma-3-270m",
        dataset=str(FIX),
        limit=1,
        probes=("position", "repeat"),
        resamples=500,
        model_args={"grammar": "pairwise", "n_ctx": 2048},
    )
    result, paths = run_audit(spec, tmp_path / "audit")
    card = json.loads(paths["json"].read_text(encoding="utf-8"))
    pos = card["probes"]["position"]["figures"]
    flip = pos["order_flip_rate"]["value"]["estimate"]
    assert flip + pos["order_consistency"]["value"]["estimate"] == pytest.approx(1.0)
    # With the grammar every call parses, so invalid is 0 and first-position is defined.
    assert card["headline"]["figures"]["invalid_rate"]["value"]["estimate"] == 0.0
    assert 0.0 <= pos["first_position_rate"]["value"]["estimate"] <= 1.0
    # Seeded local sampling: the two runs may differ, but the corrected flip is flip - noise.
    noise = card["probes"]["repeat"]["figures"]["noise_floor"]["value"]["estimate"]
    assert pos["order_flip_rate"]["corrected"]["estimate"] == pytest.approx(flip - noise)
    assert card["cost"]["usd"] == 0.0 and card["cost"]["tokens"] > 100
    assert (
        card["verdict"] in ("fit", "use with care", "unfit") and result.verdict == card["verdict"]
    )
    assert card["judge"]["model_args"] == {"grammar": "pairwise", "n_ctx": 2048}
