"""LLM-judge robustness (seed 004): presentation and cue experiments run as frozen protocols."""

from readout_audit.judge._cells import (
    CONFIRMATION_CELLS,
    CONTROL_CELLS,
    FIXTURE_CELLS,
    PREFLIGHT_CELLS,
    PRESENTATIONS,
    PRIMARY_CELLS,
    REPEAT_CELLS,
)
from readout_audit.judge._planned import (
    PlannedRequest,
)
from readout_audit.judge._record import (
    JudgeRecord,
)

__all__ = [
    "CONFIRMATION_CELLS",
    "CONTROL_CELLS",
    "FIXTURE_CELLS",
    "JudgeRecord",
    "PREFLIGHT_CELLS",
    "PRESENTATIONS",
    "PRIMARY_CELLS",
    "PlannedRequest",
    "REPEAT_CELLS",
]
