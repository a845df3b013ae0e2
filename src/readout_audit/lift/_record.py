"""The record of one cut under one scorer condition: the target's per-token log-probabilities."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.lift._cut import CutKind
from readout_audit.log import RECORD_SCHEMA_VERSION


class LiftRecord(BaseModel):
    """One line of a lift run's ``records.jsonl``; every scoring rule is recomputed from it."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = RECORD_SCHEMA_VERSION
    item_id: str
    """The cut's id."""
    variant: str
    """The condition: ``empty``, ``context``, ``context3``, ``forecast/<setting>``, ``oracle``."""
    cluster: str
    """The cut's paper: standard errors are clustered by it."""
    kind: CutKind
    prompt_sha256: str
    """SHA-256 of the scorer prompt's text (the target not included)."""
    prompt_tail: str
    """The prompt's last 60 characters."""
    n_prompt_tokens: int
    """Tokens of the prompt, leading special tokens included."""
    shared_tokens: int
    """Leading prompt tokens encoded once for every scaffold condition of the cut (0: alone)."""
    target_token_ids: list[int]
    target_logprobs: list[float]
    """log p(y_t | prompt, y_<t) for each target token, float32 from the scorer."""
    forecast_chars: int | None = None
    """Length of the forecast Z in the prompt (forecast conditions)."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def upgraded(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """Lift records are new in this schema version; nothing older exists."""
        return {**raw, "schema_version": RECORD_SCHEMA_VERSION}

    @property
    def setting(self) -> str | None:
        """The forecast's setting name, for a forecast condition."""
        head, _, tail = self.variant.partition("/")
        return tail if head == "forecast" else None


def scored_tokens(record: LiftRecord) -> int:
    """Tokens the scorer read for a record: its prompt and its target."""
    return record.n_prompt_tokens + len(record.target_token_ids)
