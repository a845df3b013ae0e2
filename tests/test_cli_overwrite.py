"""Run options on the CLI: ``--overwrite`` replaces a finished run (without it a run is resumed
or refused as before; commands that write no run refuse it), ``conformance --threads`` reaches
the local reference, and ``--verbose`` says what it prints."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from readout_audit import read_run
from readout_audit._cli import main

pytestmark = pytest.mark.cost(10)


def _score(items, out, *args: str):
    return CliRunner().invoke(
        main, ["score", "--items", str(items), "--out", str(out), "--no-progress", *args]
    )


@pytest.mark.model
def test_overwrite_replaces_a_finished_run(tmp_path):
    items = tmp_path / "items.jsonl"
    rows = [
        {"id": f"q{i}", "prompt": f"{i} plus one is", "options": [" two", " three"]}
        for i in range(2)
    ]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    assert _score(items, out).exit_code == 0
    first = (out / "records.jsonl").read_text()
    again = _score(items, out)  # resumed: nothing new, the same records
    assert again.exit_code == 0 and (out / "records.jsonl").read_text() == first
    assert len(read_run(out).manifest.invocations) == 2
    # another configuration is refused without --overwrite, and replaces the run with it
    refused = _score(items, out, "--top-k", "3")
    assert refused.exit_code == 1 and "holds a run of another configuration" in refused.output
    replaced = _score(items, out, "--top-k", "3", "--overwrite")
    assert replaced.exit_code == 0, replaced.output
    run = read_run(out)
    assert len(run.manifest.invocations) == 1 and run.manifest.config["top_k"] == 3
    assert all(len(r.top) == 3 for r in run.records) and len(run.records) == 2


@pytest.mark.parametrize(
    ("command", "why"),
    [
        (["lift", "toy"], "by lift toy, which writes no run"),
        (["lift", "predict", "--cuts", "c.jsonl", "--out", "f.jsonl"], "by lift predict"),
    ],
)
def test_commands_that_write_no_run_refuse_overwrite(tmp_path, monkeypatch, command, why):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.jsonl").write_text("")
    result = CliRunner().invoke(main, [*command, "--overwrite"])
    assert result.exit_code == 2 and f"--overwrite is not read {why}" in result.output


def test_verbose_help_says_it_prints_every_table_and_check():
    result = CliRunner().invoke(main, ["score", "--help"], terminal_width=200)
    assert "Print every table and check of the report, and end with the manifest" in " ".join(
        result.output.split()
    )


def test_conformance_passes_threads_to_the_local_reference(tmp_path, monkeypatch):
    from readout_audit._exceptions import InputError
    from readout_audit.model import _gate

    seen: dict[str, object] = {}

    def reference(spec, **options):
        seen.update(options, spec=spec)
        raise InputError("stopped after the reference's options were seen", field="reference")

    monkeypatch.setattr(_gate, "load_served", lambda *args, **kwargs: None)
    monkeypatch.setattr(_gate, "reference_quantisation", lambda spec: None)
    monkeypatch.setattr(_gate, "load_model", reference)
    served = "openai:http://127.0.0.1:9/v1#m"
    args = ["conformance", "--model", served, "--out", str(tmp_path / "c"), "--threads", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "stopped after" in result.output, result.output
    assert seen["threads"] == 1
