"""The panel judge (`-T judge=panel`) through real Inspect runs: planted members (no model, declared
behaviour), a member at a refused port (the real litellm provider), and the members' calls shared
with single-judge runs through Inspect's own cache."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import eval_ok, unit
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog

from judgeaudit.judges.llm.panel import Member, parse_members
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.panel_votes import PanelRule, member_verdicts, panel_outcome
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise

BUNDLED = "iclr2026/human_only"
PANEL = "planted/first_shown,planted/accurate/x,planted/accurate/y"
MEMBERS = ("planted/first_shown", "planted/accurate/x", "planted/accurate/y")


def cache_uses(log: EvalLog) -> list[str | None]:
    """`read` / `write` / None of every model call of the log (Inspect's own record of its cache)."""
    assert log.samples is not None
    return [e.cache for s in log.samples for e in s.events if isinstance(e, ModelEvent)]


def test_members_come_from_a_list_or_mappings() -> None:
    assert parse_members("planted/accurate/x, planted/accurate/y") == (
        Member("planted/accurate/x", "planted/accurate/x"),
        Member("planted/accurate/y", "planted/accurate/y"),
    )
    members = parse_members(
        [
            "planted/accurate/x",
            {
                "model": "local/gemma-3-270m",
                "name": "gemma",
                "model_args": {"grammar": "pairwise"},
                "temperature": 0.0,
                "weight": 2,
            },
        ]
    )
    assert members[1] == Member(
        "gemma", "local/gemma-3-270m", {"grammar": "pairwise"}, {"temperature": 0.0}, 2
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "needs its members: -T panel="),
        ("", "needs its members"),
        (5, "expected a comma-separated list"),
        ([{"name": "x"}], "member 1 needs `model`"),
        ([{"model": "planted/accurate", "colour": "red"}], "member 1: unknown key.s. colour"),
        (
            [{"model": "openai/gpt-4o", "model_args": {"api_key": "sk-123456789"}}],
            "api_key look like credentials",
        ),
        (
            [{"model": "openai/gpt-4o", "temperature": "hot"}],
            "member 1 .openai/gpt-4o.: .*temperature",
        ),
        (["planted/accurate", 7], "member 2 must be a model name or a mapping"),
    ],
)
def test_bad_members_are_one_line_errors(value: Any, message: str) -> None:
    with pytest.raises(TaskOptionError, match=message) as info:
        parse_members(value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"panel": "planted/accurate"}, "at least 2 members"),
        ({"panel": "planted/accurate,planted/accurate"}, "given twice"),
        (
            {"panel": PANEL, "panel_rule": "plurality"},
            "panel_rule=plurality: panel_rule must be one of",
        ),
        ({"panel": PANEL, "panel_quorum": 5}, "panel_quorum must be 0 .* to 3"),
        (
            {"panel": "planted/accurate,planted/no_such_preset"},
            "member 'planted/no_such_preset': cannot build model",
        ),
        ({"panel": PANEL, "judge": "prompted"}, "judge 'prompted' cannot honour panel"),
    ],
)
def test_panels_that_cannot_run_fail_when_the_task_is_built(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(TaskOptionError, match=message):
        novelty_pairwise(**{"judge": "panel", **options})


def test_a_panel_run_with_an_eval_model_is_refused(tmp_path: Path) -> None:
    """The panel's models are its members: under another eval model each sample errors with one line,
    before any member call."""
    task = novelty_pairwise(dataset=BUNDLED, judge="panel", panel=PANEL, resamples=100)
    log = inspect_eval(
        task,
        model="mockllm/model",
        limit=2,
        display="none",
        log_dir=str(tmp_path / "logs"),
        retry_on_error=0,
    )[0]
    assert log.status == "error" and log.samples and len(log.samples) == 2
    for sample in log.samples:
        assert sample.error is not None
        assert "run it with --model none, not --model mockllm/model" in sample.error.message
        assert unit(log, sample)["verdict"] == "error"
    assert cache_uses(log) == []  # no member was called


def test_a_planted_panel_records_every_members_calls_and_decides_by_its_rule(
    tmp_path: Path,
) -> None:
    task = novelty_pairwise(
        dataset=BUNDLED, judge="panel", panel=PANEL, both_orders=True, k=2, resamples=100
    )
    log = eval_ok(task, tmp_path, limit=6)
    assert log.samples and len(log.samples) == 6
    assert set(log.eval.model_roles or {}) == set(
        MEMBERS
    )  # each member is a model role of the task
    rule = PanelRule(MEMBERS)
    for sample in log.samples:
        record = unit(log, sample)
        calls = record["calls"]
        assert [c["member"] for c in calls] == [
            m for m in MEMBERS for _ in range(4)
        ]  # k=2 x both orders each
        assert all(
            c["parse"] == "strict" and c["input_tokens"] > 0 and c["cost_usd"] == 0.0 for c in calls
        )
        verdicts = member_verdicts("pairwise", calls, rule)
        expected = panel_outcome("pairwise", verdicts, rule)
        assert record["verdict"] == expected.verdict
        assert record["panel_votes"] == {
            "answered": 3,
            "no_majority": expected.no_majority,
            "verdicts": verdicts,
        }
        assert record["panel"]["members"] == list(MEMBERS) and record["panel"]["needed"] == 2
        assert sample.output.completion.startswith(
            f"Panel verdict: {expected.verdict} (rule majority; 3 of 3"
        )
        assert set(sample.role_usage) == set(MEMBERS)  # each member's usage apart, by its role
    # the biased member chose the idea shown first in every order; the accurate members did not follow it
    firsts = [
        c["shown_verdict"] == "a"
        for s in log.samples
        for c in unit(log, s)["calls"]
        if c["member"] == "planted/first_shown"
    ]
    assert sum(firsts) / len(firsts) > 0.75


def test_a_pointwise_weighted_panel_and_pooled_epochs(tmp_path: Path) -> None:
    panel = [
        {"model": "planted/accurate/x", "weight": 2},
        {"model": "planted/rambling/y", "weight": 1},
        {"model": "planted/accurate/z", "weight": 1},
    ]
    task = novelty_pointwise(
        dataset=BUNDLED, judge="panel", panel=panel, panel_rule="weighted", resamples=100
    )
    log = eval_ok(task, tmp_path, limit=8, epochs=2)
    rule = PanelRule(
        ("planted/accurate/x", "planted/rambling/y", "planted/accurate/z"), "weighted", 0, (2, 1, 1)
    )
    assert log.samples
    for sample in log.samples:
        assert sample.scores is not None and sample.scores["novelty"].metadata is not None
    reduced = {str(s.sample_id): s for s in log.reductions[0].samples}  # type: ignore[index]
    for score in reduced.values():
        meta = score.metadata or {}
        assert len(meta["calls"]) == 6 and meta["k"] == 2  # both epochs' calls pooled per member
        verdicts = member_verdicts("pointwise", meta["calls"], rule)
        assert score.answer == panel_outcome("pointwise", verdicts, rule).verdict
        assert meta["panel"]["verdicts"] == verdicts


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_member_at_a_dead_endpoint_errs_without_stopping_the_panel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real litellm provider at a refused port: that member's calls are `error` with the cause
    (retries bounded: `max_retries=1` gives 2 attempts; once the endpoint is marked down, later
    calls are not tried at all), the other members answer and their calls are kept, and the panel's
    verdict is `error`: never the verdict of the 2 of 3 members that survived."""
    monkeypatch.setenv(
        "OPENAI_API_KEY", "sk-test-key-123456"
    )  # credentials come from the environment
    url = _closed_port()
    dead = {
        "model": "litellm/openai/gpt-4o-mini",
        "name": "dead",
        "model_args": {"api_base": url, "max_retries": 1},
    }
    task = novelty_pairwise(
        dataset=BUNDLED,
        judge="panel",
        panel=["planted/accurate/x", "planted/accurate/y", dead],
        cache=False,
        resamples=100,
    )
    log = inspect_eval(
        task,
        model="none",
        limit=4,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_samples=1,
        retry_on_error=0,
    )[0]
    assert (
        log.status == "error" and log.samples and len(log.samples) == 4
    )  # the samples errored, and were scored
    causes = []
    for sample in log.samples:
        record = unit(log, sample)
        failed = [c for c in record["calls"] if c["verdict"] == "error"]
        assert [c["member"] for c in failed] == ["dead"] and record["calls_failed"] == 1
        assert record["verdict"] == "error" and record["panel_votes"]["answered"] == 2
        assert {c["verdict"] for c in record["calls"] if c["member"] != "dead"} <= {"a", "b", "tie"}
        assert (
            sample.error is not None
            and "could not judge: 1 of 3 calls failed (member dead; 2 of 3 members answered, 2 "
            "needed): "
            f"connection refused at {url}"
            in sample.error.message
        )
        causes.append(failed[0]["error"])
    tried = [
        c
        for c in causes
        if c.startswith(f"connection refused at {url} (gave up after 2 attempts in ")
    ]
    skipped = [
        c
        for c in causes
        if "(not tried: an earlier call to this endpoint gave up after 2 attempts" in c
    ]
    assert (len(tried), len(skipped)) == (
        1,
        3,
    )  # one sample at a time: the first call tried twice, then none
    # with every member required, the same: error
    strict = novelty_pairwise(
        dataset=BUNDLED,
        judge="panel",
        panel=["planted/accurate/x", "planted/accurate/y", dead],
        panel_quorum=3,
        cache=False,
        resamples=100,
    )
    log = inspect_eval(
        strict,
        model="none",
        limit=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
        retry_on_error=0,
    )[0]
    assert log.samples
    for sample in log.samples:
        assert unit(log, sample)["verdict"] == "error"
        assert (
            sample.error is not None
            and "could not judge: 1 of 3 calls failed (member dead" in sample.error.message
        )


def test_a_panel_after_its_members_single_runs_makes_no_new_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's cache key is the generation config, the prompt messages, the provider's base URL, the
    scopes and the epoch: a member's calls are the single-judge calls of its model, so a panel run after
    the single runs reads every call from the cache; a member with another generation config does not."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    options = {"dataset": BUNDLED, "both_orders": True, "resamples": 100}
    singles = [eval_ok(novelty_pairwise(**options), tmp_path, model=m, limit=5) for m in MEMBERS]
    assert all(set(cache_uses(log)) == {"write"} for log in singles)
    panel = eval_ok(novelty_pairwise(judge="panel", panel=PANEL, **options), tmp_path, limit=5)
    assert cache_uses(panel) == ["read"] * 30  # 5 items x 3 members x 2 orders, none made again
    assert panel.stats.model_usage == {}  # nothing billed
    for single, member in zip(singles, MEMBERS, strict=True):
        assert single.samples and panel.samples
        for alone, within in zip(single.samples, panel.samples, strict=True):
            own = [c for c in unit(panel, within)["calls"] if c["member"] == member]
            assert [c["raw"] for c in own] == [c["raw"] for c in unit(single, alone)["calls"]]
    hotter = [
        {"model": "planted/accurate/x", "temperature": 0.5},
        "planted/accurate/y",
        "planted/first_shown",
    ]
    changed = eval_ok(novelty_pairwise(judge="panel", panel=hotter, **options), tmp_path, limit=5)
    uses = cache_uses(changed)
    assert (
        uses.count("write") == 10 and uses.count("read") == 20
    )  # only the member with another config calls
