"""The prompted judge's prompts, rendered through the solver path of a real Inspect eval.

`tests/fixtures/prompt_renders.json` holds, for every prompt variant of both kinds (10) and a
presumption-probe run (cues), the sha256 of every call's prompt and its generation seed on the first
three items of the bundled `iclr2026/human_only` set (as of a030ae0, kept in tests/fixtures/prompt_render_items), as rendered
by the code before the prompt was
rendered in one place (BASE d1e37d9). A changed byte of any prompt, or a changed call seed (both feed
Inspect's cache key), fails the test.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import run_scripted
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.judges.prompts import prompt_names
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise

GOLDEN = Path(__file__).parents[2] / "fixtures" / "prompt_renders.json"
# The first ten items of the bundled set as they were when the golden renders were taken (a030ae0):
# re-mining the bundled set changes its texts, not the prompts under test.
ITEMS_DIR = Path(__file__).parents[2] / "fixtures" / "prompt_render_items"
ITEMS = 3


def answer(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """One fixed answer (the prompts, not the verdicts, are under test)."""
    out = ModelOutput.from_content("mockllm/model", "Verdict: A")
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def calls(log: EvalLog) -> dict[str, list[list[Any]]]:
    """Per sample id: (sha256 of the prompt, generation seed) of every model call, sorted."""
    assert log.samples is not None
    out = {}
    for sample in log.samples:
        seen = [
            [hashlib.sha256(e.input[-1].text.encode()).hexdigest(), e.config.seed]
            for e in sample.events
            if isinstance(e, ModelEvent)
        ]
        out[str(sample.id)] = sorted(seen)
    return out


def runs() -> list[tuple[str, Any, dict[str, Any]]]:
    """(name, task factory, task arguments) of every checked run: each prompt variant, and the cues."""
    out: list[tuple[str, Any, dict[str, Any]]] = []
    for name in prompt_names("pairwise"):
        out.append(
            (f"pairwise/{name}", novelty_pairwise, {"prompt": name, "both_orders": True, "k": 2})
        )
    for name in prompt_names("pointwise"):
        out.append((f"pointwise/{name}", novelty_pointwise, {"prompt": name}))
    out.append(
        (
            "pairwise/probe=presumption",
            novelty_pairwise,
            {"probe": "presumption", "both_orders": True},
        )
    )
    out.append(("pointwise/probe=presumption", novelty_pointwise, {"probe": "presumption"}))
    return out


def rendered(tmp_path: Path) -> dict[str, dict[str, list[list[Any]]]]:
    """Every checked run's calls (a real eval each, mockllm answering)."""
    out = {}
    for number, (name, factory, args) in enumerate(runs()):
        task = factory(dataset=str(ITEMS_DIR), resamples=100, cache=False, **args)
        log = run_scripted(
            task, answer, tmp_path / str(number), limit=ITEMS * (3 if "probe" in args else 1)
        )
        out[name] = calls(log)
    return out


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


def test_prompts_and_call_seeds_are_byte_identical_to_the_golden_renders(tmp_path: Path) -> None:
    """Every variant x three real items (both orders, k=2 pairwise) and the cue arms: same bytes, same seeds."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = rendered(tmp_path)
    assert set(got) == set(golden) and len(got) == 12
    for name in golden:
        assert got[name] == golden[name], name
    pairwise = got["pairwise/reference"]
    assert len(pairwise) == ITEMS and all(len(c) == 4 for c in pairwise.values())  # 2 orders x k=2
    assert all(len({h for h, _ in c}) == 2 for c in pairwise.values())  # ab and ba prompts differ


if __name__ == "__main__":  # regenerate: PYTHONPATH=tests python tests/judges/llm/test_prompted.py
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.write_text(
            json.dumps(rendered(Path(tmp)), indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
