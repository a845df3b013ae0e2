"""The record of one judge request's outcome: the native verdict and the scores as returned."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.judge.protocol._cells import Distance, Phase, Presentation
from readout_audit.judge.protocol._contracts import CONTRACTS
from readout_audit.judge.protocol._planned import PlannedRequest
from readout_audit.log import RECORD_SCHEMA_VERSION

Outcome = Literal["completed", "failed", "unknown", "unparsed"]
"""``completed``: a verdict was read; ``failed``: the endpoint refused terminally; ``unknown``:
sent with no known outcome (never resent); ``unparsed``: a reply that names no label."""


class JudgeRecord(BaseModel):
    """One line of a judge run's ``records.jsonl``: one planned request and what came back.

    A missing verdict stays missing (``verdict`` None): the analysis bounds it, never guesses it.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = RECORD_SCHEMA_VERSION
    item_id: str
    """The request id (``PlannedRequest.request_id``)."""
    variant: str
    """``{cell}/{presentation}``."""
    phase: Phase
    configuration: str
    contract: str
    source_id: str
    dataset: str
    cluster: str
    distance: Distance | None = None
    cell: str
    presentation: Presentation
    target_label: str
    positive_label: str
    """The contract's accepting label (``correct``, ``supported``)."""
    wire_sha256: str
    content_sha256: str
    outcome: Outcome
    verdict: str | None = None
    """The label the judge returned (its structured output or its argmax), as returned."""
    label_probs: dict[str, float | None] | None = None
    """Displayed probability of each label, as returned; None where the reply shows none."""
    label_mass: float | None = None
    """A local judge's total next-token mass on the labels' first tokens (None when served)."""
    prompt_tokens: int | None = None
    """Prompt tokens the judge read (a served judge's reported usage), when known."""
    error: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def upgraded(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """Judge records are new in this schema version; nothing older exists."""
        return {**raw, "schema_version": RECORD_SCHEMA_VERSION}

    @property
    def accepted(self) -> bool | None:
        """The native positive verdict V (None when no verdict was read)."""
        return None if self.verdict is None else self.verdict == self.positive_label

    @property
    def right(self) -> bool | None:
        """Whether the verdict is the target label (None when no verdict was read)."""
        return None if self.verdict is None else self.verdict == self.target_label


def planned_record(request: PlannedRequest, outcome: Outcome, **fields: Any) -> JudgeRecord:
    """A planned request's record: its planned fields copied, ``fields`` (verdict, ...) added."""
    return JudgeRecord(
        item_id=request.request_id,
        variant=f"{request.cell}/{request.presentation}",
        phase=request.phase,
        configuration=request.configuration,
        contract=request.contract,
        source_id=request.source_id,
        dataset=request.dataset,
        cluster=request.cluster,
        distance=request.distance,
        cell=request.cell,
        presentation=request.presentation,
        target_label=request.target_label,
        positive_label=CONTRACTS[request.contract].positive,
        wire_sha256=request.wire_sha256,
        content_sha256=request.content_sha256,
        outcome=outcome,
        **fields,
    )
