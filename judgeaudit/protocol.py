"""The verdict answer protocol, defined once: what the prompt asks for, what a grammar allows,
what the parser (`judgeaudit.judges.parse`) accepts.

Summary (our wording of the protocol's specification, v2):

- The prompt asks for brief reasoning and then one final line that is exactly
  `Verdict: <option>`. Pairwise options are `A`, `B`, `TIE` when the ideas are labelled
  "Idea A"/"Idea B" (labels `"AB"`), or `1`, `2`, `TIE` when they are labelled "Idea 1"/"Idea 2"
  (labels `"12"`). Pointwise options are `NOVEL` and `NOT NOVEL`.
- Readings: pairwise `a`, `b`, `tie`, `invalid`; pointwise `novel`, `not_novel`, `invalid`.
  `error` (the call failed, there is no answer) is decided before parsing.
- The answer is the model's own text only: lines that repeat the prompt or an idea, and
  `<think>` blocks, are not read. A verdict quoted inside a sentence is a mention, not a verdict;
  a line that is only a verdict (even quoted, backticked or bold) is one.
- A verdict statement commits to one option: a labelled clause (`Verdict`, `Final verdict`,
  `Answer`, `Final answer`, `Decision`, `Choice`, then `:`/`-`/`=`/"is" and the option), its
  common wrappers (markdown, a JSON object with a `verdict`/`answer` key, an XML-style tag), a
  conclusive phrase ("Idea B is more novel", "This idea is not novel") or a bare option as the
  last line.
- One option named by every verdict statement, nothing after the last one reopening the
  question: that option. Anything else is `invalid` with a reason: no statement, statements
  naming different options, a hedge in or after the statement, a self-correction, a refusal,
  a verdict only in an example, quotation or hypothetical, a negated statement only, or an
  option the labels do not offer. The parser refuses rather than guesses.
- Some statements look like a verdict but do not commit to one; each shape is `invalid` with
  its own reason (the vocabulary is in `judgeaudit.judges.parse`, listed in SCORE_SCHEMA.md):
  a hedge on the verdict line, after or before the option (`Verdict: A, I guess`,
  `Verdict: NOVEL (50/50)`, `Verdict: A... or B`, `Verdict: I think B`): "hedge inside the
  verdict statement"; one option per aspect (`Verdict: A for framing, B for method`, an aspect
  list under `Verdict:`): "split verdict"; a degree that withholds the class
  (`Verdict: NOVEL (in part)`, `partly NOT NOVEL`): "verdict withheld by degree"; a yes/no
  that names the other class (`Verdict: No, it is novel.`): "yes/no contradicts the option";
  an option taken back inside its own sentence (`Idea A is more novel - just kidding, Idea B
  is.`, `Verdict: A, no wait, B`): "self-correction within a sentence"; an option only inside
  another word (`Verdict: tie-breaker goes to A`, `Verdict: Novelty unclear`): "option inside
  another word".
- Reopening after the last statement includes a degree on an option (`Verdict: NOVEL` then
  "on reflection it is only partly novel") and, pointwise, a concluding sentence that weighs
  novelty against the option stated ("The idea is novel in X." then "Hence the contribution is an
  incremental refinement rather than a new direction."). Prose that names no option ("an
  incremental refinement rather than a fundamentally new direction") is no statement.
- A retraction inside a sentence makes the whole answer `invalid`, even when a later line
  states the corrected option without doubt. The protocol refuses self-corrections in general,
  and an answer that jokes about its verdict or takes it back mid-sentence has shown that its
  statements are not commitments; reading the later line would mean choosing which of its
  statements to believe, which is a guess.
- Clear answers stay clear: a verdict line followed by a justification that does not hedge
  (`Verdict: A, because it reframes the problem`, `Verdict: NOT NOVEL - it restates known
  work`, a justification naming the other idea), an intensifier (`Verdict: definitely B`), a
  hedge only in the reasoning before a firm final line (also a conclusive phrase there hedged or
  withheld by degree, "the idea is clearly novel but not entirely unprecedented", when the final
  line names the option it leans to), markdown, JSON and tag wrappers of such
  a line, and both label styles.
- Each call records the reading, the parse path (`strict`: the exact final line; `wrapped`: a
  wrapper, labelled clause or phrase; `failed`) and, for `invalid`, the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["pairwise", "pointwise"]
Labels = Literal["AB", "12"]
ParsePath = Literal["strict", "wrapped", "failed"]

KINDS: tuple[str, ...] = ("pairwise", "pointwise")
LABEL_STYLES: tuple[str, ...] = ("AB", "12")
PARSE_PATHS: tuple[str, ...] = ("strict", "wrapped", "failed")
INVALID = "invalid"
# The reading of a call that failed (provider failure, timeout, refused connection, missing model):
# there is no answer to parse. Decided by the judge solver, never by the parser.
ERROR = "error"
VERDICT_LABEL = "Verdict"
# Labels that introduce a verdict statement (any case; the parser also accepts `final` before them).
STATEMENT_LABELS: tuple[str, ...] = ("verdict", "answer", "decision", "choice")


@dataclass(frozen=True)
class Option:
    """One answer option: the reading it stands for and the token the final line writes."""

    reading: str
    token: str


def check_kind(kind: str, labels: str = "AB") -> None:
    """Raise a one-line ValueError for an unknown judge kind or label style."""
    if kind not in KINDS:
        raise ValueError(f"unknown judge kind {kind!r} (expected pairwise or pointwise)")
    if labels not in LABEL_STYLES:
        raise ValueError(f"unknown idea labels {labels!r} (expected 'AB' or '12')")


def options(kind: str, labels: str = "AB") -> tuple[Option, ...]:
    """The options a prompt of this kind and label style offers, in the order it lists them."""
    check_kind(kind, labels)
    if kind == "pointwise":
        return (Option("novel", "NOVEL"), Option("not_novel", "NOT NOVEL"))
    first, second = ("A", "B") if labels == "AB" else ("1", "2")
    return (Option("a", first), Option("b", second), Option("tie", "TIE"))


def readings(kind: str) -> tuple[str, ...]:
    """Every reading of a kind, `invalid` last."""
    return (*(o.reading for o in options(kind)), INVALID)


def idea_names(labels: str = "AB") -> tuple[str, str]:
    """How the prompt names the two ideas of a pair ("Idea A", "Idea B" or "Idea 1", "Idea 2")."""
    check_kind("pairwise", labels)
    return ("Idea A", "Idea B") if labels == "AB" else ("Idea 1", "Idea 2")


def final_line(kind: str, reading: str, labels: str = "AB") -> str:
    """The exact final line that states `reading` (e.g. `Verdict: NOT NOVEL`)."""
    for option in options(kind, labels):
        if option.reading == reading:
            return f"{VERDICT_LABEL}: {option.token}"
    raise ValueError(f"{reading!r} is not a {kind} option")


def final_lines(kind: str, labels: str = "AB") -> tuple[str, ...]:
    """Every exact final line of a kind and label style."""
    return tuple(final_line(kind, o.reading, labels) for o in options(kind, labels))


def _quoted_list(items: tuple[str, ...]) -> str:
    quoted = [f'"{item}"' for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def answer_instruction(kind: str, labels: str = "AB") -> str:
    """The prompt's answer instruction: brief reasoning, then one exact final verdict line."""
    return f"Reason briefly, then end with one final line that is exactly {_quoted_list(final_lines(kind, labels))}."


def grammar_rule(kind: str, labels: str = "AB") -> str:
    """The GBNF rule `verdict ::= ...` allowing exactly the final lines of a kind and label style."""
    tokens = " | ".join(f'"{o.token}"' for o in options(kind, labels))
    return f'verdict ::= "{VERDICT_LABEL}: " ({tokens})'
