"""The mining pipeline's worker pool (`judgeaudit.mine.pipeline.extract_signals`): Ctrl-C with `--workers 2`, and
two workers deciding exactly as one.

A real `judgeaudit mine --workers 2` runs in its own process group and gets SIGINT on the whole
group, as a terminal's Ctrl-C sends it, while its forked workers extract signals. The cache is the
small snapshot fixture copied twenty times under new ids (over a dozen chunks of work for the
pool). The driver slows the real offline extractor down on the first chunk only (a short sleep
before each of its reviews: the only change), so the signal arrives while one worker is busy and
the other has run out of work and waits for more (where an unprotected worker prints a traceback).
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.child_processes import default_sigint
from helpers.mine_options import LOOSE

from judgeaudit.mine.pipeline import mine
from judgeaudit.mine.sanitise.sanitisers import RuleSanitiser, Sanitised
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.cues import OfflineExtractor

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "openreview_small"
COPIES = 20
LOOSE_RULE = Thresholds(
    top_quantile=0.6,
    bottom_quantile=0.4,
    novel_min_rating=None,
    not_novel_max_rating=None,
    novel_min_contribution=2.5,
    not_novel_max_contribution=2.5,
    majority=0.3,
    max_opposing=1,
)
DRIVER = """
import sys, time
from pathlib import Path
from judgeaudit.cli import main
from judgeaudit.mine import pipeline
from judgeaudit.mine.signals.cues import OfflineExtractor

calls, counts = Path(sys.argv[1]), Path(sys.argv[2])
real_extract, real_signals = OfflineExtractor.extract, pipeline.extract_signals
first_chunk = set()

def slow(self, review):
    slow_one = review.forum in first_chunk
    with open(calls, "a") as fh:
        fh.write("s" if slow_one else ".")
    if slow_one:
        time.sleep(0.03)
    return real_extract(self, review)

def counted(corpus, forums, extractor, *args, **kw):
    first_chunk.update(forums[:50])  # the pool's first chunk (before the workers fork)
    total = sum(len(corpus.reviews.get(f, [])) for f in forums)
    first = sum(len(corpus.reviews.get(f, [])) for f in first_chunk)
    counts.write_text(f"{total} {first}")
    return real_signals(corpus, forums, extractor, *args, **kw)

OfflineExtractor.extract = slow
pipeline.extract_signals = counted
sys.exit(main(sys.argv[3:]))
"""


def _copied_cache(dest: Path) -> Path:
    """The fixture's notes, `COPIES` times, every note id (and forum/replyto) suffixed per copy."""
    dest.mkdir()
    lines = [
        json.loads(line)
        for path in sorted(FIXTURE.glob("notes-*.jsonl.gz"))
        for line in gzip.open(path, "rt", encoding="utf-8")
    ]
    with gzip.open(dest / "notes-00.jsonl.gz", "wt", encoding="utf-8") as fh:
        for copy in range(COPIES):
            for note in lines:
                note = dict(note)
                for key in ("id", "forum", "replyto"):
                    if isinstance(note.get(key), str):
                        note[key] = f"{note[key]}-{copy}"
                fh.write(json.dumps(note) + "\n")
    return dest


@pytest.mark.slow
def test_ctrl_c_with_two_workers_exits_130_with_one_line(tmp_path: Path) -> None:
    cache = _copied_cache(tmp_path / "cache")
    calls, counts = tmp_path / "calls", tmp_path / "counts"
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREVIEW_")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    argv = [
        "mine",
        "--source",
        f"snapshot:{cache}",
        "--out",
        str(out),
        "--workers",
        "2",
        "--no-progress",
        *LOOSE,
    ]
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(calls), str(counts), *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,
    )
    try:
        deadline = time.monotonic() + 180
        while True:  # until one worker has done every fast chunk and waits while the other is on the slow one
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "extraction never got there"
            if counts.exists() and calls.exists():
                total, first = map(int, counts.read_text().split())
                if calls.read_text().count(".") == total - first:
                    break
            time.sleep(0.05)
        time.sleep(0.3)  # the fast worker is back waiting for work
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the parent and its workers
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "judgeaudit mine: interrupted"
    assert not (out / "human_only").exists()
    deadline = time.monotonic() + 0.5
    while True:  # no worker outlives the run by more than half a second
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a worker outlived the run"
        time.sleep(0.02)


def test_two_workers_decide_exactly_as_one_and_every_step_is_timed(tmp_path: Path) -> None:
    cache = _copied_cache(tmp_path / "cache")
    th = LOOSE_RULE
    runs = [
        mine(
            cache,
            venue_id="ICLR.cc/2026/Conference",
            extractor=OfflineExtractor(),
            sanitiser=RuleSanitiser(),
            thresholds=th,
            workers=workers,
        )
        for workers in (1, 2)
    ]
    one, two = runs
    assert len(one.selection.candidates) > 100  # several chunks of 50 forums: the pool really forks
    assert one.selection.decisions == two.selection.decisions and one.selection.kept()
    assert [i.to_dict() for i in one.ideas] == [i.to_dict() for i in two.ideas]
    for run in runs:
        assert list(run.seconds) == [
            "read and parse the raw cache",
            "scores, candidates and their reviews' signals",
            "sanitise and build the kept ideas",
        ]
        assert all(s >= 0 for s in run.seconds.values())


class _LeavesAClaim:
    """A sanitiser (test double, like a lenient LLM pass) whose output is one sentence stating a
    result: the rule pass that then goes over it cannot leave an empty text, so the claim stays."""

    name = "leaves-a-claim"

    def sanitise(self, text: str) -> Sanitised:
        return Sanitised("Our method outperforms the state of the art by 5.79% on ImageNet.", text)


def test_an_idea_whose_abstract_still_states_results_is_skipped_and_counted(tmp_path: Path) -> None:
    th = LOOSE_RULE
    clean = mine(
        FIXTURE,
        venue_id="ICLR.cc/2026/Conference",
        extractor=OfflineExtractor(),
        sanitiser=RuleSanitiser(),
        thresholds=th,
    )
    dirty = mine(
        FIXTURE,
        venue_id="ICLR.cc/2026/Conference",
        extractor=OfflineExtractor(),
        sanitiser=_LeavesAClaim(),
        thresholds=th,
    )
    assert clean.ideas and clean.claims_after == 0
    assert dirty.ideas == [] and dirty.claims_after == len(clean.ideas)
    assert sum(dirty.sanitise_skipped.values()) == len(
        clean.ideas
    )  # counted per side for the funnel
    reason = ("sanitise", "evaluation claims left after sanitising: idea not kept")
    assert dirty.summary.skips[reason] == len(clean.ideas)
    assert dirty.sanitise_reasons["rule pass after leaves-a-claim left a claim"] == len(clean.ideas)
    assert (
        dirty.summary.unaccounted() == clean.summary.unaccounted() == 0
    )  # an idea skip is not a note skip
