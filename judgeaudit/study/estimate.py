"""The cost of a study run per judge, before it runs: rendered prompts' tokens x litellm's price map.

Input tokens are counted on the prompts the cells would send (each sample's calls: k per
presented order; retrieval cells with their retrieved prior work), with the tokenizer litellm
picks for the model from the files it bundles (offline; OpenAI models get theirs, others
litellm's default), or at 4 characters per token when no tokenizer loads. A prompt sent twice
with the same call index (the same idea judged in two sets) is counted once when caching is on,
as Inspect's cache serves the second. Output tokens cannot be counted before the run: each call is
assumed to write `output_tokens` (reasoning included). Prices come from litellm's bundled map
(`LITELLM_LOCAL_MODEL_COST_MAP=True`: no download); with batch mode its `*_batches` prices, or
half the standard price where the map has none. A model served locally (planted, local, mockllm)
costs nothing; a model the map does not price has an unknown cost, said so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.dataset import Sample

from judgeaudit.judges.llm.retrieval import RELATED_WORK_KEY, related_work
from judgeaudit.judges.prompts import call_prompt, plan_calls
from judgeaudit.providers.litellm_api import import_litellm
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS
from judgeaudit.study import DEFAULT_OUTPUT_TOKENS
from judgeaudit.study.cells import CELL_TASKS
from judgeaudit.study.protocol import REFERENCE_K, Cell, change

CHARS_PER_TOKEN = 4  # the fallback rule when no tokenizer loads
BATCH_DISCOUNT = 0.5  # batch price / standard price where the map gives no batch price
# Providers that run on this machine: no API price.
LOCAL_PROVIDERS = frozenset(
    {"planted", "local", "mockllm", "none", "hf", "vllm", "llama-cpp-python"}
)
# Inspect provider -> litellm provider prefix, where they differ.
LITELLM_PREFIX = {"google": "gemini", "together": "together_ai", "grok": "xai"}


@dataclass(frozen=True)
class Price:
    """USD per input and per output token of one model, and where the figures come from."""

    input: float
    output: float
    source: str


def litellm_model(model: str) -> str:
    """The name litellm's map knows an Inspect model by (`litellm/x` -> `x`, `google/x` -> `gemini/x`)."""
    provider, _, name = model.partition("/")
    if provider == "litellm":
        return name
    return f"{LITELLM_PREFIX.get(provider, provider)}/{name}" if name else model


def is_local(model: str) -> bool:
    """Whether `model` runs on this machine (no API price)."""
    return model.partition("/")[0] in LOCAL_PROVIDERS


def model_price(model: str, batch: bool) -> Price | None:
    """The price of `model` from litellm's bundled map (batch prices with `batch`); zero for a local
    model; None when the map has no price for it."""
    if is_local(model):
        return Price(0.0, 0.0, "local model")
    name = litellm_model(model)
    try:
        info = import_litellm().get_model_info(name)
    except Exception:  # litellm raises its own error types for a model it does not map
        return None
    inp, out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if inp is None or out is None:
        return None
    if not batch:
        return Price(float(inp), float(out), f"litellm map: {name}")
    b_in, b_out = (
        info.get("input_cost_per_token_batches"),
        info.get("output_cost_per_token_batches"),
    )
    if b_in is not None and b_out is not None:
        return Price(float(b_in), float(b_out), f"litellm map: {name}, batch prices")
    return Price(
        float(inp) * BATCH_DISCOUNT,
        float(out) * BATCH_DISCOUNT,
        f"litellm map: {name}, half price (no batch price in the map)",
    )


def token_counter(model: str) -> tuple[Callable[[str], int], str]:
    """(a function counting the tokens of a text for `model`, how it counts)."""
    litellm = import_litellm()
    name = None if is_local(model) else litellm_model(model)
    try:
        litellm.token_counter(model=name or "", text="probe")
    except Exception:  # no tokenizer loads offline: the documented character rule
        return (lambda text: -(-len(text) // CHARS_PER_TOKEN)), f"{CHARS_PER_TOKEN} chars/token"
    return (lambda text: int(litellm.token_counter(model=name or "", text=text))), "tokenizer"


@dataclass(frozen=True)
class Call:
    """One planned model call: its prompt and call index (what Inspect's cache keys on, with the model)."""

    prompt: str
    call_index: int


def sample_prompts(
    kind: str, change_name: str, sample: Sample, options: Mapping[str, Any]
) -> list[str]:
    """The prompts of one sample's calls, one per presented order (as the prompted judge renders them)."""
    c = change(kind, change_name)
    meta = dict(sample.metadata or {})
    meta.setdefault("kind", kind)
    prompt = str(c.options.get("prompt", "reference"))
    both = bool(options.get("both_orders", False)) and kind == "pairwise"
    retrieval = int(c.options.get("retrieval", 0))
    if retrieval:
        corpus = str(options.get("retrieval_corpus", BUNDLED_CORPUS))
        meta[RELATED_WORK_KEY] = related_work(meta, retrieval, corpus)[0]
    name, orders = plan_calls(kind, meta, prompt, both)
    first = sample.input if isinstance(sample.input, str) else None
    return [
        call_prompt(kind, name, meta, order, first if i == 0 else None)
        for i, order in enumerate(orders)
    ]


def planned_calls(
    cells: Sequence[Cell], options: Mapping[str, Any], limit: int | None
) -> list[Call]:
    """Every call the cells would make on their first `limit` samples (all without a limit)."""
    k = int(options.get("k", REFERENCE_K))
    calls: list[Call] = []
    for cell in cells:
        task = CELL_TASKS[cell.name](**{**options, "dataset": cell.dataset})
        for sample in list(task.dataset)[:limit]:
            for prompt in sample_prompts(cell.kind, cell.change, sample, options):
                calls.extend(Call(prompt, i) for i in range(k))
    return calls


@dataclass(frozen=True)
class JudgeEstimate:
    """The estimated cost of one judge's run."""

    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    counted_with: str
    price: Price | None

    @property
    def cost(self) -> float | None:
        """USD, or None when the model has no price."""
        if self.price is None:
            return None
        return self.input_tokens * self.price.input + self.output_tokens * self.price.output

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record."""
        return {
            "model": self.model,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "tokens_counted_with": self.counted_with,
            "price_source": self.price.source if self.price else None,
            "cost_usd": self.cost,
        }


def estimate(
    calls: Sequence[Call],
    models: Sequence[str],
    *,
    batch: bool,
    cache: bool = True,
    output_tokens: int = DEFAULT_OUTPUT_TOKENS,
) -> list[JudgeEstimate]:
    """The cost per judge of `calls` (identical ones counted once when `cache` is on)."""
    if cache:
        unique = {hashlib.sha256(f"{c.call_index}\0{c.prompt}".encode()).digest(): c for c in calls}
        calls = list(unique.values())
    out = []
    for model in models:
        count, how = token_counter(model)
        tokens = sum(count(c.prompt) for c in calls)
        out.append(
            JudgeEstimate(
                model,
                len(calls),
                tokens,
                output_tokens * len(calls),
                how,
                model_price(model, batch),
            )
        )
    return out


def estimate_lines(estimates: Sequence[JudgeEstimate], batch: bool) -> list[str]:
    """The estimate as a Markdown table, one row per judge, and a total."""
    lines = [
        f"Estimated cost per judge ({'batch' if batch else 'standard'} prices; output tokens assumed):",
        "",
        "| judge | calls | input tokens | output tokens | USD | price |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for e in estimates:
        usd = "unknown" if e.cost is None else f"{e.cost:.2f}"
        source = e.price.source if e.price else "no price in litellm's map"
        lines.append(
            f"| {e.model} | {e.calls:,} | {e.input_tokens:,} ({e.counted_with}) | "
            f"{e.output_tokens:,} | {usd} | {source} |"
        )
    known = [e.cost for e in estimates if e.cost is not None]
    total = f"{sum(known):.2f}" + (" + unknown" if len(known) < len(estimates) else "")
    lines += ["", f"Total: {total} USD"]
    return lines
