"""MkDocs hook: the parts of the docs that the code already states, rendered from it at build time.

A page asks for a generated part with a marker line; the hook replaces it:

- `<!-- generated:cli -->`: every `judgeaudit` subcommand's `--help`, from the real argument parser
  (`judgeaudit.cli.build_parser`), nested subcommands (`mine generate`) included;
- `<!-- generated:gates -->`: the audit's default gates (`judgeaudit.audit.gates.DEFAULT_GATES`) as a
  table, with the rule each prints on the card;
- `<!-- generated:benchmarks -->`: every script of `tests/benchmarks/` with the first paragraph of its
  docstring (read with `ast`; nothing is run).

A marker the hook does not know fails the build, so a typo cannot leave a page silently empty.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HELP_WIDTH = "100"  # columns argparse wraps the help at: the same text on every machine
MARKER = re.compile(r"^<!-- generated:([a-z-]+) -->$", re.M)


def cli_reference() -> str:
    """Markdown: one section per subcommand, its `--help` as the parser prints it."""
    from judgeaudit.cli import build_parser, command_parsers

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        sections = []
        root = build_parser()
        for name, parser in {"": root, **command_parsers(root)}.items():
            command = " ".join(("judgeaudit", name)).strip()
            sections.append(f"## `{command}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
        return "\n".join(sections)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def gates_table() -> str:
    """Markdown: the default gates, one row each, in the fields a `--gates` file overrides."""
    from judgeaudit.audit.gates import DEFAULT_GATES

    rows = [
        "| gate | probe | figure | statistic | direction | pass_at | fail_at | the rule on the card |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in DEFAULT_GATES:
        cells = (
            f"`{g.name}`",
            f"`{g.probe}`",
            f"`{g.figure}`",
            f"`{g.statistic}`",
            g.direction,
            f"{g.pass_at:g}",
            f"{g.fail_at:g}",
            f"{g.rule()}: {g.description}",
        )
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def benchmarks_list() -> str:
    """Markdown: one bullet per benchmark script, its docstring's first paragraph."""
    bullets = []
    for path in sorted((ROOT / "tests" / "benchmarks").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        summary = " ".join(doc.split("\n\n", 1)[0].split())
        if not summary:
            raise ValueError(f"{path.relative_to(ROOT)}: no docstring to describe it by")
        bullets.append(f"- `{path.relative_to(ROOT)}`: {summary}")
    return "\n".join(bullets) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "gates": gates_table,
    "benchmarks": benchmarks_list,
}


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace each generated-part marker of a page by its text."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_path}: unknown generated part {name!r}")
        return GENERATORS[name]()

    return MARKER.sub(fill, markdown)
