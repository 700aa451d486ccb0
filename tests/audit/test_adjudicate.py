"""Expert adjudication end to end: the published-format file as it is, and export -> expert -> import
on a planted judge's errors on the release excerpt's AI-only set (one real Inspect run)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import eval_ok, unit

from judgeaudit.cli import main
from judgeaudit.judges.tasks import novelty_pairwise

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "novelty_judge_bench" / "published"
PUBLISHED = FIXTURE / "expert-annotations" / "judge_errors.csv"
JUDGE = "planted/custom/judge-1"


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "adjudication.json").read_text(encoding="utf-8"))


def test_the_published_file_gives_thirty_of_thirty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "adj"
    assert main(["adjudicate", "import", str(PUBLISHED), "--out", str(out)]) == 0
    groups = {(g["judge"], g["setup"]): g for g in _summary(out)["groups"]}
    every = groups[("gpt-5.1", "all")]
    assert (every["rows"], every["errors"], every["controls"]) == (30, 28, 2)
    share = every["expert_with_gold"]
    # two-sided 95% Clopper-Pearson at 30 of 30: [0.025^(1/30), 1] = [0.8843, 1]
    assert (share["k"], share["n"], share["high"]) == (30, 30, 1.0)
    assert share["low"] == pytest.approx(0.025 ** (1 / 30)) and round(share["low"], 3) == 0.884
    assert every["errors_expert_with_gold"]["k"] == every["errors_expert_with_gold"]["n"] == 28
    assert every["controls_agree"]["k"] == 2 and every["errors_expert_with_judge"] == 0
    # per setup, from each row's source_file
    assert {s for _, s in groups} == {"all", "human_only", "human_generated"}
    printed = capsys.readouterr().out
    assert "30 of 30 (1.000 [0.884, 1.000])" in printed


def test_a_missing_or_unknown_annotation_is_named_by_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = list(csv.reader(PUBLISHED.open(encoding="utf-8", newline="")))
    rows[5][9] = ""  # row 005
    rows[9][9] = "probably A"  # row 009
    sheet = tmp_path / "judge_errors.csv"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n").writerows(rows)
    out = tmp_path / "adj"
    assert main(["adjudicate", "import", str(sheet), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: judgeaudit adjudicate import: ") and err.count("\n") == 1
    assert "2 row problem(s)" in err and "row 005 (line " in err and "annotation missing" in err
    assert "row 009 (line " in err and "unknown annotation 'probably A'" in err
    assert not out.exists()  # nothing half-written


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The release excerpt converted, and a planted judge (accuracy 0.5) run on its ai_only/gpt set."""
    root = tmp_path_factory.mktemp("release")
    sets = root / "njb"
    assert main(["convert", "--from", "novelty-judge-bench", str(FIXTURE), "--out", str(sets)]) == 0
    dataset = str(sets / "ai_only" / "gpt")
    # no `-M dataset`: the planted judge's key holds the converted set the task loaded
    log = eval_ok(novelty_pairwise(dataset=dataset), root, JUDGE, model_args={"accuracy": 0.5})
    records = [unit(log, s) for s in log.samples or []]
    return {"root": root, "logs": root / "logs", "records": records}


def test_export_then_import_round_trips_a_planted_judges_errors(
    planted_run: dict[str, Any], tmp_path: Path
) -> None:
    records = planted_run["records"]
    assert {r["verdict"] for r in records} <= {"a", "b", "tie"}  # the key was found: no error call
    wrong = {r["item_id"] for r in records if r["verdict"] != r["gold"]}
    right = {r["item_id"] for r in records if r["verdict"] == r["gold"]}
    assert wrong and right  # judge-1 at accuracy 0.5 errs on some of the 4 items, not all
    sheet = tmp_path / "sheet.csv"
    args = ["adjudicate", "export", str(planted_run["logs"]), "--out", str(sheet)]
    assert main([*args, "--controls", "1", "--seed", "7"]) == 0
    assert main([*args, "--controls", "1"]) == 2  # never over an expert's sheet
    key = json.loads((tmp_path / "sheet.key.json").read_text(encoding="utf-8"))
    assert key["seed"] == 7 and "random.Random(7)" in key["sampling"]
    by_role = {
        role: {k["item_id"] for k in key["rows"] if k["role"] == role}
        for role in ("error", "control")
    }
    assert (
        by_role["error"] == wrong and len(by_role["control"]) == 1 and by_role["control"] <= right
    )
    assert {k["setup"] for k in key["rows"]} == {"ai_only"}
    assert all(k["source_file"] == "ai-only/gpt/pairwise.yaml" for k in key["rows"])
    # blind: nothing but the row id and the two texts; no label, verdict or model name anywhere
    text = sheet.read_text(encoding="utf-8")
    for hidden in ("gpt-5.4", "gpt-5.1", "planted", "judge-1", "ai-only"):
        assert hidden not in text
    rows = list(csv.DictReader(sheet.open(encoding="utf-8", newline="")))
    for row, k in zip(rows, key["rows"], strict=True):
        assert row["item_id"] == k["row_id"]
        assert all(row[c] == "" for c in ("gold", "predicted", "judge_model", "annotation"))
    # the expert: with gold on every row but the first error, where they side with the judge
    first_error = next(k for k in key["rows"] if k["role"] == "error")
    for row, k in zip(rows, key["rows"], strict=True):
        row["annotation"] = k["predicted"] if k is first_error else k["gold"]
    filled = tmp_path / "filled.csv"
    with filled.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = tmp_path / "adj"
    command = ["adjudicate", "import", str(filled), "--key", str(tmp_path / "sheet.key.json")]
    assert main([*command, "--out", str(out)]) == 0
    summary = _summary(out)
    [group] = summary["groups"]
    assert (group["judge"], group["setup"]) == (JUDGE, "ai_only")
    assert group["errors_expert_with_gold"]["k"] == len(wrong) - 1
    assert group["errors_expert_with_judge"] == 1 and group["controls_agree"]["k"] == 1
    [bound] = summary["accuracy_bounds"]
    n, correct = len(records), len(right)
    assert (bound["n"], bound["correct"], bound["errors"]) == (n, correct, len(wrong))
    iv = bound["accuracy_if_label_errors"]
    assert iv["estimate"] == pytest.approx((correct + len(wrong) * (1 / len(wrong))) / n)
    # the report shows ai_only as a setup of its own, and the adjudication section
    report = tmp_path / "report"
    assert (
        main(
            [
                "report",
                str(planted_run["logs"]),
                "--out",
                str(report),
                "--no-figures",
                "--resamples",
                "200",
                "--adjudication",
                str(out / "adjudication.json"),
            ]
        )
        == 0
    )
    md = (report / "report.md").read_text(encoding="utf-8")
    # the tie table by judge shows the AI-Only setup as a column of its own
    assert "| judge | AI-Only |" in md and "## Expert adjudication of the judge's errors" in md


def test_an_edited_sheet_is_refused_against_its_key(
    planted_run: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "sheet.csv"
    assert main(["adjudicate", "export", str(planted_run["logs"]), "--out", str(sheet)]) == 0
    rows = list(csv.reader(sheet.open(encoding="utf-8", newline="")))
    rows[1][5] += " (edited)"
    rows[1][9] = "A"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows[:2])  # the other rows lost
    key = tmp_path / "sheet.key.json"
    assert (
        main(["adjudicate", "import", str(sheet), "--key", str(key), "--out", str(tmp_path / "o")])
        == 2
    )
    err = capsys.readouterr().err
    assert "row 001 (line 2): the shown ideas differ from the ones exported" in err
    assert "in the key but not in the sheet" in err and err.count("\n") == 1


def test_report_and_audit_refuse_a_file_that_is_not_an_adjudication(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "audit"
    command = ["audit", "--model", "planted/accurate", "--out", str(out)]
    assert main([*command, "--adjudication", str(PUBLISHED)]) == 2  # the sheet, not its summary
    err = capsys.readouterr().err
    assert "--adjudication" in err and "not JSON" in err and err.count("\n") == 1
    assert not out.exists()  # refused before anything ran
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something else"}', encoding="utf-8")
    assert main(["report", str(tmp_path), "--adjudication", str(other)]) == 2
    assert "not an adjudication summary" in capsys.readouterr().err
