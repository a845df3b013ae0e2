"""Building an inventory: the sources chosen, the requests planned, every hash.

Its settings (the stage's identity) and its outcome (what was drawn) hold nothing that differs
between machines (no paths, times or command lines), so the same inputs, seed and
configurations give byte-identical inventory and outcome files anywhere.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from readout_audit._util import dumps_line
from readout_audit.judge.inventory._inventory import PHASE_CELLS, Configuration, plan_inventory
from readout_audit.judge.inventory._select import PriorSources, SelectedSource, select_sources
from readout_audit.judge.inventory._sources import Source, SourceBank
from readout_audit.judge.protocol import (
    PHASES,
    Contract,
    Distance,
    Phase,
    PlannedRequest,
    compact_json,
)


def sha256_json(value: Any) -> str:
    """SHA-256 of a JSON value's compact UTF-8 text."""
    return hashlib.sha256(compact_json(value).encode()).hexdigest()


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BankStats(_Frozen):
    """One dataset as loaded: rows read, sources usable, rows skipped and the bank's hash."""

    dataset: str
    rows: int
    sources: int
    skipped: dict[str, int]
    sha256: str
    """SHA-256 of the compact JSON list of every usable source (however it was read)."""


class PriorInventory(_Frozen):
    """An earlier inventory excluded against: its file name, hash and number of sources."""

    name: str
    sha256: str
    sources: int


class SourceEntry(_Frozen):
    """A chosen source: phase, mutation, the values candidates show, and its record's hash."""

    id: str
    dataset: str
    cluster: str
    phase: Phase
    distance: Distance
    x: str
    y: str
    letters: str
    sha256: str
    """SHA-256 of the compact JSON of the whole source (question, references, evidence)."""
    z: str | None = None
    """The wrong earlier value Z of a study that varies the prefix (left out otherwise)."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Without a Z the entry is as it was before the field existed."""
        data: dict[str, Any] = handler(self)
        if data.get("z") is None:
            data.pop("z", None)
        return data


class RequestHashes(_Frozen):
    """A planned request's wire and content hashes, in inventory order."""

    request_id: str
    wire_sha256: str
    content_sha256: str


class InventorySettings(_Frozen):
    """What an inventory is built from: its identity, the ``config`` of its stage manifest.

    A rebuild into the same directory with other settings is refused, listing the differences.
    """

    seed: int
    per_dataset: int
    preflight_per_dataset: int
    configurations: list[Configuration]
    contracts: dict[str, Contract]
    banks: list[BankStats]
    priors: list[PriorInventory]
    search: dict[str, Any] | None = None
    """A cue search stage's identity (programme, stage, the hashes it was derived from)."""
    study: dict[str, Any] | None = None
    """A robustness study's identity (its name, design and families), beside the confirmation
    study's inventories (which have none)."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A protocol inventory has no search or study entry: its settings are unchanged by them."""
        data: dict[str, Any] = handler(self)
        for name in ("search", "study"):
            if data.get(name) is None:
                data.pop(name, None)
        return data


class InventoryOutcome(_Frozen):
    """What a build drew and planned from its settings: a document written once beside it."""

    exclusions: dict[str, dict[str, int]]
    """Per dataset, sources left out by reason (``judge.inventory._select.EXCLUSION_REASONS``)."""
    counts: dict[str, dict[str, int]]
    """``sources`` and ``requests`` per phase, ``per_source`` (calls per source and
    configuration) and ``configurations`` (requests per configuration)."""
    sources: list[SourceEntry]
    requests: list[RequestHashes]
    inventory_sha256: str
    """SHA-256 of the inventory file's bytes."""


@dataclass(frozen=True)
class Inventory:
    """Planned requests in interleaved order, the settings that fix them and what was drawn."""

    requests: list[PlannedRequest]
    settings: InventorySettings
    outcome: InventoryOutcome


def inventory_bytes(requests: Sequence[PlannedRequest]) -> bytes:
    """The inventory file's exact bytes: one JSON line per request, in the given order."""
    return "".join(dumps_line(r.model_dump(mode="json")) + "\n" for r in requests).encode()


def _counts(
    requests: Sequence[PlannedRequest], sources: Sequence[SelectedSource]
) -> dict[str, dict[str, int]]:
    by_phase = Counter(r.phase for r in requests)
    return {
        "sources": {phase: sum(s.phase == phase for s in sources) for phase in PHASES},
        "requests": {**{phase: by_phase[phase] for phase in PHASES}, "total": len(requests)},
        "per_source": {phase: 2 * len(PHASE_CELLS[phase]) for phase in PHASES},
        "configurations": dict(sorted(Counter(r.configuration for r in requests).items())),
    }


def _bank_stats(bank: SourceBank) -> BankStats:
    sources = [source.model_dump(mode="json") for source in bank.sources]
    return BankStats(
        dataset=bank.dataset,
        rows=bank.rows,
        sources=len(bank.sources),
        skipped=bank.skipped,
        sha256=sha256_json(sources),
    )


def _source_sha256(source: Source) -> str:
    return sha256_json(source.model_dump(mode="json"))


@dataclass(frozen=True)
class ChosenSources:
    """The sources an inventory uses, and how they were chosen: banks, priors, exclusions."""

    selected: list[SelectedSource]
    banks: list[BankStats]
    priors: list[PriorInventory]
    exclusions: dict[str, dict[str, int]]
    per_dataset: int
    preflight_per_dataset: int


def choose_sources(
    banks: Sequence[SourceBank],
    *,
    seed: int,
    per_dataset: int,
    preflight_per_dataset: int,
    priors: Sequence[tuple[PriorInventory, Sequence[PlannedRequest]]] = (),
    prefixed: bool = False,
) -> ChosenSources:
    """Each dataset's preflight and confirmation sources, fresh against the prior inventories.

    ``prefixed``: a study varying the earlier line; each source also gets its wrong Z.
    """
    excluded = PriorSources()
    for _, requests in priors:
        excluded.add(requests)
    selected, exclusions = select_sources(
        banks, seed, per_dataset, preflight_per_dataset, excluded, prefixed=prefixed
    )
    return ChosenSources(
        selected=selected,
        banks=[_bank_stats(bank) for bank in banks],
        priors=[prior for prior, _ in priors],
        exclusions=exclusions,
        per_dataset=per_dataset,
        preflight_per_dataset=preflight_per_dataset,
    )


def source_entry(selected: SelectedSource) -> SourceEntry:
    """A chosen source as its outcome lists it."""
    return SourceEntry(
        id=selected.source.id,
        dataset=selected.source.dataset,
        cluster=selected.source.cluster,
        phase=selected.phase,
        distance=selected.distance,
        x=selected.x,
        y=selected.y,
        letters=selected.letters,
        sha256=_source_sha256(selected.source),
        z=selected.z,
    )


def assemble_inventory(
    requests: Sequence[PlannedRequest],
    chosen: ChosenSources,
    sources: Sequence[SelectedSource],
    configurations: Sequence[Configuration],
    *,
    seed: int,
    counts: dict[str, dict[str, int]],
    search: dict[str, Any] | None = None,
    study: dict[str, Any] | None = None,
) -> Inventory:
    """Ordered requests, the settings that fix them and what was drawn, with every hash."""
    settings = InventorySettings(
        seed=seed,
        per_dataset=chosen.per_dataset,
        preflight_per_dataset=chosen.preflight_per_dataset,
        configurations=list(configurations),
        contracts={c.contract: c.grading for c in configurations},
        banks=chosen.banks,
        priors=chosen.priors,
        search=search,
        study=study,
    )
    outcome = InventoryOutcome(
        exclusions=chosen.exclusions,
        counts=counts,
        sources=[source_entry(s) for s in sources],
        requests=[
            RequestHashes(
                request_id=r.request_id, wire_sha256=r.wire_sha256, content_sha256=r.content_sha256
            )
            for r in requests
        ],
        inventory_sha256=hashlib.sha256(inventory_bytes(requests)).hexdigest(),
    )
    return Inventory(requests=list(requests), settings=settings, outcome=outcome)


def build_inventory(
    banks: Sequence[SourceBank],
    configurations: Sequence[Configuration],
    *,
    seed: int,
    per_dataset: int,
    preflight_per_dataset: int,
    priors: Sequence[tuple[PriorInventory, Sequence[PlannedRequest]]] = (),
) -> Inventory:
    """Choose the sources, plan and order every request, and write down how."""
    chosen = choose_sources(
        banks,
        seed=seed,
        per_dataset=per_dataset,
        preflight_per_dataset=preflight_per_dataset,
        priors=priors,
    )
    requests = plan_inventory(chosen.selected, configurations, seed)
    return assemble_inventory(
        requests,
        chosen,
        chosen.selected,
        configurations,
        seed=seed,
        counts=_counts(requests, chosen.selected),
    )
