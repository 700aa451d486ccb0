"""The study's cells as registered Inspect tasks: `judgeaudit/study_<format>_<change>`.

One task per (format, change) of `judgeaudit.study.protocol`, each taking the novelty task's
options that apply to its format (`-T dataset=...` picks the set), so the installed package runs
the study without a checkout, e.g.
`inspect eval-set $(judgeaudit study tasks) --model a,b,c --log-dir logs/study -T dataset=...`
(`judgeaudit study run` runs every set in one eval set).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task

from judgeaudit.judges.build import KINDS
from judgeaudit.study.protocol import Change, cell_name, changes, study_task


def _cell(kind: str, c: Change) -> Callable[..., Task]:
    """The registered task function of one cell."""

    def cell(**options: Any) -> Task:
        return study_task(kind, c.name, options)

    name = cell_name(kind, c.name)
    cell.__name__ = cell.__qualname__ = name
    cell.__doc__ = f"The reference study, {kind}: {c.description} (reference configuration else)."
    return task(name=name)(cell)


CELL_TASKS: dict[str, Callable[..., Task]] = {
    cell_name(kind, c.name): _cell(kind, c) for kind in KINDS for c in changes(kind)
}
