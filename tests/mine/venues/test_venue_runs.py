"""`judgeaudit mine` on every packaged venue profile, end to end: from a snapshot, and through the real
openreview-py client (API v1 for ICLR 2023, v2 otherwise) against the local OpenReview stand-in.

The notes are the real ICLR 2026 notes of tests/fixtures/openreview_small re-shaped into each venue's
form (tests/helpers/venue_forms.py). The loose rule of tests/helpers/mine_options.py is used (the fixture is too small
for the study's deciles), except where a test gives the rating cuts to see them mapped.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.mine_options import LOOSE
from helpers.venue_forms import SAME_SCORES, VENUES, reshape, write_snapshot
from servers.openreview_server import OpenReviewTestServer

from judgeaudit.cli import main
from judgeaudit.mine.venues.profile import packaged_profiles

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "openreview_small"
PACKAGED = {
    p.source.removeprefix("packaged:").removesuffix(".yaml"): p
    for p in packaged_profiles().values()
}


@dataclass(frozen=True)
class Run:
    """One `judgeaudit mine` call: exit code, what it printed, its output root."""

    code: int
    out: str
    err: str
    root: Path

    @property
    def set_dir(self) -> Path:
        """The Human-Only set directory."""
        return self.root / "human_only"

    def labelled(self) -> bytes:
        """The labelled pool's bytes."""
        return (self.set_dir / "labelled.jsonl").read_bytes()

    def labels(self) -> dict[str, str]:
        """Labelled idea id -> label."""
        rows = [json.loads(line) for line in self.labelled().decode().splitlines()]
        return {r["idea_id"]: r["label"] for r in rows}

    def manifest(self) -> dict:  # type: ignore[type-arg]
        """The manifest."""
        return json.loads((self.set_dir / "manifest.json").read_text(encoding="utf-8"))

    def card(self) -> str:
        """The dataset card."""
        return (self.set_dir / "README.md").read_text(encoding="utf-8")


def mine(root: Path, *args: str, loose: list[str] = LOOSE) -> Run:
    """Run `judgeaudit mine ... --out root` in-process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["mine", *args, "--out", str(root), "--no-progress", "--workers", "1", *loose])
    return Run(code, out.getvalue(), err.getvalue(), root)


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every venue form's re-shaped snapshot directory (ICLR 2026's: the committed fixture itself, so its
    run is also the default profile reading the real notes as before)."""
    base = tmp_path_factory.mktemp("forms")
    out = {form: write_snapshot(form, base / form) for form in VENUES if form != "iclr-2026"}
    return {**out, "iclr-2026": FIXTURE}


@pytest.fixture(scope="module")
def runs(snapshots: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Every form mined from its snapshot with its venue's packaged profile."""
    base = tmp_path_factory.mktemp("runs")
    return {
        form: mine(base / form, "--venue", VENUES[form], "--source", f"snapshot:{snap}")
        for form, snap in snapshots.items()
    }


def test_every_venue_has_a_packaged_profile_and_a_form_here() -> None:
    assert set(PACKAGED) == set(VENUES)
    assert {p.venue for p in PACKAGED.values()} == set(VENUES.values())


@pytest.mark.parametrize("form", sorted(VENUES))
def test_each_form_mined_from_a_snapshot_labels_both_classes_and_names_its_profile(
    form: str, runs: dict[str, Run]
) -> None:
    run = runs[form]
    assert run.code == 0, run.err
    assert set(run.labels().values()) == {"novel", "not_novel"}
    venue = run.manifest()["mining"]["venue"]
    profile = PACKAGED[form]
    assert venue["venue"] == profile.venue == run.manifest()["source"]["venue"]
    assert venue["profile"]["source"] == f"packaged:{form}.yaml"
    assert venue["profile"]["name"] == profile.name
    assert venue["form_check"]["reviews"] == 143  # the fixture's reviews, every one read
    card = run.card()
    assert f"read with the profile **{profile.name}** (`packaged:{form}.yaml`" in card
    assert card.startswith("---") and f"pretty_name: {profile.name} Human-Only" in card
    if profile.novelty is None:
        assert "skipped: the form has no novelty-related score" in card
    if profile.rating is None:
        assert "skipped: the form has no rating" in card


@pytest.mark.parametrize("form", SAME_SCORES)
def test_iclr_forms_give_exactly_the_iclr_2026_labels_on_the_same_notes(
    form: str, runs: dict[str, Run]
) -> None:
    assert runs[form].labelled() == runs["iclr-2026"].labelled()


def test_neurips_2025_labels_ideas_with_its_cuts_mapped_and_its_originality_agreement(
    snapshots: dict[str, Path], tmp_path: Path
) -> None:
    # the loose rule with the study's rating cuts moved inside the fixture's range: 5.0 and 5.0 on 0-10
    loose = [*LOOSE[:4], "--novel-min-rating", "5", "--not-novel-max-rating", "5", *LOOSE[8:]]
    run = mine(
        tmp_path / "n25",
        "--venue",
        "NeurIPS.cc/2025/Conference",
        "--source",
        f"snapshot:{snapshots['neurips-2025']}",
        loose=loose,
    )
    assert run.code == 0, run.err
    assert set(run.labels().values()) == {"novel", "not_novel"}
    cuts = run.manifest()["mining"]["venue"]["cuts"]
    assert cuts["rating"]["cuts"]["novel_min_rating"] == {"reference": 5.0, "venue": 3.5}
    assert cuts["rating"]["scale"] == [1.0, 6.0]
    assert cuts["novelty"]["fields"] == ["originality"]
    card = run.card()
    assert "| `novel` rating floor | 5 on 0-10 | 3.5 on 1-6 | rating |" in card
    assert "mean rating >= 3.5 (the study's 5 mapped)" in card
    agreement = run.manifest()["mining"]["venue"]["originality_agreement"]
    assert agreement["candidates"] == sum(agreement["table"].values()) > 0
    assert "Cohen's kappa over the outcomes" in card and "--gold-labels scores" in card
    # the selection applied the mapped floor: every novel idea's mean rating (1-6) is at least 3.5
    rows = [json.loads(x) for x in run.labelled().decode().splitlines()]
    assert all(r["evidence"]["rating_mean"] >= 3.5 for r in rows if r["label"] == "novel")
    assert "--venue NeurIPS.cc/2025/Conference" in run.manifest()["build_command"]


def test_originality_score_labels_are_an_option_of_forms_that_have_the_score(
    snapshots: dict[str, Path], runs: dict[str, Run], tmp_path: Path
) -> None:
    source = f"snapshot:{snapshots['neurips-2025']}"
    run = mine(
        tmp_path / "scores",
        "--venue",
        VENUES["neurips-2025"],
        "--source",
        source,
        "--gold-labels",
        "scores",
    )
    assert run.code == 0, run.err
    venue = run.manifest()["mining"]["venue"]
    assert (
        venue["gold_labels"] == "scores"
        and run.manifest()["mining"]["extractor"] == "scores:originality"
    )
    rows = [json.loads(x) for x in run.labelled().decode().splitlines()]
    assert rows and all(
        q.startswith("originality ") for r in rows for q in r["evidence"]["positive_signals"]
    )
    # the agreement is the same comparison whichever side made the set
    text_run = runs["neurips-2025"].manifest()["mining"]["venue"]["originality_agreement"]
    assert venue["originality_agreement"]["table"] == text_run["table"]
    refused = mine(
        tmp_path / "no",
        "--venue",
        VENUES["iclr-2024"],
        "--source",
        f"snapshot:{snapshots['iclr-2024']}",
        "--gold-labels",
        "scores",
    )
    assert refused.code == 2 and not refused.set_dir.exists()
    assert refused.err.count("\n") == 1 and "no direct originality score" in refused.err


@pytest.mark.parametrize(
    "form, venue, field",
    [
        ("neurips-2025", "ICLR.cc/2024/Conference", "strengths"),
        ("iclr-2024", "NeurIPS.cc/2025/Conference", "strengths_and_weaknesses"),
        ("iclr-2026", "TMLR", "Review"),
        ("iclr-2023", "ICLR.cc/2026/Conference", "Submission"),
        ("neurips-2025", "ICML.cc/2025/Conference", "other_strengths_and_weaknesses"),
        ("iclr-2024", "ICLR.cc/2025/Conference", "rating"),
        ("neurips-2023", "NeurIPS.cc/2025/Conference", "strengths_and_weaknesses"),
    ],
)
def test_a_form_the_profile_does_not_match_stops_in_one_line_before_the_selection(
    form: str, venue: str, field: str, snapshots: dict[str, Path], tmp_path: Path
) -> None:
    run = mine(tmp_path / "out", "--venue", venue, "--source", f"snapshot:{snapshots[form]}")
    assert run.code == 2 and not run.set_dir.exists()
    errors = [line for line in run.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, run.err
    line = errors[0]
    assert line.startswith(f"error: judgeaudit mine: --venue {venue} (profile packaged:")
    assert field in line and "e.g. note " in line
    assert "counts after each step" not in run.out and "papers: reviewed" not in run.err


def test_notes_of_another_venue_in_the_same_form_are_mined_with_a_warning(
    snapshots: dict[str, Path], runs: dict[str, Run], tmp_path: Path
) -> None:
    assert not any("warning:" in run.err for run in runs.values())  # each form's own venue
    # the real ICLR 2026 notes fit ICLR 2025's form: only the invitations say whose notes they are
    run = mine(tmp_path / "out", "--venue", VENUES["iclr-2025"], "--source", f"snapshot:{FIXTURE}")
    assert run.code == 0, run.err
    warning = [line for line in run.err.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "are of venue ICLR.cc/2026/Conference" in warning[0]
    assert "another venue than the profile's: ICLR.cc/2026/Conference" in run.card()


def test_a_users_profile_file_overrides_the_packaged_one(
    snapshots: dict[str, Path], runs: dict[str, Run], tmp_path: Path
) -> None:
    mine_file = tmp_path / "my-neurips.yaml"
    text = (
        Path(__file__).resolve().parents[3] / "judgeaudit/mine/venues/neurips-2025.yaml"
    ).read_text()
    mine_file.write_text(text.replace("name: NeurIPS 2025", "name: My NeurIPS"))
    run = mine(  # no --venue: the venue the file names (not the default ICLR 2026)
        tmp_path / "own",
        "--profile",
        str(mine_file),
        "--source",
        f"snapshot:{snapshots['neurips-2025']}",
    )
    assert run.code == 0, run.err
    assert run.labelled() == runs["neurips-2025"].labelled()
    assert run.manifest()["mining"]["venue"]["profile"]["source"] == str(mine_file)
    assert run.manifest()["mining"]["venue"]["venue"] == VENUES["neurips-2025"]
    assert f"Venue `{VENUES['neurips-2025']}`" in run.card()
    assert (
        "**My NeurIPS**" in run.card()
        and f"--profile {mine_file}" in run.manifest()["build_command"]
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("scale: [1, 6]", "scale: [6, 1]"))
    bad = mine(
        tmp_path / "bad",
        "--profile",
        str(broken),
        "--source",
        f"snapshot:{snapshots['neurips-2025']}",
    )
    assert bad.code == 2 and bad.err.count("\n") == 1
    assert f"venue profile {broken}: rating.scale: must be [low, high]" in bad.err


def test_a_form_without_ratings_needs_decisions_and_says_so_before_the_selection(
    tmp_path: Path,
) -> None:
    snap = tmp_path / "tmlr"
    snap.mkdir()
    with gzip.open(snap / "notes-00.jsonl.gz", "wt", encoding="utf-8") as fh:
        for note in reshape("tmlr"):
            if not str(note.get("invitations")).endswith("/-/Decision']"):
                fh.write(json.dumps(note) + "\n")
    run = mine(tmp_path / "out", "--venue", "TMLR", "--source", f"snapshot:{snap}")
    assert run.code == 2 and not run.set_dir.exists() and run.err.count("error:") == 1
    assert "no rating" in run.err and "no acceptance decisions" in run.err
    assert "papers: reviewed" not in run.err


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fetch runs anonymously (tests never use a user's OpenReview account)."""
    monkeypatch.delenv("OPENREVIEW_USERNAME", raising=False)
    monkeypatch.delenv("OPENREVIEW_PASSWORD", raising=False)
    yield


@pytest.mark.parametrize("form", sorted(VENUES))
def test_each_form_fetched_through_openreview_py_mines_the_snapshot_labels(
    form: str, runs: dict[str, Run], tmp_path: Path, no_credentials: None
) -> None:
    """The real openreview-py client (v1 `Client` for ICLR 2023, v2 `OpenReviewClient` otherwise) fetches the
    re-shaped notes from the local stand-in; the mined labels are the snapshot run's."""
    with OpenReviewTestServer(reshape(form)) as srv:
        run = mine(
            tmp_path / "live",
            "--venue",
            VENUES[form],
            "--cache",
            str(tmp_path / "cache"),
            "--baseurl",
            srv.baseurl,
        )
        api_paths = {r.path for r in srv.records}
    assert run.code == 0, run.err
    assert run.labelled() == runs[form].labelled()
    assert run.manifest()["source"]["kind"] == "fetch"
    assert ("/groups" in api_paths) == (PACKAGED[form].api == 2)
    shutil.rmtree(tmp_path / "cache")
