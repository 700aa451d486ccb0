"""Agreement of a mined label set with a reference label set known only through a random sample of it.

The reference study publishes its Human-Only labels; only a random share of them (the development
split, `reference_share`, e.g. 1/3) may be read. Per class, with `kept[i]` = 1 when reference idea
i of the sample is kept by the miner with the same label:

- kept rate = mean(kept): the share of the reference's ideas the miner keeps with their label;
- estimated Jaccard of the two kept sets = O / (K + N - O), where N = n / reference_share is the
  reference's class size, K = kept_outside + sum(kept) the miner's class size (`kept_outside`:
  ideas of this class the miner keeps outside the sample, a fixed count) and
  O = min(sum(kept) / reference_share, K) the estimated overlap (it cannot exceed what the miner keeps).

Both come with a percentile bootstrap over the sampled ideas (stats.bootstrap; seed 20260,
10,000 resamples by default). The Jaccard is an estimate: it assumes the sample is a random
share of the reference and treats `kept_outside` as fixed.

When the labeller's own class size is known only through a sample too (a reading done by hand on
a few papers, not a miner run over every candidate), `sampled_jaccard_metric` estimates both sides:
per row (paper), `dev` = 1 for a reference idea of the sample (found among the candidates) and
`dev_kept` = 1 when the labeller keeps it with its label; `sample` = 1 for a randomly drawn
candidate outside the reference sample and `sample_kept` = 1 when the labeller keeps it. With
recall r = sum(dev_kept) / sum(dev), rate q = sum(sample_kept) / sum(sample), `reference_ideas`
D (the reference sample's class size, papers not found included), `candidates_outside` C (the
candidates of the class outside the reference sample that the random sample was drawn from) and
`kept_outside` F (kept papers of a part of the candidates read in full, a census, outside both
C and the reference sample): N = D / reference_share, K = q * C + F + r * D, O = min(r * N, K),
Jaccard = O / (K + N - O). The bootstrap resamples the rows of both kinds together (a ratio
estimate per kind) and holds F fixed.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, bootstrap_metric
from judgeaudit.stats.metrics import Count, FloatArray, Metric, Sums

KEPT_RATE = Metric("kept_rate", ("kept",), lambda s, n: np.asarray(s["kept"], dtype=float) / n)


def jaccard_metric(kept_outside: float, reference_share: float) -> Metric:
    """The estimated kept-set Jaccard as a Metric of the `kept` column (see module doc)."""
    if not 0.0 < reference_share <= 1.0:
        raise ValueError(f"reference_share must be in (0, 1] (got {reference_share})")
    if kept_outside < 0:
        raise ValueError(f"kept_outside must be >= 0 (got {kept_outside})")

    def from_sums(s: Sums, n: Count) -> FloatArray:
        kept = np.asarray(s["kept"], dtype=float)
        ours = kept_outside + kept
        overlap = np.minimum(kept / reference_share, ours)
        union = ours + n / reference_share - overlap
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(union > 0, overlap / union, np.nan)

    return Metric("estimated_jaccard", ("kept",), from_sums)


def kept_rate(
    kept: ArrayLike, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> Interval:
    """Share of the sampled reference ideas kept with their label, with its bootstrap interval."""
    return bootstrap_metric(
        {"kept": np.asarray(kept, dtype=float)}, KEPT_RATE, resamples=resamples, seed=seed
    )


def estimated_jaccard(
    kept: ArrayLike,
    *,
    kept_outside: float,
    reference_share: float,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Estimated Jaccard of the miner's and the reference's kept sets of one class, with its bootstrap interval."""
    metric = jaccard_metric(kept_outside, reference_share)
    return bootstrap_metric(
        {"kept": np.asarray(kept, dtype=float)}, metric, resamples=resamples, seed=seed
    )


SAMPLED_COLUMNS: tuple[str, ...] = ("dev", "dev_kept", "sample", "sample_kept")


def _check_sampled(candidates_outside: float, reference_ideas: float, kept_outside: float) -> None:
    if min(candidates_outside, reference_ideas, kept_outside) < 0:
        raise ValueError(
            "candidates_outside, reference_ideas and kept_outside must be >= 0 "
            f"(got {candidates_outside}, {reference_ideas}, {kept_outside})"
        )


def _sampled_sizes(
    s: Sums, candidates_outside: float, reference_ideas: float, kept_outside: float
) -> tuple[FloatArray, FloatArray]:
    """Recall on the reference sample and the labeller's estimated class size K, from the column sums."""
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.asarray(s["dev_kept"], dtype=float) / np.asarray(s["dev"], dtype=float)
        rate = np.asarray(s["sample_kept"], dtype=float) / np.asarray(s["sample"], dtype=float)
    return recall, rate * candidates_outside + kept_outside + recall * reference_ideas


def sampled_jaccard_metric(
    candidates_outside: float,
    reference_ideas: float,
    reference_share: float,
    kept_outside: float = 0.0,
) -> Metric:
    """The estimated kept-set Jaccard of a labeller known through samples, as a Metric (see module doc)."""
    if not 0.0 < reference_share <= 1.0:
        raise ValueError(f"reference_share must be in (0, 1] (got {reference_share})")
    _check_sampled(candidates_outside, reference_ideas, kept_outside)
    reference = reference_ideas / reference_share

    def from_sums(s: Sums, n: Count) -> FloatArray:
        recall, ours = _sampled_sizes(s, candidates_outside, reference_ideas, kept_outside)
        overlap = np.minimum(recall * reference, ours)
        union = ours + reference - overlap
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(union > 0, overlap / union, np.nan)

    return Metric("sampled_jaccard", SAMPLED_COLUMNS, from_sums)


def sampled_class_size_metric(
    candidates_outside: float, reference_ideas: float, kept_outside: float = 0.0
) -> Metric:
    """The labeller's estimated class size K (see module doc), as a Metric."""
    _check_sampled(candidates_outside, reference_ideas, kept_outside)

    def from_sums(s: Sums, n: Count) -> FloatArray:
        return _sampled_sizes(s, candidates_outside, reference_ideas, kept_outside)[1]

    return Metric(
        "sampled_class_size",
        SAMPLED_COLUMNS,
        from_sums,
        bounds=(0.0, float(candidates_outside + kept_outside + reference_ideas)),
    )
