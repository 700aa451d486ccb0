"""How close a careful reading of the reviews comes to the reference study's labels.

A *labeller* decides each candidate paper (keep it with its side's label, or not). The one that
matters here reads every review as the independent annotators of the case fixtures did (the
stance-cases brief) and applies the bundled selection rule to their stances
(`stance_cases.annotator_outcome`): an extractor that reads the review text under the reference's
stated definitions aims at this reading, so its agreement with the reference is the practical ceiling
of such extractors (one that copied the reference model's own slips could pass it, a reading cannot).

Two kinds of annotated papers go in, both read with `stance_cases.load_cases`:
- *dev* papers: the reference's development split (every one a kept reference idea of its side);
  the share a labeller keeps is its recall of the reference's class;
- *sample* papers: candidates drawn at random outside the dev split; the share kept there, times
  the number of such candidates, is the rest of the labeller's class size;
- *census* papers (optional): a set of candidates outside the dev split that the random sample was
  not drawn from (it was left out of the draw), read in full: their kept count is added as it is.
Per class, `stats.label_agreement.sampled_jaccard_metric` turns the two shares and the census into the estimated
kept-set Jaccard with the reference, with a percentile bootstrap over papers (`judgeaudit.stats`).
Any other labeller (an extractor under the bundled rule) can be measured on the same papers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from judgeaudit.mine.pipeline import review_signals
from judgeaudit.mine.select import Side, Thresholds, decide
from judgeaudit.mine.signals.base import SignalExtractor
from judgeaudit.mine.signals.sentences import normalise
from judgeaudit.mine.study.stance_cases import CLASSES, OUTCOMES, CasePaper, annotator_outcome
from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_metric
from judgeaudit.stats.label_agreement import (
    SAMPLED_COLUMNS,
    sampled_class_size_metric,
    sampled_jaccard_metric,
)
from judgeaudit.stats.metrics import FloatArray

Labeller = Callable[[CasePaper], Side | None]


@dataclass(frozen=True)
class Population:
    """Per class: the reference's dev ideas (found in the snapshot or not) and the candidates outside the dev split."""

    reference_ideas: Mapping[str, int]
    candidates_outside: Mapping[str, int]
    reference_share: float | Mapping[str, float] = (
        1 / 3
    )  # the dev split's share of the reference's class (or per class)

    def share(self, side: str) -> float:
        """The dev split's share of the reference's `side` class."""
        return (
            self.reference_share
            if isinstance(self.reference_share, float)
            else self.reference_share[side]
        )


def annotator_labeller(
    th: Thresholds | None = None, *, weak_affirms_count: bool = False
) -> Labeller:
    """A selection rule (default: the bundled one) on the annotators' stances: the paper's side when kept, else None.

    With `weak_affirms_count`, the annotators' weak affirmations count as explicit ones (towards a
    `novel` majority, and against `not_novel`)."""

    def label(paper: CasePaper) -> Side | None:
        if weak_affirms_count:
            paper = replace(
                paper,
                labels={
                    rid: replace(lab, affirm_quotes=lab.affirm_quotes + lab.weak_quotes)
                    for rid, lab in paper.labels.items()
                },
            )
        return paper.side if annotator_outcome(paper, th) == OUTCOMES[0] else None

    return label


def extractor_labeller(extractor: SignalExtractor, th: Thresholds | None = None) -> Labeller:
    """The bundled rule on an extractor's stances of the paper's reviews."""
    rule = th or Thresholds()

    def label(paper: CasePaper) -> Side | None:
        signals = [review_signals(r, extractor, rule) for r in paper.reviews]
        return decide(paper.forum, paper.side, len(paper.reviews), signals, rule).label

    return label


def split_papers(
    papers: Sequence[CasePaper], dev_labels: Mapping[str, str]
) -> tuple[list[CasePaper], list[CasePaper]]:
    """Dev papers (in the dev split with their side as label) and the others, each sorted by forum.

    A case paper that the dev split holds with the other label cannot be either kind: it is an error."""
    dev: list[CasePaper] = []
    others: list[CasePaper] = []
    for p in sorted(papers, key=lambda q: q.forum):
        label = dev_labels.get(p.forum)
        if label is None:
            others.append(p)
        elif label == p.side:
            dev.append(p)
        else:
            raise ValueError(f"{p.forum}: a {p.side} candidate that the dev split labels {label}")
    return dev, others


def class_columns(
    dev: Sequence[CasePaper], sample: Sequence[CasePaper], side: str, labeller: Labeller
) -> dict[str, FloatArray]:
    """The four columns of the sampled estimator for one class: one row per dev or sample paper of that side."""
    rows: list[tuple[float, float, float, float]] = []
    for p in dev:
        if p.side == side:
            rows.append((1.0, float(labeller(p) == side), 0.0, 0.0))
    for p in sample:
        if p.side == side:
            rows.append((0.0, 0.0, 1.0, float(labeller(p) == side)))
    table = np.asarray(rows, dtype=float).reshape(-1, len(SAMPLED_COLUMNS))
    return {c: table[:, i] for i, c in enumerate(SAMPLED_COLUMNS)}


def measure(
    dev: Sequence[CasePaper],
    sample: Sequence[CasePaper],
    labellers: Mapping[str, Labeller],
    population: Population,
    *,
    census: Sequence[CasePaper] = (),
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Per labeller and class: papers of each kind, kept counts, recall, sample rate, class size and Jaccard."""
    out: dict[str, Any] = {
        "seed": seed,
        "resamples": resamples,
        "reference_share": population.reference_share,
        "labellers": {},
    }
    for name, labeller in labellers.items():
        per_class: dict[str, Any] = {}
        for side in CLASSES:
            cols = class_columns(dev, sample, side, labeller)
            in_census = [p for p in census if p.side == side]
            census_kept = sum(1 for p in in_census if labeller(p) == side)
            outside = population.candidates_outside[side] - len(in_census)
            ideas = population.reference_ideas[side]
            sums = {c: int(cols[c].sum()) for c in SAMPLED_COLUMNS}
            size = sampled_class_size_metric(outside, ideas, census_kept)
            jaccard = sampled_jaccard_metric(outside, ideas, population.share(side), census_kept)
            per_class[side] = {
                **sums,
                "census": len(in_census),
                "census_kept": census_kept,
                "recall": sums["dev_kept"] / sums["dev"] if sums["dev"] else None,
                "sample_rate": sums["sample_kept"] / sums["sample"] if sums["sample"] else None,
                "reference_size": ideas / population.share(side),
                "class_size": bootstrap_metric(
                    cols, size, resamples=resamples, seed=seed
                ).to_dict(),
                "jaccard": bootstrap_metric(
                    cols, jaccard, resamples=resamples, seed=seed
                ).to_dict(),
            }
        out["labellers"][name] = per_class
    return out


def quoted_reviews(paper: CasePaper, quotes: Sequence[str]) -> set[str]:
    """Ids of the paper's reviews whose text holds one of `quotes` (normalised containment, any version)."""
    wanted = [q for q in (normalise(x) for x in quotes) if q]
    return {
        rid
        for rid, versions in paper.versions.items()
        if any(q in normalise(text) for v in versions for _, text in v.texts for q in wanted)
    }


STANCE_OF_LABEL = {"novel": "affirms", "not_novel": "disputes"}
REVIEW_CELLS: tuple[str, ...] = (
    "both",
    "reference_only",
    "annotators_only",
    "neither",
    "annotators_oppose",
)


def review_agreement(
    dev: Sequence[CasePaper], quotes: Mapping[str, Sequence[str]]
) -> dict[str, dict[str, int]]:
    """Per class, over the reviews of the dev papers: does the review carry a reference quote of the label's
    stance (`quotes`: forum -> the reference's passages for its label), and do the annotators give it that
    stance; `annotators_oppose` counts reviews the annotators read as opposing the label (any affirmation of
    a `not_novel` paper, a dispute of a `novel` one), which the reference, by keeping the paper, found none of."""
    out: dict[str, dict[str, int]] = {side: dict.fromkeys(REVIEW_CELLS, 0) for side in CLASSES}
    for p in dev:
        marked = quoted_reviews(p, quotes.get(p.forum, ()))
        cells = out[p.side]
        for r in p.reviews:
            label = p.labels[r.review_id]
            ours = bool(getattr(label, STANCE_OF_LABEL[p.side]))
            theirs = r.review_id in marked
            key = (
                "both"
                if ours and theirs
                else "reference_only"
                if theirs
                else "annotators_only"
                if ours
                else "neither"
            )
            cells[key] += 1
            cells["annotators_oppose"] += (
                label.affirms_at_all if p.side == "not_novel" else label.disputes
            )
    return out


def _cell(d: Mapping[str, Any], digits: int) -> str:
    est = d.get("estimate")
    if est is None or not np.isfinite(est):
        return "n/a"
    return f"{est:.{digits}f} [{d['low']:.{digits}f}, {d['high']:.{digits}f}]"


def table(result: Mapping[str, Any]) -> str:
    """The measurement as one Markdown table, a row per labeller and class."""
    out = [
        "| labeller | class | dev kept | recall | sample kept | census kept | class size (est.) "
        "| reference size (est.) | Jaccard (est.) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, per_class in result["labellers"].items():
        for side, r in per_class.items():
            recall = "n/a" if r["recall"] is None else f"{r['recall']:.2f}"
            census = f"{r['census_kept']}/{r['census']}" if r["census"] else "-"
            out.append(
                f"| {name} | {side} | {r['dev_kept']}/{r['dev']} | {recall} | {r['sample_kept']}/{r['sample']} "
                f"| {census} | {_cell(r['class_size'], 0)} | {r['reference_size']:.0f} | {_cell(r['jaccard'], 2)} |"
            )
    return "\n".join(out)
