"""`judgeaudit audit` end to end: scripted mockllm judges of known behaviour through real Inspect
eval-sets (the judge tasks, the probe transforms, the logs), then readings, gates and the card.

The judges are test doubles for a real LLM (none is reachable in unit tests): Inspect's own
`mockllm/model` with a callable `custom_outputs` that reads the rendered prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted

from judgeaudit.probes.audit import AuditResult, AuditSpec
from judgeaudit.probes.run import run_audit

FIX = Path(__file__).resolve().parent / "fixtures" / "probe_items"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own Inspect cache: scripted judges share the model name."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


class Counting:
    """Wraps a scripted reply and counts the model calls that reach it."""

    def __init__(self, policy: Callable[[str], str]) -> None:
        self.reply = scripted.judge(policy)
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.reply(*args)


def audit(policy: Callable[[str], str], out: Path, probes: tuple[str, ...], kind: str = "pairwise") -> tuple[AuditResult, dict[str, Path], Counting]:
    """Run an audit of a scripted judge on the probe fixture items."""
    counter = Counting(policy)
    spec = AuditSpec(model="mockllm/model", dataset=str(FIX), kind=kind, probes=probes, resamples=1000,
                     model_args={"custom_outputs": counter})
    result, paths = run_audit(spec, out)
    return result, paths, counter


def outcomes(result: AuditResult) -> dict[str, str]:
    """Gate name -> outcome."""
    return {r.gate.name: r.outcome for r in result.gates}


@pytest.mark.slow
def test_accurate_unbiased_judge_passes_every_gate_and_resumes(tmp_path: Path) -> None:
    result, paths, counter = audit(scripted.accurate, tmp_path / "audit",
                                   ("position", "presumption", "verbosity", "surface", "injection", "self_preference", "repeat"))
    out = outcomes(result)
    assert result.verdict == "fit", out
    assert {v for k, v in out.items()} == {"pass"}
    assert result.headline.figures["accuracy"].value.estimate == 1.0
    assert result.readings["self_preference"].status == "not_run"
    # 4 items: unperturbed 4 + repeat 4 + position 8 + presumption 12 + verbosity 8 + surface 16 + injection 8;
    # order_ab repeats the unperturbed prompt and is served from Inspect's cache.
    assert counter.calls == 60 - 4
    assert result.cost["judge_calls"] == 60 and result.cost["tokens"] > 0
    assert 0 < result.cost["battery_seconds"] < 600

    md = paths["md"].read_text(encoding="utf-8")
    assert md.splitlines()[2] == "## Verdict: **FIT**"
    assert "pass if |x - 0.5| <= 0.1" in md.replace("\\|", "|") and "self_preference" in md
    card = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert card["schema"] == "judgeaudit.audit/1" and card["verdict"] == "fit"
    assert card["headline"]["above_chance"] is True
    assert {g["name"] for g in card["gates"]} >= {"position_first", "presumption", "verbosity", "injection"}
    assert all("rule" in g and "pass_at" in g for g in card["gates"])
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "audit" / "logs").is_dir() and (tmp_path / "audit" / "items" / "pairwise.jsonl").is_file()

    # Same command again: the eval-set is complete, so nothing is judged twice.
    again, _, counter2 = audit(scripted.accurate, tmp_path / "audit",
                               ("position", "presumption", "verbosity", "surface", "injection", "self_preference", "repeat"))
    assert counter2.calls == 0 and again.verdict == "fit"


@pytest.mark.slow
@pytest.mark.parametrize(("policy", "probes", "failing"), [
    (scripted.always_first, ("position", "repeat"), {"position_first", "position_flip"}),
    (scripted.cue_follower, ("presumption",), {"presumption"}),
    # Injection arms carry a note of similar length on the other idea: a length bias alone does not fail it.
    (scripted.longer, ("verbosity", "injection"), {"verbosity"}),
    (scripted.injection_obeyer, ("injection",), {"injection"}),
], ids=["always-first", "cue-follower", "prefers-longer", "obeys-injection"])
def test_biased_judge_fails_its_gate(tmp_path: Path, policy: Callable[[str], str], probes: tuple[str, ...],
                                     failing: set[str]) -> None:
    result, paths, _ = audit(policy, tmp_path / "audit", probes)
    out = outcomes(result)
    assert {g for g, o in out.items() if o == "fail"} == failing, out
    assert result.verdict == "unfit"
    assert {r.gate.name for r in result.reasons} <= failing and result.reasons
    md = paths["md"].read_text(encoding="utf-8")
    assert "## Verdict: **UNFIT**" in md and f"FAIL {result.reasons[0].gate.name}:" in md
    assert ("Caveat: this judge's verdicts follow the presentation order" in md) == ("position_first" in failing)


@pytest.mark.slow
def test_pointwise_injection_obeyer_fails_and_accuracy_is_macro_f1(tmp_path: Path) -> None:
    result, _, _ = audit(scripted.injection_obeyer, tmp_path / "audit", ("injection", "verbosity"), kind="pointwise")
    out = outcomes(result)
    assert out["injection"] == "fail" and out["verbosity"] == "pass" and out["accuracy"] == "pass"
    assert result.headline.figures["accuracy"].label == "macro f1"
    assert result.readings["injection"].figures["injected_win_rate"].value.estimate == 1.0
