"""Inspect entry point: importing this registers our tasks and model providers."""

# ruff: noqa: F401
from judgeaudit.judges.metric_judges import novelty_metric_pairwise, novelty_metric_pointwise
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.providers.register import litellm, local
