"""`judgeaudit audit`: vet a novelty judge with the probe battery and write its audit card (arguments: `audit.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judgeaudit.audit.battery import (
    COULD_NOT_JUDGE,
    PROBES_BY_KIND,
    AuditSpec,
    CouldNotJudge,
)
from judgeaudit.audit.display import DISPLAYS
from judgeaudit.audit.gates import load_gates
from judgeaudit.audit.run import run_audit
from judgeaudit.audit.sequential import run_until_decided
from judgeaudit.cli_args import (
    UsageError,
    at_least,
    check_bootstrap_args,
    key_values,
    output_dir,
    task_options,
)
from judgeaudit.judges.kinds import JUDGES, check_options
from judgeaudit.judges.option_checks import check_values
from judgeaudit.judges.options import OPTION_DEFAULTS
from judgeaudit.report.adjudication import append_section, read_summary, render_markdown


def _model_args(pairs: list[str]) -> dict[str, Any]:
    """-M key=value pairs, values kept as text (the provider converts them)."""
    return dict(key_values(pairs, "-M"))


def check_args(args: argparse.Namespace) -> None:
    """Refuse bad option values before anything runs (one line naming the option)."""
    check_bootstrap_args(args)
    at_least("--max-connections", args.max_connections, 1)
    output_dir("--out", args.out)
    if args.until_decided and args.max_items is None:
        raise UsageError("--until-decided needs --max-items N (the most items to audit)")
    if args.max_items is not None and not args.until_decided:
        raise UsageError("--max-items goes with --until-decided")
    at_least("--max-items", args.max_items, 1)
    at_least("--limit", args.limit, 1)
    if args.display not in DISPLAYS:
        raise UsageError(f"--display must be one of {', '.join(DISPLAYS)}, got {args.display!r}")


def handle(args: argparse.Namespace) -> int:
    """Run the audit and print the verdict and where the card is; a bad option raises a `UserError`
    (exit 2), an audit that could not judge `CouldNotJudge` (exit 3), both printed by `cli.main`."""
    check_args(args)
    options = task_options(args.task_options)
    model_args = _model_args(args.model_args)
    check_values(args.kind, args.judge, options)
    adjudication = read_summary(args.adjudication) if args.adjudication else None
    if args.judge in JUDGES:  # before anything is written to --out
        check_options(args.judge, {k: v for k, v in options.items() if k in OPTION_DEFAULTS})
    probes = PROBES_BY_KIND[args.kind]
    if args.probes:
        probes = tuple(p.strip() for p in args.probes.split(",") if p.strip())
        unknown = [p for p in probes if p not in PROBES_BY_KIND[args.kind]]
        if unknown:
            raise UsageError(
                f"--probes: unknown probe(s) for {args.kind}: {', '.join(unknown)} "
                f"(choose from {', '.join(PROBES_BY_KIND[args.kind])})"
            )
    gates = load_gates(args.gates)
    spec = AuditSpec(
        model=args.model,
        prompt=args.prompt,
        dataset=args.dataset,
        kind=args.kind,
        limit=args.limit,
        seed=args.seed,
        probes=probes,
        cache=not args.no_cache,
        resamples=args.resamples,
        gates_file=args.gates,
        model_args=model_args,
        judge=args.judge,
        judge_options=options,
        generated=tuple(args.generated),
    )
    if args.until_decided:
        result, paths = run_until_decided(
            spec, Path(args.out), args.max_items, gates, args.display, args.max_connections
        )
    else:
        result, paths = run_audit(
            spec,
            Path(args.out),
            gates=gates,
            display=args.display,
            max_connections=args.max_connections,
        )
    if result.looks:
        print(
            f"looks: {', '.join(str(look['items']) for look in result.looks['looks'])} items; "
            f"stopped: {result.looks['stopped']}"
        )
    print(f"verdict: {result.verdict}")
    for r in result.reasons:
        print(f"  {r.outcome}: {r.describe()}")
    if adjudication is not None:  # the expert's reading of the judge's errors, at the card's end
        append_section(Path(paths["md"]), render_markdown(adjudication))
    print(f"card: {paths['md']}")
    if result.verdict == COULD_NOT_JUDGE:
        statement = result.failures.statement() if result.failures else COULD_NOT_JUDGE
        raise CouldNotJudge(f"{statement} (card: {paths['md']})")
    return 0
