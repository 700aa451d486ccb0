"""Which probes can apply to which judge kind (`-T judge=...`), and the stated reason when one cannot.

A probe arm changes the idea texts (verbosity, surface, injection), the presentation order
(position), the prompt's cue slot or prompt variant (presumption), the generation seed
(repeat), or selects generated ideas (self_preference). A judge that never sees what a probe
changes would score it as perfectly robust, which says nothing: such probes are reported as
*not applicable* with the reason below, and their gates cannot affect the verdict.

- Score judges (a numeric score per idea, no LLM: `metric_*`, `distance_*`, `concept_*`, i.e.
  `judgeaudit.audit.surface_ratio.score_judges()`): they read only the idea texts, one idea at a
  time. Position (no presentation order), presumption (the cue and the framing prompt change
  no text) and self_preference (no LLM backbone; it applies with `-T concepts=llm`) do not apply; verbosity, surface and
  injection edit the texts they read, and repeat checks that they are deterministic.
- `rubric`, `two_stage`: one scoring call per idea with the judge's own prompt, which has no
  cue slot: position and presumption do not apply.
- `ai_scientist`, `novelty_checker`: their per-sample search context refuses the probe's
  forced orders, cue and prompt variant (`judges.llm.retrieval.ItemSearchContext`): position and
  presumption do not apply.
- `prompted` (with or without `-T retrieval=k`) and `agentic` render the probe's order, cue
  and prompt variant (`judges.prompts.plan_calls` / `render_call`): every probe applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgeaudit.audit.surface_ratio import score_judges

NO_ORDER_SCORE = (
    "this judge scores each idea on its own, with no presentation order, so swapping the "
    "order cannot change its verdict"
)
NO_PROMPT_SCORE = (
    "this judge reads only the idea texts; the presumption cue and framing prompt change no "
    "text, so the probe could only measure zero"
)
NO_BACKBONE = "this judge has no LLM backbone, so no idea can come from its own backbone"
OWN_CALL_PER_IDEA = (
    "this judge scores each idea in its own call: there is no presentation order to swap"
)
NO_CUE_SLOT = (
    "this judge's own prompt has no cue slot and ignores the framing prompt variant, so the "
    "probe could only measure zero"
)
REFUSES_ORDER = "this judge uses its own presentation and refuses the probe's forced orders"
REFUSES_PROMPT = "this judge uses its own prompt and refuses the probe's cue and framing prompt"

LLM_LIMITS: dict[str, dict[str, str]] = {
    "rubric": {"position": OWN_CALL_PER_IDEA, "presumption": NO_CUE_SLOT},
    "two_stage": {"position": OWN_CALL_PER_IDEA, "presumption": NO_CUE_SLOT},
    "ai_scientist": {"position": REFUSES_ORDER, "presumption": REFUSES_PROMPT},
    "novelty_checker": {"position": REFUSES_ORDER, "presumption": REFUSES_PROMPT},
}


def is_score_judge(judge: str) -> bool:
    """Whether `judge` gives a numeric score per idea (metric, distance, concept judges)."""
    return judge in score_judges()


def needs_model(judge: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether `judge` with these task options calls an LLM (`-T concepts=llm` makes a concept judge do so)."""
    return not is_score_judge(judge) or (options or {}).get("concepts", "keyphrase") != "keyphrase"


def inapplicable_probes(judge: str, options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Probe -> why it cannot apply to `judge` with these task options (empty when every probe applies)."""
    if is_score_judge(judge):
        limits = {"position": NO_ORDER_SCORE, "presumption": NO_PROMPT_SCORE}
        if not needs_model(
            judge, options
        ):  # an LLM concept extractor is a backbone whose ideas it may favour
            limits["self_preference"] = NO_BACKBONE
        return limits
    return dict(LLM_LIMITS.get(judge, {}))
