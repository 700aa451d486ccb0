"""Failed model calls in the battery's scores: an audit refuses a verdict when any call failed.

A failed call has no answer (provider error, refused connection, timeout, missing model): the
call record's verdict is `error`, or, in logs written before `error` verdicts existed, its
parse path is `error` (and its verdict `invalid`). The cause is the record's `error` field.
Rating a judge on such calls would score the failure, not the judge, so the card says
"could not judge: N of M calls failed: <cause>" instead of fit / use with care / unfit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

ERROR = "error"
UNKNOWN_CAUSE = "no cause recorded"


def is_failed_call(call: Mapping[str, Any]) -> bool:
    """Whether one call record is a failed call (verdict `error`, or parse path `error`)."""
    return (
        call.get("verdict") == ERROR
        or call.get("shown_verdict") == ERROR
        or call.get("parse") == ERROR
    )


def _cause(call: Mapping[str, Any]) -> str:
    text = str(call.get("error") or "").strip()
    return text.splitlines()[0] if text else UNKNOWN_CAUSE


@dataclass(frozen=True)
class CallFailures:
    """How many of the battery's calls failed, and the most common cause."""

    failed: int
    total: int
    cause: str = ""
    causes: int = 0  # distinct causes
    items: tuple[str, ...] = ()  # the items with a failed call

    def statement(self) -> str:
        """`could not judge: N of M calls failed: <cause>` (with `and k other causes` when several),
        then the items it concerns and how to retry them."""
        more = (
            f" (and {self.causes - 1} other cause{'s' if self.causes > 2 else ''})"
            if self.causes > 1
            else ""
        )
        line = f"could not judge: {self.failed} of {self.total} calls failed: {self.cause}{more}"
        if self.items:
            shown = ", ".join(self.items[:10]) + (
                f" and {len(self.items) - 10} more" if len(self.items) > 10 else ""
            )
            line += (
                f"; items: {shown}; once the provider answers, run the same judgeaudit audit "
                "command again: only these are judged again"
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, with the statement."""
        return {
            "failed": self.failed,
            "total": self.total,
            "cause": self.cause,
            "causes": self.causes,
            "items": list(self.items),
            "statement": self.statement(),
        }


def count_failures(rows: Iterable[tuple[str, list[Mapping[str, Any]]]]) -> CallFailures:
    """Failed calls over (sample verdict, call records) rows; a sample verdict `error` without
    call records counts as one failed call."""
    failed, total = 0, 0
    causes: Counter[str] = Counter()
    for sample_verdict, calls in rows:
        if not calls:
            total += 1
            if sample_verdict == ERROR:
                failed += 1
                causes[UNKNOWN_CAUSE] += 1
            continue
        for call in calls:
            total += 1
            if is_failed_call(call):
                failed += 1
                causes[_cause(call)] += 1
    cause = causes.most_common(1)[0][0] if causes else ""
    return CallFailures(failed, total, cause, len(causes))


def frame_failures(frame: pd.DataFrame) -> CallFailures:
    """Failed calls of the audit frame's samples (the `repeat/run1` view of the unperturbed run left out)."""
    view = (frame["probe"] == "repeat") & (frame["probe_variant"] == "run1")
    rows = frame.loc[~view]
    calls: list[Any] = rows["calls"].tolist() if "calls" in rows.columns else [[]] * len(rows)
    records: list[list[Mapping[str, Any]]] = [
        list(c) if isinstance(c, list | tuple) else [] for c in calls
    ]
    counted = count_failures(zip(rows["verdict"].astype(str).tolist(), records, strict=True))
    ids = rows["item_id"].astype(str).tolist() if "item_id" in rows.columns else []
    items = sorted(
        {
            item
            for item, verdict, calls in zip(ids, rows["verdict"].astype(str), records, strict=False)
            if verdict == ERROR or any(is_failed_call(c) for c in calls)
        }
    )
    return replace(counted, items=tuple(items))
