"""The expert-annotation sheet in the published release's format (`expert-annotations/judge_errors.csv`).

One row per re-judged pair, columns `COLUMNS`: `item_id` (the sheet's own row id, e.g. `"001"`),
`problem_id` (the pair's id in its source file, a bare integer), `source_file` (the release file
the pair comes from, e.g. `human-plus-generated/pairwise.yaml`), `generation_model` (the ideator of
its generated side, blank when none), `judge_model`, `shown_A_idea` / `shown_B_idea` (the pair in
the order the expert saw it), `gold` and `predicted` (`A`, `B` or `tie`, in shown terms),
`annotation` (the expert's choice, in shown terms) and `annotation_reasoning` (may be blank).
Every text field is double-quoted and `problem_id` bare; rows end in CRLF while line breaks inside
quoted fields are bare LF. `read_sheet` reads that (or any valid CSV with the header) and names a
broken row by its row id and line; `write_sheet` writes it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from judgeaudit.errors import UserError
from judgeaudit.files import atomic_write_text

COLUMNS: tuple[str, ...] = (
    "item_id",
    "problem_id",
    "source_file",
    "generation_model",
    "judge_model",
    "shown_A_idea",
    "shown_B_idea",
    "gold",
    "predicted",
    "annotation",
    "annotation_reasoning",
)
# The columns a blind sheet leaves blank (their values live in its key file).
HIDDEN: tuple[str, ...] = (
    "problem_id",
    "source_file",
    "generation_model",
    "judge_model",
    "gold",
    "predicted",
)
CHOICES: tuple[str, ...] = ("A", "B", "tie")
# The release's folders and the setups their pairs belong to (see convert.novelty_judge_bench).
SOURCE_SETUPS: dict[str, str] = {
    "human-only": "human_only",
    "human-plus-generated": "human_generated",
    "ai-only": "ai_only",
}


class SheetError(UserError, ValueError):
    """An annotation sheet that cannot be read as it is (one line naming the file and rows)."""


@dataclass(frozen=True)
class SheetRow:
    """One row of a sheet: its first line in the file and its values by column."""

    line: int
    values: dict[str, str]

    @property
    def row_id(self) -> str:
        """The sheet's own id of the row (`item_id`)."""
        return self.values["item_id"]

    def where(self) -> str:
        """The row as an error names it: `row 005 (line 12)`."""
        return f"row {self.row_id or '?'} (line {self.line})"


def choice(value: str) -> str | None:
    """`A`, `B` or `tie` as the sheet spells one (case and surrounding blanks ignored); None if not one."""
    v = value.strip()
    if v.lower() == "tie":
        return "tie"
    return v.upper() if v.upper() in ("A", "B") else None


def source_setup(source_file: str) -> str | None:
    """The setup of a release file's pairs, from its top folder (None when not a release folder)."""
    top = source_file.strip().replace("\\", "/").split("/", 1)[0]
    return SOURCE_SETUPS.get(top)


def read_sheet(path: Path) -> list[SheetRow]:
    """The rows of a sheet; SheetError when it is not UTF-8 CSV with exactly the sheet's header,
    a row has another number of fields, or two rows share an id."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SheetError(f"{path}: not UTF-8 (byte {exc.start})") from None
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise SheetError(f"{path}: empty file (expected the header {','.join(COLUMNS)})")
        if tuple(h.strip() for h in header) != COLUMNS:
            missing = [c for c in COLUMNS if c not in header]
            extra = [h for h in header if h not in COLUMNS]
            raise SheetError(
                f"{path}: header is not the sheet's ({', '.join(COLUMNS)})"
                + (f"; missing: {', '.join(missing)}" if missing else "")
                + (f"; unknown: {', '.join(extra)}" if extra else "")
            )
        rows: list[SheetRow] = []
        start = reader.line_num + 1
        for fields in reader:
            if fields:
                if len(fields) != len(COLUMNS):
                    raise SheetError(
                        f"{path}: line {start}: {len(fields)} field(s), expected {len(COLUMNS)}"
                    )
                rows.append(SheetRow(start, dict(zip(COLUMNS, fields, strict=True))))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise SheetError(f"{path}: line {reader.line_num}: not valid CSV ({exc})") from None
    seen: dict[str, int] = {}
    for row in rows:
        if row.row_id in seen:
            raise SheetError(
                f"{path}: {row.where()}: item_id {row.row_id!r} repeats line {seen[row.row_id]}"
            )
        seen[row.row_id] = row.line
    return rows


class _Dialect(csv.Dialect):
    """The release's CSV: every text field quoted, numbers bare, CRLF between rows."""

    delimiter = ","
    quotechar = '"'
    doublequote = True
    skipinitialspace = False
    lineterminator = "\r\n"
    quoting = csv.QUOTE_NONNUMERIC


def write_sheet(path: Path, rows: list[dict[str, str | int]]) -> None:
    """Write rows (values by column; an int `problem_id` is written bare) in the release's format."""

    out = io.StringIO(newline="")
    writer = csv.writer(out, dialect=_Dialect)
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([row.get(c, "") for c in COLUMNS])
    atomic_write_text(path, out.getvalue())
