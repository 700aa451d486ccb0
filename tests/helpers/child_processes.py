"""Helpers for tests that start a child process and interrupt it."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """`preexec_fn` for a child a test will Ctrl-C: restore SIGINT's default action.

    A process started in the background by a non-interactive shell (`pytest ... &`, `nohup`)
    ignores SIGINT, and an ignored signal stays ignored across exec, so the child would never see
    the test's Ctrl-C. The test is about what the child does with one, so it gets the default.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
