"""Inspect entry point: importing this registers our tasks and model providers."""

# ruff: noqa: F401
from judgeaudit.excepthook import install_user_error_hook
from judgeaudit.judges.tasks import (
    novelty_metric_pairwise,
    novelty_metric_pointwise,
    novelty_pairwise,
    novelty_pointwise,
    novelty_rubric_pairwise,
    novelty_rubric_pointwise,
)
from judgeaudit.offline import apply_offline_defaults
from judgeaudit.providers.register import litellm, local, planted
from judgeaudit.study.cells import CELL_TASKS  # the reference study's cells: judgeaudit/study_*

apply_offline_defaults()  # before any task or model runs: mockllm/model needs no network
install_user_error_hook()  # a refused -T option or bad dataset file: one line under `inspect eval`, not a traceback
