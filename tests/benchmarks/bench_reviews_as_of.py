"""When did the reference study read the reviews? The `--reviews-as-of` times that reproduce its published means.

    python tests/benchmarks/bench_reviews_as_of.py [--snapshot DIR] [--dev FILE]

The dev split publishes each idea's mean rating and mean contribution as the reference computed
them. A raw cache holds every version of an edited review, and reviews posted late. For each
time at which a version of a dev paper's review was written (and for "latest versions"), this
reads the dev papers' reviews as of that time (`parse.parse_notes(..., reviews_as_of=...)`) and
counts the dev ideas whose two means equal the published ones (`calibrate.score_matches`). It
prints the window of times that match every dev idea, and how many reviews of the whole cache
were written inside it (the times in the window differ only in those). Reads the snapshot named by JUDGEAUDIT_SNAPSHOT.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from data_paths import DEV, SNAPSHOT

from judgeaudit.mine.openreview.shards import Located, iter_notes, version_time
from judgeaudit.mine.parse import as_of_text, note_kind, parse_notes
from judgeaudit.mine.study.calibrate import load_dev, score_matches
from judgeaudit.mine.summary import RunSummary


def main() -> int:
    """Print the matches per time and the window that matches every dev idea."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--dev", type=Path, default=DEV)
    args = ap.parse_args()
    dev = load_dev(args.dev)
    forums = {r["forum"] for r in dev if isinstance(r.get("forum"), str)}
    mine: list[Located] = []
    review_times: list[int] = []
    for loc in iter_notes(args.snapshot):
        review = note_kind(loc.note) == "Official_Review"
        if review:
            review_times.append(version_time(loc.note))
        if loc.note.get("forum") in forums:
            mine.append(loc)
    times = sorted(
        {version_time(loc.note) for loc in mine if note_kind(loc.note) == "Official_Review"}
    )

    def matches(as_of: int | None) -> dict[str, int]:
        return score_matches(dev, parse_notes(iter(mine), RunSummary(), reviews_as_of=as_of))

    latest = matches(None)
    print(
        f"latest versions: {latest['same_means']} of {latest['reviewed']} dev ideas have the published means"
    )
    full = [t for t in times if matches(t)["same_means"] == latest["reviewed"]]
    if not full:
        best = max(times, key=lambda t: matches(t)["same_means"])
        print(
            f"no time matches every dev idea; best {as_of_text(best)}: {matches(best)['same_means']}"
        )
        return 1
    start = min(full)
    if any(t not in full for t in times if start <= t <= max(full)):
        print(
            f"the times that match every dev idea are not one window: {', '.join(as_of_text(t) for t in full)}"
        )
        return 1
    later = [t for t in times if t > max(full)]
    end = min(later) if later else None
    inside = sum(1 for t in review_times if start <= t < end) if end else None
    print(
        f"every dev idea matches when reviews are read as of a time in [{as_of_text(start)}, "
        f"{as_of_text(end) if end else 'latest'}); {len(full)} of {len(times)} review-version times of the dev papers"
    )
    if end:
        print(
            f"official review versions in the whole cache written inside that window: {inside} of {len(review_times)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
