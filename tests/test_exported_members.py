"""The package root re-exports its public API with a sorted ``__all__``."""

from __future__ import annotations

import readout_audit


def test_all_is_sorted_and_complete():
    public = {name for name in dir(readout_audit) if not name.startswith("_")}
    modules = {
        "cli",
        "data",
        "judge",
        "kind",
        "lift",
        "lmeval",
        "log",
        "model",
        "options",
        "progress",
        "prompt",
        "ptrue",
        "readout",
        "recover",
        "report",
        "scoring",
        "serve",
        "stats",
        "yesno",
    }
    assert readout_audit.__all__ == sorted(readout_audit.__all__)
    assert set(readout_audit.__all__) - {"__version__"} == public - modules
