"""Strip evaluation information from abstracts so judges see the idea, not how well it did.

Two sanitisers, one interface (`sanitise(text) -> Sanitised`): an offline sentence-level rule
pass (default) and an LLM pass (prompt `prompts/mining/sanitise_abstract.txt`) that only chooses
sentence numbers to remove, so it can never add or reword text. The original stays beside the
result (`Idea.original_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judgeaudit.mine.llm import CachedLLM, LLMResponseError

PROMPT = "mining/sanitise_abstract.txt"

# Abstract sentences end at . ! ? followed by a space and an upper-case letter/digit/bracket.
_ABSTRACT_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"“])")
_ABBREV_END = re.compile(r"\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Eq|Sec|approx|resp)\.$", re.IGNORECASE)

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in (
    ("number with a unit of gain", r"\d+(?:\.\d+)?\s?(?:%|percent\b|pp\b|points?\b|×|x\b(?![-\w])|-fold\b|fold\b)|\b(?:two|three|four|five|ten)-?fold\b"),
    ("state-of-the-art claim", r"\b(?:achiev|attain|set|establish|reach|deliver|obtain|yield|surpass|outperform|beat|exceed|match|rival|advanc)\w*\s+(?:[\w-]+\s+){0,4}?(?:state[- ]of[- ]the[- ]art|sota)\b|\b(?:state[- ]of[- ]the[- ]art|sota)\s+(?:[\w-]+\s+){0,2}?(?:performance|results?|accuracy|scores?|quality|on\b)|\bnew (?:state[- ]of[- ]the[- ]art|sota)\b|\bnew records?\b|\bbest[- ]in[- ]class\b|\bleading (?:performance|results)\b"),
    ("reported metric value", r"\b(?:FIDs?|BLEU|ROUGE[-\w]*|F1|AUC|AUROC|mAP|PSNR|SSIM|IoU|mIoU|accuracy|perplexity|top-1|top-5|win[- ]rate|pass@\d+|success[- ]rate|Elo)\b[^.]{0,30}?\d"),
    ("comparison with baselines", r"\b(?:outperform\w*|surpass\w*|beats?|beating|exceed\w*|rival\w*|on par with|matches or exceeds|comparable (?:performance|results) (?:to|with)|superior (?:performance|results|accuracy)|competitive (?:performance|results|accuracy)|better than (?:\w+ ){0,3}(?:baselines?|existing|prior|previous|state|competing|other))\b"),
    ("reported gains", r"\b(?:improv\w+|boost\w*|reduc\w+|increas\w+|gains?|speed\w*[- ]?ups?|accelerat\w+)\b[^.]{0,40}\b(?:by|of|up to|over|upon)\s+(?:up to\s+)?(?:\d|an average|a factor|orders? of magnitude|a large margin|a significant margin|a wide margin|large margins)|\b(?:significant|substantial|consistent|notable|remarkable|considerable|large|dramatic|strong)(?:ly)?\s+(?:\w+\s+)?(?:improv\w+|gains?|outperform\w*|better|boosts?|speed\w*[- ]?ups?|reductions?)\b"),
    ("experiments show", r"\b(?:experiment\w*|empirical(?:ly)?|evaluations?|results|benchmarks?|simulations?|studies|ablations?|tests?)\b[^.]{0,80}\b(?:show|shows|showed|demonstrat\w+|reveal\w*|confirm\w*|indicat\w+|validat\w+|verif\w+|highlight\w*|suggest\w*|prove\w*|establish\w*|exhibit\w*)\b|\b(?:extensive|comprehensive|thorough|systematic)\s+(?:\w+\s+)?(?:experiments?|evaluations?|empirical (?:studies|results|analys[ie]s)|benchmarking)\b|\bwe (?:empirically|experimentally) (?:show|demonstrate|validate|verify|evaluate|find)\b|\b(?:evaluated|tested|validated|benchmarked) (?:\w+ ){0,3}on\b|\b(?:achiev\w+|yield\w*|deliver\w*|obtain\w*|attain\w*|leads? to|results? in)\s+(?:\w+\s+){0,3}?(?:faster|better|higher|lower|improved|superior|stronger|significant|substantial|remarkable|strong|competitive|notable|consistent)\s+(?:\w+\s+){0,2}?(?:convergence|performance|accuracy|results|generali[sz]ation|efficiency|throughput|latency|speed|quality|fidelity|robustness|gains?|improvements?|scores?)\b|\bachiev\w+\s+(?:\w+\s+){0,4}(?:performance|results|accuracy|scores?|gains?|improvements?|speed\w*|success rates?|f1|auc|bleu)\b"),
    ("release statement", r"\b(?:code|data|dataset|models?|implementation|weights|checkpoints|benchmark|project page|source code)\b[^.]{0,60}\b(?:is|are|will be|has been|have been)\s+(?:made\s+)?(?:publicly\s+|freely\s+|openly\s+)?(?:available|released|open[- ]sourced?|accessible)\b|https?://|github\.com|anonymous\.4open|\bwe (?:release|open[- ]source|make (?:\w+ ){0,3}(?:available|public))\b|\bavailable at\b"),
))


_HYPHEN_BREAK = re.compile(r"(\w)-\n([a-z])")


def normalise_layout(text: str) -> str:
    """Undo hard line wrapping (many abstracts are pasted from PDFs): re-join words hyphenated at a
    line end, turn single newlines into spaces, keep blank-line paragraph breaks as one newline."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    out = []
    for p in paragraphs:
        p = _HYPHEN_BREAK.sub(r"\1\2", p.strip())
        out.append(re.sub(r"\s*\n\s*", " ", p))
    return "\n".join(out)


def _split(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for number, paragraph in enumerate(p for p in normalise_layout(text).split("\n") if p.strip()):
        paragraph = paragraph.strip()
        start = 0
        for m in _ABSTRACT_BOUNDARY.finditer(paragraph):
            if _ABBREV_END.search(paragraph[start:m.start()]):
                continue
            if paragraph[start:m.start()].strip():
                out.append((number, paragraph[start:m.start()].strip()))
            start = m.end()
        if paragraph[start:].strip():
            out.append((number, paragraph[start:].strip()))
    return out


def split_abstract(text: str) -> list[str]:
    """Sentences of an abstract (substrings of its `normalise_layout` form, abbreviation-aware)."""
    return [s for _, s in _split(text)]


# A number with a unit of gain is only a result next to a result word ("up to 40% of congestion
# is caused by ..." is motivation); a sentence about existing work without "we/our" is motivation.
_RESULT_WORD = re.compile(r"\b(?:we|our|ours|achiev\w*|improv\w*|outperform\w*|reduc\w*|boost\w*|gains?|speed\w*|accura\w*|surpass\w*|increas\w*|decreas\w*|lower\w*|higher|better|fewer|faster|sav\w+|cuts?|yield\w*|attain\w*|reach\w*)\b", re.IGNORECASE)
_PRIOR_WORK = re.compile(r"\b(?:contemporary|existing|current|prior|previous|conventional|traditional|many|most)\s+(?:[\w-]+\s+){0,2}?(?:methods|algorithms|approaches|models|systems|techniques|works|baselines|solutions|practices|pipelines|benchmarks)\b", re.IGNORECASE)
_OURS = re.compile(r"\b(?:we|our|ours|us|the proposed|this (?:work|paper|method|approach|framework))\b", re.IGNORECASE)


def evaluation_reason(sentence: str) -> str | None:
    """The first rule an abstract sentence trips (it reports evaluation), or None."""
    about_prior_work = bool(_PRIOR_WORK.search(sentence)) and not _OURS.search(sentence)
    for name, pattern in _RULES:
        if not pattern.search(sentence):
            continue
        if name == "release statement":
            return name
        if about_prior_work:
            return None
        if name == "number with a unit of gain" and not _RESULT_WORD.search(sentence):
            continue
        return name
    return None


@dataclass(frozen=True)
class Sanitised:
    """An abstract with evaluation sentences removed, and what was removed and why."""

    text: str
    original: str
    removed: tuple[tuple[str, str], ...] = ()
    error: str | None = None

    @property
    def changed(self) -> bool:
        """True if any sentence was removed."""
        return bool(self.removed)


class Sanitiser(Protocol):
    """Anything that strips evaluation information from an abstract."""

    name: str

    def sanitise(self, text: str) -> Sanitised:
        """The sanitised abstract."""
        ...


def _assemble(text: str, drop: dict[int, str]) -> Sanitised:
    parts = _split(text)
    if len(drop) >= len(parts):
        # Never return an empty idea: keep the opening sentence (it states the problem or idea).
        drop = {i: r for i, r in drop.items() if i != 0}
    paragraphs: dict[int, list[str]] = {}
    for i, (para, sentence) in enumerate(parts):
        if i not in drop:
            paragraphs.setdefault(para, []).append(sentence)
    kept = "\n".join(" ".join(v) for _, v in sorted(paragraphs.items()))
    removed = tuple((parts[i][1], drop[i]) for i in sorted(drop))
    return Sanitised(kept, text, removed)


@dataclass
class RuleSanitiser:
    """Offline sentence-level pass: a sentence tripping any evaluation rule is removed."""

    name: str = "rules"

    def sanitise(self, text: str) -> Sanitised:
        """The abstract without its evaluation sentences (at least one sentence is kept)."""
        drop = {i: r for i, s in enumerate(split_abstract(text)) if (r := evaluation_reason(s)) is not None}
        return _assemble(text, drop)


@dataclass
class LLMSanitiser:
    """LLM pass: the model names sentence numbers to remove; it cannot add or reword text."""

    model: str
    cache_dir: Path
    completion_kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from judgeaudit.resources import read_prompt

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
            if not isinstance(remove, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in remove):
                raise LLMResponseError("answer has no 'remove' list of sentence numbers")
            bad = [i for i in remove if not 1 <= i <= len(sentences)]
            if bad:
                raise LLMResponseError(f"sentence numbers out of range: {bad}")
        except LLMResponseError as exc:
            fallback = RuleSanitiser().sanitise(text)
            return Sanitised(fallback.text, text, fallback.removed, error=str(exc))
        return _assemble(text, {i - 1: "llm" for i in remove})
