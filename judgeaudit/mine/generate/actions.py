"""`judgeaudit mine generate` and `judgeaudit mine plan`: the command-line actions over `generate` and `plans`."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from judgeaudit.data.validate import ContractError
from judgeaudit.mine.generate import human_generated as generate
from judgeaudit.mine.generate.human_generated import (
    SETUP,
    backbone_name,
    build_generated,
    generate_command,
    load_source_pairs,
    write_generated,
)
from judgeaudit.mine.generate.plans import PLAN_SCHEMA, failure_summary, plan_command, rewrite_set
from judgeaudit.mine.llm import CachedModel
from judgeaudit.mine.staging import set_lock

PLAN_DESCRIPTION = """\
Rewrite every idea of a set into a two-field plan (purpose, mechanism) with an LLM, for the
idea-format ablation (`-T idea_format=plan`). Writes pairwise_plan.jsonl / pointwise_plan.jsonl
next to the set's abstract files (same item ids, positions and gold) and updates its manifest
and card; an idea that cannot be rewritten leaves its items out, and every failure is reported
with its reason. The set is replaced as a whole: a failed or interrupted run leaves it as it was.
"""

GENERATE_EPILOG = """\
examples:
  # a runnable example with the bundled local model (weak: for trying the pipeline only)
  judgeaudit mine generate --model local/gemma-3-270m --limit 10 --max-tokens 120
  # a real backbone through litellm; answers are cached, so a re-run or resume is free
  judgeaudit mine generate --model litellm/openai/gpt-4o-mini
  # then rewrite that set's ideas as plans
  judgeaudit mine plan --model litellm/openai/gpt-4o-mini --dataset datasets/iclr2026/human_generated/gpt-4o-mini
"""


def _model_options(p: Any, *, temperature: float) -> None:
    p.add_argument("--model", required=True, help="Inspect model id, e.g. local/gemma-3-270m, litellm/openai/gpt-4o-mini")
    p.add_argument("-M", dest="model_args", action="append", default=[], metavar="KEY=VALUE",
                   help="model argument passed to get_model (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="base seed (attempt i uses seed+i; also the a/b shuffle) (default: 0)")
    p.add_argument("--max-tokens", type=int, default=256, help="answer length cap (default: 256)")
    p.add_argument("--temperature", type=float, default=temperature, help=f"sampling temperature (default: {temperature})")
    p.add_argument("--attempts", type=int, default=3, help="attempts per idea before it counts as failed (default: 3)")
    p.add_argument("--max-connections", type=int, default=4, help="concurrent model calls (default: 4)")
    p.add_argument("--cache", default=None, help="answer cache directory (default: .cache/judgeaudit/mining-llm/<action>)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def register_actions(mine_parser: Any) -> Any:
    """Add the `generate` and `plan` actions under `judgeaudit mine`; returns the actions' subparsers (for more)."""
    actions = mine_parser.add_subparsers(dest="mine_action", metavar="ACTION", required=False,
                                         title="actions (optional; without one, `mine` mines Human-Only labels)")
    g = actions.add_parser("generate", help="build a Human+Generated set with an LLM ideator",
                           description=(generate.__doc__ or "").split("\n\n")[0], epilog=GENERATE_EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("--dataset", default="iclr2026/human_only", help="Human-Only set (name or path) (default: iclr2026/human_only)")
    g.add_argument("--out", default="datasets/iclr2026", help="set root; files go to <out>/human_generated/<backbone>/ (default: datasets/iclr2026)")
    g.add_argument("--backbone", default=None, help="directory name of the generator (default: last part of --model)")
    g.add_argument("--limit", type=int, default=None, help="use a seeded sample of this many source pairs (default: all)")
    _model_options(g, temperature=0.7)
    g.set_defaults(func=handle_generate)
    pl = actions.add_parser("plan", help="rewrite a set's ideas as two-field plans (purpose, mechanism)",
                            description=PLAN_DESCRIPTION, epilog=GENERATE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    pl.add_argument("--dataset", required=True, help="set directory holding pairwise.jsonl / pointwise.jsonl")
    pl.add_argument("--structured", action="store_true",
                    help="ask for a JSON {purpose, mechanism} answer through the provider's structured output "
                         "(a grammar for local/ models); use it for models that ignore the text format")
    _model_options(pl, temperature=0.3)
    pl.set_defaults(func=handle_plan)
    return actions


def _check_model_options(args: Any) -> None:
    """ValueError naming the option for a model option no run could use."""
    if not args.model.strip("/ ") or args.model.endswith("/"):
        raise ValueError(f"--model {args.model!r}: not a model id (e.g. litellm/openai/gpt-4o-mini)")
    for option, value in (("--max-tokens", args.max_tokens), ("--attempts", args.attempts),
                          ("--max-connections", args.max_connections)):
        if value < 1:
            raise ValueError(f"{option} must be >= 1 (got {value})")
    if args.temperature < 0:
        raise ValueError(f"--temperature must be >= 0 (got {args.temperature})")
    if args.cache and Path(args.cache).exists() and not Path(args.cache).is_dir():
        raise ValueError(f"--cache {args.cache}: is a file, not a directory")


def _cached_model(args: Any, action: str) -> CachedModel:
    _check_model_options(args)
    model_args: dict[str, Any] = {}
    for kv in args.model_args:
        key, sep, value = kv.partition("=")
        if not sep:
            raise ValueError(f"-M {kv!r}: expected KEY=VALUE")
        model_args[key] = value
    return CachedModel(model=args.model, cache_dir=Path(args.cache or f".cache/judgeaudit/mining-llm/{action}"),
                       max_tokens=args.max_tokens, temperature=args.temperature, seed=args.seed,
                       attempts=max(1, args.attempts), max_connections=args.max_connections, model_args=model_args)


def handle_generate(args: Any) -> int:
    """`judgeaudit mine generate`: write a Human+Generated set; returns the exit code."""
    return int(_generate(args))


def handle_plan(args: Any) -> int:
    """`judgeaudit mine plan`: write `_plan` files next to a set's abstract files; returns the exit code."""
    return int(_plan(args))


def _generate(args: Any) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
            raise ValueError(f"--out {args.out}: is a file, not a directory")
        if args.limit is not None and args.limit < 1:
            raise ValueError(f"--limit must be >= 1 (got {args.limit})")
        model = _cached_model(args, "generate")
        source_path, pairs = load_source_pairs(args.dataset)
    except (ValueError, FileNotFoundError, ContractError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    set_dir = Path(args.out) / SETUP / (args.backbone or backbone_name(args.model))
    with set_lock(set_dir, "--out"):  # a second run into this set waits for this one (or refuses)
        gs = build_generated(pairs, model, seed=args.seed, limit=args.limit, progress=not args.no_progress)
        if not gs.pairs:
            print(f"error: no pair could be generated ({gs.counts}); nothing written",
                  file=sys.stderr)
            return 1
        command = generate_command(args.model, args.dataset, args.out, args.seed, args.limit, args.max_tokens,
                                   args.temperature, model.attempts)
        write_generated(gs, set_dir, model, source_name=args.dataset, source_path=source_path, command=command,
                        seed=args.seed, limit=args.limit)
    c = gs.counts
    print(f"model calls: {model.calls}, cached answers: {model.cache_hits}")
    print(f"pairs: {c['pairs_written']} written, {c['pairs_skipped']} left out; bad attempts: "
          f"{c['bad_attempts_by_reason']}")
    print(f"wrote {set_dir}/pairwise.jsonl, pointwise.jsonl, manifest.json, README.md")
    return 0


def _plan(args: Any) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        model = _cached_model(args, "plan")
        if args.structured:
            model.response_schema = PLAN_SCHEMA
        command = plan_command(args.model, args.dataset, args.seed, args.max_tokens, args.temperature, model.attempts,
                               args.structured)
        set_dir = Path(args.dataset)
        with set_lock(set_dir, "--dataset") if set_dir.is_dir() else nullcontext():  # a missing set: rewrite_set says so
            result = rewrite_set(set_dir, model, command=command, progress=not args.no_progress)
    except (ValueError, FileNotFoundError, ContractError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"model calls: {model.calls}, cached answers: {model.cache_hits}")
    print(f"ideas: {result.counts['succeeded']} rewritten, {result.counts['failed']} failed; "
          f"items left out: {result.skipped_items}")
    if result.failed_ideas:
        print(failure_summary(result.failed_ideas, result.counts["requested"]))
        for idea_id, reasons in result.failed_ideas.items():
            print(f"  {idea_id}: {reasons}")
    print(f"wrote {', '.join(str(Path(args.dataset) / n) for n in result.written)}")
    return 0
