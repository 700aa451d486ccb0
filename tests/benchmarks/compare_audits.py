"""Two runs of the same audit side by side: is the card the same apart from its timings, and is every
judge call's answer the same? (issue 29: the engine must not change the card.)

Reads `card.json` of both audit directories and, where both have their Inspect logs (`<dir>/logs`),
every judge call of every sample: calls are matched by (task, probe arguments, sample id, epoch,
order, call index), and the raw answer and the verdict read from it are compared. The timing fields
of the card (`cost.battery_seconds`, `cost.logs_seconds`) and `log_dir` are left out of the card
comparison; every other difference is printed.

    python tests/benchmarks/compare_audits.py OLD_AUDIT_DIR NEW_AUDIT_DIR

Exit 0 when the cards (less timings) and all matched calls agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

TIMINGS = {("cost", "battery_seconds"), ("cost", "logs_seconds"), ("log_dir",)}
# task arguments that name where a run read or wrote, not what it asked the judge
PLACE_ARGS = {"dataset"}


def differences(old: Any, new: Any, path: tuple[str, ...] = ()) -> list[str]:
    """Every leaf where two JSON values differ, as `a.b.c: old -> new` (timings left out)."""
    if path in TIMINGS:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            d
            for key in sorted(set(old) | set(new), key=str)
            for d in differences(old.get(key), new.get(key), (*path, str(key)))
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            d
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for d in differences(a, b, (*path, str(i)))
        ]
    return (
        []
        if old == new
        else [f"{'.'.join(path)}: {json.dumps(old)[:120]} -> {json.dumps(new)[:120]}"]
    )


def calls(audit: Path) -> dict[tuple[Any, ...], tuple[str, str]]:
    """(task, probe arguments, sample id, epoch, order, call index) -> (raw answer, verdict), from the logs."""
    from inspect_ai.log import read_eval_log

    from judgeaudit.judges.scorer import read_unit, task_fields

    found: dict[tuple[Any, ...], tuple[str, str]] = {}
    for path in sorted((audit / "logs").glob("*.eval")):
        log = read_eval_log(str(path))
        args = json.dumps(
            {k: v for k, v in (log.eval.task_args or {}).items() if k not in PLACE_ARGS},
            sort_keys=True,
        )
        for sample in log.samples or []:
            if not sample.scores or "novelty" not in sample.scores:
                continue
            record = (
                read_unit(task_fields(log.eval.metadata), sample.metadata, sample.scores["novelty"])
                or {}
            )
            for call in record.get("calls", []):
                key = (
                    log.eval.task,
                    args,
                    str(sample.id),
                    sample.epoch,
                    call.get("order"),
                    call.get("call_index"),
                )
                found[key] = (str(call.get("raw")), str(call.get("verdict")))
    return found


def main() -> int:
    """Print the card differences and the per-call agreement; exit 1 on any difference."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args()
    card = differences(
        json.loads((args.old / "card.json").read_text()),
        json.loads((args.new / "card.json").read_text()),
    )
    print(f"card.json differences (timings left out): {len(card)}")
    for line in card:
        print(f"  {line}")
    same = not card
    if (args.old / "logs").is_dir() and (args.new / "logs").is_dir():
        old, new = calls(args.old), calls(args.new)
        shared = sorted(set(old) & set(new), key=str)
        raw_same = sum(old[k][0] == new[k][0] for k in shared)
        verdict_same = sum(old[k][1] == new[k][1] for k in shared)
        print(
            f"judge calls: {len(old)} old, {len(new)} new, {len(shared)} matched; identical raw answers "
            f"{raw_same}/{len(shared)}, identical verdicts {verdict_same}/{len(shared)}"
        )
        for k in shared:
            if old[k] != new[k]:
                print(f"  {k}: {old[k]!r} -> {new[k]!r}")
        same = same and len(old) == len(new) == len(shared) == raw_same
    else:
        print("judge calls: not compared (one of the directories has no logs/)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
