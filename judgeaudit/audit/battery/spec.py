"""What defines one audit (`AuditSpec`), its checks before anything runs, and its redaction for the card."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgeaudit.arms.transforms import PROBES
from judgeaudit.audit.applicability import needs_model
from judgeaudit.errors import ExitCode, UserError
from judgeaudit.judges.kinds import DEFAULT_JUDGE, judge_names
from judgeaudit.judges.llm.panel import parse_members
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED

DEFAULT_DATASET = "iclr2026/human_only"
# Every probe applies to pairwise items; position (swapping the two ideas) has nothing to swap in a
# pointwise item.
PROBES_BY_KIND: dict[str, tuple[str, ...]] = {
    "pairwise": PROBES,
    "pointwise": tuple(p for p in PROBES if p != "position"),
}
# Probes that run as their own task; `repeat` is the second unperturbed run.
TASK_PROBES: frozenset[str] = frozenset(PROBES) - {"repeat"}
PANEL = "panel"  # the panel judge (judgeaudit.judges.llm.panel): its members are its models
NO_MODEL = "none"
# Task arguments the audit sets itself (or through its own options); not allowed as -T options.
RESERVED_TASK_ARGS: dict[str, str] = {
    "dataset": "--dataset",
    "seed": "--seed",
    "probe": "--probes",
    "judge": "--judge",
    "prompt": "--prompt",
    "cache": "--no-cache",
    "resamples": "--resamples",
    "idea_format": "nothing (the audit judges abstracts)",
}


class AuditError(UserError, ValueError):
    """An audit that cannot run or cannot be read (bad options, failed tasks, missing results)."""


class CouldNotJudge(AuditError):
    """The battery did not complete in a way a card can state (an eval failed, was cancelled or
    left no usable sample); the message is one line starting `could not judge: `."""

    exit_code = ExitCode.COULD_NOT_JUDGE


@dataclass(frozen=True)
class AuditSpec:
    """Everything that defines one audit."""

    model: str
    prompt: str = "reference"
    dataset: str = DEFAULT_DATASET
    kind: str = "pairwise"
    limit: int | None = None
    seed: int = DEFAULT_SEED
    probes: tuple[str, ...] = PROBES_BY_KIND["pairwise"]
    cache: bool = True
    resamples: int = DEFAULT_RESAMPLES
    gates_file: str | None = None
    model_args: dict[str, Any] = field(default_factory=dict)
    judge: str = DEFAULT_JUDGE
    judge_options: dict[str, Any] = field(default_factory=dict)
    generated: tuple[str, ...] = ()
    confidence: float = (
        DEFAULT_CONFIDENCE  # of every interval; below 95% only at a look of `audit.sequential`
    )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; model args and judge options with secret-looking names are redacted."""
        return {
            "judge": self.judge,
            "judge_options": safe_model_args(self.judge_options),
            "model": self.model,
            "model_args": safe_model_args(self.model_args),
            "prompt": self.prompt,
            "dataset": self.dataset,
            "kind": self.kind,
            "limit": self.limit,
            "seed": self.seed,
            "probes": list(self.probes),
            "cache": self.cache,
            "resamples": self.resamples,
            "gates_file": self.gates_file,
            "generated": list(self.generated),
            "confidence": self.confidence,
        }


_SECRET_WORDS = ("key", "token", "secret", "password", "auth", "credential")


def safe_model_args(args: dict[str, Any]) -> dict[str, Any]:
    """Model args fit for a card: secret-looking names redacted, lists and mappings of such values kept
    (a panel's `-T panel` list), anything else by type name."""
    out: dict[str, Any] = {}
    for name, value in sorted(args.items()):
        if any(w in name.lower() for w in _SECRET_WORDS):
            out[name] = "<redacted>"
        else:
            out[name] = _safe_value(value)
    return out


def _safe_value(value: Any) -> Any:
    """A scalar as it is, a list or mapping with its values made safe, anything else by type name."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_safe_value(v) for v in value]
    if isinstance(value, dict):
        return safe_model_args(value)
    return f"<{type(value).__name__}>"


def task_option_names(kind: str) -> list[str]:
    """The judge task options `-T` may set for `kind` (the task's parameters the audit leaves open)."""
    import inspect

    make = novelty_pairwise if kind == "pairwise" else novelty_pointwise
    return [p for p in inspect.signature(make).parameters if p not in RESERVED_TASK_ARGS]


def check_spec(spec: AuditSpec) -> None:
    """Reject an unknown judge kind, a -T option the audit sets itself or the task lacks, and
    `--model none` for a judge that calls an LLM."""
    if spec.judge not in judge_names():
        raise AuditError(f"unknown judge {spec.judge!r}; choose one of: {', '.join(judge_names())}")
    if spec.kind not in PROBES_BY_KIND:
        raise AuditError(f"kind must be 'pairwise' or 'pointwise', got {spec.kind!r}")
    for key in spec.judge_options:
        if key in RESERVED_TASK_ARGS:
            raise AuditError(
                f"-T {key}=... is set by the audit itself; use {RESERVED_TASK_ARGS[key]}"
            )
        if key not in task_option_names(spec.kind):
            raise AuditError(
                f"-T {key}: not an option of the {spec.kind} judge task "
                f"(options: {', '.join(task_option_names(spec.kind))})"
            )
    if spec.judge == PANEL:
        if spec.model != NO_MODEL:
            raise AuditError(
                f"--judge {PANEL}: the panel's models are its members (-T panel=...); give --model "
                f"{NO_MODEL}, not --model {spec.model}"
            )
    elif spec.model == NO_MODEL and needs_model(spec.judge, spec.judge_options):
        raise AuditError(
            f"judge {spec.judge!r} calls an LLM: give it a --model (--model none works only for "
            "the metric, distance and concept judges, the latter with keyphrase concepts)"
        )


def judge_models(spec: AuditSpec) -> tuple[str, ...]:
    """The models whose backbone is the judge's own: `--model`, or a panel's members (`-T panel`)."""
    if spec.judge == PANEL:
        return tuple(m.model for m in parse_members(spec.judge_options.get("panel")))
    return (spec.model,)
