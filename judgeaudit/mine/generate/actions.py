"""`judgeaudit mine generate` and `judgeaudit mine plan`: the handlers over `generate` and `plans` (arguments: `mine.cli`)."""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from judgeaudit.cli_args import UsageError, at_least, output_dir
from judgeaudit.errors import ExitCode, UserError, as_user_error
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


def _check_model_options(args: Any) -> None:
    """Refuse (a `UsageError` naming the option) a model option no run could use."""
    if not args.model.strip("/ ") or args.model.endswith("/"):
        raise UsageError(
            f"--model {args.model!r}: not a model id (e.g. litellm/openai/gpt-4o-mini)"
        )
    for option, value in (
        ("--max-tokens", args.max_tokens),
        ("--attempts", args.attempts),
        ("--max-connections", args.max_connections),
    ):
        if value < 1:
            raise UsageError(f"{option} must be >= 1 (got {value})")
    if args.temperature < 0:
        raise UsageError(f"--temperature must be >= 0 (got {args.temperature})")
    if args.cache and Path(args.cache).exists() and not Path(args.cache).is_dir():
        raise UsageError(f"--cache {args.cache}: is a file, not a directory")


def _cached_model(args: Any, action: str) -> CachedModel:
    _check_model_options(args)
    model_args: dict[str, Any] = {}
    for kv in args.model_args:
        key, sep, value = kv.partition("=")
        if not sep:
            raise UsageError(f"-M {kv!r}: expected KEY=VALUE")
        model_args[key] = value
    return CachedModel(
        model=args.model,
        cache_dir=Path(args.cache or f".cache/judgeaudit/mining-llm/{action}"),
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        seed=args.seed,
        attempts=max(1, args.attempts),
        max_connections=args.max_connections,
        model_args=model_args,
    )


def handle_generate(args: Any) -> int:
    """`judgeaudit mine generate`: write a Human+Generated set; returns the exit code."""
    return int(_generate(args))


def handle_plan(args: Any) -> int:
    """`judgeaudit mine plan`: write `_plan` files next to a set's abstract files; returns the exit code."""
    return int(_plan(args))


def _generate(args: Any) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        if args.out:
            output_dir("--out", args.out)
        at_least("--limit", args.limit, 1)
        model = _cached_model(args, "generate")
        source_path, pairs = load_source_pairs(args.dataset)
    except ValueError as exc:  # a value the libraries refuse: the user's input, not a bug
        raise as_user_error(exc) from exc
    set_dir = Path(args.out) / SETUP / (args.backbone or backbone_name(args.model))
    with set_lock(set_dir, "--out"):  # a second run into this set waits for this one (or refuses)
        gs = build_generated(
            pairs, model, seed=args.seed, limit=args.limit, progress=not args.no_progress
        )
        if not gs.pairs:
            raise UserError(
                f"no pair could be generated ({gs.counts}); nothing written",
                exit_code=ExitCode.COULD_NOT_JUDGE,
            )
        command = generate_command(
            args.model,
            args.dataset,
            args.out,
            args.seed,
            args.limit,
            args.max_tokens,
            args.temperature,
            model.attempts,
        )
        write_generated(
            gs,
            set_dir,
            model,
            source_name=args.dataset,
            source_path=source_path,
            command=command,
            seed=args.seed,
            limit=args.limit,
        )
    c = gs.counts
    print(f"model calls: {model.calls}, cached answers: {model.cache_hits}")
    print(
        f"pairs: {c['pairs_written']} written, {c['pairs_skipped']} left out; bad attempts: "
        f"{c['bad_attempts_by_reason']}"
    )
    print(f"wrote {set_dir}/pairwise.jsonl, pointwise.jsonl, manifest.json, README.md")
    return 0


def _plan(args: Any) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        model = _cached_model(args, "plan")
        if args.structured:
            model.response_schema = PLAN_SCHEMA
        command = plan_command(
            args.model,
            args.dataset,
            args.seed,
            args.max_tokens,
            args.temperature,
            model.attempts,
            args.structured,
        )
        set_dir = Path(args.dataset)
        with (
            set_lock(set_dir, "--dataset") if set_dir.is_dir() else nullcontext()
        ):  # a missing set: rewrite_set says so
            result = rewrite_set(set_dir, model, command=command, progress=not args.no_progress)
    except ValueError as exc:  # a value the libraries refuse: the user's input, not a bug
        raise as_user_error(exc) from exc
    print(f"model calls: {model.calls}, cached answers: {model.cache_hits}")
    print(
        f"ideas: {result.counts['succeeded']} rewritten, {result.counts['failed']} failed; "
        f"items left out: {result.skipped_items}"
    )
    if result.failed_ideas:
        print(failure_summary(result.failed_ideas, result.counts["requested"]))
        for idea_id, reasons in result.failed_ideas.items():
            print(f"  {idea_id}: {reasons}")
    print(f"wrote {', '.join(str(Path(args.dataset) / n) for n in result.written)}")
    return 0
