"""Re-shape the real ICLR 2026 notes of the small fixture into other venues' review forms (test helper).

Each venue's shape follows its public review form: field names, how scores are written, API v1
(flat content, one `invitation`, `Paper<N>` reply invitations) or v2, where the area lives. The
review texts are the fixture's own; a form with one strengths-and-weaknesses field gets the two
joined by a blank line. Scores are moved onto the venue's scale where it differs (documented per
venue below); `SAME_SCORES` are the forms whose re-shaped scores equal ICLR 2026's, so the labels
must be exactly the ICLR 2026 run's. TMLR reviews carry no score, so a decision note is added to
each reviewed paper (accepted when its mean ICLR 2026 rating is at least 5): the one synthetic
part, since the fixture predates ICLR 2026's decisions.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"
SOURCE = "ICLR.cc/2026/Conference"

VENUES: dict[str, str] = {
    "iclr-2023": "ICLR.cc/2023/Conference",
    "iclr-2024": "ICLR.cc/2024/Conference",
    "iclr-2025": "ICLR.cc/2025/Conference",
    "iclr-2026": "ICLR.cc/2026/Conference",
    "neurips-2023": "NeurIPS.cc/2023/Conference",
    "neurips-2024": "NeurIPS.cc/2024/Conference",
    "neurips-2025": "NeurIPS.cc/2025/Conference",
    "icml-2025": "ICML.cc/2025/Conference",
    "tmlr": "TMLR",
}
SAME_SCORES = ("iclr-2023", "iclr-2024", "iclr-2025", "iclr-2026")
"""Forms whose re-shaped scores equal ICLR 2026's (ICLR's 0-10 rating frame, 1-4 novelty)."""

ICLR_RATING = {
    0: "strong reject",
    1: "strong reject",
    2: "reject",
    3: "reject, not good enough",
    4: "marginally below the acceptance threshold",
    5: "marginally below the acceptance threshold",
    6: "marginally above the acceptance threshold",
    8: "accept, good paper",
    10: "strong accept, should be highlighted at the conference",
}
NEURIPS_RATING = {
    1: "Very Strong Reject",
    2: "Strong Reject",
    3: "Reject",
    4: "Borderline reject",
    5: "Borderline accept",
    6: "Weak Accept",
    7: "Accept",
    8: "Strong Accept",
    9: "Very Strong Accept",
    10: "Award quality",
}
WORD = {1: "poor", 2: "fair", 3: "good", 4: "excellent"}


def fixture_notes() -> list[dict[str, Any]]:
    """The fixture's real ICLR 2026 notes (API v2), in file order."""
    with gzip.open(FIXTURE / "notes-00.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _kind(note: dict[str, Any]) -> str:
    return str((note.get("invitations") or [""])[0]).rsplit("/-/", 1)[-1]


def _v(content: dict[str, Any], key: str) -> Any:
    raw = content.get(key)
    return raw.get("value") if isinstance(raw, dict) else raw


def _renamed(value: Any, venue: str, *, paper: bool = False) -> Any:
    """Venue ids (and, for `paper`, `SubmissionN` -> `PaperN`) replaced throughout strings and lists."""
    if isinstance(value, str):
        out = value.replace(SOURCE, venue)
        return re.sub(r"/Submission(\d)", r"/Paper\1", out) if paper else out
    if isinstance(value, list):
        return [_renamed(v, venue, paper=paper) for v in value]
    if isinstance(value, dict):
        return {k: _renamed(v, venue, paper=paper) for k, v in value.items()}
    return value


def _joined(content: dict[str, Any]) -> str:
    parts = [_v(content, "strengths"), _v(content, "weaknesses")]
    return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())


def _review(content: dict[str, Any], form: str) -> dict[str, Any]:
    """One review's content in `form` (values still unwrapped; wrapped for v2 by the caller)."""
    rating, contribution = _v(content, "rating"), _v(content, "contribution")
    summary, questions = _v(content, "summary"), _v(content, "questions")
    keep = {k: _v(content, k) for k in content}
    if form == "iclr-2024":
        return {
            **keep,
            "rating": f"{rating}: {ICLR_RATING[rating]}",
            "contribution": f"{contribution} {WORD[contribution]}",
            "soundness": f"{keep['soundness']} {WORD[keep['soundness']]}",
            "presentation": f"{keep['presentation']} {WORD[keep['presentation']]}",
        }
    if form in ("iclr-2025", "iclr-2026"):
        return keep
    if form == "iclr-2023":
        return {
            "summary_of_the_paper": summary,
            "strength_and_weaknesses": _joined(content),
            "clarity,_quality,_novelty_and_reproducibility": questions,
            "summary_of_the_review": summary,
            "correctness": "3: Some of the paper's claims have minor issues.",
            "technical_novelty_and_significance": f"{contribution}: contribution {WORD[contribution]}",
            "empirical_novelty_and_significance": "Not applicable",
            "recommendation": f"{rating}: {ICLR_RATING[rating]}",
            "confidence": f"{keep['confidence']}: confident",
        }
    nips_rating = max(1, rating)  # NeurIPS 2023/2024 rate 1-10: ICLR 2026's 0 becomes 1
    if form in ("neurips-2023", "neurips-2024"):
        sep = " " if form == "neurips-2023" else ": "
        return {
            **keep,
            "rating": f"{nips_rating}: {NEURIPS_RATING[nips_rating]}: (re-shaped)",
            "contribution": f"{contribution}{sep}{WORD[contribution]}",
            "soundness": f"{keep['soundness']}{sep}{WORD[keep['soundness']]}",
            "presentation": f"{keep['presentation']}{sep}{WORD[keep['presentation']]}",
            "limitations": "n/a",
        }
    if form == "neurips-2025":  # rating 0-10 -> 1-6 (0, 2, 4, 6, 8, 10 -> 1 ... 6)
        return {
            "summary": summary,
            "strengths_and_weaknesses": _joined(content),
            "quality": keep["soundness"],
            "clarity": keep["presentation"],
            "significance": contribution,
            "originality": contribution,
            "questions": questions,
            "limitations": "n/a",
            "rating": 1 + rating // 2,
            "confidence": keep["confidence"],
        }
    if form == "icml-2025":  # overall recommendation 1-5: round(1 + 0.4 x rating)
        return {
            "summary": summary,
            "claims_and_evidence": questions,
            "relation_to_broader_scientific_literature": "n/a",
            "other_strengths_and_weaknesses": _joined(content),
            "questions_for_authors": questions,
            "overall_recommendation": int(1 + 0.4 * rating + 0.5),
        }
    if form == "tmlr":
        return {
            "summary_of_contributions": summary,
            "strengths_and_weaknesses": _joined(content),
            "requested_changes": questions,
            "broader_impact_concerns": "none",
            "claims_and_evidence": "Yes",
            "audience": "Yes",
        }
    raise ValueError(f"unknown form {form!r}")


def _tmlr_decisions(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Decision note per reviewed paper: accepted when its mean ICLR 2026 rating is at least 5."""
    ratings: dict[str, list[int]] = defaultdict(list)
    numbers = {n["id"]: n.get("number") for n in notes if _kind(n) == "Submission"}
    for n in notes:
        if _kind(n) == "Official_Review":
            ratings[n["forum"]].append(_v(n["content"], "rating"))
    out = []
    for forum, values in sorted(ratings.items()):
        accept = sum(values) / len(values) >= 5
        out.append(
            {
                "id": f"dec{forum}",
                "forum": forum,
                "replyto": forum,
                "invitations": [f"TMLR/Paper{numbers.get(forum)}/-/Decision"],
                "domain": "TMLR",
                "mdate": 1762000000000,
                "content": {"recommendation": {"value": "Accept as is" if accept else "Reject"}},
            }
        )
    return out


def reshape(form: str, notes: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The fixture's notes in `form`'s shape (a key of `VENUES`)."""
    venue = VENUES[form]
    source = fixture_notes() if notes is None else notes
    out: list[dict[str, Any]] = []
    for original in source:
        note = copy.deepcopy(original)
        kind = _kind(note)
        content = note["content"]
        if kind == "Official_Review":
            content = _review(content, form)
            if form == "tmlr":
                note["invitations"] = [
                    i.replace("/-/Official_Review", "/-/Review") for i in note["invitations"]
                ]
        else:
            content = {k: _v(content, k) for k in content}
            if kind == "Submission" and form == "iclr-2023":
                area = content.pop("primary_area", None)
                content["Please_choose_the_closest_area_that_your_submission_falls_into"] = area
            if kind == "Submission" and form in ("neurips-2023", "tmlr"):
                content.pop("primary_area", None)
        paper = form in ("iclr-2023", "tmlr")
        note = _renamed(note, venue, paper=paper)
        content = {k: _renamed(v, venue) for k, v in content.items() if v is not None}
        if form == "iclr-2023":  # API v1: flat content, one invitation, no domain
            invitation = note.pop("invitations")[0]
            if kind == "Submission":
                invitation = invitation.replace("/-/Submission", "/-/Blind_Submission")
            note["invitation"] = invitation
            note.pop("domain", None)
            note.pop("parentInvitations", None)
            note["content"] = content
        else:
            note["content"] = {k: {"value": v} for k, v in content.items()}
        out.append(note)
    if form == "tmlr":
        out += _tmlr_decisions(source)
    return out


def write_snapshot(form: str, directory: Path) -> Path:
    """A snapshot directory (`notes-00.jsonl.gz`) of the fixture re-shaped into `form`."""
    directory.mkdir(parents=True, exist_ok=True)
    with gzip.open(directory / "notes-00.jsonl.gz", "wt", encoding="utf-8") as fh:
        for note in reshape(form):
            fh.write(json.dumps(note) + "\n")
    return directory
