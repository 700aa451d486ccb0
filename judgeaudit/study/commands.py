"""`judgeaudit study run|estimate|tasks`: the handlers (arguments: `study.cli`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.model import BatchConfig

from judgeaudit.cli_args import UsageError, at_least, output_dir, task_options
from judgeaudit.errors import ExitCode, UserError
from judgeaudit.study.cells import CELL_TASKS
from judgeaudit.study.estimate import estimate, estimate_lines, planned_calls
from judgeaudit.study.protocol import Cell, bundled_sets, study_cells
from judgeaudit.study.run import cost_config, refuse_unbatched, run_study, study_tasks


def _models(text: str) -> list[str]:
    models = [m.strip() for m in text.split(",") if m.strip()]
    if not models:
        raise UsageError("--model: give at least one model")
    return models


def _plan(args: argparse.Namespace) -> tuple[list[Cell], dict[str, Any], list[str]]:
    """(the cells, the -T options, the models), options checked by building every cell's task once
    (refused in one line before any call); the cells left out are printed."""
    at_least("--limit", args.limit, 1)
    at_least("--output-tokens", args.output_tokens, 0)
    models = _models(args.model)
    options = task_options(args.task_options)
    cells, skipped = study_cells(args.dataset or bundled_sets())
    for line in skipped:
        print(f"skipped: {line}", file=sys.stderr)
    if args.batch:
        refuse_unbatched(models)
    return cells, options, models


def _estimate_text(
    args: argparse.Namespace, cells: list[Cell], options: dict[str, Any], models: list[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    study_tasks(cells[:1], options)  # a bad option or -T dataset: one line before any rendering
    calls = planned_calls(cells, options, args.limit)
    estimates = estimate(
        calls,
        models,
        batch=args.batch,
        cache=bool(options.get("cache", True)),
        output_tokens=args.output_tokens,
    )
    lines = [
        f"{len(cells)} cells x {len(models)} judge(s)"
        + (f", first {args.limit} items per cell" if args.limit else ""),
        *estimate_lines(estimates, args.batch),
    ]
    return lines, [e.to_dict() for e in estimates]


def handle_estimate(args: argparse.Namespace) -> int:
    """Print the cost estimate per judge (and write Inspect's cost config when asked)."""
    cells, options, models = _plan(args)
    lines, records = _estimate_text(args, cells, options, models)
    if args.cost_config:
        path = Path(args.cost_config)
        output_dir("--cost-config", path.parent)
        prices = {m: c.model_dump() for m, c in cost_config(models, args.batch).items()}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(prices, sort_keys=True), encoding="utf-8")
        lines.append(f"Inspect prices for {len(prices)} model(s) written to {path}")
    if args.json:
        print(json.dumps({"batch": args.batch, "judges": records}, indent=2))
    else:
        print("\n".join(lines))
    return 0


def handle_run(args: argparse.Namespace) -> int:
    """Print the estimate, then run (or resume) the study as one eval set."""
    at_least("--batch-size", args.batch_size, 1)
    at_least("--max-connections", args.max_connections, 1)
    if args.batch_size is not None and not args.batch:
        raise UsageError("--batch-size goes with --batch")
    output_dir("--log-dir", args.log_dir)
    cells, options, models = _plan(args)
    lines, _ = _estimate_text(args, cells, options, models)
    print("\n".join(lines), flush=True)
    batch = BatchConfig(size=args.batch_size) if args.batch else None
    extra: dict[str, Any] = {"display": args.display}
    if args.max_connections is not None:
        extra["max_connections"] = args.max_connections
    ok = run_study(cells, models, args.log_dir, options, limit=args.limit, batch=batch, **extra)
    if not ok:
        raise UserError(
            "not every cell finished; run the same command to resume",
            exit_code=ExitCode.COULD_NOT_JUDGE,
        )
    return 0


def handle_tasks(args: argparse.Namespace) -> int:
    """Print the registered study tasks, one per line (those that apply to --dataset, when given)."""
    if args.dataset is None:
        names = list(CELL_TASKS)
    else:
        cells, skipped = study_cells([args.dataset])
        names = [c.name for c in cells]
        for line in skipped:
            print(f"skipped: {line}", file=sys.stderr)
    print("\n".join(f"judgeaudit/{name}" for name in names))
    return 0
