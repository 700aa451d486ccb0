"""The `planted/...` provider through real `inspect_ai.eval` runs of the project's judge tasks (and
a few direct generate calls): every prompt variant, k > 1, both orders, probes; its answers are the
behaviour core's verdicts on what each prompt shows; failures are `error` calls with one-line causes."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import eval_ok, unit
from helpers.items import make_pairs
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessageUser, get_model
from inspect_ai.tool import ToolInfo, ToolParams

from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.parse import parse_verdict
from judgeaudit.judges.prompts import prompt_names
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.protocol import readings as protocol_readings
from judgeaudit.providers.planted.api import RAMBLING, answer_text, tokens
from judgeaudit.providers.planted.behaviour import (
    PRESETS,
    Behaviour,
    Decision,
    PlantedError,
    Shown,
    decide,
)

BUNDLED = "iclr2026/human_only"
TASKS = {"pairwise": novelty_pairwise, "pointwise": novelty_pointwise}


def model_events(log: EvalLog) -> list[ModelEvent]:
    """Every model call of the log, attachments (prompts, call records) resolved."""
    assert log.samples is not None
    samples = [resolve_sample_attachments(s, "full") for s in log.samples]
    return [e for s in samples for e in s.events if isinstance(e, ModelEvent)]


def run(tasks: Any, tmp_path: Path, model: str, **kwargs: Any) -> list[EvalLog]:
    logs = inspect_eval(
        tasks, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs
    )
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return list(logs)


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_a_perfect_planted_judge_answers_every_variant_with_k_calls_and_both_orders(
    kind: str, tmp_path: Path
) -> None:
    extra: dict[str, Any] = {"k": 3, **({"both_orders": True} if kind == "pairwise" else {})}
    tasks = [TASKS[kind](dataset=BUNDLED, prompt=name, **extra) for name in prompt_names(kind)]
    logs = run(tasks, tmp_path, "planted/custom", limit=4)
    assert len(logs) == len(prompt_names(kind))
    for log in logs:
        assert log.samples and len(log.samples) == 4
        for sample in log.samples:
            record = unit(log, sample)
            calls = record["calls"]
            assert len(calls) == (6 if kind == "pairwise" else 3)
            assert all(c["parse"] == "strict" and c["verdict"] == record["gold"] for c in calls)
            assert record["verdict"] == record["gold"]


def test_answers_are_the_behaviour_cores_verdicts_on_what_each_prompt_shows(tmp_path: Path) -> None:
    """A judge with every knob at work: each call's answer parses to the reading `decide` gives on the
    `Shown` the provider read (recorded in the call), for the judge's name and the call's seed. The draws
    are seeded, so which causes show on 8 bundled items is fixed: the knobs are set so that every cause
    shows at least once on the bundled set (re-check them when the set is re-mined)."""
    knobs = {
        "accuracy": 0.7,
        "first": 0.5,
        "cue": 0.6,
        "padding": 0.3,
        "injection": 0.4,
        "surface": 0.5,
        "noise": 0.3,
        "invalid": 0.15,
    }
    behaviour = Behaviour(**knobs)
    tasks = [
        novelty_pairwise(dataset=BUNDLED, probe=p, both_orders=True)
        for p in ("position", "presumption", "verbosity", "surface", "injection")
    ]
    tasks += [
        novelty_pointwise(dataset=BUNDLED, probe=p)
        for p in ("presumption", "verbosity", "injection")
    ]
    logs = run(tasks, tmp_path, "planted/custom/member-1", model_args=knobs, limit=8)
    readings: set[str] = set()
    causes: set[str] = set()
    for log in logs:
        kind = log.eval.task.rsplit("_", 1)[-1]
        for event in model_events(log):
            shown = Shown(**event.call.request["shown"])  # type: ignore[union-attr]
            assert shown.seed == event.config.seed is not None
            decision = decide(behaviour, shown, judge="custom/member-1")
            parsed = parse_verdict(event.output.completion, kind)
            assert (parsed.verdict, event.output.metadata["planted"]["cause"]) == (
                decision.reading,
                decision.cause,
            )
            readings.add(decision.reading)
            causes.add(decision.cause.split("+")[0])
    assert readings >= {"a", "b", "novel", "not_novel", "invalid"}
    assert causes >= {
        "accuracy",
        "inaccuracy",
        "surface",
        "first",
        "padding",
        "cue",
        "injection",
        "invalid",
    }


def test_runs_repeat_themselves_and_seeds_draw_the_noise(tmp_path: Path) -> None:
    def verdicts(seed: int, name: str) -> dict[str, str]:
        log = run(
            novelty_pairwise(dataset=BUNDLED, seed=seed, cache=False),
            tmp_path / f"{name}{seed}",
            "planted/noisy",
            limit=40,
        )[0]
        assert log.samples
        return {str(s.id): unit(log, s)["verdict"] for s in log.samples}

    first, again, other_seed = verdicts(1, "a"), verdicts(1, "b"), verdicts(2, "c")
    assert first == again
    differ = sum(first[k] != other_seed[k] for k in first) / len(first)
    assert 0.15 <= differ <= 0.65  # noise 0.4 on 40 items (a deterministic draw; about 16 expected)


def test_usage_is_plausible_and_free(tmp_path: Path) -> None:
    """Usage is per call and in the log's stats; the calls bypass Inspect's cache (an earlier test on the same
    worker may have cached these very calls, and a cached call reports no usage in `log.stats`)."""
    log = eval_ok(
        novelty_pointwise(dataset=BUNDLED, cache=False), tmp_path, model="planted/accurate", limit=3
    )
    for event in model_events(log):
        usage = event.output.usage
        assert usage is not None and usage.total_cost == 0.0
        assert (
            usage.input_tokens
            == tokens(event.input[-1].text)
            == math.ceil(len(event.input[-1].text) / 4)
        )
        assert (
            0 < usage.output_tokens < 40
            and usage.total_tokens == usage.input_tokens + usage.output_tokens
        )
    assert log.stats.model_usage and all(
        u.input_tokens > 100 for u in log.stats.model_usage.values()
    )


def test_an_idea_outside_the_answer_key_is_an_error_call_and_the_judged_set_is_the_default_key(
    tmp_path: Path,
) -> None:
    items = tmp_path / "set"
    write_items(items / "pairwise.jsonl", make_pairs(2))
    logs = inspect_eval(
        novelty_pairwise(dataset=str(items)),
        model="planted/accurate",
        model_args={"dataset": BUNDLED},  # a key that does not hold the judged set
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    log = logs[0]
    assert log.status == "error" and log.samples
    for sample in log.samples:
        record = unit(log, sample)
        assert record["verdict"] == "error" and record["calls"][0]["verdict"] == "error"
        cause = record["calls"][0]["error"]
        assert cause.startswith(
            f"planted/accurate: idea shown as 'Idea A': idea not in the answer key ({BUNDLED}): "
        )
        assert "\n" not in cause and sample.error is not None
    # no `dataset` model arg: the key holds the set the task loaded (a set outside datasets/)
    known = eval_ok(
        novelty_pairwise(dataset=str(items)), tmp_path / "keyed", model="planted/custom"
    )
    assert known.samples and all(
        unit(known, s)["verdict"] == unit(known, s)["gold"] for s in known.samples
    )


def test_invalid_answers_are_read_as_invalid_never_as_errors(tmp_path: Path) -> None:
    log = eval_ok(
        novelty_pointwise(dataset=BUNDLED),
        tmp_path,
        model="planted/custom",
        model_args={"invalid": 1},
        limit=3,
    )
    assert log.samples and all(unit(log, s)["verdict"] == "invalid" for s in log.samples)


@pytest.mark.parametrize(
    ("model", "args", "message"),
    [
        ("planted/nope", {}, "unknown planted preset 'nope'"),
        ("planted/accurate", {"frist": 0.2}, "unknown planted knob(s) frist"),
        ("planted/accurate", {"noise": "0.9"}, "planted knob noise=0.9: at most 0.5"),
        (
            "planted/accurate",
            {"dataset": "no/such/set"},
            "planted answer key: 'no/such/set' is not",
        ),
    ],
)
def test_bad_presets_knobs_and_keys_stop_the_run_in_one_line(
    model: str, args: dict[str, Any], message: str, tmp_path: Path
) -> None:
    with pytest.raises(PlantedError) as info:
        inspect_eval(
            novelty_pairwise(dataset=BUNDLED),
            model=model,
            model_args=args,
            display="none",
            log_dir=str(tmp_path / "logs"),
            limit=1,
        )
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_direct_calls_without_a_judge_prompt_or_with_tools_fail_in_one_line() -> None:
    model = get_model("planted/accurate")
    tool = ToolInfo(name="search", description="search", parameters=ToolParams())
    with pytest.raises(Exception, match="a planted judge answers judge prompts; it calls no tools"):
        asyncio.run(model.generate([ChatMessageUser(content="hello")], tools=[tool]))
    with pytest.raises(
        Exception,
        match="planted/accurate: prompt has no answer instruction of the verdict protocol",
    ):
        asyncio.run(model.generate([ChatMessageUser(content="Is this novel?")]))


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_answer_texts_parse_to_their_reading(kind: str) -> None:
    labels = ("AB", "12") if kind == "pairwise" else ("AB",)
    for style in labels:
        for option in protocol_readings(kind):
            decision = Decision(option, "accuracy" if option != "invalid" else "invalid")
            if option == "tie":
                continue  # a planted judge never ties
            parsed = parse_verdict(
                answer_text(kind, style, decision, "planted/x"), kind, labels=style
            )
            assert parsed.verdict == option
            assert parsed.path == ("failed" if option == "invalid" else "strict")
    assert parse_verdict(RAMBLING[kind], kind).verdict == "invalid"


def test_every_preset_answers_through_inspect(tmp_path: Path) -> None:
    for preset in PRESETS:
        log = run(
            novelty_pointwise(dataset=BUNDLED),
            tmp_path / preset,
            f"planted/{preset}/judge-x",
            limit=2,
        )[0]
        assert log.samples and all(
            unit(log, s)["verdict"] in ("novel", "not_novel", "invalid") for s in log.samples
        )
