"""Releasing a run's unknown calls writes through the run's own stage: one writer at a time."""

from __future__ import annotations

import json
import os

import pytest

from readout_audit import RunDirectoryError
from readout_audit.kind import release_unknown
from readout_audit.log import Manifest, RunLock
from readout_audit.serve import LEDGER_FILE, Ledger


def test_a_release_while_the_run_is_written_is_refused_naming_the_writer(tmp_path):
    manifest = Manifest.create("score", None, {"items_sha256": "0" * 64})
    (tmp_path / "manifest.json").write_text(json.dumps(manifest.model_dump(mode="json")))
    with Ledger(tmp_path / LEDGER_FILE):
        pass
    writer = RunLock(tmp_path)
    writer.acquire()
    try:
        with pytest.raises(RunDirectoryError, match=f"being written by process {os.getpid()}"):
            release_unknown(tmp_path)
    finally:
        writer.release()
    assert release_unknown(tmp_path) == 0  # the writer gone, the release goes through
