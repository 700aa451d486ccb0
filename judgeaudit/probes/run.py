"""One call from options to card: run (or resume) the battery, read its logs, write the card."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.probes.audit import AuditResult, AuditSpec, assemble, run_battery
from judgeaudit.probes.card import write_card
from judgeaudit.probes.frame import frame_from_logs
from judgeaudit.probes.gates import DEFAULT_GATES, Gate


def run_audit(spec: AuditSpec, out: Path, gates: tuple[Gate, ...] = DEFAULT_GATES, display: str = "none",
              max_connections: int | None = None) -> tuple[AuditResult, dict[str, Path]]:
    """Run the audit of `spec` into `out` and write card.md / card.json / gates.png there."""
    out = Path(out)
    logs, items, skipped = run_battery(spec, out, display=display, max_connections=max_connections)
    result = assemble(spec, frame_from_logs(logs), items, skipped, gates, str(out / "logs"))
    return result, write_card(result, out)
