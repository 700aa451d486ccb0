"""End-to-end runs of novelty_pairwise / novelty_pointwise with Inspect's mockllm/model.

The hosted judge LLMs are unreachable here, so the model is Inspect's own `mockllm/model`
driven by a callable that reads each prompt and answers by a script (the real Inspect
eval loop, cache, scorer, metrics and log are all exercised).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import unit
from helpers.items import FIXTURES
from inspect_ai import eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from judgeaudit.fence import fenced_texts
from judgeaudit.judges.llm.prompted import call_seed
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.stats import DEFAULT_SEED

TINY = str(FIXTURES / "tiny_judge")
MARK = "Kestrel"  # every gold-novel idea of the tiny fixtures names this method
RESAMPLES = 500

CALL_INDEX = {call_seed(DEFAULT_SEED, i): i for i in range(8)}  # generation seed -> call index
Policy = Callable[[str, int], str]  # (prompt text, call index) -> answer text


class ScriptedJudge:
    """A mockllm callable: answers by `policy` and counts calls (a stand-in for a real LLM)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.calls: list[tuple[str, int]] = []
        self.efforts: list[str | None] = []

    def __call__(
        self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        text = input[-1].text
        index = CALL_INDEX[config.seed]
        self.efforts.append(config.reasoning_effort)
        self.calls.append((text, index))
        out = ModelOutput.from_content("mockllm/model", self.policy(text, index))
        out.usage = ModelUsage(
            input_tokens=len(text) // 4, output_tokens=5, total_tokens=len(text) // 4 + 5
        )
        return out

    def model(self) -> Model:
        """A mockllm model answering with this script."""
        return get_model("mockllm/model", custom_outputs=self)


def shown_ideas(text: str) -> tuple[str, str]:
    """The texts shown as Idea A and Idea B in a pairwise prompt."""
    fenced = fenced_texts(text)
    assert "Idea A:\n" in text and len(fenced) >= 2, text
    return fenced[-2], fenced[-1]


def shown_idea(text: str) -> str:
    """The idea text of a pointwise prompt."""
    fenced = fenced_texts(text)
    assert "\nIdea:\n" in text and fenced, text
    return fenced[-1]


def marker_position(text: str) -> str:
    """'A' or 'B': where the gold-novel idea is shown."""
    a, _ = shown_ideas(text)
    return "A" if MARK in a else "B"


def other(letter: str) -> str:
    return "B" if letter == "A" else "A"


def run(
    task: Any, judge: ScriptedJudge, tmp_path: Path, status: str = "success", **kwargs: Any
) -> EvalLog:
    """One eval with the scripted judge; asserts the log's status (success unless told)."""
    log = eval(task, model=judge.model(), log_dir=str(tmp_path / "logs"), display="none", **kwargs)[
        0
    ]
    assert log.status == status, log.error
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    """Metric values of the novelty scorer."""
    assert log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def scores(log: EvalLog) -> dict[str, Any]:
    """Per-sample novelty Score by sample id."""
    assert log.samples is not None
    return {str(s.id): s.scores["novelty"] for s in log.samples}


def units(log: EvalLog) -> dict[str, dict[str, Any]]:
    """Per-sample judged-unit record (score, sample and task metadata joined) by sample id."""
    assert log.samples is not None
    return {str(s.id): unit(log, s) for s in log.samples}


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def test_pairwise_metrics_match_hand_computed_values(tmp_path: Path) -> None:
    # pair0 right, pair1 wrong, pair2 tie, pair3 refusal (invalid), pair4/5 right.
    def policy(text: str, index: int) -> str:
        a, b = shown_ideas(text)
        pos = marker_position(text)
        if "online matching market" in a + b or "counterfactual program traces" in a + b:
            return (
                "Idea A is weaker.\nVerdict: " + other(pos)
                if "counterfactual" in a + b
                else f"Verdict: {pos}"
            )
        if "token merging" in a + b:
            return "They are comparable.\nVerdict: TIE"
        if "dual view" in a + b:
            return "I'm sorry, but I can't judge this."
        return f"**Verdict: {pos}**"

    judge = ScriptedJudge(policy)
    log = run(novelty_pairwise(dataset=TINY, resamples=RESAMPLES), judge, tmp_path)
    m = metrics(log)
    # n0 right, n1 invalid, n2 tie, n3 wrong, n4 right, n5 right
    assert m["strict_accuracy"] == pytest.approx(3 / 6)
    assert m["soft_accuracy"] == pytest.approx(3.5 / 6)
    assert m["accuracy_no_ties"] == pytest.approx(3 / 4)
    assert m["tie_rate"] == pytest.approx(1 / 6)
    assert m["invalid_rate"] == pytest.approx(1 / 6)
    verdicts = {sid: s.answer for sid, s in scores(log).items()}
    assert verdicts == {
        "pair0": "a",
        "pair1": "invalid",
        "pair2": "tie",
        "pair3": "a",
        "pair4": "a",
        "pair5": "b",
    }
    # Inspect's metrics are point estimates; the interval settings travel in the task metadata
    # for the one bootstrap (judgeaudit.stats, via the report and the audit).
    assert not any("_ci_" in name for name in m)
    assert log.eval.metadata["judgeaudit"]["bootstrap"] == {
        "method": "percentile",
        "resamples": RESAMPLES,
        "seed": DEFAULT_SEED,
        "confidence": 0.95,
    }
    # Per-call records (SCORE_SCHEMA) keep the raw text and parse path of every call.
    s1 = scores(log)["pair1"]
    assert s1.metadata["calls"] == [
        {
            "order": "ab",
            "shown_verdict": "invalid",
            "verdict": "invalid",
            "raw": "I'm sorry, but I can't judge this.",
            "parse": "failed",
            "call_index": 0,
            "error": None,
            "reason": "refusal or cannot judge",
        }
    ]
    s0 = units(log)["pair0"]
    assert (
        s0["calls"][0]["parse"] == "strict"
        and scores(log)["pair4"].metadata["calls"][0]["parse"] == "wrapped"
    )
    for key in (
        "schema",
        "kind",
        "item_id",
        "setup",
        "area",
        "gold",
        "verdict",
        "calls",
        "k",
        "both_orders",
        "split_rule",
        "split",
        "judge",
        "prompt",
        "idea_format",
        "probe",
        "probe_variant",
        "probe_target",
        "human",
    ):
        assert key in s0, key
    assert (
        s0["schema"] == "judgeaudit.score/4" and s0["prompt"] == "reference" and s0["probe"] is None
    )
    # The score carries only per-sample fields; what every sample shares is in the task metadata.
    assert set(scores(log)["pair0"].metadata) == {
        "gold",
        "calls",
        "k",
        "both_orders",
        "split",
        "prompt",
        "calls_failed",
    }
    # Score.value: 1.0 exactly when the verdict is the gold label; no explanation when every call answered
    assert all(
        s.value == float(s.answer == (s.metadata or {})["gold"]) for s in scores(log).values()
    )
    assert {s.value for s in scores(log).values()} == {0.0, 1.0} and all(
        s.explanation is None for s in scores(log).values()
    )
    assert log.eval.metadata["judgeaudit"]["judge"] == s0["judge"] == "prompted"
    assert log.eval.metadata["judgeaudit"]["split_rule"] == s0["split_rule"] == "not_novel"
    assert s0["human"]["a"]["rating_mean"] == 7.5
    assert len(judge.calls) == 6
    assert log.stats.model_usage["mockllm/model"].output_tokens == 30


def test_both_orders_maps_positions_back(tmp_path: Path) -> None:
    # A judge with a pure first-position preference: consistent-looking per call, a tie per item.
    always_a = ScriptedJudge(lambda text, i: "Verdict: A")
    log = run(
        novelty_pairwise(dataset=TINY, both_orders=True, resamples=RESAMPLES), always_a, tmp_path
    )
    m = metrics(log)
    assert m["tie_rate"] == 1.0 and m["strict_accuracy"] == 0.0 and m["soft_accuracy"] == 0.5
    assert math.isnan(m["accuracy_no_ties"])
    calls = scores(log)["pair1"].metadata["calls"]
    assert [(c["order"], c["shown_verdict"], c["verdict"]) for c in calls] == [
        ("ab", "a", "a"),
        ("ba", "a", "b"),
    ]
    assert scores(log)["pair1"].metadata["both_orders"] is True
    # The ba prompt really shows the ideas swapped.
    ab = [t for t, _ in always_a.calls if "online matching market" in t]
    assert len(ab) == 2 and shown_ideas(ab[0]) == shown_ideas(ab[1])[::-1]
    # A judge that follows the content is right in both orders.
    follows = ScriptedJudge(lambda text, i: f"Verdict: {marker_position(text)}")
    # (cache off: the cache would rightly serve the first judge's answers to the same prompts)
    log2 = run(
        novelty_pairwise(dataset=TINY, both_orders=True, cache=False, resamples=RESAMPLES),
        follows,
        tmp_path,
    )
    assert metrics(log2)["strict_accuracy"] == 1.0
    assert {c["shown_verdict"] for c in scores(log2)["pair0"].metadata["calls"]} == {"a", "b"}


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (["right", "wrong", "right"], {"strict_accuracy": 1.0, "tie_rate": 0.0}),
        (["right", "wrong"], {"strict_accuracy": 0.0, "tie_rate": 1.0}),
        (["junk", "junk", "wrong"], {"strict_accuracy": 0.0, "invalid_rate": 0.0, "tie_rate": 0.0}),
        # every verdict invalid: no accuracy is reported (NaN), the invalid rate is
        (["junk", "junk"], {"strict_accuracy": float("nan"), "invalid_rate": 1.0}),
    ],
)
def test_k_calls_are_distinct_and_aggregated(
    tmp_path: Path, script: list[str], expected: dict[str, float]
) -> None:
    def policy(text: str, index: int) -> str:
        pos = marker_position(text)
        return {"right": f"Verdict: {pos}", "wrong": f"Verdict: {other(pos)}", "junk": "Hmm."}[
            script[index]
        ]

    judge = ScriptedJudge(policy)
    log = run(novelty_pairwise(dataset=TINY, k=len(script), resamples=RESAMPLES), judge, tmp_path)
    for name, value in expected.items():
        assert metrics(log)[name] == pytest.approx(value, nan_ok=True), name
    # Every call reached the model with its own seed, although prompt and cache are on.
    assert len(judge.calls) == 6 * len(script)
    assert sorted({i for _, i in judge.calls}) == list(range(len(script)))
    rec = scores(log)["pair0"].metadata
    assert [c["call_index"] for c in rec["calls"]] == list(range(len(script))) and rec["k"] == len(
        script
    )


def test_invalid_outputs_are_never_coerced(tmp_path: Path) -> None:
    outputs = [
        "No verdict here.",  # (an empty reply is no answer: retried, then `error`; providers.replies)
        "I cannot decide.",
        "Verdict: A or B",
        "Verdict: probably B",
        "Verdict: A\nVerdict: B",
        "Verdict: NOVEL",
    ]
    judge = ScriptedJudge(
        lambda text, i: outputs[int(fenced_texts(text)[-2].startswith("K")) + 2 * (i % 2)]
    )  # type: ignore[union-attr]
    log = run(novelty_pairwise(dataset=TINY, k=2, resamples=RESAMPLES), judge, tmp_path)
    m = metrics(log)
    # every verdict invalid: accuracies are not reported as numbers (stats status all_invalid)
    assert (
        m["invalid_rate"] == 1.0
        and math.isnan(m["strict_accuracy"])
        and math.isnan(m["soft_accuracy"])
    )
    for score in scores(log).values():
        assert score.answer == "invalid"
        assert all(
            c["verdict"] == "invalid" and c["parse"] == "failed" for c in score.metadata["calls"]
        )
        assert {c["raw"] for c in score.metadata["calls"]} <= set(outputs)


def test_a_failed_call_is_an_error_and_errors_the_sample(tmp_path: Path) -> None:
    """A call that raises is an `error` call with its cause, never `invalid`; the item is then an
    error item (never the verdict of the call that survived), and the sample (so the eval) errors
    with the one-line cause."""

    def policy(text: str, index: int) -> str:
        if "online matching market" in text and index == 0:
            raise RuntimeError("upstream returned 503")
        return f"Verdict: {marker_position(text)}"

    log = run(
        novelty_pairwise(dataset=TINY, k=2, resamples=RESAMPLES),
        ScriptedJudge(policy),
        tmp_path,
        status="error",
    )
    score = scores(log)["pair0"]
    calls = score.metadata["calls"]
    assert (
        calls[0]["parse"] == "error" and calls[0]["verdict"] == calls[0]["shown_verdict"] == "error"
    )
    assert calls[0]["error"] == "RuntimeError: upstream returned 503"
    assert calls[1]["parse"] == "strict" and calls[1]["error"] is None
    assert score.answer == "error"  # not the verdict of the call that survived
    assert score.metadata["calls_failed"] == 1
    assert score.metadata["error"] == "1 of 2 calls failed: RuntimeError: upstream returned 503"
    assert log.samples is not None
    errored = {str(s.id): s.error.message for s in log.samples if s.error is not None}
    assert (
        list(errored) == ["pair0"]
        and "1 of 2 calls failed: RuntimeError: upstream returned 503" in errored["pair0"]
    )
    assert all(
        s["calls_failed"] == 0 and s["error"] is None
        for key, s in units(log).items()
        if key != "pair0"
    )
    n = len(scores(log))
    assert metrics(log)["strict_accuracy"] == pytest.approx((n - 1) / n)
    assert metrics(log)["error_rate"] == pytest.approx(1 / n)


def test_an_item_whose_every_call_failed_is_scored_error(tmp_path: Path) -> None:
    """Every call of an item failed: the item's verdict is `error` (counted by error_rate, not
    invalid_rate), its score says so with the cause, and the sample errors `could not judge`."""

    def policy(text: str, index: int) -> str:
        if "online matching market" in text:
            raise ConnectionRefusedError("connection refused at http://127.0.0.1:9/v1")
        return f"Verdict: {marker_position(text)}"

    log = run(
        novelty_pairwise(dataset=TINY, k=2, both_orders=True, resamples=RESAMPLES),
        ScriptedJudge(policy),
        tmp_path,
        status="error",
    )
    score = scores(log)["pair0"]
    assert score.answer == units(log)["pair0"]["verdict"] == "error"
    assert [c["verdict"] for c in score.metadata["calls"]] == ["error"] * 4
    cause = "could not judge: 4 of 4 calls failed: ConnectionRefusedError: connection refused at http://127.0.0.1:9/v1"
    # retried within the budget first (`providers.replies`), then the cause says so
    assert score.metadata["error"].startswith(cause + " (gave up after 4 attempts in ")
    assert score.metadata["calls_failed"] == 4
    assert score.value == 0.0  # an error is never the gold label
    assert score.explanation == score.metadata["error"]  # the explanation is the failure's one line
    n = len(scores(log))
    assert (
        metrics(log)["error_rate"] == pytest.approx(1 / n) and metrics(log)["invalid_rate"] == 0.0
    )
    assert log.samples is not None
    assert [cause in s.error.message for s in log.samples if s.error is not None] == [True]


def test_provider_error_text_never_carries_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = "sk-planted-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", planted)

    def policy(text: str, index: int) -> str:
        raise RuntimeError(f"401 unauthorized for key {planted}")

    log = run(
        novelty_pairwise(dataset=TINY, resamples=RESAMPLES),
        ScriptedJudge(policy),
        tmp_path,
        status="error",
        limit=1,
    )
    error = scores(log)["pair0"].metadata["calls"][0]["error"]
    assert "401 unauthorized" in error and "<redacted>" in error and planted not in error
    # (Inspect's own model event also records the raised exception: keeping secrets out of
    # *that* is the provider's job, see judgeaudit/providers/secrets.py.)
    assert planted not in json.dumps(scores(log)["pair0"].metadata)


def test_pointwise_metrics_and_split_rule(tmp_path: Path) -> None:
    # Everything "novel" except pt_o0, which gets an unparseable answer.
    def policy(text: str, index: int) -> str:
        idea = shown_idea(text)
        if idea.startswith("We add dropout"):
            return "It depends."
        return "The idea is fine.\nVerdict: NOVEL"

    log = run(novelty_pointwise(dataset=TINY, resamples=RESAMPLES), ScriptedJudge(policy), tmp_path)
    m = metrics(log)
    assert m["f1_novel"] == pytest.approx(2 * 3 / (5 + 3))
    assert m["f1_not_novel"] == 0.0
    assert m["macro_f1"] == pytest.approx(0.375)
    assert m["invalid_rate"] == pytest.approx(1 / 6)
    assert scores(log)["pt_o0"].answer == "invalid"
    assert scores(log)["pt_o0"].metadata["calls"][0]["order"] == "single"

    # k=2 split votes: resolved by the split rule and flagged.
    def split(text: str, index: int) -> str:
        return ["Verdict: NOVEL", "Verdict: NOT NOVEL"][index]

    for rule, verdict in (("not_novel", "not_novel"), ("novel", "novel"), ("invalid", "invalid")):
        task = novelty_pointwise(
            dataset=TINY, k=2, split_rule=rule, cache=False, resamples=RESAMPLES
        )
        log = run(task, ScriptedJudge(split), tmp_path)
        for record in units(log).values():
            assert record["verdict"] == verdict and record["split"] is True
            assert record["split_rule"] == rule


def test_correct_pointwise_judge_scores_one(tmp_path: Path) -> None:
    judge = ScriptedJudge(
        lambda t, i: "Verdict: NOVEL" if MARK in shown_idea(t) else "Verdict: NOT NOVEL"
    )
    log = run(
        novelty_pointwise(
            dataset=TINY, prompt="p3_judged_novel", idea_format="plan", resamples=RESAMPLES
        ),
        judge,
        tmp_path,
    )
    m = metrics(log)
    assert m["macro_f1"] == 1.0 and m["invalid_rate"] == 0.0
    assert all(
        "Did expert reviewers judge this idea novel?" in t and "Steps:" in t for t, _ in judge.calls
    )
    meta = units(log)["pt_n0"]
    assert meta["prompt"] == "p3_judged_novel" and meta["idea_format"] == "plan"


def test_bad_parameters_fail_clearly() -> None:
    with pytest.raises(ValueError, match="unknown pointwise prompt 'p5_judged_more_novel'"):
        novelty_pointwise(dataset=TINY, prompt="p5_judged_more_novel")
    with pytest.raises(ValueError, match="idea_format"):
        novelty_pairwise(dataset=TINY, idea_format="poem")
    with pytest.raises(ValueError, match="split_rule"):
        novelty_pointwise(dataset=TINY, split_rule="coin")
    with pytest.raises(ValueError, match="-T k=0: k must be >= 1"):
        novelty_pairwise(dataset=TINY, k=0)
    with pytest.raises(FileNotFoundError, match="no_such_set"):
        novelty_pairwise(dataset="no_such_set")


def test_cache_serves_repeated_and_shared_calls(tmp_path: Path) -> None:
    judge = ScriptedJudge(lambda t, i: f"Verdict: {marker_position(t)}")
    first = run(novelty_pairwise(dataset=TINY, k=2, resamples=RESAMPLES), judge, tmp_path)
    assert len(judge.calls) == 12
    again = run(novelty_pairwise(dataset=TINY, k=2, resamples=RESAMPLES), judge, tmp_path)
    assert len(judge.calls) == 12, "a repeated configuration must be served from the cache"
    assert metrics(again) == metrics(first)
    # k=1 shares call index 0 with the k=2 run; k=3 only pays for call index 2.
    run(novelty_pairwise(dataset=TINY, k=1, resamples=RESAMPLES), judge, tmp_path)
    assert len(judge.calls) == 12
    run(novelty_pairwise(dataset=TINY, k=3, resamples=RESAMPLES), judge, tmp_path)
    assert len(judge.calls) == 18 and {i for _, i in judge.calls[12:]} == {2}
    # A different prompt variant is a different call.
    run(
        novelty_pairwise(dataset=TINY, prompt="p4_which_novel", resamples=RESAMPLES),
        judge,
        tmp_path,
    )
    assert len(judge.calls) == 24
    # cache=false always calls the model.
    run(novelty_pairwise(dataset=TINY, cache=False, resamples=RESAMPLES), judge, tmp_path)
    assert len(judge.calls) == 30


def test_metrics_show_in_evals_df(tmp_path: Path) -> None:
    from inspect_ai.analysis import evals_df

    judge = ScriptedJudge(lambda t, i: f"Verdict: {marker_position(t)}")
    run(
        novelty_pairwise(dataset=TINY, prompt="p1_no_guardrails", resamples=RESAMPLES),
        judge,
        tmp_path,
    )
    df = evals_df(str(tmp_path / "logs"), quiet=True)
    row = df.iloc[0]
    for name in (
        "strict_accuracy",
        "soft_accuracy",
        "accuracy_no_ties",
        "tie_rate",
        "invalid_rate",
        "error_rate",
    ):
        assert f"score_novelty_{name}" in df.columns
    assert row["score_novelty_strict_accuracy"] == 1.0
    assert row["task_arg_prompt"] == "p1_no_guardrails"
    assert '"resamples": 500' in row["metadata"] and '"method": "percentile"' in row["metadata"]


def test_probe_arms_force_orders_cues_prompts_and_seeds(tmp_path: Path) -> None:
    seeds: list[int | None] = []

    def policy(text: str, index: int) -> str:
        return f"Verdict: {marker_position(text)}"

    class SeedJudge(ScriptedJudge):
        def __call__(
            self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
        ) -> ModelOutput:
            seeds.append(config.seed)
            out = ModelOutput.from_content("mockllm/model", self.policy(input[-1].text, 0))
            out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
            self.calls.append((input[-1].text, 0))
            return out

    # position: each arm is shown in one forced order; the content-following judge is right in both.
    judge = SeedJudge(policy)
    log = run(
        novelty_pairwise(dataset=TINY, probe="position", resamples=RESAMPLES), judge, tmp_path
    )
    s = scores(log)
    assert len(s) == 12 and metrics(log)["strict_accuracy"] == 1.0
    ba = units(log)["pair0|order_ba"]
    assert [c["order"] for c in ba["calls"]] == ["ba"] and ba["calls"][0]["shown_verdict"] == "b"
    assert (ba["probe"], ba["probe_variant"], ba["probe_target"], ba["item_id"]) == (
        "position",
        "order_ba",
        "b",
        "pair0",
    )

    # presumption: the cue reaches the prompt's cue slot; the framing arm swaps the prompt variant.
    judge = SeedJudge(policy)
    log = run(
        novelty_pairwise(dataset=TINY, probe="presumption", resamples=RESAMPLES), judge, tmp_path
    )
    s = scores(log)
    assert s["pair1|framing"].metadata["prompt"] == "p3_judged_novel"
    assert s["pair1|cue_gold"].metadata["prompt"] == "reference"
    cued = [t for t, _ in judge.calls if "reviewers preferred" in t]
    assert len(cued) == 12 and all(
        t.index("Idea B:") < t.index("reviewers preferred") < t.index("Reason briefly")
        for t in cued
    )
    assert sum("exactly one of these two ideas" in t for t, _ in judge.calls) == 6

    # repeat: the two runs have their own seeds, so the cache cannot serve run2 from run1.
    seeds.clear()
    judge = SeedJudge(policy)
    log = run(novelty_pairwise(dataset=TINY, probe="repeat", resamples=RESAMPLES), judge, tmp_path)
    assert len(judge.calls) == 12 and len(set(seeds)) == 2
    assert {call_seed(1, 0), call_seed(2, 0)} == set(seeds)


def test_reasoning_effort_is_recorded_in_the_log(tmp_path: Path) -> None:
    judge = ScriptedJudge(lambda t, i: f"Verdict: {marker_position(t)}")
    log = run(
        novelty_pairwise(dataset=TINY, resamples=RESAMPLES),
        judge,
        tmp_path,
        reasoning_effort="low",
        limit=2,
    )
    assert log.plan.config.reasoning_effort == "low"  # the GenerateConfig of the run
    assert len(judge.calls) == 2 and judge.efforts == ["low", "low"]  # and it reached the model


def test_epochs_are_pooled_into_one_verdict(tmp_path: Path) -> None:
    seen: dict[str, int] = {}

    def policy(text: str, index: int) -> str:
        seen[text] = seen.get(text, 0) + 1
        pos = marker_position(text)
        return (
            f"Verdict: {pos if seen[text] == 1 else other(pos)}"  # right first, wrong on the repeat
        )

    judge = ScriptedJudge(policy)
    log = run(novelty_pairwise(dataset=TINY, resamples=RESAMPLES), judge, tmp_path, epochs=2)
    assert len(judge.calls) == 12
    assert metrics(log)["tie_rate"] == 1.0  # one right + one wrong vote per item
    # Per-epoch scores stay on the samples; the pooled one is the sample's reduction.
    assert log.samples is not None and len(log.samples) == 12
    assert log.reductions is not None
    pooled = {str(r.sample_id): r for r in log.reductions[0].samples}
    meta = pooled["pair0"].metadata
    assert (
        meta is not None and meta["k"] == 2 and [c["call_index"] for c in meta["calls"]] == [0, 1]
    )
    assert {c["verdict"] for c in meta["calls"]} == {"a", "b"} and pooled["pair0"].answer == "tie"


def test_inspect_metrics_are_point_estimates_of_the_stats_definitions() -> None:
    """Every Inspect metric value is the `judgeaudit.stats` estimate over the scores, nothing else."""
    from inspect_ai.scorer import SampleScore, Score

    from judgeaudit.judges.inspect_metrics import pairwise_metrics

    sample_scores = [
        SampleScore(
            score=Score(value=1.0, answer=v, metadata={"gold": "a"}),
            sample_id=str(i),
        )
        for i, v in enumerate(["a", "a", "b", "a", "tie", "invalid", "error"])
    ]
    values: dict[str, float] = {}
    for compute in pairwise_metrics():
        values.update(compute(sample_scores))  # type: ignore[operator, arg-type]
    # by hand: 3 correct of 7; soft 3.5 / 7; decided (a or b) 4, 3 of them correct; 1 tie,
    # 1 invalid, 1 error of 7 (invalid and error are wrong, and counted apart)
    assert values == pytest.approx(
        {
            "strict_accuracy": 3 / 7,
            "soft_accuracy": 0.5,
            "accuracy_no_ties": 0.75,
            "tie_rate": 1 / 7,
            "invalid_rate": 1 / 7,
            "error_rate": 1 / 7,
        }
    )


def _mixed_policy(text: str, index: int) -> str:
    """Right, wrong, tie-forming, tolerant and unparseable answers, chosen by the prompt text."""
    if "Idea A:" not in text:  # pointwise
        novel = MARK in shown_idea(text)
        return ("Verdict: NOVEL" if novel else "Verdict: NOT NOVEL") if len(text) % 3 else "no idea"
    pos = marker_position(text)
    choice = (len(text) + index) % 4
    return [
        f"Verdict: {pos}",
        f"Verdict: {other(pos)}",
        f"I lean to {pos}.\nVerdict:{pos}",
        "cannot say",
    ][choice]


def _logged_metadata(logdir: Path) -> list[dict[str, Any]]:
    from inspect_ai.log import list_eval_logs, read_eval_log

    out = []
    for info in list_eval_logs(str(logdir)):
        out.extend(s.metadata for s in read_eval_log(info).samples or [])
    return out


def _report(logdir: Path) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """The report of a log directory: its frame (without per-log columns), groups and report data."""
    from judgeaudit.report.build import compute_report
    from judgeaudit.report.compute import jsonable
    from judgeaudit.report.frame import load_frame

    loaded = load_frame(logdir)
    frame, groups, data = compute_report(loaded, resamples=RESAMPLES)
    assert loaded.skipped_logs == [] and loaded.skipped_samples == []
    frame = frame.drop(columns=["log", "eval_id", "created"]).reset_index(drop=True)
    data = {key: value for key, value in data.items() if key != "input"} | {
        "rows": data["input"]["rows"]
    }
    return frame, jsonable(groups), jsonable(data)


def test_lean_metadata_report_equals_full_metadata_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prompted runs carry lean sample metadata; the report built from their logs is exactly the
    report of the same runs with the full contract item in every sample (same scripted outputs)."""
    import judgeaudit.judges.build as build

    configs: list[tuple[Callable[..., Any], dict[str, Any]]] = [
        (novelty_pairwise, {"k": 2, "both_orders": True}),
        (novelty_pairwise, {"probe": "presumption"}),  # arms with cues and another prompt variant
        (novelty_pairwise, {"probe": "position"}),  # arms with forced orders
        (novelty_pointwise, {"k": 3}),
        (novelty_pointwise, {"probe": "presumption", "prompt": "p1_no_guardrails"}),
    ]

    def run_all(logdir: Path) -> list[str]:
        prompts = []
        for make, args in configs:
            judge = ScriptedJudge(_mixed_policy)
            [log] = eval(
                make(dataset=TINY, resamples=RESAMPLES, cache=False, **args),
                model=judge.model(),
                log_dir=str(logdir),
                display="none",
            )
            assert log.status == "success", log.error
            prompts.extend(sorted(text for text, _ in judge.calls))
        return prompts

    lean_prompts = run_all(tmp_path / "lean")
    full_dataset = build.judge_dataset  # the same arms, never lean: the full item in every sample
    monkeypatch.setattr(
        build, "judge_dataset", lambda *args: full_dataset(*args[:5], None, *args[6:])
    )
    full_prompts = run_all(tmp_path / "full")

    assert lean_prompts == full_prompts and len(lean_prompts) == 24 + 18 + 12 + 18 + 18
    lean_meta, full_meta = _logged_metadata(tmp_path / "lean"), _logged_metadata(tmp_path / "full")
    assert len(lean_meta) == len(full_meta) == 6 + 18 + 12 + 6 + 18
    assert all("item" not in m for m in lean_meta)
    assert all(
        m["input_rendered"] is True for m in lean_meta
    )  # each input is its first call's prompt
    assert not any("gold" in m or "kind" in m for m in lean_meta)  # the target and a task field
    assert (
        sum("texts" in m for m in lean_meta) == 6
    )  # the both-order samples: the solver renders ba from them
    assert all("item" in m and "texts" not in m for m in full_meta)

    lean_frame, lean_groups, lean_data = _report(tmp_path / "lean")
    full_frame, full_groups, full_data = _report(tmp_path / "full")
    assert (
        len(lean_frame) >= len(lean_meta) and lean_frame["verdict"].nunique() >= 4
    )  # + re-aggregations
    assert set(lean_frame["probe"].dropna()) == {"presumption", "position"}
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(lean_frame, full_frame)
    assert lean_groups == full_groups and lean_data == full_data


def test_prompted_sample_shows_its_first_prompt_and_retrieval_keeps_the_full_item(
    tmp_path: Path,
) -> None:
    """A lean sample's input is its first call's prompt (the arm's order: the position probe forces
    one), sent as it is and shown unchanged (no logged change of the first message); with retrieval
    the samples keep the full contract item the retriever's exclusion reads."""
    from judgeaudit.data.samples import load_items

    judge = ScriptedJudge(lambda t, i: f"Verdict: {marker_position(t)}")
    log = run(
        novelty_pairwise(dataset=TINY, probe="position", resamples=RESAMPLES), judge, tmp_path
    )
    assert log.samples is not None
    for sample in map(resolve_sample_attachments, log.samples):
        [prompt] = [m.text for m in sample.messages if m.role == "user"]
        [called] = [e.input[-1].text for e in sample.events if e.event == "model"]
        assert prompt == called == sample.input
        state_changes = [c.path for e in sample.events if e.event == "state" for c in e.changes]
        assert "/messages/0/content" not in state_changes

    items = {i.item_id: i for i in load_items(TINY, "pairwise")}
    task = novelty_pairwise(dataset=TINY, retrieval=2, resamples=RESAMPLES)
    for sample in task.dataset:
        meta = sample.metadata or {}
        assert meta["item"] == items[meta["unit"]["item_id"]].to_dict() and "texts" not in meta


def test_call_records_reach_the_scorer_on_the_answer_message(tmp_path: Path) -> None:
    """The solver hands its records to the scorer one way: on its answer message's metadata, as one
    JSON string (one logged copy, never the store; the answer's own raw reply not repeated there);
    when the first call fails the answer message is empty."""
    from judgeaudit.judges.records import RECORD_KEY

    def policy(text: str, index: int) -> str:
        if "online matching market" in text and index == 0:
            raise RuntimeError("upstream returned 503")
        return f"Verdict: {marker_position(text)}"

    log = run(
        novelty_pairwise(dataset=TINY, k=2, resamples=RESAMPLES),
        ScriptedJudge(policy),
        tmp_path,
        status="error",
    )
    assert log.samples is not None
    for sample in log.samples:
        answer = sample.messages[-1]
        assert [m.role for m in sample.messages] == [
            "user",
            "assistant",
        ] and answer.metadata is not None
        assert isinstance(answer.metadata[RECORD_KEY], str)
        record = json.loads(answer.metadata[RECORD_KEY])
        assert record["plan"] == {"prompt": "reference", "orders": ["ab"], "k": 2}
        # the raw reply that is the answer's own text is logged once, as the answer
        carried = [
            {**c, "raw": answer.text if c["raw"] is None else c["raw"]} for c in record["calls"]
        ]
        assert carried == sample.scores["novelty"].metadata["calls"]  # type: ignore[index]
        assert [c["raw"] is None for c in record["calls"]] == [
            c["raw"] == answer.text for c in sample.scores["novelty"].metadata["calls"]
        ]  # type: ignore[index]
        assert any(c["raw"] is None for c in record["calls"])
        assert not sample.store and not any(e.event == "store" for e in sample.events)
    failed = next(s for s in log.samples if str(s.id) == "pair0")
    assert (
        failed.messages[-1].text == ""
        and failed.scores["novelty"].metadata["calls"][0]["parse"] == "error"
    )  # type: ignore[index]


def test_a_lean_sample_carries_its_idea_texts_once(tmp_path: Path) -> None:
    """A lean sample's input is its first call's prompt, rendered by `render_call` as from the full
    item; one order needs no idea text in the metadata, both orders keep the texts for the ba
    call, whose prompt shows the ideas swapped, and k calls of one order all send the input."""
    from judgeaudit.data.samples import item_to_sample, load_items
    from judgeaudit.judges.build import judge_dataset
    from judgeaudit.judges.prompts import INPUT_RENDERED, PromptPlan, render_call

    def first_sample(kind: str, both_orders: bool) -> Sample:
        plan = PromptPlan(kind, "reference", both_orders)
        return judge_dataset(TINY, kind, "abstract", None, DEFAULT_SEED, prompt_plan=plan)[0]

    one = first_sample("pairwise", False)
    full = item_to_sample(load_items(TINY, "pairwise")[0]).metadata or {}
    assert one.metadata is not None and one.input == render_call(
        "pairwise", "reference", full, "ab"
    )
    assert one.metadata[INPUT_RENDERED] is True and not {"texts", "item"} & set(one.metadata)
    assert not {"kind", "gold"} & set(one.metadata)  # a task field, and the sample's target
    assert one.target == full["gold"]
    both = first_sample("pairwise", True)
    assert both.metadata is not None and both.input == one.input
    assert set(both.metadata["texts"]) == {"idea_a", "idea_b"}
    point = first_sample("pointwise", False)
    assert point.metadata is not None and "texts" not in point.metadata
    assert point.input == render_call(
        "pointwise",
        "reference",
        item_to_sample(load_items(TINY, "pointwise")[0]).metadata or {},
        "single",
    )

    log = run(
        novelty_pairwise(dataset=TINY, both_orders=True, resamples=RESAMPLES),
        ScriptedJudge(lambda text, index: "Verdict: A"),
        tmp_path / "both",
    )
    assert log.samples is not None
    first = resolve_sample_attachments(log.samples[0])
    prompts = [e.input[-1].text for e in first.events if e.event == "model"]
    assert len(prompts) == 2 and prompts[0] == first.input
    assert shown_ideas(prompts[1]) == shown_ideas(prompts[0])[::-1]

    log = run(
        novelty_pointwise(dataset=TINY, k=2, resamples=RESAMPLES),
        ScriptedJudge(lambda text, index: "Verdict: NOVEL"),
        tmp_path / "k2",
    )
    assert log.samples is not None
    first = resolve_sample_attachments(log.samples[0])
    assert [e.input[-1].text for e in first.events if e.event == "model"] == [first.input] * 2


def test_a_prompted_judge_without_a_model_is_an_error_not_a_verdict(tmp_path: Path) -> None:
    """`--model none` on an LLM judge: the eval ends with status error and the cause; the item is
    scored `error` (error rate 1, invalid rate 0), never a successful run of invalid verdicts."""
    log = eval(
        novelty_pairwise(dataset=TINY, resamples=RESAMPLES),
        model="none",
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=1,
    )[0]
    assert log.status == "error" and log.samples
    sample = log.samples[0]
    assert sample.error is not None
    assert (
        "could not judge: 1 of 1 calls failed: PrerequisiteError: No model specified"
        in sample.error.message
    )
    assert scores(log)["pair0"].answer == "error"
    assert metrics(log)["error_rate"] == 1.0 and metrics(log)["invalid_rate"] == 0.0
