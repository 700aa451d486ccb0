"""The `judgeaudit audit` command line: its arguments and help; the handler (`audit.commands`) loads when it runs."""

from __future__ import annotations

from typing import Any

from judgeaudit.audit.display import COMPACT, INSPECT_DISPLAYS
from judgeaudit.cli_args import Handler, add_bootstrap_args
from judgeaudit.errors import ExitCode

DEFAULT_OUT = "audit"


def register(subparsers: Any) -> None:
    """Add the `audit` subcommand."""
    p = subparsers.add_parser(
        "audit",
        help="vet a novelty judge: run the bias-probe battery and write an audit card",
        description="Run the probe battery (position, presumption, verbosity, surface, injection, "
        "self-preference, repeat) for any judge kind as one resumable, cached Inspect eval-set and write an "
        "audit card (card.md, card.json, gates.png) with a fit / use with care / unfit verdict. Probes that "
        "cannot apply to the judge are reported with the reason; score judges (metric_*, distance_*, "
        "concept_*) also get the surface-perturbation ratio.",
        epilog=f"Exit status: {ExitCode.OK:d} with a verdict (fit, use with care, unfit); "
        f"{ExitCode.COULD_NOT_JUDGE:d} when the audit could not judge (model calls failed: the card is "
        "written and says so; or the battery did not complete), with one stderr line saying why; "
        f"{ExitCode.BAD_INPUT:d} on bad input (nothing is run); {ExitCode.INTERNAL:d} on an internal "
        f"error (a bug); {ExitCode.INTERRUPTED:d} when interrupted.",
    )
    p.add_argument(
        "--model",
        required=True,
        help="Inspect model, e.g. local/gemma-3-270m or openai/gpt-4o-mini; 'none' for the metric, "
        "distance and concept judges",
    )
    p.add_argument(
        "--judge",
        default="prompted",
        help="judge kind to audit: prompted (default), rubric, agentic, or a judge that scores ideas "
        "without a model (distance_nn, metric_embedding, concept_set, ...); an unknown name is "
        "refused with the list of all",
    )
    p.add_argument(
        "-T",
        dest="task_options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="judge task option passed to every task of the battery, e.g. -T retrieval=5 (repeatable)",
    )
    p.add_argument(
        "--prompt", default="reference", help="judge prompt variant (default: reference)"
    )
    p.add_argument(
        "--dataset",
        default="iclr2026/human_only",
        help="bundled set name, set directory or JSONL file",
    )
    p.add_argument(
        "--generated",
        action="append",
        default=[],
        metavar="DIR",
        help="Human+Generated set for the self-preference probe, or a directory of them (one subfolder per "
        "backbone, e.g. datasets/iclr2026/human_generated); repeatable, the sets are merged",
    )
    p.add_argument(
        "--kind",
        choices=("pairwise", "pointwise"),
        default="pairwise",
        help="judge kind (default: pairwise)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help="audit only N items: the first ones of the file, gold classes taken in turn",
    )
    p.add_argument(
        "--until-decided",
        action="store_true",
        help="audit a growing set of items (--limit, default 10, then doubling up to --max-items) and stop "
        "once every gate has decided; intervals are Bonferroni-adjusted over the planned looks",
    )
    p.add_argument(
        "--max-items",
        type=int,
        default=None,
        help="with --until-decided: the most items to audit (the last look); required with it",
    )
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help=f"output directory for logs and the card (default: {DEFAULT_OUT})",
    )
    p.add_argument(
        "--adjudication",
        default=None,
        metavar="FILE",
        help="an adjudication.json (`judgeaudit adjudicate import`) shown as a section of the card",
    )
    p.add_argument(
        "--gates",
        default=None,
        help="YAML or JSON file overriding gate thresholds: a gate name (as on the card) mapped to the "
        "fields to change, e.g. 'position_flip: {pass_at: 0.05, fail_at: 0.2}'; an unknown gate or "
        "field is refused with the list of known ones",
    )
    p.add_argument(
        "--probes",
        default=None,
        help="comma-separated subset of probes to run (default: all for the kind)",
    )
    add_bootstrap_args(p, "seed of the judge calls, transforms and bootstrap")
    p.add_argument("--no-cache", action="store_true", help="do not use Inspect's model-call cache")
    p.add_argument("--max-connections", type=int, default=None, help="concurrent model calls")
    p.add_argument(
        "-M",
        dest="model_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model argument (repeatable)",
    )
    p.add_argument(
        "--display",
        default=COMPACT,
        help=f"{COMPACT} (default): one progress line per battery task, then the verdict and the "
        f"gates that decided it; {', '.join(INSPECT_DISPLAYS)}: Inspect's own display",
    )
    p.set_defaults(func=Handler("judgeaudit.audit.commands", "handle"))
