"""The audit's compact display: one progress line per battery task, from Inspect's public hooks.

`judgeaudit audit` runs its eval-set with Inspect's display off (`display="none"`) and, while
`battery_progress(...)` is active, prints to stderr one line per task of the battery as it
ends: `task 3 of 7: surface, 60 of 60 samples` (a failed or cancelled task says so). The tasks run at
once, so on a terminal one more line, rewritten in place as samples finish, counts them together
(`2 of 7 tasks done, 95 of 150 samples of the 7 started`). A task the eval-set resumes from an earlier run does
not start again, so it gets no line. Inspect's own display is `--display full` (or any other of
its display names) away.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TextIO

from inspect_ai.hooks import Hooks, SampleEnd, TaskEnd, TaskStart, hooks

Label = Callable[[Mapping[str, Any]], str]
"""Names a battery task (`unperturbed`, `repeat`, a probe) from its task arguments."""


@dataclass
class _Task:
    label: str
    total: int
    done: int = 0


@dataclass
class BatteryProgress:
    """The progress of one battery run: numbers tasks in the order they end and writes their lines."""

    total_tasks: int
    label: Label
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    tasks: dict[str, _Task] = field(default_factory=dict)
    ended: int = 0
    _open_line: bool = False

    def line(self, task: _Task, status: str = "") -> str:
        """`task i of n: label, k of m samples` (plus `; status` when it is not a success); i counts
        the tasks ended, this one included."""
        text = (
            f"task {self.ended + 1} of {self.total_tasks}: {task.label}, "
            f"{task.done} of {task.total} samples"
        )
        return f"{text}; {status}" if status and status != "success" else text

    def start(self, eval_id: str, task_args: Mapping[str, Any], samples: int) -> None:
        """A task of the battery started (resumed tasks never do)."""
        self.tasks[eval_id] = _Task(self.label(task_args), samples)

    def sample_done(self, eval_id: str) -> None:
        """One sample of a task finished: on a terminal, its line is rewritten in place."""
        task = self.tasks.get(eval_id)
        if task is None:
            return
        task.done = min(task.done + 1, task.total)
        if self.stream.isatty():
            self.stream.write(f"\r\x1b[2K{self.running()}")
            self.stream.flush()
            self._open_line = True

    def close(self) -> None:
        """Clear the in-place line, if one is open, so what follows starts on a clean line."""
        if self._open_line:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._open_line = False

    def running(self) -> str:
        """The line rewritten in place on a terminal: tasks ended and samples done over all tasks
        started (the battery's tasks run at once, so this line counts them together)."""
        done = sum(t.done for t in self.tasks.values())
        total = sum(t.total for t in self.tasks.values())
        return (
            f"{self.ended} of {self.total_tasks} tasks done, {done} of {total} samples of the "
            f"{len(self.tasks)} started"
        )

    def end(self, eval_id: str, status: str) -> None:
        """A task ended: its one line, final."""
        task = self.tasks.get(eval_id)
        if task is None:
            return
        prefix = "\r\x1b[2K" if self._open_line else ""
        self._open_line = False
        self.stream.write(f"{prefix}{self.line(task, status)}\n")
        self.stream.flush()
        self.ended += 1


_active: list[BatteryProgress] = []


class AuditProgressHooks(Hooks):
    """Feeds the active `BatteryProgress` (none outside `battery_progress`: the hooks stay off)."""

    def enabled(self) -> bool:
        """On only while an audit's compact display is active."""
        return bool(_active)

    async def on_task_start(self, data: TaskStart) -> None:
        """A battery task started."""
        if _active:
            samples = (data.spec.dataset.samples or 0) * (data.spec.config.epochs or 1)
            _active[-1].start(data.eval_id, data.spec.task_args, samples)

    async def on_sample_end(self, data: SampleEnd) -> None:
        """A sample finished."""
        if _active:
            _active[-1].sample_done(data.eval_id)

    async def on_task_end(self, data: TaskEnd) -> None:
        """A battery task ended."""
        if _active:
            _active[-1].end(data.eval_id, data.log.status)


@cache
def register_hooks() -> None:
    """Register the hooks with Inspect, once per process, when an audit first needs them.

    Registered at first use rather than at import: Inspect prints a banner naming the registered
    hooks when it first starts in a process, and by the time an audit with a model runs its
    battery, that start (the audit's model check) has passed, so the compact display stays quiet.
    """
    hooks(
        name="judgeaudit_audit_progress", description="judgeaudit audit: one line per battery task"
    )(AuditProgressHooks)


@contextmanager
def battery_progress(
    total_tasks: int, label: Label, stream: TextIO | None = None
) -> Iterator[BatteryProgress]:
    """Print the compact progress of the battery run inside the block."""
    register_hooks()
    progress = BatteryProgress(total_tasks, label, stream or sys.stderr)
    _active.append(progress)
    try:
        yield progress
    finally:
        _active.remove(progress)
        progress.close()
