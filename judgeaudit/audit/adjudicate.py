"""Expert adjudication of a judge's errors: a blind sheet out of Inspect logs, annotations back in.

`export_sheet`: from the unperturbed pairwise runs in a log directory, every item a judge decided
wrongly (a tie is an error, as the reference study counts it; invalid and error items are not
decisions and are counted apart) plus `controls` items it decided rightly, drawn with a seeded
generator; the rows in a seeded random order, each pair in a fresh random A/B order. The sheet
(`data.convert.judge_errors` format) shows only the row id and the two texts; the judge, model
names, source, gold and verdict are blank there and kept in the key file beside it, with the
seed, the draw and each run's totals (for the accuracy bounds).

`read_adjudicated`: a filled sheet with its key, or the release's `judge_errors.csv` as it is
(gold, predicted and judge in the file). Every row is checked; a missing or unknown annotation
(or gold, predicted) is named by row, all at once, never guessed. A sheet edited against its key
(a row added or lost, a text changed) is refused.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.data.contract import PairItem
from judgeaudit.data.convert.judge_errors import (
    CHOICES,
    HIDDEN,
    SheetError,
    SheetRow,
    choice,
    read_sheet,
    source_setup,
    write_sheet,
)
from judgeaudit.data.samples import load_items
from judgeaudit.errors import UserError
from judgeaudit.files import atomic_write_text
from judgeaudit.report.adjudication import Adjudicated, RunTotals
from judgeaudit.report.frame import load_frame

KEY_SCHEMA = "judgeaudit.adjudication-key/1"
DECIDED: tuple[str, ...] = ("a", "b", "tie")
DEFAULT_CONTROLS = 2
DEFAULT_SEED = 20260


class AdjudicationError(UserError, ValueError):
    """Logs, a sheet or a key that the adjudication cannot use (one line)."""


@dataclass(frozen=True)
class KeyRow:
    """What the sheet hides about one row: the run, the item, the shown order, gold and verdict."""

    row_id: str
    role: str  # error | control
    config: str
    judge_model: str
    dataset: str
    setup: str
    item_id: str
    problem_id: str
    source_file: str
    generation_model: str
    shown: str  # ab: the item's idea a shown as A; ba: idea b shown as A
    gold: str  # in shown terms: A | B
    predicted: str  # in shown terms: A | B | tie
    text_sha256: str  # of the two shown texts, so an edited sheet is refused


def _shown(side: str, order: str) -> str:
    """An item side (a, b, tie) in shown terms (A, B, tie) under an order (ab, ba)."""
    if side == "tie":
        return "tie"
    return side.upper() if order == "ab" else ("B" if side == "a" else "A")


def _texts_digest(a: str, b: str) -> str:
    return hashlib.sha256(json.dumps([a, b], ensure_ascii=False).encode("utf-8")).hexdigest()


def _origin(pair: PairItem, dataset: str) -> tuple[str, str]:
    """(source_file, problem_id) of a pair: the release file and id it was converted from, else
    the set it was loaded from and its id."""
    source = pair.idea_a.provenance.source_id
    if "#" in source:
        where, rest = source.split("#", 1)
        return where, rest.split("/", 1)[0]
    return dataset, pair.pair_id


def _runs(logdir: Path) -> pd.DataFrame:
    """The unperturbed pairwise rows of a log directory (one per configuration and item)."""
    loaded = load_frame(logdir)
    frame = loaded.frame
    if frame.empty:
        raise AdjudicationError(f"{logdir}: no judge logs with scored samples")
    rows = frame[(frame["kind"] == "pairwise") & frame["probe"].isna()]
    if rows.empty:
        raise AdjudicationError(
            f"{logdir}: no unperturbed pairwise runs (the sheet shows pairs; probe arms are left out)"
        )
    return rows


def export_sheet(
    logdir: Path, sheet: Path, key: Path, controls: int = DEFAULT_CONTROLS, seed: int = DEFAULT_SEED
) -> dict[str, Any]:
    """Write the blind sheet and its key; return the key."""
    if controls < 0:
        raise AdjudicationError(f"--controls must be at least 0, got {controls}")
    rows = _runs(logdir)
    rng = random.Random(seed)
    items: dict[tuple[str, str], dict[str, PairItem]] = {}
    totals: dict[str, dict[str, Any]] = {}
    chosen: list[tuple[str, Any]] = []
    for config, runs in rows.groupby("config", sort=True):
        runs = runs.sort_values("item_id")
        verdicts = runs["verdict"].astype(str)
        wrong = runs[verdicts.isin(DECIDED) & (verdicts != runs["gold"])]
        right = runs[verdicts == runs["gold"]]
        first = runs.iloc[0]
        totals[str(config)] = asdict(
            RunTotals(
                judge_model=str(first["model_id"]),
                dataset=str(first["dataset_arg"]),
                n=len(runs),
                correct=len(right),
                errors=len(wrong),
                ties=int((verdicts == "tie").sum()),
                not_decided=int((~verdicts.isin(DECIDED)).sum()),
            )
        )
        drawn = rng.sample(range(len(right)), min(controls, len(right)))
        totals[str(config)]["controls_drawn"] = len(drawn)
        chosen += [("error", r) for _, r in wrong.iterrows()]
        chosen += [("control", right.iloc[i]) for i in sorted(drawn)]
    if not chosen:
        undecided = sum(int(t["not_decided"]) for t in totals.values())
        raise AdjudicationError(
            f"{logdir}: nothing to adjudicate: no item decided wrongly and no control drawn"
            + (f" ({undecided} item(s) without a decision: invalid or error)" if undecided else "")
        )
    rng.shuffle(chosen)
    sheet_rows: list[dict[str, str | int]] = []
    key_rows: list[KeyRow] = []
    width = max(3, len(str(len(chosen))))
    for n, (role, r) in enumerate(chosen, 1):
        dataset, fmt = str(r["dataset_arg"]), str(r["idea_format"] or "abstract")
        pairs = items.get((dataset, fmt))
        if pairs is None:
            try:
                loaded = load_items(dataset, "pairwise", fmt)
            except (FileNotFoundError, ValueError) as exc:
                raise AdjudicationError(
                    f"dataset {dataset!r} of the logs cannot be read for the idea texts: {exc}"
                ) from None
            pairs = items[(dataset, fmt)] = {
                i.item_id: i for i in loaded if isinstance(i, PairItem)
            }
        pair = pairs.get(str(r["item_id"]))
        if pair is None:
            raise AdjudicationError(f"item {r['item_id']!r} of the logs is not in {dataset!r}")
        order = "ab" if rng.random() < 0.5 else "ba"
        a, b = (pair.idea_a, pair.idea_b) if order == "ab" else (pair.idea_b, pair.idea_a)
        source_file, problem_id = _origin(pair, dataset)
        row_id = f"{n:0{width}d}"
        made = [str(i.generator) for i in (a, b) if i.source == "generated" and i.generator]
        key_rows.append(
            KeyRow(
                row_id=row_id,
                role=role,
                config=str(r["config"]),
                judge_model=str(r["model_id"]),
                dataset=dataset,
                setup=str(r["setup"]),
                item_id=pair.pair_id,
                problem_id=problem_id,
                source_file=source_file,
                generation_model=" vs ".join(dict.fromkeys(made)),
                shown=order,
                gold=_shown(str(r["gold"]), order),
                predicted=_shown(str(r["verdict"]), order),
                text_sha256=_texts_digest(a.text, b.text),
            )
        )
        sheet_rows.append({"item_id": row_id, "shown_A_idea": a.text, "shown_B_idea": b.text})
    key_data = {
        "schema": KEY_SCHEMA,
        "sheet": sheet.name,
        "logs": str(logdir),
        "seed": seed,
        "controls_per_run": controls,
        "sampling": (
            f"every pairwise item each run decided wrongly (a tie counts as wrong; invalid and error "
            f"items are not decisions) and up to {controls} it decided rightly per run, drawn "
            f"without replacement by Python's random.Random({seed}); the rows shuffled and each "
            f"pair's A/B order drawn (probability 1/2 each) by the same generator"
        ),
        "runs": totals,
        "rows": [asdict(k) for k in key_rows],
    }
    write_sheet(sheet, sheet_rows)
    atomic_write_text(key, json.dumps(key_data, indent=2, ensure_ascii=False) + "\n")
    return key_data


def _read_key(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AdjudicationError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("schema") != KEY_SCHEMA:
        raise AdjudicationError(f"{path}: not an adjudication key (schema {KEY_SCHEMA})")
    return data


def _annotation(row: SheetRow, column: str, problems: list[str], allowed: Sequence[str]) -> str:
    raw = row.values[column]
    if not raw.strip():
        problems.append(f"{row.where()}: {column} missing")
        return ""
    value = choice(raw)
    if value is None or value not in allowed:
        problems.append(
            f"{row.where()}: unknown {column} {raw.strip()!r} (expected {', '.join(allowed)})"
        )
        return ""
    return value


def _refuse(path: Path, problems: list[str]) -> None:
    if problems:
        raise SheetError(f"{path}: {len(problems)} row problem(s): " + "; ".join(problems))


def read_adjudicated(
    sheet: Path, key: Path | None = None
) -> tuple[list[Adjudicated], dict[str, Any]]:
    """The adjudicated rows of a sheet (with its key, or a published-format file without one) and
    the run totals the key holds (empty without a key)."""
    rows = read_sheet(sheet)
    if not rows:
        raise SheetError(f"{sheet}: no rows below the header")
    problems: list[str] = []
    out: list[Adjudicated] = []
    if key is None:
        for row in rows:
            v = row.values
            gold = _annotation(row, "gold", problems, ("A", "B"))
            predicted = _annotation(row, "predicted", problems, CHOICES)
            annotation = _annotation(row, "annotation", problems, CHOICES)
            judge = v["judge_model"].strip()
            if not judge:
                problems.append(f"{row.where()}: judge_model missing")
            setup = source_setup(v["source_file"]) or (v["source_file"].strip() or "unknown")
            out.append(Adjudicated(row.row_id, judge, judge, setup, gold, predicted, annotation))
        _refuse(sheet, problems)
        return out, {}
    data = _read_key(key)
    by_id = {str(k["row_id"]): k for k in data.get("rows", [])}
    for row in rows:
        k = by_id.pop(row.row_id, None)
        if k is None:
            problems.append(f"{row.where()}: not in the key {key.name}")
            continue
        if (
            _texts_digest(row.values["shown_A_idea"], row.values["shown_B_idea"])
            != k["text_sha256"]
        ):
            problems.append(f"{row.where()}: the shown ideas differ from the ones exported")
        for column in HIDDEN:
            value = row.values[column].strip()
            if value and value != str(k[column]):
                problems.append(f"{row.where()}: {column} {value!r} differs from the key")
        annotation = _annotation(row, "annotation", problems, CHOICES)
        out.append(
            Adjudicated(
                row.row_id,
                k["config"],
                k["judge_model"],
                k["setup"],
                k["gold"],
                k["predicted"],
                annotation,
            )
        )
    problems += [f"row {rid}: in the key but not in the sheet" for rid in sorted(by_id)]
    _refuse(sheet, problems)
    return out, data.get("runs", {})
