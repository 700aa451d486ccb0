"""The words that decide whether a statement commits: hedges, degrees, retractions, reopenings,
refusals, hypotheticals, qualifications and negations (shared by stages 4 and 5)."""

from __future__ import annotations

import re

# Hedge words: the statement does not commit ("probably A", "Verdict: A (50/50)").
_HEDGE_WORDS = (
    r"maybe|perhaps|probably|possibly|likely|unlikely|leaning|lean|leans|unsure|uncertain|unclear|undecided"
    r"|not\s+sure|not\s+certain|either|depends|depending|hard\s+to\s+say|tentative(?:ly)?|arguably|could\s+be"
    r"|might\s+be|may\s+be|cannot|can't|can\s+not|low\s+confidence|not\s+confident|unconfident"
    r"|i\s+guess|i\s+suppose|i\s+reckon|fifty-fifty|coin\s+(?:flip|toss)|toss-?up|50\s*[/-]\s*50"
)


# Degree words: the statement withholds the verdict by degree ("partly novel", "Verdict: A (somewhat)").
_DEGREE_WORDS = (
    r"partly|partially|moderately|somewhat|marginally|kind\s+of|sort\s+of|borderline|ish"
)


# Degree phrases, which also occur in reasons ("because, in part, ..."): a degree only next to the option
# (`NOVEL (in part)`, see `_QUALIFIER`) or as a short value (`Verdict: In parts, A`).
_DEGREE_PHRASES = (
    r"in\s+parts?|to\s+(?:some|a\s+(?:certain|limited|small))\s+(?:extent|degree)|to\s+a\s+degree"
    r"|up\s+to\s+a\s+point|in\s+(?:some|certain|a\s+few|many)\s+(?:respects|ways|aspects|places)"
)


_DEGREE_PHRASE = re.compile(rf"\b(?:{_DEGREE_PHRASES})\b")


# A hedge or a degree word anywhere in a verdict's own clause (one search; the group that matched names
# the reason).
_DOUBT = re.compile(rf"\b(?:(?P<degree>{_DEGREE_WORDS})|{_HEDGE_WORDS})\b|\?")


# Words right after an option that qualify it: a hedge or a degree standing as the option's own clause
# (`A, I think`, `NOVEL (in some respects)`, `A - tentatively.`), not a reason that follows it.
_QUALIFIER = re.compile(
    r"^\s*(?:[,:;(\[-]|\.\.\.)?\s*(?:(?:but|though|although|at\s+least|only|if\s+only|or\s+so)\s+)*"
    rf"(?:(?P<degree>{_DEGREE_WORDS}|{_DEGREE_PHRASES}|semi)|(?P<weak>slightly|mildly|modestly|weakly|a\s+bit|a\s+little)"
    rf"|{_HEDGE_WORDS}|i\s+(?:think|believe|suspect|feel)|i(?:'d|\s+would)\s+(?:say|guess)|i'm\s+not\s+sure"
    r"|if\s+i\s+(?:had|have)\s+to\s+(?:choose|pick|guess|say)|if\s+forced|at\s+a\s+guess|for\s+now|provisionally"
    r"|tentatively|presumably|seemingly|apparently|roughly|more\s+or\s+less|hmm+|(?:could|can|might)\s+go\s+either\s+way)"
    r"(?:\s+so)?\s*(?=$|[.,;:!?)\]]|-)"
)


# Taking the verdict back inside its sentence ("A - just kidding, B", "B, no wait, A", "Tie? No, A").
_RETRACTION_WORDS = (
    r"(?<!no\s)(?<!not\s)(?:kidding|joking)|jk|j/k|psych|(?:lol|haha+),?\s+no|no\s+wait"
    r"|wait,?\s+no|scratch\s+that|(?:i\s+)?take\s+(?:that|it)\s+back|sorry|i\s+meant|or\s+rather|correction"
    r"|on\s+second\s+thoughts?|second\s+thoughts?|change\s+my\s+mind|actually,?\s+no"
)


_RETRACTION = re.compile(rf"\b(?:{_RETRACTION_WORDS})\b|\?\s*no\b")


_REOPEN = re.compile(
    # "actually" as an intensifier ("actually by a wide margin") does not reopen.
    r"(?:^|[.!?;,]\s*)(?:wait|actually(?!\s+(?:by|quite|clearly|much|far|very|considerably|substantially)\b)|hmm)\b"
    rf"|(?:^|[.!?;]\s*)no[,!]|\b(?:{_RETRACTION_WORDS}"
    r"|reconsider(?:ing)?|not\s+sure|unsure|uncertain|not\s+certain|could\s+be\s+wrong"
    r"|might\s+be\s+wrong|may\s+be\s+wrong|then\s+again|change\s+my"
    r"|or\s+maybe|or\s+perhaps|i\s+mean|or\s+is\s+it|low\s+confidence|not\s+confident"
    r"|go\s+the\s+other\s+way|(?:could|might|may)\s+(?:\w+\s+)?be\s+wrong|(?:only|just)\s+an\s+example"
    r"|as\s+an\s+example|for\s+illustration)\b"
)


# A hedge after the verdict reopens it when it concerns an option ("Although Idea B might be as good").
_AFTER_HEDGE = re.compile(
    r"\b(?:might|could|may|maybe|perhaps|probably|possibly|likely|arguably)\b"
)


_REFUSAL = re.compile(
    r"\bi\s+(?:refuse|decline|must\s+decline)\b"
    r"|\bi\s*(?:cannot|can't|can\s+not|won't|will\s+not|am\s+unable\s+to|'m\s+unable\s+to|am\s+not\s+able\s+to"
    r"|'m\s+not\s+able\s+to|do\s+not\s+feel\s+able\s+to|(?:do\s+not|don't)\s+think\s+i\s+(?:can|could))"
    r"\s+(?:\w+\s+){0,2}(?:judge|determine|decide|assess|evaluate"
    r"|compare|answer|help|provide|make|give|choose|say|tell|pick|rate|comply|do\s+that|fulfil|fulfill)\b"
    r"|\bi\s+(?:won't|will\s+not)\s*(?:[.!,]|$)"
    r"|\bunable\s+to\s+(?:judge|determine|decide|assess|evaluate|compare)\b"
    r"|\bas\s+an\s+ai\b|\bi'm\s+sorry,?\s+but\b|\bi\s+am\s+sorry,?\s+but\b"
    r"|\b(?:not\s+possible|impossible)\s+to\s+(?:judge|determine|decide|tell|say|assess)\b"
    r"|\bcan(?:not|'t|\s+not)\s+be\s+(?:determined|judged|decided)\b"
    r"|\bno\s+verdict\b|\bwithout\s+(?:a\s+)?verdict\b"
)


_HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|would|could|might|should|suppose|supposing|imagine|e\.?g\.?|eg|for\s+example"
    r"|for\s+instance|such\s+as|like|example|format|formatted|template|says?|said|write|writes|wrote"
    r"|ask(?:s|ed)?|required?|expects?|expected|instructions?|prompt|claims?|claimed)\b"
)


# A qualification that takes the verdict back in part ("NOVEL, but not very", "novel in X but not in Y").
_QUALIFIED = re.compile(
    r"\bbut\s+(?:not|only|barely|hardly|maybe|perhaps|less|no)\b|\bnot\s+(?:very|entirely|fully|really|that|quite)\b"
    r"|\bonly\s+(?:partly|partially|somewhat|marginally|slightly)\b"
)


_NEGATION = re.compile(
    r"\b(?:not|no|never|hardly|wrong|false|incorrect|mistake|mistaken|doubt|doubtful|unlikely|nobody|none)\b"
    r"|n't\b|\bcannot\b|\bdisagree\b"
)


_DELIM = re.compile(
    r"^\s*(?:$|[.,;:!?()\[\]\-/&]|(?:or|and|vs)\b|(?:because|since|as|given|due|owing|for|with)\b)"
)


# Characters around a statement that decide its reading (its clause): bounds the work per statement.
_WINDOW = 300
# A sentence that draws the answer's conclusion ("Hence ...", "Overall, though, ...").
_CONCLUDING = re.compile(
    r"^\W*(?:hence|therefore|thus|so|overall|in\s+(?:sum|summary|short|conclusion|the\s+end)"
    r"|all\s+in\s+all|on\s+balance|taken\s+together|to\s+conclude|to\s+sum\s+up)\b"
)
# Pointwise: what a conclusion says when it weighs novelty against NOVEL, and against NOT NOVEL.
_AGAINST_NOVEL = re.compile(
    r"\b(?:incremental|derivative|refinement|(?:not|no|hardly|rather\s+than)\s+(?:(?:a|an|the)\s+)?"
    r"(?:(?:fundamentally|genuinely|truly|really|entirely|wholly|particularly|very)\s+)?"
    r"(?:new|novel|original)|well[\s-]known|straightforward\s+(?:extension|application)"
    r"|(?:limited|modest|little|minor)\s+novelty)\b"
)
_AGAINST_NOT_NOVEL = re.compile(
    r"\b(?:(?:genuinely|truly|fundamentally|substantially|entirely|wholly)\s+(?:new|novel|original)"
    r"|original|unprecedented|new\s+direction)\b"
)
