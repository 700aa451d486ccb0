"""The panel judge (`-T judge=panel`): several member models judge each item, one verdict by a declared rule.

Members are named once, in `-T panel=...`:

- a comma-separated list of Inspect model names, `-T panel=planted/first_shown,planted/accurate/x,
  local/gemma-3-270m` (each member with default model args), or
- a YAML/JSON list whose entries are a model name or a mapping in the shape of Inspect's
  `--model-role` configs: `model` (required), `model_args` (the member's own `-M`, e.g.
  `{grammar: pairwise}` for `local/gemma-3-270m`), any `GenerateConfig` field (`temperature`,
  `max_tokens`, ...), plus `name` (the member's name in records and reports; default its model
  name, and two members need distinct names) and `weight` (`-T panel_rule=weighted` only).
  E.g. `-T 'panel=[planted/first_shown, planted/accurate/x, {model: local/gemma-3-270m,
  model_args: {grammar: pairwise}}]'`.

Credentials never go in `-T panel` (task args are written to the log): a member model arg named like
one (`api_key`, `..._token`, ...) is refused; providers read keys from the environment.

The members are the task's Inspect model roles (one role per member, named after it), so Inspect
logs each member's usage apart (`role_usage`) and its own model args (`eval.model_roles`). The eval's
own model plays no part: a panel runs with `--model none` (under another model every sample errors
with that one line before any call).

Every member runs the prompted judge (`judges.llm.prompted`) on the same rendered prompt: the same
prompt messages, orders, k calls per order, call seeds and cache scopes as a single-judge run of its
model, so a member's call that a single-judge run of the same model, prompt, item, seed and
generation config already made is served from Inspect's cache (its key: generation config, prompt
messages, the provider's base URL, the scopes and the epoch; not the role). Members call together;
each call record names its `member` and, when the provider reported usage, its `input_tokens`,
`output_tokens` and `cost_usd` (as made: a call served from the cache keeps what it cost when it
was made). Each member's verdict is its own calls aggregated as one judge's are; the panel's verdict
comes from `judges.panel_votes` (rules `majority`, `weighted`, `unanimity`; quorum
`-T panel_quorum=n`, 0 = more than half of the members; the tie rule).

A member's failed call is an `error` call of that member, and makes the panel's verdict `error`
(`judges.panel_votes`): the other members still answer and their calls are kept, but their verdicts
are not the panel's. As for any judge, a sample with a failed call errors in Inspect (`could not
judge: N of M calls failed (member ...; A of P members answered, Q needed): <cause>`), so `inspect
eval-set` retries it, and only the failed calls are made again (the others come from the cache). Other LLM judge kinds (agentic, rubric, ...) are not members: their loops have their own
prompts and transcripts per call, which a shared prompt cannot give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task
from inspect_ai.model import GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect
from pydantic import ValidationError

from judgeaudit.judges.build import judge_task
from judgeaudit.judges.llm.prompted import base_seed, call_jobs, plan_messages
from judgeaudit.judges.llm.retrieval import retrieve_prior_work
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.panel_votes import (
    DEFAULT_RULE,
    PanelOutcome,
    PanelRule,
    PanelRuleError,
    member_verdicts,
    panel_failure,
    panel_outcome,
)
from judgeaudit.judges.prompts import PromptPlan, load_template
from judgeaudit.judges.records import bounded, leave_records
from judgeaudit.judges.scorer import novelty, pool_calls
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, CallRecord, SplitRule
from judgeaudit.providers.secrets import secret_name
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS

NO_MODEL = "none/none"  # the eval model of a panel run (`--model none`)
MEMBER_KEYS: frozenset[str] = frozenset({"model", "name", "weight", "model_args"})
GENERATE_KEYS: frozenset[str] = frozenset(GenerateConfig.model_fields)


@dataclass(frozen=True)
class Member:
    """One panel member: its name, Inspect model name, model args, generation config and weight."""

    name: str
    model: str
    model_args: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    weight: float = 1.0


def _refuse(why: str) -> TaskOptionError:
    return TaskOptionError(f"-T panel: {why}")


def _member(entry: Any, position: int) -> Member:
    """One member from a list entry: a model name, or a mapping (see the module docstring)."""
    if isinstance(entry, str):
        if not entry.strip():
            raise _refuse(f"member {position} has no model name")
        return Member(entry.strip(), entry.strip())
    if not isinstance(entry, Mapping):
        raise _refuse(
            f"member {position} must be a model name or a mapping with `model`, got {entry!r}"
        )
    unknown = sorted(set(entry) - MEMBER_KEYS - GENERATE_KEYS)
    if unknown:
        raise _refuse(
            f"member {position}: unknown key(s) {', '.join(map(str, unknown))} (a member takes "
            f"{', '.join(sorted(MEMBER_KEYS))} and generation config fields such as temperature)"
        )
    model = entry.get("model")
    if not isinstance(model, str) or not model.strip():
        raise _refuse(f"member {position} needs `model` (an Inspect model name)")
    args = entry.get("model_args") or {}
    if not isinstance(args, Mapping):
        raise _refuse(f"member {position} ({model}): model_args must be a mapping, got {args!r}")
    secret = sorted(str(k) for k in args if secret_name(str(k)))
    if secret:
        raise _refuse(
            f"member {position} ({model}): model arg(s) {', '.join(secret)} look like credentials; task "
            "args are written to the log, so give credentials through the environment"
        )
    name = entry.get("name", model)
    if not isinstance(name, str) or not name.strip():
        raise _refuse(f"member {position} ({model}): name must be text, got {name!r}")
    weight = entry.get("weight", 1.0)
    config = {k: v for k, v in entry.items() if k in GENERATE_KEYS}
    try:
        GenerateConfig(**config)
    except ValidationError as exc:
        raise _refuse(f"member {position} ({model}): {bounded(str(exc))}") from None
    return Member(name.strip(), model.strip(), dict(args), config, weight)


def parse_members(value: Any) -> tuple[Member, ...]:
    """The members of `-T panel=...` (see the module docstring); a one-line error naming what is wrong."""
    if value is None or value == "" or value == []:
        raise TaskOptionError(
            "-T judge=panel needs its members: -T panel=<model>,<model>[,...] "
            "(see judgeaudit.judges.llm.panel)"
        )
    entries = [part for part in value.split(",")] if isinstance(value, str) else value
    if not isinstance(entries, list | tuple):
        raise _refuse(
            f"expected a comma-separated list of models or a YAML/JSON list, got {value!r}"
        )
    return tuple(_member(entry, i + 1) for i, entry in enumerate(entries))


def rule_of(members: Sequence[Member], rule: str = DEFAULT_RULE, quorum: int = 0) -> PanelRule:
    """The aggregation rule of these members; a one-line error for a rule, quorum or weight that cannot apply."""
    try:
        return PanelRule(
            tuple(m.name for m in members), rule, quorum, tuple(m.weight for m in members)
        )
    except PanelRuleError as exc:
        raise TaskOptionError(f"-T judge=panel: {exc}") from None


def member_models(members: Sequence[Member]) -> dict[str, Model]:
    """Role name (the member's name) -> its model, built now so a bad model or model arg fails at task
    construction, with the member named."""
    models = {}
    for member in members:
        try:
            models[member.name] = get_model(
                member.model, config=GenerateConfig(**member.config), **member.model_args
            )
        except Exception as exc:  # noqa: BLE001 - any failure to build a member is the member's spec: one line
            raise _refuse(
                f"member {member.name!r}: cannot build model {member.model!r}: "
                f"{bounded(str(exc) or type(exc).__name__)}"
            ) from None
    return models


def refuse_eval_model() -> None:
    """A one-line error when the eval runs a model (the panel's models are its members: `--model none`);
    called per sample, where the active model is the eval's (outside an eval it may be any earlier one)."""
    active = str(get_model())
    if active != NO_MODEL:
        raise TaskOptionError(
            f"-T judge=panel: the panel's models are its members (-T panel=...); run it with "
            f"--model none, not --model {active}"
        )


def member_record(record: CallRecord, output: ModelOutput | None, member: str) -> dict[str, Any]:
    """A member's call record: the prompted judge's record, the member's name, and the call's usage
    as made (when the provider reported it)."""
    out: dict[str, Any] = {**record.to_dict(), "member": member}
    usage = output.usage if output is not None else None
    if usage is not None:
        out.update(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=usage.total_cost,
        )
    return out


def answer_line(outcome: PanelOutcome, rule: PanelRule) -> str:
    """The panel's answer as the transcript shows it: its verdict, rule, answers and every member's verdict."""
    tie = "; no majority, the tie rule decided" if outcome.no_majority else ""
    members = ", ".join(f"{m}: {v}" for m, v in outcome.members.items())
    return (
        f"Panel verdict: {outcome.verdict} (rule {rule.rule}; {outcome.answered} of {len(rule.members)} members "
        f"answered, {rule.needed()} needed{tie}). Members: {members}"
    )


@solver
def panel_judge(
    kind: str,
    rule: dict[str, Any],
    prompt: str = "reference",
    k: int = 1,
    both_orders: bool = False,
    seed: int | None = None,
    cache: bool = True,
    split_rule: str = DEFAULT_SPLIT_RULE,
) -> Solver:
    """Every member (a model role) asks k times per presented order, as the prompted judge does; the
    panel's verdict by `rule` (`PanelRule.to_dict`) is the sample's answer."""
    panel = PanelRule.from_dict(rule)
    split: SplitRule = split_rule  # type: ignore[assignment]
    load_template(kind, prompt)  # fail at task construction on an unknown prompt

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        refuse_eval_model()
        name, orders, messages = plan_messages(kind, state, prompt, both_orders)
        seed_of_sample = base_seed(state, seed)
        jobs, owners = [], []
        for member in panel.members:
            member_jobs = call_jobs(
                get_model(role=member), kind, orders, messages, k, seed_of_sample, cache
            )
            jobs += member_jobs
            owners += [member] * len(member_jobs)
        results = await collect(*jobs)
        calls = [
            member_record(record, output, member)
            for (record, output), member in zip(results, owners, strict=True)
        ]
        outcome = panel_outcome(kind, member_verdicts(kind, calls, panel, split), panel, split)
        answer = answer_line(outcome, panel)
        state.messages = list(messages[:1])
        state.output = ModelOutput.from_content(model="panel", content=answer)
        leave_records(
            state,
            calls,
            name,
            orders,
            k,
            answer,
            summary=lambda c: panel_failure(c, outcome, panel),
        )
        return state

    return solve


def panel_task(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str,
    probe: str | None,
    seed: int,
    resamples: int,
    panel: Any = None,
    panel_rule: str = DEFAULT_RULE,
    panel_quorum: int = 0,
    prompt: str = "reference",
    k: int = 1,
    both_orders: bool = False,
    cache: bool = True,
    split_rule: str = DEFAULT_SPLIT_RULE,
    retrieval: int = 0,
    retrieval_corpus: str = BUNDLED_CORPUS,
) -> Task:
    """Catalog factory of `panel`: the members of `-T panel`, each the prompted judge with these options
    (with `retrieval` > 0 the top-k prior work per idea is placed before the ideas for every member),
    aggregated by `-T panel_rule` with quorum `-T panel_quorum`."""
    if retrieval < 0:
        raise TaskOptionError(f"retrieval must be >= 0 (0 = no retrieval), got {retrieval}")
    members = parse_members(panel)
    rule = rule_of(members, panel_rule, panel_quorum)
    roles = member_models(members)
    spec = {
        **rule.to_dict(),
        "models": [m.model for m in members],
        "model_args": [m.model_args for m in members],
    }
    judge_solver = panel_judge(
        kind,
        rule.to_dict(),
        prompt=prompt,
        k=k,
        both_orders=both_orders,
        seed=seed,
        cache=cache,
        split_rule=split_rule,
    )
    solvers: list[Solver] = (
        [retrieve_prior_work(retrieval, retrieval_corpus), judge_solver]
        if retrieval
        else [judge_solver]
    )
    return judge_task(
        kind,
        judge,
        dataset,
        solvers,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        split_rule=split_rule,
        metadata={"retrieval": retrieval, "prompt": prompt, "panel": spec},
        scorer=novelty(split_rule=split_rule, kind=kind, panel=rule.to_dict()),  # type: ignore[arg-type]
        reducer=pool_calls(kind, split_rule, panel=rule.to_dict()),  # type: ignore[arg-type]
        prompt_plan=None if retrieval else PromptPlan(kind, prompt, both_orders),
        model_roles=roles,
    )
