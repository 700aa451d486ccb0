"""Cost of every judge kind reaches the logs and the report's cost table and cost-vs-quality figure.

LLM judges run through our real `litellm/` provider against `tests/servers/openai_recorded.py`
(a stdlib stand-in for a hosted OpenAI-compatible API, unreachable here) with a price set by
`-M input_cost_per_token` / `output_cost_per_token`; litellm, Inspect, the judges and the report
are the real ones. Metric judges run with `--model none` and make no model call: their cost is
a known 0, not unknown. Items and prior work are real ICLR 2026 abstracts of the bundled corpus.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers.real_items import real_pairs
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from servers.openai_recorded import (
    RecordedOpenAIServer,
    Reply,
    chat_completion,
    tool_call_completion,
)

from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.tasks import novelty_metric_pairwise, novelty_pairwise
from judgeaudit.report.build import build_report
from judgeaudit.retrieval.build_corpus import write_corpus
from judgeaudit.retrieval.corpus import Corpus, load_corpus

pytestmark = pytest.mark.slow

IN_PRICE, OUT_PRICE = 1e-6, 4e-6  # USD per token, passed as model args
PROMPT_TOKENS, COMPLETION_TOKENS = 42, 7  # what the recorded server reports per call
PER_CALL = PROMPT_TOKENS * IN_PRICE + COMPLETION_TOKENS * OUT_PRICE
N_LLM_ITEMS = 3

DIMENSIONS = "problem: 2\ndata: 1\nmethod: 3\nobjective: 1\nevaluation: 1\nassumptions: 2\nScore: 2"


# Scripted answers per judge kind: each one parses under that judge's own answer format.
def _agent(request: dict[str, Any]) -> Reply:
    """Agentic judge: one search through the tool, then (after the tool result) a verdict."""
    if any(m.get("role") == "tool" for m in request["messages"]):
        return Reply(
            200,
            chat_completion(
                "The search found nothing close.\nVerdict: A",
                request["model"],
                PROMPT_TOKENS,
                COMPLETION_TOKENS,
            ),
        )
    assert request.get("tools"), "the agentic judge must offer its search tool"
    return Reply(
        200,
        tool_call_completion(
            [("search_prior_work", '{"query": "representation learning"}')],
            request["model"],
            PROMPT_TOKENS,
            COMPLETION_TOKENS,
        ),
    )


LLM_JUDGES: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], str]]] = {
    "prompted": ({}, lambda request: "The first idea adds a mechanism.\nVerdict: A"),
    "retrieval": ({"retrieval": 2}, lambda request: "Both extend the retrieved work.\nVerdict: B"),
    "novelty_checker": (
        {"judge": "novelty_checker", "retrieval": 2},
        lambda request: "No cited overlap.\nVerdict: A",
    ),
    "ai_scientist": (
        {"judge": "ai_scientist"},
        lambda request: "Nothing close was found.\nVerdict: NOVEL",
    ),
    "rubric": ({"judge": "rubric"}, lambda request: "A modest extension.\nScore: 2"),
    "two_stage": ({"judge": "two_stage"}, lambda request: DIMENSIONS),
    "agentic": ({"judge": "agentic"}, lambda request: "unused: replies come from _agent"),
}
REPLY_FOR: dict[str, Callable[[dict[str, Any]], Reply]] = {"agentic": _agent}


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect_cache"))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """16 pairs of real abstracts and a 64-paper prior-work corpus holding those very papers and 32 others.

    (Was 400 papers; `distance_nn` embeds its whole corpus with MiniLM first, which was most of this
    module's time, and nothing here depends on the corpus size: costs, the retrieval of 2 works per
    side and the `-T retrieval_corpus` route are the same with 32 papers beside the judged ones.)"""
    root = tmp_path_factory.mktemp("cost_all")
    docs: Corpus = load_corpus().head(64)
    pairs = real_pairs(docs, 16)
    write_items(root / "set" / "pairwise.jsonl", pairs)
    corpus_file = root / "corpus.jsonl.gz"
    write_corpus(list(docs.documents), corpus_file)
    return root / "set", corpus_file


def _eval(task: Task, logdir: Path, model: str, **kwargs: Any) -> EvalLog:
    log = inspect_eval(
        task, model=model, log_dir=str(logdir), display="none", retry_on_error=0, **kwargs
    )[0]
    assert log.status == "success", log.error
    return log


def _sample_cost(sample: Any) -> float | None:
    usages = list((sample.model_usage or {}).values())
    if not usages or any(u.total_cost is None for u in usages):
        return None
    return float(sum(u.total_cost for u in usages))


@pytest.fixture(scope="module")
def runs(workspace: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One log per judge kind (LLM judges on the items the metric judges score), plus the report."""
    set_dir, corpus_file = workspace
    logdir = tmp_path_factory.mktemp("cost_logs")
    logs: dict[str, EvalLog] = {}
    logs["metric_ngram"] = _eval(
        novelty_metric_pairwise(
            dataset=str(set_dir),
            judge="metric_ngram",
            corpus=str(corpus_file),
            embedder="tfidf",
            resamples=200,
        ),
        logdir,
        "none",
    )
    logs["distance_nn"] = _eval(
        novelty_pairwise(
            dataset=str(set_dir),
            judge="distance_nn",
            retrieval_corpus=str(corpus_file),
            resamples=200,
        ),
        logdir,
        "none",
    )
    scored = sorted(str(s.id) for s in logs["metric_ngram"].samples or [])[:N_LLM_ITEMS]
    requests: dict[str, int] = {}
    for name, (options, answer) in LLM_JUDGES.items():
        task = novelty_pairwise(
            dataset=str(set_dir),
            retrieval_corpus=str(corpus_file),
            cache=False,
            resamples=200,
            **options,
        )
        with RecordedOpenAIServer(default_content=answer, reply_for=REPLY_FOR.get(name)) as srv:
            logs[name] = _eval(
                task,
                logdir,
                "litellm/openai/judge-under-test",
                sample_id=scored,
                model_args={
                    "api_base": srv.url,
                    "api_key": "sk-test-key-123456",
                    "input_cost_per_token": IN_PRICE,
                    "output_cost_per_token": OUT_PRICE,
                },
            )
        requests[name] = len(srv.requests)
    report = build_report(logdir, logdir / "report", resamples=200, intersect=True)
    return {
        "logs": logs,
        "requests": requests,
        "scored": scored,
        "report": report,
        "out": logdir / "report",
    }


@pytest.mark.parametrize("judge", sorted(LLM_JUDGES))
def test_every_llm_judge_logs_the_cost_of_every_call(runs: dict[str, Any], judge: str) -> None:
    log, n_requests = runs["logs"][judge], runs["requests"][judge]
    assert n_requests >= N_LLM_ITEMS  # at least one billed call per item
    if judge == "agentic":  # a search, then a verdict, per item
        assert n_requests == 2 * N_LLM_ITEMS
        for s in log.samples or []:
            searches = s.scores["novelty"].metadata["retrieved"]["queries"]
            assert [q["query"] for q in searches] == ["representation learning"] and searches[0][
                "ids"
            ]
    samples = log.samples or []
    assert sorted(str(s.id) for s in samples) == runs["scored"]
    costs = [_sample_cost(s) for s in samples]
    assert all(c is not None and c > 0 for c in costs), costs
    assert sum(c or 0.0 for c in costs) == pytest.approx(n_requests * PER_CALL)
    for s in samples:
        verdict = s.scores["novelty"].answer
        assert verdict in ("a", "b", "tie"), (
            judge,
            s.id,
            verdict,
        )  # the scripted answers all parse


@pytest.mark.parametrize("judge", ["metric_ngram", "distance_nn"])
def test_metric_judges_cost_nothing_and_say_so(runs: dict[str, Any], judge: str) -> None:
    log = runs["logs"][judge]
    samples = log.samples or []
    assert samples and all(not s.model_usage for s in samples)
    # `-T retrieval_corpus` reaches the judges built through `-T judge=...`, like the direct task's `corpus`
    assert (
        log.eval.metadata["judgeaudit"]["metric_rule"]["prior_work"]["corpus"] == "corpus"
    )  # not the bundled one


def test_cost_table_and_figure_cover_every_judge(runs: dict[str, Any]) -> None:
    csv = pd.read_csv(runs["out"] / "cost.csv")
    assert len(csv) == len(LLM_JUDGES) + 2  # one configuration per judge run
    assert csv["cost_unknown_items"].eq(0).all(), csv[["variant", "cost_unknown_items"]]
    free = csv[csv["model"] == "none"]
    assert len(free) == 2 and (free["cost_usd"] == 0).all()
    paid = csv[csv["model"] != "none"].sort_values("cost_usd")
    expected = sorted(runs["requests"][j] * PER_CALL for j in LLM_JUDGES)
    assert paid["cost_usd"].tolist() == pytest.approx(expected)
    svg = Path(
        json.loads((runs["out"] / "report.json").read_text())["files"]["figures"][
            "cost_vs_quality"
        ]["svg"]
    )
    text = svg.read_text()
    assert "without cost not shown" not in text and "no configuration reported a cost" not in text
