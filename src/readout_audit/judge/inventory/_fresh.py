"""Fresh sources for each study: its own draw, and a refusal to share any sibling's ones.

Seed 004's confirmation study audits its new clusters against every prior inventory, and its
decomposition and formatting pilot have "zero exact-ID and declared-cluster overlap" with each
other. Those two each walk the banks in an order of their own (:func:`study_draw_seed`), so one
seed does not hand every study the same sources; and any study drawing sources, built beside
another inventory (a directory next to its ``--out``, built before or after it) that shares a
source id or a (dataset, cluster) with it, is refused unless that inventory is excluded
(``--exclude``), which the draw then avoids. Only an inventory built from it (the repeat panel
reusing a decomposition) may share its sources.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory._build import (
    Inventory,
    InventorySettings,
    PriorInventory,
    sha256_json,
)
from readout_audit.judge.inventory._file import (
    INVENTORY_FILE,
    MANIFEST_FILE,
    holds_inventory,
    read_planned,
    read_settings,
)
from readout_audit.judge.protocol import PlannedRequest

SHOWN = 5
"""Overlapping ids and clusters named in a refusal."""


def study_draw_seed(seed: int, study: str) -> int:
    """A study's source-walk seed: 15 hex digits of SHA-256 of ``[seed, "draw", study]``."""
    return int(sha256_json([seed, "draw", study])[:15], 16)


def sibling_inventories(out: Path, excluded: Iterable[Path] = ()) -> list[Path]:
    """The inventory directories beside ``out`` (not ``out``, nor an excluded one), by name.

    Only a folder whose manifest says it is a judge inventory is one: any other folder beside
    ``out`` is the user's, and is never read.
    """
    skipped = {p.resolve() if p.is_dir() else p.resolve().parent for p in excluded}
    skipped.add(out.resolve())
    parent = out.resolve().parent
    if not parent.is_dir():
        return []
    return sorted(
        path
        for path in parent.iterdir()
        if path.is_dir()
        and (path / INVENTORY_FILE).is_file()
        and path.resolve() not in skipped
        and holds_inventory(path)
    )


def read_earlier(path: Path, why: str) -> tuple[PriorInventory, list[PlannedRequest]]:
    """The planned requests of the earlier inventory at ``path``, read because ``why``.

    A path whose manifest does not say it is a judge inventory is refused, and an error in
    reading one says ``why`` it was read (``--exclude`` names it; it lies beside ``--out``).
    """
    if not holds_inventory(path):
        raise InputError(
            f"is no judge inventory (no {MANIFEST_FILE} says so); it was read because {why}: "
            "give only an inventory `readout judge build` wrote",
            source=str(path),
            field="exclude",
        )
    try:
        return read_planned(path)
    except InputError as error:
        raise _because(error, why) from None


def _because(error: InputError, why: str) -> InputError:
    """``error`` saying why its inventory was read."""
    return InputError(
        f"{error.message} (read because {why})",
        source=error.source,
        line=error.line,
        item_id=error.item_id,
        field=error.field,
    )


def shared_sources(
    inventory: Inventory, requests: Sequence[PlannedRequest]
) -> tuple[list[str], list[str]]:
    """The source ids and ``dataset/cluster`` pairs ``inventory`` shares with ``requests``."""
    ids = {r.source_id for r in requests}
    clusters = {(r.dataset, r.cluster) for r in requests}
    mine = inventory.outcome.sources
    return (
        sorted(s.id for s in mine if s.id in ids),
        sorted(f"{s.dataset}/{s.cluster}" for s in mine if (s.dataset, s.cluster) in clusters),
    )


def _study_name(settings: InventorySettings) -> str:
    """Which study built an inventory: its study entry's name, a cue search, or confirmation."""
    if settings.study is not None:
        return str(settings.study.get("name"))
    return "cue search" if settings.search is not None else "confirmation"


def refuse_shared_sources(study: str, inventory: Inventory, siblings: Sequence[Path]) -> None:
    """Refuse ``inventory`` if it shares a source id or cluster with a sibling inventory.

    Whichever was built first: only a sibling built from ``inventory`` (naming it among its
    priors, as the repeat panel names the decomposition it reuses) may share its sources.
    """
    why = f"it lies beside --out and the {study} study draws fresh sources"
    for path in siblings:
        _, requests = read_earlier(path, why)
        ids, clusters = shared_sources(inventory, requests)
        if not (ids or clusters):
            continue
        try:
            settings, _ = read_settings(path)
        except InputError as error:
            raise _because(error, why) from None
        if inventory.outcome.inventory_sha256 in {p.sha256 for p in settings.priors}:
            continue
        raise InputError(
            f"the {study} study draws fresh sources, but shares {len(ids)} source id(s) "
            f"({', '.join(ids[:SHOWN]) or 'none'}) and {len(clusters)} cluster(s) "
            f"({', '.join(clusters[:SHOWN])}) with the {_study_name(settings)} inventory in "
            f"{path}: pass --exclude {path} to draw around it",
            field="exclude",
        )
