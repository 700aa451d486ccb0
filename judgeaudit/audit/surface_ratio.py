"""The audit card's surface-perturbation ratio: computed for score judges, `not_applicable` for LLM judges.

For a judge with a numeric score per idea (`probes.applicability.is_score_judge`), the audit
scores every distinct idea of the audited items (both sides of a pair; the fit and the scored
split alike, since the ratio is a property of the score, not of the fitted verdict rule) with
the same prior-work scorer the judge task uses (the corpus of `-T retrieval_corpus`, else the
default of `judgeaudit.judges.score.metric`, and its default embedder; checked against the
corpus hash and embedder the judge task recorded in its log), applies the edits of `judgeaudit.audit.surface_sanity`
(rename_acronym, formatting, comment), and reports median shift / typical same-area
difference with its bootstrap interval over ideas (`judgeaudit.stats.surface_ratio`). Edits
that do not apply to an idea are counted as skipped. LLM judges have no score per idea; the
surface probe (verdict flips under meaning-preserving edits) covers them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judgeaudit.audit.applicability import is_score_judge
from judgeaudit.audit.readings import Figure, Reading
from judgeaudit.audit.surface_sanity import EDITS, scorer_for, surface_sanity
from judgeaudit.data.contract import Idea, Item, item_ideas
from judgeaudit.judges.score.metric import DEFAULT_CORPUS, DEFAULT_EMBEDDER

RATIO = "surface_ratio"
FIGURE = "ratio"
LABEL = "median score shift under surface edits / median score difference of two ideas of one area"
LLM_NOTE = ("does not apply: this judge gives no numeric score per idea (an LLM verdict); the surface probe "
            "measures its verdict flips under meaning-preserving edits instead")


def audited_ideas(items: Sequence[Item]) -> list[Idea]:
    """Distinct ideas (by id and text) of the items, in item order."""
    seen: set[tuple[str, str]] = set()
    out: list[Idea] = []
    for item in items:
        for idea in item_ideas(item):
            key = (idea.idea_id, idea.text)
            if key not in seen:
                seen.add(key)
                out.append(idea)
    return out


def judge_prior_work(logs: Sequence[Any]) -> dict[str, Any] | None:
    """What the judge task scored against (`metric_rule.prior_work` of its task metadata), if recorded."""
    for log in logs:
        meta = (getattr(log.eval, "metadata", None) or {}).get("judgeaudit") or {}
        prior = (meta.get("metric_rule") or {}).get("prior_work")
        if prior:
            return dict(prior)
    return None


def _mismatch(scorer: Any, judge_prior: Mapping[str, Any] | None) -> str | None:
    """Why the ratio's scorer is not the judge's (corpus hash or embedder differ), or None."""
    if judge_prior is None or not hasattr(scorer, "describe"):
        return None
    mine = scorer.describe()
    differ = [k for k in ("corpus_sha256", "embedder") if k in judge_prior and judge_prior[k] != mine.get(k)]
    if not differ:
        return None
    return ("not computed: the judge task scored with " + ", ".join(f"{k} {judge_prior[k]!r}" for k in differ)
            + ", the ratio's scorer with " + ", ".join(f"{k} {mine.get(k)!r}" for k in differ))


def _not_run(note: str, n_ideas: int) -> tuple[Reading, dict[str, Any]]:
    return Reading(RATIO, "not_run", 0, note=note), {"applies": True, "note": note, "n_ideas": n_ideas}


def surface_ratio_reading(judge: str, items: Sequence[Item], resamples: int, seed: int,
                          options: Mapping[str, Any] | None = None,
                          judge_prior: Mapping[str, Any] | None = None) -> tuple[Reading, dict[str, Any]]:
    """(reading for the gates, detail record for the card) of `judge` (task `options`) on the audited items' ideas.

    `judge_prior` is what the judge task recorded it scored against (`judge_prior_work`); a
    scorer that differs from it is reported instead of a ratio of some other score.
    """
    options = dict(options or {})
    if not is_score_judge(judge):
        return Reading(RATIO, "not_applicable", 0, note=LLM_NOTE), {"applies": False, "note": LLM_NOTE}

    ideas = audited_ideas(items)
    if options.get("concepts", "keyphrase") != "keyphrase":
        return _not_run(f"not computed for -T concepts={options['concepts']}: that extractor's scores need model "
                        "calls; the ratio is computed for keyphrase concepts only", len(ideas))
    corpus = str(options.get("retrieval_corpus") or DEFAULT_CORPUS)
    try:
        scorer = scorer_for(judge, corpus, DEFAULT_EMBEDDER)
        mismatch = _mismatch(scorer, judge_prior)
        if mismatch:
            return _not_run(mismatch, len(ideas))
        result = surface_sanity(scorer, judge, ideas, seed, resamples=resamples)
    except ValueError as exc:
        return _not_run(f"not computed on these items: {exc}", len(ideas))
    detail = {
        "applies": True, "judge": judge, "corpus": corpus, "embedder": result.embedder,
        "ideas": "every distinct idea of the audited items, fit and scored split alike",
        "n_ideas": result.n_ideas, "n_area_pairs": result.n_area_pairs, "edits_list": list(EDITS),
        "edits_applied": int(sum(e["n"] for e in result.edits.values())), "edits_skipped": result.skipped,
        "typical_difference": result.typical_difference, "median_shift": result.interval.median_shift,
        "ratio": result.interval.to_dict(), "edits": result.edits,
    }
    figure = Figure(FIGURE, LABEL, result.interval)
    return Reading(RATIO, "ok", result.n_ideas, {FIGURE: figure}), detail
