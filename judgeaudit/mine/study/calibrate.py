"""Measure an extractor and the miner against the reference study's dev labels.

The dev file (`human_only_dev.jsonl`, the reference study's released development labels; not in
this repository) lists, per
idea, the review passages a frontier-model extractor kept as affirmations (`positive_signals`)
or disputes (`negative_signals`). Matching rule: an extracted quote matches a reference passage
when, after normalisation (case, markup, whitespace), one contains the other or they share at
least 80% of the shorter one's words (`sentences.quotes_overlap`). The reference only lists the
passages of an idea's own label side (novel ideas carry no disputes, not-novel ideas no
affirmations), so every opposite-polarity quote on a dev idea counts as a false positive.
Precision is therefore measured against a reference that may not be exhaustive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judgeaudit.files import sha256_file
from judgeaudit.mine.json_rows import json_rows
from judgeaudit.mine.parse import Corpus
from judgeaudit.mine.pipeline import review_signals
from judgeaudit.mine.select import Decision, Thresholds, review_means
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, SignalExtractor
from judgeaudit.mine.signals.sentences import quotes_overlap


def load_dev(path: str | Path) -> list[dict[str, Any]]:
    """The dev rows; ValueError naming file and line for a malformed row."""
    rows = []
    for number, row in json_rows(path):
        for key in ("label", "positive_signals", "negative_signals"):
            if key not in row:
                raise ValueError(f"{path}:{number}: missing field {key!r}")
        rows.append(row)
    return rows


def _prf(tp_pred: int, n_pred: int, tp_ref: int, n_ref: int) -> dict[str, Any]:
    precision = tp_pred / n_pred if n_pred else None
    recall = tp_ref / n_ref if n_ref else None
    f1 = (2 * precision * recall / (precision + recall)) if precision and recall else None
    return {
        "precision": _r(precision),
        "recall": _r(recall),
        "f1": _r(f1),
        "extracted": n_pred,
        "extracted_matching": tp_pred,
        "reference": n_ref,
        "reference_found": tp_ref,
    }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def passage_quality(
    dev: list[dict[str, Any]],
    corpus: Corpus,
    extractor: SignalExtractor,
    th: Thresholds | None = None,
) -> dict[str, Any]:
    """Precision/recall of the extractor's quotes against the reference passages, per polarity (reviews the rule
    does not read, those with an empty signal field by default, give no quote)."""
    th = th or Thresholds()
    counts = {AFFIRM: [0, 0, 0, 0], DISPUTE: [0, 0, 0, 0]}  # tp_pred, n_pred, tp_ref, n_ref
    review_level = Counter[str]()
    ideas = 0
    for row in dev:
        forum = row.get("forum")
        reviews = corpus.reviews.get(forum or "")
        if not reviews:
            continue
        ideas += 1
        sigs = [review_signals(r, extractor, th) for r in reviews]
        for polarity, key in ((AFFIRM, "positive_signals"), (DISPUTE, "negative_signals")):
            refs = [p for p in row[key] if isinstance(p, str)]
            quotes = [q for s in sigs for q in s.quotes(polarity)]
            c = counts[polarity]
            c[0] += sum(1 for q in quotes if any(quotes_overlap(q, p) for p in refs))
            c[1] += len(quotes)
            c[2] += sum(1 for p in refs if any(quotes_overlap(q, p) for q in quotes))
            c[3] += len(refs)
        review_level["reviews"] += len(reviews)
    return {
        "ideas_measured": ideas,
        "affirm": _prf(*counts[AFFIRM]),
        "dispute": _prf(*counts[DISPUTE]),
    }


def label_agreement(
    dev: list[dict[str, Any]], candidates: Mapping[str, str], kept: Mapping[str, Decision]
) -> dict[str, Any]:
    """Per dev label: how many the miner keeps with the same label, swaps, or drops (and at which step)."""
    out: dict[str, Any] = {}
    for label in ("novel", "not_novel"):
        rows = [r for r in dev if r.get("label") == label]
        in_snapshot = [r for r in rows if r.get("forum")]
        same = sum(1 for r in in_snapshot if r["forum"] in kept and kept[r["forum"]].label == label)
        swapped = sum(
            1 for r in in_snapshot if r["forum"] in kept and kept[r["forum"]].label != label
        )
        candidate = sum(1 for r in in_snapshot if candidates.get(r["forum"]) == label)
        out[label] = {
            "dev_ideas": len(rows),
            "with_forum": len(in_snapshot),
            "candidates": candidate,
            "kept_same_label": same,
            "swapped": swapped,
            "recall": _r(same / len(in_snapshot)) if in_snapshot else None,
        }
    return out


def dev_matches(dev: list[dict[str, Any]], corpus: Corpus) -> dict[str, int]:
    """How many dev rows name a forum at all, and how many name a submission of `corpus`."""
    with_forum = [r for r in dev if isinstance(r.get("forum"), str) and r["forum"]]
    return {
        "rows": len(dev),
        "with_forum": len(with_forum),
        "matched": sum(1 for r in with_forum if r["forum"] in corpus.submissions),
    }


def score_matches(dev: list[dict[str, Any]], corpus: Corpus) -> dict[str, int]:
    """Dev rows of a reviewed paper of `corpus`, and how many of them have the mean rating and mean contribution the
    reference published (both to its 2 decimals): a check that the reviews read are the ones the reference read."""
    rows = [r for r in dev if isinstance(r.get("forum"), str) and corpus.reviews.get(r["forum"])]
    same = 0
    for r in rows:
        rating, contribution = review_means(corpus.reviews[r["forum"]])
        ours = [float("nan") if x is None else x for x in (rating, contribution)]
        try:
            theirs = [float(r["mean_rating"]), float(r["mean_contribution"])]
        except (KeyError, TypeError, ValueError):
            continue
        same += all(abs(round(a, 2) - b) < 0.006 for a, b in zip(ours, theirs, strict=True))
    return {"reviewed": len(rows), "same_means": same}


def no_match_problem(dev_path: str | Path, dev: list[dict[str, Any]], corpus: Corpus) -> str | None:
    """Why a dev file cannot measure anything on this corpus (no row names one of its papers), or None."""
    m = dev_matches(dev, corpus)
    if m["matched"]:
        return None
    return (
        f"--dev {dev_path}: no paper matched: none of its {m['rows']} rows ({m['with_forum']} with a forum id) "
        "names a submission of the source, so there is nothing to measure (nothing written)"
    )


def measure(
    dev_path: str | Path,
    corpus: Corpus,
    extractor: SignalExtractor,
    candidates: Mapping[str, str],
    kept: Mapping[str, Decision],
    *,
    fingerprint: str | None,
    command: str,
    thresholds: Thresholds | None = None,
) -> dict[str, Any]:
    """The calibration record stored beside a set: passage quality and label agreement on the dev file."""
    dev = load_dev(dev_path)
    return {
        "extractor": extractor.name,
        "extractor_fingerprint": fingerprint,
        "dev_file": Path(dev_path).name,
        "dev_sha256": sha256_file(dev_path),
        "dev_rows": dev_matches(dev, corpus),
        "dev_score_means": score_matches(dev, corpus),
        "matching_rule": "normalised containment either way, or >= 80% of the shorter quote's words shared",
        "passages": passage_quality(dev, corpus, extractor, thresholds),
        "labels": label_agreement(dev, candidates, kept),
        "kept": {
            lab: sum(1 for d in kept.values() if d.label == lab) for lab in ("novel", "not_novel")
        },
        "reference_estimate": reference_estimate(dev, kept),
        "command": command,
    }


REFERENCE_SIZES = {"novel": 154, "not_novel": 145}
"""The reference study's published class sizes: 154 `novel` ideas and 145 distinct `not_novel` ones (in its pairs)."""


def reference_estimate(
    dev: list[dict[str, Any]],
    kept: Mapping[str, Decision],
    sizes: Mapping[str, int] = REFERENCE_SIZES,
) -> dict[str, Any]:
    """Our overlap with the reference's full class (its size known, `sizes`), extrapolated from the dev recall.

    The dev split is a random part of the reference's set, so recall on it estimates recall on the whole (the
    overlap is capped at what we label); precision against the reference is that overlap divided by what we label. Estimates, not measurements:
    the held-out part is not read."""
    out: dict[str, Any] = {}
    for label in ("novel", "not_novel"):
        rows = [r for r in dev if r.get("label") == label]
        with_forum = [r for r in rows if r.get("forum")]
        same = sum(1 for r in with_forum if r["forum"] in kept and kept[r["forum"]].label == label)
        total = sizes[label]
        recall = same / len(with_forum) if with_forum else 0.0
        ours = sum(1 for d in kept.values() if d.label == label)
        overlap = min(recall * total, ours)  # the overlap cannot exceed what we label
        out[label] = {
            "reference_total": total,
            "dev_share": _r(len(rows) / total),
            "ours": ours,
            "overlap_estimate": round(overlap),
            "precision_vs_reference_estimate": _r(overlap / ours) if ours else None,
        }
    return out
