"""Judge prompt files: each controlled variant changes exactly one section of the reference."""

from __future__ import annotations

import pytest

from judgeaudit.judges.prompts import (
    REFERENCE,
    VARIANTS,
    load_template,
    parse_template,
    prompt_names,
)

EXPECTED_NAMES = {
    "pairwise": [
        "reference",
        "p1_no_guardrails",
        "p2_no_criterion",
        "p3_judged_novel",
        "p4_which_novel",
        "p5_judged_more_novel",
    ],
    "pointwise": ["reference", "p1_no_guardrails", "p2_no_criterion", "p3_judged_novel"],
}


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_all_variants_exist_and_parse(kind: str) -> None:
    assert list(prompt_names(kind)) == EXPECTED_NAMES[kind]
    for name in prompt_names(kind):
        template = load_template(kind, name)
        assert [key for key, _ in template.sections] == [
            "task",
            "criterion",
            "question",
            "fence",
            "ideas",
            "cue",
            "answer",
        ]


CASES = [(kind, name) for kind in VARIANTS for name in VARIANTS[kind]]


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_variant_changes_exactly_its_one_section(kind: str, name: str) -> None:
    ref = dict(load_template(kind, REFERENCE).sections)
    var = dict(load_template(kind, name).sections)
    assert list(var) == list(ref), "variant must keep the reference's sections in order"
    changed = [key for key in ref if ref[key] != var[key]]
    assert changed == [VARIANTS[kind][name].section], f"{kind}/{name} changed {changed}"


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_criterion_variants_remove_the_right_lines(kind: str) -> None:
    ref_lines = load_template(kind, REFERENCE).section("criterion").splitlines()
    p1_lines = load_template(kind, "p1_no_guardrails").section("criterion").splitlines()
    # P1 keeps the criterion sentence and drops every guardrail sentence.
    assert p1_lines == ref_lines[:1]
    assert len(ref_lines) >= 3
    assert all("not" in line.lower() or "only" in line.lower() for line in ref_lines[1:])
    assert load_template(kind, "p2_no_criterion").section("criterion") == ""


def test_question_variants_ask_what_they_say() -> None:
    q = {
        n: load_template("pairwise", n).section("question").lower()
        for n in EXPECTED_NAMES["pairwise"]
    }
    assert "more novel" in q["reference"] and "reviewers" not in q["reference"]
    assert "exactly one" in q["p3_judged_novel"] and "reviewers" in q["p3_judged_novel"]
    assert "more novel" not in q["p4_which_novel"] and "novel" in q["p4_which_novel"]
    assert "more novel" in q["p5_judged_more_novel"] and "reviewers" in q["p5_judged_more_novel"]


def test_render_fills_placeholders_and_drops_empty_sections() -> None:
    t = load_template("pairwise", "p2_no_criterion")
    text = t.render(idea_a="Alpha {not a field}", idea_b="Beta", area="vision", cue="")
    assert "Alpha {not a field}" in text and "Idea B:\n<<< begin " in text
    assert "Research area: vision" in text
    assert "\n\n\n" not in text and "{" + "cue}" not in text
    cued = load_template("pairwise", REFERENCE).render(
        idea_a="x", idea_b="y", area="z", cue="A famous lab wrote Idea A."
    )
    assert "A famous lab wrote Idea A.\n\nReason briefly" in cued
    assert cued.rstrip().endswith('"Verdict: TIE".')


def test_render_requires_every_value() -> None:
    with pytest.raises(ValueError, match="cue"):
        load_template("pointwise", REFERENCE).render(idea="x", area="y")


def test_unknown_prompt_names_valid_ones() -> None:
    with pytest.raises(ValueError, match="p4_which_novel.*expected one of reference"):
        load_template("pointwise", "p4_which_novel")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("loose text\n=== task ===\nx {idea}{cue}", "before the first"),
        ("=== task ===\n{idea} {cue} {author}", "unknown placeholders"),
        ("=== task ===\n{idea}", "missing placeholders"),
        ("=== task ===\n{idea}{cue}\n=== task ===\n", "appears twice"),
        ("no markers", "before the first"),
    ],
)
def test_bad_templates_are_rejected_with_the_file_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        parse_template(text, "pointwise", "broken")
    assert "prompts/judge/pointwise/broken.txt" in str(err.value)
