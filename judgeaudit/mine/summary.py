"""The run summary: counted skips with reasons and where they happened, plus stage counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

MAX_EXAMPLES = 5


@dataclass
class RunSummary:
    """Every skipped note/record counted by (stage, reason), with a few locations as examples."""

    skips: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    notes: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    lines_read: int = 0
    skipped_lines: int = 0

    def skip(self, stage: str, reason: str, where: str, *, lines: int = 1) -> None:
        """Count one skipped record of `stage` for `reason`, remembering `where` (first few).

        `lines` is how many cache lines the skip accounts for (0 for a file-level skip such as an
        unreadable shard, whose lost lines were never read).
        """
        key = (stage, reason)
        self.skips[key] += 1
        self.skipped_lines += lines
        examples = self.examples.setdefault(key, [])
        if len(examples) < MAX_EXAMPLES:
            examples.append(where)

    def keep(self, kind: str, n: int = 1) -> None:
        """Count `n` cache lines that became records of `kind` (submission, review, status reply, ...)."""
        self.kept[kind] += n

    def unaccounted(self) -> int:
        """Cache lines read that are neither a kept record nor a counted skip (0 when every note is accounted for)."""
        return self.lines_read - self.skipped_lines - sum(self.kept.values())

    def note(self, what: str, n: int = 1) -> None:
        """Count something worth reporting that is not a skip (e.g. ignored reply kinds)."""
        self.notes[what] += n

    def total_skipped(self, stage: str | None = None) -> int:
        """Skips in one stage (or all stages)."""
        return sum(v for (s, _), v in self.skips.items() if stage is None or s == stage)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, sorted for byte-stable output."""
        return {
            "skipped": [
                {
                    "stage": s,
                    "reason": r,
                    "count": self.skips[(s, r)],
                    "examples": self.examples.get((s, r), []),
                }
                for s, r in sorted(self.skips)
            ],
            "counted": {k: self.notes[k] for k in sorted(self.notes)},
            "accounting": {
                "lines_read": self.lines_read,
                "kept": {k: self.kept[k] for k in sorted(self.kept)},
                "skipped_lines": self.skipped_lines,
                "unaccounted": self.unaccounted(),
            },
        }

    def lines(self) -> list[str]:
        """Human-readable lines, one per (stage, reason)."""
        out = []
        for s, r in sorted(self.skips):
            ex = ", ".join(self.examples.get((s, r), [])[:2])
            out.append(f"skipped {self.skips[(s, r)]:>6}  [{s}] {r}  (e.g. {ex})")
        return out
