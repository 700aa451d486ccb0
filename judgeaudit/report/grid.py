"""A computed group as the study's grid: rows the controlled changes, columns the judges.

The reference study reads its controlled study as a grid of cells (change x judge), each the change
of the headline metric from that judge's own reference, with the absolute value beside it and
significance marked. `study_grid` lays a group out that way for the heatmap figure and the grid
tables: the reference row first, then every controlled change, each labelled by what it changes
relative to the reference (`change_label`). The aggregations the report derives from the stored
calls (`agg=k1`, ...) are a grid of their own (`aggregations=True`), never rows among the changes.
Every number is one the report already computed (`report.compute`, from `judgeaudit.stats`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from judgeaudit.report.frame import SEP

AGG_PREFIX = "agg="
REFERENCE_LABEL = "reference"
SETUP_NAMES: dict[str, str] = {
    "human_only": "Human-Only",
    "human_generated": "Human+Generated",
    "ai_only": "AI-Only",
}


def setup_name(setup: str) -> str:
    """A data setup as the paper names it (`human_only` -> `Human-Only`); others as they are."""
    return SETUP_NAMES.get(setup, setup)


def is_aggregation(variant: str) -> bool:
    """Whether a variant is an aggregation the report derived from stored calls (`agg=...`)."""
    return any(part.startswith(AGG_PREFIX) for part in variant.split(SEP))


def change_label(variant: str, reference: str | None) -> str:
    """What a variant changes relative to the reference variant: its parts the reference lacks
    (`prompt=p1_no_guardrails`), else `without <parts>`; `reference` for the reference itself."""
    if reference is None:
        return variant
    parts, ref_parts = variant.split(SEP), reference.split(SEP)
    added = [p for p in parts if p not in ref_parts]
    if added:
        return SEP.join(added)
    removed = [p for p in ref_parts if p not in parts]
    return f"without {SEP.join(removed)}" if removed else REFERENCE_LABEL


def row_label(variant: str, reference: str | None, entries: list[dict[str, Any]]) -> str:
    """A grid row's label: the reference study's change when every judge's run of the row is a
    cell of the study making the same change (`p1_no_guardrails`, `plan`; with the row's derived
    aggregation, `plan · agg=k1`), else what the variant changes (`change_label`)."""
    changes = {e.get("study_change") for e in entries}
    if variant == reference or len(changes) != 1 or None in changes:
        return change_label(variant, reference)
    aggregation = [p for p in variant.split(SEP) if p.startswith(AGG_PREFIX)]
    return SEP.join([str(changes.pop()), *aggregation])


@dataclass
class StudyGrid:
    """Rows (variants, reference first) x judges of one group; `cells[(variant, judge)]` is the
    configuration's entry of the computed group (`report.compute.compute_group`)."""

    kind: str
    dataset: str
    metric: str
    judges: list[str]
    rows: list[str]
    labels: dict[str, str]
    cells: dict[tuple[str, str], dict[str, Any]]
    reference: str | None

    def delta(self, variant: str, judge: str) -> dict[str, Any] | None:
        """The paired difference from the judge's reference, or None (the reference, or no such cell)."""
        entry = self.cells.get((variant, judge))
        if entry is None or entry["is_reference"]:
            return None
        return entry["vs_reference"].get(self.metric)


def reference_variant(group: dict[str, Any]) -> str | None:
    """The variant most judges of a computed group use as their reference (None when none has one)."""
    refs = Counter(e["variant"] for e in group["configs"].values() if e["is_reference"])
    return sorted(refs, key=lambda v: (-refs[v], v))[0] if refs else None


def study_grid(group: dict[str, Any], aggregations: bool = False) -> StudyGrid:
    """The grid of a computed group: the controlled changes (or, with `aggregations`, the derived
    aggregations) as rows, the reference row first, then by label; the judges as columns."""
    reference = reference_variant(group)
    configs = group["configs"].values()
    judges = sorted({e["model"] for e in configs})
    cells = {
        (e["variant"], e["model"]): e
        for e in configs
        if is_aggregation(e["variant"]) == aggregations
    }
    labels = {
        v: row_label(v, reference, [e for (w, _), e in cells.items() if w == v]) for v, _ in cells
    }
    # the reference row first (among aggregations, the reference cell's own), then by label
    rows = sorted(
        labels,
        key=lambda v: (v != reference, labels[v].split(SEP)[0] != REFERENCE_LABEL, labels[v], v),
    )
    return StudyGrid(
        group["kind"],
        group["dataset"],
        group["headline_metric"],
        judges,
        rows,
        labels,
        cells,
        reference,
    )
