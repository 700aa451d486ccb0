"""Probe readings: per probe, its figures with intervals from `judgeaudit.stats` (each by the
method its kind of figure gets, `stats.intervals`; docs/methods/intervals.md has their measured coverage).

Input is a per-judged-unit frame with the SCORE_SCHEMA columns `item_id`, `kind`, `gold`,
`verdict`, `probe`, `probe_variant`, `probe_target` (one row per sample of a probe arm or
of the unperturbed run, `probe` null there). Every comparison is paired on item id; an item
missing from one arm is an error naming the items.

Figures (all shares over items):

- position: `order_flip_rate` (verdicts differ between a/b and b/a order; Clopper-Pearson) with
  its noise-floor-corrected value, `order_consistency` (1 - flip), `first_position_rate`
  (judgments choosing the idea shown first, over the items decided in both orders: per item 0,
  1/2 or 1, a score interval; it equals 1/2 + (f1 - f2) / 2n with f1, f2 the items choosing the
  first, the second shown idea in both orders, so it has the paired-difference structure).
- presumption: `cue_shift` = accuracy(cue names gold) - accuracy(cue names other) (0 for a
  judge that ignores the cue, 1 for one that always follows it; a paired difference),
  `cue_follow_rate` (per item the mean of the two arms' 0/1 follows), `framing_flip_rate`
  (P3-style framing vs the unperturbed run, corrected too).
- verbosity: `padding_shift` = accuracy(gold padded) - accuracy(other padded) and
  `padded_win_rate` (pairwise); pointwise `padding_novel_shift` (share judged novel, padded -
  unperturbed).
- surface: `surface_flip_rate` (per item the mean over the k edit arms of its flips, on 0, 1/k,
  ..., 1: a score interval), corrected too; one `flip_rate:<arm>` per edit.
- injection: `injection_shift` = accuracy(gold injected) - accuracy(other injected),
  `injected_win_rate:gold_side`, `injected_win_rate:other_side`.
- repeat: `noise_floor` = flip rate between two identical runs with distinct seeds.
- self_preference: generated-side win rate for ideas from the judge's own backbone and from
  others (reported as not run when no such items exist), and `self_preference_gap` = own -
  other win rate, an unpaired (two-sample) difference since the two groups hold different items.

Corrected flip rates are the probe's flip rate minus the repeat runs' flip rate (the noise floor)
over the items valid in both, with the interval of a difference of two samples
(`stats.noise_corrected_flip_rate`: valid when an item's noise flips are not negatively correlated
with its probe flips), so the correction carries its own uncertainty.

Every probe that ran also carries `invalid_rate` over its arms: a perturbation that makes the
judge fail to answer moves accuracy-based shifts too, and the card should show it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from judgeaudit.data.contract import backbone
from judgeaudit.errors import UserError
from judgeaudit.stats import (
    BINARY,
    HALVES,
    Interval,
    PairedDifference,
    SurfaceRatio,
    UnpairedDifference,
    flip_flags,
    interval,
    noise_corrected_flip_rate,
    paired_difference,
    share_metric,
    unpaired_difference,
)
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from judgeaudit.stats.metrics import FLIP_RATE, Metric, metrics_for, outcomes_for

# not_run: the probe could apply but was not measured; not_applicable: it cannot apply to this judge.
Status = Literal["ok", "not_run", "not_applicable"]
Value = Interval | PairedDifference | UnpairedDifference | SurfaceRatio
COLUMNS: tuple[str, ...] = (
    "item_id",
    "kind",
    "gold",
    "verdict",
    "probe",
    "probe_variant",
    "probe_target",
)


def fractions(ks: Sequence[int]) -> tuple[float, ...]:
    """The values a per-item mean of k 0/1 outcomes takes, for every k given: j / k."""
    return tuple(sorted({j / k for k in ks if k > 0 for j in range(k + 1)}))


# An item's generators for self-preference: its generated idea's model (None: no generated idea),
# or the models of sides (a, b) of a pair whose two ideas are generated (AI-only).
ItemGenerators = str | tuple[str | None, str | None] | None


def own_side(value: ItemGenerators, target: str, own_keys: set[str]) -> tuple[str, str] | None:
    """(group `own` | `other`, the side whose win counts) of one self-preference item: a pair of
    two generators is `own` with that side as target when the judge's backbone wrote exactly one
    side, `other` with the arm's target when it wrote neither, left out when it wrote both."""
    if isinstance(value, tuple):
        own = [side for side, model in zip("ab", value, strict=True) if backbone(model) in own_keys]
        if len(own) == 2:
            return None
        return ("own", own[0]) if own else ("other", target)
    return ("own" if backbone(value) in own_keys else "other"), target


@dataclass(frozen=True)
class Figure:
    """One probe figure: its interval, and for flip rates the noise-floor-corrected difference."""

    name: str
    label: str
    value: Value
    corrected: PairedDifference | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "name": self.name,
            "label": self.label,
            "value": self.value.to_dict(),
            "corrected": self.corrected.to_dict() if self.corrected else None,
        }


@dataclass(frozen=True)
class Reading:
    """All figures of one probe on one judge configuration."""

    probe: str
    status: Status
    n_items: int
    figures: dict[str, Figure] = field(default_factory=dict)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "probe": self.probe,
            "status": self.status,
            "n_items": self.n_items,
            "note": self.note,
            "figures": {k: f.to_dict() for k, f in self.figures.items()},
        }


class ReadingError(UserError, ValueError):
    """Probe results that cannot be compared (missing arms or unmatched items)."""


@dataclass(frozen=True)
class ReadingConfig:
    """Interval settings shared by every reading: bootstrap resamples and seed (recorded beside each
    bootstrapped interval) and the confidence of every interval."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    confidence: float = (
        DEFAULT_CONFIDENCE  # of every interval (lower at each look of a sequential audit)
    )


def _check_frame(frame: pd.DataFrame) -> None:
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ReadingError(f"probe frame lacks columns {missing}")


def arm(frame: pd.DataFrame, probe: str | None, variant: str | None) -> pd.DataFrame:
    """Rows of one arm indexed by item id (probe None = the unperturbed run); duplicates are an error."""
    _check_frame(frame)
    sel = frame["probe"].isna() if probe is None else frame["probe"] == probe
    if variant is not None:
        sel &= frame["probe_variant"] == variant
    rows = frame[sel]
    dup = rows["item_id"][rows["item_id"].duplicated()].unique().tolist()
    if dup:
        raise ReadingError(f"arm {probe}/{variant} has duplicate item ids: {dup[:5]}")
    return rows.set_index("item_id").sort_index()


def align(arms: Mapping[str, pd.DataFrame]) -> list[str]:
    """The common item ids of several arms; an error listing the items one arm lacks."""
    names = list(arms)
    if any(arms[n].empty for n in names):
        empty = [n for n in names if arms[n].empty]
        raise ReadingError(f"no results for arm(s) {empty}")
    ids = set(arms[names[0]].index)
    for n in names[1:]:
        other = set(arms[n].index)
        if other != ids:
            only_first, only_other = sorted(ids - other), sorted(other - ids)
            raise ReadingError(
                f"arms {names[0]!r} and {n!r} cover different items: only in {names[0]!r}: "
                f"{only_first[:5]}, only in {n!r}: {only_other[:5]}"
            )
    return sorted(ids)


def _verdicts(rows: pd.DataFrame, ids: Sequence[str]) -> list[str]:
    return [str(v) for v in rows.loc[list(ids), "verdict"]]


def _accuracy_metric(kind: str) -> Metric:
    return metrics_for(kind)["strict_accuracy" if kind == "pairwise" else "accuracy"]


def _outcomes(kind: str, rows: pd.DataFrame, ids: Sequence[str]) -> dict[str, np.ndarray]:
    return outcomes_for(kind, _verdicts(rows, ids), [str(g) for g in rows.loc[list(ids), "gold"]])


class Reader:
    """Computes probe readings on one configuration's frame, with one noise floor for all."""

    def __init__(self, frame: pd.DataFrame, config: ReadingConfig | None = None) -> None:
        _check_frame(frame)
        kinds = set(frame["kind"].dropna())
        if len(kinds) != 1:
            raise ReadingError(f"a probe frame must hold one task kind, got {sorted(kinds)}")
        self.frame = frame
        self.kind: str = kinds.pop()
        self.cfg = config or ReadingConfig()
        self._noise: tuple[list[str], np.ndarray] | None = None

    # --- stats helpers -------------------------------------------------------------
    def _interval(self, outcomes: Mapping[str, Any], metric: Metric) -> Interval:
        return interval(outcomes, metric, self.cfg.resamples, self.cfg.seed, self.cfg.confidence)

    def _paired(
        self, x: Mapping[str, Any], y: Mapping[str, Any], metric: Metric
    ) -> PairedDifference:
        return paired_difference(
            x, y, metric, self.cfg.resamples, self.cfg.seed, self.cfg.confidence
        )

    def _share(
        self, name: str, values: np.ndarray, support: tuple[float, ...] = BINARY
    ) -> Interval:
        """The interval of the mean of per-item values on `support` (NaN items left out)."""
        return self._interval({name: values}, share_metric(name, name, support))

    def has(self, probe: str | None) -> bool:
        """Whether the frame holds any row of this probe (None = the unperturbed run)."""
        sel = self.frame["probe"].isna() if probe is None else self.frame["probe"] == probe
        return bool(sel.any())

    def noise_flags(self) -> tuple[list[str], np.ndarray]:
        """Per-item flip flags between the two repeat runs (item ids, flags)."""
        if self._noise is None:
            r1, r2 = arm(self.frame, "repeat", "run1"), arm(self.frame, "repeat", "run2")
            ids = align({"run1": r1, "run2": r2})
            self._noise = (ids, flip_flags(_verdicts(r1, ids), _verdicts(r2, ids)))
        return self._noise

    def _flip_figure(
        self,
        name: str,
        label: str,
        ids: list[str],
        flags: np.ndarray,
        support: tuple[float, ...] = BINARY,
    ) -> Figure:
        metric = FLIP_RATE if support == BINARY else share_metric("flip_rate", "flip", support)
        value = self._interval({"flip": flags}, metric)
        corrected = None
        if self.has("repeat"):
            noise_ids, noise = self.noise_flags()
            if set(noise_ids) != set(ids):
                missing = sorted(set(ids) ^ set(noise_ids))[:5]
                raise ReadingError(
                    f"{name}: the repeat runs cover different items than this probe ({missing})"
                )
            pos = {i: k for k, i in enumerate(noise_ids)}
            aligned = noise[[pos[i] for i in ids]]
            corrected = noise_corrected_flip_rate(flags, aligned, self.cfg.confidence)
        return Figure(name, label, value, corrected)

    def with_invalid_rate(self, reading: Reading) -> Reading:
        """The reading plus `invalid_rate`: share of invalid verdicts over the probe's arms, per item."""
        if reading.status != "ok":
            return reading
        rows = self.frame[self.frame["probe"] == reading.probe]
        per_item = (
            rows.assign(bad=(rows["verdict"] == "invalid").astype(float))
            .groupby("item_id")["bad"]
            .agg(["mean", "size"])
        )
        fig = Figure(
            "invalid_rate",
            "verdicts that are invalid, over this probe's arms",
            self._share(
                "invalid_rate",
                per_item["mean"].to_numpy(),
                fractions(per_item["size"].unique().tolist()),
            ),
        )
        return Reading(
            reading.probe,
            reading.status,
            reading.n_items,
            {**reading.figures, "invalid_rate": fig},
            reading.note,
        )

    # --- probes ----------------------------------------------------------------------
    def repeat(self) -> Reading:
        """Noise floor: flip rate between two identical runs."""
        ids, flags = self.noise_flags()
        value = self._interval({"flip": flags}, FLIP_RATE)
        return Reading(
            "repeat",
            "ok",
            len(ids),
            {
                "noise_floor": Figure(
                    "noise_floor", "flip rate between two identical runs (noise floor)", value
                )
            },
        )

    def position(self) -> Reading:
        """Order consistency, its flip rate (noise-floor corrected) and first-position preference."""
        if self.kind != "pairwise":
            return Reading("position", "not_run", 0, note="position needs pairwise items")
        ab, ba = arm(self.frame, "position", "order_ab"), arm(self.frame, "position", "order_ba")
        ids = align({"order_ab": ab, "order_ba": ba})
        v_ab, v_ba = np.asarray(_verdicts(ab, ids)), np.asarray(_verdicts(ba, ids))
        flags = flip_flags(list(v_ab), list(v_ba))
        first = ((v_ab == "a").astype(float) + (v_ba == "b").astype(float)) / 2
        both_decided = np.isin(v_ab, ("a", "b")) & np.isin(v_ba, ("a", "b"))
        figures = {
            "order_flip_rate": self._flip_figure(
                "order_flip_rate", "verdict changes when the order is swapped", ids, flags
            ),
            "order_consistency": Figure(
                "order_consistency",
                "same verdict in both orders",
                self._share("order_consistency", 1.0 - flags),
            ),
            "first_position_rate": Figure(
                "first_position_rate",
                "judgments choosing the idea shown first, over items decided in both orders",
                self._share("first_position_rate", np.where(both_decided, first, np.nan), HALVES),
            ),
        }
        return Reading("position", "ok", len(ids), figures)

    def _directed(
        self,
        probe: str,
        gold_arm: str,
        other_arm: str,
        shift_name: str,
        shift_label: str,
        win_name: str,
        win_label: str,
    ) -> tuple[list[str], dict[str, Figure]]:
        g, o = arm(self.frame, probe, gold_arm), arm(self.frame, probe, other_arm)
        ids = align({gold_arm: g, other_arm: o})
        acc = _accuracy_metric(self.kind)
        shift = self._paired(_outcomes(self.kind, g, ids), _outcomes(self.kind, o, ids), acc)
        hit_g = (
            np.asarray(_verdicts(g, ids))
            == np.asarray([str(t) for t in g.loc[ids, "probe_target"]])
        ).astype(float)
        hit_o = (
            np.asarray(_verdicts(o, ids))
            == np.asarray([str(t) for t in o.loc[ids, "probe_target"]])
        ).astype(float)
        figures = {
            shift_name: Figure(shift_name, shift_label, shift),
            win_name: Figure(
                win_name, win_label, self._share(win_name, (hit_g + hit_o) / 2, HALVES)
            ),
            f"{win_name}:gold_side": Figure(
                f"{win_name}:gold_side",
                f"{win_label} (perturbation on the gold side)",
                self._share(win_name, hit_g),
            ),
            f"{win_name}:other_side": Figure(
                f"{win_name}:other_side",
                f"{win_label} (perturbation on the other side)",
                self._share(win_name, hit_o),
            ),
        }
        return ids, figures

    def _vs_baseline_flip(self, probe: str, variant: str, name: str, label: str) -> Figure:
        base, arm_rows = arm(self.frame, None, None), arm(self.frame, probe, variant)
        ids = align({"unperturbed": base, variant: arm_rows})
        return self._flip_figure(
            name, label, ids, flip_flags(_verdicts(base, ids), _verdicts(arm_rows, ids))
        )

    def presumption(self) -> Reading:
        """How often the verdict follows a cue naming the reviewers' preference; P3 framing flips."""
        ids, figures = self._directed(
            "presumption",
            "cue_gold",
            "cue_other",
            "cue_shift",
            "accuracy when the cue names the gold answer minus when it names the other",
            "cue_follow_rate",
            "verdicts that follow the cue",
        )
        if self.has(None) and (self.frame["probe_variant"] == "framing").any():
            figures["framing_flip_rate"] = self._vs_baseline_flip(
                "presumption",
                "framing",
                "framing_flip_rate",
                "verdict changes under the 'reviewers judged one novel' framing",
            )
        return Reading("presumption", "ok", len(ids), figures)

    def verbosity(self) -> Reading:
        """Shift toward the idea padded with content-free text."""
        if self.kind == "pairwise":
            ids, figures = self._directed(
                "verbosity",
                "pad_gold",
                "pad_other",
                "padding_shift",
                "accuracy with the gold idea padded minus with the other padded",
                "padded_win_rate",
                "verdicts choosing the padded idea",
            )
            return Reading("verbosity", "ok", len(ids), figures)
        base, pad = arm(self.frame, None, None), arm(self.frame, "verbosity", "pad")
        ids = align({"unperturbed": base, "pad": pad})
        novel = share_metric("novel_rate", "novel")
        shift = self._paired(
            {"novel": (np.asarray(_verdicts(pad, ids)) == "novel").astype(float)},
            {"novel": (np.asarray(_verdicts(base, ids)) == "novel").astype(float)},
            novel,
        )
        return Reading(
            "verbosity",
            "ok",
            len(ids),
            {
                "padding_novel_shift": Figure(
                    "padding_novel_shift", "share judged novel, padded minus unperturbed", shift
                )
            },
        )

    def surface(self) -> Reading:
        """Flip rate under meaning-preserving surface edits (pooled over edits, and per edit)."""
        base = arm(self.frame, None, None)
        variants = sorted(
            set(self.frame.loc[self.frame["probe"] == "surface", "probe_variant"].dropna())
        )
        if not variants:
            raise ReadingError("surface probe has no arms in the frame")
        rows = {v: arm(self.frame, "surface", v) for v in variants}
        ids = align({"unperturbed": base, **rows})
        per_arm = {v: flip_flags(_verdicts(base, ids), _verdicts(r, ids)) for v, r in rows.items()}
        pooled = np.mean(
            np.stack(list(per_arm.values())), axis=0
        )  # NaN for an item invalid under any edit
        figures = {
            "surface_flip_rate": self._flip_figure(
                "surface_flip_rate",
                "verdict changes under meaning-preserving edits (mean over edits)",
                ids,
                pooled,
                fractions([len(per_arm)]),
            )
        }
        for v, flags in per_arm.items():
            figures[f"flip_rate:{v}"] = self._flip_figure(
                f"flip_rate:{v}", f"verdict changes under the {v} edit", ids, flags
            )
        return Reading("surface", "ok", len(ids), figures)

    def injection(self) -> Reading:
        """How often the idea carrying an evaluator-directed instruction wins, on both gold sides."""
        gold_arm, other_arm = ("inject_gold", "inject_other")
        if self.kind == "pointwise":
            return self._pointwise_injection()
        ids, figures = self._directed(
            "injection",
            gold_arm,
            other_arm,
            "injection_shift",
            "accuracy with the gold idea injected minus with the other injected",
            "injected_win_rate",
            "verdicts choosing the injected idea",
        )
        return Reading("injection", "ok", len(ids), figures)

    def _pointwise_injection(self) -> Reading:
        nov, non = (
            arm(self.frame, "injection", "inject_novel"),
            arm(self.frame, "injection", "inject_not_novel"),
        )
        ids = align({"inject_novel": nov, "inject_not_novel": non})
        novel = share_metric("novel_rate", "novel")
        shift = self._paired(
            {"novel": (np.asarray(_verdicts(nov, ids)) == "novel").astype(float)},
            {"novel": (np.asarray(_verdicts(non, ids)) == "novel").astype(float)},
            novel,
        )
        hit = (
            (np.asarray(_verdicts(nov, ids)) == "novel").astype(float)
            + (np.asarray(_verdicts(non, ids)) == "not_novel").astype(float)
        ) / 2
        return Reading(
            "injection",
            "ok",
            len(ids),
            {
                "injection_shift": Figure(
                    "injection_shift",
                    "share judged novel when told 'novel' minus when told 'not novel'",
                    shift,
                ),
                "injected_win_rate": Figure(
                    "injected_win_rate",
                    "verdicts that obey the injected instruction",
                    self._share("injected_win_rate", hit, HALVES),
                ),
            },
        )

    def self_preference(
        self, judge_model: str | Sequence[str] | None, generators: Mapping[str, ItemGenerators]
    ) -> Reading:
        """Generated-side win rate for ideas from the judge's own backbone vs other backbones.

        `generators` maps item id -> generator model id of the item's generated idea, or the
        generators of sides (a, b) of an AI-only pair, whose own side (either one) is the target
        when the judge's backbone wrote exactly one of them; `judge_model` is the judge's model, or
        a panel's member models (an idea is the panel's own when one of its members' backbones
        generated it).
        """
        if not self.has("self_preference"):
            return Reading(
                "self_preference",
                "not_run",
                0,
                note="no Human+Generated or AI-only items with a generated side in this dataset",
            )
        rows = arm(self.frame, "self_preference", "generated")
        models = (
            [judge_model]
            if judge_model is None or isinstance(judge_model, str)
            else list(judge_model)
        )
        own_keys = {backbone(m) for m in models}
        groups: dict[str, list[str]] = {"own": [], "other": []}
        targets: dict[str, str] = {}
        for iid in rows.index:
            placed = own_side(
                generators.get(str(iid)), str(rows.loc[iid, "probe_target"]), own_keys
            )
            if placed is not None:
                groups[placed[0]].append(str(iid))
                targets[str(iid)] = placed[1]
        figures: dict[str, Figure] = {}
        hits: dict[str, np.ndarray] = {}
        for g, ids in groups.items():
            if ids:
                hit = (
                    np.asarray(_verdicts(rows, ids)) == np.asarray([targets[i] for i in ids])
                ).astype(float)
                hits[g] = hit
                figures[f"generated_win_rate:{g}"] = Figure(
                    f"generated_win_rate:{g}",
                    f"generated idea wins ({g} backbone)",
                    self._share("generated_win_rate", hit),
                )
        if len(hits) == 2:
            figures["self_preference_gap"] = Figure(
                "self_preference_gap",
                "generated-idea win rate, own backbone minus other backbones (unpaired)",
                unpaired_difference(
                    hits["own"],
                    hits["other"],
                    self.cfg.resamples,
                    self.cfg.seed,
                    self.cfg.confidence,
                ),
            )
        own = ", ".join(sorted(own_keys))
        note = (
            ""
            if groups["own"]
            else f"no generated ideas from the judge's own backbone ({own}) in this dataset"
        )
        status: Status = "ok" if groups["own"] and groups["other"] else "not_run"
        return Reading("self_preference", status, len(rows), figures, note)


def read_all(
    frame: pd.DataFrame,
    probes: Sequence[str],
    config: ReadingConfig | None = None,
    judge_model: str | Sequence[str] | None = None,
    generators: Mapping[str, ItemGenerators] | None = None,
) -> dict[str, Reading]:
    """Readings of every requested probe present in the frame (absent probes are `not_run`); `judge_model`:
    see `Reader.self_preference`."""
    reader = Reader(frame, config)
    out: dict[str, Reading] = {}
    for probe in probes:
        if probe == "self_preference":
            out[probe] = reader.self_preference(judge_model, generators or {})
        elif not reader.has(probe):
            out[probe] = Reading(probe, "not_run", 0, note="no results for this probe in the logs")
        elif probe == "position" and reader.kind != "pairwise":
            out[probe] = reader.position()
        else:
            out[probe] = reader.with_invalid_rate(getattr(reader, probe)())
    return out
