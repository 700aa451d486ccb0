"""Inspect entry point: importing this registers our tasks and model providers."""

# ruff: noqa: F401
from judgeaudit.judges.tasks import (
    novelty_metric_pairwise,
    novelty_metric_pointwise,
    novelty_pairwise,
    novelty_pointwise,
    novelty_rubric_pairwise,
    novelty_rubric_pointwise,
)
from judgeaudit.providers.register import litellm, local
