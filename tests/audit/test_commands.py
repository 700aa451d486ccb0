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
from helpers.items import FIXTURES
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi

from judgeaudit.cli import main

FIX = FIXTURES / "probe_items"


@modelapi(name="scripted")
def _scripted() -> type[ModelAPI]:
    class Scripted(ModelAPI):
        """`scripted/<policy>`: answers with the named policy of tests/fixtures/probe_judges."""

        def __init__(
            self,
            model_name: str,
            base_url: str | None = None,
            api_key: str | None = None,
            config: GenerateConfig | None = None,
            **model_args: Any,
        ) -> None:
            super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
            self.reply = scripted.judge(getattr(scripted, model_name))

        async def generate(
            self, input: list[Any], tools: list[Any], tool_choice: Any, config: GenerateConfig
        ) -> ModelOutput:
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
    gates.write_text(
        json.dumps({"position_first": {"pass_at": 0.2, "fail_at": 0.45}}), encoding="utf-8"
    )
    code = main(
        [
            "audit",
            "--model",
            "scripted/always_first",
            "--dataset",
            str(FIX),
            "--limit",
            "2",
            "--probes",
            "position,repeat",
            "--out",
            str(out),
            "--gates",
            str(gates),
            "--resamples",
            "500",
            "-M",
            "api_key=sk-PLANTED-4d1f",
            "-M",
            "flavour=plain",
        ]
    )
    printed, progress = capsys.readouterr()
    assert code == 0
    # the default (compact) display: Inspect's is off, one stderr line per battery task as it ends
    lines = progress.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"task {i} of 3" for i in (1, 2, 3)]
    assert sorted(line.split(": ", 1)[1] for line in lines) == [
        "position, 4 of 4 samples",
        "repeat, 2 of 2 samples",
        "unperturbed, 2 of 2 samples",
    ]
    # 2 items: the intervals are too wide for a gate to pass or fail (position_first's [0.198, 1] straddles), never fit or unfit
    assert (
        printed.startswith("verdict: use with care")
        and "inconclusive: position_first" in printed
        and "card.md" in printed
    )
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["items"]["count"] == 2 and card["judge"]["gates_file"] == str(gates)
    first = next(g for g in card["gates"] if g["name"] == "position_first")
    assert (first["pass_at"], first["fail_at"], first["outcome"]) == (0.2, 0.45, "inconclusive")
    md = (out / "card.md").read_text(encoding="utf-8")
    assert "fail if |x - 0.5| > 0.45" in md.replace("\\|", "|")
    assert card["judge"]["model_args"] == {"api_key": "<redacted>", "flavour": "plain"}
    assert (
        f"`judgeaudit audit --model scripted/always_first -M flavour=plain --prompt reference --dataset {FIX} "
        f"--kind pairwise --limit 2 --probes position,repeat --resamples 500 --gates {gates} --out {out}`"
    ) in md
    assert "## Surface-perturbation ratio" in md and "Not shown: does not apply" in md
    assert card["surface_ratio"]["applies"] is False
    assert (
        next(g for g in card["gates"] if g["name"] == "surface_ratio")["outcome"]
        == "not_applicable"
    )
    assert "sk-PLANTED-4d1f" not in md + (out / "card.json").read_text(encoding="utf-8") + printed


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--probes", "position,loudness"], "--probes: unknown probe(s) for pairwise: loudness"),
        (
            ["--kind", "pointwise", "--probes", "position"],
            "--probes: unknown probe(s) for pointwise: position",
        ),
        (["--limit", "0"], "--limit must be at least 1, got 0"),
        (["--gates", "/nonexistent/gates.yaml"], "cannot read gates file"),
        (["--dataset", "/nonexistent/set"], "unknown dataset"),
        (["--judge", "oracle"], "unknown judge 'oracle'"),
        (["-T", "seed=3"], "-T seed=... is set by the audit itself; use --seed"),
        (["-T", "loudness=3"], "-T loudness: not an option of the pairwise judge task"),
        (["-T", "novalue"], "-T expects key=value"),
        (["-M", "novalue"], "-M expects key=value"),
    ],
)
def test_cli_option_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    args = [
        "audit",
        "--model",
        "scripted/accurate",
        "--dataset",
        str(FIX),
        "--out",
        str(tmp_path / "o"),
        "--display",
        "none",
    ]
    code = main(args + extra)
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: judgeaudit audit: ") and message in err
    assert not (tmp_path / "o" / "card.md").exists()


@pytest.mark.slow
def test_resume_with_other_items_or_model_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [
        "audit",
        "--dataset",
        str(FIX),
        "--out",
        str(tmp_path / "o"),
        "--probes",
        "position",
        "--resamples",
        "200",
        "--display",
        "none",
    ]
    assert main([*base, "--model", "scripted/accurate", "--limit", "1"]) == 0
    assert (
        main([*base, "--model", "scripted/accurate", "--limit", "1"]) == 0
    )  # a plain resume is fine
    capsys.readouterr()
    assert main([*base, "--model", "scripted/accurate", "--limit", "2"]) == 2
    assert "different items_sha256" in capsys.readouterr().err
    assert main([*base, "--model", "scripted/always_first", "--limit", "1"]) == 2
    assert "different model" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("nosuch/model", "Model API nosuch"),
        ("local/not-there.gguf", "'not-there.gguf' does not exist"),
    ],
)
def test_a_model_that_cannot_start_is_one_line_and_leaves_the_out_dir_free(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, said: str
) -> None:
    out = tmp_path / "o"
    base = [
        "audit",
        "--dataset",
        str(FIX),
        "--out",
        str(out),
        "--probes",
        "position",
        "--resamples",
        "200",
        "--display",
        "none",
        "--limit",
        "1",
    ]
    assert main([*base, "--model", model]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err.startswith(f"error: judgeaudit audit: --model {model} cannot be used: ") and said in err
    )
    assert len(err.splitlines()) == 1 and "internal error" not in err
    assert not (out / "audit-run.json").exists() and not (out / "items").exists()
    assert (
        main([*base, "--model", "scripted/accurate"]) == 0
    )  # the same --out, the right model: it runs


def test_limit_takes_gold_classes_in_turn() -> None:
    from dataclasses import replace

    from judgeaudit.audit.battery import balanced_head
    from judgeaudit.data.jsonl import read_items

    pairs = read_items(FIX / "pairwise.jsonl", "pairwise")
    skewed = [replace(p, pair_id=f"{p.pair_id}-{k}", gold="a") for k, p in enumerate(pairs)] + list(
        pairs
    )
    head = balanced_head(skewed, 4)
    assert sorted(p.gold for p in head) == ["a", "a", "b", "b"]
    assert [p.item_id for p in head] == [p.item_id for p in skewed if p in head]  # file order kept
    assert len(balanced_head(skewed, 100)) == len(skewed)


def _task_args(log_dir: Path) -> list[dict[str, Any]]:
    """The task arguments of every log in an audit's log directory."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    return [
        read_eval_log(info, header_only=True).eval.task_args
        for info in list_eval_logs(str(log_dir))
    ]


@pytest.mark.slow
def test_task_options_reach_every_task_and_the_card(tmp_path: Path) -> None:
    out = tmp_path / "k2"
    code = main(
        [
            "audit",
            "--model",
            "scripted/accurate",
            "--dataset",
            str(FIX),
            "--limit",
            "1",
            "--probes",
            "repeat,surface",
            "--out",
            str(out),
            "--resamples",
            "200",
            "--display",
            "none",
            "-T",
            "k=2",
        ]
    )
    assert code == 0
    args = _task_args(out / "logs")
    assert len(args) == 3 and all(a["k"] == 2 for a in args)  # unperturbed, repeat, surface
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["judge"]["judge"] == "prompted" and card["judge"]["judge_options"] == {"k": 2}
    md = (out / "card.md").read_text(encoding="utf-8")
    assert (
        "task options: `k=2`" in md and "--model scripted/accurate -T k=2 --prompt reference" in md
    )


@pytest.mark.slow
def test_audit_of_a_distance_judge_without_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--judge distance_nn --model none` on the 4 fixture pairs: the real judge (bundled corpus, default
    embedder; a first MiniLM run embeds that corpus once and caches it) through real eval-sets, and a
    card with the surface-perturbation ratio."""
    out = tmp_path / "dnn"
    base = [
        "audit",
        "--model",
        "none",
        "--dataset",
        str(FIX),
        "--resamples",
        "300",
        "--display",
        "none",
    ]
    assert main([*base, "--judge", "distance_nn", "--out", str(out)]) == 0
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert (card["judge"]["judge"], card["judge"]["model"]) == ("distance_nn", "none")
    assert (
        card["items"]["count"] == 4 and 0 < card["items"]["judged"] < 4
    )  # the rest fit the verdict rule
    assert all(a["judge"] == "distance_nn" for a in _task_args(out / "logs"))

    sr = card["surface_ratio"]
    assert (
        sr["applies"] is True and sr["n_ideas"] == 8 and sr["n_area_pairs"] == 4
    )  # one area per fixture pair
    assert sr["edits_applied"] + sr["edits_skipped"] == 3 * 8
    assert sr["edits_skipped"] == sum(int(e["skipped"]) for e in sr["edits"].values())
    r = sr["ratio"]
    assert r["estimate"] == pytest.approx(sr["median_shift"] / sr["typical_difference"])
    assert r["low"] <= r["estimate"] <= r["high"] and (r["resamples"], r["seed"]) == (300, 20260)

    gates = {g["name"]: g for g in card["gates"]}
    assert {n for n, g in gates.items() if g["outcome"] == "not_applicable"} == {
        "position_flip",
        "position_first",
        "presumption",
        "self_preference",
    }
    assert gates["surface_ratio"]["outcome"] != "not_run" and gates["surface_ratio"][
        "estimate"
    ] == pytest.approx(r["estimate"])
    probes = card["probes"]
    assert (
        probes["position"]["status"] == "not_applicable"
        and "presentation order" in probes["position"]["note"]
    )
    assert {p for p, v in probes.items() if v["status"] == "ok"} == {
        "verbosity",
        "surface",
        "injection",
        "repeat",
    }
    assert (
        probes["repeat"]["figures"]["noise_floor"]["value"]["estimate"] == 0.0
    )  # a deterministic judge

    md = (out / "card.md").read_text(encoding="utf-8")
    assert md.startswith("# Audit card: `distance_nn` judge, model `none` (pairwise)")
    assert "## Surface-perturbation ratio" in md and f"Ratio: **{r['estimate']:.3f}**" in md
    assert "| position | does not apply: this judge scores each idea on its own" in md
    assert (
        f"`judgeaudit audit --model none --judge distance_nn --prompt reference --dataset {FIX} --kind pairwise "
        f"--resamples 300 --out {out}`"
    ) in md

    capsys.readouterr()
    assert main([*base, "--judge", "distance_nn", "--out", str(out)]) == 0  # a plain resume
    assert main([*base, "--judge", "distance_mean", "--out", str(out)]) == 2
    assert "different judge" in capsys.readouterr().err
    # an option the judge cannot honour is refused by its task, by name, before the out dir is claimed
    other = tmp_path / "retrieval"
    assert main([*base, "--judge", "distance_nn", "-T", "retrieval=5", "--out", str(other)]) == 2
    assert "cannot honour retrieval" in capsys.readouterr().err
    assert not (other / "audit-run.json").exists()
    assert main([*base, "--out", str(tmp_path / "llm")]) == 2
    assert "judge 'prompted' calls an LLM" in capsys.readouterr().err


def _closed_port() -> str:
    """A loopback URL nothing listens on (a port bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.mark.slow
def test_an_audit_that_could_not_judge_exits_3_with_one_line_and_a_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], retry_waits: list[float]
) -> None:
    """The litellm provider against a closed loopback port (the real refusal): every call fails,
    the card is written and says why, stderr has one line, the exit status is 3. (Backoff waits are
    recorded, not slept.)"""
    url = _closed_port()
    out = tmp_path / "card"
    code = main(
        [
            "audit",
            "--model",
            "litellm/openai/gpt-4o-mini",
            "-M",
            f"api_base={url}",
            "-M",
            "api_key=sk-x",
            "-M",
            "max_retries=1",
            "--dataset",
            str(FIX),
            "--limit",
            "2",
            "--probes",
            "repeat",
            "--out",
            str(out),
            "--resamples",
            "200",
            "--display",
            "none",
        ]
    )
    captured = capsys.readouterr()
    assert code == 3
    ours = [line for line in captured.err.splitlines() if "judgeaudit audit:" in line]
    assert ours == [
        f"error: judgeaudit audit: could not judge: 4 of 4 calls failed: connection refused at {url} "
        f"({ours[0].split(f'connection refused at {url} (', 1)[1]}"
    ]
    assert ours[0].endswith(f"(card: {out / 'card.md'})") and "Traceback" not in captured.err
    assert captured.out.startswith("verdict: could not judge")
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["verdict"] == "could not judge" and card["failed_calls"]["failed"] == 4
    assert card["failed_calls"]["statement"] in ours[0]
    assert "COULD NOT JUDGE" in (out / "card.md").read_text(encoding="utf-8")
    assert retry_waits and all(1.0 <= w <= 2.0 for w in retry_waits)


@pytest.mark.slow
def test_the_cards_reproduce_line_reproduces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The card's Reproduce line, run as it stands, resumes the same audit (it keeps --generated and
    --no-cache; it used to drop --generated, so the out dir refused it with other items_sha256)."""
    import shlex

    out = tmp_path / "o"
    first = main(
        [
            "audit",
            "--model",
            "planted/accurate",
            "--generated",
            "iclr2026/human_generated",
            "--no-cache",
            "--probes",
            "self_preference",
            "--limit",
            "1",
            "--resamples",
            "200",
            "--out",
            str(out),
            "--display",
            "none",
        ]
    )
    card = (out / "card.md").read_text(encoding="utf-8")
    line = card.split("## Reproduce", 1)[1].split("`")[1]
    assert "--generated iclr2026/human_generated" in line and "--no-cache" in line
    logs = sorted((out / "logs").rglob("*.eval"))
    capsys.readouterr()
    argv = shlex.split(line)
    assert argv[0] == "judgeaudit" and main([*argv[1:], "--display", "none"]) == first
    assert "different" not in capsys.readouterr().err
    assert sorted((out / "logs").rglob("*.eval")) == logs  # resumed: nothing ran again
    assert (out / "card.md").read_text(encoding="utf-8").split("## Reproduce", 1)[1].split("`")[
        1
    ] == line
