"""Run (or resume) the reference study as one Inspect eval set over every cell and set.

The cells are the registered study tasks (`judgeaudit.study.cells`), built with their data set and
the user's options, so each log records its task arguments and Inspect's eval set recognises the
cells it already finished: the same command resumes. With batch mode the native providers batch
their calls (Inspect's `batch` option), and the logs carry the cost at the batch price: Inspect
prices each call from the per-model prices this module gives it (litellm's map, batch prices).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from inspect_ai import Task, eval_set
from inspect_ai.model import BatchConfig, ModelCost, get_model_info, set_model_info

from judgeaudit.errors import UserError
from judgeaudit.providers.litellm_api import refuse_batch
from judgeaudit.study.cells import CELL_TASKS
from judgeaudit.study.estimate import is_local, model_price
from judgeaudit.study.protocol import Cell

PER_MILLION = 1_000_000


class StudyError(UserError, ValueError):
    """A study run that cannot start as asked; the message is one line."""


def refuse_unbatched(models: Sequence[str]) -> None:
    """Refuse batch mode for models whose provider does not batch (our `litellm/` provider), naming
    the native provider to use instead."""
    for model in models:
        if model.startswith("litellm/"):
            raise refuse_batch(model.removeprefix("litellm/"))


def cost_config(models: Sequence[str], batch: bool) -> dict[str, ModelCost]:
    """Inspect's prices (USD per million tokens) for the models served by Inspect's own providers that
    litellm's map prices, at the batch price with `batch` (cache reads and writes at the input price)."""
    out: dict[str, ModelCost] = {}
    for model in models:
        if is_local(model) or model.startswith("litellm/") or get_model_info(model) is None:
            continue  # local: free; litellm/: prices its own calls; unknown to Inspect: no entry
        price = model_price(model, batch)
        if price is None:
            continue
        per_m_in, per_m_out = price.input * PER_MILLION, price.output * PER_MILLION
        out[model] = ModelCost(
            input=per_m_in, output=per_m_out, input_cache_write=per_m_in, input_cache_read=per_m_in
        )
    return out


@contextmanager
def priced(prices: Mapping[str, ModelCost]) -> Iterator[None]:
    """Inspect prices `prices` while the block runs, then its own entries again: Inspect keeps prices
    for the life of the process, and a batch study's must not price later runs in the same process."""
    before = {model: get_model_info(model) for model in prices}
    try:
        yield
    finally:
        for model, info in before.items():
            if info is not None:
                set_model_info(model, info)


def study_tasks(cells: Sequence[Cell], options: Mapping[str, Any]) -> list[Task]:
    """The Tasks of `cells`, each on its set with `options` (refused in one line before any call)."""
    if "dataset" in options:
        raise StudyError("-T dataset: give the study's sets with --dataset (repeatable)")
    return [CELL_TASKS[c.name](**{**options, "dataset": c.dataset}) for c in cells]


def run_study(
    cells: Sequence[Cell],
    models: Sequence[str],
    log_dir: str,
    options: Mapping[str, Any],
    *,
    limit: int | None = None,
    batch: BatchConfig | None = None,
    **eval_args: Any,
) -> bool:
    """Run or resume every cell for every model in one eval set; True when all finished."""
    if batch is not None:
        refuse_unbatched(models)
    tasks = study_tasks(cells, options)
    prices = cost_config(models, batch is not None)
    with priced(prices):
        ok, _ = eval_set(
            tasks,
            model=list(models),
            log_dir=log_dir,
            limit=limit,
            batch=batch,
            model_cost_config=prices or None,
            **eval_args,
        )
    return bool(ok)
