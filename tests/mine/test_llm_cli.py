"""`judgeaudit mine --extractor litellm/...` end to end through litellm's real HTTP path.

Hosted models are unreachable here, so a tiny OpenAI-compatible chat-completions server on
127.0.0.1 stands in for the model. It reads the review out of our prompt and answers with the
sentences that mention novelty (affirm/dispute by a crude rule) plus one fabricated quote, so
the run shows quotes being verified (the fabricated one is dropped and counted) and answers
being cached (a second run makes no request).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers.mine_options import LOOSE

from judgeaudit.cli import main
from judgeaudit.data.jsonl import read_points
from judgeaudit.mine.signals.sentences import split_sentences

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"
FABRICATED = "This sentence was never written by the reviewer."


def answer_for(prompt: str) -> str:
    m = re.search(r"<review>\n(.*)\n</review>", prompt, re.S)
    if not m:
        return json.dumps({"remove": []})  # a sanitiser prompt: keep everything
    answer: dict[str, list[str]] = {"affirmations": [FABRICATED], "disputes": []}
    for sentence in split_sentences(m.group(1)):
        low = sentence.lower()
        if sentence.startswith("## "):
            continue
        if re.search(r"limited novelty|not novel|incremental|lack of novelty|lacks novelty", low):
            answer["disputes"].append(sentence)
        elif re.search(r"\bnovel\b|\boriginal", low):
            answer["affirmations"].append(sentence)
    return json.dumps(answer)


class _Handler(BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        type(self).requests.append(self.path)
        payload = {
            "id": "stub",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": answer_for(prompt)},
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    _Handler.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_llm_extractor_run_verifies_quotes_and_caches(stub_model: str, tmp_path: Path) -> None:
    args = [
        "mine",
        "--source",
        f"snapshot:{FIXTURE}",
        "--extractor",
        "litellm/openai/stub-model",
        "--sanitiser",
        "litellm/openai/stub-model",
        "--api-base",
        stub_model,
        "--llm-cache",
        str(tmp_path / "llm"),
        "--no-progress",
        *LOOSE,
    ]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    first_requests = len(_Handler.requests)
    assert first_requests > 0 and all(p.endswith("/chat/completions") for p in _Handler.requests)
    set_dir = tmp_path / "a" / "human_only"
    manifest = json.loads((set_dir / "manifest.json").read_text())
    mining = manifest["mining"]
    assert mining["extractor"] == "litellm/openai/stub-model"
    assert mining["sanitiser"] == "litellm/openai/stub-model"
    # one fabricated quote per review sent to the model, each dropped as not verbatim
    assert mining["quotes_dropped_not_verbatim"] > 0
    points = read_points(set_dir / "pointwise.jsonl")
    assert points
    for p in points:
        for quote in (*p.idea.evidence.positive_signals, *p.idea.evidence.negative_signals):
            assert quote != FABRICATED
    # the cache answers the second run: no request, same files
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    assert len(_Handler.requests) == first_requests
    for name in ("pairwise.jsonl", "pointwise.jsonl"):
        assert (set_dir / name).read_bytes() == (tmp_path / "b" / "human_only" / name).read_bytes()


def test_an_inspect_model_extractor_counts_unparsable_replies_and_keeps_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--extractor mockllm/model` goes through Inspect's model API; mockllm's default reply is not the JSON
    the prompt asks for, so every review sent is an unparsable failure, reported, and no paper is kept."""
    args = [
        "mine",
        "--source",
        f"snapshot:{FIXTURE}",
        "--extractor",
        "mockllm/model",
        "--llm-cache",
        str(tmp_path / "llm"),
        "--no-progress",
        "--out",
        str(tmp_path / "out"),
        *LOOSE,
    ]
    assert main(args) == 2
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("LLM extractor mockllm/model:"))
    sent = int(line.split(": ", 1)[1].split(" reviews sent")[0])
    assert sent > 0 and f"failed reviews: {sent} ({sent} unparsable)" in line
    assert (
        "labelled no novel or no not_novel idea" in err
        and not (tmp_path / "out" / "human_only").exists()
    )


def test_an_unknown_inspect_provider_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "mine",
        "--source",
        f"snapshot:{FIXTURE}",
        "--extractor",
        "nosuchprovider/model",
        "--no-progress",
        "--out",
        str(tmp_path / "out"),
    ]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "error: judgeaudit mine: --extractor nosuchprovider/model:"
    ), err


def _units_then_answers(tmp_path: Path, cache: Path) -> list[dict[str, str]]:
    """Export the work units of the stub-model extractor, answer each with the stub's own rule, import the answers."""
    units_file, answers_file = tmp_path / "units.jsonl", tmp_path / "answers.jsonl"
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{FIXTURE}",
                "--extractor",
                "litellm/openai/stub-model",
                "--no-progress",
                *LOOSE,
                "units",
                "--write",
                str(units_file),
            ]
        )
        == 0
    )
    units = [json.loads(line) for line in units_file.read_text().splitlines()]
    rows = [
        {
            "id": u["id"],
            "answer": answer_for(u["prompt"]),
            "model": "a stand-in annotator",
            "date": "2026-01-02",
        }
        for u in units
    ]
    answers_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert (
        main(
            [
                "mine",
                "answers",
                "--units",
                str(units_file),
                "--answers",
                str(answers_file),
                "--to",
                str(cache / "signals"),
            ]
        )
        == 0
    )
    return units


@pytest.mark.slow
def test_an_llm_pass_exported_answered_and_imported_is_replayed_offline_byte_for_byte(
    stub_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    units = _units_then_answers(tmp_path, tmp_path / "imported")
    assert units and all(
        u["prompt"].count("<review>") == 1 and "## strengths" in u["prompt"] for u in units
    )
    assert all(
        "## summary" not in u["prompt"] and "## questions" not in u["prompt"] for u in units
    )  # strengths, weaknesses
    replay = [
        "mine",
        "--source",
        f"snapshot:{FIXTURE}",
        "--extractor",
        "litellm/openai/stub-model",
        "--llm-replay",
        "--llm-cache",
        str(tmp_path / "imported"),
        "--no-progress",
        *LOOSE,
    ]
    names = ("labelled.jsonl", "pairwise.jsonl", "pointwise.jsonl", "manifest.json", "README.md")
    assert main([*replay, "--out", str(tmp_path / "r1")]) == 0
    first = {n: (tmp_path / "r1" / "human_only" / n).read_bytes() for n in names}
    assert main([*replay, "--out", str(tmp_path / "r1")]) == 0  # a second replay: the same bytes
    assert first == {n: (tmp_path / "r1" / "human_only" / n).read_bytes() for n in names}
    assert not _Handler.requests  # no model call at all
    manifest = json.loads(first["manifest.json"])
    record = manifest["mining"]["extractor_record"]
    assert record["provenance"]["models"] == ["a stand-in annotator"] and record["provenance"][
        "dates"
    ] == ("2026-01-02 to 2026-01-02")
    assert (
        record["provenance"]["answers"] == len(units)
        and "--llm-replay" in manifest["build_command"]
    )
    assert set(record["agreement_with_offline"]["labels"]) == {"novel", "not_novel"}
    card = first["README.md"].decode()
    assert (
        "This set is built by the extractor `litellm/openai/stub-model`" in card
        and "Agreement with the offline" in card
    )
    # the live model asked the same questions: one request per work unit, and the same labels
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{FIXTURE}",
                "--extractor",
                "litellm/openai/stub-model",
                "--api-base",
                stub_model,
                "--llm-cache",
                str(tmp_path / "live"),
                "--no-progress",
                *LOOSE,
                "--out",
                str(tmp_path / "live-set"),
            ]
        )
        == 0
    )
    assert len(_Handler.requests) == len(units)
    for name in ("labelled.jsonl", "pairwise.jsonl", "pointwise.jsonl"):
        assert (tmp_path / "live-set" / "human_only" / name).read_bytes() == first[name]


def test_a_replay_with_an_answer_missing_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "imported"
    _units_then_answers(tmp_path, cache)
    next(cache.rglob("*.json")).unlink()
    capsys.readouterr()
    code = main(
        [
            "mine",
            "--source",
            f"snapshot:{FIXTURE}",
            "--extractor",
            "litellm/openai/stub-model",
            "--llm-replay",
            "--llm-cache",
            str(cache),
            "--no-progress",
            *LOOSE,
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "1 review(s) have no cached answer" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "human_only").exists()


def test_answers_that_name_no_unit_or_contradict_the_cache_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "c"
    units = _units_then_answers(tmp_path, cache)
    bad = tmp_path / "bad.jsonl"
    for row, message in [
        ({"id": "f" * 64, "answer": "{}", "model": "m", "date": "d"}, "is not a unit of"),
        (
            {
                "id": units[0]["id"],
                "answer": '{"affirmations": [], "disputes": []}',
                "model": "m",
                "date": "d",
            },
            "already has another answer",
        ),
        ({"id": units[0]["id"], "model": "m", "date": "d"}, "missing or empty field(s) answer"),
    ]:
        bad.write_text(json.dumps(row) + "\n")
        capsys.readouterr()
        assert (
            main(
                [
                    "mine",
                    "answers",
                    "--units",
                    str(tmp_path / "units.jsonl"),
                    "--answers",
                    str(bad),
                    "--to",
                    str(cache / "signals"),
                ]
            )
            == 2
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0] and "bad.jsonl:1" in err[0], err
