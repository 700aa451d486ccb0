"""The `judgeaudit audit` command: a full run through the console entry point, and option errors.

The judged model is a scripted test double registered as an Inspect model provider
(`scripted/<policy>`), since no real LLM is reachable in unit tests; everything else (the CLI,
the eval-set, the tasks, the logs, the card) is the real thing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi

from judgeaudit.cli import main

FIX = Path(__file__).resolve().parent / "fixtures" / "probe_items"


@modelapi(name="scripted")
def _scripted() -> type[ModelAPI]:
    class Scripted(ModelAPI):
        """`scripted/<policy>`: answers with the named policy of tests/fixtures/probe_judges."""

        def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                     config: GenerateConfig | None = None, **model_args: Any) -> None:
            super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
            self.reply = scripted.judge(getattr(scripted, model_name))

        async def generate(self, input: list[Any], tools: list[Any], tool_choice: Any, config: GenerateConfig) -> ModelOutput:
            return self.reply(input, tools, tool_choice, config)

    return Scripted


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private Inspect cache per test."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


@pytest.mark.slow
def test_cli_writes_card_and_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "card"
    gates = tmp_path / "gates.json"
    gates.write_text(json.dumps({"position_first": {"pass_at": 0.2, "fail_at": 0.45}}), encoding="utf-8")
    code = main(["audit", "--model", "scripted/always_first", "--dataset", str(FIX), "--limit", "2",
                 "--probes", "position,repeat", "--out", str(out), "--gates", str(gates),
                 "--resamples", "500", "--display", "none", "-M", "api_key=sk-PLANTED-4d1f", "-M", "flavour=plain"])
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.startswith("verdict: unfit") and "card.md" in printed
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["items"]["count"] == 2 and card["judge"]["gates_file"] == str(gates)
    first = next(g for g in card["gates"] if g["name"] == "position_first")
    assert (first["pass_at"], first["fail_at"], first["outcome"]) == (0.2, 0.45, "fail")
    md = (out / "card.md").read_text(encoding="utf-8")
    assert "fail if |x - 0.5| > 0.45" in md.replace("\\|", "|")
    assert card["judge"]["model_args"] == {"api_key": "<redacted>", "flavour": "plain"}
    assert (f"`judgeaudit audit --model scripted/always_first -M flavour=plain --prompt reference --dataset {FIX} "
            f"--kind pairwise --limit 2 --probes position,repeat --gates {gates} --out {out}`") in md
    assert "sk-PLANTED-4d1f" not in md + (out / "card.json").read_text(encoding="utf-8") + printed


@pytest.mark.parametrize(("extra", "message"), [
    (["--probes", "position,loudness"], "unknown probe(s) for pairwise: ['loudness']"),
    (["--kind", "pointwise", "--probes", "position"], "unknown probe(s) for pointwise: ['position']"),
    (["--limit", "0"], "--limit must be a positive number"),
    (["--gates", "/nonexistent/gates.yaml"], "cannot read gates file"),
    (["--dataset", "/nonexistent/set"], "unknown dataset"),
])
def test_cli_option_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    args = ["audit", "--model", "scripted/accurate", "--dataset", str(FIX), "--out", str(tmp_path / "o"), "--display", "none"]
    code = main(args + extra)
    assert code == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o" / "card.md").exists()


@pytest.mark.slow
def test_resume_with_other_items_or_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", "--dataset", str(FIX), "--out", str(tmp_path / "o"), "--probes", "position",
            "--resamples", "200", "--display", "none"]
    assert main([*base, "--model", "scripted/accurate", "--limit", "1"]) == 0
    assert main([*base, "--model", "scripted/accurate", "--limit", "1"]) == 0  # a plain resume is fine
    capsys.readouterr()
    assert main([*base, "--model", "scripted/accurate", "--limit", "2"]) == 1
    assert "different items_sha256" in capsys.readouterr().err
    assert main([*base, "--model", "scripted/always_first", "--limit", "1"]) == 1
    assert "different model" in capsys.readouterr().err


def test_limit_takes_gold_classes_in_turn() -> None:
    from dataclasses import replace

    from judgeaudit.data.jsonl import read_items
    from judgeaudit.probes.audit import balanced_head

    pairs = read_items(FIX / "pairwise.jsonl", "pairwise")
    skewed = [replace(p, pair_id=f"{p.pair_id}-{k}", gold="a") for k, p in enumerate(pairs)] + list(pairs)
    head = balanced_head(skewed, 4)
    assert sorted(p.gold for p in head) == ["a", "a", "b", "b"]
    assert [p.item_id for p in head] == [p.item_id for p in skewed if p in head]  # file order kept
    assert len(balanced_head(skewed, 100)) == len(skewed)
