"""Helpers for tests that start a child process and interrupt it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

# A child that runs a command line (`judgeaudit ...`, or `inspect ...` as `python -m inspect_ai`) and
# stops at a known point: its first `hold_after` planted judge calls are answered, every later one
# waits (for good: a signal is what ends it), and its first `hold_after` report log reads
# (`report.frame.read_log`) are made, every later one after HELD_READ seconds (a read thread must
# end for the process to exit). Each answered call, read log and held one is a line in `events`
# (`call`, `log`, `held`), so the test signals the child once it is held, never after a guessed
# time. The holding is the only change; the judge, Inspect and the command are the real ones.
HELD_READ = 3.0
HOLDING = """
import asyncio, runpy, sys, threading, time
from pathlib import Path
from judgeaudit.providers.planted.api import PlantedAPI
from judgeaudit.report import frame

events, hold_after, program, argv = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
real_generate, real_read_log = PlantedAPI.generate, frame.read_log
lock, started = threading.Lock(), {"call": 0, "log": 0}

def note(what):
    with lock, open(events, "a") as fh:
        fh.write(what + "\\n")

def held(kind):
    with lock:
        started[kind] += 1
        return started[kind] > hold_after

async def holding_generate(self, *args, **kwargs):
    if held("call"):
        note("held")
        await asyncio.sleep(3600)
    answer = await real_generate(self, *args, **kwargs)
    note("call")
    return answer

def holding_read_log(info):
    if held("log"):
        note("held")
        time.sleep(HELD_READ)
    read = real_read_log(info)
    note("log")
    return read

PlantedAPI.generate, frame.read_log = holding_generate, holding_read_log
if program == "judgeaudit":
    from judgeaudit.cli import main
    sys.exit(main(argv))
sys.argv = ["inspect", *argv]
runpy.run_module("inspect_ai", run_name="__main__", alter_sys=True)
""".replace("HELD_READ", str(HELD_READ))


def default_sigint() -> None:
    """`preexec_fn` for a child a test will Ctrl-C: restore SIGINT's default action.

    A process started in the background by a non-interactive shell (`pytest ... &`, `nohup`)
    ignores SIGINT, and an ignored signal stays ignored across exec, so the child would never see
    the test's Ctrl-C. The test is about what the child does with one, so it gets the default.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def answered(events: Path, what: str = "call") -> int:
    """How many planted calls (`call`) or log reads (`log`) a `HOLDING` child has made so far, or
    how many of them it holds (`held`)."""
    return events.read_text().split().count(what) if events.exists() else 0


def start_held(
    program: str,
    argv: Sequence[str],
    events: Path,
    hold_after: int,
    cwd: Path,
    env: Mapping[str, str | None] | None = None,
) -> subprocess.Popen[str]:
    """`program argv` (`judgeaudit` or `inspect`) in a child of its own process group, held after
    `hold_after` planted calls and log reads (`HOLDING`, counted in `events`), SIGINT at its default,
    stderr captured; `env` sets (or, with None, removes) variables of the child's environment."""
    return subprocess.Popen(
        [sys.executable, "-c", HOLDING, str(events), str(hold_after), program, *argv],
        cwd=cwd,
        env=child_env(env or {}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,
    )


def child_env(changes: Mapping[str, str | None]) -> dict[str, str]:
    """This process's environment with `changes` applied (a None value removes the variable)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def signal_when(
    child: subprocess.Popen[str], ready: Callable[[], bool], sig: int, wait: float = 120
) -> str:
    """Send `sig` to the child's process group once `ready()` holds (the child still running), then
    wait for it to end; its stderr. Fails the test if the child ends first or never gets there."""
    deadline = time.monotonic() + wait
    try:
        while not ready():
            if child.poll() is not None:
                raise AssertionError(f"the child ended before the signal: {child.communicate()[1]}")
            if time.monotonic() > deadline:
                raise AssertionError("the child never reached the point to signal")
            time.sleep(0.05)
        os.killpg(child.pid, sig)
        return child.communicate(timeout=wait)[1]
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
