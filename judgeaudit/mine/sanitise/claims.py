"""The evaluation-claim detector: does an abstract sentence report how well this work did?

Evaluation information is what a novelty judge must not see: reported results and benchmark
numbers, comparisons with baselines or the state of the art, claims of state-of-the-art,
"experiments show" statements and the findings of this work's experiments or analyses, this
work's evaluation set-up ("We evaluate on ..."), and code-release notes. Kept: background and
motivation, evaluation or benchmarks as the topic ("current practices curate task-specific
benchmarks"), other work's results and numbers, theory stated as what is proven, the method,
and the contents of a proposed benchmark. `evaluation_reason` names the first rule a sentence
trips; `sota_mention` finds a descriptive "state-of-the-art" (an adjective for other work,
which the sanitiser rewrites); `evaluation_claims` checks a whole abstract and is what the
bundled sets are tested with. It is measured on independently labelled cases
(tests/fixtures/claim_cases/, tests/mine/sanitise/test_claims.py).
"""

from __future__ import annotations

import functools
import re

from judgeaudit.mine.sanitise.abstracts import split_abstract

# Each rule is a list of alternatives (regular expressions, case-insensitive), tried in this order.
_RULE_TEXT: dict[str, list[str]] = {
    "number with a unit of gain": [
        r"\d\$?\s?(?:\\%|\$?\\times\b|\\times)",
        r"\d+(?:\.\d+)?\s?(?:%|percent\b|pp\b|points?\b|×|x\b(?![-\w])|-fold\b|fold\b)",
        r"\b(?:two|three|four|five|ten)-?fold\b",
        r"\b\d+\s+out\s+of\s+\d+\b",
    ],
    "state-of-the-art claim": [
        r"\b(?:the|a|new)\s+(?:state[- ]of[- ]the[- ]art|sota)\b(?!\s+[a-z])",
        r"\b(?:compared (?:to|with)|relative to|versus|vs\.?|over|than|against|beyond|advanc\w*|push\w*|improv\w*(?: upon| on)?)\s+"
        r"(?:the\s+)?(?:current\s+|existing\s+|prior\s+)?(?:state[- ]of[- ]the[- ]art|sota)\b",
        r"\b(?:achiev|attain|set|establish|reach|deliver|obtain|yield|surpass|outperform|beat|exceed|match|rival|advanc)\w*\s+"
        r"(?:[\w-]+\s+){0,4}?(?:state[- ]of[- ]the[- ]art|sota)\b",
        r"\b(?:state[- ]of[- ]the[- ]art|sota)\s+(?:[\w-]+\s+){0,2}?(?:performance|results?|accuracy|scores?|quality|on\b)",
        r"\bnew (?:state[- ]of[- ]the[- ]art|sota)\b|\bnew records?\b|\bbest[- ]in[- ]class\b|\bleading (?:performance|results)\b",
        r"\b(?:ranks?|ranked|ranking|placed|places|placing)\s+(?:\w+\s+)?(?:first|1st|top|highest)\b|\bfirst place\b|\btop[- ]ranked\b",
    ],
    "reported metric value": [
        r"\b(?:FIDs?|BLEU|ROUGE[-\w]*|F1|AUC|AUROC|mAP|PSNR|SSIM|IoU|mIoU|accuracy|perplexity|top-1|top-5|win[- ]rate|pass@\d+|"
        r"success[- ]rate|Elo)\b[^.]{0,30}?\d",
    ],
    "comparison with baselines": [
        r"\b(?:match(?:es|ing)?|rival(?:s|ing)?|approach(?:es|ing)?|exceed(?:s|ing)?|close[sd]?) (?:the )?(?:\w+ )?performance (?:of|to)\b",
        r"\b(?:outperform\w*|surpass\w*|beats?|beating|exceed\w*|rival\w*|on par with|matches or exceeds|"
        r"comparable (?:performance|results) (?:to|with)|superior (?:performance|results|accuracy)|"
        r"competitive (?:performance|results|accuracy)|better than (?:\w+ ){0,3}(?:baselines?|existing|prior|previous|state|competing|other))\b",
        r"\b(?:falls?|fell|falling)\s+(?:far\s+|well\s+)?short\s+of\b|\blags?\s+(?:far\s+|well\s+)?behind\b|\bunderperform(?:s|ed|ing)?\b",
    ],
    "reported gains": [
        r"\b(?:gains?|improvements?|speed-?ups?|benefits?|robustness)\s+(?:are|were|is|was|remains?|persists?)\s+(?:\w+\s+)?"
        r"(?:observed|obtained|achieved|seen|found|consistent|significant|substantial|evident|robust)\b",
        r"\b(?:gains?|improvements?|benefits?|advantages?|speed-?ups?)\s+(?:persist|hold|carry over|transfer|generali[sz]e|come at|come with)\b",
        r"\b(?:is|are|was|were)\s+(?:\w+ly\s+)?observed\s+(?:across|on|under|over|throughout|for all|in all)\b",
        r"\b(?:yield\w*|bring\w*|deliver\w*|show\w*|achiev\w*|demonstrat\w*|sustain\w*|observ\w*|obtain\w*|provid\w*|offer\w*|"
        r"leads? to|results? in)\s+(?:\w+\s+){0,3}?performance (?:gains?|improvements?|boosts?)\b",
        r"\b(?:improv\w+|boost\w*|reduc\w+|increas\w+|gains?|speed\w*[- ]?ups?|accelerat\w+)\b[^.]{0,40}\b(?:by|of|up to|over|upon)\s+"
        r"(?:up to\s+)?(?:\$?\d|an average|a factor|orders? of magnitude|a large margin|a significant margin|a wide margin|large margins)",
        r"\b(?:significant|substantial|consistent|notable|remarkable|considerable|large|dramatic|strong)(?:ly)?\s+(?:\w+\s+)?"
        r"(?:improv\w+|gains?|outperform\w*|better|boosts?|speed\w*[- ]?ups?|reductions?)\b",
        r"\b(?:halves|halving|halved|doubles|doubling|doubled|triples|tripled)\s+(?:the\s+)?(?:\w+\s+)?(?:time|cost|latency|memory|"
        r"throughput|speed|accuracy|error|compute|energy)\b",
        r"(?<!to )\b(?:improv\w*|boost\w*|enhanc\w*)\s+(?:the\s+)?(?:\w+\s+)?(?:performance|accuracy)\s+(?:on|across)\b",
        r"\bmaintain\w*\s+(?:high|strong|competitive|comparable)\s+(?:\w+\s+)?(?:accuracy|performance|quality)\b",
    ],
    "experiments show": [
        r"\b(?:experiment\w*|empirical(?:ly)?|evaluations?|results|benchmarks?|simulations?|studies|ablations?|tests?|findings|"
        r"analys[ie]s|observations|curves|plots|measurements|comparisons)\b[^.]{0,80}\b(?:show|shows|showed|demonstrat\w+|reveal\w*|confirm\w*|indicat\w+|validat\w+|"
        r"verif\w+|highlight\w*|suggest\w*|prove\w*|establish\w*|exhibit\w*)\b",
        r"(?<!to ensure )(?<!to enable )(?<!to support )(?<!to facilitate )(?<!for )(?<!towards )(?<!toward )(?<!lack of )"
        r"(?<!need for )(?<!without )(?<!enabling )(?<!enable )(?<!requires )(?<!require )"
        r"\b(?:extensive|comprehensive|thorough|systematic|large-scale|rigorous)\s+(?:\w+\s+)?(?:experiments?|evaluations?|"
        r"empirical (?:studies|results|analys[ie]s)|benchmarking)\b"
        r"(?!\s+(?:framework|suite|benchmark|protocol|toolkit|platform|pipeline|methodology|tool|harness))",
        r"\bwe (?:empirically|experimentally) (?:show|demonstrate|validate|verify|evaluate|find)\b",
        r"\bwe\s+(?:\w+\s+)?(?:demonstrate|find|found|observe|observed|discover|discovered|uncover|uncovered)\s+that\b",
        r"^\W*(?:(?:our|numerical|empirical|further|additional)\s+)?experiments?\b(?!\s+design)",
        r"\b(?:through|via|in|from|across)\s+(?:\w+\s+){0,2}experiments\b|\bour experiments?\b",
        r"^\W*(?:\w+,\s+)?(?:these|the|such|our|those)\s+(?:\w+\s+)?(?:gains|improvements|speed-?ups|results|findings)\b",
    ],
    "achieved performance": [
        r"\b(?:achiev\w+|yield\w*|deliver\w*|obtain\w*|attain\w*|leads? to|results? in)\s+(?:\w+\s+){0,3}?(?:faster|better|higher|"
        r"lower|improved|superior|stronger|significant|substantial|remarkable|strong|competitive|notable|consistent|effective|high)\s+"
        r"(?:\w+\s+){0,2}?(?:convergence|performance|accuracy|results|generali[sz]ation|efficiency|throughput|latency|speed|quality|"
        r"fidelity|robustness|gains?|improvements?|scores?|acceleration|speed-?ups?)\b",
        r"\bachiev\w+\s+(?:\w+\s+){0,4}(?:performance|results|accuracy|scores?|gains?|improvements?|speed\w*|success rates?|f1|auc|bleu)\b",
        r"\b(?:outstanding|excellent|strong|superior|impressive|remarkable|exceptional|promising|competitive|favou?rable)\s+"
        r"(?:\w+\s+)?(?:performance|results|accuracy)\b",
    ],
    "evaluation setup": [
        r"\b(?:we|is|are|was|were|been)\s+(?:\w+\s+)?(?:evaluat\w*|test\w*|validat\w*|assess\w*|benchmark\w*|compar\w*)\b[^.]{0,80}?"
        r"\b(?:on|across|against|over|using|with)\s+(?:\w+[\s-]+){0,4}?(?:datasets?|benchmarks?|baselines?|tasks|attacks|domains|"
        r"environments|suites?|corpora|testbeds?|methods|models|settings|scenarios|languages|architectures)\b",
        r"\bwe\s+(?:\w+\s+)?(?:evaluate|evaluated|benchmark|benchmarked|validate|validated)\b",
        r"^\W*evaluated (?:on|across|against)\b",
        r"\b(?:evaluated|tested|validated) (?:on|across|against) (?:\w+ ){0,3}(?:datasets?|benchmarks?|tasks|domains|environments|problems|instances)\b",
        r"\b(?:evaluated|tested|validated|benchmarked) (?:\w+ ){0,3}on\b",
    ],
    "release statement": [
        r"\b(?:code|data|dataset|models?|implementation|weights|checkpoints|benchmark|project page|source code)\b[^.]{0,60}\b"
        r"(?:is|are|will be|has been|have been)\s+(?:made\s+)?(?:publicly\s+|freely\s+|openly\s+)?(?:available|released|open[- ]sourced?|accessible)\b",
        r"https?://|github\.com|anonymous\.4open|\bavailable at\b",
        r"\bwe\s+(?:will\s+|plan to\s+|intend to\s+|shall\s+)?(?:publicly\s+)?(?:release|open[- ]source|make (?:\w+ ){0,3}(?:available|public))\b",
    ],
}
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile("|".join(f"(?:{alt})" for alt in alts), re.IGNORECASE))
    for name, alts in _RULE_TEXT.items()
)


# A number with a unit of gain is only a result next to a result word ("up to 40% of congestion
# is caused by ..." is motivation); "our contributions are twofold" is no gain at all.
_RESULT_WORD = re.compile(
    r"\b(?:we|our|ours|achiev\w*|improv\w*|outperform\w*|reduc\w*|boost\w*|gains?|speed\w*|accura\w*|surpass\w*|increas\w*|decreas\w*|lower\w*|higher|better|fewer|faster|slower|more|less|cost\w*|sav\w+|cuts?|yield\w*|attain\w*|reach\w*|succe\w+|solv\w*|wins?)\b",
    re.IGNORECASE,
)
_NOT_A_GAIN = re.compile(
    r"\b(?:contributions?|goals?|aims?|objectives?|purposes?|benefits?|advantages?|challenges?|problems?|issues?|questions?|motivations?)\s+(?:\w+\s+)?(?:is|are)\s+(?:two|three|four|five)-?fold\b",
    re.IGNORECASE,
)

# A number that measures a problem of existing systems ("attention accounts for more than 80% of the
# latency", "pilot overhead consuming 11-21% of bandwidth") is motivation when the sentence is not ours.
_PROBLEM = re.compile(
    r"\b(?:bottlenecks?|incur\w*|overheads?|degrad\w*|suffer\w*|unable|restrict\w*|limit(?:s|ed|ing)?|fail\w*|struggl\w*|costly|expensive|prone|hinder\w*|consum\w*|accounts? for|severe\w*)\b",
    re.IGNORECASE,
)
_POSITIVE = re.compile(
    r"\b(?:achiev\w*|improv\w*|outperform\w*|boost\w*|gains?|surpass\w*|speed-?ups?|better|superior|match(?:es|ing)?)\b",
    re.IGNORECASE,
)
# Theory is kept as what is proven, rates and bounds included ("we prove ... a superior convergence
# rate over prior works"), unless the sentence also speaks of experiments.
_THEORY = re.compile(
    r"\b(?:we prove|prove[sn]? that|proofs?|theorems?|theoretical (?:analys[ie]s|guarantees?|results?|justifications?|bounds?)|theoretically (?:show|prove|guarantee|demonstrate)\w*|convergence rates?|closed[- ]form|assumptions?|regret bounds?|sample complexity|(?:lower|upper) bounds?|minimax)\b|\\mathcal\{O\}|\\Theta|Θ|\bO\(",
    re.IGNORECASE,
)
_EMPIRICAL = re.compile(
    r"\b(?:experiment\w*|empiric\w*|benchmarks?|datasets?|simulations?|baselines?|outperform\w*|accuracy)\b|\d\s?(?:%|\\%|×|\\times)",
    re.IGNORECASE,
)

# Background: a sentence about other work or the field, not this work's results. It says nothing of
# "we/our/the proposed", and it speaks of prior work ("existing methods", "current practices"), in the
# perfect tense of the literature ("has been shown", "have emerged as"), of recent work, or it states
# a limitation against a contrast ("LLMs achieve state-of-the-art performance but are costly").
_PRIOR_WORK = re.compile(
    r"\b(?:contemporary|existing|current|prior|previous|conventional|traditional|many|most)\s+(?:[\w-]+\s+){0,2}?(?:methods|algorithms|approaches|models|systems|techniques|works|baselines|solutions|practices|pipelines|benchmarks|evaluations|frameworks|studies|protocols|metrics|datasets|paradigms|strategies|tools)\b",
    re.IGNORECASE,
)
_OURS = re.compile(
    r"\b(?:we|our|ours|us|the proposed|this (?:work|paper|method|approach|framework|study|model|technique|algorithm|system))\b",
    re.IGNORECASE,
)
_LITERATURE = re.compile(
    r"\b(?:has|have)\s+(?:(?:also|recently|already|long|increasingly|widely|been|repeatedly|consistently|previously)\s+)*"
    r"(?:emerged|shown|showcased|displayed|demonstrated|achieved|enabled|become|proven|gained|attracted|drawn|led|made|seen|witnessed|"
    r"established|revolutioni[sz]ed|transformed|advanced|delivered|yielded|produced|exhibited|reported|found|observed|"
    r"improved|pushed|set|reached|attained|surpassed|outperformed)\b"
    r"|\brecent\s+(?:[\w-]+\s+){0,2}?(?:work|works|advances|advancements|studies|research|progress|efforts|developments|"
    r"evidence|literature|breakthroughs|years|findings)\b"
    r"|\b(?:is|are|was|were|been|being)\s+widely\s+(?:studied|used|adopted|applied|deployed|recogni[sz]ed|regarded)\b|\b(?:emerged|emerging)\s+as\b"
    r"|\b(?:rapid|remarkable|tremendous|significant|substantial|impressive)\s+(?:progress|advances|advancements|developments|success)\b",
    re.IGNORECASE,
)
_CONTRAST_LIMITATION = re.compile(
    r"\b(?:but|yet|while|although|though|whereas|despite|however)\b[^.;]*?\b(?:struggl\w*|suffer\w*|fail\w*|"
    r"limit(?:s|ed|ing|ations?)?|costly|expensive|prone|lack\w*|inefficien\w*|hinder\w*|untapped|restrict\w*|misleading|"
    r"not yet|bottlenecks?|difficult\b|drawbacks?|vulnerab\w*|insufficient\w*|overlook\w*|degrad\w*|brittle|fragile|"
    r"unreliable|concerns?|concerning|challenges|incur\w*|overheads?|remains? (?:unclear|challenging|limited|difficult|open|elusive|poorly|underexplored|unexplored|an open))\b",
    re.IGNORECASE,
)
# A comparison with existing work is this work's result ("outperforms existing methods"), unless
# the literature makes it ("recent work has shown that X outperforms Y").
_COMPARES = re.compile(
    r"\b(?:outperform\w*|surpass\w*|beats?|beating|exceed\w*|outpac\w*|better than|superior to|compared (?:to|with)|relative to|versus|vs\.|on par with|rival\w*|competitive with|comparabl\w+ to)\b|\bover\s+(?:\w+\s+){0,2}(?:prior|existing|previous|baselines?|state)",
    re.IGNORECASE,
)
_OPENING_CONTRAST = re.compile(
    r"^\W*(?:however|but|yet|although|though|while|whereas|despite|nevertheless|nonetheless)\b",
    re.IGNORECASE,
)
# "experiments show" is this work's unless other work is its subject ("recent studies have shown").
_EARLIER = re.compile(
    r"\b(?:recent|prior|previous|existing|earlier|past)\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE
)


def _background(sentence: str) -> bool:
    """True if the sentence is about other work or the field rather than this work's results."""
    if _OURS.search(sentence):
        return False
    if _LITERATURE.search(sentence):
        return True
    if _OPENING_CONTRAST.match(sentence) and _CONTRAST_LIMITATION.search(sentence):
        return True
    return bool(
        (_PRIOR_WORK.search(sentence) or _CONTRAST_LIMITATION.search(sentence))
        and not _COMPARES.search(sentence)
    )


def _reports_experiments(sentence: str, match: re.Match[str]) -> bool:
    """True if an "experiments show" match is this work's ("recent studies show" is other work's)."""
    if _OURS.search(sentence):
        return True
    return not (_EARLIER.search(sentence[: match.start()]) or _LITERATURE.search(sentence))


@functools.lru_cache(maxsize=1 << 15)
def evaluation_reason(sentence: str) -> str | None:
    """The first rule an abstract sentence trips (it reports evaluation), or None (memoised: the
    sanitiser and the before/after checks ask about the same sentences).

    A background sentence (`_background`: about existing work or the field, "Vision Transformers
    achieve state-of-the-art results, yet ...") is motivation, not a result, unless it says
    "experiments show" of this work; a theory sentence (`_THEORY`, no experiments) states what is
    proven. A release note is always evaluation information.
    """
    background = _background(sentence)
    theory = bool(_THEORY.search(sentence)) and not _EMPIRICAL.search(sentence)
    for name, pattern in _RULES:
        match = pattern.search(sentence)
        if match is None:
            continue
        if name == "release statement":
            return name
        if name == "experiments show" and not _reports_experiments(sentence, match):
            continue
        if background and name != "experiments show":
            continue
        if theory:
            continue
        if name == "number with a unit of gain" and (
            not _RESULT_WORD.search(sentence)
            or _NOT_A_GAIN.search(sentence)
            or (
                _PROBLEM.search(sentence)
                and not _OURS.search(sentence)
                and not _POSITIVE.search(sentence)
            )
        ):
            continue
        return name
    return None


_SOTA = re.compile(r"\b(?:state[- ]of[- ]the[- ]art|SOTA)\b", re.IGNORECASE)
_SOTA_ADJECTIVE = re.compile(
    r"\b(?:(?:the )?current )?(?:state[- ]of[- ]the[- ]art|SOTA)(?=\s+[a-z(])", re.IGNORECASE
)


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
