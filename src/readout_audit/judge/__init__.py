"""LLM-judge robustness (seed 004): presentation and cue experiments run as frozen protocols."""

from readout_audit.judge._candidates import (
    BLANK,
    COLON,
    NO_ANSWER,
    READABLE_CUES,
    bridges,
    canonical_number,
    cell_candidate,
    cue_candidate,
    mutated,
    random_letters,
    target_label,
)
from readout_audit.judge._cells import (
    CONFIRMATION_CELLS,
    CONTROL_CELLS,
    FIXTURE_CELLS,
    PREFLIGHT_CELLS,
    PRESENTATIONS,
    PRIMARY_CELLS,
    REPEAT_CELLS,
)
from readout_audit.judge._contracts import (
    CONTRACTS,
    FINAL3,
    FINAL4,
    HALL,
    HALL_INSTRUCTION,
    HALL_R,
    Contract,
)
from readout_audit.judge._planned import (
    PlannedRequest,
)
from readout_audit.judge._present import (
    compact_json,
    content_sha256,
    key_sorted,
    structured_request,
    wire_body,
    wire_bytes,
    wire_sha256,
)
from readout_audit.judge._record import (
    JudgeRecord,
)

__all__ = [
    "BLANK",
    "COLON",
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
    "NO_ANSWER",
    "PREFLIGHT_CELLS",
    "PRESENTATIONS",
    "PRIMARY_CELLS",
    "PlannedRequest",
    "READABLE_CUES",
    "REPEAT_CELLS",
    "bridges",
    "canonical_number",
    "cell_candidate",
    "compact_json",
    "content_sha256",
    "cue_candidate",
    "key_sorted",
    "mutated",
    "random_letters",
    "structured_request",
    "target_label",
    "wire_body",
    "wire_bytes",
    "wire_sha256",
]
