"""One planned judge request: what is asked, of which configuration, and what answer is right."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.judge.protocol._cells import Distance, Phase, Presentation


class PlannedRequest(BaseModel):
    """One row of a frozen inventory: a candidate in one cell, one presentation, one configuration.

    ``request`` is the structured judge request in its presentation's key order; its wire body
    (the bytes an endpoint receives) and content-normalised hash are fixed when it is built.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    request_id: str = Field(min_length=1)
    """``{phase}:{configuration}:{source_id}:{cell}:{presentation}``; unique in an inventory."""
    phase: Phase
    configuration: str
    """The grading configuration's name (a judge and a contract)."""
    contract: str
    """The grading contract: ``FINAL3``, ``FINAL4``, ``HALL`` or ``HALL_R``."""
    source_id: str
    dataset: str
    """The source's workload (``gsm8k``, ``drop``): the stratum of the weighted estimates."""
    cluster: str
    """The source's declared cluster (passage, problem): one question per cluster."""
    distance: Distance | None = None
    """The wrong final value's mutation, for cells that carry one."""
    cell: str
    """The candidate's cell: a cue, a control, a repeat or a fixture (``judge.protocol._cells``)."""
    presentation: Presentation
    target_label: str
    """The label a competent judge returns for this candidate."""
    candidate: str
    """The candidate reply, byte for byte as the judge sees it."""
    request: dict[str, Any]
    """The structured request in this presentation's key order."""
    wire_sha256: str
    """SHA-256 of the wire body's exact bytes (differs between presentations)."""
    content_sha256: str
    """SHA-256 of the content-normalised request (equal across presentations)."""
