"""`judgeaudit mine`: OpenReview reviews -> validated novel/not_novel ideas -> Human-Only pair and point sets.

The handler; the arguments and help are `mine.cli`."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from judgeaudit.mine.calibrate import load_dev, measure, no_match_problem
from judgeaudit.mine.export import SET_NAME, export_set, read_calibration
from judgeaudit.mine.llm_signals import LLMExtractor
from judgeaudit.mine.openreview import fetch
from judgeaudit.mine.openreview.fetch import FetchError, cached_summary
from judgeaudit.mine.openreview.shards import CacheError, cache_files, cache_hash
from judgeaudit.mine.pairing import make_pairs
from judgeaudit.mine.parse import as_of_ms, as_of_text
from judgeaudit.mine.pipeline import mine
from judgeaudit.mine.sanitise import LLMSanitiser, RuleSanitiser
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals import OfflineExtractor, offline_fingerprint
from judgeaudit.mine.staging import set_lock
from judgeaudit.mine.stance import (
    LearnedExtractor,
    ModelError,
    load_model,
    model_fingerprint,
    packaged_models,
)


def _resolve_selection(args: argparse.Namespace, selection: dict[str, Any]) -> None:
    """Fill the selection choices left unset from a stance model's cross-validated ones (or the reference rule)."""
    if args.max_opposing is None:
        args.max_opposing = int(selection.get("max_opposing", 0))
    if args.majority_rule is None:
        args.majority_rule = "strict" if selection.get("strict_majority", True) else "inclusive"
    if args.weak_affirmations is None:
        args.weak_affirmations = "oppose" if selection.get("weak_opposes", True) else "ignore"


def _thresholds(args: argparse.Namespace) -> Thresholds:
    return Thresholds(min_reviews=args.min_reviews, top_quantile=args.top_quantile, bottom_quantile=args.bottom_quantile,
                      novel_min_contribution=args.novel_min_contribution,
                      not_novel_max_contribution=args.not_novel_max_contribution, majority=args.majority,
                      max_opposing=args.max_opposing, include_withdrawn=not args.exclude_withdrawn,
                      strict_majority=args.majority_rule == "strict", weak_opposes=args.weak_affirmations == "oppose")


def _command(args: argparse.Namespace, source_arg: str) -> str:
    """A canonical, reproducible command line (no timestamps, no secrets)."""
    parts = ["judgeaudit", "mine", *source_arg.split(" "), "--out", args.out, "--extractor", args.extractor,
             "--sanitiser", args.sanitiser, "--seed", str(args.seed)]
    defaults = {"min_reviews": 3, "top_quantile": 0.9, "bottom_quantile": 0.1, "novel_min_contribution": 3.0,
                "not_novel_max_contribution": 2.0, "majority": 0.5}
    for key, default in defaults.items():
        if getattr(args, key) != default:
            parts += ["--" + key.replace("_", "-"), str(getattr(args, key))]
    parts += ["--max-opposing", str(args.max_opposing), "--majority-rule", args.majority_rule,
              "--weak-affirmations", args.weak_affirmations]
    if args.exclude_withdrawn:
        parts.append("--exclude-withdrawn")
    if args.reviews_as_of:
        parts += ["--reviews-as-of", as_of_text(as_of_ms(args.reviews_as_of))]
    if args.no_prefilter:
        parts.append("--no-prefilter")
    return " ".join(shlex.quote(p) for p in parts)


def _is_llm(value: str) -> bool:
    """An LLM extractor spec: 'litellm/<model>' or an Inspect model name ('<provider>/<model>', not a PATH.json)."""
    return value.startswith("litellm/") or ("/" in value and not value.endswith(".json"))


def _llm_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"api_base": args.api_base} if args.api_base else {}


CHOICES: dict[str, tuple[str, ...]] = {"majority_rule": ("strict", "inclusive"), "weak_affirmations": ("oppose", "ignore")}
"""Mine options that take one of a few values (checked here so a bad one is one line, like every other check)."""


def _model_spec(option: str, value: str) -> str | None:
    """Why a 'litellm/<model>' value is unusable (an empty model name), or None."""
    if value.startswith("litellm/") and not value.split("/", 1)[1].strip("/ "):
        return f"{option} {value!r}: no model name after 'litellm/' (e.g. litellm/openai/gpt-4o-mini)"
    return None


def _dir_option(option: str, value: str | None) -> str | None:
    """Why a directory option is unusable (it names an existing non-directory), or None."""
    if value and Path(value).exists() and not Path(value).is_dir():
        return f"{option} {value}: is a file, not a directory"
    return None


def _check_dev(path: str) -> str | None:
    """Why a --dev file is unusable (missing, a directory, malformed, no rows), or None."""
    dev = Path(path)
    if not dev.exists():
        return f"--dev {path}: file does not exist"
    if not dev.is_file():
        return f"--dev {path}: is a directory, not a dev labels file (human_only_dev.jsonl)"
    try:
        rows = load_dev(dev)
    except (ValueError, TypeError, OSError, UnicodeDecodeError) as exc:
        return f"--dev {path}: {exc}"
    if not rows:
        return f"--dev {path}: holds no dev rows, so there is nothing to measure against"
    return None


def _check_paths(args: argparse.Namespace) -> str | None:
    """Why a path option is unusable, or None (checked before any mining work)."""
    for option, value in (("--out", args.out), ("--cache", args.cache), ("--llm-cache", args.llm_cache)):
        problem = _dir_option(option, value)
        if problem:
            return problem
    if args.source:
        path = Path(args.source.split(":", 1)[1])
        if not str(path) or not path.exists():
            return f"--source {args.source}: directory does not exist"
        if not path.is_dir():
            return f"--source {args.source}: is a file, not a raw cache directory"
    return _check_dev(args.dev) if args.dev else None


def _check(args: argparse.Namespace) -> str | None:
    if not 0.0 < args.bottom_quantile < args.top_quantile < 1.0:
        return f"need 0 < --bottom-quantile < --top-quantile < 1 (got {args.bottom_quantile}, {args.top_quantile})"
    if args.min_reviews < 1:
        return f"--min-reviews must be >= 1 (got {args.min_reviews})"
    if not 0.0 <= args.majority < 1.0:
        return f"--majority must be in [0, 1) (got {args.majority})"
    for key, allowed in CHOICES.items():
        value = getattr(args, key)
        if value is not None and value not in allowed:
            return f"--{key.replace('_', '-')} must be one of {', '.join(allowed)} (got {value!r})"
    if args.workers < 1:
        return f"--workers must be >= 1 (got {args.workers})"
    for option, value in (("--extractor", args.extractor), ("--sanitiser", args.sanitiser)):
        problem = _model_spec(option, value)
        if problem:
            return problem
    if args.sanitiser != "rules" and not args.sanitiser.startswith("litellm/"):
        return f"--sanitiser must be 'rules' or 'litellm/<model>' (got {args.sanitiser!r})"
    known = ("offline", *packaged_models())
    if args.extractor not in known and not _is_llm(args.extractor) and not args.extractor.endswith(".json"):
        return (f"--extractor must be one of {', '.join(known)}, a model PATH.json, 'litellm/<model>' or an "
                f"Inspect model name like local/gemma-3-270m (got {args.extractor!r})")
    if args.max_opposing is not None and args.max_opposing < 0:
        return f"--max-opposing must be >= 0 (got {args.max_opposing})"
    if args.source and not args.source.startswith("snapshot:"):
        return f"--source must look like snapshot:PATH (got {args.source!r})"
    if args.reviews_as_of is not None:
        try:
            as_of_ms(args.reviews_as_of)
        except ValueError as exc:
            return f"--reviews-as-of {exc}"
    return _check_paths(args)


def _error(message: str, code: int = 2) -> int:
    """Print one `error: ...` line to stderr; returns the exit code."""
    print(f"error: {message}", file=sys.stderr)
    return code


def handle_mine(args: argparse.Namespace) -> int:
    """Run the miner and write the set; returns the exit code (Ctrl-C: `judgeaudit.cli` prints one
    line and exits 130; the set is swapped in whole, so the old one is kept). `--out` is locked from
    mining to writing: a second run into it waits, or refuses with one line (`files.locked_output_dir`)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    problem = _check(args)
    if problem:
        return _error(problem)
    return _run_mine(args)


def _run_mine(args: argparse.Namespace) -> int:
    progress = not args.no_progress
    if args.source:
        cache_dir = Path(args.source.split(":", 1)[1])
        source_arg = f"--source {args.source}"
        kind = "snapshot"
    else:
        cache_dir = Path(args.cache or Path(".cache/openreview") / args.venue.replace("/", "-"))
        source_arg = f"--venue {args.venue} --cache {cache_dir}"
        kind = "fetch"
        code = _fetch(args, cache_dir, progress)
        if code:
            return code
    try:
        state = cached_summary(cache_dir)
        if state is not None and not state.complete:
            raise CacheError(f"{cache_dir} holds an interrupted fetch ({state.submissions} submissions so far); "
                             f"re-run `judgeaudit mine --venue {state.venue_id} --cache {cache_dir}` to finish it")
        files = [p.name for p in cache_files(cache_dir)]
        snapshot_hash = cache_hash(cache_dir)
    except (CacheError, FetchError) as exc:
        return _error(str(exc))
    llm_cache = Path(args.llm_cache)
    extractor: Any
    selection: dict[str, Any] = {}
    if args.extractor == "offline":
        extractor, workers, fingerprint = OfflineExtractor(), max(1, args.workers), offline_fingerprint()
    elif _is_llm(args.extractor):
        extractor = LLMExtractor.from_spec(args.extractor, llm_cache / "signals", prefilter=not args.no_prefilter,
                                           completion_kwargs=_llm_kwargs(args) if args.extractor.startswith("litellm/") else {})
        try:
            extractor.connect()
        except Exception as exc:  # an unknown Inspect provider/model, a missing package or key: one line
            return _error(f"--extractor {args.extractor}: {' '.join(str(exc).split())[:300]}")
        workers, fingerprint = 1, None
    else:
        try:
            model = load_model(args.extractor)
        except ModelError as exc:
            return _error(str(exc))
        extractor, workers = LearnedExtractor(model), max(1, args.workers)
        fingerprint, selection = model_fingerprint(args.extractor), model.selection
    _resolve_selection(args, selection)
    thresholds = _thresholds(args)
    sanitiser: Any = RuleSanitiser() if args.sanitiser == "rules" else LLMSanitiser(
        args.sanitiser.split("/", 1)[1], llm_cache / "sanitise", completion_kwargs=_llm_kwargs(args))
    command = _command(args, source_arg)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr)

    out_dir = Path(args.out)
    set_dir = out_dir / SET_NAME
    with set_lock(set_dir, "--out"):  # a second run into this --out waits for this one (or refuses)
        result = mine(cache_dir, venue_id=args.venue, extractor=extractor, sanitiser=sanitiser, thresholds=thresholds,
                      workers=workers, progress=progress, log=log,
                      reviews_as_of=as_of_ms(args.reviews_as_of) if args.reviews_as_of else None)
        if isinstance(extractor, LLMExtractor):
            log(_llm_cost_line(extractor))
        if args.dev:
            problem = no_match_problem(args.dev, load_dev(args.dev), result.corpus)
            if problem:
                return _error(problem)
        if not any(i.label == "novel" for i in result.ideas) or not any(i.label == "not_novel" for i in result.ideas):
            for name, n in result.stages:
                print(f"  {name}: {n}", file=sys.stderr)
            print("error: the selection kept no novel or no not_novel idea, so there is no set to write "
                  f"(nothing written to {set_dir}); check the source and thresholds", file=sys.stderr)
            return 1
        if not make_pairs(result.ideas, args.seed)[0]:
            print("error: no area has both a novel and a not_novel idea, so there is no pair to write "
                  f"(nothing written to {set_dir}); check the source and thresholds", file=sys.stderr)
            return 1
        calibration = None
        if args.dev:
            log(f"measuring the extractor against {args.dev}")
            calibration = measure(args.dev, result.corpus, extractor, result.selection.candidates, result.selection.kept(),
                                  fingerprint=fingerprint, command=command + f" --dev {shlex.quote(args.dev)}")
        else:
            calibration = read_calibration(set_dir, extractor.name, fingerprint)
        source = {"venue": args.venue, "kind": kind, "path": str(cache_dir), "files": files, "sha256": snapshot_hash}
        set_dir, report = export_set(result, out_dir, seed=args.seed, thresholds=thresholds, source=source, command=command,
                                     extractor=extractor.name, sanitiser=sanitiser.name, calibration=calibration,
                                     store_calibration=bool(args.dev))
        _print_summary(result, report, set_dir, calibration)
        return 0


def _llm_cost_line(extractor: LLMExtractor) -> str:
    """One line: reviews sent, calls, tokens, and the reviews whose answer failed (their papers are not kept)."""
    c = extractor.cost()
    kinds = ", ".join(f"{n} {kind}" for kind, n in c["failures_by_reason"].items()) or "none"
    return (f"LLM extractor {extractor.name}: {c['reviews_sent']} reviews sent ({c['reviews_skipped_by_prefilter']} "
            f"skipped by the cue pre-filter), {c['calls']} calls, {c['cache_hits']} cache hits, {c['input_tokens']} input / "
            f"{c['output_tokens']} output tokens; failed reviews: {c['failed_reviews']} ({kinds}); "
            f"quotes dropped as not verbatim: {c['quotes_dropped_not_verbatim']}")


def _fetch(args: argparse.Namespace, cache_dir: Path, progress: bool) -> int:
    kwargs: dict[str, Any] = {"progress": progress}
    if args.baseurl:
        kwargs["baseurl"] = args.baseurl
    try:
        summary = fetch.fetch_venue(args.venue, cache_dir, **kwargs)
    except fetch.FetchError as exc:
        print(f"error: --venue {args.venue}: fetch failed: {exc}", file=sys.stderr)
        return 2
    for line in summary.lines():
        print(line, file=sys.stderr)
    return 0


def _print_summary(result: Any, report: Any, set_dir: Path, calibration: dict[str, Any] | None) -> None:
    print("\ncounts after each stage")
    width = max(len(name) for name, _ in result.stages)
    for name, n in result.stages:
        print(f"  {name:<{width}}  {n:>7}")
    print("\nby area" + " " * 46 + "reviewed  cand.N  cand.NN  novel  not_novel  pairs")
    for area, c in result.by_area.items():
        print(f"  {area[:50]:<50}  {c['reviewed']:>8}  {c['candidates_novel']:>6}  {c['candidates_not_novel']:>7}  "
              f"{c['novel']:>5}  {c['not_novel']:>9}  {report.pairs_by_area.get(area, 0):>5}")
    skipped = result.summary.lines()
    if skipped:
        print("\nskipped (counted)")
        for line in skipped:
            print("  " + line)
    if calibration:
        p = calibration["passages"]
        rows = calibration.get("dev_rows")
        if rows:
            print(f"\ndev rows matched to a paper of the source: {rows['matched']} of {rows['rows']} "
                  f"({rows['rows'] - rows['matched']} unmatched, {rows['rows'] - rows['with_forum']} without a forum id)")
        print(f"\nextractor vs reference passages: affirm P={p['affirm']['precision']} R={p['affirm']['recall']}; "
              f"dispute P={p['dispute']['precision']} R={p['dispute']['recall']}")
        for lab, q in calibration["labels"].items():
            print(f"  dev {lab}: {q['kept_same_label']}/{q['with_forum']} kept with the same label, {q['swapped']} swapped")
    print(f"\nwrote {set_dir}/pairwise.jsonl, pointwise.jsonl, manifest.json, README.md")
