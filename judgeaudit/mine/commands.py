"""`judgeaudit mine`: OpenReview reviews -> labelled novel/not_novel ideas -> Human-Only pair and point sets.

Also the two actions of an LLM pass: `judgeaudit mine [options] units --write FILE` (the work units of
the current candidates) and `judgeaudit mine answers --units FILE --answers FILE` (their answers into
the extractor's cache), see `judgeaudit.mine.units`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from judgeaudit.cli_args import UsageError, at_least
from judgeaudit.mine.export import POINT_SETS, SET_NAME, export_set, read_calibration
from judgeaudit.mine.llm import NOT_CACHED
from judgeaudit.mine.openreview import fetch
from judgeaudit.mine.openreview.fetch import FetchError, cached_summary
from judgeaudit.mine.openreview.shards import CacheError, cache_files, cache_hash
from judgeaudit.mine.pairing import POSITIONS, make_pairs
from judgeaudit.mine.parse import TEXT_FIELDS, as_of_ms, as_of_text
from judgeaudit.mine.pipeline import (
    MineResult,
    compare_extractors,
    load_corpus,
    mine,
    select_labels,
)
from judgeaudit.mine.sanitise.sanitisers import LLMSanitiser, RuleSanitiser
from judgeaudit.mine.select import (
    DECISION_RULES,
    EMPTY_FIELD_RULES,
    OTHER_TOPICS,
    WEAK_AFFIRMATION_RULES,
    WEAK_DISPUTE_RULES,
    Thresholds,
    normalise_title,
)
from judgeaudit.mine.signals.cues import OfflineExtractor, offline_fingerprint
from judgeaudit.mine.signals.llm_extractor import LLMExtractor
from judgeaudit.mine.signals.stance import (
    LearnedExtractor,
    ModelError,
    load_model,
    model_fingerprint,
    packaged_models,
)
from judgeaudit.mine.staging import set_lock
from judgeaudit.mine.study.calibrate import load_dev, measure, no_match_problem
from judgeaudit.mine.summary import RunSummary
from judgeaudit.mine.units import import_answers, work_units, write_units
from judgeaudit.mine.venues.profile import DEFAULT_VENUE, GOLD_LABELS, ProfileError, profile_for
from judgeaudit.mine.venues.setup import VenueRun, run_extractor, venue_record, venue_run


def read_blocklist(path: str) -> tuple[str, ...]:
    """The normalised titles of a blocklist file (sorted, unique); OSError/UnicodeDecodeError if unreadable."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return tuple(
        sorted({normalise_title(t) for t in lines if t.strip() and not t.lstrip().startswith("#")})
    )


def _venue(args: argparse.Namespace) -> VenueRun:
    """The run's venue profile and its cuts on the venue's scales (ProfileError: one line)."""
    return venue_run(args.venue, args.profile, _thresholds(args), args.gold_labels)


def _thresholds(args: argparse.Namespace) -> Thresholds:
    """The rule on the study's (ICLR 2026's) scales; signal fields default to the venue profile's."""
    excluded = () if args.keep_all_areas else tuple(args.exclude_area or (OTHER_TOPICS,))
    return Thresholds(
        min_reviews=args.min_reviews,
        top_quantile=args.top_quantile,
        bottom_quantile=args.bottom_quantile,
        novel_min_rating=args.novel_min_rating,
        not_novel_max_rating=args.not_novel_max_rating,
        novel_min_contribution=args.novel_min_contribution,
        not_novel_max_contribution=args.not_novel_max_contribution,
        majority=args.majority,
        max_opposing=args.max_opposing,
        include_withdrawn=not args.exclude_withdrawn,
        strict_majority=args.majority_rule == "strict",
        weak_affirmations=args.weak_affirmations,
        weak_disputes=args.weak_disputes,
        signal_fields=_fields(args.signal_fields)
        if args.signal_fields
        else profile_for(args.venue, args.profile).text_fields,
        empty_fields=args.empty_fields,
        excluded_areas=excluded,
        blocklist=read_blocklist(args.blocklist) if args.blocklist else (),
        decisions=args.decisions,
    )


def _fields(value: str) -> tuple[str, ...]:
    return tuple(f.strip() for f in value.split(",") if f.strip())


# Options written into the canonical command when they differ from their default (option, attribute, default).
_OPTIONAL: tuple[tuple[str, str, Any], ...] = (
    ("--point-set", "point_set", "pairs"),
    ("--positions", "positions", "random"),
    ("--profile", "profile", None),
    ("--signal-fields", "signal_fields", None),
    ("--gold-labels", "gold_labels", "signals"),
    ("--empty-fields", "empty_fields", "no-signal"),
    ("--weak-affirmations", "weak_affirmations", "ignore"),
    ("--weak-disputes", "weak_disputes", "ignore"),
    ("--min-reviews", "min_reviews", 1),
    ("--top-quantile", "top_quantile", 0.9),
    ("--bottom-quantile", "bottom_quantile", 0.1),
    ("--novel-min-rating", "novel_min_rating", 6.0),
    ("--not-novel-max-rating", "not_novel_max_rating", 3.5),
    ("--novel-min-contribution", "novel_min_contribution", 3.0),
    ("--not-novel-max-contribution", "not_novel_max_contribution", 2.0),
    ("--majority", "majority", 0.5),
    ("--majority-rule", "majority_rule", "strict"),
    ("--max-opposing", "max_opposing", 0),
    ("--decisions", "decisions", "auto"),
    ("--blocklist", "blocklist", None),
)
_FLAGS: tuple[tuple[str, str], ...] = (
    ("--exclude-withdrawn", "exclude_withdrawn"),
    ("--keep-all-areas", "keep_all_areas"),
    ("--no-prefilter", "no_prefilter"),
    ("--llm-replay", "llm_replay"),
)


def _command(args: argparse.Namespace, source_arg: str) -> str:
    """A canonical, reproducible command line (no timestamps, no secrets): every option that differs from its default."""
    parts = [
        "judgeaudit",
        "mine",
        *source_arg.split(" "),
        "--out",
        args.out,
        "--extractor",
        args.extractor,
        "--sanitiser",
        args.sanitiser,
        "--seed",
        str(args.seed),
    ]
    if args.source and args.venue != DEFAULT_VENUE:
        parts += ["--venue", args.venue]
    for option, attr, default in _OPTIONAL:
        value = getattr(args, attr)
        if value != default:
            parts += [option, "none" if value is None else str(value)]
    for area in args.exclude_area or []:
        parts += ["--exclude-area", area]
    for option, attr in _FLAGS:
        if getattr(args, attr):
            parts.append(option)
    if args.llm_replay:
        parts += ["--llm-cache", args.llm_cache]
    if args.reviews_as_of:
        parts += ["--reviews-as-of", as_of_text(as_of_ms(args.reviews_as_of))]
    return " ".join(shlex.quote(p) for p in parts)


def _is_llm(value: str) -> bool:
    """An LLM extractor spec: 'litellm/<model>' or an Inspect model name ('<provider>/<model>', not a PATH.json)."""
    return value.startswith("litellm/") or ("/" in value and not value.endswith(".json"))


def _llm_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"api_base": args.api_base} if args.api_base else {}


CHOICES: dict[str, tuple[str, ...]] = {
    "majority_rule": ("strict", "inclusive"),
    "weak_affirmations": WEAK_AFFIRMATION_RULES,
    "weak_disputes": WEAK_DISPUTE_RULES,
    "empty_fields": EMPTY_FIELD_RULES,
    "decisions": DECISION_RULES,
    "point_set": POINT_SETS,
    "positions": POSITIONS,
    "gold_labels": GOLD_LABELS,
}
"""Mine options that take one of a few values (checked here so a bad one is one line, like every other check)."""


def _model_spec(option: str, value: str) -> None:
    """Refuse a 'litellm/<model>' value without a model name."""
    if value.startswith("litellm/") and not value.split("/", 1)[1].strip("/ "):
        raise UsageError(
            f"{option} {value!r}: no model name after 'litellm/' (e.g. litellm/openai/gpt-4o-mini)"
        )


def _dir_option(option: str, value: str | None) -> None:
    """Refuse a directory option that names an existing non-directory."""
    if value and Path(value).exists() and not Path(value).is_dir():
        raise UsageError(f"{option} {value}: is a file, not a directory")


def _check_dev(path: str) -> None:
    """Refuse a --dev file that is missing, a directory, malformed or without rows."""
    dev = Path(path)
    if not dev.exists():
        raise UsageError(f"--dev {path}: file does not exist")
    if not dev.is_file():
        raise UsageError(
            f"--dev {path}: is a directory, not a dev labels file (human_only_dev.jsonl)"
        )
    try:
        rows = load_dev(dev)
    except (ValueError, TypeError, OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--dev {path}: {exc}") from exc
    if not rows:
        raise UsageError(f"--dev {path}: holds no dev rows, so there is nothing to measure against")


def _check_paths(args: argparse.Namespace) -> None:
    """Refuse an unusable path option (checked before any mining work)."""
    for option, value in (
        ("--out", args.out),
        ("--cache", args.cache),
        ("--llm-cache", args.llm_cache),
    ):
        _dir_option(option, value)
    if args.source:
        path = Path(args.source.split(":", 1)[1])
        if not str(path) or not path.exists():
            raise UsageError(f"--source {args.source}: directory does not exist")
        if not path.is_dir():
            raise UsageError(f"--source {args.source}: is a file, not a raw cache directory")
    if args.blocklist:
        try:
            read_blocklist(args.blocklist)
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise UsageError(f"--blocklist {args.blocklist}: {reason}") from exc
    if args.dev:
        _check_dev(args.dev)


def _check(args: argparse.Namespace) -> None:
    """Refuse bad mining options before any work, each with one line naming the option."""
    if not 0.0 < args.bottom_quantile < args.top_quantile < 1.0:
        raise UsageError(
            "need 0 < --bottom-quantile < --top-quantile < 1 "
            f"(got {args.bottom_quantile}, {args.top_quantile})"
        )
    at_least("--min-reviews", args.min_reviews, 1)
    if not 0.0 <= args.majority < 1.0:
        raise UsageError(f"--majority must be in [0, 1) (got {args.majority})")
    for key, allowed in CHOICES.items():
        value = getattr(args, key)
        if value not in allowed:
            raise UsageError(
                f"--{key.replace('_', '-')} must be one of {', '.join(allowed)} (got {value!r})"
            )
    try:
        known = TEXT_FIELDS + profile_for(args.venue, args.profile).text_fields
    except ProfileError as exc:
        raise UsageError(str(exc)) from exc
    fields = _fields(args.signal_fields or "strengths")
    unknown = [f for f in fields if f not in known]
    if not fields or unknown:
        raise UsageError(
            f"--signal-fields must name review fields among {', '.join(dict.fromkeys(known))} "
            f"(got {args.signal_fields!r})"
        )
    at_least("--workers", args.workers, 1)
    for option, value in (("--extractor", args.extractor), ("--sanitiser", args.sanitiser)):
        _model_spec(option, value)
    if args.sanitiser != "rules" and not args.sanitiser.startswith("litellm/"):
        raise UsageError(
            f"--sanitiser must be 'rules' or 'litellm/<model>' (got {args.sanitiser!r})"
        )
    known = ("offline", *packaged_models())
    if (
        args.extractor not in known
        and not _is_llm(args.extractor)
        and not args.extractor.endswith(".json")
    ):
        raise UsageError(
            f"--extractor must be one of {', '.join(known)}, a model PATH.json, 'litellm/<model>' or an "
            f"Inspect model name like local/gemma-3-270m (got {args.extractor!r})"
        )
    if args.llm_replay and not _is_llm(args.extractor):
        raise UsageError(
            f"--llm-replay replays an LLM extractor's answers; --extractor {args.extractor} is not one"
        )
    at_least("--max-opposing", args.max_opposing, 0)
    if args.source and not args.source.startswith("snapshot:"):
        raise UsageError(f"--source must look like snapshot:PATH (got {args.source!r})")
    if args.reviews_as_of is not None:
        try:
            as_of_ms(args.reviews_as_of)
        except ValueError as exc:
            raise UsageError(f"--reviews-as-of {exc}") from exc
    _check_paths(args)


def handle_mine(args: argparse.Namespace) -> int:
    """Run the miner and write the set; bad input raises a `UserError` (Ctrl-C: `judgeaudit.cli`
    prints one line and exits 130; the set is swapped in whole, so the old one is kept). `--out` is
    locked from mining to writing: a second run into it waits, or refuses with one line
    (`files.locked_output_dir`)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    _check(args)
    return _run_mine(args)


def _cache_dir(args: argparse.Namespace, progress: bool) -> tuple[Path, str, str]:
    """(raw cache directory, the source part of the command, source kind), fetching first for a live venue."""
    if args.source:
        return Path(args.source.split(":", 1)[1]), f"--source {args.source}", "snapshot"
    cache_dir = Path(args.cache or Path(".cache/openreview") / args.venue.replace("/", "-"))
    _fetch(args, cache_dir, progress)
    return cache_dir, f"--venue {args.venue} --cache {cache_dir}", "fetch"


def _extractor(args: argparse.Namespace, th: Thresholds) -> tuple[Any, int, str | None]:
    """(extractor, workers, fingerprint) of --extractor; a `UserError` when it cannot be used."""
    if args.extractor == "offline":
        return (
            OfflineExtractor(fields=th.signal_fields),
            max(1, args.workers),
            offline_fingerprint(),
        )
    if _is_llm(args.extractor):
        extractor = LLMExtractor.from_spec(
            args.extractor,
            Path(args.llm_cache) / "signals",
            prefilter=not args.no_prefilter,
            fields=th.signal_fields,
            replay=args.llm_replay,
            completion_kwargs=_llm_kwargs(args) if args.extractor.startswith("litellm/") else {},
        )
        try:
            extractor.connect()
        except Exception as exc:  # an unknown Inspect provider/model, a missing package or key
            reason = " ".join(str(exc).split())[:300]
            raise UsageError(f"--extractor {args.extractor}: {reason}") from exc
        return extractor, 1, None
    try:
        model = load_model(args.extractor)
    except ModelError as exc:
        raise UsageError(str(exc)) from exc
    return (
        LearnedExtractor(model, fields=th.signal_fields),
        max(1, args.workers),
        model_fingerprint(args.extractor),
    )


def _run_mine(args: argparse.Namespace) -> int:
    progress = not args.no_progress
    cache_dir, source_arg, kind = _cache_dir(args, progress)
    try:
        state = cached_summary(cache_dir)
        if state is not None and not state.complete:
            raise CacheError(
                f"{cache_dir} holds an interrupted fetch ({state.submissions} submissions so far); "
                f"re-run `judgeaudit mine --venue {state.venue_id} --cache {cache_dir}` to finish it"
            )
        files = [p.name for p in cache_files(cache_dir)]
        snapshot_hash = cache_hash(cache_dir)
    except (CacheError, FetchError) as exc:
        raise UsageError(str(exc)) from exc
    venue = _venue(args)
    thresholds = venue.thresholds
    text_extractor, workers, fingerprint = _extractor(args, thresholds)
    extractor = run_extractor(venue, text_extractor)
    sanitiser: Any = (
        RuleSanitiser()
        if args.sanitiser == "rules"
        else LLMSanitiser(
            args.sanitiser.split("/", 1)[1],
            Path(args.llm_cache) / "sanitise",
            completion_kwargs=_llm_kwargs(args),
        )
    )
    command = _command(args, source_arg)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr)

    out_dir = Path(args.out)
    set_dir = out_dir / SET_NAME
    with set_lock(set_dir, "--out"):  # a second run into this --out waits for this one (or refuses)
        result = mine(
            cache_dir,
            venue_id=args.venue,
            extractor=extractor,
            sanitiser=sanitiser,
            thresholds=thresholds,
            workers=workers,
            progress=progress,
            log=log,
            reviews_as_of=as_of_ms(args.reviews_as_of) if args.reviews_as_of else None,
            profile=venue.profile,
        )
        record = None
        if isinstance(extractor, LLMExtractor):
            log(_llm_cost_line(extractor))
            missing = extractor.failures_by_reason.get(NOT_CACHED, 0)
            if missing:
                raise UsageError(
                    f"--llm-replay: {missing} review(s) have no cached answer in {args.llm_cache}/signals "
                    "(export them with `judgeaudit mine ... units`, import the answers with `judgeaudit mine "
                    "answers`); nothing written"
                )
            record = _llm_record(extractor, result, thresholds, args.venue)
        if args.dev:
            problem = no_match_problem(args.dev, load_dev(args.dev), result.corpus)
            if problem:
                raise UsageError(problem)
        _nothing_to_write(args, result, set_dir)
        calibration = None
        if args.dev:
            log(f"measuring the extractor against {args.dev}")
            calibration = measure(
                args.dev,
                result.corpus,
                extractor,
                result.selection.candidates,
                result.selection.kept(),
                fingerprint=fingerprint,
                command=command + f" --dev {shlex.quote(args.dev)}",
                thresholds=thresholds,
            )
        else:
            calibration = read_calibration(set_dir, extractor.name, fingerprint)
        source = {
            "venue": args.venue,
            "kind": kind,
            "path": str(cache_dir),
            "files": files,
            "sha256": snapshot_hash,
        }
        set_dir, report = export_set(
            result,
            out_dir,
            seed=args.seed,
            thresholds=venue.study,
            venue=venue_record(venue, result.corpus, result.selection, text_extractor, args.venue),
            source=source,
            command=command,
            extractor=extractor.name,
            sanitiser=sanitiser.name,
            calibration=calibration,
            store_calibration=bool(args.dev),
            point_set=args.point_set,
            positions=args.positions,
            extractor_record=record,
        )
        _print_summary(result, report, set_dir, calibration)
        return 0


def _nothing_to_write(args: argparse.Namespace, result: MineResult, set_dir: Path) -> None:
    """Refuse (a `UserError`, after the counts of each step) a run that labelled no idea of a class
    or made no pair: the source and thresholds give no set."""
    if not any(i.label == "novel" for i in result.ideas) or not any(
        i.label == "not_novel" for i in result.ideas
    ):
        for name, n in result.stages:
            print(f"  {name}: {n}", file=sys.stderr)
        raise UsageError(
            "the selection labelled no novel or no not_novel idea, so there is no set to write "
            f"(nothing written to {set_dir}); check the source and thresholds"
        )
    if not make_pairs(result.ideas, args.seed)[0]:
        raise UsageError(
            "no area has both a novel and a not_novel idea, so there is no pair to write "
            f"(nothing written to {set_dir}); check the source and thresholds"
        )


def _llm_record(
    extractor: LLMExtractor, result: MineResult, th: Thresholds, venue: str
) -> dict[str, Any]:
    """What the card says about an LLM extractor: its answers' provenance and its agreement with the offline extractor."""
    offline, offline_signals = select_labels(
        result.corpus, OfflineExtractor(fields=th.signal_fields), th, venue_id=venue
    )
    return {
        "provenance": extractor.provenance(),
        "cost": extractor.cost(),
        "agreement_with_offline": compare_extractors(
            result.selection, result.signals, offline, offline_signals, th
        ),
    }


def _llm_cost_line(extractor: LLMExtractor) -> str:
    """One line: reviews sent, calls, tokens, and the reviews whose answer failed (their papers are not labelled)."""
    c = extractor.cost()
    kinds = ", ".join(f"{n} {kind}" for kind, n in c["failures_by_reason"].items()) or "none"
    return (
        f"LLM extractor {extractor.name}: {c['reviews_sent']} reviews sent ({c['reviews_skipped_by_prefilter']} "
        f"skipped by the cue pre-filter), {c['calls']} calls, {c['cache_hits']} cache hits, {c['input_tokens']} input / "
        f"{c['output_tokens']} output tokens; failed reviews: {c['failed_reviews']} ({kinds}); "
        f"quotes dropped as not verbatim: {c['quotes_dropped_not_verbatim']}"
    )


def handle_units(args: argparse.Namespace) -> int:
    """`judgeaudit mine [options] units --write FILE`: the work units of an LLM pass; returns the exit code."""
    _check(args)
    if not _is_llm(args.extractor):
        raise UsageError(
            "--extractor must be an LLM extractor (litellm/<model> or an Inspect model name), "
            f"got {args.extractor!r}"
        )
    if Path(args.write).parent != Path():
        _dir_option("--write", str(Path(args.write).parent))
    cache_dir = _cache_dir(args, not args.no_progress)[0]
    venue = _venue(args)
    thresholds = venue.thresholds
    extractor = LLMExtractor.from_spec(
        args.extractor,
        Path(args.llm_cache) / "signals",
        prefilter=not args.no_prefilter,
        fields=thresholds.signal_fields,
        replay=True,
    )
    try:
        corpus = load_corpus(
            cache_dir,
            RunSummary(),
            progress=not args.no_progress,
            reviews_as_of=as_of_ms(args.reviews_as_of) if args.reviews_as_of else None,
            profile=venue.profile,
        )
    except CacheError as exc:
        raise UsageError(str(exc)) from exc
    units, counts = work_units(corpus, thresholds, extractor, venue_id=args.venue)
    write_units(Path(args.write), units)
    print(json.dumps(counts, indent=2))
    print(f"wrote {len(units)} work units to {args.write}")
    return 0


def handle_answers(args: argparse.Namespace) -> int:
    """`judgeaudit mine answers --units FILE --answers FILE`: answers into the extractor's cache; returns the exit code."""
    cache = Path(args.answers_cache or Path(args.llm_cache) / "signals")
    for option, value in (("--units", args.units), ("--answers", args.answers)):
        if not Path(value).is_file():
            raise UsageError(f"{option} {value}: file does not exist")
    _dir_option("--to", str(cache))
    counts = import_answers(Path(args.answers), Path(args.units), cache)
    for what, n in counts.items():
        print(f"  {what}: {n}")
    print(f"answers written to {cache}")
    return 0


def _fetch(args: argparse.Namespace, cache_dir: Path, progress: bool) -> None:
    """Fetch --venue into the raw cache (resuming an interrupted fetch); a failed fetch is a `UserError`."""
    profile = profile_for(args.venue, args.profile)
    kwargs: dict[str, Any] = {"progress": progress, "api": profile.api}
    if profile.api == 1:
        kwargs["submission"] = profile.submission
    if args.baseurl:
        kwargs["baseurl"] = args.baseurl
    try:
        summary = fetch.fetch_venue(args.venue, cache_dir, **kwargs)
    except fetch.FetchError as exc:
        raise UsageError(f"--venue {args.venue}: fetch failed: {exc}") from exc
    for line in summary.lines():
        print(line, file=sys.stderr)


def _print_summary(
    result: Any, report: Any, set_dir: Path, calibration: dict[str, Any] | None
) -> None:
    print("\ncounts after each step")
    width = max(len(name) for name, _ in result.stages)
    for name, n in result.stages:
        print(f"  {name:<{width}}  {n:>7}")
    print("\nby area" + " " * 46 + "reviewed  cand.N  cand.NN  novel  not_novel  pairs")
    for area, c in result.by_area.items():
        print(
            f"  {area[:50]:<50}  {c['reviewed']:>8}  {c['candidates_novel']:>6}  {c['candidates_not_novel']:>7}  "
            f"{c['novel']:>5}  {c['not_novel']:>9}  {report.pairs_by_area.get(area, 0):>5}"
        )
    skipped = result.summary.lines()
    if skipped:
        print("\nskipped (counted)")
        for line in skipped:
            print("  " + line)
    if calibration:
        p = calibration["passages"]
        rows = calibration.get("dev_rows")
        if rows:
            print(
                f"\ndev rows matched to a paper of the source: {rows['matched']} of {rows['rows']} "
                f"({rows['rows'] - rows['matched']} unmatched, {rows['rows'] - rows['with_forum']} without a forum id)"
            )
        print(
            f"\nextractor vs reference passages: affirm P={p['affirm']['precision']} R={p['affirm']['recall']}; "
            f"dispute P={p['dispute']['precision']} R={p['dispute']['recall']}"
        )
        for lab, q in calibration["labels"].items():
            print(
                f"  dev {lab}: {q['kept_same_label']}/{q['with_forum']} labelled with the same label, {q['swapped']} swapped"
            )
    print(
        f"\nwrote {set_dir}/labelled.jsonl, pairwise.jsonl, pointwise.jsonl, manifest.json, README.md"
    )
