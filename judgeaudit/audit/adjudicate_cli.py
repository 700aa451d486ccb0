"""The `judgeaudit adjudicate` command line (export a blind sheet, import the expert's annotations);
the handlers (`audit.adjudicate_commands`) load when they run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judgeaudit.cli_args import Handler

HELP = """\
Expert adjudication of a judge's errors, as the reference study did it: are the judge's errors
the judge's, or the labels'?

  judgeaudit adjudicate export LOGS --out sheet.csv [--controls N] [--seed S]
      A blind sheet of every pairwise item a judge decided wrongly in LOGS (a tie is an error)
      plus N items per run it decided rightly (controls), in the release's judge_errors.csv
      format: row id and the two ideas in a fresh random A/B order; judge, models, source, gold
      and verdict blank (they live in the key file, sheet.key.json by default, with the seed).
      The expert fills `annotation` (A, B or tie) and, optionally, `annotation_reasoning`.
  judgeaudit adjudicate import sheet.csv --key sheet.key.json [--out DIR]
  judgeaudit adjudicate import judge_errors.csv [--out DIR]
      Check every row (a missing or unknown annotation is named by row) and write
      DIR/adjudication.md and DIR/adjudication.json: per judge and setup, the share of the
      judge's errors on which the expert sides with gold (exact interval), the controls'
      agreement, and (with a key) the judge's accuracy were the errors the expert sided with it
      on label errors. Show it in a report or an audit card with --adjudication DIR/adjudication.json.
"""


def register(subparsers: Any) -> None:
    """Add the `adjudicate` subcommand with its `export` and `import` actions."""
    p = subparsers.add_parser(
        "adjudicate",
        help="export a blind sheet of a judge's errors; import an expert's annotations",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    e = actions.add_parser(
        "export",
        help="write a blind sheet and its key from Inspect logs",
        description="Write a blind sheet of every pairwise item a judge decided wrongly in LOGS (a "
        "tie is an error) plus --controls items per run it decided rightly, in the published "
        "judge_errors.csv format: row id and the two ideas in a random A/B order; what the sheet "
        "hides (judge, models, source, gold, verdict) and the seeded draw go to the key file.",
    )
    e.add_argument("logs", type=Path, metavar="LOGS", help="directory of Inspect logs")
    e.add_argument("--out", required=True, type=Path, metavar="SHEET", help="the sheet (.csv)")
    e.add_argument(
        "--key", type=Path, default=None, help="the key file (default: SHEET with .key.json)"
    )
    e.add_argument(
        "--controls", type=int, default=2, help="right items per run (default: 2, as the study)"
    )
    e.add_argument("--seed", type=int, default=20260, help="seed of the draw (default: 20260)")
    e.set_defaults(func=Handler("judgeaudit.audit.adjudicate_commands", "export_command"))
    i = actions.add_parser(
        "import",
        help="check a filled sheet and summarise the adjudication",
        description="Check every row of a filled sheet (with its --key) or of a published "
        "judge_errors.csv (gold, verdict and judge in the file); a missing or unknown annotation "
        "is named by row. Write adjudication.md and adjudication.json: per judge and setup, the "
        "expert's agreement with gold on the judge's errors (exact interval), the controls' "
        "agreement, and (with a key) accuracy bounds were the judge-sided errors label errors.",
    )
    i.add_argument("sheet", type=Path, metavar="SHEET", help="filled sheet or judge_errors.csv")
    i.add_argument("--key", type=Path, default=None, help="the key written by export")
    i.add_argument(
        "--out", type=Path, default=Path("adjudication"), help="output dir (default: adjudication)"
    )
    i.set_defaults(func=Handler("judgeaudit.audit.adjudicate_commands", "import_command"))
