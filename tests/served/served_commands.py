"""What the served-model tests share: the CLI invoked in process, item files, sizes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.model._conformance import TOLERANCE

Q4_1 = TOLERANCE["Q4_1"]
SECRET = "sk-never-written-anywhere"
ONE_AT_A_TIME = ["--concurrency", "1", "--request-timeout", "600"]
"""For long prompts: llama-cpp-python answers one request at a time and echoes ~0.11 s per
prompt token (it sorts the vocabulary for each), so a 600-token echo takes over a minute and
four queued ones would pass the default 120 s timeout while waiting."""


def invoke(*args: str) -> tuple[int, str]:
    """``readout ARGS`` in this process, with the served key in its environment."""
    result = CliRunner().invoke(main, list(args), env={"SERVED_KEY": SECRET})
    return result.exit_code, result.output


def write_items(tmp_path: Path, items: list[dict]) -> Path:
    """``items`` as ``tmp_path/items.jsonl``."""
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path
