"""The `local/gemma-3-270m` provider with the real model (llama.cpp from the xllamacpp wheel + the PyPI Gemma GGUF).

Prompts are kept short and answers capped so the file stays a few seconds on an idle 2-core box.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import threading
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

from judgeaudit.judges.parse import parse_verdict

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None,
        reason="xllamacpp (the llama.cpp library) is not installed (pip install 'judgeaudit[local]')",
    ),
]

PAIR_PROMPT = (
    "Which research idea is more novel?\nIdea A: a learned optimiser that rewrites its own update rule.\n"
    "Idea B: training a ResNet on a new image dataset.\n"
    'End with one final line that is exactly "Verdict: A", "Verdict: B" or "Verdict: TIE".'
)
VERDICT_LINE = re.compile(r"^Verdict: (A|B|TIE)$")


def _model(**model_args: object) -> Model:
    """The local Gemma model (one llama.cpp instance is shared by every Model object)."""
    return get_model("local/gemma-3-270m", memoize=False, **model_args)  # type: ignore[arg-type]


def _complete(model: Model, prompt: str, **config: object) -> tuple[str, object]:
    """One generate; returns (completion, output)."""
    output = asyncio.run(model.generate(prompt, config=GenerateConfig(**config)))  # type: ignore[arg-type]
    return output.completion, output


def test_usage_and_zero_cost_reported() -> None:
    """Prompt and completion tokens come from llama.cpp; cost is zero; the prompt is recorded."""
    text, output = _complete(_model(), "The capital of France is", max_tokens=8, temperature=0.0)
    usage = output.usage  # type: ignore[attr-defined]
    assert usage.input_tokens > 5 and 0 < usage.output_tokens <= 8
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.total_cost == 0.0
    meta = output.metadata["local"]  # type: ignore[attr-defined]
    assert meta["prompt_format"] == "transcript/1" and meta["grammar"] is None
    assert Path(meta["model_path"]).name == "gemma-3-270m-q4_k_m.gguf"


@pytest.mark.slow
def test_seed_makes_sampling_repeatable() -> None:
    """At temperature 1.0 the same seed gives the same text, even after other calls ran in between."""
    model = _model()
    prompt = "Describe a new optimiser."  # the base model's answers differ within a few tokens
    first = _complete(model, prompt, temperature=1.0, seed=7, max_tokens=8)[0]
    others = {
        _complete(model, prompt, temperature=1.0, seed=s, max_tokens=8)[0] for s in (8, 9, 10)
    }
    again = _complete(model, prompt, temperature=1.0, seed=7, max_tokens=8)[0]
    assert first == again
    assert len(others | {first}) > 1, (
        "different seeds never changed the sample: seed is not reaching the sampler"
    )


@pytest.mark.slow
def test_reasoned_grammar_ends_with_verdict() -> None:
    """The reasoned grammar allows a few short lines and still ends in a strict verdict line."""
    from judgeaudit.providers.grammars import REASONED_MIN_TOKENS

    model = _model(grammar="pairwise_reasoned")
    text, _ = _complete(model, PAIR_PROMPT, temperature=0.8, seed=3, max_tokens=REASONED_MIN_TOKENS)
    assert VERDICT_LINE.match(text.splitlines()[-1]), text
    assert parse_verdict(text, "pairwise").path == "strict"


def test_through_inspect_eval(tmp_path: Path) -> None:
    """Two samples through `inspect_ai.eval`: usage lands in the log, auto grammar picks the verdict format."""
    task = Task(
        dataset=[Sample(id=f"s{i}", input=PAIR_PROMPT, target="Verdict") for i in range(2)],
        solver=generate(),
        scorer=includes(),
    )
    log = eval(
        task,
        model="local/gemma-3-270m",
        model_args={"grammar": "auto"},
        log_dir=str(tmp_path),
        display="none",
        temperature=0.7,
        seed=11,
        max_tokens=8,
    )[0]
    log = read_eval_log(log.location)
    assert log.status == "success", log.error
    usage = log.stats.model_usage["local/gemma-3-270m"]
    assert usage.input_tokens > 40 and usage.output_tokens > 0 and usage.total_cost == 0.0
    assert log.samples
    for sample in log.samples:
        assert VERDICT_LINE.match(sample.output.completion)
        assert sample.output.metadata["local"]["grammar"] == "auto:pairwise"
        calls = [e.call for e in sample.events if e.event == "model"]
        assert calls and calls[0]
        prompt = str(calls[0].request["prompt"])  # long strings are stored once, as attachments
        prompt = sample.attachments.get(prompt.removeprefix("attachment://"), prompt)
        assert prompt.startswith("### User\nWhich research idea") and prompt.endswith(
            "### Assistant\n"
        )


def test_unknown_local_model_is_a_clear_error() -> None:
    """A name that is neither the Gemma alias nor a .gguf path says what to use instead."""
    with pytest.raises(Exception, match="unknown local model 'gemma-9b'"):
        get_model("local/gemma-9b")
    with pytest.raises(Exception, match="does not exist"):
        get_model("local//nonexistent/model.gguf")


@pytest.mark.slow
def test_cache_keeps_grammar_runs_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect's cache ignores model args; a grammar run must not get answers cached without one."""
    from inspect_ai.model import CachePolicy

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    task = Task(
        dataset=[Sample(id="s0", input=PAIR_PROMPT, target="Verdict")],
        solver=generate(),
        scorer=includes(),
    )

    def run(grammar: str) -> tuple[str, str | None]:
        log = eval(
            task,
            model="local/gemma-3-270m",
            model_args={"grammar": grammar},
            log_dir=str(tmp_path),
            display="none",
            temperature=0.0,
            max_tokens=8,
            cache=CachePolicy(expiry=None),
        )[0]
        sample = read_eval_log(log.location).samples[0]  # type: ignore[index]
        event = next(e for e in sample.events if e.event == "model")
        return sample.output.completion, event.cache

    free, cache_free = run("none")
    constrained, cache_constrained = run("pairwise")
    again, cache_again = run("pairwise")
    assert (cache_free, cache_constrained, cache_again) == ("write", "write", "read")
    assert VERDICT_LINE.match(constrained) and again == constrained
    assert free != constrained


@pytest.mark.slow
def test_concurrent_calls_are_serialised_and_match_sequential() -> None:
    """Concurrent generates on one model all finish and equal the same calls made one by one; under the
    pairwise grammar every sampled answer is a strict verdict line, whatever the seed."""
    model = _model(grammar="pairwise")
    seeds = [0, 1, 2]

    async def together() -> list[str]:
        outputs = await asyncio.gather(
            *(
                model.generate(
                    PAIR_PROMPT,
                    config=GenerateConfig(temperature=1.5, seed=s, max_tokens=8, max_connections=8),
                )
                for s in seeds
            )
        )
        return [o.completion for o in outputs]

    concurrent = asyncio.run(together())
    sequential = []
    for seed in seeds:
        text, output = _complete(model, PAIR_PROMPT, temperature=1.5, seed=seed, max_tokens=8)
        assert VERDICT_LINE.match(text), text
        assert parse_verdict(text, "pairwise").path == "strict"
        assert output.metadata["local"]["grammar"] == "pairwise"  # type: ignore[attr-defined]
        sequential.append(text)
    assert concurrent == sequential


def test_response_schema_constrains_to_json() -> None:
    """A GenerateConfig response_schema becomes a JSON grammar: the answer parses and fits the enum."""
    import json

    from inspect_ai.model import ResponseSchema
    from inspect_ai.util import JSONSchema

    schema = ResponseSchema(
        name="verdict",
        json_schema=JSONSchema(
            type="object",
            properties={"verdict": JSONSchema(enum=["A", "B", "TIE"])},
            required=["verdict"],
        ),
    )
    text, output = _complete(
        _model(), PAIR_PROMPT, temperature=0.0, max_tokens=24, response_schema=schema
    )
    assert json.loads(text)["verdict"] in ("A", "B", "TIE")
    assert output.metadata["local"]["grammar"] == "response_schema:verdict"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_identical_seeded_calls_at_once_run_once() -> None:
    """Two identical seeded calls in flight together are computed once (the second shares the first's
    answer); a call with another seed is computed."""
    model = _model(grammar="pairwise")

    async def together() -> tuple[list[str], int, int]:
        queue = model.api.model.queue()  # type: ignore[attr-defined]
        # a blocker holds the model until the three calls are queued behind it, so "in flight
        # together" does not depend on how fast the first call runs on a loaded machine; an explicit
        # max_connections keeps Inspect's adaptive concurrency (its state lives on in the process
        # across tests) from letting fewer than three calls in
        gate = threading.Event()
        blocker = asyncio.create_task(queue.run("", gate.wait))
        runs, shared = queue.runs, queue.shared
        calls = [
            asyncio.create_task(
                model.generate(
                    PAIR_PROMPT,
                    config=GenerateConfig(temperature=1.5, seed=s, max_tokens=8, max_connections=8),
                )
            )
            for s in (5, 5, 6)
        ]
        for _ in range(
            600
        ):  # the first seed-5 call and the seed-6 call wait; the twin waits on the first
            if len(queue._waiting) == 2:
                break
            await asyncio.sleep(0.05)
        gate.set()
        outputs = await asyncio.gather(*calls)
        await blocker
        return [o.completion for o in outputs], queue.runs - runs - 1, queue.shared - shared

    texts, runs, shared = asyncio.run(together())
    assert texts[0] == texts[1] and (runs, shared) == (2, 1)
    assert texts[0] == _complete(model, PAIR_PROMPT, temperature=1.5, seed=5, max_tokens=8)[0]
