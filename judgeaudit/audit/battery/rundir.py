"""The audit's output directory: claimed by `audit-run.json`, so a resume judges the same items with the
same judge, and another configuration is refused rather than served old logs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgeaudit.audit.battery.items import items_digest
from judgeaudit.audit.battery.spec import DEFAULT_JUDGE, AuditError, AuditSpec
from judgeaudit.data.contract import Item
from judgeaudit.files import atomic_write_text

RUN_FILE = "audit-run.json"
# Options that decide which calls the eval-set makes; a resume must agree on all of them.
_RUN_KEYS: tuple[str, ...] = (
    "judge",
    "judge_options",
    "model",
    "model_args",
    "prompt",
    "kind",
    "seed",
    "cache",
)
# What a run file written before a key existed implied for it.
_RUN_DEFAULTS: dict[str, Any] = {"judge": DEFAULT_JUDGE, "judge_options": {}}
# Keys a run file written before the rename carries, by their current name.
_RUN_RENAMED: dict[str, str] = {"judge_kind": "judge"}


def claim_out_dir(spec: AuditSpec, items: Sequence[Item], out: Path, write: bool = True) -> None:
    """Record what this out dir audits; refuse to resume it with other items or judge options.

    Inspect's eval-set recognises finished tasks by their arguments, not by the items behind
    a dataset path, so resuming with another `--limit`, model or judge would silently reuse old
    logs. With `write=False` only the check is made (nothing is recorded yet).
    """
    current = {"items_sha256": items_digest(items), **{k: spec.to_dict()[k] for k in _RUN_KEYS}}
    current = json.loads(json.dumps(current))  # as it reads back from the file (tuples as lists)
    path = out / RUN_FILE
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise AuditError(
                f"{path} is not valid JSON ({exc.msg}); remove it or use another --out"
            ) from exc
        previous = {_RUN_RENAMED.get(k, k): v for k, v in previous.items()}
        differs = sorted(k for k in current if previous.get(k, _RUN_DEFAULTS.get(k)) != current[k])
        if differs:
            raise AuditError(
                f"{out} already holds an audit with different {', '.join(differs)}; "
                "use another --out (or delete it) to audit this configuration"
            )
        return
    if write:
        atomic_write_text(path, json.dumps(current, indent=2) + "\n")
