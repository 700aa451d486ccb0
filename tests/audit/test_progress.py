"""`judgeaudit.audit.progress`: the compact display's lines (the hooks feeding it run in the audit
tests, e.g. tests/audit/test_commands.py `test_cli_writes_card_and_exit_code`)."""

from __future__ import annotations

import io

from judgeaudit.audit.progress import BatteryProgress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _label(args: object) -> str:
    return str(dict(args)["probe"])  # type: ignore[call-overload]


def test_one_line_per_task_numbered_as_they_end() -> None:
    out = io.StringIO()
    progress = BatteryProgress(3, _label, out)
    progress.start("a", {"probe": "surface"}, 4)
    progress.start("b", {"probe": "position"}, 2)
    for _ in range(2):
        progress.sample_done("b")
    progress.end("b", "success")
    progress.sample_done("a")
    progress.end("a", "error")
    progress.sample_done("unknown")  # a task that is not the battery's: ignored
    assert out.getvalue().splitlines() == [
        "task 1 of 3: position, 2 of 2 samples",
        "task 2 of 3: surface, 1 of 4 samples; error",
    ]


def test_on_a_terminal_one_line_counts_the_running_tasks_in_place() -> None:
    out = _Terminal()
    progress = BatteryProgress(2, _label, out)
    progress.start("a", {"probe": "surface"}, 2)
    progress.start("b", {"probe": "position"}, 3)
    progress.sample_done("a")
    progress.sample_done("b")
    progress.sample_done("a")
    progress.end("a", "success")
    progress.sample_done("b")
    assert out.getvalue() == (
        "\r\x1b[2K0 of 2 tasks done, 1 of 5 samples of the 2 started"
        "\r\x1b[2K0 of 2 tasks done, 2 of 5 samples of the 2 started"
        "\r\x1b[2K0 of 2 tasks done, 3 of 5 samples of the 2 started"
        "\r\x1b[2Ktask 1 of 2: surface, 2 of 2 samples\n"
        "\r\x1b[2K1 of 2 tasks done, 4 of 5 samples of the 2 started"
    )
