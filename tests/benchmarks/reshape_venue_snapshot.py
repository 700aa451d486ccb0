"""Re-shape an ICLR 2026 snapshot into another venue's review form, to test the venue profiles.

    python tests/benchmarks/reshape_venue_snapshot.py SRC_DIR OUT_DIR --form neurips2025
        [--files 2] [--vary] [--decisions] [--seed 0]
        [--rename OLD=NEW] [--off-scale FIELD:FRACTION] [--bad-format FIELD:FRACTION]

Reads the first `--files` notes-*.jsonl.gz of SRC_DIR (API v2 notes of ICLR 2026, grouped by
forum) and writes OUT_DIR/notes-00.jsonl.gz in the form of one venue and year, written from the
venues' public review forms (not from the miner's profiles):

- iclr2023: API v1 notes (`invitation`, bare content values), `"N: text"` values, one
  `strength_and_weaknesses` field, `technical_novelty_and_significance` /
  `empirical_novelty_and_significance` 1-4 (some "Not applicable"), `recommendation` on
  1/3/5/6/8/10, the area in `Please_choose_the_closest_area_that_your_submission_falls_into`;
- iclr2024: API v2, the ratings kept (0-10 frame) but written `"6: marginally above ..."`,
  soundness/presentation/contribution written `"3 good"` (gives the ICLR 2026 labels unchanged);
- iclr2025: API v2, integers, ratings moved onto 1/3/5/6/8/10;
- iclr2026: the notes unchanged (only the subset and the variations);
- neurips2023 / neurips2024: API v2, `rating` 1-10 (`"6: Weak Accept: ..."`), contribution
  `"3 good"` (2023) / `"3: good"` (2024), no area in 2023;
- neurips2025: API v2, `strengths_and_weaknesses` one field, `quality` / `clarity` /
  `significance` / `originality` 1-4, `rating` 1-6 (integers; the linear image of 0-10, so the
  study's mapped cuts select the same papers);
- icml2025: API v2, `other_strengths_and_weaknesses`, `overall_recommendation` 1-5, no novelty
  score;
- tmlr: venue `TMLR`, `Review` invitation, `strengths_and_weaknesses`, no score; decisions
  (`recommendation`) drawn from the ICLR ratings (always written: TMLR keeps them).

`--vary` adds what a real snapshot varies: ~3% of string scores written in the form's other
spelling (`"3: good"` vs `"3 good"`) or as integers, optional fields dropped, ~1% of reviews with
empty text. `--decisions` adds a Decision note per non-withdrawn forum (from the mean rating) and
sets the submission's venueid as the venue does after decisions. `--rename`, `--off-scale`,
`--bad-format` plant form mismatches in the review fields (after re-shaping). Prints the counts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.venue_forms import ICLR_RATING as ICLR_RATING_TEXT  # noqa: E402

QUALITY_TEXT = {1: "poor", 2: "fair", 3: "good", 4: "excellent"}
ICLR23_NOVELTY_TEXT = {
    1: "The contributions are neither significant nor novel.",
    2: "The contributions are only marginally significant or novel.",
    3: "The contributions are significant and somewhat new. Aspects of the contributions exist in prior work.",
    4: "The contributions are significant, and do not exist in prior works.",
}
NEURIPS_RATING_TEXT = {
    1: "Very Strong Reject: For instance, a paper with trivial results or unaddressed ethical considerations",
    2: "Strong Reject: For instance, a paper with major technical flaws",
    3: "Reject: For instance, a paper with technical flaws, weak evaluation, inadequate reproducibility",
    4: "Borderline reject: Technically solid paper where reasons to reject outweigh reasons to accept",
    5: "Borderline accept: Technically solid paper where reasons to accept outweigh reasons to reject",
    6: "Weak Accept: Technically solid, moderate-to-high impact paper",
    7: "Accept: Technically solid paper, with high impact on at least one sub-area of AI",
    8: "Strong Accept: Technically strong paper with, with novel ideas",
    9: "Very Strong Accept: Technically flawless paper with groundbreaking impact",
    10: "Award quality: Technically flawless paper with groundbreaking impact",
}
# ICLR 2026 rating (0, 2, 4, 6, 8, 10) -> the target scale
TO_ICLR_OLD = {0: 1, 2: 3, 4: 5, 6: 6, 8: 8, 10: 10}
TO_NEURIPS10 = {0: 1, 2: 3, 4: 4, 6: 6, 8: 7, 10: 9}
TO_ICML5 = {0: 1, 2: 1, 4: 2, 6: 3, 8: 4, 10: 5}

VENUE = {
    "iclr2023": "ICLR.cc/2023/Conference",
    "iclr2024": "ICLR.cc/2024/Conference",
    "iclr2025": "ICLR.cc/2025/Conference",
    "iclr2026": "ICLR.cc/2026/Conference",
    "neurips2023": "NeurIPS.cc/2023/Conference",
    "neurips2024": "NeurIPS.cc/2024/Conference",
    "neurips2025": "NeurIPS.cc/2025/Conference",
    "icml2025": "ICML.cc/2025/Conference",
    "tmlr": "TMLR",
}
# the integer scores of the forms that write them as integers (--vary writes a few as strings)
INT_FORMS = {
    "iclr2025": ("rating", "contribution", "soundness", "presentation"),
    "iclr2026": ("rating", "contribution", "soundness", "presentation"),
    "neurips2025": ("rating", "originality", "quality", "clarity", "significance"),
    "icml2025": ("overall_recommendation",),
}
OPTIONAL = ("questions", "confidence", "limitations", "flag_for_ethics_review", "summary")


def read_forums(src: Path, files: int) -> Iterator[list[dict[str, Any]]]:
    """Yield each forum's notes (the submission first) from the first `files` snapshot files."""
    latest: dict[str, dict[str, Any]] = {}  # the snapshot repeats a few notes: keep the latest
    for path in sorted(src.glob("notes-*.jsonl.gz"))[:files]:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                note = json.loads(line)
                old = latest.get(note["id"])
                if old is None or note.get("mdate", 0) >= old.get("mdate", 0):
                    latest[note["id"]] = note
    forum: list[dict[str, Any]] = []
    for note in latest.values():
        if note["invitations"][0].endswith("/-/Submission"):
            if forum:
                yield forum
            forum = [note]
        elif forum:
            forum.append(note)
    if forum:
        yield forum


def kind(note: dict[str, Any]) -> str:
    """The invitation's last part (Submission, Official_Review, ...)."""
    return str(note["invitations"][0].rsplit("/-/", 1)[1])


def plain(note: dict[str, Any]) -> dict[str, Any]:
    """The note's content with the {"value": ...} wrappers removed."""
    return {k: v.get("value") if isinstance(v, dict) else v for k, v in note["content"].items()}


class Shaper:
    """Re-shapes one forum at a time into the target form."""

    def __init__(self, form: str, vary: bool, decisions: bool, seed: int) -> None:
        self.form, self.vary, self.decisions = form, vary, decisions
        self.venue = VENUE[form]
        self.rng = random.Random(seed)
        self.counts: Counter[str] = Counter()

    def inv(self, number: int, name: str) -> str:
        """An invitation of this venue (per-paper when number > 0)."""
        if self.form == "tmlr":
            return f"TMLR/Paper{number}/-/{name}" if number else f"TMLR/-/{name}"
        paper = "Paper" if self.form == "iclr2023" else "Submission"
        return f"{self.venue}/{paper}{number}/-/{name}" if number else f"{self.venue}/-/{name}"

    def alt(self, value: Any, n: int, style: str) -> Any:
        """With --vary, ~3% of string scores in another spelling (or an int)."""
        if not self.vary or self.rng.random() > 0.03:
            return value
        self.counts["varied score spelling"] += 1
        if isinstance(value, int):
            return f"{value}"
        choice = self.rng.choice(["int", "other"])
        if choice == "int":
            return n
        return value.replace(": ", " ", 1) if style == "colon" else value.replace(" ", ": ", 1)

    def review(self, c: dict[str, Any]) -> dict[str, Any]:
        """A review's content in the target form (bare values)."""
        f = self.form
        r, con = int(c.get("rating", 4)), c.get("contribution")
        s, w = c.get("strengths", ""), c.get("weaknesses", "")
        out: dict[str, Any] = {}
        if f == "iclr2026":
            out = dict(c)
        elif f in ("iclr2023",):
            r2 = TO_ICLR_OLD[r]
            out["summary_of_the_paper"] = c.get("summary", "")
            out["strength_and_weaknesses"] = f"Strength:\n{s}\n\nWeaknesses:\n{w}"
            out["clarity,_quality,_novelty_and_reproducibility"] = c.get("questions", "")
            out["summary_of_the_review"] = c.get("summary", "")
            out["correctness"] = f"{c.get('soundness', 3)}: Some claims have minor issues."
            if con is not None:
                out["technical_novelty_and_significance"] = self.alt(
                    f"{con}: {ICLR23_NOVELTY_TEXT[con]}", con, "colon"
                )
                out["empirical_novelty_and_significance"] = (
                    "Not applicable"
                    if self.rng.random() < 0.1
                    else f"{con}: {ICLR23_NOVELTY_TEXT[con]}"
                )
            out["flag_for_ethics_review"] = ["NO."]
            out["recommendation"] = self.alt(f"{r2}: {ICLR_RATING_TEXT[r2]}", r2, "colon")
            out["confidence"] = f"{c.get('confidence', 3)}: You are fairly confident."
        elif f == "iclr2024":
            for k in ("summary", "strengths", "weaknesses", "questions", "flag_for_ethics_review"):
                if k in c:
                    out[k] = c[k]
            for k in ("soundness", "presentation", "contribution"):
                if c.get(k) is not None:
                    out[k] = self.alt(f"{c[k]} {QUALITY_TEXT[c[k]]}", c[k], "space")
            out["rating"] = self.alt(f"{r}: {ICLR_RATING_TEXT[r]}", r, "colon")
            out["confidence"] = f"{c.get('confidence', 3)}: You are fairly confident."
            out["code_of_conduct"] = "Yes"
        elif f == "iclr2025":
            out = dict(c)
            out["rating"] = TO_ICLR_OLD[r]
        elif f in ("neurips2023", "neurips2024"):
            style = "space" if f == "neurips2023" else "colon"
            sep = " " if style == "space" else ": "
            for k in ("summary", "strengths", "weaknesses", "questions"):
                if k in c:
                    out[k] = c[k]
            for k in ("soundness", "presentation", "contribution"):
                if c.get(k) is not None:
                    out[k] = self.alt(f"{c[k]}{sep}{QUALITY_TEXT[c[k]]}", c[k], style)
            out["limitations"] = "Adequately addressed."
            out["flag_for_ethics_review"] = ["No ethics review needed."]
            r2 = TO_NEURIPS10[r]
            out["rating"] = self.alt(f"{r2}: {NEURIPS_RATING_TEXT[r2]}", r2, "colon")
            out["confidence"] = f"{c.get('confidence', 3)}: You are fairly confident."
            out["code_of_conduct"] = "Yes"
        elif f == "neurips2025":
            out["summary"] = c.get("summary", "")
            out["strengths_and_weaknesses"] = f"**Strengths**\n{s}\n\n**Weaknesses**\n{w}"
            out["quality"] = c.get("soundness")
            out["clarity"] = c.get("presentation")
            out["significance"] = con
            out["originality"] = con
            out["questions"] = c.get("questions", "")
            out["limitations"] = "yes"
            out["rating"] = 1 + r // 2
            out["confidence"] = c.get("confidence", 3)
            out["ethical_concerns"] = "NO or VERY MINOR ethics concerns only"
            out["paper_formatting_concerns"] = "None"
            out["code_of_conduct_acknowledgement"] = "Yes"
            out["responsible_reviewing_acknowledgement"] = "Yes"
            out = {k: v for k, v in out.items() if v is not None}
        elif f == "icml2025":
            out["summary"] = c.get("summary", "")
            out["claims_and_evidence"] = "Mostly supported."
            out["methods_and_evaluation_criteria"] = "Appropriate."
            out["relation_to_broader_scientific_literature"] = "Discussed."
            out["other_strengths_and_weaknesses"] = f"Strengths:\n{s}\n\nWeaknesses:\n{w}"
            out["questions_for_authors"] = c.get("questions", "")
            out["overall_recommendation"] = TO_ICML5[r]
            out["ethical_review_flag"] = "No"
            out["code_of_conduct"] = "Affirmed."
        elif f == "tmlr":
            out["summary_of_contributions"] = c.get("summary", "")
            out["strengths_and_weaknesses"] = f"Strengths:\n{s}\n\nWeaknesses:\n{w}"
            out["requested_changes"] = c.get("questions", "")
            out["broader_impact_concerns"] = "None."
            out["claims_and_evidence"] = "Yes" if r >= 4 else "No"
            out["audience"] = "Yes"
        if self.vary and f in INT_FORMS:
            for k in INT_FORMS[f]:
                if isinstance(out.get(k), int):
                    out[k] = self.alt(out[k], out[k], "int")
        if self.vary:
            for k in OPTIONAL:
                if k in out and self.rng.random() < 0.05:
                    del out[k]
                    self.counts[f"optional field dropped ({k})"] += 1
            if self.rng.random() < 0.01:
                for k in (
                    "strengths",
                    "weaknesses",
                    "strengths_and_weaknesses",
                    "strength_and_weaknesses",
                    "other_strengths_and_weaknesses",
                ):
                    if k in out:
                        out[k] = ""
                self.counts["reviews with empty text"] += 1
        return out

    def decision(self, ratings: list[int]) -> tuple[str, bool]:
        """A decision drawn from the mean ICLR 2026 rating: (text, accepted)."""
        mean = sum(ratings) / len(ratings) if ratings else 0.0
        accepted = mean >= 5.5 or (mean >= 4.5 and self.rng.random() < 0.3)
        if self.form == "tmlr":
            return ("Accept as is" if accepted else "Reject"), accepted
        if self.form == "iclr2023":
            return ("Accept: poster" if accepted else "Reject"), accepted
        return ("Accept (poster)" if accepted else "Reject"), accepted

    def submission(self, sub: dict[str, Any], accepted: bool | None) -> dict[str, Any]:
        """The submission's content in the target form."""
        c = plain(sub)
        withdrawn = str(c.get("venueid", "")).endswith("Withdrawn_Submission")
        area = c.pop("primary_area", None)
        if self.form == "iclr2023" and area is not None:
            c["Please_choose_the_closest_area_that_your_submission_falls_into"] = area
        elif self.form not in ("neurips2023", "tmlr") and area is not None:
            c["primary_area"] = area
        v = self.venue
        if withdrawn:
            c["venueid"] = f"{v}/Withdrawn_Submission"
            c["venue"] = f"{self.form} withdrawn submission"
        elif accepted is None:
            c["venueid"] = f"{v}/Submission"
        else:
            rejected = "TMLR/Rejected" if self.form == "tmlr" else f"{v}/Rejected_Submission"
            c["venueid"] = v if accepted else rejected
        return c

    def note(
        self, src: dict[str, Any], number: int, name: str, content: dict[str, Any], nid: str
    ) -> dict[str, Any]:
        """A note of the target API version."""
        forum = src["forum"]
        base = {"id": nid, "forum": forum, "number": src.get("number", number)}
        for k in ("cdate", "mdate", "tcdate", "tmdate"):
            if k in src:
                base[k] = src[k]
        if src.get("replyto"):
            base["replyto"] = src["replyto"]
        if self.form == "iclr2023":
            sig = [s.replace("ICLR.cc/2026", "ICLR.cc/2023") for s in src.get("signatures", [])]
            base.update(
                invitation=self.inv(number, name),
                content=content,
                signatures=[s.replace("Submission", "Paper") for s in sig],
                readers=["everyone"],
                writers=[],
                nonreaders=[],
                original=None,
                ddate=None,
            )
            return base
        base.update(
            invitations=[self.inv(number, name)],
            domain=self.venue,
            readers=["everyone"],
            content={k: {"value": v} for k, v in content.items()},
            signatures=[
                s.replace("ICLR.cc/2026/Conference", self.venue) for s in src.get("signatures", [])
            ],
            license="CC BY 4.0",
            version=2,
        )
        return base

    def forum(self, notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One forum's notes in the target form."""
        sub, replies = notes[0], notes[1:]
        number = int(sub.get("number", 0))
        reviews = [n for n in replies if kind(n) == "Official_Review"]
        withdrawn = any(kind(n) == "Withdrawal" for n in replies) or str(
            plain(sub).get("venueid", "")
        ).endswith("Withdrawn_Submission")
        ratings = [int(plain(n)["rating"]) for n in reviews if plain(n).get("rating") is not None]
        decided = (self.decisions or self.form == "tmlr") and not withdrawn
        dec_text, accepted = self.decision(ratings) if decided else ("", None)
        sub_name = "Blind_Submission" if self.form == "iclr2023" else "Submission"
        out = [self.note(sub, 0, sub_name, self.submission(sub, accepted), sub["id"])]
        self.counts["submissions"] += 1
        self.counts["withdrawn"] += withdrawn
        review_name = "Review" if self.form == "tmlr" else "Official_Review"
        for n in replies:
            k = kind(n)
            if k == "Official_Review":
                out.append(self.note(n, number, review_name, self.review(plain(n)), n["id"]))
                self.counts["reviews"] += 1
            elif k in ("Withdrawal", "Official_Comment"):
                out.append(self.note(n, number, k, plain(n), n["id"]))
        if decided:
            field = "recommendation" if self.form == "tmlr" else "decision"
            dnote = {"forum": sub["id"], "replyto": sub["id"], "cdate": sub.get("cdate")}
            dnote["signatures"] = [f"{self.venue}/Program_Chairs"]
            out.append(self.note(dnote, number, "Decision", {field: dec_text}, sub["id"] + "_d"))
            self.counts[f"decision: {dec_text}"] += 1
        return out


def plant(
    notes: list[dict[str, Any]], args: argparse.Namespace, rng: random.Random
) -> Counter[str]:
    """Plant the requested mismatches into the review notes (in place)."""
    counts: Counter[str] = Counter()
    for note in notes:
        inv = note.get("invitation") or note.get("invitations", [""])[0]
        if not (inv.endswith("/-/Official_Review") or inv.endswith("/-/Review")):
            continue
        content = note["content"]
        wrapped = "invitations" in note
        for spec in args.rename:
            old, new = spec.split("=", 1)
            if old in content:
                content[new] = content.pop(old)
                counts[f"renamed {old} -> {new}"] += 1
        for spec, how in [(s, "off") for s in args.off_scale] + [
            (s, "bad") for s in args.bad_format
        ]:
            field, frac = spec.split(":")
            if field not in content or rng.random() >= float(frac):
                continue
            value = content[field]["value"] if wrapped else content[field]
            num = int(str(value).split(":")[0].split(" ")[0])
            if how == "off":
                new_value: Any = (
                    num + 20 if isinstance(value, int) else f"{num + 20}: off the scale"
                )
            else:
                new_value = f"{num}/10" if isinstance(value, int) else f"score {value}"
            if wrapped:
                content[field]["value"] = new_value
            else:
                content[field] = new_value
            counts[f"{how} {field}"] += 1
    return counts


def main() -> int:
    """Re-shape and write."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--form", choices=sorted(VENUE), required=True)
    ap.add_argument("--files", type=int, default=2)
    ap.add_argument("--vary", action="store_true")
    ap.add_argument("--decisions", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rename", action="append", default=[])
    ap.add_argument("--off-scale", action="append", default=[])
    ap.add_argument("--bad-format", action="append", default=[])
    args = ap.parse_args()
    shaper = Shaper(args.form, args.vary, args.decisions, args.seed)
    notes = [n for forum in read_forums(args.src, args.files) for n in shaper.forum(forum)]
    counts = shaper.counts + plant(notes, args, random.Random(args.seed + 1))
    args.out.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out / "notes-00.jsonl.gz", "wt", encoding="utf-8") as fh:
        for note in notes:
            fh.write(json.dumps(note) + "\n")
    print(f"{args.form} ({VENUE[args.form]}) -> {args.out}: {len(notes)} notes")
    for key, n in sorted(counts.items()):
        print(f"  {key}: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
