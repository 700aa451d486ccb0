"""The audit card's surface-perturbation ratio: computed for score judges, `not_applicable` for LLM judges.

For a judge with a numeric score per idea (`probes.applicability.is_score_judge`), the audit
scores every distinct idea of the audited items (both sides of a pair; the fit and the scored
split alike, since the ratio is a property of the score, not of the fitted verdict rule) with
the same prior-work scorer the judge task uses (the default corpus and embedder of
`judgeaudit.judges.metric_judges`), applies the edits of `judgeaudit.judges.sanity`
(rename_acronym, formatting, comment), and reports median shift / typical same-area
difference with its bootstrap interval over ideas (`judgeaudit.stats.surface_ratio`). Edits
that do not apply to an idea are counted as skipped. LLM judges have no score per idea; the
surface probe (verdict flips under meaning-preserving edits) covers them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judgeaudit.data.contract import Idea, Item, PairItem, PointItem
from judgeaudit.probes.applicability import is_score_judge
from judgeaudit.probes.readings import Figure, Reading

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
        ideas = (item.idea_a, item.idea_b) if isinstance(item, PairItem) else (item.idea,) if isinstance(item, PointItem) else ()
        for idea in ideas:
            key = (idea.idea_id, idea.text)
            if key not in seen:
                seen.add(key)
                out.append(idea)
    return out


def surface_ratio_reading(judge: str, items: Sequence[Item], resamples: int, seed: int) -> tuple[Reading, dict[str, Any]]:
    """(reading for the gates, detail record for the card) of `judge` on the audited items' ideas."""
    if not is_score_judge(judge):
        return Reading(RATIO, "not_applicable", 0, note=LLM_NOTE), {"applies": False, "note": LLM_NOTE}
    from judgeaudit.judges.metric_judges import DEFAULT_CORPUS, DEFAULT_EMBEDDER
    from judgeaudit.judges.sanity import EDITS, scorer_for, surface_sanity

    ideas = audited_ideas(items)
    try:
        result = surface_sanity(scorer_for(judge, DEFAULT_CORPUS, DEFAULT_EMBEDDER), judge, ideas, seed,
                                resamples=resamples)
    except ValueError as exc:
        note = f"not computed on these items: {exc}"
        return Reading(RATIO, "not_run", 0, note=note), {"applies": True, "note": note, "n_ideas": len(ideas)}
    detail = {
        "applies": True, "judge": judge, "corpus": DEFAULT_CORPUS, "embedder": result.embedder,
        "ideas": "every distinct idea of the audited items, fit and scored split alike",
        "n_ideas": result.n_ideas, "n_area_pairs": result.n_area_pairs, "edits_list": list(EDITS),
        "edits_applied": int(sum(e["n"] for e in result.edits.values())), "edits_skipped": result.skipped,
        "typical_difference": result.typical_difference, "median_shift": result.interval.median_shift,
        "ratio": result.interval.to_dict(), "edits": result.edits,
    }
    figure = Figure(FIGURE, LABEL, result.interval)
    return Reading(RATIO, "ok", result.n_ideas, {FIGURE: figure}), detail
