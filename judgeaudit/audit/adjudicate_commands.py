"""Handlers of `judgeaudit adjudicate export` and `import` (arguments: `audit.adjudicate_cli`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from judgeaudit.audit.adjudicate import AdjudicationError, export_sheet, read_adjudicated
from judgeaudit.files import atomic_write_text
from judgeaudit.report.adjudication import render_markdown, summarise

SUMMARY_JSON = "adjudication.json"
SUMMARY_MD = "adjudication.md"


def key_path(sheet: Path) -> Path:
    """The default key file beside a sheet: `sheet.csv` -> `sheet.key.json`."""
    return sheet.with_name(sheet.stem + ".key.json")


def export_command(args: argparse.Namespace) -> int:
    """Write the blind sheet and its key; never over an existing sheet or key (an expert's work)."""
    key = args.key or key_path(args.out)
    for path in (args.out, key):
        if path.exists():
            raise AdjudicationError(f"{path} exists; remove it or choose another --out/--key")
    data = export_sheet(args.logs, args.out, key, controls=args.controls, seed=args.seed)
    roles = [r["role"] for r in data["rows"]]
    print(
        f"wrote {args.out} ({roles.count('error')} error(s), {roles.count('control')} control(s), "
        f"{len(data['runs'])} run(s)) and its key {key} (seed {args.seed})"
    )
    return 0


def import_command(args: argparse.Namespace) -> int:
    """Check the sheet, write adjudication.md and adjudication.json, print the Markdown."""
    rows, runs = read_adjudicated(args.sheet, args.key)
    summary = summarise(rows, runs, source=args.sheet.name)
    text = render_markdown(summary)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / SUMMARY_JSON, json.dumps(summary, indent=2) + "\n")
    atomic_write_text(args.out / SUMMARY_MD, text)
    print(text)
    print(f"wrote {args.out / SUMMARY_MD} and {args.out / SUMMARY_JSON}")
    return 0
