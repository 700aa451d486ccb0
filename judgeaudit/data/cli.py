"""The `judgeaudit validate` and `convert` command lines: arguments and help; the handlers (`data.commands`) load when they run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judgeaudit.cli_args import Handler

VALIDATE_HELP = """\
Check contract JSONL files against the data contract: every item names its kind, id, setup
and area, and its ideas (id, title, text, gold label) in the fields that kind needs.

Each PATH is a JSONL file or a directory. Directories are searched recursively for
pairwise*.jsonl and pointwise*.jsonl files, and for a mined set's labelled.jsonl (every
labelled idea before pairing); other JSONL files are listed as skipped. A *_plan.jsonl file
must agree with its abstract file (same item id: setup and area; same idea id: label), and
the pair and point files must agree with labelled.jsonl beside them (every idea a row with
the same label and area; each row's `pairs` the times pairwise.jsonl holds it). A set
directory (one holding manifest.json) must also match its manifest's content hashes and
carry a README.md card whose YAML configs name its files.

Every problem is printed as FILE:LINE: FIELD: MESSAGE (not only the first), then a
summary. Exit status: 0 all valid; 2 any problem found, or a PATH that is missing or holds
no pairwise*/pointwise* JSONL files. A PATH may also name a bundled set, e.g. iclr2026/human_only.
"""

CONVERT_HELP = """\
Convert a published novelty-judge set into contract JSONL files, with a dataset card
(README.md) and a manifest.json in every set directory written.

novelty-judge-bench: SOURCE is a local directory with the published layout or a Hugging
Face dataset id such as noystl/novelty-judge-bench (needs network, or a filled local HF
cache). Which files become which sets:
  human-only/<file>.yaml                           -> OUT/human_only/<file>.jsonl
  human-plus-generated/<file>.yaml                 -> OUT/human_generated/<file>.jsonl
      (generated side: the release's stated ideator, claude-sonnet-4-5)
  human-plus-generated/backbone-<model>/<file>.yaml -> OUT/human_generated/<model>/<file>.jsonl
  ai-only/<family>/<file>.yaml                     -> OUT/ai_only/<family>/<file>.jsonl
      (both sides generated; gold = the stronger generator's idea)
  expert-annotations/judge_errors.csv              -> no set: `judgeaudit adjudicate import`
where <file> is pairwise, pairwise_plan, pointwise or pointwise_plan. Any other file is
printed as `skipped (<reason>): <path>`. Cards carry the release's license (CC BY 4.0) and
credit it.
Nothing is written when any source item is broken; every problem is printed.
"""


def register(subparsers: Any) -> None:
    """Add the `validate` and `convert` subcommands."""
    v = subparsers.add_parser(
        "validate",
        help="check contract JSONL files; list every problem",
        description=VALIDATE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="JSONL file or set directory (searched recursively)",
    )
    v.add_argument(
        "--kind",
        choices=("pairwise", "pointwise"),
        default=None,
        help="item kind for files not named pairwise*/pointwise* (default: from the name)",
    )
    v.add_argument(
        "--no-manifest",
        action="store_true",
        help="do not check set directories' manifest.json hashes and README.md cards",
    )
    v.set_defaults(func=Handler("judgeaudit.data.commands", "validate_command"))

    c = subparsers.add_parser(
        "convert",
        help="convert a published benchmark into contract JSONL",
        description=CONVERT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument(
        "--from",
        dest="source_format",
        required=True,
        choices=("novelty-judge-bench",),
        help="format of the source",
    )
    c.add_argument("source", metavar="SOURCE", help="local directory or Hugging Face dataset id")
    c.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="output root, e.g. datasets/njb"
    )
    c.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty OUT (stale *.jsonl in the written set directories are removed)",
    )
    c.set_defaults(func=Handler("judgeaudit.data.commands", "convert_command"))
