"""The LLM extractor's row of the grouped cross-validation: a stratified subset of the dev papers.

An LLM extractor costs seconds per review (the local Gemma 3 270M: prefill ~130 tokens/s, a few
tokens/s decoding), so it reads every review of a small subset of the dev papers
(`llm_subset`: per label, SHA-256(seed:key) order, dealt over the outer folds of
`judgeaudit.mine.crossval`), and the cue extractor is scored on the same subset for a
side-by-side. Nothing is fitted for either except the selection choices, picked per outer fold
on the subset's training papers. The other candidates are not read by the LLM, so the size of
its kept set (and so a Jaccard with the reference) is unknown: the choices are picked by
`agreement` (per class, dev ideas kept with their label minus ideas swapped into it, over the
class size; mean over classes; first rule of the grid on ties, which is the reference rule), an
objective without the kept-set-size term, which favours lenient rules.

A review whose extraction failed (an unparsable answer or a failed call) counts as failed, never
as "no signal": its paper is not kept (`select.decide` does the same).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgeaudit.mine.crossval import (
    CLASS_CODES,
    CLASSES,
    FOLDS,
    SEED,
    Matrix,
    Paper,
    Rule,
    SentenceScores,
    add_matches,
    class_outcomes,
    class_sizes,
    count_passages,
    decide,
    passage_rows,
    review_matrix,
    rule_grid,
    take_rows,
)
from judgeaudit.mine.signals import AFFIRM, DISPUTE, ReviewSignals
from judgeaudit.stats.label_agreement import kept_rate


def llm_subset(dev: Sequence[Paper], n: int, seed: int = SEED) -> list[Paper]:
    """`n` dev papers found in the snapshot, half per label (novel gets the odd one), spread over the folds."""
    out: list[Paper] = []
    for i, label in enumerate(CLASSES):
        want = n // 2 + (n % 2 if i == 0 else 0)
        pool = [p for p in dev if p.label == label and p.forum and p.reviews]
        by_fold = [sorted((p for p in pool if p.fold == k),
                          key=lambda p: hashlib.sha256(f"{seed}:{p.key}".encode()).hexdigest()) for k in range(FOLDS)]
        picked: list[Paper] = []
        depth = 0
        while len(picked) < min(want, len(pool)):
            for papers in by_fold:
                if depth < len(papers) and len(picked) < want:
                    picked.append(papers[depth])
            depth += 1
        out.extend(picked)
    keys = {p.key for p in out}
    return [p for p in dev if p.key in keys]


def signal_matrix(papers: Sequence[Paper], signals: Sequence[Sequence[ReviewSignals]]) -> Matrix:
    """Review scores of extracted signals (affirm 1, weak affirm 0.5, dispute 1; the cue rule's scale), failures counted."""
    scores: SentenceScores = []
    failed: list[float] = []
    for per_paper in signals:
        rows = []
        for s in per_paper:
            affirm = 1.0 if s.affirms else 0.5 if s.affirms_at_all else 0.0
            rows.append(np.asarray([[affirm, 1.0 if s.disputes else 0.0]]))
        scores.append(rows)
        failed.append(float(sum(1 for s in per_paper if s.failed)))
    m = review_matrix(papers, scores)
    m.failed = np.asarray(failed)
    return m


def agreement(papers: Sequence[Paper], out: np.ndarray) -> float:
    """Mean over classes of (ideas kept with their label - ideas swapped into the class) / class size."""
    per = []
    for c, code in CLASS_CODES:
        flags, swapped = class_outcomes(papers, out, c, code)
        per.append((flags.sum() - swapped) / len(flags) if len(flags) else 0.0)
    return float(np.mean(per))


def best_agreement_rule(papers: Sequence[Paper], m: Matrix) -> Rule:
    """The selection choices (cue-scale thresholds) with the highest `agreement` on `papers`; first on ties."""
    rules = rule_grid(cue=True)
    best, best_value = rules[0], -np.inf
    for rule in rules:
        value = agreement(papers, decide(m, rule))
        if value > best_value + 1e-12:
            best, best_value = rule, value
    return best


@dataclass
class SubsetResult:
    """Out-of-fold outcomes of one extractor on the subset, its passage counts and the rule of each fold."""

    outcome: dict[str, int] = field(default_factory=dict)
    passages: dict[str, list[int]] = field(default_factory=lambda: {"affirm": [0, 0, 0, 0], "dispute": [0, 0, 0, 0]})
    rules: list[Rule] = field(default_factory=list)


def count_quotes(papers: Sequence[Paper], signals: Sequence[Sequence[ReviewSignals]], into: dict[str, list[int]]) -> None:
    """Add the extracted quotes' matches with the reference quotes to `into` (as `crossval.count_passages`)."""
    for p, per_paper in zip(papers, signals, strict=True):
        for stance, refs in ((AFFIRM, p.positive), (DISPUTE, p.negative)):
            add_matches(into[stance], [q for s in per_paper for q in s.quotes(stance)], refs)


def crossvalidate_subset(subset: Sequence[Paper], cue: SentenceScores,
                         signals: Sequence[Sequence[ReviewSignals]]) -> dict[str, SubsetResult]:
    """Per outer fold, selection choices picked on the subset's training papers; both extractors on the same folds."""
    m_cue = review_matrix(subset, cue)
    m_llm = signal_matrix(subset, signals)
    results = {"offline": SubsetResult(), "llm": SubsetResult()}
    folds = sorted({p.fold for p in subset})
    for k in folds:
        train = [i for i, p in enumerate(subset) if p.fold != k]
        test = [i for i, p in enumerate(subset) if p.fold == k]
        for name, m in (("offline", m_cue), ("llm", m_llm)):
            rule = best_agreement_rule([subset[i] for i in train], take_rows(m, train))
            res = results[name]
            res.rules.append(rule)
            for i, o in zip(test, decide(take_rows(m, test), rule), strict=True):
                res.outcome[subset[i].key] = int(o)
            papers = [subset[i] for i in test]
            if name == "offline":
                count_passages(papers, [cue[i] for i in test], rule, res.passages)
            else:
                count_quotes(papers, [signals[i] for i in test], res.passages)
    return results


def summarise_subset(result: SubsetResult, subset: Sequence[Paper], *, resamples: int, seed: int) -> dict[str, Any]:
    """Table row on the subset: passage precision/recall per stance, kept rate per class with intervals, swaps."""
    sizes = class_sizes(subset)
    row: dict[str, Any] = passage_rows(result.passages)
    for c, code in CLASS_CODES:
        flags, swaps = class_outcomes(subset, [result.outcome.get(p.key) for p in subset], c, code)
        row[c] = {"dev_ideas": sizes[c], "kept_same": int(flags.sum()), "swapped_in": swaps,
                  "kept_rate": kept_rate(flags, resamples=resamples, seed=seed).to_dict(), "jaccard": None,
                  "kept_total_estimate": None}
    return row
