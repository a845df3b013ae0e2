"""What a judge request is.

Its cells, label contracts and presentation on the wire; the planned request and its record.
"""

from readout_audit.judge.protocol._cells import (
    CONFIRMATION_CELLS,
    CONTROL_CELLS,
    FIXTURE_CELLS,
    PREFLIGHT_CELLS,
    PRESENTATIONS,
    PRIMARY_CELLS,
    REPEAT_CELLS,
)
from readout_audit.judge.protocol._contracts import (
    CONTRACTS,
    FINAL3,
    FINAL4,
    HALL,
    HALL_INSTRUCTION,
    HALL_R,
    Contract,
)
from readout_audit.judge.protocol._planned import (
    PlannedRequest,
)
from readout_audit.judge.protocol._present import (
    RESPONSE_FORMATS,
    ResponseFormat,
    compact_json,
    content_sha256,
    key_sorted,
    response_format,
    structured_request,
    verdict_schema,
    wire_body,
    wire_bytes,
    wire_sha256,
)
from readout_audit.judge.protocol._record import (
    JudgeRecord,
    planned_record,
)
from readout_audit.judge.protocol._switch import (
    COMPARISONS,
    SWITCH_BRIDGES,
    SWITCH_STUDY,
    WORLDS,
    parse_cell,
    switch_cells,
)

__all__ = [
    "COMPARISONS",
    "CONFIRMATION_CELLS",
    "CONTRACTS",
    "CONTROL_CELLS",
    "Contract",
    "FINAL3",
    "FINAL4",
    "FIXTURE_CELLS",
    "HALL",
    "HALL_INSTRUCTION",
    "HALL_R",
    "JudgeRecord",
    "PREFLIGHT_CELLS",
    "PRESENTATIONS",
    "PRIMARY_CELLS",
    "PlannedRequest",
    "REPEAT_CELLS",
    "RESPONSE_FORMATS",
    "ResponseFormat",
    "SWITCH_BRIDGES",
    "SWITCH_STUDY",
    "WORLDS",
    "compact_json",
    "content_sha256",
    "key_sorted",
    "parse_cell",
    "planned_record",
    "response_format",
    "structured_request",
    "switch_cells",
    "verdict_schema",
    "wire_body",
    "wire_bytes",
    "wire_sha256",
]
