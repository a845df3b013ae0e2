"""An inventory in a few plain lines: what each dataset gave, and what was planned."""

from __future__ import annotations

from pathlib import Path

from readout_audit._util import terminal_safe
from readout_audit.judge.inventory._build import Inventory
from readout_audit.judge.inventory._file import INVENTORY_FILE


def inventory_summary(inventory: Inventory, out: Path | None = None) -> list[str]:
    """Per dataset its rows, sources, skips and exclusions; per phase its requests.

    With ``out``, a last line says where the requests were written.
    """
    settings, outcome = inventory.settings, inventory.outcome
    lines = []
    for bank in settings.banks:
        skipped = ", ".join(f"{k} {v}" for k, v in bank.skipped.items()) or "none"
        excluded = ", ".join(f"{k} {v}" for k, v in outcome.exclusions[bank.dataset].items() if v)
        lines.append(
            f"{bank.dataset}: {bank.rows} rows, {bank.sources} sources (skipped: {skipped}; "
            f"excluded: {excluded or 'none'})"
        )
    counts = outcome.counts
    for phase, n in counts["sources"].items():
        if not n:
            continue  # a study has no preflight
        lines.append(
            f"{phase}: {n} sources x {counts['per_source'][phase]} calls x "
            f"{len(settings.configurations)} configurations = {counts['requests'][phase]} requests"
        )
    lines.append(
        "per configuration: " + ", ".join(f"{k} {v}" for k, v in counts["configurations"].items())
    )
    if out is not None:
        where = out / INVENTORY_FILE
        lines.append(terminal_safe(f"wrote {len(inventory.requests)} requests to {where}"))
    return lines
