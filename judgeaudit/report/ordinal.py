"""Ordinal novelty scores (rubric and two-stage judges): rank agreement with reviews and reliability across calls.

For every configuration whose score records carry ordinal `scores` (SCORE_SCHEMA.md: 0-4 per
call and side, null for an invalid call):

- `spearman_rating` / `spearman_contribution`: Spearman's rho between the judge's score and the
  review-based score, per unit. Pointwise, a unit is the idea: its mean call score vs its mean
  review rating (or mean contribution score). Pairwise, a unit is the pair: mean score of a minus
  mean score of b vs the same difference of the review scores. Units with no valid call or no
  review score are left out and counted.
- `alpha_between_calls`: Krippendorff's alpha (ordinal, values 0-4) with the k calls (and pooled
  epochs) as coders and every judged idea (pairwise: both sides of each pair) as a unit; it
  measures how reliably repeated runs give the same score. Undefined with fewer than two calls.

All statistics come from `judgeaudit.stats.agreement`, with seeded percentile bootstrap intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from judgeaudit.data.samples import UNIT_SIDES
from judgeaudit.stats.agreement import krippendorff_alpha_interval, spearman_interval

SCALE: tuple[float, ...] = (0.0, 1.0, 2.0, 3.0, 4.0)
HUMAN_KEYS: dict[str, str] = {
    "spearman_rating": "rating_mean",
    "spearman_contribution": "contribution_mean",
}


def sides_of(kind: str) -> tuple[str, ...]:
    """Score keys of one unit (`data.samples.UNIT_SIDES`): ("a", "b") pairwise, ("idea",) otherwise."""
    return UNIT_SIDES["pairwise"] if kind == "pairwise" else UNIT_SIDES["pointwise"]


def _mean(values: Sequence[Any] | None) -> float:
    valid = [float(v) for v in values or [] if v is not None]
    return float(np.mean(valid)) if valid else float("nan")


def _human(human: Mapping[str, Any], side: str, key: str) -> float:
    value = (human.get(side) or {}).get(key)
    return float(value) if value is not None else float("nan")


def unit_scores(
    kind: str, scores: Mapping[str, Any], human: Mapping[str, Any], key: str
) -> tuple[float, float]:
    """(judge score, review score) of one unit; NaN where either is missing."""
    if kind == "pairwise":
        return (
            _mean(scores.get("a")) - _mean(scores.get("b")),
            _human(human, "a", key) - _human(human, "b", key),
        )
    return _mean(scores.get("idea")), _human(human, "idea", key)


def call_matrix(kind: str, all_scores: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Calls x judged ideas matrix of ordinal scores (NaN for an invalid or missing call)."""
    columns = [list(s.get(side) or []) for s in all_scores for side in sides_of(kind)]
    width = max((len(c) for c in columns), default=0)
    matrix = np.full((width, len(columns)), np.nan)
    for j, col in enumerate(columns):
        for i, v in enumerate(col):
            if v is not None:
                matrix[i, j] = float(v)
    return matrix


def has_ordinal_scores(rows: pd.DataFrame) -> bool:
    """True when any row of a configuration carries ordinal `scores`."""
    return "scores" in rows and any(isinstance(s, Mapping) and bool(s) for s in rows["scores"])


def ordinal_summary(rows: pd.DataFrame, kind: str, resamples: int, seed: int) -> dict[str, Any]:
    """Spearman with review scores and alpha between calls of one configuration (see module docstring)."""
    scores = [
        s if isinstance(s, Mapping) else {} for s in rows["scores"]
    ]  # rows reindexed on items may be NaN
    humans = [h if isinstance(h, Mapping) else {} for h in rows["human"]]
    out: dict[str, Any] = {"units": len(scores)}
    for name, key in HUMAN_KEYS.items():
        pairs = np.array(
            [unit_scores(kind, s, h, key) for s, h in zip(scores, humans, strict=True)], dtype=float
        )
        ok = np.isfinite(pairs).all(axis=1) if len(pairs) else np.zeros(0, dtype=bool)
        entry: dict[str, Any] = {"units_used": int(ok.sum()), "units_left_out": int((~ok).sum())}
        if ok.sum() < 3:
            entry["undefined"] = (
                f"{int(ok.sum())} unit(s) with both a valid score and a review {key}; need 3"
            )
        else:
            entry.update(spearman_interval(pairs[ok, 0], pairs[ok, 1], resamples, seed).to_dict())
        out[name] = entry
    matrix = call_matrix(kind, scores)
    pairable = int((np.isfinite(matrix).sum(axis=0) >= 2).sum()) if matrix.size else 0
    alpha: dict[str, Any] = {
        "calls": int(matrix.shape[0]),
        "ideas": int(matrix.shape[1]),
        "pairable_ideas": pairable,
    }
    if matrix.shape[0] < 2 or pairable == 0:
        alpha["undefined"] = (
            "needs at least two valid calls on some idea (run with k >= 2 or --epochs >= 2)"
        )
    else:
        try:
            alpha.update(
                krippendorff_alpha_interval(matrix, "ordinal", SCALE, resamples, seed).to_dict()
            )
        except ValueError as exc:
            alpha["undefined"] = str(exc)
    out["alpha_between_calls"] = alpha
    return out
