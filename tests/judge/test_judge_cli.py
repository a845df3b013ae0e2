"""``readout judge build`` on the shipped fixtures: counts, files, reproducibility and errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit import InputError
from readout_audit._cli import main
from readout_audit.judge import read_inventory
from readout_audit.judge.inventory import INVENTORY_FILE, MANIFEST_FILE, OUTCOME_FILE

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
ARGS = [
    "--gsm8k", str(FIXTURES / "gsm8k_test_head.jsonl"),
    "--drop", str(FIXTURES / "drop_rows.jsonl"),
    "--configuration", "f3=FINAL3@smollm2-135m",
    "--configuration", "f4=FINAL4@openai:http://127.0.0.1:8080/v1#smollm2",
    "--per-dataset", "2",
    "--preflight-per-dataset", "1",
]  # fmt: skip


def build(*args: str):
    return CliRunner().invoke(main, ["judge", "build", *args])


def test_build_prints_counts_and_writes_a_checked_inventory(tmp_path):
    out = tmp_path / "inv"  # apart from the other tests' inventories
    result = build(*ARGS, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "gsm8k: 12 rows, 12 sources (skipped: none; excluded: none)",
        "drop: 13 rows, 9 sources (skipped: date_reference 1, no_numeric_reference 2, "
        "several_numeric_references 1; excluded: none)",
        "preflight: 2 sources x 12 calls x 2 configurations = 48 requests",
        "confirmation: 4 sources x 16 calls x 2 configurations = 128 requests",
        "per configuration: f3 88, f4 88",
        f"wrote 176 requests to {out / INVENTORY_FILE}",
    ]
    inventory = read_inventory(out)
    assert len(inventory.requests) == 176
    assert [c.bootstrap_seed for c in inventory.settings.configurations] == [
        20261007154,
        20261007155,
    ]


def test_another_process_builds_the_same_bytes(tmp_path):
    # apart: two inventories of one draw side by side share every source, and are refused
    here, there = tmp_path / "a" / "here", tmp_path / "b" / "there"
    assert build(*ARGS, "--out", str(here)).exit_code == 0
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "readout_audit",
            "judge",
            "build",
            *ARGS,
            "--out",
            str(there),
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    for name in (INVENTORY_FILE, OUTCOME_FILE):
        assert (here / name).read_bytes() == (there / name).read_bytes()


def test_exclude_takes_an_earlier_inventory(tmp_path):
    assert build(*ARGS, "--out", str(tmp_path / "first")).exit_code == 0
    result = build(*ARGS, "--out", str(tmp_path / "second"), "--exclude", str(tmp_path / "first"))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == (
        "gsm8k: 12 rows, 12 sources (skipped: none; excluded: prior_id 3)"
    )
    first, second = (read_inventory(tmp_path / n).outcome for n in ("first", "second"))
    assert {s.id for s in first.sources}.isdisjoint(s.id for s in second.sources)


def test_response_format_is_in_the_bodies_and_the_manifest_and_the_default_is_not_written(
    tmp_path,
):
    folders = tmp_path / "a" / "default", tmp_path / "b" / "object"  # apart: one draw twice
    assert build(*ARGS, "--out", str(folders[0])).exit_code == 0
    result = build(*ARGS, "--out", str(folders[1]), "--response-format", "f4=json_object")
    assert result.exit_code == 0, result.output
    default, chosen = (read_inventory(folder) for folder in folders)
    assert [c.response_format for c in chosen.settings.configurations] == [
        "json_schema",
        "json_object",
    ]
    manifest = json.loads((folders[1] / MANIFEST_FILE).read_text())["config"]
    assert [c.get("response_format") for c in manifest["configurations"]] == [None, "json_object"]
    assert b"response_format" not in (folders[0] / MANIFEST_FILE).read_bytes()
    # Only f4's bodies change: their wire and content hashes.
    for before, after in zip(default.requests, chosen.requests, strict=True):
        assert before.request_id == after.request_id and before.request == after.request
        changed = before.configuration == "f4"
        assert (before.wire_sha256 != after.wire_sha256) == changed
        assert (before.content_sha256 != after.content_sha256) == changed


def test_a_manifest_whose_response_format_was_changed_is_refused(tmp_path):
    out = tmp_path / "inv"  # apart from the other tests' inventories
    assert build(*ARGS, "--out", str(out), "--response-format", "f3=none").exit_code == 0
    path = out / MANIFEST_FILE
    manifest = json.loads(path.read_text())
    manifest["config"]["configurations"][0]["response_format"] = "json_object"
    path.write_text(json.dumps(manifest, indent=2))
    with pytest.raises(InputError, match="field 'wire_sha256': does not match the rebuilt"):
        read_inventory(out)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--configuration", "x=FINAL5@smollm2-135m"], "'FINAL5' is not a contract"),
        (["--configuration", "x=FINAL3"], "expected NAME=CONTRACT@JUDGESPEC"),
        (["--configuration", "f3=HALL@smollm2-135m"], "configuration names repeat"),
        (["--per-dataset", "20"], "gsm8k: only 12 sources can be admitted; 21 are needed"),
        (["--drop", "no/such-dataset"], "cannot load dataset 'no/such-dataset'"),
    ],
)
def test_errors_are_one_line(tmp_path, change, message):
    result = build(*ARGS, *change, "--out", str(tmp_path))
    assert result.exit_code == 1 and message in result.output, result.output
    assert not (tmp_path / INVENTORY_FILE).exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--response-format", "f3=xml"], "f3: 'xml' is not a response format; expected one of"),
        (["--response-format", "f9=none"], "'f9' names no --configuration"),
        (["--response-format", "f3"], "--response-format: expected NAME=FORM, got 'f3'"),
        (["--response-format", "f3=none", "--response-format", "f3=none"], "'f3' is given twice"),
    ],
)
def test_refused_settings_are_usage_errors_before_anything_is_read(tmp_path, change, message):
    result = build(*ARGS, *change, "--out", str(tmp_path))
    assert result.exit_code == 2 and message in result.output, result.output
    assert not tmp_path.joinpath(INVENTORY_FILE).exists()


def test_an_existing_inventory_is_kept_refused_or_forced_and_a_dataset_is_required(tmp_path):
    out = tmp_path / "inv"  # apart from the other tests' inventories
    assert build(*ARGS, "--out", str(out)).exit_code == 0
    written = (out / INVENTORY_FILE).read_bytes()
    assert build(*ARGS, "--out", str(out)).exit_code == 0  # the same build: nothing to add
    assert (out / INVENTORY_FILE).read_bytes() == written
    refused = build(*ARGS, "--seed", "7", "--out", str(out))
    assert refused.exit_code == 1 and "holds an inventory of another configuration" in (
        refused.output
    )
    assert "Differences: " in refused.output and "config.seed: 20261007154 -> 7" in refused.output
    assert (out / INVENTORY_FILE).read_bytes() == written
    assert build(*ARGS, "--seed", "7", "--out", str(out), "--force").exit_code == 0
    assert (out / INVENTORY_FILE).read_bytes() != written
    missing = build("--configuration", "f3=FINAL3@smollm2-135m", "--out", str(out))
    assert missing.exit_code == 2 and "give --gsm8k, --drop or --halueval" in missing.output
