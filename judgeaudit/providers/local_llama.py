"""Inspect model provider `local/<model>`: a GGUF model run in process by llama.cpp (`llama_engine.py`).

`local/gemma-3-270m` uses the Gemma 3 270M file assembled from PyPI (see `gguf.py`); any other
`local/<path.gguf>` loads that file. The model is a base model, so chat messages are rendered
as a plain completion prompt (`transcript.py`). Model args (`-M`): `grammar` (see
`grammars.py`; default `none`; without it a GenerateConfig `response_schema` constrains the
answer to JSON matching the schema), `n_ctx` (default 4096), `n_threads` (decode threads; default: half the
cores, as llama-cpp-python does; more threads than free cores makes llama.cpp much slower; prompts
are evaluated with all cores; the environment variable `JUDGEAUDIT_LOCAL_THREADS=n` sets both to n, for
a machine whose cores other processes share, such as parallel test workers),
`n_batch` (default 64: prompts are evaluated in chunks at positions 0, 64, 128, ..., as fast as
in chunks of 512 on this model and able to keep more of a shared prefix), `prefix_cache` (default false).

Calls run one at a time (llama.cpp is not thread-safe; a lock guards the model, and the call runs in a
worker thread so the event loop stays free). They queue in `call_queue.py`: the next call is the queued
one whose prompt shares the longest prefix with the last, and identical seeded calls queued or running
at once (e.g. an arm two probes share) run once. The engine always reuses what keeps answers exact
(`llama_engine.py`): a prompt equal to the last one (the `repeat` probe's, with another seed) is not
evaluated again, and whole `n_batch` chunks of a shared prefix are kept. `prefix_cache=true` also keeps
the rest of the shared prefix: its suffix is then evaluated in other batches than from scratch, and the
logits change in their last bits, so sampled answers may differ; hence off by default. (A judge
prompt states one fence boundary for all the prompts of an item, `judges/prompts.py`, so the prompts
of one item share their text up to where its orders or probe arms differ.) Queued calls wait in the event loop, not
in a thread. (Inspect's adaptive concurrency ignores a provider's `max_connections()` and lets only a
few calls in at a time; a large `--max-connections` and `--max-samples` let the queue hold every call and
order them all, as `judgeaudit audit` does, `audit/battery/run.py` `concurrency`.) Usage is reported from llama.cpp's token counts; cost is 0.

Tool calling uses our text protocol `tool_text/1` (`tool_text.py`): offered tools are
described in a system block of the prompt, a reply line `CALL <tool> <JSON arguments>` becomes
an Inspect `ToolCall` (`stop_reason="tool_calls"`; bad arguments give a `ToolCall` with
`parse_error`, which Inspect answers with an error), tool results are `### Tool` blocks, and
a reply without a call is a normal answer. With tools offered, `-M grammar=<grammar>` (e.g.
`auto` or `pairwise`) constrains the reply to one well-formed call or the answer that grammar
allows (`tool_text.tool_grammar`); tool choice `any` / a named function allows only the call. A `response_schema` together with
tools is refused.

Model args that change outputs are also written into `base_url`
(`local://<file>?grammar=...&grammar_sha=...&prefix_cache=...&n_ctx=...&n_batch=...&tools=tool_text/1`; `grammar_sha`
hashes the grammar texts, so editing a grammar invalidates cached answers), which Inspect's
response cache keys on (it also keys on the tools and tool choice offered).

What was sent is recorded in the model call record and in `ModelOutput.metadata["local"]`:
`{"model_path", "prompt_format", "grammar", "seed", "params", "tool_protocol",
"ignored_after_calls", "timings"}` (`timings`: prompt tokens evaluated, prefill and decode seconds); `prompt_format` is `transcript/1+tool_text/1` and `tool_protocol`
`tool_text/1` when tools are offered or the history holds tool calls (else `tool_protocol`
is None); `ignored_after_calls` is text the model wrote after its calls (cut, not used).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    StopReason,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from judgeaudit.providers.call_queue import CallQueue
from judgeaudit.providers.gguf import resolve_gguf
from judgeaudit.providers.grammars import grammar_fingerprint, resolve_grammar
from judgeaudit.providers.llama_engine import Engine, SamplingParams
from judgeaudit.providers.schema_grammar import schema_grammar
from judgeaudit.providers.tool_text import (
    TOOL_PROTOCOL,
    describe_tools,
    parse_reply,
    resolve_tool_grammar,
)
from judgeaudit.providers.transcript import (
    STOP_SEQUENCES,
    TRANSCRIPT_FORMAT,
    render_transcript,
    uses_tools,
)

DEFAULT_N_CTX = 4096
DEFAULT_N_BATCH = 64
DEFAULT_MAX_TOKENS = 512
DEFAULT_CONFIG = GenerateConfig()
_FINISH_REASONS: dict[str, StopReason] = {"stop": "stop", "length": "max_tokens"}


@dataclass
class LoadedModel:
    """One llama.cpp model instance plus the lock that serialises every call into it."""

    path: Path
    engine: Engine
    lock: threading.Lock = field(default_factory=threading.Lock)
    # the call queue of the current event loop, so queued calls wait without holding a worker
    # thread (the thread lock above still guards calls from other loops)
    _queue: tuple[object, CallQueue] | None = None

    def queue(self) -> CallQueue:
        """The call queue of the running event loop (replaced when the loop changes)."""
        token = anyio.lowlevel.current_token()
        if self._queue is None or self._queue[0] != token:
            self._queue = (token, CallQueue())
        return self._queue[1]


_MODELS: dict[tuple[str, int, int, int, int], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


THREADS_ENV = "JUDGEAUDIT_LOCAL_THREADS"


def threads_from_env() -> int | None:
    """The thread count `JUDGEAUDIT_LOCAL_THREADS` sets for decoding and prompts, if a positive integer."""
    value = os.environ.get(THREADS_ENV, "").strip()
    return int(value) if value.isdecimal() and int(value) > 0 else None


def default_threads() -> int:
    """llama-cpp-python's own default: half the logical cores, at least one."""
    return max(1, (os.cpu_count() or 2) // 2)


def load_model(
    path: Path,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    n_batch: int = DEFAULT_N_BATCH,
) -> LoadedModel:
    """The process-wide instance of the model at `path` with these settings, loading it on first use."""
    shared = threads_from_env()
    threads = n_threads or shared or default_threads()
    batch_threads = shared or os.cpu_count() or 1
    key = (str(path.resolve()), n_ctx, threads, n_batch, batch_threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            engine = Engine(
                path=path,
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=batch_threads,
                n_batch=n_batch,
            )
            _MODELS[key] = LoadedModel(path=path, engine=engine)
        return _MODELS[key]


def completion_params(config: GenerateConfig, default_max_tokens: int) -> dict[str, Any]:
    """Completion arguments (llama-cpp-python's `create_completion` names) for an Inspect GenerateConfig."""
    params: dict[str, Any] = {
        "max_tokens": config.max_tokens or default_max_tokens,
        "stop": [*STOP_SEQUENCES, *(config.stop_seqs or [])],
    }
    optional = {
        "temperature": config.temperature,
        "top_p": config.top_p,
        "top_k": config.top_k,
        "seed": config.seed,
        "frequency_penalty": config.frequency_penalty,
        "presence_penalty": config.presence_penalty,
    }
    params.update({k: v for k, v in optional.items() if v is not None})
    return params


class LocalLlamaAPI(ModelAPI):
    """`local/gemma-3-270m` or `local/<path.gguf>` (see module docstring for model args)."""

    # Calls wait in the engine's own queue: time spent there is not a stalled provider, so the
    # rule set's call timeout (`providers.guard`) does not apply; only Inspect's own limits do.
    queued_in_process = True

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        grammar: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_batch: int = DEFAULT_N_BATCH,
        prefix_cache: bool | str = False,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        resolve_grammar(grammar, "")  # fail at construction on an unknown grammar name
        self.grammar_spec = grammar
        self.prefix_cache = str(prefix_cache).lower() in ("1", "true", "yes")
        self.model_path = resolve_gguf(model_name)
        self.model = load_model(
            self.model_path, int(n_ctx), int(n_threads) if n_threads else None, int(n_batch)
        )
        # Inspect's response cache keys on base_url but not on model args, so the settings that
        # change outputs go into a descriptive base_url: a run with `-M grammar=auto` is never
        # served answers cached from an unconstrained run (or from another GGUF file).
        self.base_url = (
            f"local://{self.model_path.resolve()}?grammar={grammar or 'none'}"
            f"&grammar_sha={grammar_fingerprint(grammar)}"
            f"&prefix_cache={str(self.prefix_cache).lower()}&n_ctx={int(n_ctx)}&n_batch={int(n_batch)}"
            f"&tools={TOOL_PROTOCOL}"
        )

    def max_connections(self) -> int:
        """One: the in-process model serves one call at a time."""
        return 1

    def connection_key(self) -> str:
        """All instances of one model file share one slot."""
        return str(self.model_path)

    def max_tokens(self) -> int | None:
        """Default answer budget when the caller sets none."""
        return DEFAULT_MAX_TOKENS

    def should_retry(self, ex: Exception) -> bool:
        """Local failures are deterministic: never retried."""
        return False

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        """Render the transcript, complete it (optionally under a grammar) in a worker thread."""
        tool_protocol = TOOL_PROTOCOL if tools or uses_tools(input) else None
        prompt_format = (
            f"{TRANSCRIPT_FORMAT}+{TOOL_PROTOCOL}" if tool_protocol else TRANSCRIPT_FORMAT
        )
        prompt = render_transcript(input, describe_tools(tools, tool_choice) if tools else None)
        if tools:
            if config.response_schema is not None:
                raise ValueError(
                    f"local/{self.model_name}: a response_schema cannot be combined with tools"
                )
            grammar_name, grammar_text = resolve_tool_grammar(
                self.grammar_spec, prompt, tools, tool_choice
            )
        else:
            grammar_name, grammar_text = resolve_grammar(self.grammar_spec, prompt)
        if grammar_text is None and config.response_schema is not None:
            schema = config.response_schema
            grammar_name = f"response_schema:{schema.name}"
            grammar_text = schema_grammar(schema.json_schema.model_dump(exclude_none=True))
        params = completion_params(config, DEFAULT_MAX_TOKENS)
        request = {
            "model_path": str(self.model_path),
            "prompt_format": prompt_format,
            "prompt": prompt,
            "grammar": grammar_name,
            "prefix_cache": self.prefix_cache,
            **params,
        }
        call = ModelCall.create(request, None)
        try:
            # a seeded call is determined by its request: an identical one queued or running is shared
            key = (
                (prompt, grammar_text, json.dumps(params, sort_keys=True), self.prefix_cache)
                if params.get("seed") is not None
                else None
            )
            response = await self.model.queue().run(
                prompt, partial(self._complete, prompt, params, grammar_text), key
            )
        except ValueError as ex:  # the engine reports a prompt longer than the context this way
            if "context window" not in str(ex):
                raise
            call.set_error({"error": str(ex)})
            return ModelOutput.from_content(
                self.model_name, "", stop_reason="model_length", error=str(ex)
            ), call
        call.set_response(response)
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        text = choice["text"]
        turn = sum(1 for m in input if m.role == "assistant")
        strict = grammar_text is not None and (grammar_name or "").startswith(TOOL_PROTOCOL)
        parsed = parse_reply(text, turn, calls_at_start=strict) if tools else None
        stop: StopReason = _FINISH_REASONS.get(choice.get("finish_reason") or "", "unknown")
        message = ChatMessageAssistant(content=text, model=self.model_name, source="generate")
        if parsed is not None and parsed.calls:
            stop = "tool_calls"
            message = ChatMessageAssistant(
                content=parsed.content,
                model=self.model_name,
                source="generate",
                tool_calls=parsed.calls,
            )
        output = ModelOutput(
            model=self.model_name,
            choices=[ChatCompletionChoice(message=message, stop_reason=stop)],
            usage=ModelUsage(
                input_tokens=int(usage.get("prompt_tokens", 0)),
                output_tokens=int(usage.get("completion_tokens", 0)),
                total_tokens=int(usage.get("total_tokens", 0)),
                total_cost=0.0,
            ),
            metadata={
                "local": {
                    "model_path": str(self.model_path),
                    "prompt_format": prompt_format,
                    "grammar": grammar_name,
                    "seed": params.get("seed"),
                    "params": {k: v for k, v in params.items() if k != "stop"},
                    "tool_protocol": tool_protocol,
                    "ignored_after_calls": parsed.ignored
                    if parsed is not None and parsed.calls
                    else None,
                    "timings": response.get("timings"),
                }
            },
        )
        return output, call

    def _complete(
        self, prompt: str, params: dict[str, Any], grammar_text: str | None
    ) -> dict[str, Any]:
        """Blocking llama.cpp completion under the model's lock (runs in a worker thread)."""
        sampling = SamplingParams(
            **{k: v for k, v in params.items() if k not in ("max_tokens", "stop")}
        )
        with self.model.lock:
            completion = self.model.engine.complete(
                prompt,
                params["max_tokens"],
                params["stop"],
                sampling,
                grammar_text,
                reuse_prefix=self.prefix_cache,
            )
        return completion.response()
