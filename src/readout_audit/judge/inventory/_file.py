"""Inventory files: ``DIR/inventory.jsonl`` (one planned request a line) and its manifest.

Reading one back checks everything the manifest fixes: the file's hash, every row, each
request's wire and content hashes rebuilt from its structured request, and the order.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import ValidationError

from readout_audit._exceptions import InputError
from readout_audit._util._input import check_regular
from readout_audit._util._jsonl import iter_values, write_bytes_atomic, write_json_atomic
from readout_audit._util._models import field_path, read_models
from readout_audit.data._jsonl import read_json
from readout_audit.judge.inventory._build import (
    Inventory,
    InventoryManifest,
    PriorInventory,
    RequestHashes,
    inventory_bytes,
)
from readout_audit.judge.inventory._inventory import Configuration, stream_key
from readout_audit.judge.protocol._planned import PlannedRequest
from readout_audit.judge.protocol._present import content_sha256, wire_body, wire_sha256

INVENTORY_FILE = "inventory.jsonl"
MANIFEST_FILE = "inventory.manifest.json"


def _inventory_path(path: str | Path) -> Path:
    """The inventory file of a directory, or the file itself."""
    path = Path(path)
    return path / INVENTORY_FILE if path.is_dir() else path


def write_inventory(directory: str | Path, inventory: Inventory) -> None:
    """Write the inventory and its manifest into ``directory``, each whole or not at all."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data = inventory_bytes(inventory.requests)
    write_bytes_atomic(directory / INVENTORY_FILE, data)
    write_json_atomic(directory / MANIFEST_FILE, inventory.manifest.model_dump(mode="json"))


def read_planned(path: str | Path) -> tuple[PriorInventory, list[PlannedRequest]]:
    """The planned requests of an inventory file (or directory), each validated, ids unique.

    For exclusions: the file's name, hash and source count come with them.
    """
    path = _inventory_path(path)
    check_regular(path, what="inventory file")
    requests = read_models(
        iter_values(path),
        PlannedRequest,
        source=str(path),
        key=lambda request: request.request_id,
        key_field="request_id",
    )
    prior = PriorInventory(
        name=path.name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        sources=len({r.source_id for r in requests}),
    )
    return prior, requests


def _read_manifest(path: Path) -> InventoryManifest:
    if not path.is_file():
        raise InputError("no such manifest (it is written beside the inventory)", source=str(path))
    raw = read_json(path)
    try:
        return InventoryManifest.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(
            first["msg"], source=str(path), field=field_path(tuple(first["loc"]))
        ) from None


def read_inventory(directory: str | Path) -> Inventory:
    """An inventory directory read back and checked against its manifest.

    The inventory file's SHA-256, each request's wire and content hash (rebuilt from its
    structured request and its configuration's model name and response format), the
    manifest's list of hashes and the interleaved order must all match; the first mismatch
    names its line and field.
    """
    directory = Path(directory)
    path = directory / INVENTORY_FILE
    manifest = _read_manifest(directory / MANIFEST_FILE)
    _, requests = read_planned(path)
    configurations = {c.name: c for c in manifest.configurations}
    if len(requests) != len(manifest.requests):
        raise InputError(
            f"holds {len(requests)} requests; the manifest lists {len(manifest.requests)}",
            source=str(path),
        )
    previous = (0, "")
    for line, (request, listed) in enumerate(zip(requests, manifest.requests, strict=True), 1):
        field = _mismatch(request, listed, configurations.get(request.configuration))
        key = stream_key(manifest.seed, request)
        if field is None and key < previous:
            field = ("request_id", "is out of the interleaved order")
        if field is not None:
            raise InputError(
                field[1], source=str(path), line=line, item_id=request.request_id, field=field[0]
            )
        previous = key
    if hashlib.sha256(path.read_bytes()).hexdigest() != manifest.inventory_sha256:
        raise InputError("does not match the manifest's inventory_sha256", source=str(path))
    return Inventory(requests=requests, manifest=manifest)


def _mismatch(
    request: PlannedRequest, listed: RequestHashes, configuration: Configuration | None
) -> tuple[str, str] | None:
    """The first field of a row that disagrees with its manifest entry or rebuilt body."""
    if configuration is None:
        return "configuration", "names no configuration of the manifest"
    if listed.request_id != request.request_id:
        return "request_id", "is not the manifest's request at this line"
    try:
        body = wire_body(
            request.request,
            configuration.model,
            request.presentation,
            configuration.response_format,
        )
    except (KeyError, TypeError, AttributeError):
        return "request", "is not a structured judge request"
    for field, value in (
        ("wire_sha256", wire_sha256(body)),
        ("content_sha256", content_sha256(body)),
    ):
        if getattr(request, field) != value or getattr(listed, field) != value:
            return field, "does not match the rebuilt wire body"
    return None
