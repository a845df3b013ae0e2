"""Releasing a run's served calls of unknown outcome, and when that amends a frozen protocol."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.kind._claim import claim
from readout_audit.kind._registry import get_kind
from readout_audit.log import MANIFEST, RunDirectory, read_manifest
from readout_audit.serve import Ledger, ledger_of

AMENDMENTS = "amendments"
"""The run directory's artifact listing each protocol amendment and the calls it released."""


def release_unknown(run_dir: str | Path, *, amendment: str | None = None) -> int:
    """Let a rerun send again the run's calls of unknown outcome; returns how many.

    The server may have processed such a call, so sending it again may process it twice. In a
    run of a frozen protocol (a kind with ``frozen_requests``: the judge's inventories) that
    changes the protocol: it needs an ``amendment`` saying why, kept with the released calls in
    ``artifacts/amendments.json``; the kind marks their new records and sets them apart.
    """
    run_dir = Path(run_dir)
    path = ledger_of(run_dir)
    reason = (amendment or "").strip()
    if not (run_dir / MANIFEST).is_file():  # a ledger outside a run (conformance, forecasts)
        if amendment is not None:
            raise InputError(
                "is no run directory: an amendment is kept in a run's artifacts",
                source=str(run_dir),
                field="amend_protocol",
            )
        with Ledger(path) as ledger:
            return ledger.release_unknown()
    kind = get_kind(read_manifest(run_dir).kind)
    if kind.frozen_requests and not reason:
        raise InputError(
            f"a {kind.name} run's requests are a frozen protocol: sending an unknown one again "
            "amends it; say why with --amend-protocol REASON (its records are then marked and "
            "left out of the frozen tests)",
            source=str(run_dir),
            field="release_unknown",
        )
    if amendment is not None and not reason:
        raise InputError("is empty", field="amend_protocol")
    with claim(run_dir, kind) as directory, Ledger(path) as ledger:
        unknown = ledger.entries("unknown")
        released = ledger.release_unknown([e.key for e in unknown])
        if reason and unknown:
            kept: list[dict[str, Any]] = directory.artifact(AMENDMENTS) or []
            kept.append(
                {
                    "reason": reason,
                    "at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "released": [{"key": e.key, "tag": e.tag} for e in unknown],
                }
            )
            directory.write_artifact(AMENDMENTS, kept)
    return released


def amended_tags(run_dir: RunDirectory) -> dict[str, str]:
    """Tag (a judge's request id) → the reason of the amendment that released its call."""
    return {
        call["tag"]: amendment["reason"]
        for amendment in run_dir.artifact(AMENDMENTS) or []
        for call in amendment["released"]
        if call["tag"]
    }
