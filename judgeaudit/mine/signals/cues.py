"""The offline cue extractor (`offline`, the default): the signal definition as cue lists, no model.

Sentence by sentence, cue patterns for explicit affirmations and disputes, with negation, hedge,
scope, quotation and contrast handling. Statements the definition does not count are kept apart as
*weak* (`Signal.weak`): hedged or merely descriptive affirmations ("relatively novel", "proposes a new
framework for X") and hedged uncertainty ("it is unclear what is new"); the selection reads them as no
signal unless an earlier rule is asked for. The definition itself is in `judgeaudit.mine.signals.base`.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judgeaudit.mine.parse import SIGNAL_FIELDS, Review
from judgeaudit.mine.signals import guarded_regex
from judgeaudit.mine.signals import sentences as sentences_module
from judgeaudit.mine.signals.base import (
    AFFIRM,
    DISPUTE,
    Polarity,
    ReviewSignals,
    Signal,
)
from judgeaudit.mine.signals.guarded_regex import GuardedFamily, GuardedPattern, guarded
from judgeaudit.mine.signals.sentences import split_sentences

WEAK_AFFIRM = "weak_affirm"  # internal: a hedged or merely descriptive affirmation
WEAK_DISPUTE = (
    "weak_dispute"  # internal: hedged uncertainty about originality ("unclear what is new")
)


# ---------------------------------------------------------------------------------------------
# Offline cue extractor
# ---------------------------------------------------------------------------------------------

_NOV = r"(?:novelty|originality|innovation|innovativeness|newness)"
_NEG = r"(?:not|\w*n't|no|hardly|barely|never|neither|nor|without|lacks?|lacking|lack of|fails? to|failed to|rather than|instead of|little|few)"
_HEDGE = r"(?:somewhat|relatively|moderately|fairly|slightly|partially|partly|arguably|reasonably|mildly|marginally|seemingly|potentially|possibly|perhaps)"
_LOW = (
    r"(?:limited|minimal|marginal|modest|low|weak|"
    r"questionable|incremental|thin|lacking|insufficient|overstated|overclaimed|restricted|minor|small|"
    r"doubtful|debatable|unconvincing|not significant|not sufficient|not substantial|"
    r"not (?:very |particularly |that |so )?(?:strong|high|significant)|constrained|"
    r"somewhat limited|rather limited|quite limited|very limited|a concern|my (?:main |major |primary )?concern|"
    r"not convincing|unjustified|integrative|in question|under question|lower|diminished|reduced|undermined)"
)
# Words of uncertainty about originality: "the novelty is unclear", "not well articulated" (hedged, not a dispute).
_UNSURE = (
    r"(?:unclear|not (?:very |entirely |fully |sufficiently |particularly )?clear|ambiguous|vague|"
    r"not well[- ]\w+|not (?:well )?(?:articulated|delineated|justified|highlighted|motivated|demonstrated|established)|"
    r"not (?:very |particularly |that |so )?(?:evident|obvious|apparent)|hard to (?:assess|judge|tell|evaluate)|uncertain)"
)

_DISPUTE_PATTERNS: tuple[GuardedPattern, ...] = tuple(
    guarded(p)
    for p in (
        # "limited novelty", "lack of originality", "no real innovation", "incremental novelty"
        rf"\b(?:limited|lacks?|lacking|lack of|little|minimal|marginal|modest|insufficient|questionable|low|weak|no|"
        rf"incremental|thin|minor|restricted|moderate|not much|not enough|doubtful|debatable|slight|"
        rf"concerns? (?:about|regarding|on|with|over)|(?:main |major |primary |key |biggest )?(?:concern|weakness|issue|limitation)s? (?:is|are|regarding|about|of)(?: the)?)"
        rf"(?:\s+\w+){{0,3}}?\s+{_NOV}\b",
        # "the novelty is limited", "originality of the work seems unclear"
        rf"\b{_NOV}(?:\s+(?:of|in|for|with|over|compared|and)\b[^.;:]{{0,60}}?)?\s+(?:is|are|seems?|appears?|remains?|feels?|looks?|was|be|might be|may be|could be|can be)\b(?:\s+\w+){{0,2}}?\s+{_LOW}",
        rf"\b{_NOV}\s*(?:concerns?|issues?|is a concern|is questionable|limitation)\b",
        rf"^\W*(?:limited|lack of|weak|incremental|questionable|minor|moderate)\b[^.:]{{0,30}}\b{_NOV}\b",
        # contribution wording
        r"\b(?:technical|methodological|algorithmic|conceptual|theoretical|scientific|core|main|key|overall)?\s*contributions?(?:\s+(?:of|in)\s+[^.;,]{0,40}?)?\s+(?:is|are|seems?|appears?|remains?|feels?|looks?)\s+(?:\w+\s+){0,2}?(?:incremental|marginal|limited|minor|thin|modest|minimal)\b",
        r"\b(?:incremental|marginal|limited|minor|thin|modest|minimal)\s+(?:technical |methodological |algorithmic |conceptual |theoretical |scientific )?(?:contributions?|advances?|extensions?|novelty|innovations?)\b",
        # negated novelty adjectives: "not novel", "not particularly new", "not the first", "no new idea"
        r"(?:\bnot|n't|\bhardly|\bbarely|\bnever|\bneither|\bnor)\s+(?:\w+\s+){0,3}?(?:novel|new|innovative|the first|first to|unique|groundbreaking|original(?=\s*(?:[.,;:)]|$|\s+(?:and|or|enough|ideas?|contributions?|approach|work))))\b(?!\s+(?:to|for)\s+(?:me|us|the reviewer))",
        r"\b(?:no|without|lacks?|lacking|lack of|fails? to (?:introduce|provide|propose|offer|present|bring)|does not (?:introduce|provide|propose|offer|present|bring)|do not (?:introduce|provide|propose|offer|present|bring))\s+(?:\w+\s+){0,3}?(?:novel|new|original|innovative|significant(?:ly)? new)\s+(?:\w+\s+){0,2}?(?:ideas?|insights?|methods?|methodolog\w*|techniques?|concepts?|contributions?|elements?|components?|architectures?|principles?|theor\w*|algorithms?|approach\w*|mechanisms?|perspectives?|objectives?|findings?|frameworks?|models?|modules?|designs?)\b",
        r"\bnothing (?:\w+ )?(?:new|novel|original)\b",
        r"\b(?:little|not much|nothing) (?:that is |is )?(?:truly |really |genuinely |fundamentally )?(?:new|novel)\b",
        # prior work already did it
        r"\b(?:has|have|had)\s+(?:already\s+)?been\s+(?:\w+\s+)?(?:done|proposed|explored|studied|investigated|shown|established|introduced|reported|addressed|demonstrated|developed|applied|used|considered|discussed|observed|examined|known|tried)\s+(?:before|previously|earlier|already|in (?:the )?(?:prior|previous|earlier|existing|past|literature|many|several|numerous|other|multiple|recent)|by (?:prior|previous|several|many|other|multiple)|extensively|widely)",
        r"\b(?:has|have|had)\s+already\s+been\b",
        r"\b(?:widely|extensively|well|thoroughly|heavily|commonly|frequently|previously)\s+(?:been\s+)?(?:studied|explored|investigated|known|established|documented|researched|discussed)\b(?:\s+(?:in|by|before|within)\b)",
        r"\balready\s+(?:been\s+)?(?:exists?|proposed|explored|studied|known|established|well[- ]known|presented|outlined|widely|shown|used|introduced|investigated|done|addressed|demonstrated|covered|available|common|standard|popular|discussed|considered|observed|reported)\b",
        r"\b(?:similar|same|analogous|related|comparable|identical)\s+(?:\w+\s+){0,2}?(?:ideas?|approach\w*|methods?|techniques?|frameworks?|strateg\w+|formulations?|observations?|findings?|concepts?|designs?|analys\w+|results?|insights?|mechanisms?)\s+(?:\w+\s+){0,2}?(?:have|has|were|was|had)\s+(?:\w+\s+){0,2}?(?:been\s+)?(?:proposed|explored|studied|used|introduced|investigated|presented|shown|reported|developed|established|considered|published|discussed|applied)\b",
        r"(?<!non-)(?<!non)\b(?:well[- ]known|well[- ]established|well[- ]explored|standard|established|known|conventional|classic(?:al)?)\s+(?:\w+\s+){0,2}?(?:in (?:the )?(?:literature|field|community))",
        r"\bwell[- ](?:known|established|studied|explored|understood|documented) (?:in|within|idea|technique|result|fact|trick|approach|method|phenomenon|observation|practice|concept)\b",
        # trivial combinations / applications
        r"\b(?:straightforward|direct|simple|naive|naïve|trivial|mere|obvious|minor|small|standard|incremental|routine)\s+(?:\w+\s+){0,1}?(?:extensions?|applications?|combinations?|adaptations?|modifications?|generali[sz]ations?|variants?|variations?|tweaks?|re-?implementations?|transfers?|changes?|integrations?|engineering)\b(?:\s+(?:of|to|from|in|over)\b)",
        r"\b(?:merely|simply|just|only|essentially|mainly|mostly|primarily|largely|basically)\s+(?:a\s+|an\s+)?(?:\w+\s+){0,1}?(?:combines?|combination|applies|applying|application|adapts?|adaptation|extends?|extension|repackag\w+|re-?implement\w*|re-?brand\w*|renam\w+|reuses?|borrows?|stack(?:s|ing)?|puts? together|plugs?|transplant\w*|replicat\w+)\b",
        r"\b(?:combination|combinations|assembly|composition|collection|mix|integration|patchwork|ensemble|stacking) of (?:\w+\s+){0,2}?(?:existing|known|well[- ]known|established|off[- ]the[- ]shelf|standard|prior|previous|previously proposed|existed|available|popular|common|familiar)\b",
        r"\b(?:closely|largely|heavily|essentially|mostly|very|highly|strongly|quite|substantially|almost)\s+(?:\w+\s+)?(?:resembles?|mirrors?|similar to|identical to|replicates?|derivative|borrow(?:s|ed)?|overlaps? with|related to (?:prior|previous|existing)|follows? (?:prior|previous|existing|the))\b",
        r"\b(?:derivative of|re-?branding|repackag\w+ of|a rehash|re-?invent\w*|reinventing)\b",
        r"\b(?:close|closely) to (?:prior|previous|existing|the (?:prior|previous|existing)|\[\d)",
        # a wrong "first" claim
        r"\b(?:claims?|claimed|claiming|assertion|statement)\b[^.]{0,80}\b(?:first|novel|new|original)\b[^.]{0,160}\b(?:not upheld|unsupported|not justified|incorrect|inaccurate|not accurate|not correct|not true|untrue|overstated|overclaim\w*|misleading|questionable|wrong|false|exaggerat\w+|not entirely|not fully|debatable|unfounded|not supported|problematic|too strong|strong claim)",
        r"\b(?:incorrect|inaccurate|overstated|misleading|questionable|exaggerated|unfounded)\b[^.]{0,40}\b(?:claims?|claimed)\b[^.]{0,40}\b(?:first|novel|new|original|novelty)\b",
        r"\b(?:is|are|be|being|seems?|appears?|remains?|looks?)\s+(?:all\s+|quite\s+|very\s+|rather\s+|fairly\s+|pretty\s+|largely\s+|mostly\s+|essentially\s+|simply\s+|just\s+|a\s+|an\s+|the\s+)*(?:standard|common|well[- ]known|well[- ]established|established|old|classic(?:al)?|conventional|routine)\s+(?:[\w-]+\s+){0,2}?(?:techniques?|methods?|tools?|approach(?:es)?|practices?|concepts?|ideas?|architectures?|mechanisms?|blocks?|modules?|components?|designs?|tricks?|strateg\w+|formulations?|objectives?|recipes?|algorithms?|ones?)\b",
        r"\b(?:is|are)\s+(?:\w+\s+)?(?:standard|common|well[- ]known) in (?:the )?(?:literature|field|prior work)\b",
        r"\b(?:adapts?|adapting|uses?|using|reuses?|follows?|following|leverag\w+|employs?|rel(?:y|ies|ying) on|build(?:s|ing)? on|borrows?)\s+(?:\w+\s+)?(?:known|existing|established|standard|well[- ]known|off[- ]the[- ]shelf|common|prior)\s+(?:\w+\s+)?(?:techniques?|methods?|ideas?|approach(?:es)?|practices?|components?|modules?|tools?|frameworks?|architectures?|pipelines?)\b",
        r"\brel(?:y|ies|ying) (?:\w+ ){0,2}?on (?:\w+ ){0,2}?(?:methods|techniques|ideas|components|approaches) (?:proposed|introduced|developed|presented) in (?:earlier|prior|previous|existing)",
        r"\b(?:adopted|used|employed|explored) (?:\w+ ){0,2}?in (?:prior|previous|existing|earlier|many|numerous|several|other) (?:works?|studies|papers|literature|methods)\b",
        r"\bcombin\w+ (?:\w+ ){0,2}?(?:existing|known|established|off[- ]the[- ]shelf|standard|prior|well[- ]known|previously proposed)\b",
        r"\bnovel combination\b[^.]{0,60}\bexisting\b",
        r"\b(?:several|many|numerous|multiple|various|a number of|some|other)\s+(?:existing|prior|previous|earlier|recent|related)\s+(?:works?|methods|studies|papers|approaches)\s+(?:have\s+)?(?:already\s+)?(?:utili[sz]e|use|propose|explore|study|address|employ|consider|apply|adopt|leverage|tackle|investigate|introduce)d?\b",
        r"\b(?:repackag\w+|restates?|re-?brand\w*)\b",
        r"\bminor (?:changes?|adjustments?|modifications?|tweaks?|variations?|variants?)\b",
        r"(?:\bnot|n't)\s+(?:\w+\s+){0,3}?(?:significant|substantial|major|additional|real|meaningful)\s+(?:\w+\s+)?(?:leap|advance|contribution|step|departure|innovation)s?\b",
        r"\b(?:have|has) been well[- ](?:understood|known|studied|established)\b",
        r"\bconceptually (?:close|similar|equivalent|identical)\b",
        r"\b(?:an?|the|mainly|mostly|primarily|largely|more (?:of )?an?|like an?|solid|pure(?:ly)?)\s+(?:[\w-]+\s+){0,2}?engineering[\s-]+(?:project|effort|report|stacking|combination|integration|refinement|exercise|work|trick|choice|solution)\b|\bengineering[- ]oriented\b",
        rf"\bquestion\w*\s+(?:the\s+)?(?:\w+\s+)?{_NOV}",
        r"\bfollows? (?:\w+\s+)?(?:established|standard|existing|known|common|well[- ]known)\b",
        rf"\b(?:reduc\w+|limit\w*|weaken\w*|diminish\w*|undermin\w*|lower\w*|hurt\w*|detract\w*|compromis\w+)\s+(?:[\w’'-]+\s+){{0,4}}?(?:{_NOV})\b",
    )
)

# Hedged uncertainty about originality (not a dispute under the reference's definition, a *weak* one here):
# "it is unclear what is new compared to X", "the novelty is not clear", "please clarify the novelty over Y".
_UNSURE_PATTERNS: tuple[GuardedPattern, ...] = tuple(
    guarded(p)
    for p in (
        r"\b(?:unclear|not clear|hard to (?:see|tell|identify|understand)|difficult to (?:see|tell|identify|distinguish|understand)|clarify|articulate|state|explain|elaborate on|highlight|delineate|distinguish|justify|emphasi[sz]e)\b[^.]{0,40}\bwhat (?:is|are|makes)\b[^.]{0,30}\b(?:new|novel|original|different|unique)\b",
        r"\bwhat (?:is|are) (?:the )?(?:\w+\s+){0,2}?(?:new|novel|novelty|original|originality|new contributions?)\b[^.]{0,60}\b(?:compared|beyond|relative|over|versus|vs\.?|with respect|against|besides|apart|other than)",
        r"\bhow (?:is|does|are|do) (?:this|it|the|they|these|your)\b[^.?]{0,60}\b(?:differ\w*|distinguish\w*|distinct)\b[^.?]{0,15}\b(?:from|than|to)\s+(?:the\s+)?(?:existing|prior|previous|earlier|related|standard|other|well[- ]known|classic\w*|similar)\b",
        r"(?:insufficiently|not (?:clearly |well |sufficiently )?|poorly )(?:distinguished|differentiated|delineated|positioned) (?:from|against|relative to) (?:prior|previous|existing|related|the)",
        rf"\b(?:clarify|state|articulate|explain|elaborate on|highlight|delineate|justify|emphasi[sz]e|better position|position)\b[^.]{{0,40}}\b(?:the )?(?:{_NOV}|novel (?:contributions?|aspects?|components?|parts?|elements?))\b[^.]{{0,40}}\b(?:compared|beyond|relative|over|versus|vs\.?|with respect|against|in light|distinct|differen)",
        rf"\b{_NOV}(?:\s+(?:of|in|for|with|over|compared|and)\b[^.;:]{{0,60}}?)?\s+(?:is|are|seems?|appears?|remains?|feels?|looks?|was|be|might be|may be|could be|can be)\b(?:\s+\w+){{0,2}}?\s+{_UNSURE}",
        rf"\b(?:unclear|uncertain|ambiguous|vague)(?:\s+\w+){{0,3}}?\s+{_NOV}\b",
        rf"\b(?:unclear|not clear|uncertain|unsure|not sure|hard to (?:tell|judge|assess|say)|difficult to (?:tell|judge|assess|say)|cannot (?:judge|assess|tell))\b[^.]{{0,40}}\b(?:whether|if|how)\b[^.]{{0,60}}\b(?:novel|new|original|{_NOV})\b",
    )
)

_AFFIRM_PATTERNS: tuple[GuardedPattern, ...] = tuple(
    guarded(p)
    for p in (
        r"\bnovel\b",
        r"\bnovelty\b",
        r"\boriginality\b",
        r"\b(?:is|are|seems?|appears?|quite|very|highly|truly|genuinely|an|and|both|particularly|remarkably|refreshingly|wholly|entirely|conceptually|technically|rather|fairly)\s+original\b(?!\s+(?:paper|papers|method|model|version|data|dataset|image|images|text|input|formulation|work|problem|implementation|setting|space|objective|loss|network|architecture|signal|domain|distribution|graph|sequence|prompt|task|question|algorithm|design|definition|authors|code|scale|resolution|form|sentence|features?|embedding|training|one|ones|value|values|claim|submission|manuscript|proof|result|results|framework|approach|idea|scheme|tokens?|samples?|query|queries|video|audio|model's|images|LLM|CLIP)\b)",
        r"\boriginal (?:idea|ideas|contribution|contributions|approach|perspective|insight|insights|angle|framing|formulation and|way|take|and (?:interesting|significant|important|creative|novel|insightful))\b",
        r"\b(?:innovative|pioneering|groundbreaking|ground-breaking|trailblazing|first-of-its-kind)\b",
        r"\b(?:significant|key|major|notable|genuine|real|clear|important|strong|true|technical|conceptual|methodological|theoretical|algorithmic|meaningful|substantial|considerable|great)\s+innovations?\b",
        r"\b(?:demonstrates?|shows?|has|exhibits?|brings?|offers?)\s+(?:\w+\s+)?(?:novelty|originality)\b",
        r"\b(?:is|are|quite|very|highly|a|an|and|both|particularly|remarkably|genuinely|truly|rather|really)\s+creative\b(?!\s+(?:writing|tasks?|generation|domains?|content|industr\w+|applications?|reasoning|problem|work|text|outputs?|fields?|arts?|process|professionals?|design tasks?)\b)|\bcreative(?:ly)?\s+(?:ideas?|approach\w*|use|uses|solutions?|designs?|ways?|combinations?|formulations?|framing|applications? of|perspectives?|twists?|insights?|constructions?|methods?|strateg\w+|adaptations?)\b|\bcreatively\b",
        r"\b(?:fresh|new|unique|novel|original|refreshing|unconventional)\s+(?:and\s+\w+\s+)?(?:perspective|insight|insights|angle|viewpoint|lens|look|direction|paradigm|take|avenue|idea|ideas|way of (?:thinking|looking|framing|viewing))\b",
        r"\b(?:new|fresh)\s+(?:\w+\s+)?(?:paradigm|research direction|line of (?:research|work)|class of|problem formulation|formulation|theoretical (?:framework|perspective|insight|result|tool|understanding)|analytical (?:approach|tool|framework)|light on|understanding of|connection|connections|conceptual)\b",
        r"\b(?:is|are|as|be|being|represents?|provides?|offers?|presents?|proposes?|introduces?|constitutes?|makes?)\s+(?:the\s+|a\s+)?(?:very\s+)?first\s+(?:to|work|paper|study|attempt|approach|method|framework|benchmark|dataset|system|systematic|comprehensive|theoretical|rigorous|formal|principled|general|unified|known|one|of its kind|large-scale|result|analysis|effort|exploration|investigation|demonstration|model|algorithm|step toward|time)\b",
        r"\bfor the first time\b",
        r"\b(?:the|a)\s+(?:very\s+)?first\s+(?:[\w-]+\s+){0,3}?(?:guarantees?|bounds?|theorems?|characteri[sz]ations?|proofs?|algorithms?|benchmarks?|datasets?|frameworks?|analys[ie]s|results?|studies|study|works?|papers?|attempts?|methods?|models?|systems?|demonstrations?|evaluations?)\b(?!\s+(?:of|in) (?:the|this) (?:paper|section|table|figure))",
        r"\b(?:is|are|seems?|appears?)\s+(?:both\s+|truly\s+|genuinely\s+|entirely\s+|completely\s+)?(?:new|unique)\b(?!\s+to\b)",
        r"\b(?:fills?|filling|addresses?|addressing|closes?|closing|identif\w+|bridg\w+|tackl\w+|targets?)\s+(?:[\w-]+\s+){0,3}?gaps?\b",
        r"\b(?:unprecedented|breakthrough|conceptual leap|paradigm shift|previously infeasible|previously impossible|not previously possible)\b",
        r"\b(?:clear|significant|notable|major|substantial|important|meaningful)\s+advance(?:ment)?s?\s+(?:over|beyond)\b|\bnotable advance\b",
        r"\b(?:has|have|had)(?:\s+not|n't)\s+(?:yet\s+)?been\s+(?:\w+\s+)?(?:explored|studied|addressed|considered|investigated|examined|proposed|done|tackled)\b",
        r"\b(?:fresh|new|unique|novel|original|refreshing|unconventional|orthogonal|principled|distinct)\s+(?:[\w-]+\s+)?(?:perspective|viewpoint|angle|lens)\b",
        r"\b(?:address\w*|tackl\w*|stud\w+|explor\w+|investigat\w+|target\w*|identif\w+|focus\w* on|highlight\w*|fill\w*|an?|the|into|on)\s+(?:[\w-]+\s+){0,3}?(?:unexplored|overlooked|neglected|untouched|largely ignored)\b",
        r"\b(?:has|have|had)\s+(?:not|never|rarely|seldom)\s+been\s+(?:\w+\s+)?(?:explored|studied|addressed|considered|investigated|articulated|examined|proposed|done|tackled|discussed|noticed|identified|recognized|formalized|shown|reported|attempted)\b",
        r"\b(?:prior|previous|existing|earlier|most)\s+(?:\w+\s+){0,2}?(?:works?|studies|methods|approaches|literature|research)\s+(?:\w+\s+){0,2}?(?:(?:have|has|had|do|does|did)\s+)?(?:(?:not|never)\s+(?:been\s+)?(?:address|consider|explor|stud|tackl|model|handl|captur|investigat|examin|articulat|identif|recogni[sz]|formali[sz]|notic)\w*|overlooked|ignored|failed to|neglected|missed|lacked)\b",
        r"\b(?:fundamentally|substantially|significantly|clearly|conceptually|markedly|meaningfully|notably|radically|qualitatively)\s+(?:different|distinct|departs?|differs?)\s+from\b",
        r"\b(?:departs?|departure|distinct|differ\w*|diverg\w*) from (?:traditional |conventional |standard |most )?(?:prior|previous|existing|standard|conventional|traditional|most|the (?:prior|previous|existing|standard|conventional))\b",
        r"(?:\bnot|n't) (?:just|merely|simply|only|a mere|another|an?) (?:a |an )?(?:\w+\s+)?(?:incremental|minor tweak|tweak|small tweak|straightforward|simple (?:extension|combination|application))\b",
        r"\b(?:beyond|more than) (?:an? )?(?:merely |simply |just )?incremental\b",
        r"\b(?:genuinely|truly|entirely|completely|fundamentally|wholly|really|substantially)\s+new\b",
    )
)

# Descriptive "new X" statements: no signal under the reference's definition (a *weak* affirmation here,
# which the earlier rule, `--weak-affirmations oppose`, let block a not_novel label).
_WEAK_AFFIRM_PATTERNS: tuple[GuardedPattern, ...] = tuple(
    guarded(p)
    for p in (
        # what the work does, described as new ("proposes a new framework for X", "a new loss"): a description of
        # the method, not a statement that it did not exist before
        r"(?:^\W*|\b(?:establish\w*|sets?|marks?|enables?|yields?|gives?|derives?|creates?|proposes?)\s+)(?:an?\s+|the\s+)?new\s+(?:[\w-]+[\s,]+){0,3}?(?:ideas?|concepts?|approach(?:es)?|methods?|strateg\w+|setups?|settings?|problems?|formulations?|results?|bounds?|metrics?|pipelines?|frameworks?|dualit\w+|perspectives?|paradigms?|mechanisms?|techniques?|algorithms?|insights?|theor\w+|tasks?|architectures?|designs?|objectives?|lens|angle|directions?)\b",
        r"\b(?:propos\w*|introduc\w*|present\w*|provid\w*|offer\w*|develop\w*|design\w*|establish\w*|deriv\w*|creat\w*|uncover\w*|reveal\w*|open\w*|is|are|represents?|constitutes?|brings?|contributes?)\s+(?:a |an |the |several |two |three |some |genuinely |truly |entirely |completely |fundamentally )?(?:[\w-]+,?\s+){0,1}?new(?:,)?\s+(?:[\w-]+,?\s+){0,2}?(?:ideas?|concepts?|approach(?:es)?|methods?|methodolog\w+|frameworks?|mechanisms?|techniques?|algorithms?|formulations?|tasks?|problems?|settings?|architectures?|objectives?|paradigms?|metrics?|families|family|kernels?|strateg\w+|principles?|perspectives?|solutions?|analys[ie]s|insights?|findings?|tools?|directions?|losses|loss|theor\w+|bounds?|characteri[sz]ations?|notions?|guarantees?|class|lens|angle|view|understanding|connections?)\b",
        r"\b(?:introduc|propos|present|provid|contribut|curat|construct|build|built|releas|creat|collect|develop|offer|design|establish)\w*\s+(?:a|an|the|two|three|several|some)\s+(?:[\w-]+[\s,]+){0,1}?new\s+(?:[\w-]+[\s,]+){0,2}?(?:benchmarks?|datasets?|phenomen\w+|problems?|tasks?|settings?|resources?|corpus|corpora|environments?|testbeds?|suites?|applications?|use cases?|domains?|evaluation|protocols?|challenges?|formats?|modalit\w+|model|pipeline)\b",
        r"\b(?:their|its)\s+innovations?\b",
        # a topic little studied so far ("an underexplored problem", "rarely studied"): some prior work exists
        r"\b(?:underexplored|under-explored|understudied|under-studied|underrepresented)\b|\b(?:rarely|seldom) (?:been )?(?:studied|explored|addressed|considered|investigated)\b|\bremains? rare\b",
    )
)

# "novel" used for other things: novel views, generalising to novel classes/objects/tasks, ...
_NOVEL_SCOPE = guarded(
    r"\b(?:to|on|across|for|with|of|in|unseen|new|and|handle|handling|generali[sz]\w*|adapt\w*|transfer\w*|recogni[sz]\w*|detect\w*|segment\w*)\s+(?:\w+\s+)?novel\s+(?:[\w-]+\s+)?"
    r"(?:views?|classes|class|categor\w+|objects?|tasks?|environments?|domains?|scenes?|compounds?|molecul\w+|materials?|proteins?|species|words?|tokens?|instances?|entit\w+|users?|items?|prompts?|inputs?|situations?|concepts?|scenarios?|shapes?|poses?|identit\w+|subjects?|queries|query|data|samples?|images?|settings?|distributions?|graphs?|structures?|sequences?|cells?|drugs?|targets?|antibod\w+|genes?|combinations? of|skills?|problems?|games?|robots?|embodiments?|layouts?|maps?|languages?|characters?|styles?|motions?|actions?|attacks?|threats?)\b"
    r"|\bnovel[- ]view\b|\bnovel[- ]class\b|\bnovel[- ]categor\w+\b|\bnovel[- ]object\b"
    r"|\b(?:to|on|across|with)\s+(?:[\w-]+\s+){0,4}(?:or|and)\s+novel\b|\b(?:unseen|out-of-distribution|ood|held-out)\s+(?:[\w-]+\s+){0,3}(?:or|and|/)\s*novel\b"
)
_AFFIRM_NEGATION = guarded(
    rf"(?:\b{_NEG}\s+(?:[\w-]+[\s,]+){{0,5}}?$|(?:\bnot|n't)\s+(?:[\w-]+[\s,]+){{0,8}}?(?:any|significant|much|major|a|an)\s+(?:[\w-]+\s+){{0,2}}?$"
    rf"|\b(?:more|less)\s+(?:of\s+)?(?:an?\s+)?(?:[\w-]+\s+){{0,6}}?than\s+(?:an?\s+)?(?:[\w-]+\s+){{0,2}}?$|\bcannot be (?:considered|seen as|called|regarded as)\s+(?:[\w-]+\s+){{0,2}}?$)"
)
# "it is unclear whether this is novel": uncertainty about originality, not a denial of it
_AFFIRM_DOUBTED = guarded(r"\b(?:whether|if)\s+(?:[\w-]+\s+){0,6}?$")
_REQUEST = guarded(
    r"\b(?:how|difficult to|hard to|impossible to|should|please|explain|if you|if the authors|clarify|state|justify|elaborate|articulate|convince|would be|could|need to|needs to|encourage|recommend|suggest|would benefit|expect|it is important to|must|wonder|unclear|not clear|question|doubt|unsure|not sure|not convinced|whether)\b"
)
_TEMPLATE = guarded(r"\b(?:reviewers?|substantive assessment|each of the following dimensions)\b")
_QUOTED = re.compile(r"[\"“”]")
_KEEPS = guarded(
    r"\bwithout (?:sacrific|compromis|los|hurt|reduc|harm|affect)\w*\s+(?:[\w-]+\s+)?$|\bnot only\s+(?:[\w-]+\s+)?$"
)
_HEDGED = guarded(rf"\b{_HEDGE}\s+(?:\w+\s+)?$")
_CLAIM = guarded(
    r"\b(?:claims?|claimed|claiming|purports?|asserts?|describ\w+ (?:the work|the paper|it|this|the method|their \w+) as|exaggerat\w*|overstat\w*|frames?|framed|presented as|presents? (?:this|it|them) as|positions? (?:this|it) as|they write|authors write|(?:write|writes|state|states|stated)\s*:|the authors (?:state|say|argue|call|describe|present|emphasi[sz]e|stress|highlight|suggest|position)|authors (?:claim|state|argue)|is said to|is described as|marketed as|called|so-called|promis\w+|propos\w+ to be|advertised)\b"
)
_CONTRAST = re.compile(
    r"(?:;|\s+-{1,2}\s+|—|,?\s+\b(?:but|however|yet|nevertheless|nonetheless|although|though|whereas|while|despite|even though|albeit|except that|still|that said)\b)",
    re.IGNORECASE,
)
_CONCESSIVE_START = re.compile(
    r"^\W*(?:although|though|even though|while|whereas|despite|albeit|admittedly|granted|notwithstanding|even if)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r",\s+")
_QUESTION_NOVELTY = guarded(r"\b(?:novelty|originality|novel contributions?)\b")
# The cue lists tried as families: a clause is searched only with the patterns its words do not rule out.
_DISPUTE_FAMILY = GuardedFamily(_DISPUTE_PATTERNS)
_AFFIRM_FAMILY = GuardedFamily(_AFFIRM_PATTERNS)

# A bare "novelty"/"originality" affirms only when praised ("the novelty is clear", "strong originality").
_NOVELTY_PRAISED = guarded(
    r"\b(?:(?:novelty|originality) (?:is|of (?:the|this|their|its) \w+ (?:is|lies))\s+(?:\w+\s+){0,2}?(?:clear|high|significant|strong|evident|notable|considerable|substantial|good|great|solid|apparent|obvious|undeniable|a (?:key |major |main )?strength)|"
    r"(?:clear|high|significant|strong|notable|considerable|substantial|good|great|solid|genuine|real|true)\s+(?:novelty|originality)|"
    r"(?:novelty|originality) (?:lies|comes|stems|resides)|"
    r"(?:demonstrates?|shows?|has|exhibits?|brings?|offers?)\s+(?:\w+\s+)?(?:novelty|originality))"
)


def _affirm_in(clause: str) -> bool | str:
    """'negated', 'doubted', True (explicit), 'weak', or False; claims/requests only count before the cue."""
    hedged = False
    for pattern in _AFFIRM_FAMILY.candidates(clause):
        for m in pattern.finditer(clause):
            before = clause[max(0, m.start() - 60) : m.start()]
            if _HEDGED.search(before):
                hedged = True
                continue
            span = clause[max(0, m.start() - 40) : m.end() + 40]
            if m.group(0).startswith("novel") and _NOVEL_SCOPE.search(span):
                continue
            if len(_QUOTED.findall(clause[: m.start()])) % 2 == 1 or clause[
                max(0, m.start() - 1) : m.start()
            ] in ("‘", "'"):
                continue  # inside a quotation of the paper's own wording
            if _AFFIRM_NEGATION.search(before) and not _KEEPS.search(before):
                return "negated"
            if _AFFIRM_DOUBTED.search(before):
                return "doubted"
            if m.group(0) in ("novelty", "originality") and not _NOVELTY_PRAISED.search(clause):
                continue
            if _CLAIM.search(clause[: m.start()]) or _REQUEST.search(clause[: m.start()]):
                continue  # "the authors claim ... novel", "please explain why ... novel"
            return True
    if hedged:
        return "weak"
    for p in _WEAK_AFFIRM_PATTERNS:
        weak = p.search(clause)
        if (
            weak
            and not _CLAIM.search(clause[: weak.start()])
            and not _REQUEST.search(clause[: weak.start()])
        ):
            return "weak"
    return False


def _dispute_in(clause: str) -> bool:
    return any(p.search(clause) for p in _DISPUTE_FAMILY.candidates(clause))


def _unsure_in(clause: str) -> bool:
    return any(p.search(clause) for p in _UNSURE_PATTERNS)


_NEGATED_NEGATIVE = guarded(
    r"(?:\bnot|n't) (?:just|merely|simply|only|a mere|another|an?) (?:a |an )?(?:\w+\s+)?(?:incremental|minor tweak|tweak|small tweak|straightforward|simple (?:extension|combination|application))\b"
    r"|\b(?:beyond|more than) (?:an? )?(?:merely |simply |just )?incremental\b|\bnot incremental\b"
)
_PERFORMANCE_INCREMENTAL = guarded(
    r"\b(?:performance|gains?|improvements?|results?|accuracy|scores?|speed-?ups?|metrics?|margins?|benefits?|increases?)\b[^.;]{0,40}\bincremental\b"
    r"|\bincremental\s+(?:gains?|improvements?|performance|benefits?|increases?)\s+(?:in|on|for)\s+(?:\w+\s+)?(?:performance|accuracy|results|metrics?|scores?|benchmarks?|datasets?|tasks?)\b"
)
_INCREMENTAL = guarded(
    r"\b(?:is|are|seems?|appears?|feels?|looks?|rather|quite|somewhat|largely|mostly|fairly|very|too|only|merely|and|or|remains?|be|being)\s+(?:(?:relatively|rather|quite|somewhat|largely|mostly|fairly|very|too|only|merely|still|overall|generally|primarily|mainly|a bit|slightly|highly|more|an?)\s+){0,2}incremental\b"
    r"|\bincremental\s+(?:\w+\s+)?(?:contributions?|novelty|work|paper|improvements?|extensions?|steps?|changes?|advances?|ideas?|modifications?|approach|methods?|techniques?|variants?|progress|innovations?|gains?|updates?|additions?|in nature)\b"
    r"|^\W*incremental\b"
)


_DISCLAIMER = guarded(
    r"\b(?:i|we)\s+(?:do not|don't|am not|are not|'m not)\s+(?:\w+\s+)?(?:question\w*|doubt\w*|disput\w*|deny\w*|saying|claim\w*|suggest\w*)\b|\balready (?:discussed|mentioned|listed|raised|covered|described) (?:in|above|below|under)\b"
)


def _clause_polarity(clause: str, *, question: bool) -> str | None:
    if _DISCLAIMER.search(clause):
        return (
            None  # "I do not question that they are the first", "already discussed in Weaknesses"
        )
    if _NEGATED_NEGATIVE.search(clause):
        return None if question else AFFIRM
    if _TEMPLATE.search(clause):
        return None
    if question:  # a question asks; at most it doubts ("what is new compared to X?")
        if _unsure_in(clause) or (_dispute_in(clause) and _QUESTION_NOVELTY.search(clause)):
            return WEAK_DISPUTE
        return None
    if _dispute_in(clause) or (
        _INCREMENTAL.search(clause) and not _PERFORMANCE_INCREMENTAL.search(clause)
    ):
        return DISPUTE
    found = _affirm_in(clause)
    if found == "negated":
        return DISPUTE
    if found is True:
        return AFFIRM
    if found == "doubted" or _unsure_in(clause):
        return WEAK_DISPUTE
    if found == "weak":
        return WEAK_AFFIRM
    return None


def _split_clauses(sentence: str) -> tuple[list[str], int]:
    """Clauses split at contrast markers; also the index of the clause that carries the main point."""
    low = sentence.lower()
    if _CONCESSIVE_START.match(low):
        # "Although X is not new, applying it to Y is novel": the clause after the first comma is main.
        parts = _CLAUSE_BREAK.split(low, maxsplit=1)
        if len(parts) == 2:
            return parts, 1
    parts = [p for p in _CONTRAST.split(low) if p and p.strip()]
    if len(parts) <= 1:
        return [low], 0
    markers = [m.group(0).strip(" ,").lower() for m in _CONTRAST.finditer(low)]
    # "X, but Y" / "X; however, Y": the last clause after a but-like marker carries the point;
    # "X, while/whereas/although Y": the first clause does.
    main = len(parts) - 1
    if markers and markers[-1] in {
        "while",
        "whereas",
        "although",
        "though",
        "even though",
        "albeit",
        "despite",
    }:
        main = len(parts) - 2
    return parts, max(0, main)


_HEADING = re.compile(r"^\W*([\w’'-]+(?:[ \t]+[\w’'-]+){0,4})\W*:\s*(.*)$")


def classify_sentence(sentence: str) -> Polarity | None:
    """Polarity of one sentence: AFFIRM, DISPUTE or None (weak statements count with their polarity here)."""
    found = classify(sentence)
    return None if found is None else found[0]


@functools.lru_cache(maxsize=1 << 16)
def classify(sentence: str) -> tuple[Polarity, bool] | None:
    """(polarity, weak) of one sentence, or None (memoised); weak marks what is no signal under the reference's
    definition: a hedged or merely descriptive affirmation, or hedged uncertainty about originality."""
    found = _classify(sentence)
    if found is None:
        return None
    return {
        AFFIRM: (AFFIRM, False),
        WEAK_AFFIRM: (AFFIRM, True),
        DISPUTE: (DISPUTE, False),
        WEAK_DISPUTE: (DISPUTE, True),
    }[found]


_REFERENCE_LINE = guarded(
    r"^\W*\[\d+\]|arxiv(?: preprint)?|proceedings of|\bconference on\b|\bjournal of\b|\bvol\.\s*\d|\bpp\.\s*\d|\bdoi:|et al\.?,? \(?(?:19|20)\d\d\)?[.,]",
    re.IGNORECASE,
)

_BIB_ENTRY = re.compile(r"^\W*\[\d+\]")


def _classify(sentence: str) -> str | None:
    low = sentence.lower()
    if not _QUICK.search(low):
        return None
    if (
        _REFERENCE_LINE.search(sentence)
        and len(_REFERENCE_LINE.findall(sentence)) >= 2
        or _BIB_ENTRY.match(sentence)
    ):
        return None  # a bibliography entry, not a statement
    heading = _HEADING.match(sentence) if ":" in sentence[:60] else None
    if heading:
        # "Limited novelty: ..." carries a polarity; "Novelty: ..." / "Originality:" is only a topic label.
        if _dispute_in(heading.group(1).lower()) or _INCREMENTAL.search(heading.group(1).lower()):
            return DISPUTE
        if _unsure_in(heading.group(1).lower()):
            return WEAK_DISPUTE  # "Unclear novelty: ..."
        rest = heading.group(2).strip()
        if not rest:
            return None
        polarity = _classify(rest)
        head = _clause_polarity(heading.group(1).lower(), question=False)
        if polarity is None and head in (AFFIRM, WEAK_AFFIRM):
            return head  # "Novel geometric perspective: ..." -- a heading that itself affirms
        return polarity
    question = low.rstrip().endswith("?")
    whole = _clause_polarity(low, question=question)
    if whole is None:
        return None
    clauses, main = _split_clauses(sentence)
    if len(clauses) == 1:
        return whole
    pols = [_clause_polarity(c, question=question) for c in clauses]
    found = {p for p in pols if p is not None}
    if not found:
        # a pattern that spans a clause boundary ("combination of existing ..., but")
        return whole
    if len(found) == 1:
        return found.pop()
    if pols[main] is not None:
        return pols[main]
    explicit = found & {AFFIRM, DISPUTE}
    if explicit:
        return DISPUTE if DISPUTE in explicit else AFFIRM
    return WEAK_DISPUTE if WEAK_DISPUTE in found else WEAK_AFFIRM


_QUICK = guarded(
    r"novel|original|innovat|new|first|increment|before|already|prior|previous|existing|known|established|"
    r"creative|pioneer|groundbreak|unexplored|underexplored|overlooked|neglected|combin|straightforward|"
    r"trivial|resembl|similar|mirror|replicat|derivative|differ|distinct|depart|extension|application|"
    r"contribution|fresh|unique|untouched|understudied|studied|explored|rebrand|repackag|renam|adapt|"
    r"borrow|standard|common|applies|applying|simply|merely|close|identical|overlap|gap|unprecedented|"
    r"breakthrough|leap|rare|underrepresented|orthogonal|perspective|viewpoint|advance|shift|engineering|"
    r"question|integrative|old\b|well[- ]|rel(?:y|ies) on|follows?|adopted|used in"
)


@dataclass
class OfflineExtractor:
    """Sentence-level cue extractor with negation, hedge, scope and contrast handling (no model)."""

    fields: Sequence[str] = field(default_factory=lambda: SIGNAL_FIELDS)
    name: str = "offline"

    def extract(self, review: Review) -> ReviewSignals:
        """Signals of one review: every sentence of its signal fields with a polarity."""
        signals: list[Signal] = []
        for fname, text in review.signal_text(self.fields):
            for sentence in split_sentences(text):
                found = classify(sentence)
                if found is not None:
                    signals.append(Signal(found[0], sentence, fname, weak=found[1]))
        return ReviewSignals(review.review_id, tuple(signals))

    def candidates(self, review: Review) -> list[tuple[str, str]]:
        """(field, sentence) pairs mentioning anything novelty-related: the pre-filter for an LLM."""
        out: list[tuple[str, str]] = []
        for fname, text in review.signal_text(self.fields):
            for sentence in split_sentences(text):
                if _QUICK.search(sentence.lower()):
                    out.append((fname, sentence))
        return out


def _code_digest(path: Path) -> bytes:
    """The module's syntax tree without docstrings: layout, comments and docstrings leave it unchanged."""
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(tree).encode()


def offline_fingerprint() -> str:
    """SHA-256 of the offline extractor's code (cue lists, splitter, regex guard): calibration figures are tied to it."""
    h = hashlib.sha256()
    for path in (Path(__file__), Path(sentences_module.__file__), Path(guarded_regex.__file__)):
        h.update(_code_digest(path))
    h.update(",".join(SIGNAL_FIELDS).encode())
    return h.hexdigest()
