"""Study records kept beside a mined set (`studies.json`): a measurement's table, text and provenance.

A benchmark that measures something about the set's extractor or rule (the stance cases, the reading
ceiling, the change against the previous set) stores its table under a key with `write_study`; the
miner carries `studies.json` over when it re-mines the set, and the dataset card renders every record
(`set_card.studies_text`). `measured_with` records the selection rule and the offline extractor's
version the figures belong to, so the card can mark a record measured under another one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgeaudit.files import atomic_write_text
from judgeaudit.mine.export import STUDIES_NAME, read_record
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.cues import offline_fingerprint


def measured_with(th: Thresholds | None = None) -> dict[str, Any]:
    """The selection rule and offline-extractor version a measurement was made with."""
    return {
        "thresholds": (th or Thresholds()).to_dict(),
        "offline_fingerprint": offline_fingerprint(),
    }


def write_study(set_dir: Path, key: str, record: dict[str, Any]) -> Path:
    """Store `record` under `key` in `<set_dir>/studies.json`, keeping the other records (atomic)."""
    path = Path(set_dir) / STUDIES_NAME
    data = read_record(Path(set_dir), STUDIES_NAME) or {}
    data[key] = record
    atomic_write_text(
        path, json.dumps(dict(sorted(data.items())), indent=2, ensure_ascii=False) + "\n"
    )
    return path


def read_study(set_dir: Path, key: str) -> dict[str, Any] | None:
    """The record stored under `key` in `<set_dir>/studies.json`, or None."""
    record = (read_record(Path(set_dir), STUDIES_NAME) or {}).get(key)
    return record if isinstance(record, dict) else None
