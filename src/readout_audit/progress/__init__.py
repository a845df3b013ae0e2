"""Progress on stderr: a bar on a terminal, plain lines at a fixed interval in logs and pipes.

Below every layer that runs long work (the run loop, the served request runner), so each can
report progress without depending on the other.
"""

from readout_audit.progress._progress import (
    LINE_INTERVAL,
    LineReporter,
    ProgressMode,
    Reporter,
    announce,
    duration,
    progress_mode,
    reporter,
)

__all__ = [
    "LINE_INTERVAL",
    "LineReporter",
    "ProgressMode",
    "Reporter",
    "announce",
    "duration",
    "progress_mode",
    "reporter",
]
