"""A fuzzer for `judgeaudit mine`: real notes of the snapshot fixture, mutated many ways.

Each case takes the fixture's notes (tests/fixtures/openreview_small, real ICLR 2026 notes),
applies one seeded mutation (missing, wrong-typed, huge, non-finite, invalid-Unicode, duplicated
and truncated values; forum collisions; broken lines; shards that are not files or not gzip), and
runs the real CLI in-process on the mutated cache. Every mutation also says what the miner must
make of it: the *expected* clean note list (the note dropped when it is invalid, unchanged when
the mutation is harmless, replaced when a later duplicate supersedes it). The expected list is
mined too (cached), and the checks are:

- no traceback (any exception escaping `judgeaudit mine` is counted);
- every note accounted for: the manifest's accounting has `unaccounted == 0` and read exactly
  the lines written (truncated-gzip cases: no more lines than written);
- the output validates (`judgeaudit validate`) and is valid UTF-8;
- labels unchanged: every paper's label equals the expected run's (so a bad note can only ever
  act like a missing note). Truncated-gzip cases, whose surviving lines depend on where gzip
  stops, are counted apart and skip this check.

Every fourth case also reads reviews as of a time (`--reviews-as-of`), as does its expected run, so
the review-version skips are in the accounting too. The time is the bundled set's; one of the
fixture's 144 review versions was written after it.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import hashlib
import io
import json
import os
import random
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.mine_options import LOOSE as _LOOSE
from judgeaudit.cli import main

LOOSE = _LOOSE + ["--majority-rule", "strict", "--weak-affirmations", "oppose"]

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small" / "notes-00.jsonl.gz"
)

Line = bytes


def fixture_notes() -> list[dict[str, Any]]:
    """The fixture's notes, in file order."""
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def encode(note: Any) -> Line:
    """One cache line (allow_nan: NaN/Infinity are what a hostile cache would hold)."""
    return (json.dumps(note, ensure_ascii=True, allow_nan=True) + "\n").encode()


@dataclass
class Case:
    """A mutated cache (lines per shard, extra shard entries) and the clean notes it must act like."""

    name: str
    shards: dict[str, list[Line]]
    expected: list[dict[str, Any]] | None  # None: label check not applicable (truncated gzip)
    extra: Callable[[Path], None] | None = None
    raw_shards: dict[str, bytes] = field(
        default_factory=dict
    )  # shards written as given bytes (not gzip of lines)
    lines_written: int = 0


def _kind(note: dict[str, Any]) -> str:
    inv = note.get("invitations") or [""]
    return str(inv[0]).rsplit("/-/", 1)[-1]


def _set(note: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(note)
    out["content"][key] = {"value": value}
    return out


def mutations(notes: list[dict[str, Any]], rng: random.Random) -> Case:
    """One random mutation of `notes`."""
    reviews = [i for i, n in enumerate(notes) if _kind(n) == "Official_Review"]
    subs = [i for i, n in enumerate(notes) if _kind(n) == "Submission"]
    others = [i for i, n in enumerate(notes) if _kind(n) not in ("Official_Review", "Submission")]
    r, s = rng.choice(reviews), rng.choice(subs)
    review, sub = notes[r], notes[s]

    def replaced(i: int, new: dict[str, Any] | None) -> list[dict[str, Any]]:
        return [new if j == i else n for j, n in enumerate(notes) if not (j == i and new is None)]

    def lines(ns: list[Any]) -> list[Line]:
        return [n if isinstance(n, bytes) else encode(n) for n in ns]

    def one(name: str, i: int, mutated: Any, expected_note: dict[str, Any] | None) -> Case:
        ml = [mutated if j == i else n for j, n in enumerate(notes)]
        return Case(name, {"notes-00.jsonl.gz": lines(ml)}, replaced(i, expected_note))

    bad_scores: list[Any] = [
        float("nan"),
        float("inf"),
        float("-inf"),
        10**50,
        11,
        -1,
        "abc",
        [6],
        {"x": 1},
        True,
        None,
        "",
        "1e999",
        6.5e300,
    ]
    kinds = [
        "rating",
        "contribution",
        "contribution_text",
        "mdate",
        "review_forum",
        "sub_forum_collision",
        "sub_forum_list",
        "review_other_forum",
        "id",
        "content",
        "huge_review",
        "huge_abstract",
        "surrogate",
        "title_type",
        "area_type",
        "deep",
        "big_int",
        "cut_line",
        "dup_same",
        "dup_later_valid",
        "dup_later_invalid",
        "bad_utf8",
        "garbage_lines",
        "invitations",
        "dir_shard",
        "link_shard",
        "not_gzip_shard",
        "empty_shard",
        "truncated_gzip",
        "other_forum_list",
        "huge_unknown_field",
        "dup_subs",
    ]
    kind = rng.choice(kinds)
    if kind == "rating":
        v = rng.choice(bad_scores)
        if v is None:
            m = copy.deepcopy(review)
            del m["content"]["rating"]
        else:
            m = _set(review, "rating", v)
        return one(f"rating={v!r}"[:40], r, m, None)
    if kind == "contribution":
        v = rng.choice([float("nan"), float("inf"), 99, -3, 10**40])
        return one(f"contribution={v!r}"[:40], r, _set(review, "contribution", v), None)
    if kind == "contribution_text":
        m = _set(review, "contribution", rng.choice(["n/a", [2], {"a": 1}]))
        e = copy.deepcopy(review)
        e["content"].pop("contribution", None)
        return one("contribution non-numeric (treated as missing)", r, m, e)
    if kind == "mdate":
        m = copy.deepcopy(review)
        m["mdate"] = rng.choice(["yesterday", [1], float("nan"), 1e30, -5, None, {"t": 1}])
        e = copy.deepcopy(review)
        e["mdate"] = 0
        return one(f"mdate={m['mdate']!r}", r, m, review)  # mdate only orders duplicates
    if kind == "review_forum":
        m = copy.deepcopy(review)
        m["forum"] = rng.choice([None, ["x"], 7, ""])
        return one(f"review forum={m['forum']!r}", r, m, None)
    if kind == "sub_forum_collision":
        other = notes[rng.choice([i for i in subs if i != s])]
        m = copy.deepcopy(sub)
        m["forum"] = other["id"]
        return one("submission forum names another submission", s, m, None)
    if kind == "sub_forum_list":
        m = copy.deepcopy(sub)
        m["forum"] = [sub["id"]]
        return one("submission forum is a list", s, m, None)
    if kind == "review_other_forum":
        other = notes[rng.choice([i for i in subs if i != s and notes[i]["id"] != review["forum"]])]
        m = copy.deepcopy(review)
        m["forum"] = other["id"]
        m["replyto"] = other["id"]
        return one("review claims another paper's forum", r, m, None)
    if kind == "id":
        i = rng.choice([r, s])
        m = copy.deepcopy(notes[i])
        v = rng.choice(["<missing>", 17, "", None, ["a"]])
        if v == "<missing>":
            del m["id"]
        else:
            m["id"] = v
        return one(f"id={v!r}", i, m, None)
    if kind == "content":
        i = rng.choice([r, s])
        m = copy.deepcopy(notes[i])
        v = rng.choice(["<missing>", [], {}, "text", None])
        if v == "<missing>":
            del m["content"]
        else:
            m["content"] = v
        return one(f"content={v!r}", i, m, None)
    if kind == "huge_review":
        return one(
            "review text over 100,000 characters",
            r,
            _set(review, "weaknesses", "novel " * 40_000),
            None,
        )
    if kind == "huge_abstract":
        return one(
            "abstract over 20,000 characters",
            s,
            _set(sub, "abstract", "We propose a method. " * 2_000),
            None,
        )
    if kind == "surrogate":
        i = rng.choice([r, s])
        key = "strengths" if i == r else "abstract"
        base = notes[i]["content"].get(key, {}).get("value", "x")
        return one(f"lone surrogate in {key}", i, _set(notes[i], key, str(base) + "\ud800"), None)
    if kind == "title_type":
        m = _set(sub, "title", rng.choice([5, ["t"], None]))
        return one("title wrong-typed", s, m, m)  # kept: a paper without a title keeps its label
    if kind == "area_type":
        return one(
            "primary_area wrong-typed",
            s,
            _set(sub, "primary_area", rng.choice([5, ["a"], None, ""])),
            None,
        )
    if kind == "deep":
        deep = b'{"id": "deep", "content": {"x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}\n"
        return one("deeply nested JSON", r, deep, None)
    if kind == "big_int":
        m = encode(review).replace(b'"mdate": ', b'"mdate": ' + b"9" * 5000 + b', "m2": ', 1)
        return one("integer with 5,000 digits", r, m, None)
    if kind == "cut_line":
        raw = encode(review)
        return one("line cut in half", r, raw[: len(raw) // 2] + b"\n", None)
    if kind == "dup_same":
        pos = rng.randrange(len(notes) + 1)
        ml: list[Any] = [*notes[:pos], copy.deepcopy(review), *notes[pos:]]
        return Case("exact duplicate note", {"notes-00.jsonl.gz": lines(ml)}, notes)
    if kind == "dup_later_valid":
        m = _set(review, "rating", rng.choice([0, 2, 4, 6, 8, 10]))
        m["mdate"] = int(review.get("mdate") or 0) + 1000
        return Case(
            "later duplicate with another valid rating",
            {"notes-00.jsonl.gz": lines([*notes, m])},
            replaced(r, m),
        )
    if kind == "dup_later_invalid":
        m = _set(review, "rating", float("nan"))
        m["mdate"] = int(review.get("mdate") or 0) + 1000
        return Case(
            "later duplicate with a NaN rating",
            {"notes-00.jsonl.gz": lines([*notes, m])},
            replaced(r, None),
        )
    if kind == "bad_utf8":
        raw = encode(review).replace(b'"content"', b'"cont\xff\xfeent"', 1)
        return one("invalid UTF-8 bytes", r, raw, None)
    if kind == "garbage_lines":
        pos = rng.randrange(len(notes) + 1)
        junk = rng.choice(
            [b"\n", b"   \n", b"[1,2]\n", b"null\n", b'{"id": "x"}\n', b"NaN\n", b'"str"\n']
        )
        ml = [*notes[:pos], junk, *notes[pos:]]
        return Case(f"garbage line {junk[:10]!r}", {"notes-00.jsonl.gz": lines(ml)}, notes)
    if kind == "invitations":
        i = rng.choice([r, s])
        m = copy.deepcopy(notes[i])
        m["invitations"] = rng.choice([7, None, [], [None], "x"])
        return one(f"invitations={m['invitations']!r}", i, m, None)
    if kind in ("dir_shard", "link_shard", "empty_shard", "not_gzip_shard"):
        case = Case(kind.replace("_", " "), {"notes-00.jsonl.gz": lines(notes)}, notes)
        if kind == "dir_shard":
            case.extra = lambda d: (d / "notes-01.jsonl.gz").mkdir()
        elif kind == "link_shard":
            case.extra = lambda d: os.symlink(d / "nowhere", d / "notes-01.jsonl.gz")
        elif kind == "empty_shard":
            case.shards["notes-01.jsonl.gz"] = []
        else:
            case.raw_shards["notes-01.jsonl.gz"] = b"this is not gzip\n" * 10
        return case
    if kind == "truncated_gzip":
        blob = gzip.compress(b"".join(lines(notes)), mtime=0)
        cut = rng.randrange(20, len(blob) - 10)
        case = Case("truncated gzip shard", {}, None)
        case.raw_shards["notes-00.jsonl.gz"] = blob[:cut]
        case.lines_written = len(notes)
        return case
    if kind == "other_forum_list" and others:
        i = rng.choice(others)
        m = copy.deepcopy(notes[i])
        m["forum"] = [m.get("forum")]
        expected = None if _kind(notes[i]) in ("Withdrawal", "Desk_Rejection") else notes[i]
        return one("reply forum is a list", i, m, expected)
    if kind == "huge_unknown_field":
        m = copy.deepcopy(review)
        m["content"]["unknown_field"] = {"value": "z" * 500_000}
        return one("huge unknown field", r, m, review)
    # dup_subs: a second copy of a submission with an earlier mdate (loses to the original)
    m = copy.deepcopy(sub)
    m["mdate"] = -1
    m["content"]["abstract"] = {"value": "A stale version."}
    return Case("stale duplicate submission", {"notes-00.jsonl.gz": lines([*notes, m])}, notes)


def write_cache(root: Path, case: Case) -> None:
    """The mutated cache directory."""
    root.mkdir(parents=True, exist_ok=True)
    n = 0
    for name, ls in case.shards.items():
        with open(root / name, "wb") as fh:
            fh.write(gzip.compress(b"".join(ls), mtime=0))
        n += len(ls)
    for name, blob in case.raw_shards.items():
        (root / name).write_bytes(blob)
    if case.extra:
        case.extra(root)
    if case.shards:
        case.lines_written = n


@dataclass
class RunOutcome:
    """What one `judgeaudit mine` run did."""

    code: int | None
    error: str | None  # traceback text if an exception escaped
    labels: dict[str, str]
    accounting: dict[str, Any] | None
    valid: bool
    utf8: bool
    stderr: str


AS_OF = (
    "--reviews-as-of",
    "2025-11-13T08:00Z",
)  # every fourth case also reads reviews as of the bundled set's time


def run(cache: Path, out: Path, options: tuple[str, ...] = ()) -> RunOutcome:
    """`judgeaudit mine` on `cache` into `out` (with more `options`), in-process, then validate what it wrote."""
    err, sink = io.StringIO(), io.StringIO()
    code: int | None = None
    tb = None
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(sink):
        try:
            code = main(
                [
                    "mine",
                    "--source",
                    f"snapshot:{cache}",
                    "--out",
                    str(out),
                    "--no-progress",
                    "--workers",
                    "1",
                    "--extractor",
                    "offline",
                    *LOOSE,
                    *options,
                ]
            )
        except SystemExit as exc:
            code = int(exc.code or 0)
        except BaseException:  # noqa: BLE001 - the fuzzer counts every escaping exception
            tb = traceback.format_exc()
    set_dir = out / "human_only"
    labels: dict[str, str] = {}
    accounting = None
    valid = utf8 = True
    if code == 0 and tb is None:
        for path in sorted(set_dir.glob("*.jsonl")):
            try:
                path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                utf8 = False
        for line in (
            (set_dir / "pointwise.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()
        ):
            item = json.loads(line)
            labels[item["item_id"]] = item["gold"]
        accounting = json.loads((set_dir / "manifest.json").read_text())["mining"]["skips"][
            "accounting"
        ]
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            valid = main(["validate", str(set_dir)]) == 0
    return RunOutcome(code, tb, labels, accounting, valid, utf8, err.getvalue())


@dataclass
class FuzzReport:
    """Counts over all runs (the last four must be 0)."""

    runs: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    label_checks_skipped: int = 0
    tracebacks: int = 0
    unaccounted: int = 0
    invalid_outputs: int = 0
    corrupted_labels: int = 0
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counts."""
        return {
            "runs": self.runs,
            "tracebacks": self.tracebacks,
            "notes_unaccounted": self.unaccounted,
            "invalid_outputs": self.invalid_outputs,
            "corrupted_labels": self.corrupted_labels,
            "label_checks_skipped_truncated_gzip": self.label_checks_skipped,
            "cases_by_mutation": dict(sorted(self.by_kind.items())),
            "failures": self.failures[:20],
        }


def fuzz(budget: int, work: Path, seed: int = 20260) -> FuzzReport:
    """Run `budget` mutated cases under `work` and check each (see module doc)."""
    notes = fixture_notes()
    rng = random.Random(seed)
    report = FuzzReport()
    expected_runs: dict[str, RunOutcome] = {}
    for k in range(budget):
        case = mutations(notes, rng)
        cache = work / f"case{k}" / "cache"
        write_cache(cache, case)
        options = AS_OF if k % 4 == 3 else ()
        got = run(cache, work / f"case{k}" / "out", options)
        report.runs += 1
        report.by_kind[case.name.split("=")[0]] += 1
        problem = None
        if got.error is not None:
            report.tracebacks += 1
            problem = "traceback: " + got.error.strip().splitlines()[-1]
        elif got.code not in (0, 1, 2):
            problem = f"exit code {got.code}"
        elif (
            got.code in (1, 2) and len([ln for ln in got.stderr.splitlines() if "error" in ln]) != 1
        ):
            problem = "a failing run without exactly one error line"
        if got.code == 0 and got.error is None:
            acc = got.accounting or {}
            read = acc.get("lines_read")
            if (
                acc.get("unaccounted") != 0
                or (case.expected is not None and read != case.lines_written)
                or (case.expected is None and (read is None or read > case.lines_written))
            ):
                report.unaccounted += 1
                problem = f"accounting {acc} for {case.lines_written} lines"
            if not (got.valid and got.utf8):
                report.invalid_outputs += 1
                problem = "output does not validate" if not got.valid else "output is not UTF-8"
        if case.expected is None:
            report.label_checks_skipped += 1
        elif got.error is None:
            key = hashlib.sha256(
                b"".join(encode(n) for n in case.expected) + " ".join(options).encode()
            ).hexdigest()
            if key not in expected_runs:
                clean = Case(
                    "expected",
                    {"notes-00.jsonl.gz": [encode(n) for n in case.expected]},
                    case.expected,
                )
                root = work / f"expected-{key[:12]}"
                write_cache(root / "cache", clean)
                expected_runs[key] = run(root / "cache", root / "out", options)
            want = expected_runs[key]
            if want.labels != got.labels or want.code != got.code:
                report.corrupted_labels += 1
                diff = {
                    f
                    for f in set(want.labels) | set(got.labels)
                    if want.labels.get(f) != got.labels.get(f)
                }
                problem = f"labels differ from the expected run on {sorted(diff)[:5]} (codes {got.code}/{want.code})"
        if problem:
            report.failures.append(f"case {k} ({case.name}): {problem}")
    return report
