"""The model a command's options name, typed, and how the CLI opens it."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from readout_audit._cli._served import served_settings
from readout_audit._util._text import terminal_safe
from readout_audit.model import ServedSettings, open_model
from readout_audit.model._backend import ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.model._device import resolve_device
from readout_audit.model._served_spec import is_served


def quiet_loading() -> None:
    """Silence the loaders' own progress bars; the CLI shows one status line instead."""
    os.environ.setdefault("TQDM_DISABLE", "1")
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


@dataclass(frozen=True)
class ModelChoice:
    """A model spec with everything :func:`~readout_audit.model.open_model` takes for it.

    ``served`` and the served fields only for a served spec (``from_options`` leaves them
    empty for a local one, so ``open_model`` sees only what that kind of model reads).
    """

    spec: str
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

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ModelChoice:
        """The choice the shared model options (``model_options``) made."""
        served = is_served(options["model_spec"])
        return cls(
            spec=options["model_spec"],
            device=options["device"],
            dtype=options["dtype"],
            device_map=options["device_map"],
            trust_remote_code=options["trust_remote_code"],
            threads=options["threads"],
            cache_budget_mb=options["cache_budget"],
            prefix_sharing=options["prefix_sharing"],
            allow_download=options["allow_download"],
            served=served_settings(options) if served else None,
            tokenizer=(options["tokenizer"] or None) if served else None,
            conformance=options["conformance_path"] if served else None,
            allow_nonconforming=served and options["allow_nonconforming"],
        )

    def open(self, preflight: Callable[[TextCodec], None] | None = None) -> ScoringModel:
        """Open the model; a local one shows one status line instead of the loaders' bars.

        A served spec is not printed (its URL may hold a password).
        """
        quiet_loading()
        opening = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "spec"}
        if is_served(self.spec):
            return open_model(self.spec, **opening, preflight=preflight)
        resolve_device(self.device)  # a device this machine lacks fails before loading
        console = Console(stderr=True)
        loading = terminal_safe(f"loading {self.spec}")
        if not console.is_terminal:
            click.echo(loading, err=True)
        with console.status(Text(loading)):
            return open_model(self.spec, **opening, preflight=preflight)
