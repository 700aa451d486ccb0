"""`judgeaudit validate` and `judgeaudit convert`: check contract files, import published sets (arguments: `data.cli`)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgeaudit.cli_args import UsageError, output_dir
from judgeaudit.data.card import verify_card, write_card
from judgeaudit.data.contract import SETUP_MEANINGS, item_ideas
from judgeaudit.data.convert.novelty_judge_bench import (
    CITATION,
    LICENSE,
    RELEASE_IDEATOR,
    STRONGER,
    BenchFile,
    Skipped,
    convert_dir,
    resolve_source,
)
from judgeaudit.data.hf import write_jsonl_set
from judgeaudit.data.jsonl import check_file
from judgeaudit.data.labelled import (
    LABELLED_PREFIX,
    check_labelled_file,
    is_labelled_file,
    labelled_problems,
)
from judgeaudit.data.manifest import MANIFEST_NAME, verify_manifest, write_manifest
from judgeaudit.data.sets import variant_problems
from judgeaudit.data.validate import Problem
from judgeaudit.files import sha256_file
from judgeaudit.resources import locate_set

CONTRACT_PREFIXES: tuple[str, ...] = ("pairwise", "pointwise", LABELLED_PREFIX)


def _jsonl_files(path: Path) -> tuple[list[Path], list[Path]]:
    """Contract files to check and other *.jsonl skipped in a directory (a named file is always checked)."""
    if path.is_file():
        return [path], []
    found = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    checked = [p for p in found if p.name.startswith(CONTRACT_PREFIXES)]
    return checked, [p for p in found if p not in checked]


def _validate_paths(raws: Sequence[str]) -> list[tuple[Path, list[Path], list[Path]]]:
    """(path, contract files, other JSONL files) of each PATH (a bundled set name resolved); a
    `UsageError` for the first PATH that is missing or holds no contract file, before any check."""
    found = []
    for raw in raws:
        path = locate_set(raw)
        if path is None:
            raise UsageError(f"{raw}: no such file or directory, and not a bundled set")
        files, others = _jsonl_files(path)
        if not files:
            raise UsageError(f"{raw}: no pairwise*/pointwise* JSONL files found")
        found.append((path, files, others))
    return found


def validate_command(args: argparse.Namespace) -> int:
    """Handler of `judgeaudit validate`: print every problem and a summary; 0 when all is valid,
    else a `UserError` (exit 2) saying how many problems were found."""
    problems: list[Problem] = []
    n_files = n_items = n_skipped = 0
    bad_files: set[str] = set()
    for path, files, others in _validate_paths(args.paths):
        for other in others:
            print(f"skipped (not named pairwise*/pointwise*/labelled*): {other}")
        n_skipped += len(others)
        for file in files:
            checked: Sequence[object]
            if is_labelled_file(file):
                checked, file_problems = check_labelled_file(file)
            else:
                checked, file_problems = check_file(file, args.kind)
            n_files += 1
            n_items += len(checked)
            problems.extend(file_problems)
            if file_problems:
                bad_files.add(str(file))
        for parent in sorted({f.parent for f in files}):
            # a _plan file must agree with its abstract file, the pair and point files with the labelled pool
            found = variant_problems(parent) + labelled_problems(parent)
            problems.extend(found)
            bad_files.update(p.file for p in found)
        if path.is_dir() and not args.no_manifest:
            # a set directory (one holding a manifest) must match it and carry a valid card
            for manifest in sorted(path.rglob(MANIFEST_NAME)):
                for found in (verify_manifest(manifest.parent), verify_card(manifest.parent)):
                    problems.extend(found)
                    bad_files.update(p.file for p in found)
    for problem in problems:
        print(problem)
    status = "OK" if not problems else "FAILED"
    print(
        f"{status}: {n_files} file(s), {n_items} valid item(s), "
        f"{len(problems)} problem(s) in {len(bad_files)} file(s)"
        + (f", {n_skipped} other JSONL file(s) skipped" if n_skipped else "")
    )
    if problems:
        raise UsageError(
            f"{len(problems)} problem(s) in {len(bad_files)} file(s) break the data contract "
            f"(listed above; the first in {problems[0].file})"
        )
    return 0


def _prepare_out(out: Path, force: bool) -> None:
    """Refuse an --out that is not a directory, or one not empty without --force."""
    output_dir("--out", out)
    if out.is_dir() and any(out.iterdir()) and not force:
        raise UsageError(f"--out {out} is not empty; pass --force to write into it")


def convert_command(args: argparse.Namespace) -> int:
    """Handler of `judgeaudit convert`: convert, write JSONL + card + manifest per set; a source
    with broken items or an unusable --out is a `UserError` (exit 2), nothing written."""
    _prepare_out(args.out, args.force)
    root, source_info = resolve_source(args.source)
    conversion = convert_dir(root)
    for skipped in conversion.skipped:
        print(skipped)
    for bench_file in conversion.files:
        if bench_file.unjoined:
            print(
                f"note: {bench_file.relative}: {len(bench_file.unjoined)} plan item(s) match no item of the "
                f"abstract file by title (kept; an id naming another abstract item gets the prefix 'plan-')"
            )
    if conversion.problems:
        for problem in conversion.problems:
            print(problem)
        print(f"FAILED: {len(conversion.problems)} problem(s) in the source; nothing written")
        raise UsageError(
            f"{args.source}: {len(conversion.problems)} problem(s) in the source (listed above); "
            "nothing written"
        )
    command = shlex.join(
        ["judgeaudit", "convert", "--from", args.source_format, args.source, "--out", str(args.out)]
    )
    by_set: dict[str, list[BenchFile]] = {}
    for bench_file in conversion.files:
        by_set.setdefault(bench_file.set_path, []).append(bench_file)
    try:
        _write_sets(args.out, by_set, source_info, conversion.skipped, command)
    except OSError as exc:
        raise UsageError(
            f"--out {args.out}: cannot write ({exc.strerror or exc}: {exc.filename or args.out})"
        ) from exc
    return 0


def _write_sets(
    out: Path,
    by_set: dict[str, list[BenchFile]],
    source_info: dict[str, Any],
    skipped: list[Skipped],
    command: str,
) -> None:
    """Write every converted set (JSONL, manifest, card) below `out` and print what was written."""

    for set_path, files in sorted(by_set.items()):
        set_dir = out / set_path
        written = {f.stem for f in files}
        if set_dir.is_dir():
            for stale in set_dir.glob("*.jsonl"):
                if stale.stem not in written:
                    stale.unlink()
        write_jsonl_set({f.stem: f.items for f in files}, set_dir)
        source = {
            **source_info,
            "files": {f.relative: sha256_file(f.path) for f in files},
            "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
        }
        write_manifest(
            set_dir,
            source=source,
            command=command,
            extra={
                "setup": files[0].setup,
                "generator": files[0].generator,
                "generators": _generators(files),
            },
        )
        write_card(
            set_dir,
            pretty_name=f"novelty-judge-bench: {set_path}",
            summary=_summary(set_path, files),
            sections=_sections(source_info),
            license=LICENSE,
        )
        counts = ", ".join(f"{f.stem}: {len(f.items)}" for f in files)
        print(f"wrote {set_dir} ({counts})")


def _generators(files: list[BenchFile]) -> list[str]:
    """The generators of the set's generated ideas, sorted."""
    return sorted(
        {
            str(idea.generator)
            for f in files
            for item in f.items
            for idea in item_ideas(item)
            if idea.source == "generated"
        }
    )


def _summary(set_path: str, files: list[BenchFile]) -> str:
    setup = files[0].setup
    text = (
        f"The `{set_path}` part of the published novelty-judge-bench (reference study), converted to the "
        f"judgeaudit data contract. Setup `{setup}`: {SETUP_MEANINGS[setup]}."
    )
    generators = ", ".join(f"`{g}`" for g in _generators(files))
    if setup == "human_generated" and generators:
        origin = (
            f"the `backbone-{files[0].generator}` folder"
            if files[0].generator
            else "the release's README, for its top-level Human+Generated files"
        )
        text += f" The `not_novel` ideas were generated by {generators} (from {origin})."
    if setup == "ai_only":
        order = "; ".join(f"`{strong}` over `{weak}`" for strong, weak in STRONGER.items())
        text += (
            f" Both ideas of every pair are generated ({generators}, each idea's `generator` from the "
            f"release's metadata). \"More novel\" here is the release's definition: the expected "
            f"winner (gold, labelled `novel`) is the stronger generator's idea ({order}); no reviewer "
            f"judged these ideas, and the other (`not_novel`) idea is the same generated idea the "
            f"other setups use as their lower-novelty side."
        )
    return text


def _sections(source_info: dict[str, Any]) -> dict[str, str]:
    where = source_info.get("hub_id") or source_info.get("path", "")
    return {
        "Source": f"Converted from `{where}` ({source_info.get('kind')}). Per-file source hashes are in "
        "`manifest.json`; every idea keeps `provenance.source_id` = `<source file>#<instance id>[/<index>]`.",
        "Conversion rules": (
            "- `POSITIVE` -> `novel`, `NEGATIVE` -> `not_novel`; `expected_winners: [i]` -> gold `a` (i=0) or `b` (i=1).\n"
            "- Idea 0 becomes `idea_a`, idea 1 `idea_b`: the published positions are kept.\n"
            "- `rating`/`contribution` (decimal strings) -> `evidence.rating_mean`/`contribution_mean`; "
            "`similar_papers_mentioned` -> `evidence.similar_papers`.\n"
            "- In human-plus-generated sets the `not_novel` idea is `source=generated`; in ai-only sets both "
            "ideas are. `generator`: the idea's metadata `generator`, else the `backbone-<model>` folder, "
            f"else the release's stated ideator (`{RELEASE_IDEATOR}`, the top-level Human+Generated files).\n"
            "- `idea_id`: the OpenReview forum id when the metadata has one, else `njb-` + 16 hex of sha256(text)."
        ),
        "License and citation": f"CC BY 4.0. Derived from {CITATION}. Credit the release when you "
        "use or redistribute this set; the conversion changes the format, not the content.",
    }
