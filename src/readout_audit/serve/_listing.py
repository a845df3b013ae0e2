"""What a ledger's requests came to: counts per state, spend, and the calls left to look at."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readout_audit._util import terminal_safe
from readout_audit.serve._cost import Spend
from readout_audit.serve._ledger import Ledger, LedgerEntry

KEY_PREFIX = 12
"""Characters of a call key shown in the listing."""


@dataclass(frozen=True)
class LedgerListing:
    """A ledger read whole: its states' counts, its spend, its unknown and failed calls."""

    counts: dict[str, int]
    spend: Spend
    over_bound: int
    """Completed calls charged more tokens than their bounds reserved."""
    calls: list[LedgerEntry]
    released: int | None = None
    """Unknown calls just released for a rerun to send again (None: none was asked)."""

    def as_json(self) -> dict[str, Any]:
        """The listing as ``readout ledger --json`` prints it."""
        fields = ("key", "state", "path", "tag", "endpoint", "attempts", "error")
        return {
            "counts": self.counts,
            "spend": {"tokens": self.spend.tokens, "usd": self.spend.usd},
            "over_bound": self.over_bound,
            "released": self.released,
            "calls": [{name: getattr(call, name) for name in fields} for call in self.calls],
        }

    def lines(self) -> list[str]:
        """The listing as text, a server's answers made safe for a terminal."""
        spend = self.spend
        lines = [
            ", ".join(f"{state} {n}" for state, n in self.counts.items()),
            f"spend: {spend.tokens} tokens, ${spend.usd:.6f} (usage and open reservations)",
        ]
        if self.over_bound:
            lines.append(
                f"{self.over_bound} completed calls were charged more tokens than their bounds "
                "reserved"
            )
        for call in self.calls:
            tag = f" {call.tag}" if call.tag else ""
            lines.append(
                terminal_safe(
                    f"{call.state} {call.key[:KEY_PREFIX]}{tag} {call.endpoint or 'no endpoint'} "
                    f"attempts {call.attempts}: {call.error or ''}"
                )
            )
        if self.released is not None:
            lines.append(f"released {self.released} unknown calls: a rerun sends them again")
        return lines


def ledger_listing(path: str | Path, released: int | None = None) -> LedgerListing:
    """Read the ledger at ``path`` whole (``released``: calls just released, to say so)."""
    with Ledger(Path(path)) as ledger:
        completed = ledger.entries("completed")
        return LedgerListing(
            counts=ledger.counts(),
            spend=ledger.spend(),
            over_bound=sum(entry.over_bound for entry in completed),
            calls=ledger.entries("unknown", "failed"),
            released=released,
        )
