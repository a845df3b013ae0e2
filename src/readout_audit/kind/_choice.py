"""The model a run reads, typed: a spec and everything :func:`open_model` takes for it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass
from rich.console import Console
from rich.text import Text

from readout_audit._util import terminal_safe
from readout_audit.model import (
    EMBEDDED_SPEC,
    ScoringModel,
    ServedSettings,
    TextCodec,
    is_served,
    open_model,
    resolve_device,
)


def quiet_loading() -> None:
    """Silence the loaders' own progress bars; opening a model shows one status line instead."""
    os.environ.setdefault("TQDM_DISABLE", "1")
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


@dataclass(frozen=True, config=ConfigDict(extra="forbid", arbitrary_types_allowed=True))
class ModelChoice:
    """A model spec with how to open it; the served fields only for a served spec.

    ``ModelChoice("hf:org/model", device="cuda")``: validated, an unknown field refused.
    """

    spec: str = EMBEDDED_SPEC
    device: str = "auto"
    dtype: str = "auto"
    device_map: str | None = None
    trust_remote_code: bool = False
    threads: int | None = None
    cache_budget_mb: int | None = None
    prefix_sharing: str = "auto"
    allow_download: bool = False
    served: ServedSettings | None = None
    tokenizer: str | None = None
    conformance: Path | None = None
    allow_nonconforming: bool = False

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
