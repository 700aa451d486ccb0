"""What changed between a previous Human-Only set and a re-mined one: ideas per label, kept, added, dropped.

    python tests/benchmarks/compare_sets.py --previous DIR --current datasets/iclr2026/human_only [--write SET_DIR]

DIR is a copy of the previous set (its pointwise.jsonl, pairwise.jsonl and manifest.json, e.g. from
`git show <commit>:datasets/iclr2026/human_only/pointwise.jsonl`). The previous set's ideas are its
point set (every idea it labelled); the current set's are its labelled pool (`labelled.jsonl`) and its
point set. Prints the counts and, with `--write SET_DIR`, stores them as the `previous_set` study record
in SET_DIR/studies.json (the dataset card renders it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from judgeaudit.data.jsonl import read_pairs, read_points
from judgeaudit.data.labelled import check_labelled_file
from judgeaudit.mine.study.records import measured_with, write_study

LABELS = ("novel", "not_novel")


def compare(previous: Path, current: Path) -> dict[str, Any]:
    """Counts per label: the previous set's ideas, the current labelled pool and point set, and their overlaps."""
    before = {p.idea.idea_id: p.idea.label for p in read_points(previous / "pointwise.jsonl")}
    rows, problems = check_labelled_file(current / "labelled.jsonl")
    if problems:
        raise ValueError(f"{current}: {problems[0]}")
    pool = {r.idea_id: r.label for r in rows}
    point = {p.idea.idea_id: p.idea.label for p in read_points(current / "pointwise.jsonl")}
    out: dict[str, Any] = {}
    for label in LABELS:
        old = {i for i, v in before.items() if v == label}
        new = {i for i, v in pool.items() if v == label}
        out[label] = {
            "previous": len(old),
            "labelled now": len(new),
            "in both": len(old & new),
            "new": len(new - old),
            "dropped": len(old - new),
            "now labelled the other way": sum(1 for i in old if pool.get(i) not in (None, label)),
            "point set now": sum(1 for v in point.values() if v == label),
        }
    manifests = [
        json.loads((d / "manifest.json").read_text(encoding="utf-8")) for d in (previous, current)
    ]
    out["pairs"] = {
        "previous": len(read_pairs(previous / "pairwise.jsonl")),
        "now": len(read_pairs(current / "pairwise.jsonl")),
    }
    out["build_command"] = {
        "previous": manifests[0]["build_command"],
        "now": manifests[1]["build_command"],
    }
    out["areas_with_pairs"] = {
        "previous": len(manifests[0]["mining"]["pairing"]["pairs_by_area"]),
        "now": len(manifests[1]["mining"]["pairing"]["pairs_by_area"]),
    }
    return out


def table(result: dict[str, Any]) -> str:
    """The comparison as Markdown."""
    keys = (
        "previous",
        "labelled now",
        "in both",
        "new",
        "dropped",
        "now labelled the other way",
        "point set now",
    )
    lines = ["| label | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    lines += [
        f"| {label} | " + " | ".join(str(result[label][k]) for k in keys) + " |" for label in LABELS
    ]
    return "\n".join(lines)


TEXT = """\
The previous bundled set followed the paper's one-line summary of the reference's method; this one follows its
code release (see *Labels*). What changed in the rule: only the strengths and weaknesses fields are read (the
questions field was read too), a hedged or descriptive affirmation is no signal (it used to block a `not_novel`
label) and hedged uncertainty is no dispute; descriptions such as "proposes a new framework" are no longer read
as affirmations; a `novel` candidate needs a mean rating of at least 6.0 and a `not_novel` one at most 3.5 as
well as the decile; there is no minimum of three reviews; the "other topics" area is left out; an area lacking
a class is dropped whole; a `not_novel` partner is drawn without replacement and reused only once its area has
run out; the a/b position is random per pair; the point set is the ideas of the pairs (it held every labelled
idea). Pairs: {pairs_before} over {areas_before} areas before, {pairs_now} over {areas_now} now.

Ideas per label (previous: the previous point set, which held every idea it labelled):"""


def main(argv: list[str] | None = None) -> int:
    """Print the comparison; optionally store it as a study record."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--previous", type=Path, required=True)
    ap.add_argument("--current", type=Path, required=True)
    ap.add_argument("--write", type=Path, default=None, metavar="SET_DIR")
    args = ap.parse_args(argv)
    try:
        result = compare(args.previous, args.current)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table(result))
    print(
        json.dumps({k: result[k] for k in ("pairs", "areas_with_pairs", "build_command")}, indent=1)
    )
    if args.write:
        text = TEXT.format(
            pairs_before=result["pairs"]["previous"],
            areas_before=result["areas_with_pairs"]["previous"],
            pairs_now=result["pairs"]["now"],
            areas_now=result["areas_with_pairs"]["now"],
        )
        write_study(
            args.write,
            "previous_set",
            {
                "title": "Changes against the previous set",
                "text": text,
                "table_markdown": table(result),
                "counts": {k: result[k] for k in LABELS},
                "previous_build_command": result["build_command"]["previous"],
                "measured_with": measured_with(),
                "command": "python tests/benchmarks/compare_sets.py --previous <the previous set> --current "
                "datasets/iclr2026/human_only --write datasets/iclr2026/human_only",
            },
        )
        print(f"wrote the previous_set record to {args.write}/studies.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
