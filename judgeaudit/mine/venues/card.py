"""The dataset card's account of the venue: its profile, the cuts on its scales, the form check, and the
score-based labels' agreement with the text-based ones (rendered from the manifest's venue record)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgeaudit.mine.venues.form import MOST, TOLERANCE

CUT_NAMES = {
    "novel_min_rating": "`novel` rating floor",
    "not_novel_max_rating": "`not_novel` rating ceiling",
    "novel_min_contribution": "`novel` novelty-score floor",
    "not_novel_max_contribution": "`not_novel` novelty-score ceiling",
}


def _g(x: Any) -> str:
    return "none" if x is None else f"{x:g}"


def _score_text(score: Mapping[str, Any] | None, what: str) -> str:
    if score is None:
        return f"none (the form has no {what})"
    missing = (
        f"; no score: {', '.join(repr(m) for m in score['missing'])}" if score["missing"] else ""
    )
    fields = " + ".join(f"`{f}`" for f in score["fields"])
    many = (
        " (a review's score is the mean of the ones it fills)" if len(score["fields"]) > 1 else ""
    )
    formats = ", ".join(f"`{f}`" for f in score["formats"])
    return f"{fields}{many}, scale [{_g(score['scale'][0])}, {_g(score['scale'][1])}], written as {formats}{missing}"


def cut_value(venue: Mapping[str, Any] | None, key: str, study: Any) -> str:
    """A cut as the selection applied it: on the venue's scale (with the study's value when they differ)."""
    if venue is None:
        return _g(study)
    side = venue["cuts"]["rating" if "rating" in key else "novelty"]
    if side["skipped"]:
        return "skipped (the form has no such score)"
    cut = side["cuts"][key]
    if cut["venue"] == cut["reference"]:
        return _g(cut["venue"])
    return f"{_g(cut['venue'])} (the study's {_g(cut['reference'])} mapped)"


def cuts_table(venue: Mapping[str, Any]) -> str:
    """Each absolute cut on the reference scale and on the venue's (or skipped)."""
    rows = []
    for side in ("rating", "novelty"):
        record = venue["cuts"][side]
        ref = record["reference_scale"]
        if record["skipped"]:
            keys = [k for k in CUT_NAMES if (side == "rating") == ("rating" in k)]
            rows += [
                f"| {CUT_NAMES[k]} | {_g(ref[0])}-{_g(ref[1])} | skipped: the form has no "
                f"{'rating' if side == 'rating' else 'novelty-related score'} | |"
                for k in keys
            ]
            continue
        scale = record["scale"]
        for key, cut in record["cuts"].items():
            rows.append(
                f"| {CUT_NAMES[key]} | {_g(cut['reference'])} on {_g(ref[0])}-{_g(ref[1])} | "
                f"{_g(cut['venue'])} on {_g(scale[0])}-{_g(scale[1])} | {' + '.join(record['fields'])} |"
            )
    return (
        "| cut | study (reference scale) | this venue | field |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )


def agreement_text(agreement: Mapping[str, Any] | None, gold: str) -> str:
    """The score-based labels against the text-based ones on the same candidates, or ''."""
    if agreement is None:
        return ""
    kappa = agreement["cohen_kappa"]
    kappa_text = (
        "undefined (fewer than two candidates, or one outcome only)"
        if kappa is None
        else f"{kappa['estimate']:.3f} [{kappa['low']:.3f}, {kappa['high']:.3f}] "
        f"({kappa['confidence']:.0%} {kappa['method']} interval, {kappa['resamples']} resamples, "
        f"seed {kappa['seed']})"
    )
    rows = "\n".join(f"| {k} | {n} |" for k, n in agreement["table"].items())
    this = "scores" if gold == "scores" else "signals"
    return f"""
**Originality scores against the text.** The form scores originality directly, so the labels can also
come from it (`--gold-labels scores`; this set's labels come from the {this}): a review affirms when its
originality score is at or above the novelty floor and disputes when it is at or below the ceiling
(both on the venue's scale, above), and the rest of the rule is unchanged. On the same
{agreement["candidates"]} candidates the two agree on {agreement["same_outcome"]} outcomes (novel, not_novel or
not labelled); {agreement["statistic"]}: {kappa_text}.

| text-based / score-based | candidates |
|---|---|
{rows}
"""


def venue_text(venue: Mapping[str, Any] | None) -> str:
    """The card section on the venue's review form and how the study's rule reads it."""
    if venue is None:
        return "Not recorded (a set mined before venue profiles).\n"
    prof = venue["profile"]
    inv = prof["invitations"]
    text = prof["text"]
    if len(text) == 1:
        reading = (
            f"the one field `{text[0]}`, which holds both strengths and weaknesses: the extractor reads its whole "
            "text, and an empty field gives no signal (as an empty strengths or weaknesses field does on "
            "ICLR 2026's form)"
        )
    else:
        reading = f"the fields {', '.join(f'`{t}`' for t in text)} (a review with any of them empty gives no signal)"
    area = (
        f"the submission field {' or '.join(f'`{a}`' for a in prof['area'])} (the first it fills)"
        if prof["area"]
        else "none on this form: every submission is in one area"
    )
    findings = venue["form_check"]["findings"]
    found = ", ".join(f"{k} ({n})" for k, n in findings.items()) or "none"
    others = {v: n for v, n in venue["form_check"].get("venues", {}).items() if v != prof["venue"]}
    if others:
        found += (
            ". Submissions whose invitation names another venue than the profile's: "
            + ", ".join(f"{v or '(none)'} ({n})" for v, n in others.items())
        )
    return f"""\
Venue `{venue["venue"]}`, read with the profile **{prof["name"]}** (`{prof["source"]}`, OpenReview API
v{prof["api"]}). Official reviews: invitation `.../-/{inv["review"]}`; submissions `.../-/{inv["submission"]}`;
decisions `.../-/{inv["decision"]}` (field `{prof["decision"]["field"]}`) or the submission's venue fields.
Signals are read from {reading}. Rating: {_score_text(prof["rating"], "rating")}. Novelty-related
score: {_score_text(prof["novelty"], "novelty-related score")}. Area: {area}.

**The study's cuts on this venue's scales.** The rating deciles are per-area percentiles (scale-free). The
absolute cuts are written on ICLR 2026's scales and mapped by one rule: {venue["cuts"]["rule"]}. A cut the
form has no score for is skipped; without a rating, the deciles and rating cuts are skipped too and a
paper's side comes from its decision.

{cuts_table(venue)}
**Form check.** Before the selection, the {venue["form_check"]["reviews"]} official reviews and
{venue["form_check"]["submissions"]} submissions read were checked against the profile (a named field
absent from more than {MOST:.0%} of them, or more than {TOLERANCE:.0%} of a score's values in an undeclared format or
off its scale, stops the run). Findings, each below those shares (such a review is a counted skip, or
its value reads as missing): {found}.
{agreement_text(venue["originality_agreement"], venue["gold_labels"])}"""
