"""Which probes can apply to which judge kind (`-T judge=...`), and the stated reason when one cannot
(an unknown kind: every probe applies and it calls a model; the audit refuses it before asking).

The reasons are declared with each judge kind (`judgeaudit.judges.kinds`, `JudgeSpec.limits`):

- Score judges (a numeric score per idea, no LLM: `metric_*`, `distance_*`, `concept_*`): they
  read only the idea texts, one idea at a time. Position (no presentation order), presumption
  (the cue and the framing prompt change no text) and self_preference (no LLM backbone; it
  applies with `-T concepts=llm`) do not apply; verbosity, surface and injection edit the texts
  they read, and repeat checks that they are deterministic.
- `rubric`, `two_stage`: one scoring call per idea with the judge's own prompt, which has no
  cue slot: position and presumption do not apply.
- `ai_scientist`, `novelty_checker`: their per-sample search context refuses the probe's
  forced orders, cue and prompt variant (`judges.llm.retrieval.ItemSearchContext`): position and
  presumption do not apply.
- `prompted` (with or without `-T retrieval=k`), `agentic` and `panel` render the probe's order,
  cue and prompt variant (`judges.prompts.plan_calls` / `render_call`): every probe applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgeaudit.judges.kinds import JUDGES

__all__ = ["inapplicable_probes", "is_score_judge", "needs_model"]


def is_score_judge(judge: str) -> bool:
    """Whether `judge` gives a numeric score per idea (metric, distance, concept judges)."""
    return judge in JUDGES and JUDGES[judge].scores


def needs_model(judge: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether `judge` with these task options calls an LLM (`-T concepts=llm` makes a concept judge do so)."""
    spec = JUDGES.get(judge)
    return spec.calls_model(options) if spec else True


def inapplicable_probes(judge: str, options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Probe -> why it cannot apply to `judge` with these task options (empty when every probe applies)."""
    spec = JUDGES.get(judge)
    return spec.inapplicable(options) if spec else {}
