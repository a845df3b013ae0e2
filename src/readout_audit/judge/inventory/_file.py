"""Inventory directories, written as a stage: ``DIR/inventory.jsonl`` and what fixes it.

DIR/inventory.jsonl                 one planned request a line, appended and flushed in order
DIR/inventory.jsonl.manifest.json   the stage's manifest: its settings (``config``) and commands
DIR/inventory.outcome.json          what the build drew and planned, written once
DIR/.lock                           held by the one process writing the inventory

A rebuild with the same settings resumes an interrupted one (a last line cut by the
interruption is dropped, the missing requests appended); other settings are refused, listing
the differences. An inventory written by an earlier version (one ``inventory.manifest.json``
holding settings and outcome together) is still read, and a rebuild into it only checks it.

Reading one back checks everything the outcome fixes: the file's hash, every row, each
request's wire and content hashes rebuilt from its structured request, and the order.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import (
    JsonlAppender,
    check_regular,
    dumps_line,
    field_path,
    iter_values,
    read_models,
    refuse_if_written,
    write_json_atomic,
)
from readout_audit.data import read_json
from readout_audit.judge.inventory._build import (
    Inventory,
    InventoryOutcome,
    InventorySettings,
    PriorInventory,
    RequestHashes,
)
from readout_audit.judge.inventory._inventory import Configuration, stream_key
from readout_audit.judge.protocol import PlannedRequest, content_sha256, wire_body, wire_sha256
from readout_audit.log import (
    Manifest,
    RunLock,
    load_manifest,
    now,
    resumed_manifest,
    stage_manifest_path,
    write_once,
)

INVENTORY_FILE = "inventory.jsonl"
MANIFEST_FILE = INVENTORY_FILE + ".manifest.json"
OUTCOME_FILE = "inventory.outcome.json"
LEGACY_MANIFEST_FILE = "inventory.manifest.json"
"""An earlier version's one manifest of settings and outcome together (still read)."""
INVENTORY_KIND = "judge-inventory"
"""The ``kind`` of an inventory's stage manifest."""


def _inventory_path(path: str | Path) -> Path:
    """The inventory file of a directory, or the file itself."""
    path = Path(path)
    return path / INVENTORY_FILE if path.is_dir() else path


def check_inventory_unlocked(directory: str | Path) -> None:
    """Refuse at once, naming the holder, while another process writes ``DIR``'s inventory.

    For a command to call before it reads its sources; the writer then takes the lock.
    """
    RunLock(Path(directory)).probe()


def holds_inventory(path: str | Path) -> bool:
    """Whether the manifest of ``path`` (a directory or its inventory file) says it is one.

    A stage manifest of kind ``judge-inventory`` says so, and so does an earlier version's
    ``inventory.manifest.json``; a file merely named ``inventory.jsonl`` (a shop's stock list)
    is no inventory of ours.
    """
    path = _inventory_path(path)
    manifest = stage_manifest_path(path)
    if manifest.is_file():
        remedy = "it is read as the judge inventory it names"
        return load_manifest(manifest, remedy).kind == INVENTORY_KIND
    return path.name == INVENTORY_FILE and (path.parent / LEGACY_MANIFEST_FILE).is_file()


def inventory_manifest(settings: InventorySettings) -> Manifest:
    """The stage manifest of an inventory built with ``settings`` (it reads no model)."""
    return Manifest.create(
        INVENTORY_KIND, None, settings.model_dump(mode="json"), {"interleave": settings.seed}
    )


def write_inventory(
    directory: str | Path, inventory: Inventory, *, overwrite: bool = False
) -> None:
    """Write (or finish) the inventory stage in ``directory``, holding its lock.

    The outcome is written once; the requests are appended after those already there, which
    must be the inventory's first ones. An earlier version's inventory is only checked.
    ``overwrite``: an inventory already there (of any settings) is deleted first.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / INVENTORY_FILE
    lock = RunLock(directory)
    lock.acquire()
    try:
        if overwrite:
            for name in (INVENTORY_FILE, MANIFEST_FILE, OUTCOME_FILE, LEGACY_MANIFEST_FILE):
                (directory / name).unlink(missing_ok=True)
        if (directory / LEGACY_MANIFEST_FILE).exists():
            _check_same(directory, inventory)
            return
        if path.exists() and path.stat().st_size and not stage_manifest_path(path).exists():
            raise RunDirectoryError(f"{path} exists without its manifest; choose another output")
        manifest = resumed_manifest(
            stage_manifest_path(path),
            inventory_manifest(inventory.settings),
            f"{directory} holds an inventory",
        )
        write_once(directory / OUTCOME_FILE, inventory.outcome.model_dump(mode="json"))
        _append_missing(path, inventory.requests)
        manifest.invocations[-1].finished = now()
        manifest.invocations[-1].planned = len(inventory.requests)
        write_json_atomic(stage_manifest_path(path), manifest.model_dump(mode="json"))
    finally:
        lock.release()


def _append_missing(path: Path, requests: list[PlannedRequest]) -> None:
    """Append the requests not yet in the file, after checking those there are the first ones."""
    appender = JsonlAppender(path)  # drops a last line cut by an interruption
    try:
        _, written = read_planned(path)
        if [r.request_id for r in written] != [r.request_id for r in requests[: len(written)]]:
            raise RunDirectoryError(f"{path} holds other requests than this build plans")
        for request in requests[len(written) :]:
            appender.write_text(dumps_line(request.model_dump(mode="json")))
    finally:
        appender.close()


def _check_same(directory: Path, inventory: Inventory) -> None:
    """An earlier version's inventory must be the one this build plans."""
    held = read_inventory(directory).outcome.inventory_sha256
    if held != inventory.outcome.inventory_sha256:
        raise InputError(
            "holds another inventory than this build plans: use a new directory",
            source=str(directory),
        )


def read_planned(path: str | Path) -> tuple[PriorInventory, list[PlannedRequest]]:
    """The planned requests of an inventory file (or directory), each validated, ids unique.

    For exclusions: the file's name, hash and source count come with them.
    """
    path = _inventory_path(path)
    refuse_if_written(path.parent, "an inventory")  # half written: never read as an input
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


def _validated(model: type[BaseModel], raw: Any, path: Path) -> Any:
    """``raw`` as ``model``, or an error naming the file and the first field wrong."""
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(
            first["msg"], source=str(path), field=field_path(tuple(first["loc"]))
        ) from None


def _json_file(path: Path, what: str) -> Any:
    if not path.is_file():
        raise InputError(f"no such {what} (it is written beside the inventory)", source=str(path))
    return read_json(path)


def read_settings(directory: Path) -> tuple[InventorySettings, InventoryOutcome]:
    """An inventory directory's settings and outcome, from either version's files."""
    legacy = directory / LEGACY_MANIFEST_FILE
    if legacy.exists() and not (directory / MANIFEST_FILE).exists():
        raw = _json_file(legacy, "manifest")
        if not isinstance(raw, dict):
            raise InputError("is not a JSON object", source=str(legacy))
        fields = (InventorySettings.model_fields, InventoryOutcome.model_fields)
        parts = [{k: v for k, v in raw.items() if k in names} for names in fields]
        return _validated(InventorySettings, parts[0], legacy), _validated(
            InventoryOutcome, parts[1], legacy
        )
    manifest_path = directory / MANIFEST_FILE
    if not manifest_path.is_file():
        raise InputError(
            "no such manifest (it is written beside the inventory)", source=str(manifest_path)
        )
    manifest = load_manifest(manifest_path, "rebuild the inventory into a new directory")
    if manifest.kind != INVENTORY_KIND:
        raise InputError(
            f"is a {manifest.kind} manifest, not an inventory's", source=str(manifest_path)
        )
    if manifest.invocations and manifest.invocations[-1].finished is None:
        raise InputError(
            "is an unfinished inventory: run the same build again to finish it",
            source=str(directory),
        )
    settings = _validated(InventorySettings, manifest.config, manifest_path)
    outcome_path = directory / OUTCOME_FILE
    return settings, _validated(InventoryOutcome, _json_file(outcome_path, "outcome"), outcome_path)


def read_inventory(directory: str | Path) -> Inventory:
    """An inventory directory read back and checked against its settings and outcome.

    The inventory file's SHA-256, each request's wire and content hash (rebuilt from its
    structured request and its configuration's model name and response format), the
    outcome's list of hashes and the interleaved order must all match; the first mismatch
    names its line and field.
    """
    directory = Path(directory)
    path = directory / INVENTORY_FILE
    refuse_if_written(directory, "an inventory")
    settings, outcome = read_settings(directory)
    _, requests = read_planned(path)
    configurations = {c.name: c for c in settings.configurations}
    if len(requests) != len(outcome.requests):
        raise InputError(
            f"holds {len(requests)} requests; the outcome lists {len(outcome.requests)}",
            source=str(path),
        )
    previous = (0, "")
    for line, (request, listed) in enumerate(zip(requests, outcome.requests, strict=True), 1):
        field = _mismatch(request, listed, configurations.get(request.configuration))
        key = stream_key(settings.seed, request)
        if field is None and key < previous:
            field = ("request_id", "is out of the interleaved order")
        if field is not None:
            raise InputError(
                field[1], source=str(path), line=line, item_id=request.request_id, field=field[0]
            )
        previous = key
    if hashlib.sha256(path.read_bytes()).hexdigest() != outcome.inventory_sha256:
        raise InputError("does not match the outcome's inventory_sha256", source=str(path))
    return Inventory(requests=requests, settings=settings, outcome=outcome)


def _mismatch(
    request: PlannedRequest, listed: RequestHashes, configuration: Configuration | None
) -> tuple[str, str] | None:
    """The first field of a row that disagrees with its outcome entry or rebuilt body."""
    if configuration is None:
        return "configuration", "names no configuration of the inventory"
    if listed.request_id != request.request_id:
        return "request_id", "is not the outcome's request at this line"
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
