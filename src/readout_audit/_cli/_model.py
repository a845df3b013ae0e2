"""The model a command's options name, as the library's typed :class:`ModelChoice`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from readout_audit._cli._fields import settings_from
from readout_audit.kind import ModelChoice as LibraryChoice
from readout_audit.kind import quiet_loading
from readout_audit.model import ServedSettings, is_served

__all__ = ["ModelChoice", "quiet_loading"]


class ModelChoice(LibraryChoice):
    """:class:`readout_audit.kind.ModelChoice`, read from the shared model options."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ModelChoice:
        """The choice the shared model options (``model_options``) made.

        The served fields only for a served spec, so the model sees only what it reads.
        """
        if not is_served(options["model_spec"]):
            return settings_from(cls, options)
        served = settings_from(ServedSettings, options)
        return settings_from(cls, options, served=served, tokenizer=options["tokenizer"] or None)
