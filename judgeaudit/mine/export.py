"""Write a mined Human-Only set: labelled pool, pair and point sets (atomic), manifest and dataset card.

The labelled ideas (`MineResult.ideas`) are written whole to `labelled.jsonl` (each row says
whether a pair drew it); the pairs are drawn from them (`pairing.make_pairs`), and the point set is
the ideas of the pairs, each once (`point_set="pairs"`, the reference's), or every labelled idea
(`"labelled"`, a larger set for pointwise statistics).

Measurements made outside a mining run are kept beside the set and carried over when it is
re-mined: `calibration.json` (`judgeaudit mine --dev`), `crossval.json`
(`tests/benchmarks/bench_extractor.py --write`) and `studies.json` (other benchmarks' tables:
`--write` of bench_stance_cases.py, bench_reading_ceiling.py, compare_sets.py). The card renders
them as they are; each says under which rule and extractor it was measured.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from judgeaudit.data.contract import Idea, LabelledIdea
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.labelled import LABELLED_NAME, write_labelled
from judgeaudit.data.manifest import write_manifest
from judgeaudit.files import atomic_write_text
from judgeaudit.mine.pairing import PairingReport, make_pairs, make_points, pair_ideas
from judgeaudit.mine.pipeline import MineResult, stage_dict
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.set_card import write_set_card
from judgeaudit.mine.staging import staged_dir

SET_NAME = "human_only"
CALIBRATION_NAME = "calibration.json"
CROSSVAL_NAME = "crossval.json"  # written by tests/benchmarks/bench_extractor.py --write <set dir>
STUDIES_NAME = "studies.json"  # written by the study benchmarks' --write <set dir>
CARRIED = (CROSSVAL_NAME, STUDIES_NAME)
POINT_SETS: tuple[str, ...] = ("pairs", "labelled")


def write_calibration(set_dir: Path, calibration: dict[str, Any]) -> Path:
    """Store measured extractor quality beside the set (atomic)."""
    path = Path(set_dir) / CALIBRATION_NAME
    atomic_write_text(path, json.dumps(calibration, indent=2, ensure_ascii=False) + "\n")
    return path


def read_calibration(
    set_dir: Path, extractor: str, fingerprint: str | None
) -> dict[str, Any] | None:
    """The stored calibration if it was measured for this extractor and source version, else None."""
    path = Path(set_dir) / CALIBRATION_NAME
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("extractor") != extractor or data.get("extractor_fingerprint") != fingerprint:
        return None
    return dict(data)


def read_record(set_dir: Path, name: str) -> dict[str, Any] | None:
    """A measurement record stored beside the set (`crossval.json`, `studies.json`), or None if absent or unreadable."""
    try:
        data = json.loads((Path(set_dir) / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def labelled_rows(ideas: list[Idea], report: PairingReport) -> list[LabelledIdea]:
    """One row per labelled idea (by label, area, id), with whether and how often a pair drew it."""
    rows = [
        LabelledIdea(
            idea_id=i.idea_id,
            title=i.title,
            area=i.area,
            label=i.label,
            evidence=i.evidence,
            paired=report.draws.get(i.idea_id, 0) > 0,
            pairs=report.draws.get(i.idea_id, 0),
        )
        for i in ideas
    ]
    return sorted(rows, key=lambda r: (r.label != "novel", r.area, r.idea_id))


def export_set(
    result: MineResult,
    out_dir: Path,
    *,
    seed: int,
    thresholds: Thresholds,
    source: dict[str, Any],
    command: str,
    extractor: str,
    sanitiser: str,
    calibration: dict[str, Any] | None,
    store_calibration: bool = False,
    point_set: str = "pairs",
    positions: str = "random",
    extractor_record: dict[str, Any] | None = None,
    venue: dict[str, Any] | None = None,
) -> tuple[Path, PairingReport]:
    """Write `<out_dir>/human_only/` as a whole (staged, then swapped in) and return its path and the pairing report.

    With `store_calibration`, `calibration` is written as `calibration.json` inside the new set;
    otherwise an existing `calibration.json` of the old set is carried over, as are `crossval.json` and
    `studies.json`. `extractor_record`: what the card says about the extractor (an LLM's provenance and
    its agreement with the offline extractor). `venue`: the venue's profile, cuts on its scales and
    gold-label source (`venues.setup.venue_record`); `thresholds` are on the study's scales.
    """
    if point_set not in POINT_SETS:
        raise ValueError(f"point_set must be one of {', '.join(POINT_SETS)} (got {point_set!r})")
    final = Path(out_dir) / SET_NAME
    old_calibration = final / CALIBRATION_NAME
    records = {name: read_record(final, name) for name in CARRIED}
    with staged_dir(final) as set_dir:
        if store_calibration and calibration is not None:
            write_calibration(set_dir, calibration)
        elif old_calibration.is_file():
            shutil.copy2(old_calibration, set_dir / CALIBRATION_NAME)
        for name, record in records.items():
            if record is not None:
                shutil.copy2(final / name, set_dir / name)
        pairs, report = make_pairs(result.ideas, seed, positions=positions)
        points = make_points(pair_ideas(pairs) if point_set == "pairs" else result.ideas)
        write_items(set_dir / "pairwise.jsonl", pairs)
        write_items(set_dir / "pointwise.jsonl", points)
        write_labelled(set_dir / LABELLED_NAME, labelled_rows(result.ideas, report))
        mining = _mining_record(
            result,
            report,
            seed=seed,
            thresholds=thresholds,
            extractor=extractor,
            sanitiser=sanitiser,
            calibration=calibration,
            point_set=point_set,
            positions=positions,
            extractor_record=extractor_record,
            venue=venue,
        )
        write_manifest(
            set_dir, source=source, command=command, extra={"mining": mining}, name=SET_NAME
        )
        write_set_card(
            set_dir,
            result,
            report,
            mining=mining,
            source=source,
            command=command,
            calibration=calibration,
            crossval=records[CROSSVAL_NAME],
            studies=records[STUDIES_NAME],
        )
    return final, report


def pairing_record(report: PairingReport) -> dict[str, Any]:
    """The pairing's counts as the manifest records them."""
    return {
        "pairs_by_area": report.pairs_by_area,
        "distinct_not_novel_by_area": report.distinct_not_novel_by_area,
        "reused_not_novel_by_area": report.reused_not_novel_by_area,
        "unused_not_novel_by_area": report.unused_not_novel_by_area,
        "dropped_areas": report.dropped_areas,
        "novel_at_a": report.novel_at_a,
        "novel_at_b": report.novel_at_b,
    }


def _mining_record(
    result: MineResult,
    report: PairingReport,
    *,
    seed: int,
    thresholds: Thresholds,
    extractor: str,
    sanitiser: str,
    calibration: dict[str, Any] | None,
    point_set: str,
    positions: str,
    extractor_record: dict[str, Any] | None,
    venue: dict[str, Any] | None = None,
) -> dict[str, Any]:
    sel = result.selection
    return {
        "venue": venue,
        "seed": seed,
        "thresholds": thresholds.to_dict(),
        "decisions_applied": sel.decisions_applied,
        "reviews_as_of": result.reviews_as_of_text,
        "extractor": extractor,
        "extractor_record": extractor_record,
        "sanitiser": sanitiser,
        "stages": stage_dict(result),
        "funnel": sel.funnel.to_dict(),
        "labelled": {
            side: sum(1 for i in result.ideas if i.label == side) for side in ("novel", "not_novel")
        },
        "sanitise_skipped": result.sanitise_skipped,
        "candidate_reviews_unread": sel.unread_reviews,
        "candidates_decided_unread": sel.skipped_unreachable,
        "by_area": result.by_area,
        "area_cutoffs": {
            a: {"bottom": round(lo, 4), "top": round(hi, 4)} for a, (lo, hi) in sel.cutoffs.items()
        },
        "not_candidates": sel.dropped,
        "candidate_outcomes": _outcomes(result),
        "pairing": pairing_record(report),
        "point_set": point_set,
        "positions": positions,
        "labelled_file": {
            "name": LABELLED_NAME,
            "rows": len(result.ideas),
            "drawn_by_a_pair": sum(1 for n in report.draws.values() if n),
        },
        "sanitised_abstracts_changed": result.sanitised_changed,
        "evaluation_claims": {
            "abstracts_with_a_claim_before": result.claims_before,
            "abstracts_with_a_claim_after": result.claims_after,
            "sentences_by_reason": result.sanitise_reasons,
        },
        "quotes_dropped_not_verbatim": result.dropped_quotes,
        "skips": result.summary.to_dict(),
        "calibration": calibration
        or "not measured for this extractor version (run with --dev PATH)",
    }


def _outcomes(result: MineResult) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for d in result.selection.decisions.values():
        reason = d.reason
        if reason.startswith("only "):
            reason = "not a majority of reviews agree"
        elif "review(s)" in reason and ("dispute" in reason or "affirm" in reason):
            reason = "an opposing review"
        side = out.setdefault(d.side, {})
        side[reason] = side.get(reason, 0) + 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}
