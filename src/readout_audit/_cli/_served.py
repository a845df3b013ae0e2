"""Options of served models (``--model openai:...``): their settings' fields, generated."""

from __future__ import annotations

from readout_audit._cli._fields import field_option, settings_options
from readout_audit.kind import ModelChoice
from readout_audit.model import ServedSettings

served_options = settings_options(ServedSettings)
"""Key, server, endpoint pools, pacing and cost cap of a served model."""

tokenizer_option = field_option(ModelChoice, "tokenizer")
"""``--tokenizer``, for a command whose other model options are not :class:`ModelChoice`'s."""
