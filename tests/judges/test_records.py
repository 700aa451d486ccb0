"""Failed-call causes: one readable, redacted line (tenacity's RetryError unwrapped), and the
sample-level summary the scorer and the sample error carry."""

from __future__ import annotations

import pytest
from inspect_ai.model import get_model
from tenacity import RetryError, Retrying, stop_after_attempt

from judgeaudit.judges.records import CallsFailed, error_text, failure_summary, leave_records
from judgeaudit.judges.verdicts import aggregate_pairwise, aggregate_pointwise, failed_call
from judgeaudit.providers.failures import ProviderCallError


def _retry_error(exc: Exception) -> RetryError:
    def fail() -> None:
        raise exc

    with pytest.raises(RetryError) as info:
        Retrying(stop=stop_after_attempt(2))(fail)
    return info.value


def test_error_text_unwraps_retry_error_and_redacts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-0123456789abcdef")
    model = get_model("mockllm/model")
    wrapped = _retry_error(
        ProviderCallError(
            "connection refused at http://127.0.0.1:9/v1\n(key sk-planted-0123456789abcdef)"
        )
    )
    assert (
        error_text(wrapped, model) == "connection refused at http://127.0.0.1:9/v1 (key <redacted>)"
    )
    assert (
        error_text(_retry_error(TimeoutError("read timed out")), model)
        == "TimeoutError: read timed out"
    )
    assert error_text(ValueError(""), model) == "ValueError"


def test_aggregation_tells_error_from_invalid() -> None:
    assert aggregate_pairwise(["error", "error"]) == "error"
    assert aggregate_pairwise(["invalid", "invalid"]) == "invalid"  # answers outside the protocol
    # a failed call makes the unit an error item, never a verdict from the calls that survived
    assert aggregate_pairwise(["error", "invalid"]) == "error"
    assert aggregate_pairwise(["error", "b"]) == "error"
    assert aggregate_pairwise(["a", "b", "error"]) == "error"
    assert aggregate_pairwise([]) == "error"  # no call made: no answer
    assert aggregate_pointwise(["error"]) == ("error", False)
    assert aggregate_pointwise(["novel", "error"]) == ("error", False)
    assert aggregate_pointwise(["error", "invalid"]) == ("error", False)
    assert aggregate_pointwise(["invalid"]) == ("invalid", False)


def test_failure_summary_and_leave_records_raise() -> None:
    from inspect_ai.model import ChatMessageUser
    from inspect_ai.solver import TaskState

    bad = failed_call("ab", 0, "connection refused at http://127.0.0.1:9/v1").to_dict()
    good = {
        **bad,
        "verdict": "a",
        "shown_verdict": "a",
        "parse": "strict",
        "error": None,
        "call_index": 1,
    }
    assert failure_summary([good]) is None
    assert (
        failure_summary([bad, good])
        == "1 of 2 calls failed: connection refused at http://127.0.0.1:9/v1"
    )
    assert (
        failure_summary([bad, bad])
        == "could not judge: 2 of 2 calls failed: connection refused at http://127.0.0.1:9/v1"
    )
    state = TaskState(
        model="mockllm/model",
        sample_id="s",
        epoch=1,
        input="x",
        messages=[ChatMessageUser(content="x")],
    )  # type: ignore[arg-type]
    with pytest.raises(
        CallsFailed, match=r"^could not judge: 1 of 1 calls failed: connection refused"
    ):
        leave_records(state, [bad], "reference", ["ab"], 1)
    assert state.messages[-1].metadata is not None  # the records are left before the raise
