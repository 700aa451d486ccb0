"""An extractor measured on independently labelled reviews (the stance cases), outside the dev split.

The cases (tests/fixtures/stance_cases/, see its README): 60 candidate papers of the ICLR 2026
snapshot, none in the reference study's dev split, with every official review labelled by
annotators who saw only the labelling brief: per review, whether it affirms originality
(explicitly, or weakly) and whether it disputes it, with verbatim quotes.

Halves: within each candidate side, papers in SHA-256(`SPLIT_SALT`:forum) order are dealt
alternately to `tune` and `heldout` (fixed before any error was read). Tune the cue lists on
`tune` only; `heldout` gives the honest figures.

Per half and extractor:
- review level: precision/recall of `affirms` (explicit), `affirms_at_all` (explicit or weak)
  and `disputes` against the annotators' flags;
- passage level: extracted quotes against the annotators' quotes (affirm: explicit and weak
  quotes; dispute), under the cross-validation's matching rule (`crossval.add_matches`);
- paper level: the bundled selection rule (`select.decide`, default thresholds) applied once
  with the extractor's stances and once with the annotators', and per class the agreement of
  the two kept sets (both, extractor only, annotators only, Jaccard; swapped labels).
Intervals: percentile bootstrap over papers (a paper's reviews move together), `judgeaudit.stats`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from judgeaudit.errors import UserError
from judgeaudit.mine.json_rows import json_rows
from judgeaudit.mine.parse import Review
from judgeaudit.mine.pipeline import review_signals
from judgeaudit.mine.select import UNREAD_EMPTY, Side, Thresholds, decide, readable
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, ReviewSignals, Signal, SignalExtractor
from judgeaudit.mine.study.crossval import add_matches
from judgeaudit.stats.agreement import cohen_kappa
from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_metric
from judgeaudit.stats.metrics import Count, FloatArray, Metric, Sums, ratio

SPLIT_SALT = "stance_cases"
HALVES: tuple[str, ...] = ("tune", "heldout")
REVIEW_FIELDS: tuple[str, ...] = ("summary", "strengths", "weaknesses", "questions")
FLAGS: tuple[str, ...] = ("affirms", "affirms_at_all", "disputes")
CLASSES: tuple[Side, ...] = ("novel", "not_novel")
LABEL_KEYS: tuple[str, ...] = ("affirm_quotes", "weak_quotes", "dispute_quotes")
# The reference-rule brief (tests/fixtures/reading_cases_reference_rule/BRIEF.md) names the weak quotes "soft
# affirmations" and asks for no flags: its label lines hold these keys instead.
SOFT_LABEL_KEYS: tuple[str, ...] = ("affirm_quotes", "soft_affirm_quotes", "dispute_quotes")
FLAG_KEYS: tuple[str, ...] = ("affirms", "weak_affirms", "disputes")


class CasesError(UserError):
    """A stance-cases directory that cannot be read (the message names the file and line)."""


@dataclass(frozen=True)
class CaseLabel:
    """The annotators' stance of one review, with their verbatim quotes."""

    review_id: str
    affirm_quotes: tuple[str, ...]
    weak_quotes: tuple[str, ...]
    dispute_quotes: tuple[str, ...]
    flags: (
        tuple[bool, bool, bool] | None
    )  # affirms, weak_affirms, disputes as written in the file (None: none written)

    @property
    def affirms(self) -> bool:
        """An explicit affirmation."""
        return bool(self.affirm_quotes)

    @property
    def affirms_at_all(self) -> bool:
        """Any affirmation, weak ones included."""
        return bool(self.affirm_quotes or self.weak_quotes)

    @property
    def disputes(self) -> bool:
        """A dispute."""
        return bool(self.dispute_quotes)


@dataclass
class CasePaper:
    """One labelled paper: its candidate side, half, reviews (latest version of each id) and labels."""

    forum: str
    title: str
    side: Side
    half: str
    reviews: list[Review] = field(default_factory=list)
    labels: dict[str, CaseLabel] = field(default_factory=dict)
    versions: dict[str, list[Review]] = field(
        default_factory=dict
    )  # every version of each review id
    duplicate_labels: list[str] = field(default_factory=list)


def split_halves(papers: Mapping[str, str]) -> dict[str, str]:
    """Half of each forum (`papers`: forum -> side): per side, SHA-256(salt:forum) order dealt alternately."""
    out: dict[str, str] = {}
    for side in sorted(set(papers.values())):
        forums = sorted(
            (f for f, s in papers.items() if s == side),
            key=lambda f: hashlib.sha256(f"{SPLIT_SALT}:{f}".encode()).hexdigest(),
        )
        for i, f in enumerate(forums):
            out[f] = HALVES[i % 2]
    return out


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        yield from json_rows(path)
    except ValueError as exc:
        raise CasesError(str(exc)) from None
    except (OSError, EOFError) as exc:
        raise CasesError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None


def _batch_files(directory: Path, stem: str) -> list[Path]:
    files = sorted(p for p in directory.glob(f"{stem}_*.jsonl*") if p.suffix in (".jsonl", ".gz"))
    if not files:
        raise CasesError(f"{directory}: no {stem}_N.jsonl[.gz] files")
    return files


def _review(forum: str, raw: Any, where: str) -> Review:
    if not isinstance(raw, dict) or not isinstance(raw.get("review_id"), str):
        raise CasesError(f"{where}: a review without a string review_id")
    texts = tuple((f, raw[f]) for f in REVIEW_FIELDS if isinstance(raw.get(f), str) and raw[f])
    return Review(raw["review_id"], forum, float("nan"), None, texts, 0)


def _label(row: dict[str, Any], where: str) -> CaseLabel:
    """A label line of either brief: weak quotes as `weak_quotes` with flags, or as `soft_affirm_quotes` without."""
    keys = (
        SOFT_LABEL_KEYS if "soft_affirm_quotes" in row and "weak_quotes" not in row else LABEL_KEYS
    )
    quotes: list[tuple[str, ...]] = []
    for key in keys:
        value = row.get(key)
        if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
            raise CasesError(f"{where}: {key} must be a list of strings")
        quotes.append(tuple(value))
    flags = None
    if any(k in row for k in FLAG_KEYS):
        a, w, d = (bool(row.get(k)) for k in FLAG_KEYS)
        flags = (a, w, d)
    return CaseLabel(str(row.get("review_id")), quotes[0], quotes[1], quotes[2], flags)


def load_cases(directory: Path) -> list[CasePaper]:
    """The labelled papers of a stance-cases directory (papers.jsonl, batch_N.jsonl[.gz], labels_N.jsonl)."""
    sides: dict[str, Side] = {}
    for i, row in _lines(directory / "papers.jsonl"):
        if not isinstance(row.get("forum"), str) or row.get("side") not in CLASSES:
            raise CasesError(
                f"{directory / 'papers.jsonl'}:{i}: needs a string forum and side novel|not_novel"
            )
        sides[row["forum"]] = row["side"]
    halves = split_halves(sides)
    papers: dict[str, CasePaper] = {}
    for path in _batch_files(directory, "batch"):
        for i, row in _lines(path):
            forum = row.get("forum")
            where = f"{path}:{i}"
            if not isinstance(forum, str) or forum not in sides:
                raise CasesError(f"{where}: forum {forum!r} is not in papers.jsonl")
            if forum in papers:
                raise CasesError(f"{where}: forum {forum} appears twice")
            paper = CasePaper(forum, str(row.get("title", "")), sides[forum], halves[forum])
            for raw in row.get("reviews") or []:
                review = _review(forum, raw, where)
                paper.versions.setdefault(review.review_id, []).append(review)
            # the last version of an edited review stands for it
            paper.reviews = [v[-1] for v in paper.versions.values()]
            papers[forum] = paper
    missing = sorted(set(sides) - set(papers))
    if missing:
        raise CasesError(f"{directory}: papers without reviews in any batch: {', '.join(missing)}")
    for path in _batch_files(directory, "labels"):
        for i, row in _lines(path):
            where = f"{path}:{i}"
            owner = papers.get(str(row.get("forum")))
            if owner is None:
                raise CasesError(f"{where}: forum {row.get('forum')!r} is not in any batch")
            label = _label(row, where)
            if label.review_id in owner.labels:
                owner.duplicate_labels.append(label.review_id)
            owner.labels[label.review_id] = label
    return [papers[f] for f in sorted(papers)]


SECOND_ANNOTATOR = (
    "second_annotator"  # subfolder: another annotator's labels_N.jsonl of some batches
)


def annotator_agreement(
    papers: Sequence[CasePaper], directory: Path
) -> dict[str, dict[str, float]]:
    """Per flag (`affirms`, `affirms_at_all`, `disputes`), the labels of the cases against a second
    annotator's labels of the same reviews (`directory`/labels_N.jsonl): reviews compared, share
    agreeing and Cohen's kappa (`stats.agreement.cohen_kappa`). A review the second annotator
    labelled that the cases do not hold is an error."""
    first = {(p.forum, rid): label for p in papers for rid, label in p.labels.items()}
    pairs: list[tuple[CaseLabel, CaseLabel]] = []
    for path in _batch_files(directory, "labels"):
        for i, row in _lines(path):
            where = f"{path}:{i}"
            label = _label(row, where)
            mine = first.get((str(row.get("forum")), label.review_id))
            if mine is None:
                raise CasesError(
                    f"{where}: review {row.get('forum')}/{label.review_id} has no first label"
                )
            pairs.append((mine, label))
    out: dict[str, dict[str, float]] = {}
    for flag in FLAGS:
        x = [bool(getattr(a, flag)) for a, _ in pairs]
        y = [bool(getattr(b, flag)) for _, b in pairs]
        agree = sum(p == q for p, q in zip(x, y, strict=True))
        out[flag] = {
            "reviews": float(len(pairs)),
            "agreement": agree / len(pairs) if pairs else float("nan"),
            "kappa": cohen_kappa(x, y, categories=(False, True)) if pairs else float("nan"),
        }
    return out


def integrity_problems(papers: Sequence[CasePaper]) -> list[str]:
    """Every way the cases disagree with themselves (empty when sound): labels per review, quotes verbatim, flags."""
    problems: list[str] = []
    for p in papers:
        ids = {r.review_id for r in p.reviews}
        problems += [f"{p.forum}/{r}: no label line" for r in sorted(ids - set(p.labels))]
        problems += [
            f"{p.forum}/{r}: label for a review not in the batch"
            for r in sorted(set(p.labels) - ids)
        ]
        problems += [f"{p.forum}/{r}: more than one label line" for r in p.duplicate_labels]
        for rid, label in p.labels.items():
            if rid not in ids:
                continue
            if label.flags is not None and label.flags != (
                label.affirms,
                bool(label.weak_quotes),
                label.disputes,
            ):
                problems.append(f"{p.forum}/{rid}: a flag disagrees with its quotes")
            for q in (*label.affirm_quotes, *label.weak_quotes, *label.dispute_quotes):
                for version in p.versions[rid]:
                    if not any(q in text for _, text in version.texts):
                        problems.append(
                            f"{p.forum}/{rid}: quote not verbatim in the review: {q[:60]!r}"
                        )
    return problems


def gold_signals(review: Review, label: CaseLabel, th: Thresholds | None = None) -> ReviewSignals:
    """The annotators' stance of a review as signals (weak quotes are weak affirmations), read as the rule reads a
    review: only quotes found in its signal fields, and none at all when it has an empty signal field."""
    th = th or Thresholds()
    if not readable(review, th):
        return ReviewSignals(review.review_id, unread=UNREAD_EMPTY)

    def where(q: str) -> str:
        return next((f for f, t in review.texts if q in t), "")

    signals = [Signal(AFFIRM, q, where(q)) for q in label.affirm_quotes]
    signals += [Signal(AFFIRM, q, where(q), weak=True) for q in label.weak_quotes]
    signals += [Signal(DISPUTE, q, where(q)) for q in label.dispute_quotes]
    return ReviewSignals(review.review_id, tuple(s for s in signals if s.field in th.signal_fields))


OUTCOMES: tuple[str, ...] = (
    "kept",
    "blocked by weak affirmations only",
    "blocked by an explicit stance against it",
    "too few reviews agree",
)


def annotator_outcome(paper: CasePaper, th: Thresholds | None = None) -> str:
    """What the selection rule does with a paper read with the annotators' stances: one of `OUTCOMES`.

    "blocked by weak affirmations only": the paper would be kept if hedged or merely descriptive
    affirmations did not oppose a `not_novel` label; "an explicit stance against it": an explicit
    affirmation of a `not_novel` candidate, or a dispute of a `novel` one; "too few reviews agree":
    short of the majority.
    """
    th = th or Thresholds()
    missing = [r.review_id for r in paper.reviews if r.review_id not in paper.labels]
    if missing:
        raise CasesError(f"{paper.forum}/{missing[0]}: no label line for this review")
    gold = [gold_signals(r, paper.labels[r.review_id], th) for r in paper.reviews]
    n = len(paper.reviews)
    decision = decide(paper.forum, paper.side, n, gold, th)
    if decision.label is not None:
        return OUTCOMES[0]
    if paper.side == "not_novel" and th.weak_affirmations == "oppose":
        if (
            decide(paper.forum, paper.side, n, gold, replace(th, weak_affirmations="ignore")).label
            is not None
        ):
            return OUTCOMES[1]
    opposing = (
        decision.affirming_reviews if paper.side == "not_novel" else decision.disputing_reviews
    )
    return OUTCOMES[2] if opposing > th.max_opposing else OUTCOMES[3]


def _ratio_metric(name: str, num: str, den: str) -> Metric:
    def from_sums(s: Sums, n: Count) -> FloatArray:
        return ratio(s[num], s[den])

    return Metric(name, (num, den), from_sums)


def paper_columns(
    papers: Sequence[CasePaper], extractor: SignalExtractor, th: Thresholds | None = None
) -> dict[str, FloatArray]:
    """Per paper outcome columns: review-flag counts, passage-match counts and both selection decisions."""
    th = th or Thresholds()
    cols: dict[str, list[float]] = {}

    def add(row: dict[str, float]) -> None:
        for k, v in row.items():
            cols.setdefault(k, []).append(v)

    for p in papers:
        row: dict[str, float] = {}
        ours: list[ReviewSignals] = []
        gold: list[ReviewSignals] = []
        passages = {"affirm": [0, 0, 0, 0], "dispute": [0, 0, 0, 0]}
        for r in p.reviews:
            got = review_signals(r, extractor, th)
            label = p.labels.get(r.review_id)
            if label is None:
                raise CasesError(f"{p.forum}/{r.review_id}: no label line for this review")
            annotated = gold_signals(r, label, th)  # the annotators' stance as the rule reads it
            ours.append(got)
            gold.append(annotated)
            for flag in FLAGS:
                pred, true = bool(getattr(got, flag)), bool(getattr(annotated, flag))
                row[f"{flag}_tp"] = row.get(f"{flag}_tp", 0.0) + (pred and true)
                row[f"{flag}_pred"] = row.get(f"{flag}_pred", 0.0) + pred
                row[f"{flag}_gold"] = row.get(f"{flag}_gold", 0.0) + true
            add_matches(
                passages["affirm"],
                got.quotes(AFFIRM, weak=True),
                annotated.quotes(AFFIRM, weak=True),
            )
            add_matches(passages["dispute"], got.quotes(DISPUTE), annotated.quotes(DISPUTE))
        for stance, (tp, n_pred, found, n_ref) in passages.items():
            row.update(
                {
                    f"{stance}_quote_tp": tp,
                    f"{stance}_quotes": n_pred,
                    f"{stance}_ref_found": found,
                    f"{stance}_refs": n_ref,
                }
            )
        mine = decide(p.forum, p.side, len(p.reviews), ours, th).label
        theirs = decide(p.forum, p.side, len(p.reviews), gold, th).label
        for c in CLASSES:
            row[f"{c}_both"] = float(mine == c and theirs == c)
            row[f"{c}_either"] = float(mine == c or theirs == c)
            row[f"{c}_ours"] = float(mine == c)
            row[f"{c}_gold"] = float(theirs == c)
            # a paper kept with the other label by one side than by the other (impossible while the side fixes it)
            row[f"{c}_swapped"] = float(
                (mine == c and theirs not in (None, c)) or (theirs == c and mine not in (None, c))
            )
        row["same_decision"] = float(mine == theirs)
        add(row)
    return {k: np.asarray(v, dtype=float) for k, v in cols.items()}


def summarise(
    cols: Mapping[str, FloatArray], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> dict[str, Any]:
    """Precision/recall, passage matches and kept-set agreement with bootstrap intervals over papers."""

    def iv(name: str, num: str, den: str) -> dict[str, Any]:
        return bootstrap_metric(
            cols, _ratio_metric(name, num, den), resamples=resamples, seed=seed
        ).to_dict()

    out: dict[str, Any] = {"papers": int(len(cols["same_decision"]))}
    out["review_level"] = {
        f: {
            "precision": iv("precision", f"{f}_tp", f"{f}_pred"),
            "recall": iv("recall", f"{f}_tp", f"{f}_gold"),
            "predicted": int(cols[f"{f}_pred"].sum()),
            "labelled": int(cols[f"{f}_gold"].sum()),
        }
        for f in FLAGS
    }
    out["passages"] = {
        s: {
            "precision": iv("precision", f"{s}_quote_tp", f"{s}_quotes"),
            "recall": iv("recall", f"{s}_ref_found", f"{s}_refs"),
            "quotes": int(cols[f"{s}_quotes"].sum()),
            "reference": int(cols[f"{s}_refs"].sum()),
        }
        for s in ("affirm", "dispute")
    }
    out["papers_level"] = {
        c: {
            "jaccard": iv("jaccard", f"{c}_both", f"{c}_either"),
            "kept_by_extractor": int(cols[f"{c}_ours"].sum()),
            "kept_by_labels": int(cols[f"{c}_gold"].sum()),
            "both": int(cols[f"{c}_both"].sum()),
            "swapped": int(cols[f"{c}_swapped"].sum()),
        }
        for c in CLASSES
    }
    out["same_decision"] = int(cols["same_decision"].sum())
    return out


def measure(
    papers: Sequence[CasePaper],
    extractors: Mapping[str, SignalExtractor],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Per half that has papers, per extractor: the summary of `summarise` (with seed and resamples recorded)."""
    out: dict[str, Any] = {"seed": seed, "resamples": resamples, "halves": {}}
    for half in HALVES:
        part = [p for p in papers if p.half == half]
        if not part:
            continue
        rows = {}
        for name, extractor in extractors.items():
            row = summarise(paper_columns(part, extractor), resamples=resamples, seed=seed)
            row["reviews"] = sum(len(p.reviews) for p in part)
            rows[name] = row
        out["halves"][half] = rows
    return out


def counts_table(first: str, columns: Sequence[str], rows: Mapping[str, Mapping[str, int]]) -> str:
    """Counts as a Markdown table: one row per key of `rows`, one column per name in `columns` (0 when absent)."""
    out = [f"| {first} | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    out += [
        f"| {name} | " + " | ".join(str(counts.get(c, 0)) for c in columns) + " |"
        for name, counts in rows.items()
    ]
    return "\n".join(out)


def _iv(d: Mapping[str, Any]) -> str:
    if d.get("estimate") is None or not np.isfinite(d["estimate"]):
        return "n/a"
    return f"{d['estimate']:.2f} [{d['low']:.2f}, {d['high']:.2f}]"


def table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """One half's rows (extractor -> summary) as Markdown tables: reviews, passages, papers."""
    out = [
        "| extractor | affirms P | affirms R | affirms_at_all P | affirms_at_all R | disputes P | disputes R |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        rl = r["review_level"]
        out.append(
            f"| {name} | "
            + " | ".join(f"{_iv(rl[f]['precision'])} | {_iv(rl[f]['recall'])}" for f in FLAGS)
            + " |"
        )
    out += [
        "",
        "| extractor | affirm quotes P | affirm quotes R | dispute quotes P | dispute quotes R |",
        "|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        ps = r["passages"]
        out.append(
            f"| {name} | "
            + " | ".join(
                f"{_iv(ps[s]['precision'])} | {_iv(ps[s]['recall'])}" for s in ("affirm", "dispute")
            )
            + " |"
        )
    out += [
        "",
        "| extractor | novel kept (extractor / labels / both) | novel Jaccard | not_novel kept (extractor / labels / both) "
        "| not_novel Jaccard | swapped | same decision |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        pl = r["papers_level"]
        cells = [
            f"{pl[c]['kept_by_extractor']} / {pl[c]['kept_by_labels']} / {pl[c]['both']} | {_iv(pl[c]['jaccard'])}"
            for c in CLASSES
        ]
        out.append(
            f"| {name} | {' | '.join(cells)} | {sum(pl[c]['swapped'] for c in CLASSES)} | "
            f"{r['same_decision']}/{r['papers']} |"
        )
    return "\n".join(out)
