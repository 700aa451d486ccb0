"""Grouped cross-validation of signal extractors on the reference dev split, under the reference's rule.

Folds: the dev ideas are dealt into `FOLDS` folds per label (stratified), in the order of
SHA-256(seed:forum-or-title), so every paper's reviews sit on one side of a fold. Every extractor
compared sees the same folds.

The selection rule is the reference study's (`select.Thresholds()`): nothing about it is tuned. What
an extractor learns (the n-gram stance model's weights, its regularisation and its two thresholds) is
fitted on the training folds only, and the test fold is labelled with it. The cue extractor (`offline`)
learns nothing, so its rows need no fold (its cue lists were written while reading this split, so they
are in-sample). Thresholds are picked by `objective`: the mean over both classes of the estimated
kept-set Jaccard of the labelled pool with the reference's class (`judgeaudit.stats.label_agreement`;
the reference's class sizes are published), where the miner's class size counts candidates of the whole
snapshot (no labels needed for that). (The `not_novel` aim is a recall, but a recall alone is maximised
by labelling every candidate: the Jaccard keeps the pool's size in view.)

Review scores: a sentence's affirm score is P(affirm) when P(affirm) >= P(dispute), else 0, and its
dispute score P(dispute) when P(dispute) > P(affirm), else 0 (the cue extractor: 1 for an explicit cue,
0.5 for a weak one, in each stance). A review affirms when its best affirm score reaches `affirm`,
affirms weakly when it reaches `weak`, disputes when its best dispute score reaches `dispute`, and
disputes weakly when it reaches `weak_dispute`; `decide` applies `select.decide`'s rule to that (and is
tested to equal it).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

import numpy as np
from sklearn.metrics import average_precision_score

from judgeaudit.mine.parse import Corpus, Review
from judgeaudit.mine.pipeline import candidate_pool
from judgeaudit.mine.select import Thresholds as SelectThresholds
from judgeaudit.mine.select import readable
from judgeaudit.mine.signals.cues import classify
from judgeaudit.mine.signals.sentences import quotes_overlap
from judgeaudit.mine.signals.stance import Thresholds
from judgeaudit.mine.study.calibrate import REFERENCE_SIZES
from judgeaudit.mine.study.stance_fit import (
    LabelledSentence,
    fit_model,
    label_sentences,
    review_sentences,
)
from judgeaudit.stats.label_agreement import estimated_jaccard, jaccard_metric, kept_rate

FOLDS = 5
INNER_FOLDS = 4
SEED = 20260
C_GRID = (4.0, 16.0)
AFFIRM_GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
DISPUTE_GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
CLASSES = ("novel", "not_novel")


@dataclass(frozen=True)
class Rule:
    """Review thresholds and the selection choices of `select.Thresholds` the matrices can express."""

    affirm: float
    weak: float
    dispute: float
    weak_dispute: float
    weak_affirmations: str = "ignore"
    weak_disputes: str = "ignore"
    strict_majority: bool = True
    max_opposing: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass
class Paper:
    """A paper in the cross-validation: candidate side, dev label and fold, review sentences."""

    key: str
    forum: str | None
    side: str | None
    label: str | None = None
    fold: int = -1
    reviews: list[list[str]] = field(default_factory=list)
    positive: list[str] = field(default_factory=list)
    negative: list[str] = field(default_factory=list)


def assign_folds(rows: Sequence[Mapping[str, Any]], k: int = FOLDS, seed: int = SEED) -> list[int]:
    """Fold of each dev row: per label, rows in SHA-256(seed:forum or title) order dealt round-robin."""
    folds = [0] * len(rows)
    for label in CLASSES:
        idx = [i for i, r in enumerate(rows) if r.get("label") == label]
        idx.sort(
            key=lambda i: hashlib.sha256(
                f"{seed}:{rows[i].get('forum') or rows[i].get('title')}".encode()
            ).hexdigest()
        )
        for j, i in enumerate(idx):
            folds[i] = j % k
    return folds


def read_sentences(review: Review, th: SelectThresholds) -> list[str]:
    """The sentences the rule reads of a review: none when it is not read (an empty signal field)."""
    return review_sentences(review, th.signal_fields) if readable(review, th) else []


def build_papers(
    dev: Sequence[Mapping[str, Any]],
    corpus: Corpus,
    th: SelectThresholds | None = None,
) -> tuple[list[Paper], list[Paper]]:
    """(dev papers, non-dev candidate papers) with the sentences the rule `th` reads of their reviews.

    A dev paper that is not a candidate under `th` has no side, so no rule labels it."""
    th = th or SelectThresholds()
    candidates = candidate_pool(corpus, th).candidates
    folds = assign_folds(dev)
    dev_papers: list[Paper] = []
    dev_forums = set()
    for row, fold in zip(dev, folds, strict=True):
        forum = row.get("forum") if row.get("forum") in corpus.submissions else None
        reviews = [read_sentences(r, th) for r in corpus.reviews.get(forum or "", [])]
        dev_papers.append(
            Paper(
                key=forum or f"missing:{row.get('title')}",
                forum=forum,
                side=candidates.get(forum or ""),
                label=row["label"],
                fold=fold,
                reviews=reviews,
                positive=[p for p in row["positive_signals"] if isinstance(p, str)],
                negative=[p for p in row["negative_signals"] if isinstance(p, str)],
            )
        )
        if forum:
            dev_forums.add(forum)
    others = [
        Paper(key=f, forum=f, side=side, reviews=[read_sentences(r, th) for r in corpus.reviews[f]])
        for f, side in sorted(candidates.items())
        if f not in dev_forums
    ]
    return dev_papers, others


def training_rows(
    papers: Sequence[Paper], corpus: Corpus, fields: Sequence[str]
) -> list[LabelledSentence]:
    """Labelled sentences of the given dev papers (their reviews' `fields`)."""
    rows: list[LabelledSentence] = []
    for p in papers:
        if p.forum:
            rows.extend(
                label_sentences(
                    p.forum, corpus.reviews.get(p.forum, []), p.positive, p.negative, fields
                )
            )
    return rows


# --- sentence scores -----------------------------------------------------------------------------

SentenceScores = list[
    list[np.ndarray]
]  # per paper, per review: (sentences, 2) affirm/dispute scores


def exclusive(probs: np.ndarray) -> np.ndarray:
    """Affirm and dispute scores with the smaller of the two stances zeroed (see module doc)."""
    out = probs.copy()
    if len(out):
        aff = out[:, 0] >= out[:, 1]
        out[~aff, 0] = 0.0
        out[aff, 1] = 0.0
    return out


def model_scores(model: Scorer, papers: Sequence[Paper]) -> SentenceScores:
    """Exclusive sentence scores of every review of `papers` under a stance model (one batch)."""
    flat = [s for p in papers for r in p.reviews for s in r]
    probs = exclusive(model.probabilities(flat)) if flat else np.zeros((0, 2))
    out: SentenceScores = []
    pos = 0
    for p in papers:
        per_paper = []
        for r in p.reviews:
            per_paper.append(probs[pos : pos + len(r)])
            pos += len(r)
        out.append(per_paper)
    return out


def cue_scores(papers: Sequence[Paper]) -> SentenceScores:
    """Sentence scores of the cue extractor: 1 for an explicit statement, 0.5 for a weak one, per stance."""
    out: SentenceScores = []
    for p in papers:
        per_paper = []
        for r in p.reviews:
            arr = np.zeros((len(r), 2))
            for i, s in enumerate(r):
                found = classify(s)
                if found is not None:
                    polarity, weak = found
                    arr[i, 0 if polarity == "affirm" else 1] = 0.5 if weak else 1.0
            per_paper.append(arr)
        out.append(per_paper)
    return out


CUE_RULE = Rule(affirm=1.0, weak=0.5, dispute=1.0, weak_dispute=0.5)
"""The reference's rule on the cue extractor's scores (weak statements are no signal)."""


# --- review matrices and the vectorised rule ----------------------------------------------------


@dataclass
class Matrix:
    """Per paper: candidate side (+1 novel, -1 not_novel, 0 none), best review scores padded with -1."""

    side: np.ndarray
    affirm: np.ndarray
    dispute: np.ndarray
    n: np.ndarray
    failed: np.ndarray | None = (
        None  # per paper, reviews whose extraction failed (such a paper is never kept)
    )


def review_matrix(papers: Sequence[Paper], scores: SentenceScores) -> Matrix:
    """The padded review-score matrices of `papers`."""
    width = max([len(s) for s in scores] + [1])
    a = -np.ones((len(papers), width))
    d = -np.ones((len(papers), width))
    for i, per_paper in enumerate(scores):
        for j, arr in enumerate(per_paper):
            if len(arr):
                a[i, j] = arr[:, 0].max()
                d[i, j] = arr[:, 1].max()
            else:
                a[i, j] = d[i, j] = 0.0
    side = np.asarray(
        [1 if p.side == "novel" else -1 if p.side == "not_novel" else 0 for p in papers]
    )
    n = np.asarray([len(s) for s in scores], dtype=float)
    return Matrix(side, a, d, n)


def decide(m: Matrix, rule: Rule) -> np.ndarray:
    """+1 labelled novel, -1 labelled not_novel, 0 not labelled, per paper (the rule of `select.decide`)."""
    explicit_aff = m.affirm >= rule.affirm
    any_aff = m.affirm >= rule.weak
    for_novel = any_aff if rule.weak_affirmations in ("count", "support") else explicit_aff
    against_not_novel = any_aff if rule.weak_affirmations in ("count", "oppose") else explicit_aff
    disputes = m.dispute >= (rule.weak_dispute if rule.weak_disputes == "count" else rule.dispute)
    half = 0.5 * m.n

    def majority(agree: np.ndarray) -> np.ndarray:
        return (agree > half) if rule.strict_majority else (agree >= half) & (agree > 0)

    ok = np.ones(len(m.side), dtype=bool) if m.failed is None else m.failed == 0
    novel = (
        ok
        & (m.side == 1)
        & (disputes.sum(1) <= rule.max_opposing)
        & majority((for_novel & ~disputes).sum(1))
    )
    plain = (
        ok
        & (m.side == -1)
        & (against_not_novel.sum(1) <= rule.max_opposing)
        & majority((disputes & ~against_not_novel).sum(1))
    )
    return np.where(novel, 1, np.where(plain, -1, 0))


# --- objective ------------------------------------------------------------------------------------


def class_sizes(dev: Sequence[Paper]) -> dict[str, int]:
    """Dev ideas per class (those missing from the snapshot included)."""
    return {c: sum(1 for p in dev if p.label == c) for c in CLASSES}


def reference_share(c: str, dev_sizes: Mapping[str, int]) -> float:
    """The dev split's share of the reference's class (its published size, `calibrate.REFERENCE_SIZES`)."""
    return min(1.0, dev_sizes[c] / REFERENCE_SIZES[c]) if dev_sizes[c] else 1.0


CLASS_CODES: tuple[tuple[str, int], ...] = (
    ("novel", 1),
    ("not_novel", -1),
)  # label -> decision code


def class_outcomes(
    papers: Sequence[Paper], decided: Sequence[int | None] | np.ndarray, label: str, code: int
) -> tuple[np.ndarray, int]:
    """Given each paper's decision (`decided`, aligned with `papers`; `code` keeps a paper as `label`):
    per paper of `label`, 1.0 if kept with it, else 0.0; and how many papers of the other labels were kept as it."""
    flags = np.asarray(
        [
            1.0 if d == code else 0.0
            for p, d in zip(papers, decided, strict=True)
            if p.label == label
        ]
    )
    swaps = sum(1 for p, d in zip(papers, decided, strict=True) if p.label != label and d == code)
    return flags, swaps


def objective(
    sample: Sequence[Paper],
    sample_out: np.ndarray,
    outside_out: np.ndarray,
    dev_sizes: Mapping[str, int],
) -> tuple[float, dict[str, float]]:
    """Mean estimated Jaccard over classes when `sample` (dev ideas) got `sample_out` and the other candidates
    `outside_out` (ideas of another label swapped into a class count as labelled outside the sample)."""
    per: dict[str, float] = {}
    for c, code in CLASS_CODES:
        flags, swaps = class_outcomes(sample, sample_out, c, code)
        kept_outside = float((outside_out == code).sum() + swaps)
        per[c] = (
            float(jaccard_metric(kept_outside, reference_share(c, dev_sizes))({"kept": flags}))
            if len(flags)
            else 0.0
        )
    return float(np.mean(list(per.values()))), per


def rule_grid(cue: bool) -> list[Rule]:
    """Every candidate rule: the reference's, with thresholds for a learned extractor (weak ones are no signal)."""
    if cue:
        return [CUE_RULE]
    return [Rule(a, a, d, d) for a, d in itertools.product(AFFIRM_GRID, DISPUTE_GRID)]


def best_rule(
    rules: Sequence[Rule],
    sample: Sequence[Paper],
    m_sample: Matrix,
    m_outside: Matrix,
    dev_sizes: Mapping[str, int],
) -> tuple[Rule, float]:
    """The rule with the highest objective (first in grid order on ties)."""
    best, best_value = rules[0], -1.0
    for rule in rules:
        value, _ = objective(sample, decide(m_sample, rule), decide(m_outside, rule), dev_sizes)
        if value > best_value + 1e-12:
            best, best_value = rule, value
    return best, best_value


# --- the learned extractor's training procedure (used per outer fold and for the shipped model) ---


class Scorer(Protocol):
    """A fitted sentence model: P(affirm), P(dispute) per sentence, and the thresholds it ships with."""

    name: str
    thresholds: Thresholds
    training: dict[str, Any]

    def probabilities(self, sentences: Sequence[str]) -> np.ndarray:
        """(n, 2) probabilities."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The model file's JSON form."""
        ...


@dataclass(frozen=True)
class Learner:
    """How to fit one learned extractor on labelled sentences, and its regularisation grid."""

    name: str
    fit: Callable[[Sequence[LabelledSentence], float], Scorer]
    c_grid: tuple[float, ...]


def ngram_learner(name: str = "ngram") -> Learner:
    """The word n-gram TF-IDF stance model (`judgeaudit.mine.signals.stance`)."""
    return Learner(name, lambda rows, c: fit_model(rows, name=name, c=c), C_GRID)


@dataclass
class Fitted:
    """A stance model fitted on some dev papers with its chosen C and rule."""

    model: Scorer
    rule: Rule
    c: float
    inner_objective: float


def _inner_probs(
    train: Sequence[Paper], rows: Sequence[LabelledSentence], c: float, learner: Learner
) -> SentenceScores:
    folds = {p.key: p.fold for p in train}
    inner = sorted(set(folds.values()))
    groups = {f: i % INNER_FOLDS for i, f in enumerate(inner)}
    out: dict[str, list[np.ndarray]] = {}
    for g in range(min(INNER_FOLDS, len(inner))):
        fit_rows = [r for r in rows if groups[folds[r.forum]] != g]
        held = [p for p in train if groups[p.fold] == g]
        model = learner.fit(fit_rows, c)
        for p, s in zip(held, model_scores(model, held), strict=True):
            out[p.key] = s
    return [out[p.key] for p in train]


def _sentence_ap(
    train: Sequence[Paper], rows: Sequence[LabelledSentence], scores: SentenceScores
) -> float:
    flags = {(r.forum, r.text): (r.affirm, r.dispute) for r in rows}
    ys, ps = [], []
    for p, per_paper in zip(train, scores, strict=True):
        for sentences, arr in zip(p.reviews, per_paper, strict=True):
            for s, row in zip(sentences, arr, strict=True):
                ys.append(flags.get((p.forum or "", s), (False, False)))
                ps.append(row)
    y = np.asarray(ys, dtype=int)
    pr = np.asarray(ps)
    return float(
        np.mean([average_precision_score(y[:, k], pr[:, k]) for k in range(2) if y[:, k].any()])
    )


def fit_procedure(
    train: Sequence[Paper],
    outside: Sequence[Paper],
    corpus: Corpus,
    dev_sizes: Mapping[str, int],
    *,
    learner: Learner,
    fields: Sequence[str],
    log: Callable[[str], None] = lambda _m: None,
) -> tuple[Fitted, Matrix]:
    """Pick C by inner grouped CV (sentence average precision), the thresholds by the inner objective; fit on all
    `train`. Returns the fitted model and the review matrix of `outside` under it."""
    rows = training_rows(train, corpus, fields)
    best: tuple[float, float, SentenceScores] | None = None
    for c in learner.c_grid:
        scores = _inner_probs(train, rows, c, learner)
        ap = _sentence_ap(train, rows, scores)
        log(f"    C={c:g}: inner sentence AP {ap:.3f}")
        if best is None or ap > best[0] + 1e-12:
            best = (ap, c, scores)
    assert best is not None
    _, c, inner_scores = best
    model = learner.fit(rows, c)
    m_outside = review_matrix(outside, model_scores(model, outside))
    m_train = review_matrix(train, inner_scores)
    rule, value = best_rule(rule_grid(cue=False), train, m_train, m_outside, dev_sizes)
    model.thresholds = Thresholds(rule.affirm, rule.affirm, rule.dispute)
    return Fitted(model, rule, c, value), m_outside


# --- evaluation -----------------------------------------------------------------------------------


@dataclass
class FoldResult:
    """One extractor's out-of-fold outcome for the dev ideas and per-fold kept counts outside the dev split."""

    outcome: dict[str, int] = field(default_factory=dict)  # paper key -> +1/-1/0
    kept_outside: list[dict[str, float]] = field(default_factory=list)
    passages: dict[str, list[int]] = field(
        default_factory=lambda: {"affirm": [0, 0, 0, 0], "dispute": [0, 0, 0, 0]}
    )
    rules: list[Rule] = field(default_factory=list)


def count_passages(
    papers: Sequence[Paper], scores: SentenceScores, rule: Rule, into: dict[str, list[int]]
) -> None:
    """Add quote/reference matches of `papers` to `into` (per stance: matching quotes, quotes, found refs, refs);
    the quotes are the sentences the rule counts (weak ones only when the rule counts them)."""
    affirm = rule.weak if rule.weak_affirmations in ("count", "support") else rule.affirm
    dispute = rule.weak_dispute if rule.weak_disputes == "count" else rule.dispute
    for p, per_paper in zip(papers, scores, strict=True):
        quotes: dict[str, list[str]] = {"affirm": [], "dispute": []}
        for sentences, arr in zip(p.reviews, per_paper, strict=True):
            for s, row in zip(sentences, arr, strict=True):
                if row[0] >= affirm and row[0] > 0:
                    quotes["affirm"].append(s)
                elif row[1] >= dispute and row[1] > 0:
                    quotes["dispute"].append(s)
        for stance, refs in (("affirm", p.positive), ("dispute", p.negative)):
            add_matches(into[stance], quotes[stance], refs)


def add_matches(counts: list[int], quotes: Sequence[str], refs: Sequence[str]) -> None:
    """Add to `counts` (matching quotes, quotes, found refs, refs) under the calibration matching rule."""
    counts[0] += sum(1 for x in quotes if any(quotes_overlap(x, r) for r in refs))
    counts[1] += len(quotes)
    counts[2] += sum(1 for r in refs if any(quotes_overlap(x, r) for x in quotes))
    counts[3] += len(refs)


def passage_rows(passages: Mapping[str, Sequence[int]]) -> dict[str, Any]:
    """Precision/recall per stance from `count_passages` counts."""
    return {
        stance: {
            "precision": tp / n_pred if n_pred else None,
            "recall": found / n_ref if n_ref else None,
            "quotes": n_pred,
            "reference": n_ref,
        }
        for stance, (tp, n_pred, found, n_ref) in passages.items()
    }


def summarise(
    result: FoldResult, dev: Sequence[Paper], *, resamples: int, seed: int
) -> dict[str, Any]:
    """Table row: passage precision/recall per stance, kept rate and estimated Jaccard per class with intervals."""
    sizes = class_sizes(dev)
    row: dict[str, Any] = passage_rows(result.passages)
    for c, code in CLASS_CODES:
        flags, swaps = class_outcomes(dev, [result.outcome.get(p.key) for p in dev], c, code)
        outside = float(np.mean([k[c] for k in result.kept_outside])) + swaps
        rate = kept_rate(flags, resamples=resamples, seed=seed)
        jac = estimated_jaccard(
            flags,
            kept_outside=outside,
            reference_share=reference_share(c, sizes),
            resamples=resamples,
            seed=seed,
        )
        row[c] = {
            "dev_ideas": sizes[c],
            "kept_same": int(flags.sum()),
            "swapped_in": swaps,
            "kept_rate": rate.to_dict(),
            "jaccard": jac.to_dict(),
            "kept_total_estimate": round(outside + flags.sum(), 1),
        }
    return row


def _kept_counts(out: np.ndarray) -> dict[str, float]:
    return {"novel": float((out == 1).sum()), "not_novel": float((out == -1).sum())}


def crossvalidate(
    dev: Sequence[Paper],
    outside: Sequence[Paper],
    corpus: Corpus,
    *,
    fields: Sequence[str],
    learners: Sequence[Learner] | None = None,
    variants: Mapping[str, Rule] | None = None,
    log: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """The cue extractor under the reference's rule (and each earlier-rule `variants` of it: `ablations`), and each
    learned extractor (default: the n-gram model) by outer grouped CV, on the same folds."""
    learners = [ngram_learner()] if learners is None else list(learners)
    variants = ablations() if variants is None else variants
    sizes = class_sizes(dev)
    log("cue extractor: scoring every candidate review")
    cue_dev = cue_scores(dev)
    m_cue_dev = review_matrix(dev, cue_dev)
    m_cue_out = review_matrix(outside, cue_scores(outside))
    results: dict[str, FoldResult] = {
        "offline": FoldResult(),
        **{lr.name: FoldResult() for lr in learners},
    }
    ablation: dict[str, FoldResult] = {name: FoldResult() for name in variants}
    for k in range(FOLDS):
        train = [p for p in dev if p.fold != k]
        test = [p for p in dev if p.fold == k]
        test_idx = [i for i, p in enumerate(dev) if p.fold == k]
        log(f"fold {k + 1}/{FOLDS}: {len(train)} training ideas, {len(test)} test ideas")
        m_te = take_rows(m_cue_dev, test_idx)
        _record(results["offline"], test, m_te, m_cue_out, CUE_RULE, [cue_dev[i] for i in test_idx])
        for name, variant in variants.items():
            _record(ablation[name], test, m_te, m_cue_out, variant, [cue_dev[i] for i in test_idx])
        for learner in learners:  # everything is fitted on the training folds
            log(f"  {learner.name}")
            fitted, m_out = fit_procedure(
                train, [*outside, *test], corpus, sizes, learner=learner, fields=fields, log=log
            )
            test_scores = model_scores(fitted.model, test)
            log(f"    chosen C={fitted.c:g}, rule {fitted.rule}")
            _record(
                results[learner.name],
                test,
                review_matrix(test, test_scores),
                take_rows(m_out, list(range(len(outside)))),
                fitted.rule,
                test_scores,
            )
    return {"folds": FOLDS, "seed": SEED, "results": results, "ablation": ablation}


def take_rows(m: Matrix, idx: Sequence[int]) -> Matrix:
    """The rows `idx` of `m`."""
    i = np.asarray(idx, dtype=int)
    return Matrix(
        m.side[i], m.affirm[i], m.dispute[i], m.n[i], None if m.failed is None else m.failed[i]
    )


def _record(
    res: FoldResult,
    test: Sequence[Paper],
    m_test: Matrix,
    m_outside: Matrix,
    rule: Rule,
    scores: SentenceScores | None,
) -> None:
    out = decide(m_test, rule)
    for p, o in zip(test, out, strict=True):
        res.outcome[p.key] = int(o)
    res.kept_outside.append(_kept_counts(decide(m_outside, rule)))
    res.rules.append(rule)
    if scores is not None:
        count_passages(test, scores, rule, res.passages)


def ablations(rule: Rule = CUE_RULE) -> dict[str, Rule]:
    """The reference's rule with one earlier choice put back at a time."""
    return {
        "hedged or descriptive affirmations block not_novel (earlier rule)": replace(
            rule, weak_affirmations="oppose"
        ),
        "hedged or descriptive affirmations support novel only": replace(
            rule, weak_affirmations="support"
        ),
        "hedged or descriptive affirmations count as affirmations": replace(
            rule, weak_affirmations="count"
        ),
        "hedged uncertainty counts as a dispute (earlier rule)": replace(
            rule, weak_disputes="count"
        ),
        "majority: at least half (earlier option)": replace(rule, strict_majority=False),
        "one opposing review allowed": replace(rule, max_opposing=1),
    }
