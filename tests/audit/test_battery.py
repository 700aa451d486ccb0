"""`judgeaudit audit` end to end: scripted mockllm judges of known behaviour through real Inspect
eval-sets (the judge tasks, the probe transforms, the logs), then readings, gates and the card.

The judges are test doubles for a real LLM (none is reachable in unit tests): Inspect's own
`mockllm/model` with a callable `custom_outputs` that reads the rendered prompt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted
from fixtures.probe_judges.items import widened_set
from helpers.items import FIXTURES

from judgeaudit.audit.battery import AuditError, AuditResult, AuditSpec, claim_out_dir
from judgeaudit.audit.run import run_audit
from judgeaudit.data.contract import PairItem
from judgeaudit.data.jsonl import read_items, write_items

FIX = FIXTURES / "probe_items"
OWN, OTHER = "mockllm/model", "openai/gpt-4o"
HOUSE = "Drafted with the house model."


COPIES = 5  # the 4 fixture pairs 5 times over: 20 items, enough for a clear bias to fail its gate
# Passing needs more: a gate passes when its whole interval lies in the pass region, and with every
# item clean the widest are the self-preference gap (0 of 46 wins against 0 of 46: [-0.095, 0.095],
# under 0.10) and the invalid rate (0 of n: Clopper-Pearson upper end 1 - 0.025^(1/n) <= 0.05 from
# n = 72); 23 copies give 92 items.
PASSING_COPIES = 23


def human_generated_set(
    root: Path, house_mark: bool = False, generator: str | None = None, copies: int = COPIES
) -> Path:
    """The widened fixture pairs with their not-novel side made generated: by the judge's own backbone
    (mockllm/model) on even pairs, by another on odd ones (all by `generator` when given, as in a
    set generated per backbone); `house_mark` tags the own ones."""
    pairs = []
    source = widened_set(root / "source", "pairwise", copies)
    for k, pair in enumerate(read_items(source / "pairwise.jsonl", "pairwise")):
        assert isinstance(pair, PairItem)
        side = "b" if pair.gold == "a" else "a"
        idea = pair.idea_b if side == "b" else pair.idea_a
        own = k % 2 == 0 if generator is None else generator == OWN
        text = idea.text + (" " + HOUSE if own and house_mark else "")
        gen = replace(idea, source="generated", generator=OWN if own else OTHER, text=text)
        pairs.append(replace(pair, setup="human_generated", **{f"idea_{side}": gen}))
    root.mkdir(parents=True, exist_ok=True)
    write_items(root / "pairwise.jsonl", pairs)
    return root


def self_preferrer(prompt: str) -> str:
    """Picks an idea drafted with its own backbone (the house mark) whenever one is shown; accurate otherwise."""
    shown = scripted.ideas(prompt)
    for label, text in zip("AB", shown, strict=False):
        if HOUSE in text:
            return label
    return scripted.accurate(prompt)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own Inspect cache: scripted judges share the model name."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


class Counting:
    """Wraps a scripted reply and counts the model calls that reach it."""

    def __init__(self, policy: Callable[[str], str]) -> None:
        self.reply = scripted.judge(policy)
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.reply(*args)


def audit(
    policy: Callable[[str], str],
    out: Path,
    probes: tuple[str, ...],
    kind: str = "pairwise",
    dataset: Path | None = None,
    generated: tuple[str, ...] = (),
) -> tuple[AuditResult, dict[str, Path], Counting]:
    """Run an audit of a scripted judge on the probe fixture items (widened to >= 20 items by default)."""
    if dataset is None:
        dataset = widened_set(out.parent / f"{kind}-set", kind, COPIES if kind == "pairwise" else 3)
    counter = Counting(policy)
    spec = AuditSpec(
        model=OWN,
        dataset=str(dataset),
        kind=kind,
        probes=probes,
        resamples=1000,
        model_args={"custom_outputs": counter},
        generated=generated,
    )
    result, paths = run_audit(spec, out)
    return result, paths, counter


def outcomes(result: AuditResult) -> dict[str, str]:
    """Gate name -> outcome."""
    return {r.gate.name: r.outcome for r in result.gates}


@pytest.mark.slow
def test_accurate_unbiased_judge_passes_every_gate_and_resumes(tmp_path: Path) -> None:
    hg = human_generated_set(tmp_path / "hg", copies=PASSING_COPIES)
    started = time.perf_counter()
    result, paths, counter = audit(
        scripted.accurate,
        tmp_path / "audit",
        (
            "position",
            "presumption",
            "verbosity",
            "surface",
            "injection",
            "self_preference",
            "repeat",
        ),
        dataset=hg,
    )
    elapsed = time.perf_counter() - started
    out = outcomes(result)
    assert result.verdict == "fit", out
    # an LLM judge has no score per idea: the surface ratio does not apply (and does not hold the verdict back)
    assert {k: v for k, v in out.items() if v != "pass"} == {"surface_ratio": "not_applicable"}
    assert result.headline.figures["accuracy"].value.estimate == 1.0
    gap = result.readings["self_preference"].figures["self_preference_gap"].value
    assert (gap.estimate, gap.n_x, gap.n_y) == (
        0.0,
        2 * PASSING_COPIES,
        2 * PASSING_COPIES,
    )  # the generated side never wins
    assert gap.high < 0.10 and gap.method == "two-sample score (Mee, continuity-corrected)"
    # per 4 items: unperturbed 4 + repeat 4 + position 8 + presumption 12 + verbosity 8 + surface 16 + injection 8
    # + self_preference 4; order_ab and the self_preference arm repeat the unperturbed prompt (Inspect's cache).
    # (identical texts across the copies are served from Inspect's cache too)
    assert 0 < counter.calls <= (64 - 8) * PASSING_COPIES
    assert result.cost["judge_calls"] == 64 * PASSING_COPIES and result.cost["tokens"] > 0
    assert (
        0 < result.cost["battery_seconds"] <= elapsed
    )  # the battery's own time, within the audit's (no speed bound)

    md = paths["md"].read_text(encoding="utf-8")
    assert md.splitlines()[2] == "## Verdict: **FIT**"
    assert "pass if |x - 0.5| <= 0.1" in md.replace("\\|", "|") and "self_preference" in md
    card = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert card["schema"] == "judgeaudit.audit/1" and card["verdict"] == "fit"
    assert card["headline"]["above_chance"] is True
    assert {g["name"] for g in card["gates"]} >= {
        "position_first",
        "presumption",
        "verbosity",
        "injection",
    }
    assert all("rule" in g and "pass_at" in g for g in card["gates"])
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "audit" / "logs").is_dir() and (
        tmp_path / "audit" / "items" / "pairwise.jsonl"
    ).is_file()

    # Same command again: the eval-set is complete, so nothing is judged twice.
    again, _, counter2 = audit(
        scripted.accurate,
        tmp_path / "audit",
        (
            "position",
            "presumption",
            "verbosity",
            "surface",
            "injection",
            "self_preference",
            "repeat",
        ),
        dataset=hg,
    )
    assert counter2.calls == 0 and again.verdict == "fit"


@pytest.mark.slow
def test_self_preferring_judge_fails_the_self_preference_gate(tmp_path: Path) -> None:
    result, paths, _ = audit(
        self_preferrer,
        tmp_path / "audit",
        ("self_preference",),
        dataset=human_generated_set(tmp_path / "hg", house_mark=True),
    )
    reading = result.readings["self_preference"]
    assert reading.figures["generated_win_rate:own"].value.estimate == 1.0
    assert reading.figures["generated_win_rate:other"].value.estimate == 0.0
    gap = reading.figures["self_preference_gap"].value
    # 10 of 10 own wins against 0 of 10: Mee's interval [0.60, 1], beyond the fail threshold 0.25
    assert (gap.estimate, gap.high, gap.method) == (
        1.0,
        1.0,
        "two-sample score (Mee, continuity-corrected)",
    )
    assert 0.25 < gap.low < 1.0 and gap.significant
    assert outcomes(result)["self_preference"] == "fail" and result.verdict == "unfit"
    assert "FAIL self_preference:" in paths["md"].read_text(encoding="utf-8")


@pytest.mark.slow
def test_self_preference_merges_one_generated_set_per_backbone(tmp_path: Path) -> None:
    # two sets generated per backbone, sharing their human papers (and pair ids), as in
    # datasets/iclr2026/human_generated/<backbone>/; the audited dataset itself is human-only
    sets = tmp_path / "human_generated"
    human_generated_set(sets / "model", house_mark=True, generator=OWN)
    human_generated_set(sets / "gpt-4o", generator=OTHER)
    result, paths, _ = audit(
        self_preferrer, tmp_path / "audit", ("self_preference",), generated=(str(sets),)
    )
    reading = result.readings["self_preference"]
    own, other = (reading.figures[f"generated_win_rate:{g}"].value for g in ("own", "other"))
    assert (own.estimate, own.n) == (1.0, 20) and (other.estimate, other.n) == (0.0, 20)
    assert reading.n_items == 40 and outcomes(result)["self_preference"] == "fail"
    card = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert card["items"]["count"] == 20  # the headline items stay the dataset's
    assert card["items"]["generated"]["count"] == 40
    assert card["items"]["generated"]["by_generator"] == {OWN: 20, OTHER: 20}
    merged = read_items(tmp_path / "audit" / "items" / "generated" / "pairwise.jsonl", "pairwise")
    ids = [i.item_id for i in merged]
    assert (
        len(set(ids)) == 40 and sum(i.endswith("@model") for i in ids) == 20
    )  # gpt-4o sorts first, keeps its ids
    # the same sets given one by one make the same audit (a resume, not a conflict)
    again, _, counter = audit(
        self_preferrer,
        tmp_path / "audit",
        ("self_preference",),
        generated=(str(sets / "gpt-4o"), str(sets / "model")),
    )
    assert counter.calls == 0 and again.readings["self_preference"].n_items == 40


def test_generated_sets_that_hold_nothing_usable_are_named(tmp_path: Path) -> None:
    from judgeaudit.audit.battery import select_generated

    with pytest.raises(AuditError, match=r"--generated '.*nowhere': no such directory"):
        select_generated([str(tmp_path / "nowhere")], "pairwise", None)
    (tmp_path / "empty").mkdir()
    with pytest.raises(AuditError, match="no pairwise.jsonl in .*empty nor in its subfolders"):
        select_generated([str(tmp_path / "empty")], "pairwise", None)
    with pytest.raises(
        AuditError, match="no Human\\+Generated pairwise items with a generated side"
    ):
        select_generated([str(FIX)], "pairwise", None)


def test_run_file_from_before_judge_options_resumes_as_the_prompted_judge(tmp_path: Path) -> None:
    items = read_items(FIX / "pairwise.jsonl", "pairwise")
    spec = AuditSpec(model="local/gemma-3-270m", dataset=str(FIX))
    claim_out_dir(spec, items, tmp_path)
    recorded = json.loads((tmp_path / "audit-run.json").read_text(encoding="utf-8"))
    assert (recorded["judge"], recorded["judge_options"]) == ("prompted", {})
    old = {k: v for k, v in recorded.items() if k not in ("judge", "judge_options")}
    (tmp_path / "audit-run.json").write_text(json.dumps(old), encoding="utf-8")
    claim_out_dir(
        spec, items, tmp_path
    )  # no judge keys recorded: the prompted judge without options
    with pytest.raises(AuditError, match="different judge, judge_options"):
        claim_out_dir(replace(spec, judge="rubric", judge_options={"k": 3}), items, tmp_path)


def test_run_file_naming_the_judge_judge_kind_resumes_under_its_current_name(
    tmp_path: Path,
) -> None:
    """A run file written when the judge key was `judge_kind` resumes the same judge and refuses another."""
    items = read_items(FIX / "pairwise.jsonl", "pairwise")
    spec = AuditSpec(model="none", dataset=str(FIX), judge="distance_nn")
    claim_out_dir(spec, items, tmp_path)
    recorded = json.loads((tmp_path / "audit-run.json").read_text(encoding="utf-8"))
    old = {("judge_kind" if k == "judge" else k): v for k, v in recorded.items()}
    (tmp_path / "audit-run.json").write_text(json.dumps(old), encoding="utf-8")
    claim_out_dir(spec, items, tmp_path)
    with pytest.raises(AuditError, match="different judge;"):
        claim_out_dir(replace(spec, judge="distance_centroid"), items, tmp_path)


def test_probes_that_cannot_apply_are_named_per_judge() -> None:
    from judgeaudit.arms.transforms import PROBES
    from judgeaudit.audit.applicability import inapplicable_probes
    from judgeaudit.audit.surface_ratio import surface_ratio_reading
    from judgeaudit.judges.catalog import judge_names

    for judge in judge_names():
        limits = inapplicable_probes(judge)
        assert set(limits) <= set(PROBES) and all(limits.values()), judge
    assert inapplicable_probes("prompted") == inapplicable_probes("agentic") == {}
    for judge in ("distance_nn", "metric_ngram", "concept_set"):
        assert set(inapplicable_probes(judge)) == {"position", "presumption", "self_preference"}
    assert set(inapplicable_probes("rubric")) == {"position", "presumption"}
    reading, detail = surface_ratio_reading(
        "rubric", read_items(FIX / "pairwise.jsonl", "pairwise"), 100, 1
    )
    assert (
        reading.status == "not_applicable"
        and detail["applies"] is False
        and "surface probe" in reading.note
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("policy", "probes", "failing"),
    [
        (scripted.always_first, ("position", "repeat"), {"position_first", "position_flip"}),
        (scripted.cue_follower, ("presumption",), {"presumption"}),
        # Injection arms carry a note of similar length on the other idea: a length bias alone does not fail it.
        (scripted.longer, ("verbosity", "injection"), {"verbosity"}),
        (scripted.injection_obeyer, ("injection",), {"injection"}),
    ],
    ids=["always-first", "cue-follower", "prefers-longer", "obeys-injection"],
)
def test_biased_judge_fails_its_gate(
    tmp_path: Path, policy: Callable[[str], str], probes: tuple[str, ...], failing: set[str]
) -> None:
    result, paths, _ = audit(policy, tmp_path / "audit", probes)
    out = outcomes(result)
    assert {g for g, o in out.items() if o == "fail"} == failing, out
    assert result.verdict == "unfit"
    assert [r.gate.name for r in result.reasons if r.outcome == "fail"][: len(failing)] and {
        r.gate.name for r in result.reasons if r.outcome == "fail"
    } == failing  # every failed gate is a reason
    md = paths["md"].read_text(encoding="utf-8")
    assert "## Verdict: **UNFIT**" in md and f"FAIL {result.reasons[0].gate.name}:" in md
    assert ("Caveat: this judge's verdicts follow the presentation order" in md) == (
        "position_first" in failing
    )


@pytest.mark.slow
def test_pointwise_injection_obeyer_fails_and_accuracy_is_macro_f1(tmp_path: Path) -> None:
    result, _, _ = audit(
        scripted.injection_obeyer, tmp_path / "audit", ("injection", "verbosity"), kind="pointwise"
    )
    out = outcomes(result)
    assert out["injection"] == "fail" and out["accuracy"] == "pass"
    # padding moves nothing (shift 0), but 12 items cannot show |shift| <= 0.1: never a fail or a warning
    shift = result.readings["verbosity"].figures["padding_novel_shift"].value
    assert (
        out["verbosity"] == "inconclusive" and shift.estimate == 0.0 and shift.low < 0 < shift.high
    )
    assert result.headline.figures["accuracy"].label == "macro f1"
    assert result.readings["injection"].figures["injected_win_rate"].value.estimate == 1.0


def test_concept_judges_with_an_llm_extractor_need_a_model_and_keep_self_preference() -> None:
    from judgeaudit.audit.applicability import inapplicable_probes, needs_model
    from judgeaudit.audit.surface_ratio import surface_ratio_reading

    assert (
        not needs_model("concept_set")
        and needs_model("concept_set", {"concepts": "llm"})
        and needs_model("rubric")
    )
    assert "self_preference" not in inapplicable_probes("concept_fuzzy", {"concepts": "llm"})
    items = read_items(FIX / "pairwise.jsonl", "pairwise")
    reading, detail = surface_ratio_reading("concept_set", items, 100, 1, {"concepts": "llm"})
    assert (
        reading.status == "not_run" and "concepts=llm" in reading.note and detail["applies"] is True
    )


@pytest.mark.slow
def test_surface_ratio_refuses_a_scorer_other_than_the_judges(tmp_path: Path) -> None:
    """The real distance scorer (bundled corpus, default embedder) against a judge log that recorded another corpus."""
    from judgeaudit.audit.surface_ratio import surface_ratio_reading

    items = read_items(FIX / "pairwise.jsonl", "pairwise")
    reading, detail = surface_ratio_reading(
        "distance_nn", items, 100, 1, judge_prior={"corpus_sha256": "0" * 64}
    )
    assert (
        reading.status == "not_run"
        and "corpus_sha256 '000" in reading.note
        and "ratio" not in detail
    )
    ok, detail = surface_ratio_reading("distance_nn", items, 100, 1)
    assert ok.status == "ok" and ok.figures["ratio"].value.n == 8 and detail["edits_applied"] > 0


def test_an_in_process_model_gets_every_sample_and_call_of_the_battery_at_once(
    tmp_path: Path,
) -> None:
    """Its queue can only order the calls it holds: every sample of every task starts at once."""
    from judgeaudit.audit.battery import build_tasks, concurrency

    spec = AuditSpec(model="local/gemma-3-270m", dataset=str(FIX), kind="pairwise")
    items_dir = tmp_path / "items"
    write_items(items_dir / "pairwise.jsonl", read_items(FIX / "pairwise.jsonl")[:3])
    sizes = [
        len(task.dataset)
        for task in build_tasks(spec, items_dir, ["position", "surface", "repeat"])
    ]
    assert sizes == [3, 3, 6, 12]  # unperturbed, repeat, 2 orders, 4 edits
    assert concurrency(spec.model, sizes, None) == {"max_samples": 12, "max_connections": 24}
    assert concurrency("local/x.gguf", [], None) == {"max_samples": 1, "max_connections": 1}
    assert concurrency(spec.model, sizes, 2) == {"max_samples": 12, "max_connections": 2}
    assert concurrency("openai/gpt-4o-mini", sizes, None) == {}
    assert concurrency("openai/gpt-4o-mini", sizes, 3) == {"max_connections": 3}


def test_the_battery_keeps_inspect_s_realtime_buffer_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JUDGEAUDIT_LOG_REALTIME=0 (set for this suite in conftest) turns it off; unset, Inspect's default stays."""
    from inspect_ai.log import read_eval_log

    dataset = widened_set(tmp_path / "set", "pairwise", 1)
    for setting, expected in (("0", False), (None, True)):
        if setting is None:
            monkeypatch.delenv("JUDGEAUDIT_LOG_REALTIME", raising=False)
        else:
            monkeypatch.setenv("JUDGEAUDIT_LOG_REALTIME", setting)
        spec = AuditSpec(
            model=OWN,
            dataset=str(dataset),
            kind="pairwise",
            probes=("repeat",),
            resamples=100,
            model_args={"custom_outputs": scripted.judge(scripted.accurate)},
        )
        run_audit(spec, tmp_path / f"audit-{setting}")
        logs = sorted((tmp_path / f"audit-{setting}" / "logs").glob("*.eval"))
        assert len(logs) == 2 and all(
            read_eval_log(str(log), header_only=True).eval.config.log_realtime is expected
            for log in logs
        )
