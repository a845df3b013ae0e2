"""``readout conformance --limit N --plain``: the first N probe prompts, recorded, ASCII tables."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from readout_audit._cli import main

pytestmark = pytest.mark.cost(10)


def test_conformance_checks_the_first_probe_prompts_and_says_so(served_spec, tmp_path):
    out = tmp_path / "conf"
    result = CliRunner().invoke(
        main, ["conformance", "--model", served_spec, "--out", str(out), "--limit", "1", "--plain"]
    )
    assert result.exit_code in (0, 3), result.output
    report = json.loads((out / "conformance.json").read_text())
    assert report["limit"] == 1
    checks = {c["name"]: c for c in report["endpoints"][0]["checks"]}
    assert checks["echo_alignment_chat"]["verdict"] == "unavailable"  # only the first, raw, prompt
    assert checks["determinism"]["detail"].startswith(("2/2 ", "1/2 ", "0/2 "))  # echo, greedy
    assert "first 1 probe prompts" in result.stdout
    assert "\x1b[" not in result.stdout and "┃" not in result.stdout and "+--" in result.stdout
