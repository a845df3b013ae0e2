"""What every kind's run takes besides its own settings (top-k, template, batch, progress)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from readout_audit._util import INT_MAX, option_hint
from readout_audit.model import DEFAULT_BATCH_SIZE
from readout_audit.progress import ProgressMode
from readout_audit.readout import DEFAULT_TOP_K

GreedyTokens = Annotated[
    int, Field(ge=0, le=INT_MAX, strict=True, json_schema_extra=option_hint(skip=True))
]
"""Greedy tokens an audit reads at each scored position (a notebook's setting, no option)."""
MAX_TOP_K = 1 << 20
"""The most tokens a record keeps of a distribution: more than any vocabulary (the largest,
Gemma 3's, has 262,144), so a record never asks for more than the model has."""


class RunSettings(BaseModel):
    """What every kind's run takes besides its items and protocol: typed, nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    top_k: int = Field(default=DEFAULT_TOP_K, ge=1, le=MAX_TOP_K, strict=True)
    """Tokens of each scored position's distribution kept in its record (at most 2^20, more
    than any model's vocabulary)."""
    template_kwargs: dict[str, JsonValue] = Field(
        default_factory=dict, json_schema_extra=option_hint(skip=True)
    )
    """Chat-template arguments, e.g. ``{"enable_thinking": False}``."""
    batch_size: int = Field(default=DEFAULT_BATCH_SIZE, ge=1, le=INT_MAX, strict=True)
    """Scored positions per model call (one padded forward, one batched decode)."""
    progress: ProgressMode = Field(default="off", json_schema_extra=option_hint(skip=True))
    """``bar``, ``lines`` or ``off``: a mode, never a truth value (``"off"`` is truthy)."""
    overwrite: bool = False
    """Delete the run already in --out (whatever its configuration) and start it again;
    without it, a run of the same configuration is resumed."""
