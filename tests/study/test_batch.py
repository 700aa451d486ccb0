"""Batch mode with the judge tasks: Inspect's own OpenAI provider with `batch` on, against the local
stand-in of OpenAI's Batch API (`tests/servers/openai_batch.py`; the hosted API is unreachable here).

The study runner (`judgeaudit.study.run.run_study`) runs one cell on the 4 fixture pairs, k = 1, one
request per batch: every call goes out in a batch file; a failed line is a failed call (`error`, the
sample errors, never a verdict); the eval set runs the errored samples again, so a line that failed
once (500) is then judged and one that fails for good (400) stays an error; each item ends with one
verdict or one error, and the log's cost is priced at litellm's batch price. Running the same
study again resumes it: only the failed item goes out again.

Inspect 0.3.285 reads a failed line of OpenAI's error file (HTTP status and error body under
`response`) as a failure of the whole batch, so every request of a batch holding one failed line
fails with it: still failed calls, never verdicts. One request per batch keeps the cases apart here.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import BatchConfig, GenerateConfig, get_model, get_model_info
from servers.openai_batch import LineError, OpenAIBatchServer, default_reply

from judgeaudit.providers.litellm_api import BatchNotSupported, import_litellm
from judgeaudit.study.protocol import Cell
from judgeaudit.study.run import run_study

MODEL = "openai/gpt-4o-mini"
PAIRS = [
    json.loads(line)
    for line in (FIXTURES / "probe_items" / "pairwise.jsonl").read_text().splitlines()
]
TRANSIENT, BROKEN = PAIRS[1]["pair_id"], PAIRS[2]["pair_id"]


def _pair_of(body: dict[str, Any]) -> str:
    """The fixture pair a request's prompt shows (by its first idea's opening words)."""
    text = json.dumps(body["messages"])
    hits = [p["pair_id"] for p in PAIRS if p["idea_a"]["text"][:60] in text]
    assert len(hits) == 1, text[:200]
    return str(hits[0])


def run(root: Path, **retries: int) -> bool:
    """The study runner on one cell (the fixture pairs, k = 1), one request per batch, polled fast."""
    return run_study(
        [Cell("pairwise", "reference", str(FIXTURES / "probe_items"))],
        [MODEL],
        str(root / "logs"),
        {"k": 1},
        batch=BatchConfig(size=1, max_size=1, send_delay=0.05, tick=0.05),
        display="none",
        **retries,
    )


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    failed_once: set[str] = set()

    def reply(body: dict[str, Any]) -> dict[str, Any] | LineError:
        pair = _pair_of(body)
        if pair == BROKEN:
            return LineError(400, "the request is malformed")
        if pair == TRANSIENT and pair not in failed_once:
            failed_once.add(pair)
            return LineError(500, "the server had an error")
        return default_reply(body)

    root = tmp_path_factory.mktemp("batch")
    price_before = get_model_info(MODEL)
    mp = pytest.MonkeyPatch()
    with OpenAIBatchServer(line_reply=reply, polls_before_done=1) as srv:
        mp.setenv("OPENAI_BASE_URL", srv.url)
        mp.setenv("OPENAI_API_KEY", "test-key")
        mp.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        try:
            ok = run(root, retry_attempts=2, retry_wait=1)
            lines, batches, polls = list(srv.lines), dict(srv.batches), srv.polls
            again = run(root, retry_attempts=0)  # the same run again resumes it
            resent = srv.lines[len(lines) :]
        finally:
            mp.undo()
    logs = [read_eval_log(info.name) for info in list_eval_logs(str(root / "logs"))]
    assert len(logs) == 1  # the retry wrote over the first attempt's log
    return {
        "ok": ok,
        "log": logs[0],
        "lines": lines,
        "batches": batches,
        "polls": polls,
        "again": again,
        "resent": resent,
        "price_before": price_before,
    }


def test_every_call_goes_out_in_batches_and_each_item_is_judged_once(
    batch_run: dict[str, Any],
) -> None:
    lines, batches = batch_run["lines"], batch_run["batches"]
    assert batches and batch_run["polls"] >= len(batches)  # polled until completed
    assert {b["endpoint"] for b in batches.values()} == {"/v1/chat/completions"}
    assert len(batches) == len(lines)  # one request per batch
    answered = Counter(_pair_of(line["body"]) for line in lines if line["status"] == 200)
    failed = Counter(_pair_of(line["body"]) for line in lines if line["status"] != 200)
    # one answered call per pair but the broken one; the failed ones went again when the eval
    # set ran the errored samples: the transient one was then answered, the broken one never
    assert answered == {p["pair_id"]: 1 for p in PAIRS if p["pair_id"] != BROKEN}
    assert failed[TRANSIENT] == 1 and failed[BROKEN] >= 2 and set(failed) == {TRANSIENT, BROKEN}
    assert batch_run["ok"] is False  # the broken item is an error: the eval set did not complete
    assert batch_run["again"] is False
    # resumed: only the broken pair goes out again (each call retries it within its budget)
    assert {_pair_of(line["body"]) for line in batch_run["resent"]} == {BROKEN}
    log = batch_run["log"]
    assert log.samples is not None and sorted(s.id for s in log.samples) == sorted(
        p["pair_id"] for p in PAIRS
    )


def test_failed_lines_are_failed_calls_never_verdicts(batch_run: dict[str, Any]) -> None:
    by_id = {s.id: s for s in batch_run["log"].samples}
    broken = by_id[BROKEN]
    # the cause is Inspect's reading of the error line (it validates the error body as a completion)
    assert broken.error is not None and "1 of 1 calls failed" in broken.error.message
    calls = broken.scores["novelty"].metadata["calls"]
    assert [c["verdict"] for c in calls] == ["error"]
    for pair_id in {p["pair_id"] for p in PAIRS} - {BROKEN}:
        sample = by_id[pair_id]
        assert sample.error is None
        verdicts = [c["verdict"] for c in sample.scores["novelty"].metadata["calls"]]
        assert verdicts == ["a"], (pair_id, verdicts)


def test_cost_is_at_the_batch_price(batch_run: dict[str, Any]) -> None:
    info = import_litellm().get_model_info(MODEL)
    per_call = 42 * info["input_cost_per_token_batches"] + 7 * info["output_cost_per_token_batches"]
    standard = 42 * info["input_cost_per_token"] + 7 * info["output_cost_per_token"]
    assert per_call < standard
    answered = len(PAIRS) - 1  # the recorded-shape replies use 42 + 7 tokens each
    total = sum(
        u.total_cost or 0.0 for s in batch_run["log"].samples for u in s.model_usage.values()
    )
    assert total == pytest.approx(answered * per_call)


def test_the_batch_price_does_not_outlive_the_study(batch_run: dict[str, Any]) -> None:
    """Inspect keeps prices for the process: after the study, later runs are priced as before it."""
    assert get_model_info(MODEL) == batch_run["price_before"]


def test_the_litellm_provider_refuses_batch_mode_naming_the_native_one(tmp_path: Path) -> None:
    said = r"^--batch: the litellm/ provider does not batch; .*--model openai/gpt-4o-mini"
    with pytest.raises(BatchNotSupported, match=said):  # the study, before anything runs
        run_study(
            [Cell("pairwise", "reference", str(FIXTURES / "probe_items"))],
            ["litellm/openai/gpt-4o-mini"],
            str(tmp_path / "logs"),
            {},
            batch=BatchConfig(),
        )
    assert not (tmp_path / "logs").exists()
    with pytest.raises(BatchNotSupported, match=said):  # the provider, under `inspect eval --batch`
        get_model("litellm/openai/gpt-4o-mini", config=GenerateConfig(batch=True))
