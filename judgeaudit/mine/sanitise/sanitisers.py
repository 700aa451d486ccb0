"""Strip evaluation information from abstracts so judges see the idea, not how well it did.

Two sanitisers, one interface (`sanitise(text) -> Sanitised`): an offline rule pass (default)
and an LLM pass (prompt `prompts/mining/sanitise_abstract.txt`) that only chooses sentence
numbers to remove. The original stays beside the result (`Idea.original_text`).

The rule pass, per sentence, with the detector of `judgeaudit.mine.sanitise.claims`:
1. a sentence with an evaluation claim is cut before its claim clause when what precedes the
   clause is a claim-free statement of at least six words (the longest such head: "We propose X,
   which outperforms Y by 5%." -> "We propose X."), otherwise removed;
2. a descriptive "state-of-the-art X" is rewritten as "leading X" (a mention the rewrite cannot
   turn into a description removes the sentence);
3. the text is repaired so it still reads, each step only after a removal: a kept sentence that
   followed a removed one loses a leading connective that pointed at it ("Second, ...",
   "Moreover, ..."; a connective after a kept sentence stays), ordinals of a broken enumeration
   are dropped, the items of a removed list of findings go with it, a lead-in that points at
   removed findings goes ("Based on our findings, we ..." -> "We ..."), and a sentence is removed
   too when it only announces removed findings ("We report three findings."), refers back to
   removed results ("These gains ..."), qualifies them ("Nevertheless, limitations persist."),
   or opens on a demonstrative whose antecedent was removed ("This enables ..."); a generalising
   "Such X" whose antecedent was removed becomes "X".
Both passes end with the same repair, and never return an empty text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judgeaudit.mine.llm import CachedLLM, LLMResponseError
from judgeaudit.mine.sanitise.abstracts import normalise_layout, split_abstract, split_paragraphs
from judgeaudit.mine.sanitise.claims import describe_without_sota, evaluation_reason, sota_mention
from judgeaudit.resources import read_prompt

__all__ = [
    "LLMSanitiser",
    "RuleSanitiser",
    "Sanitised",
    "Sanitiser",
    "evaluation_reason",
    "normalise_layout",
    "split_abstract",
]

PROMPT = "mining/sanitise_abstract.txt"


@dataclass(frozen=True)
class Sanitised:
    """An abstract with evaluation sentences removed, and what was removed and why."""

    text: str
    original: str
    removed: tuple[tuple[str, str], ...] = ()
    error: str | None = None
    rewritten: tuple[tuple[str, str], ...] = ()  # (original sentence, its rewritten form)

    @property
    def changed(self) -> bool:
        """True if any sentence was removed or rewritten."""
        return bool(self.removed or self.rewritten)


class Sanitiser(Protocol):
    """Anything that strips evaluation information from an abstract."""

    name: str

    def sanitise(self, text: str) -> Sanitised:
        """The sanitised abstract."""
        ...


_CLAIM_CLAUSE = re.compile(
    r",?\s+(?:which|that)\s+(?:\w+\s+)?(?:achiev|outperform|surpass|improv|yield|reduc|deliver|attain|beat|match|set|exceed|lead|result|show|demonstrat)\w*\b"
    r"|,\s+(?:\w+ly\s+)?(?:achieving|outperforming|surpassing|yielding|improving|reducing|delivering|attaining|resulting in|leading to|"
    r"reaching|setting|matching|beating|exceeding|obtaining|showing|demonstrating|with (?:up to|an? (?:average|improvement|gain|speed))|while (?:achieving|outperforming|improving|reducing|using only))\b"
    r"|\s+and\s+(?:\w+\s+)?(?:achieves?|outperforms?|surpass(?:es)?|improves?|yields?|reduces?|delivers?|attains?|sets?|demonstrates?|shows?|exceeds?|matches)\b"
    r"|;\s+|\s+[-—–]+\s+",
    re.IGNORECASE,
)
_CONNECTIVE = re.compile(
    r"^(?:second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth(?:ly)?|finally|lastly|moreover|furthermore|additionally|"
    r"in addition|also|further|besides|consequently|thus|therefore|hence|as a result|notably|importantly|"
    r"specifically|in particular|overall|meanwhile|likewise|similarly|nevertheless|nonetheless|however|yet|still|"
    r"accordingly|in contrast|by contrast|on the other hand|to this end|beyond this|beyond that|next|then)\s*,?\s+",
    re.IGNORECASE,
)
# "Nevertheless, significant limitations persist." right after removed results qualifies those results.
_CONTRASTS = re.compile(
    r"^(?:nevertheless|nonetheless|however|yet|still|but|even so|in contrast|by contrast|on the other hand|"
    r"despite (?:this|these|that))\b",
    re.IGNORECASE,
)
_ORDINAL = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth(?:ly)?|finally|lastly)\s*,\s+",
    re.IGNORECASE,
)
_ANNOUNCES = re.compile(
    r"(?::\s*$)|\b(?:two|three|four|five|six|several|the following|\d+)\s+(?:\w+\s+)?(?:findings|observations|results|insights|"
    r"lessons|conclusions|takeaways|discoveries|key results)\b",
    re.IGNORECASE,
)
_OPENS_FINDINGS = re.compile(
    r":\s*(?:first(?:ly)?\b|\(?(?:i|1)\)|$)|\b(?:two|three|four|five|six|several|\d+)\s+(?:\w+\s+)?(?:findings|observations|"
    r"results|insights|lessons|takeaways|conclusions)\b",
    re.IGNORECASE,
)
_REFERS_BACK = re.compile(
    r"^(?:these|this|such|those|the)\s+(?:\w+\s+)?(?:results|findings|gains|improvements|experiments|evaluations|"
    r"numbers|observations|outcomes|empirical \w+)\b",
    re.IGNORECASE,
)
# "Based on these findings, we ..." after removed findings: the lead-in goes, the sentence stays.
_FINDINGS_LEAD_IN = re.compile(
    r"^(?:based on|building on|guided by|informed by|in light of|motivated by|given|from|with)\s+(?:these|this|such|those|the|our)\s+"
    r"(?:\w+\s+)?(?:results|findings|observations|insights|analys[ie]s|experiments|evaluations|outcomes)\s*,\s+",
    re.IGNORECASE,
)
# A sentence opening on a demonstrative ("Such dataset-centric approaches ...", "This enables ...") points at the
# sentence before it; "this paper/work" points at the paper.
_DEMONSTRATIVE = re.compile(r"^(such|these|those|this)\b\s*", re.IGNORECASE)
_THE_PAPER = re.compile(
    r"^this\s+(?:paper|work|study|article|manuscript|thesis|submission|position paper)\b",
    re.IGNORECASE,
)
_FUNCTION_WORDS = frozenset(
    "a an the of in on for to and or with by as at from is are was were be been has have had can could may might will "
    "would should must do does also often still further thus therefore".split()
)
MIN_HEAD_WORDS = 6


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def trim_claim(sentence: str) -> str | None:
    """The longest claim-free head of a sentence before one of its claim clauses, as a sentence, or None."""
    best = None
    for m in _CLAIM_CLAUSE.finditer(sentence):
        head = sentence[: m.start()].rstrip(" ,;:")
        if (
            len(head.split()) >= MIN_HEAD_WORDS
            and head.count("(") == head.count(")")
            and not _claimed(head)
        ):
            best = head
    return None if best is None else best + "."


def _claimed(sentence: str) -> bool:
    """True if the detector finds evaluation information or a state-of-the-art mention in the sentence."""
    return evaluation_reason(sentence) is not None or sota_mention(sentence)


def repair(
    parts: list[tuple[int, str]], drop: dict[int, str], rewrites: dict[int, str] | None = None
) -> tuple[dict[int, str], dict[int, str]]:
    """Removals (index -> reason) and rewrites (index -> text), extended so the remaining text stays grammatical."""
    drop = dict(drop)
    rewrites = dict(rewrites or {})
    for i in sorted(drop):  # the items of a removed list of findings are findings too
        if not _OPENS_FINDINGS.search(parts[i][1]):
            continue
        j = i + 1
        while (
            j < len(parts)
            and parts[j][0] == parts[i][0]
            and j not in drop
            and _ORDINAL.match(parts[j][1])
        ):
            drop[j] = "item of removed findings"
            j += 1
    ordinals = [i for i, (_, s) in enumerate(parts) if _ORDINAL.match(s)]
    broken = any(i in drop for i in ordinals)
    changed = True
    while changed:  # a removal can orphan the next sentence in turn
        changed = False
        for i, (para, sentence) in enumerate(parts):
            if i in drop:
                continue
            text = rewrites.get(i, sentence)
            after_removal = i > 0 and (i - 1) in drop and parts[i - 1][0] == para
            nxt = i + 1
            rest = [j for j in range(nxt, len(parts)) if parts[j][0] == para and j not in drop]
            if (
                nxt < len(parts)
                and nxt in drop
                and parts[nxt][0] == para
                and _ANNOUNCES.search(text)
                and not any(_ORDINAL.match(parts[j][1]) for j in rest)
            ):
                drop[i] = "announces removed findings"
                changed = True
                continue
            if after_removal and _CONTRASTS.match(text):
                drop[i] = "contrasts with a removed sentence"
                changed = True
                continue
            new = text
            if broken and _ORDINAL.match(text):
                new = _capitalise(_ORDINAL.sub("", new, count=1))
            elif after_removal:
                new = _capitalise(_CONNECTIVE.sub("", new, count=1))
            if any(j in drop for j in range(i)):
                new = _capitalise(_FINDINGS_LEAD_IN.sub("", new, count=1))
            if after_removal and _REFERS_BACK.match(new):
                drop[i] = "refers back to removed results"
                changed = True
                continue
            if after_removal:
                earlier = " ".join(rewrites.get(j, parts[j][1]) for j in range(i) if j not in drop)
                resolved = _resolve_back_reference(new, earlier)
                if resolved is None:
                    drop[i] = "refers back to a removed sentence"
                    changed = True
                    continue
                new = resolved
            if new != text:
                rewrites[i] = new
    return drop, rewrites


def _resolve_back_reference(sentence: str, earlier: str) -> str | None:
    """The sentence if its opening demonstrative still has an antecedent in the earlier kept text; with a
    generalising "Such" dropped ("Such dataset-centric approaches" -> "Dataset-centric approaches"); else None."""
    m = _DEMONSTRATIVE.match(sentence)
    if m is None or _THE_PAPER.match(sentence):
        return sentence
    noun_phrase = [
        w.lower() for w in re.findall(r"[A-Za-z][\w-]*", sentence[m.end() :].split(",")[0])[:3]
    ]
    content = [w for w in noun_phrase if w not in _FUNCTION_WORDS and len(w) > 3]
    seen = earlier.lower()
    if content and any(w[:5] in seen for w in content):
        return sentence
    if m.group(1).lower() == "such" and content:
        return _capitalise(sentence[m.end() :])
    return None


def _assemble(text: str, drop: dict[int, str], rewrites: dict[int, str] | None = None) -> Sanitised:
    parts = split_paragraphs(text)
    drop, rewrites = repair(parts, drop, rewrites)
    if len(drop) >= len(parts):
        # Never return an empty idea: keep the opening sentence (it states the problem or idea).
        drop = {i: r for i, r in drop.items() if i != 0}
    paragraphs: dict[int, list[str]] = {}
    for i, (para, sentence) in enumerate(parts):
        if i not in drop:
            paragraphs.setdefault(para, []).append(rewrites.get(i, sentence))
    kept = "\n".join(" ".join(v) for _, v in sorted(paragraphs.items()))
    removed = tuple((parts[i][1], drop[i]) for i in sorted(drop))
    rewritten = tuple(
        (parts[i][1], rewrites[i])
        for i in sorted(rewrites)
        if i not in drop and rewrites[i] != parts[i][1]
    )
    return Sanitised(kept, text, removed, rewritten=rewritten)


@dataclass
class RuleSanitiser:
    """Offline sentence-level pass: a sentence tripping any evaluation rule is removed."""

    name: str = "rules"

    def sanitise(self, text: str) -> Sanitised:
        """The abstract without its evaluation claims, still grammatical (at least one sentence is kept)."""
        drop: dict[int, str] = {}
        rewrites: dict[int, str] = {}
        for i, sentence in enumerate(split_abstract(text)):
            original = sentence
            reason = evaluation_reason(sentence)
            if reason is not None:
                head = trim_claim(sentence)
                if head is None:
                    drop[i] = reason
                    continue
                sentence = head
            new = describe_without_sota(sentence)
            if sota_mention(new):  # a "state of the art" the rewrite cannot turn into a description
                drop[i] = "state-of-the-art mention"
                continue
            if new != original:
                rewrites[i] = new
        return _assemble(text, drop, rewrites)


@dataclass
class LLMSanitiser:
    """LLM pass: the model names sentence numbers to remove; it cannot add or reword text."""

    model: str
    cache_dir: Path
    completion_kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.llm = CachedLLM(self.model, Path(self.cache_dir), dict(self.completion_kwargs))
        self.template = read_prompt(PROMPT)

    @property
    def name(self) -> str:
        """Sanitiser id as recorded in the manifest."""
        return f"litellm/{self.model}"

    def sanitise(self, text: str) -> Sanitised:
        """The abstract without the sentences the model marks; on a bad answer, the rule pass result with the error noted."""
        sentences = split_abstract(text)
        numbered = "\n".join(f"[{i + 1}] {s}" for i, s in enumerate(sentences))
        try:
            answer = self.llm.complete_json(self.template.replace("{sentences}", numbered))
            remove = answer.get("remove")
            if not isinstance(remove, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in remove
            ):
                raise LLMResponseError("answer has no 'remove' list of sentence numbers")
            bad = [i for i in remove if not 1 <= i <= len(sentences)]
            if bad:
                raise LLMResponseError(f"sentence numbers out of range: {bad}")
        except LLMResponseError as exc:
            fallback = RuleSanitiser().sanitise(text)
            return Sanitised(fallback.text, text, fallback.removed, error=str(exc))
        return _assemble(text, {i - 1: "llm" for i in remove})
