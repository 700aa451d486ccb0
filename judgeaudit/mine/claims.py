"""The evaluation-claim detector: does an abstract sentence report how well the work did?

Evaluation information is what a novelty judge must not see: reported results and benchmark
numbers, comparisons with baselines or the state of the art, claims of state-of-the-art, and
"experiments show" statements (plus code-release notes). `evaluation_reason` names the first
rule a sentence trips; `sota_mention` finds a descriptive "state-of-the-art" (an adjective for
other work, which the sanitiser rewrites); `evaluation_claims` checks a whole abstract and is what
the bundled sets are tested with. Its own labelled cases are in tests/mine/test_claims.py.
"""

from __future__ import annotations

import functools
import re

from judgeaudit.mine.abstracts import split_abstract

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in (
    ("number with a unit of gain", r"\d\$?\s?(?:\\%|\$?\\times\b|\\times)|\d+(?:\.\d+)?\s?(?:%|percent\b|pp\b|points?\b|×|x\b(?![-\w])|-fold\b|fold\b)|\b(?:two|three|four|five|ten)-?fold\b"),
    ("state-of-the-art claim", r"\b(?:the|a|new)\s+(?:state[- ]of[- ]the[- ]art|sota)\b(?!\s+[a-z])|\b(?:compared (?:to|with)|relative to|versus|vs\.?|over|than|against|beyond|advanc\w*|push\w*|improv\w*(?: upon| on)?)\s+(?:the\s+)?(?:current\s+|existing\s+|prior\s+)?(?:state[- ]of[- ]the[- ]art|sota)\b|\b(?:achiev|attain|set|establish|reach|deliver|obtain|yield|surpass|outperform|beat|exceed|match|rival|advanc)\w*\s+(?:[\w-]+\s+){0,4}?(?:state[- ]of[- ]the[- ]art|sota)\b|\b(?:state[- ]of[- ]the[- ]art|sota)\s+(?:[\w-]+\s+){0,2}?(?:performance|results?|accuracy|scores?|quality|on\b)|\bnew (?:state[- ]of[- ]the[- ]art|sota)\b|\bnew records?\b|\bbest[- ]in[- ]class\b|\bleading (?:performance|results)\b"),
    ("reported metric value", r"\b(?:FIDs?|BLEU|ROUGE[-\w]*|F1|AUC|AUROC|mAP|PSNR|SSIM|IoU|mIoU|accuracy|perplexity|top-1|top-5|win[- ]rate|pass@\d+|success[- ]rate|Elo)\b[^.]{0,30}?\d"),
    ("comparison with baselines", r"\b(?:match(?:es|ing)?|rival(?:s|ing)?|approach(?:es|ing)?|exceed(?:s|ing)?|close[sd]?) (?:the )?(?:\w+ )?performance (?:of|to)\b|\b(?:outperform\w*|surpass\w*|beats?|beating|exceed\w*|rival\w*|on par with|matches or exceeds|comparable (?:performance|results) (?:to|with)|superior (?:performance|results|accuracy)|competitive (?:performance|results|accuracy)|better than (?:\w+ ){0,3}(?:baselines?|existing|prior|previous|state|competing|other))\b"),
    ("reported gains", r"\b(?:improv\w+|boost\w*|reduc\w+|increas\w+|gains?|speed\w*[- ]?ups?|accelerat\w+)\b[^.]{0,40}\b(?:by|of|up to|over|upon)\s+(?:up to\s+)?(?:\$?\d|an average|a factor|orders? of magnitude|a large margin|a significant margin|a wide margin|large margins)|\b(?:significant|substantial|consistent|notable|remarkable|considerable|large|dramatic|strong)(?:ly)?\s+(?:\w+\s+)?(?:improv\w+|gains?|outperform\w*|better|boosts?|speed\w*[- ]?ups?|reductions?)\b"),
    ("experiments show", r"\b(?:experiment\w*|empirical(?:ly)?|evaluations?|results|benchmarks?|simulations?|studies|ablations?|tests?)\b[^.]{0,80}\b(?:show|shows|showed|demonstrat\w+|reveal\w*|confirm\w*|indicat\w+|validat\w+|verif\w+|highlight\w*|suggest\w*|prove\w*|establish\w*|exhibit\w*)\b|\b(?:extensive|comprehensive|thorough|systematic)\s+(?:\w+\s+)?(?:experiments?|evaluations?|empirical (?:studies|results|analys[ie]s)|benchmarking)\b|\bwe (?:empirically|experimentally) (?:show|demonstrate|validate|verify|evaluate|find)\b|\b(?:evaluated|tested|validated|benchmarked) (?:\w+ ){0,3}on\b|\b(?:achiev\w+|yield\w*|deliver\w*|obtain\w*|attain\w*|leads? to|results? in)\s+(?:\w+\s+){0,3}?(?:faster|better|higher|lower|improved|superior|stronger|significant|substantial|remarkable|strong|competitive|notable|consistent)\s+(?:\w+\s+){0,2}?(?:convergence|performance|accuracy|results|generali[sz]ation|efficiency|throughput|latency|speed|quality|fidelity|robustness|gains?|improvements?|scores?)\b|\bachiev\w+\s+(?:\w+\s+){0,4}(?:performance|results|accuracy|scores?|gains?|improvements?|speed\w*|success rates?|f1|auc|bleu)\b"),
    ("evaluation setup", r"\b(?:we|is|are|was|were|been)\s+(?:\w+\s+)?(?:evaluat\w*|test\w*|validat\w*|assess\w*|benchmark\w*|compar\w*)\b[^.]{0,80}?\b(?:on|across|against|over|using|with)\s+(?:\w+[\s-]+){0,4}?(?:datasets?|benchmarks?|baselines?|tasks|attacks|domains|environments|suites?|corpora|testbeds?)\b|^\W*evaluated (?:on|across|against)\b|\b(?:evaluated|tested|validated) (?:on|across|against) (?:\w+ ){0,3}(?:datasets?|benchmarks?|tasks|domains|environments|problems|instances)\b"),
    ("release statement", r"\b(?:code|data|dataset|models?|implementation|weights|checkpoints|benchmark|project page|source code)\b[^.]{0,60}\b(?:is|are|will be|has been|have been)\s+(?:made\s+)?(?:publicly\s+|freely\s+|openly\s+)?(?:available|released|open[- ]sourced?|accessible)\b|https?://|github\.com|anonymous\.4open|\bwe (?:release|open[- ]source|make (?:\w+ ){0,3}(?:available|public))\b|\bavailable at\b"),
))


# A number with a unit of gain is only a result next to a result word ("up to 40% of congestion
# is caused by ..." is motivation); a sentence about existing work without "we/our" is motivation.
_RESULT_WORD = re.compile(r"\b(?:we|our|ours|achiev\w*|improv\w*|outperform\w*|reduc\w*|boost\w*|gains?|speed\w*|accura\w*|surpass\w*|increas\w*|decreas\w*|lower\w*|higher|better|fewer|faster|slower|more|less|cost\w*|sav\w+|cuts?|yield\w*|attain\w*|reach\w*)\b", re.IGNORECASE)
_PRIOR_WORK = re.compile(r"\b(?:contemporary|existing|current|prior|previous|conventional|traditional|many|most)\s+(?:[\w-]+\s+){0,2}?(?:methods|algorithms|approaches|models|systems|techniques|works|baselines|solutions|practices|pipelines|benchmarks)\b", re.IGNORECASE)
_OURS = re.compile(r"\b(?:we|our|ours|us|the proposed|this (?:work|paper|method|approach|framework))\b", re.IGNORECASE)


_STRONG = re.compile(r"experiment|evaluat|empirical|outperform|surpass|state[- ]of[- ]the[- ]art|\bsota\b|\d\s?(?:%|\\%)|improvements?\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 15)
def evaluation_reason(sentence: str) -> str | None:
    """The first rule an abstract sentence trips (it reports evaluation), or None (memoised: the
    sanitiser and the before/after checks ask about the same sentences).

    A sentence about existing work ("contemporary optimizers achieve only suboptimal performance")
    is motivation, not a result, unless it carries a strong evaluation word (experiments, SOTA, %, ...).
    """
    about_prior_work = bool(_PRIOR_WORK.search(sentence)) and not _OURS.search(sentence) and not _STRONG.search(sentence)
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




_SOTA = re.compile(r"\b(?:state[- ]of[- ]the[- ]art|SOTA)\b", re.IGNORECASE)
_SOTA_ADJECTIVE = re.compile(r"\b(?:(?:the )?current )?(?:state[- ]of[- ]the[- ]art|SOTA)(?=\s+[a-z(])", re.IGNORECASE)


def sota_mention(sentence: str) -> bool:
    """True if the sentence says "state-of-the-art" / "SOTA" at all (claim or description)."""
    return bool(_SOTA.search(sentence))


def describe_without_sota(sentence: str) -> str:
    """The sentence with an adjectival "state-of-the-art X" rewritten as "leading X" (meaning kept, claim wording gone)."""
    def repl(m: re.Match[str]) -> str:
        word = "leading"
        return word.capitalize() if m.group(0)[0].isupper() else word

    return _SOTA_ADJECTIVE.sub(repl, sentence)


def evaluation_claims(text: str) -> list[tuple[str, str]]:
    """(sentence, reason) of every sentence of an abstract that holds evaluation information or says state-of-the-art."""
    out = []
    for sentence in split_abstract(text):
        reason = evaluation_reason(sentence)
        if reason is None and sota_mention(sentence):
            reason = "state-of-the-art mention"
        if reason is not None:
            out.append((sentence, reason))
    return out
