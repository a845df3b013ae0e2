"""The model a run reads, typed: a spec and everything :func:`open_model` takes for it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass
from rich.console import Console
from rich.text import Text

from readout_audit._util import INT_MAX, THREADS_MAX, option_hint, terminal_safe
from readout_audit.model import (
    EMBEDDED_SPEC,
    Device,
    Dtype,
    PrefixSharing,
    ScoringModel,
    ServedSettings,
    TextCodec,
    is_served,
    open_model,
    resolve_device,
)

DEVICE_HELP = "auto (cuda if available, else mps, else cpu), cpu, cuda, cuda:N or mps."
"""What ``--device`` takes (``ModelChoice.device``'s help says the same)."""


def quiet_loading() -> None:
    """Silence the loaders' own progress bars; opening a model shows one status line instead."""
    os.environ.setdefault("TQDM_DISABLE", "1")
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


@dataclass(
    frozen=True,
    config=ConfigDict(extra="forbid", arbitrary_types_allowed=True, use_attribute_docstrings=True),
)
class ModelChoice:
    """A model spec with how to open it; the served fields only for a served spec.

    ``ModelChoice("hf:org/model", device="cuda")``: validated, an unknown field refused.
    """

    spec: str = Field(
        default=EMBEDDED_SPEC, json_schema_extra=option_hint("--model", dest="model_spec")
    )
    """smollm2-135m, hf:<hub-id-or-dir>[@revision], gguf:<path>, or a served model:
    openai:<base-url>[,<base-url>...]#<model-name> (or openai:<file of URLs>#<name>)."""
    allow_download: bool = False
    """Let hf: specs download from the Hugging Face Hub."""
    device: Device = Field(default="auto", json_schema_extra=option_hint(read_by="local"))
    """auto (cuda if available, else mps, else cpu), cpu, cuda, cuda:N or mps."""
    dtype: Dtype = Field(default="auto", json_schema_extra=option_hint(read_by="local"))
    """Weights' dtype; auto is bfloat16 on a GPU and float32 on the CPU."""
    device_map: Literal["auto"] | None = Field(
        default=None, json_schema_extra=option_hint(read_by="local")
    )
    """auto: spread a model too large for one GPU over the available devices (accelerate's
    placement, recorded in the manifest)."""
    trust_remote_code: bool = Field(default=False, json_schema_extra=option_hint(read_by="local"))
    """Run a hf: checkpoint's own modelling code (off by default; recorded)."""
    threads: int | None = Field(
        default=None,
        ge=1,
        le=THREADS_MAX,
        strict=True,
        json_schema_extra=option_hint(read_by="local"),
    )
    """CPU threads for the model (default: torch's, one per core; at most this machine's
    cores); fewer can be faster on a busy machine."""
    cache_budget_mb: int | None = Field(
        default=None,
        ge=1,
        le=INT_MAX >> 20,  # its bytes are an int64 too
        strict=True,
        json_schema_extra=option_hint(
            "--cache-budget", metavar="MB", dest="cache_budget", read_by="local"
        ),
    )
    """Largest key-value cache of one forward (default 1024 MB); a batch over it is scored in
    chunks, with the same numbers."""
    prefix_sharing: PrefixSharing = Field(
        default="auto", json_schema_extra=option_hint(read_by="local")
    )
    """Encode the token prefixes a batch shares (a few-shot block, a ladder's question) once;
    auto: on the CPU, where it saves time, not on a GPU, where it costs."""
    served: ServedSettings | None = Field(default=None, json_schema_extra=option_hint(skip=True))
    """A served model's pools, pacing, cost cap and key (its own options)."""
    tokenizer: str | None = Field(
        default=None, json_schema_extra=option_hint(metavar="SPEC", read_by="served")
    )
    """A served model's local tokenizer (a local model spec); default: the conformance file's
    reference."""
    conformance: Path | None = Field(
        default=None,
        json_schema_extra=option_hint(dest="conformance_path", path="file", read_by="served"),
    )
    """A served model's conformance.json, written by `readout conformance`."""
    allow_nonconforming: bool = Field(
        default=False, json_schema_extra=option_hint(read_by="served")
    )
    """Run a served model even without a passing conformance verdict (recorded)."""

    def open(self, preflight: Callable[[TextCodec], None] | None = None) -> ScoringModel:
        """Open the model (``preflight`` runs with its tokenizer, before the weights load).

        A local model shows one status line on stderr instead of the loaders' bars; a served
        spec is not printed (its URL may hold a password).
        """
        quiet_loading()
        opening = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "spec"}
        if is_served(self.spec):
            return open_model(self.spec, **opening, preflight=preflight)
        resolve_device(self.device)  # a device this machine lacks fails before loading
        console = Console(stderr=True)
        loading = terminal_safe(f"loading {self.spec}")
        if not console.is_terminal:
            print(loading, file=sys.stderr)
        with console.status(Text(loading)):
            return open_model(self.spec, **opening, preflight=preflight)
