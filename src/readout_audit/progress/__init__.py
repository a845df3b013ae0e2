"""Progress on stderr: a bar on a terminal, plain lines at a fixed interval in logs and pipes.

Below every layer that runs long work (the run loop, the served request runner), so each can
report progress without depending on the other.
"""

from readout_audit.progress._progress import (
    LINE_INTERVAL,
    RATE_WINDOW,
    LineReporter,
    ProgressMode,
    Reporter,
    announce,
    as_mode,
    duration,
    progress_mode,
    reporter,
)

__all__ = [
    "LINE_INTERVAL",
    "RATE_WINDOW",
    "LineReporter",
    "ProgressMode",
    "as_mode",
    "Reporter",
    "announce",
    "duration",
    "progress_mode",
    "reporter",
]
